/*
 * osc/newrma: node-local shared-memory segment (see osc_newrma_shm.h).
 */
#include "ompi_config.h"

#include <stdio.h>
#include <unistd.h>
#include <string.h>

#include "ompi/communicator/communicator.h"
#include "ompi/mca/rte/rte.h"
#include "opal/align.h"
#include "opal/mca/shmem/base/base.h"
#include "opal/util/sys_limits.h"

#include "osc_newrma.h"
#include "osc_newrma_shm.h"

/* Node rank 0 creates the backing file, everybody attaches, then it is
 * unlinked so nothing is left behind if a process dies. */
static int shm_create_segment(ompi_osc_newrma_module_t *module, size_t total)
{
    ompi_communicator_t *node_comm = module->shm.node_comm;
    char path[OPAL_PATH_MAX];
    int ret = OMPI_SUCCESS;

    if (0 == ompi_comm_rank(node_comm)) {
        snprintf(path, sizeof(path), "%s/osc_newrma.%s.%x.%d.%u",
                 0 == access("/dev/shm", W_OK) ? "/dev/shm" : ompi_process_info.proc_session_dir,
                 ompi_process_info.nodename, OMPI_PROC_MY_NAME->jobid,
                 (int) OMPI_PROC_MY_NAME->vpid, module->cid);
        ret = opal_shmem_segment_create(&module->shm.ds, path, total);
        if (OPAL_SUCCESS != ret) {
            opal_output(0, "osc/newrma: cannot create a %zu-byte shared segment at %s", total,
                        path);
        }
    }
    /* every rank learns whether the creation worked before attaching */
    int ok = (OMPI_SUCCESS == ret);
    ret = node_comm->c_coll->coll_bcast(&ok, 1, MPI_INT, 0, node_comm,
                                        node_comm->c_coll->coll_bcast_module);
    if (OMPI_SUCCESS != ret || !ok) {
        return OMPI_SUCCESS != ret ? ret : OMPI_ERR_OUT_OF_RESOURCE;
    }
    ret = node_comm->c_coll->coll_bcast(&module->shm.ds, sizeof(module->shm.ds), MPI_BYTE, 0,
                                        node_comm, node_comm->c_coll->coll_bcast_module);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    module->shm.seg_base = opal_shmem_segment_attach(&module->shm.ds);
    if (NULL == module->shm.seg_base) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    module->shm.active = true;
    ret = node_comm->c_coll->coll_barrier(node_comm, node_comm->c_coll->coll_barrier_module);
    if (0 == ompi_comm_rank(node_comm)) {
        opal_shmem_unlink(&module->shm.ds);
    }
    return ret;
}

typedef struct {
    uint64_t size;
    int32_t win_rank;
    int32_t pad;
} shm_rank_info_t;

static int shm_place_ranks(ompi_osc_newrma_module_t *module, size_t size, bool noncontig,
                           void **base_p)
{
    ompi_communicator_t *node_comm = module->shm.node_comm;
    int node_size = ompi_comm_size(node_comm);
    size_t page = opal_getpagesize(), total = 0, offset = 0, ctrl;
    ompi_osc_newrma_lock_word_t *words;
    shm_rank_info_t mine = {size, module->my_rank, 0}, *all;
    int ret;

    all = calloc((size_t) node_size, sizeof(*all));
    if (NULL == all) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    ret = node_comm->c_coll->coll_allgather(&mine, sizeof(mine), MPI_BYTE, all, sizeof(mine),
                                            MPI_BYTE, node_comm,
                                            node_comm->c_coll->coll_allgather_module);
    if (OMPI_SUCCESS != ret) {
        goto out;
    }
    /* the node's lock words come first, one cache line per rank, then the
     * barrier's line */
    ctrl = OPAL_ALIGN(sizeof(ompi_osc_newrma_lock_word_t) * (size_t) node_size +
                          sizeof(ompi_osc_newrma_shm_barrier_t),
                      page, size_t);
    for (int i = 0; i < node_size; ++i) {
        total += noncontig ? OPAL_ALIGN(all[i].size, page, size_t) : all[i].size;
    }
    ret = shm_create_segment(module, ctrl + OPAL_ALIGN(total, page, size_t) + page);
    if (OMPI_SUCCESS != ret) {
        goto out;
    }
    words = (ompi_osc_newrma_lock_word_t *) module->shm.seg_base;
    module->shm.barrier = (ompi_osc_newrma_shm_barrier_t *) (words + node_size);
    module->shm.node_size = node_size;
    module->shm.whole = node_size == module->comm_size;
    offset = ctrl;
    /* contiguous by default: rank r's memory follows rank r-1's (MPI-3.1 11.2.3) */
    for (int i = 0; i < node_size; ++i) {
        ompi_osc_newrma_peer_t *peer = &module->peers[all[i].win_rank];
        peer->shm_base = module->shm.seg_base + offset;
        offset += noncontig ? OPAL_ALIGN(all[i].size, page, size_t) : all[i].size;
        /* node-local origins take the lock word with CPU atomics when they
         * also access the memory directly */
        if (all[i].win_rank == module->my_rank) {
            module->my_lock = &words[i];
            peer->lock = &words[i];
        } else if (module->shm.direct) {
            peer->lock = &words[i];
        }
    }
    *base_p = module->peers[module->my_rank].shm_base;
out:
    free(all);
    return ret;
}

int ompi_osc_newrma_shm_allocate(ompi_osc_newrma_module_t *module, size_t size, bool noncontig,
                                 void **base_p)
{
    int ret =
        ompi_comm_split_type(module->comm, MPI_COMM_TYPE_SHARED, 0, NULL, &module->shm.node_comm);

    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    ret = shm_place_ranks(module, size, noncontig, base_p);
    if (OMPI_SUCCESS != ret) {
        ompi_osc_newrma_shm_free(module);
    }
    return ret;
}

void ompi_osc_newrma_shm_free(ompi_osc_newrma_module_t *module)
{
    if (module->shm.active) {
        opal_shmem_segment_detach(&module->shm.ds);
        module->shm.active = false;
        module->shm.seg_base = NULL;
    }
    if (NULL != module->shm.node_comm) {
        ompi_comm_free(&module->shm.node_comm);
        module->shm.node_comm = NULL;
    }
}

int32_t ompi_osc_newrma_shm_barrier_arrive(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_shm_barrier_t *b = module->shm.barrier;
    int32_t ticket = b->generation;

    opal_atomic_rmb(); /* the generation is read before we count ourselves */
    if (opal_atomic_add_fetch_32(&b->arrived, 1) == module->shm.node_size) {
        b->arrived = 0; /* nobody arrives again before the generation moves */
        opal_atomic_wmb();
        b->generation = ticket + 1;
    }
    return ticket;
}

bool ompi_osc_newrma_shm_barrier_done(ompi_osc_newrma_module_t *module, int32_t ticket)
{
    if (module->shm.barrier->generation == ticket) {
        return false;
    }
    opal_atomic_rmb(); /* what the others stored before arriving is visible */
    return true;
}

int ompi_osc_newrma_shm_barrier(ompi_osc_newrma_module_t *module)
{
    ompi_communicator_t *node_comm = module->shm.node_comm;

    return node_comm->c_coll->coll_barrier(node_comm, node_comm->c_coll->coll_barrier_module);
}
