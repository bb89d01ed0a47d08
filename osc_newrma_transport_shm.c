/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: node-local shared-memory segment (see osc_newrma_transport_shm.h).
 */
#include "ompi_config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ompi/communicator/communicator.h"
#include "ompi/mca/rte/rte.h"
#include "opal/align.h"
#include "opal/mca/shmem/base/base.h"
#include "opal/util/sys_limits.h"

#include "osc_newrma.h"
#include "osc_newrma_base_copy.h"
#include "osc_newrma_base_mutex.h"
#include "osc_newrma_base_pick.h"
#include "osc_newrma_transport_shm.h"
#include "osc_newrma_transport_ucx.h"

#define component mca_osc_newrma_component

/* ---- segment cache ----
 * Creating, attaching, unlinking and unmapping a segment is most of what
 * window creation and free cost on a node.  A freed window's segment stays
 * mapped (up to osc_newrma_shm_cache_bytes per process) and the next window
 * of the same node ranks takes it over when all of them still hold it and it
 * is large enough: the ranks agree through the allgather that places them,
 * so the decision is the same everywhere.  component.lock protects the list. */

typedef struct {
    opal_list_item_t super;
    opal_shmem_ds_t ds;
    char *seg_base;
    size_t bytes;
    uint64_t id;
    int node_size;
    /** the node ranks that share it, in node-rank order */
    struct ompi_proc_t **procs;
} shm_cached_t;

static void shm_cached_construct(shm_cached_t *c)
{
    c->seg_base = NULL;
    c->procs = NULL;
}

static void shm_cached_destruct(shm_cached_t *c)
{
    if (NULL != c->seg_base) {
        opal_shmem_segment_detach(&c->ds);
    }
    free(c->procs);
}

static OBJ_CLASS_INSTANCE(shm_cached_t, opal_list_item_t, shm_cached_construct,
                          shm_cached_destruct);

/* The descriptor's fixed part and the used part of its path (the type's
 * last member, so the bytes it really uses are one prefix of it). */
static size_t shm_ds_len(const opal_shmem_ds_t *ds)
{
    return offsetof(opal_shmem_ds_t, seg_name) + strnlen(ds->seg_name, sizeof(ds->seg_name) - 1) +
           1;
}

static char *shm_ds_keep(const opal_shmem_ds_t *ds)
{
    size_t len = shm_ds_len(ds);
    char *kept = malloc(len);

    if (NULL != kept) {
        memcpy(kept, ds, len - 1);
        kept[len - 1] = '\0';
    }
    return kept;
}

/* The whole descriptor again, for opal_shmem calls. */
static void shm_ds_expand(const char *kept, opal_shmem_ds_t *ds)
{
    memset(ds, 0, sizeof(*ds));
    memcpy(ds, kept, offsetof(opal_shmem_ds_t, seg_name));
    strcpy(ds->seg_name, kept + offsetof(opal_shmem_ds_t, seg_name));
}

static uint64_t shm_new_id(void)
{
    static uint32_t seq = 0;

    return ((uint64_t) OMPI_PROC_MY_NAME->vpid << 32) | ++seq;
}

static bool shm_cached_matches(const shm_cached_t *c, ompi_communicator_t *node_comm)
{
    if (c->node_size != ompi_comm_size(node_comm)) {
        return false;
    }
    for (int i = 0; i < c->node_size; ++i) {
        if (c->procs[i] != ompi_comm_peer_lookup(node_comm, i)) {
            return false;
        }
    }
    return true;
}

/* The largest cached segment of these node ranks, or NULL. */
static shm_cached_t *shm_cache_find(ompi_communicator_t *node_comm)
{
    shm_cached_t *c, *best = NULL;

    OPAL_LIST_FOREACH(c, &component.shm_cache, shm_cached_t)
    {
        if (shm_cached_matches(c, node_comm) && (NULL == best || c->bytes > best->bytes)) {
            best = c;
        }
    }
    return best;
}

static void shm_cache_return(shm_cached_t *c)
{
    ompi_osc_newrma_mutex_lock(&component.lock, OMPI_OSC_NEWRMA_MUTEX_COMPONENT);
    opal_list_append(&component.shm_cache, &c->super);
    ompi_osc_newrma_mutex_unlock(&component.lock, OMPI_OSC_NEWRMA_MUTEX_COMPONENT);
}

/* The cached segment this creation offers its node ranks, out of the cache
 * until the offer is settled (no other creation offers it meanwhile), with
 * its descriptor kept for the window; NULL: nothing to offer (not having
 * the memory to keep a descriptor is not a failure, only no offer). */
static shm_cached_t *shm_cache_reserve(ompi_osc_newrma_module_t *module)
{
    shm_cached_t *c;

    ompi_osc_newrma_mutex_lock(&component.lock, OMPI_OSC_NEWRMA_MUTEX_COMPONENT);
    c = shm_cache_find(module->shm.node_comm);
    if (NULL != c) {
        opal_list_remove_item(&component.shm_cache, &c->super);
    }
    ompi_osc_newrma_mutex_unlock(&component.lock, OMPI_OSC_NEWRMA_MUTEX_COMPONENT);
    if (NULL == c) {
        return NULL;
    }
    module->shm.ds_kept = shm_ds_keep(&c->ds);
    if (NULL == module->shm.ds_kept) {
        shm_cache_return(c);
        return NULL;
    }
    return c;
}

/* Every node rank offered the segment: it is this window's now (nothing
 * here can fail: the creation has no collective left to report it). */
static void shm_cache_adopt(ompi_osc_newrma_module_t *module, shm_cached_t *c)
{
    module->shm.seg_base = c->seg_base;
    module->shm.seg_bytes = c->bytes;
    module->shm.seg_id = c->id;
    module->shm.active = true;
    module->shm.reused = true;
    OMPI_OSC_NEWRMA_STAT_ADD(module, SEGMENTS_REUSED, 1);
    c->seg_base = NULL; /* the window owns the mapping now */
    OBJ_RELEASE(c);
    OSC_NEWRMA_VERBOSE(10, "window %u reuses shared segment %" PRIx64 " (%zu bytes)", module->cid,
                       module->shm.seg_id, module->shm.seg_bytes);
}

/* The offer was not taken up (another rank offered another segment, or
 * none, or the creation failed): back to the cache. */
static void shm_cache_unreserve(ompi_osc_newrma_module_t *module, shm_cached_t *c)
{
    free(module->shm.ds_kept);
    module->shm.ds_kept = NULL;
    shm_cache_return(c);
}

static size_t shm_cache_size(void)
{
    shm_cached_t *c;
    size_t bytes = 0;

    OPAL_LIST_FOREACH(c, &component.shm_cache, shm_cached_t)
    {
        bytes += c->bytes;
    }
    return bytes;
}

/* Keep a freed window's segment, oldest ones out first; false: unmap it. */
static bool shm_cache_keep(ompi_osc_newrma_module_t *module)
{
    shm_cached_t *c;

    if (module->shm.seg_bytes > component.shm_cache_bytes || NULL == module->shm.node_comm) {
        return false;
    }
    c = OBJ_NEW(shm_cached_t);
    if (NULL == c) {
        return false;
    }
    c->procs = malloc(sizeof(*c->procs) * (size_t) module->shm.node_size);
    if (NULL == c->procs) {
        OBJ_RELEASE(c);
        return false;
    }
    for (int i = 0; i < module->shm.node_size; ++i) {
        c->procs[i] = ompi_comm_peer_lookup(module->shm.node_comm, i);
    }
    c->node_size = module->shm.node_size;
    shm_ds_expand(module->shm.ds_kept, &c->ds);
    c->seg_base = module->shm.seg_base;
    c->bytes = module->shm.seg_bytes;
    c->id = module->shm.seg_id;
    ompi_osc_newrma_mutex_lock(&component.lock, OMPI_OSC_NEWRMA_MUTEX_COMPONENT);
    while (shm_cache_size() + c->bytes > component.shm_cache_bytes) {
        opal_list_item_t *oldest = opal_list_remove_first(&component.shm_cache);
        OBJ_RELEASE(oldest);
    }
    opal_list_append(&component.shm_cache, &c->super);
    ompi_osc_newrma_mutex_unlock(&component.lock, OMPI_OSC_NEWRMA_MUTEX_COMPONENT);
    return true;
}

void ompi_osc_newrma_shm_cache_fini(void)
{
    opal_list_item_t *item;

    while (NULL != (item = opal_list_remove_first(&component.shm_cache))) {
        OBJ_RELEASE(item);
    }
}

/* Where the segment's layout starts in the mapping: opal's segment header
 * (8 bytes) put the lock words, the barrier's line, the mailbox slots and
 * the window's memory 8 bytes into their cache lines, every "line" of the
 * layout straddling two (each lock word sharing one with the next, the
 * barrier's with a PSCW block).  NULL stays NULL. */
static char *shm_origin(void *attached)
{
    return NULL == attached ? NULL : OPAL_ALIGN_PTR(attached, OMPI_OSC_NEWRMA_SHM_ORIGIN, char *);
}

/* Node rank 0 creates the backing file, everybody attaches; it is unlinked
 * once creation is complete (ompi_osc_newrma_shm_created). */
static int shm_create_segment(ompi_osc_newrma_module_t *module, size_t total)
{
    ompi_communicator_t *node_comm = module->shm.node_comm;
    char path[OPAL_PATH_MAX];
    /* one broadcast tells whether the creation worked and where it is */
    struct {
        opal_shmem_ds_t ds;
        uint64_t id;
        int ok;
    } made;
    int ret = OMPI_SUCCESS;

    memset(&made, 0, sizeof(made));
    if (0 == ompi_comm_rank(node_comm)) {
        snprintf(path, sizeof(path), "%s/osc_newrma.%s.%x.%d.%u",
                 0 == access("/dev/shm", W_OK) ? "/dev/shm" : ompi_process_info.proc_session_dir,
                 ompi_process_info.nodename, OMPI_PROC_MY_NAME->jobid,
                 (int) OMPI_PROC_MY_NAME->vpid, module->cid);
        ret = opal_shmem_segment_create(&made.ds, path, total);
        if (OPAL_SUCCESS != ret) {
            opal_output(0, "osc/newrma: cannot create a %zu-byte shared segment at %s", total,
                        path);
        }
        made.ok = (OMPI_SUCCESS == ret);
        made.id = shm_new_id();
    }
    ret = node_comm->c_coll->coll_bcast(&made, sizeof(made), MPI_BYTE, 0, node_comm,
                                        node_comm->c_coll->coll_bcast_module);
    if (OMPI_SUCCESS != ret || !made.ok) {
        if (made.ok && 0 == ompi_comm_rank(node_comm)) {
            opal_shmem_unlink(&made.ds);
        }
        return OMPI_SUCCESS != ret ? ret : OMPI_ERR_OUT_OF_RESOURCE;
    }
    /* attaching fills in the descriptor's address: keep it after */
    module->shm.seg_base = shm_origin(opal_shmem_segment_attach(&made.ds));
    module->shm.ds_kept = shm_ds_keep(&made.ds);
    if (NULL == module->shm.ds_kept) {
        if (0 == ompi_comm_rank(node_comm)) {
            opal_shmem_unlink(&made.ds); /* first: detaching clears the name */
        }
        if (NULL != module->shm.seg_base) {
            opal_shmem_segment_detach(&made.ds);
            module->shm.seg_base = NULL;
        }
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    /* the creator unlinks the file once everybody is attached */
    module->shm.linked = 0 == ompi_comm_rank(node_comm);
    module->shm.seg_id = made.id;
    module->shm.seg_bytes = total; /* as asked for (ORIGIN included): what reuse compares */
    if (NULL == module->shm.seg_base) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    module->shm.active = true;
    return OMPI_SUCCESS;
}

static void shm_unlink_kept(ompi_osc_newrma_module_t *module)
{
    opal_shmem_ds_t ds;

    shm_ds_expand(module->shm.ds_kept, &ds);
    opal_shmem_unlink(&ds);
    module->shm.linked = false;
}

void ompi_osc_newrma_shm_created(ompi_osc_newrma_module_t *module)
{
    module->shm.complete = module->shm.active;
    if (module->shm.linked) {
        shm_unlink_kept(module);
    }
}

typedef struct {
    uint64_t size;
    /** the cached segment this rank offers (0: none) and its size */
    uint64_t cache_id;
    uint64_t cache_bytes;
    int32_t win_rank;
    /** this rank's creation failed before the segment (an OMPI error code) */
    int32_t status;
    /** MPI_Win_shared_query answers it without asking the rank */
    int32_t disp_unit;
    /** this rank lacks a peer's worker address (ompi_osc_newrma_shm_sync_attach) */
    int32_t addresses;
} shm_rank_info_t;

/* The first failure any node rank reported, or OMPI_SUCCESS. */
static int shm_node_status(const shm_rank_info_t *all, int node_size)
{
    for (int i = 0; i < node_size; ++i) {
        if (OMPI_SUCCESS != all[i].status) {
            return all[i].status;
        }
    }
    return OMPI_SUCCESS;
}

/* Every node rank offered the same cached segment, large enough. */
static bool shm_reuse(const shm_rank_info_t *all, int node_size, size_t need)
{
    for (int i = 0; i < node_size; ++i) {
        if (0 == all[i].cache_id || all[i].cache_id != all[0].cache_id ||
            all[i].cache_bytes < need) {
            return false;
        }
    }
    return true;
}

/* The lock words, up to the barrier's line: whole lines (a word is one
 * line now; the barrier's must not share one with them, as origins lock
 * and unlock while ranks spin in the barrier). */
static size_t shm_words_bytes(int node_size)
{
    return OPAL_ALIGN(sizeof(ompi_osc_newrma_lockword_t) * (size_t) node_size, 64, size_t);
}

/* The segment's control part: the node's lock words, one per node rank,
 * then the barrier's line, then a PSCW block per node rank. */
static size_t shm_pscw_stride(int node_size)
{
    return OPAL_ALIGN(sizeof(ompi_osc_newrma_shm_pscw_t) +
                          sizeof(int64_t) * (size_t) ((node_size + 63) / 64),
                      64, size_t);
}

/* A rank's line of what origins read and its mailbox slots (after the
 * PSCW blocks). */
static size_t shm_mbox_stride(void)
{
    return sizeof(ompi_osc_newrma_shm_rank_t) +
           sizeof(ompi_osc_newrma_shm_mbox_t) * OMPI_OSC_NEWRMA_SHM_MBOX_SLOTS;
}

/* The lock words, the barrier, the PSCW blocks, the ranks' lines and
 * slots: up to the slots' areas. */
static size_t shm_areas_offset(int node_size)
{
    return OPAL_ALIGN(shm_words_bytes(node_size) +
                          (sizeof(ompi_osc_newrma_shm_barrier_t) + shm_pscw_stride(node_size) +
                           shm_mbox_stride()) *
                              (size_t) node_size,
                      opal_getpagesize(), size_t);
}

/* The control part ends with the slots' areas: address space only until
 * an op larger than a slot uses one (the pages are the file's holes). */
static size_t shm_ctrl_bytes(int node_size)
{
    return OPAL_ALIGN(shm_areas_offset(node_size) + (size_t) node_size *
                                                        OMPI_OSC_NEWRMA_SHM_MBOX_SLOTS *
                                                        OMPI_OSC_NEWRMA_SHM_MBOX_AREA,
                      opal_getpagesize(), size_t);
}

static ompi_osc_newrma_shm_barrier_t *shm_barrier_at(char *seg_base, int node_size)
{
    return (ompi_osc_newrma_shm_barrier_t *) (seg_base + shm_words_bytes(node_size));
}

/* The first PSCW block: right after the barrier's flags. */
static char *shm_pscw_at(char *seg_base, int node_size)
{
    return (char *) (shm_barrier_at(seg_base, node_size) + node_size);
}

/* The first rank's line and mailbox: after the PSCW blocks (64-byte
 * multiples). */
static char *shm_mbox_at(char *seg_base, int node_size)
{
    return shm_pscw_at(seg_base, node_size) + shm_pscw_stride(node_size) * (size_t) node_size;
}

/* The rounds of a dissemination barrier of @p node_size ranks. */
static int shm_barrier_rounds(int node_size)
{
    int rounds = 0;

    while (rounds < OMPI_OSC_NEWRMA_SHM_BARRIER_ROUNDS && (1 << rounds) < node_size) {
        ++rounds;
    }
    return rounds;
}

static void shm_layout(ompi_osc_newrma_module_t *module, int node_size, int node_rank)
{
    module->shm.barrier = shm_barrier_at(module->shm.seg_base, node_size);
    module->shm.node_rank = node_rank;
    module->shm.barrier_epoch = 0; /* the flags are zero: fresh, or cleared by shm_claim_mine */
    module->shm.barrier_rounds = shm_barrier_rounds(node_size);
    module->shm.pscw = shm_pscw_at(module->shm.seg_base, node_size);
    module->shm.mbox = shm_mbox_at(module->shm.seg_base, node_size);
    module->shm.mbox_areas = module->shm.seg_base + shm_areas_offset(node_size);
    module->shm.pscw_stride = shm_pscw_stride(node_size);
    module->shm.node_size = node_size;
    module->shm.whole = node_size == module->comm_size;
}

/* My lock word and PSCW block in a segment, cleared when it held an
 * earlier window; then my pid, which waiters check. */
static void shm_claim_mine(char *seg_base, int node_size, int node_rank, bool clear)
{
    ompi_osc_newrma_lockword_t *words = (ompi_osc_newrma_lockword_t *) seg_base;
    size_t stride = shm_pscw_stride(node_size);
    char *block = shm_pscw_at(seg_base, node_size) + stride * (size_t) node_rank;

    if (clear) {
        /* no peer stores into my barrier flags now: each left the last
         * barrier of the segment's earlier window only after I stored in
         * its flags, and I left it only once every store into mine was made */
        memset(shm_barrier_at(seg_base, node_size) + node_rank, 0,
               sizeof(ompi_osc_newrma_shm_barrier_t));
        memset(&words[node_rank], 0, sizeof(words[node_rank]));
        memset(block, 0, stride);
        memset(shm_mbox_at(seg_base, node_size) + shm_mbox_stride() * (size_t) node_rank, 0,
               shm_mbox_stride());
    }
    /* the runtime's copy: getpid() is a system call per window */
    ((ompi_osc_newrma_shm_pscw_t *) block)->pid = (int32_t) ompi_process_info.pid;
}

/* Before the placing allgather, what can fail after it when the segment
 * is reused, so that the allgather carries it: the peer entries of a
 * window that is all on this node (node rank r is window rank r) when its
 * memory is placed (@p peers), and the
 * offer, whose own words are cleared now, since once past the allgather a
 * peer may lock me at once. */
static int shm_prepare(ompi_osc_newrma_module_t *module, int status, bool peers,
                       shm_rank_info_t *mine, shm_cached_t **offered)
{
    ompi_communicator_t *node_comm = module->shm.node_comm;
    int node_size = ompi_comm_size(node_comm);

    *offered = NULL;
    if (OMPI_SUCCESS != status) {
        return status;
    }
    for (int r = 0; peers && node_size == module->comm_size && r < node_size; ++r) {
        if (NULL == ompi_osc_newrma_peer(module, r)) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
    }
    *offered = shm_cache_reserve(module);
    if (NULL != *offered) {
        mine->cache_id = (*offered)->id;
        mine->cache_bytes = (*offered)->bytes;
        shm_claim_mine((*offered)->seg_base, node_size, ompi_comm_rank(node_comm), true);
    }
    return OMPI_SUCCESS;
}

/* Each node rank's place in the segment: its memory (contiguous by
 * default: rank r's follows rank r-1's, MPI-3.1 11.2.3) and its lock
 * word.  Node-local origins take a lock word with CPU atomics when they
 * also access the memory directly. */
static int shm_place_peers(ompi_osc_newrma_module_t *module, const shm_rank_info_t *all,
                           bool noncontig)
{
    ompi_osc_newrma_lockword_t *words = (ompi_osc_newrma_lockword_t *) module->shm.seg_base;
    size_t page = opal_getpagesize(),
           offset = shm_ctrl_bytes(module->shm.node_size) + OMPI_OSC_NEWRMA_SHM_SKEW;

    for (int i = 0; i < module->shm.node_size; ++i) {
        ompi_osc_newrma_peer_t *peer = ompi_osc_newrma_peer(module, all[i].win_rank);

        if (NULL == peer) {
            return OMPI_ERR_OUT_OF_RESOURCE; /* not when reused (shm_prepare) */
        }
        peer->shm_base = module->shm.seg_base + offset;
        peer->size = all[i].size;
        peer->disp_unit = all[i].disp_unit;
        peer->layout_known = true;
        offset += noncontig ? OPAL_ALIGN(all[i].size, page, size_t) : all[i].size;
        if (all[i].win_rank == module->my_rank) {
            module->my_lock = &words[i];
            peer->lock = &words[i];
        } else if (module->shm.direct) {
            peer->lock = &words[i];
        }
    }
    return OMPI_SUCCESS;
}

/* A segment of the control part only: my lock word (node rank r is
 * window rank r, the node being the window). */
static void shm_place_self(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_lockword_t *words = (ompi_osc_newrma_lockword_t *) module->shm.seg_base;

    module->my_lock = &words[module->my_rank];
}

/* @p base_p NULL: the control part only (ompi_osc_newrma_shm_sync_attach). */
static int shm_place_ranks(ompi_osc_newrma_module_t *module, size_t size, bool noncontig,
                           int status, bool addresses, void **base_p)
{
    ompi_communicator_t *node_comm = module->shm.node_comm;
    int node_size = ompi_comm_size(node_comm);
    size_t page = opal_getpagesize(), total = 0;
    shm_rank_info_t mine = {size, 0, 0, module->my_rank, status, module->disp_unit, addresses},
                    *all;
    shm_cached_t *offered = NULL;
    int ret;

    all = calloc((size_t) node_size, sizeof(*all));
    if (NULL == all) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    mine.status = shm_prepare(module, status, NULL != base_p, &mine, &offered);
    ret = node_comm->c_coll->coll_allgather(&mine, sizeof(mine), MPI_BYTE, all, sizeof(mine),
                                            MPI_BYTE, node_comm,
                                            node_comm->c_coll->coll_allgather_module);
    if (OMPI_SUCCESS == ret) {
        ret = shm_node_status(all, node_size);
    }
    if (OMPI_SUCCESS != ret) {
        goto out;
    }
    for (int i = 0; i < node_size; ++i) {
        total += noncontig ? OPAL_ALIGN(all[i].size, page, size_t) : all[i].size;
        module->shm.addresses_needed |= 0 != all[i].addresses;
    }
    total = OMPI_OSC_NEWRMA_SHM_ORIGIN + shm_ctrl_bytes(node_size) + OMPI_OSC_NEWRMA_SHM_SKEW +
            OPAL_ALIGN(total, page, size_t);
    if (NULL != offered && shm_reuse(all, node_size, total)) {
        shm_cache_adopt(module, offered);
        offered = NULL;
    } else {
        if (NULL != offered) {
            shm_cache_unreserve(module, offered);
            offered = NULL;
        }
        ret = shm_create_segment(module, total);
        if (OMPI_SUCCESS != ret) {
            goto out;
        }
        shm_claim_mine(module->shm.seg_base, node_size, ompi_comm_rank(node_comm), false);
    }
    shm_layout(module, node_size, ompi_comm_rank(node_comm));
    if (NULL == base_p) {
        shm_place_self(module);
        goto out;
    }
    ret = shm_place_peers(module, all, noncontig);
    if (OMPI_SUCCESS == ret) {
        *base_p = ompi_osc_newrma_peer(module, module->my_rank)->shm_base;
    }
out:
    if (NULL != offered) {
        shm_cache_unreserve(module, offered);
    }
    free(all);
    return ret;
}

/* The window's ranks on this node.  A shared window is on one node by
 * the user's promise; MPI_Win_allocate may span nodes, or simulated ones
 * (osc_newrma_test_node_size) to test mixed locality on one machine. */
static int shm_node_comm(ompi_osc_newrma_module_t *module)
{
    int block = component.test_node_size;
    int ret;

    if (block > 0 && MPI_WIN_FLAVOR_SHARED != module->flavor) {
        int world_rank = ompi_comm_rank(&ompi_mpi_comm_world.comm);

        ret = ompi_comm_split(module->comm, world_rank / block, 0, &module->shm.node_comm, false);
    } else if (!ompi_group_have_remote_peers(module->comm->c_local_group)) {
        /* a window on one node needs no split (a collective and a new
         * communicator per window): the node is the window's communicator */
        module->shm.node_comm = module->comm;
        return OMPI_SUCCESS;
    } else {
        ret = ompi_comm_split_type(module->comm, MPI_COMM_TYPE_SHARED, 0, NULL,
                                   &module->shm.node_comm);
    }
    module->shm.node_comm_owned = OMPI_SUCCESS == ret;
    return ret;
}

int ompi_osc_newrma_shm_allocate(ompi_osc_newrma_module_t *module, size_t size, bool noncontig,
                                 int status, bool addresses, void **base_p)
{
    int ret = shm_node_comm(module);

    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    ret = shm_place_ranks(module, size, noncontig, status, addresses, base_p);
    if (OMPI_SUCCESS != ret) {
        ompi_osc_newrma_shm_free(module);
    }
    return ret;
}

bool ompi_osc_newrma_shm_sync_wanted(const ompi_osc_newrma_module_t *module)
{
    return module->config.shm && module->comm_size > 1 && 0 == component.test_node_size &&
           !ompi_group_have_remote_peers(module->comm->c_local_group);
}

int ompi_osc_newrma_shm_sync_attach(ompi_osc_newrma_module_t *module, int status, bool addresses)
{
    int ret;

    module->shm.node_comm = module->comm; /* the node is the window */
    ret = shm_place_ranks(module, 0, false, status, addresses, NULL);
    if (OMPI_SUCCESS != ret) {
        ompi_osc_newrma_shm_free(module);
    }
    return ret;
}

void ompi_osc_newrma_shm_free(ompi_osc_newrma_module_t *module)
{
    if (module->shm.linked) { /* a creation that failed midway */
        shm_unlink_kept(module);
    }
    if (module->shm.active) {
        if (!(module->shm.complete && shm_cache_keep(module))) {
            opal_shmem_ds_t ds;

            shm_ds_expand(module->shm.ds_kept, &ds);
            opal_shmem_segment_detach(&ds);
        }
        module->shm.active = false;
        module->shm.seg_base = NULL;
    }
    free(module->shm.ds_kept);
    module->shm.ds_kept = NULL;
    if (module->shm.node_comm_owned) {
        ompi_comm_free(&module->shm.node_comm);
        module->shm.node_comm_owned = false;
    }
    module->shm.node_comm = NULL;
}

/* Round @p round's store: the barrier's number into the flag of the rank
 * 2^round above me, after everything I stored before (and saw, in the
 * rounds before). */
static void shm_barrier_signal(ompi_osc_newrma_module_t *module, int round)
{
    int to =
        (int) (((int64_t) module->shm.node_rank + ((int64_t) 1 << round)) % module->shm.node_size);

    opal_atomic_wmb();
    module->shm.barrier[to].round[round] = module->shm.barrier_epoch;
}

void ompi_osc_newrma_shm_barrier_arrive(ompi_osc_newrma_module_t *module)
{
    module->shm.barrier_epoch++;
    module->shm.barrier_round = 0;
    if (0 < module->shm.barrier_rounds) {
        shm_barrier_signal(module, 0);
    }
}

bool ompi_osc_newrma_shm_barrier_done(ompi_osc_newrma_module_t *module)
{
    const ompi_osc_newrma_shm_barrier_t *mine = &module->shm.barrier[module->shm.node_rank];
    int32_t ticket = module->shm.barrier_epoch;

    while (module->shm.barrier_round < module->shm.barrier_rounds) {
        /* a flag may already hold the next barrier's number (its setter
         * went on, the barrier done for it): compared as a wrapping count */
        if ((int32_t) ((uint32_t) mine->round[module->shm.barrier_round] - (uint32_t) ticket) < 0) {
            return false;
        }
        opal_atomic_rmb(); /* what its setter stored or saw before it is visible */
        if (++module->shm.barrier_round < module->shm.barrier_rounds) {
            shm_barrier_signal(module, module->shm.barrier_round);
        }
    }
    return true;
}

/* ---- PSCW flags ---- */

bool ompi_osc_newrma_shm_peer_lost(ompi_osc_newrma_module_t *module)
{
    for (int i = 0; i < module->shm.node_size; ++i) {
        const ompi_osc_newrma_shm_pscw_t *block =
            (const ompi_osc_newrma_shm_pscw_t *) (module->shm.pscw +
                                                  module->shm.pscw_stride * (size_t) i);
        pid_t pid = (pid_t) block->pid;

        if (pid > 0 && 0 != kill(pid, 0) && ESRCH == errno) {
            return true;
        }
    }
    return false;
}

static ompi_osc_newrma_shm_pscw_t *shm_pscw(ompi_osc_newrma_module_t *module, int rank)
{
    return (ompi_osc_newrma_shm_pscw_t *) (module->shm.pscw +
                                           module->shm.pscw_stride * (size_t) rank);
}

void ompi_osc_newrma_shm_post(ompi_osc_newrma_module_t *module, int origin)
{
    int me = module->my_rank;

    (void) opal_atomic_fetch_or_64(&shm_pscw(module, origin)->posted[me / 64],
                                   (int64_t) 1 << (me % 64));
}

bool ompi_osc_newrma_shm_posted(ompi_osc_newrma_module_t *module, const int *ranks, int n)
{
    ompi_osc_newrma_shm_pscw_t *mine = shm_pscw(module, module->my_rank);

    for (int i = 0; i < n; ++i) {
        if (!(mine->posted[ranks[i] / 64] & ((int64_t) 1 << (ranks[i] % 64)))) {
            return false;
        }
    }
    return true;
}

void ompi_osc_newrma_shm_take_posts(ompi_osc_newrma_module_t *module, const int *ranks, int n)
{
    ompi_osc_newrma_shm_pscw_t *mine = shm_pscw(module, module->my_rank);

    /* a target's next POST for me comes only after my COMPLETE of this
     * epoch, so clearing cannot lose one */
    for (int i = 0; i < n; ++i) {
        (void) opal_atomic_fetch_and_64(&mine->posted[ranks[i] / 64],
                                        ~((int64_t) 1 << (ranks[i] % 64)));
    }
}

void ompi_osc_newrma_shm_fence_announce(ompi_osc_newrma_module_t *module, int target, int parity)
{
    (void) opal_atomic_add_fetch_32(&shm_pscw(module, target)->fence_owed[parity], 1);
}

int32_t ompi_osc_newrma_shm_fence_owed(ompi_osc_newrma_module_t *module, int parity)
{
    volatile int32_t *owed = &shm_pscw(module, module->my_rank)->fence_owed[parity];

    /* called after the barrier, before which every announcement of this
     * parity was made: a 0 read is final, and costs no atomic write */
    return 0 == *owed ? 0 : opal_atomic_swap_32(owed, 0);
}

void ompi_osc_newrma_shm_complete(ompi_osc_newrma_module_t *module, int target)
{
    (void) opal_atomic_add_fetch_32(&shm_pscw(module, target)->completes, 1);
}

bool ompi_osc_newrma_shm_completed(ompi_osc_newrma_module_t *module, int n)
{
    ompi_osc_newrma_shm_pscw_t *mine = shm_pscw(module, module->my_rank);

    if (mine->completes < n) {
        return false;
    }
    /* only I take away; origins of my next exposure epoch add after it
     * starts, which is after this */
    (void) opal_atomic_sub_fetch_32(&mine->completes, n);
    return true;
}

static ompi_osc_newrma_shm_rank_t *shm_rank(const ompi_osc_newrma_module_t *module, int rank)
{
    return (ompi_osc_newrma_shm_rank_t *) (module->shm.mbox + shm_mbox_stride() * (size_t) rank);
}

int32_t ompi_osc_newrma_shm_fence_drained(ompi_osc_newrma_module_t *module, int rank)
{
    int32_t count = shm_rank(module, rank)->fence_drained;

    opal_atomic_rmb(); /* what it applied before is visible after */
    return count;
}

void ompi_osc_newrma_shm_set_fence_drained(ompi_osc_newrma_module_t *module, int32_t count)
{
    opal_atomic_wmb(); /* the packets applied before it */
    shm_rank(module, module->my_rank)->fence_drained = count;
}

/* ---- mailboxes ---- */

static ompi_osc_newrma_shm_mbox_t *shm_mbox(const ompi_osc_newrma_module_t *module, int rank)
{
    return (ompi_osc_newrma_shm_mbox_t *) (shm_rank(module, rank) + 1);
}

char *ompi_osc_newrma_shm_mbox_data(const ompi_osc_newrma_module_t *module, int rank,
                                    ompi_osc_newrma_shm_mbox_t *slot)
{
    size_t index;

    if (slot->len <= OMPI_OSC_NEWRMA_SHM_MBOX_BYTES) {
        return slot->data;
    }
    index =
        (size_t) rank * OMPI_OSC_NEWRMA_SHM_MBOX_SLOTS + (size_t) (slot - shm_mbox(module, rank));
    return module->shm.mbox_areas + index * OMPI_OSC_NEWRMA_SHM_MBOX_AREA;
}

void ompi_osc_newrma_shm_mbox_open(ompi_osc_newrma_module_t *module, bool open)
{
    opal_atomic_wmb();
    shm_rank(module, module->my_rank)->mbox_open = open ? 1 : 0;
}

ompi_osc_newrma_shm_mbox_t *ompi_osc_newrma_shm_mbox_claim(ompi_osc_newrma_module_t *module,
                                                           int rank)
{
    ompi_osc_newrma_shm_mbox_t *slots = shm_mbox(module, rank);

    if (!shm_rank(module, rank)->mbox_open) {
        return NULL;
    }
    /* origins start at different slots, so two of them rarely race */
    for (int i = 0; i < OMPI_OSC_NEWRMA_SHM_MBOX_SLOTS; ++i) {
        ompi_osc_newrma_shm_mbox_t *slot =
            &slots[(module->my_rank + i) % OMPI_OSC_NEWRMA_SHM_MBOX_SLOTS];
        int32_t free_state = OMPI_OSC_NEWRMA_SHM_MBOX_FREE;

        if (OMPI_OSC_NEWRMA_SHM_MBOX_FREE == slot->state &&
            opal_atomic_compare_exchange_strong_32(&slot->state, &free_state,
                                                   OMPI_OSC_NEWRMA_SHM_MBOX_CLAIMED)) {
            return slot;
        }
    }
    return NULL;
}

void ompi_osc_newrma_shm_mbox_post(ompi_osc_newrma_shm_mbox_t *slot)
{
    opal_atomic_wmb(); /* the slot's contents before its state */
    slot->state = OMPI_OSC_NEWRMA_SHM_MBOX_READY;
}

bool ompi_osc_newrma_shm_mbox_done(ompi_osc_newrma_shm_mbox_t *slot)
{
    if (OMPI_OSC_NEWRMA_SHM_MBOX_DONE != slot->state) {
        return false;
    }
    opal_atomic_rmb(); /* the answer after the state */
    return true;
}

bool ompi_osc_newrma_shm_mbox_retract(ompi_osc_newrma_shm_mbox_t *slot)
{
    int32_t ready = OMPI_OSC_NEWRMA_SHM_MBOX_READY;

    /* the agent takes a slot by the same CAS (ompi_osc_newrma_shm_mbox_poll) */
    return OMPI_OSC_NEWRMA_SHM_MBOX_READY == slot->state &&
           opal_atomic_compare_exchange_strong_32(&slot->state, &ready,
                                                  OMPI_OSC_NEWRMA_SHM_MBOX_CLAIMED);
}

void ompi_osc_newrma_shm_mbox_free(ompi_osc_newrma_shm_mbox_t *slot)
{
    opal_atomic_mb(); /* the answer is read before another origin may write */
    slot->state = OMPI_OSC_NEWRMA_SHM_MBOX_FREE;
}

int ompi_osc_newrma_shm_mbox_poll(ompi_osc_newrma_module_t *module,
                                  ompi_osc_newrma_shm_mbox_apply_fn_t apply)
{
    ompi_osc_newrma_shm_mbox_t *slots = shm_mbox(module, module->my_rank);
    int applied = 0;

    for (int i = 0; i < OMPI_OSC_NEWRMA_SHM_MBOX_SLOTS; ++i) {
        int32_t ready = OMPI_OSC_NEWRMA_SHM_MBOX_READY;

        /* taken by a CAS: threads of this process may poll at once */
        if (OMPI_OSC_NEWRMA_SHM_MBOX_READY != slots[i].state ||
            !opal_atomic_compare_exchange_strong_32(&slots[i].state, &ready,
                                                    OMPI_OSC_NEWRMA_SHM_MBOX_APPLYING)) {
            continue;
        }
        opal_atomic_rmb();
        slots[i].status = apply(module, &slots[i]);
        opal_atomic_wmb(); /* the target memory and the answer before DONE */
        slots[i].state = OMPI_OSC_NEWRMA_SHM_MBOX_DONE;
        applied++;
    }
    return applied;
}

void ompi_osc_newrma_shm_mbox_settle(ompi_osc_newrma_module_t *module,
                                     ompi_osc_newrma_shm_mbox_apply_fn_t apply)
{
    ompi_osc_newrma_shm_mbox_t *slots = shm_mbox(module, module->my_rank);

    (void) ompi_osc_newrma_shm_mbox_poll(module, apply);
    for (int i = 0; i < OMPI_OSC_NEWRMA_SHM_MBOX_SLOTS; ++i) {
        while (OMPI_OSC_NEWRMA_SHM_MBOX_APPLYING == slots[i].state) {
            opal_atomic_rmb(); /* another thread's apply, a few hundred ns */
        }
    }
    opal_atomic_rmb(); /* its writes before what follows */
}

bool ompi_osc_newrma_shm_mbox_applied(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_shm_mbox_t *slots = shm_mbox(module, module->my_rank);

    for (int i = 0; i < OMPI_OSC_NEWRMA_SHM_MBOX_SLOTS; ++i) {
        int32_t state = slots[i].state;

        if (OMPI_OSC_NEWRMA_SHM_MBOX_READY == state || OMPI_OSC_NEWRMA_SHM_MBOX_APPLYING == state) {
            return false;
        }
    }
    opal_atomic_mb(); /* a DONE seen above: its writes before what follows */
    return true;
}

/* ---- copies into a node-local peer's private memory ---- */

/* cleared on the first refusal (no CAP_SYS_PTRACE under a Yama scope that
 * wants it, or no CMA in the kernel): every later copy would be refused too */
static volatile bool shm_cma_allowed = true;

/* osc_newrma_test_fail_cma: is this copy with process @p pid the one to
 * fail?  Copies into this process itself (the cost probe) do not count. */
static bool shm_cma_test_fail(int32_t pid)
{
    static ompi_osc_newrma_atomic_t copies = 0;

    return component.test_fail_cma > 0 && pid != (int32_t) getpid() &&
           opal_atomic_add_fetch_32(&copies, 1) == component.test_fail_cma;
}

int ompi_osc_newrma_shm_cma(int32_t pid, bool write, void *local, uint64_t remote, size_t len)
{
    char *here = local;

    if (!shm_cma_allowed) {
        return OMPI_ERR_NOT_AVAILABLE;
    }
    if (OPAL_UNLIKELY(shm_cma_test_fail(pid))) {
        OSC_NEWRMA_VERBOSE(1, "cross-memory copy of %zu bytes failed (osc_newrma_test_fail_cma)",
                           len);
        return OMPI_ERROR;
    }
    while (len > 0) {
        struct iovec mine = {here, len}, theirs = {(void *) (uintptr_t) remote, len};
        ssize_t done = write ? process_vm_writev((pid_t) pid, &mine, 1, &theirs, 1, 0)
                             : process_vm_readv((pid_t) pid, &mine, 1, &theirs, 1, 0);

        if (done < 0 && EINTR == errno) {
            continue;
        }
        if (done < 0 && here == (char *) local && (EPERM == errno || ENOSYS == errno)) {
            shm_cma_allowed = false;
            OSC_NEWRMA_VERBOSE(1, "cross-memory attach refused (%s): node-local copies go by UCX",
                               strerror(errno));
            return OMPI_ERR_NOT_AVAILABLE;
        }
        if (done <= 0) {
            OSC_NEWRMA_VERBOSE(1, "cross-memory copy of %zu bytes with process %d failed: %s", len,
                               (int) pid, done < 0 ? strerror(errno) : "nothing moved");
            return OMPI_ERROR;
        }
        here += done;
        remote += (uint64_t) done;
        len -= (size_t) done;
    }
    return OMPI_SUCCESS;
}

ompi_osc_newrma_peer_t *ompi_osc_newrma_shm_cma_peer(ompi_osc_newrma_module_t *module, int rank)
{
    ompi_osc_newrma_peer_t *peer = ompi_osc_newrma_peer(module, rank);

    if (NULL == peer) {
        return NULL;
    }
    if (0 == peer->cma_pid) {
        peer->cma_pid = ompi_osc_newrma_ucx_local_pid(ompi_comm_peer_lookup(module->comm, rank));
    }
    if (peer->cma_pid < 0 && ompi_osc_newrma_shm_whole(&module->shm)) {
        /* no UCX endpoint: a window that is one node's segment exchanges
         * no worker addresses; its PSCW block names the process (node
         * ranks are window ranks there) */
        int32_t pid = shm_pscw(module, rank)->pid;

        peer->cma_pid = pid > 0 ? pid : -1;
    }
    return peer->cma_pid > 0 ? peer : NULL;
}

bool ompi_osc_newrma_shm_share_take(ompi_osc_newrma_shm_mbox_share_t *share, uint64_t *at_p,
                                    size_t *len_p)
{
    uint64_t chunk = share->chunk > 0 ? share->chunk : share->len;
    int32_t chunks = (int32_t) ((share->len + chunk - 1) / chunk);
    int32_t c = opal_atomic_fetch_add_32(&share->next, 1);

    if (c >= chunks) {
        return false;
    }
    *at_p = (uint64_t) c * chunk;
    *len_p = (size_t) (share->len - *at_p < chunk ? share->len - *at_p : chunk);
    return true;
}

int32_t ompi_osc_newrma_shm_share_run(ompi_osc_newrma_shm_mbox_share_t *share, int32_t pid,
                                      bool write, char *mine, uint64_t theirs, int *status_p)
{
    int32_t copied = 0;
    uint64_t at;
    size_t len;

    for (; ompi_osc_newrma_shm_share_take(share, &at, &len); ++copied) {
        int ret = ompi_osc_newrma_shm_cma(pid, write, mine + at, theirs + at, len);

        if (OMPI_SUCCESS != ret && OMPI_SUCCESS == *status_p) {
            *status_p = ret;
        }
    }
    return copied;
}

int32_t ompi_osc_newrma_shm_share_local(ompi_osc_newrma_shm_mbox_share_t *share, bool put,
                                        char *origin, char *there)
{
    int32_t copied = 0;
    uint64_t at;
    size_t len;

    for (; ompi_osc_newrma_shm_share_take(share, &at, &len); ++copied) {
        if (put) {
            ompi_osc_newrma_copy(there + at, origin + at, len);
        } else {
            ompi_osc_newrma_copy(origin + at, there + at, len);
        }
    }
    return copied;
}

bool ompi_osc_newrma_shm_cma_works(int32_t pid, uint64_t remote)
{
    static volatile bool proven = false;
    char byte;

    if (!proven && shm_cma_allowed &&
        OMPI_SUCCESS == ompi_osc_newrma_shm_cma(pid, false, &byte, remote, 1)) {
        proven = true;
    }
    return proven && shm_cma_allowed;
}

#define CMA_PROBE_BYTES  32768
#define CMA_PROBE_SMALL  8
#define CMA_PROBE_ROUNDS 8
/* The most a copy of CMA_PROBE_SMALL bytes may take where the copy is
 * cheap: small operations take it then (cma_small_bytes, cma_stream_bytes),
 * where the target's mailbox answers in 0.3-0.5 us.  0.37 us on the kernel
 * whose copy was cheap; 1.4-1.8 on the one of 2026-11-30, whose memcpy of
 * 32 KiB the probe read as 0.61 us in most processes and 1.0-1.2 in some:
 * those found the copy cheap by the difference alone, and their small
 * GETs took 2.0-2.5 us instead of 0.3-0.45 (a third of the launches). */
#define CMA_PROBE_FIXED_NS 1000

/* Nanoseconds of one cross-memory copy of @p len bytes into this process's
 * own @p dst (the kernel walks and pins the pages as for a peer's), or of
 * a memcpy (@p cma false); UINT64_MAX when the copy failed. */
static uint64_t cma_probe_one(char *dst, char *src, size_t len, bool cma)
{
    uint64_t t0 = ompi_osc_newrma_pick_now_ns();

    if (!cma) {
        memcpy(dst, src, len);
        __asm__ __volatile__("" ::: "memory"); /* the copy is done before the clock is read */
    } else if (OMPI_SUCCESS != ompi_osc_newrma_shm_cma((int32_t) getpid(), true, src,
                                                       (uint64_t) (uintptr_t) dst, len)) {
        return UINT64_MAX;
    }
    return ompi_osc_newrma_pick_now_ns() - t0;
}

bool ompi_osc_newrma_shm_cma_cheap(void)
{
    uint64_t small = UINT64_MAX, large = UINT64_MAX, copy = UINT64_MAX;
    char *src = malloc(CMA_PROBE_BYTES), *dst = malloc(CMA_PROBE_BYTES);
    bool cheap = false;

    if (NULL != src && NULL != dst) {
        memset(src, 1, CMA_PROBE_BYTES);
        memset(dst, 2, CMA_PROBE_BYTES);
        /* alternating, so that a preemption or a frequency change hits all */
        for (int round = 0; round < CMA_PROBE_ROUNDS; ++round) {
            uint64_t t = cma_probe_one(dst, src, CMA_PROBE_SMALL, true);

            small = t < small ? t : small;
            t = cma_probe_one(dst, src, CMA_PROBE_BYTES, true);
            large = t < large ? t : large;
            t = cma_probe_one(dst, src, CMA_PROBE_BYTES, false);
            copy = t < copy ? t : copy;
        }
        cheap = UINT64_MAX != large && small <= CMA_PROBE_FIXED_NS &&
                large - (small < large ? small : large) < 3 * copy;
        OSC_NEWRMA_VERBOSE(10,
                           "cross-memory copy of %d bytes %llu ns, of %d %llu, memcpy of %d %llu: "
                           "%s",
                           CMA_PROBE_SMALL, (unsigned long long) small, CMA_PROBE_BYTES,
                           (unsigned long long) large, CMA_PROBE_BYTES, (unsigned long long) copy,
                           cheap ? "cheap" : "dear");
    }
    free(src);
    free(dst);
    return cheap;
}
