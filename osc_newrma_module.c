/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: window creation and destruction for the four flavors,
 * MPI_Win_attach / MPI_Win_detach, MPI_Win_shared_query.
 */
#include "ompi_config.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "ompi/communicator/communicator.h"
#include "ompi/group/group.h"
#include "ompi/mca/osc/base/base.h"
#include "ompi/proc/proc.h"
#include "opal/util/info.h"
#include "opal/util/info_subscriber.h"
#include "opal/util/sys_limits.h"

#include "osc_newrma.h"
#include "osc_newrma_base_comm.h"
#include "osc_newrma_target_lock.h"
#include "osc_newrma_base_mutex.h"
#include "osc_newrma_am_pkt.h"
#include "osc_newrma_am_data.h"
#include "osc_newrma_am_region.h"
#include "osc_newrma_progress.h"
#include "osc_newrma_ops.h"
#include "osc_newrma_base_state.h"
#include "osc_newrma_transport_ucx.h"

#define component mca_osc_newrma_component

static const ompi_osc_base_module_t module_template = {
    .osc_win_shared_query = ompi_osc_newrma_shared_query,
    .osc_win_attach = ompi_osc_newrma_attach,
    .osc_win_detach = ompi_osc_newrma_detach,
    .osc_free = ompi_osc_newrma_free,
    .osc_put = ompi_osc_newrma_put,
    .osc_get = ompi_osc_newrma_get,
    .osc_accumulate = ompi_osc_newrma_accumulate,
    .osc_compare_and_swap = ompi_osc_newrma_compare_and_swap,
    .osc_fetch_and_op = ompi_osc_newrma_fetch_and_op,
    .osc_get_accumulate = ompi_osc_newrma_get_accumulate,
    .osc_rput = ompi_osc_newrma_rput,
    .osc_rget = ompi_osc_newrma_rget,
    .osc_raccumulate = ompi_osc_newrma_raccumulate,
    .osc_rget_accumulate = ompi_osc_newrma_rget_accumulate,
    .osc_fence = ompi_osc_newrma_fence,
    .osc_start = ompi_osc_newrma_start,
    .osc_complete = ompi_osc_newrma_complete,
    .osc_post = ompi_osc_newrma_post,
    .osc_wait = ompi_osc_newrma_wait,
    .osc_test = ompi_osc_newrma_test,
    .osc_lock = ompi_osc_newrma_lock,
    .osc_unlock = ompi_osc_newrma_unlock,
    .osc_lock_all = ompi_osc_newrma_lock_all,
    .osc_unlock_all = ompi_osc_newrma_unlock_all,
    .osc_sync = ompi_osc_newrma_sync,
    .osc_flush = ompi_osc_newrma_flush,
    .osc_flush_all = ompi_osc_newrma_flush_all,
    .osc_flush_local = ompi_osc_newrma_flush_local,
    .osc_flush_local_all = ompi_osc_newrma_flush_local_all,
};

/* ---- per-window settings: MCA variable, overridden by an info key ---- */

static int config_long(struct opal_info_t *info, const char *key, long min, long value, long *out)
{
    char buf[OPAL_MAX_INFO_VAL + 1], *end;
    int flag = 0;

    if (NULL != info) {
        (void) opal_info_get((opal_info_t *) info, key, OPAL_MAX_INFO_VAL, buf, &flag);
    }
    if (flag) {
        value = strtol(buf, &end, 0);
        if (end == buf || '\0' != *end || value < min) {
            opal_output(0, "osc/newrma: bad value '%s' for info key %s", buf, key);
            return OMPI_ERR_BAD_PARAM;
        }
    }
    *out = value < min ? min : value;
    return OMPI_SUCCESS;
}

static int config_bool(struct opal_info_t *info, const char *key, bool value, bool *out)
{
    int flag = 0;
    bool v = value;

    if (NULL != info) {
        (void) opal_info_get_bool((opal_info_t *) info, (char *) key, &v, &flag);
    }
    *out = flag ? v : value;
    return OMPI_SUCCESS;
}

/* accumulate_ordering (MPI-3.1 11.7.2): "none" or a comma list of rar, raw,
 * war, waw; newrma orders all four or none.  accumulate_ops: same_op_no_op
 * (default) or same_op; element atomicity here does not depend on which ops
 * meet at a location, so both take the same (cheapest) paths.  A bad value
 * is reported and the default kept. */
static void config_acc(struct opal_info_t *info, ompi_osc_newrma_config_t *c)
{
    char buf[OPAL_MAX_INFO_VAL + 1], *tok, *save = NULL;
    bool valid = true;
    int flag = 0;

    c->acc_ordered = true;
    if (NULL == info) {
        return;
    }
    (void) opal_info_get((opal_info_t *) info, "accumulate_ordering", OPAL_MAX_INFO_VAL, buf,
                         &flag);
    if (flag && 0 == strcmp(buf, "none")) {
        c->acc_ordered = false;
    } else if (flag) {
        for (tok = strtok_r(buf, ",", &save); NULL != tok; tok = strtok_r(NULL, ",", &save)) {
            valid = valid && (0 == strcmp(tok, "rar") || 0 == strcmp(tok, "raw") ||
                              0 == strcmp(tok, "war") || 0 == strcmp(tok, "waw"));
        }
        if (!valid) {
            opal_output(0, "osc/newrma: bad value for info key accumulate_ordering; ordering kept");
        }
    }
    (void) opal_info_get((opal_info_t *) info, "accumulate_ops", OPAL_MAX_INFO_VAL, buf, &flag);
    if (flag && 0 != strcmp(buf, "same_op") && 0 != strcmp(buf, "same_op_no_op")) {
        opal_output(0, "osc/newrma: bad value '%s' for info key accumulate_ops", buf);
    }
    c->acc_same_op = flag && 0 == strcmp(buf, "same_op");
}

static int module_config(ompi_osc_newrma_module_t *module, struct opal_info_t *info)
{
    ompi_osc_newrma_config_t *c = &module->config;
    long slots, op_pool, target_pool, piggyback, single_op, single_op_emulated, lock_bytes, active,
        agg_bytes, agg_threshold, rndv_threshold, acc_cma, cma;
    int ret = OMPI_SUCCESS;

    ret |= config_long(info, "slots", 1, component.slots, &slots);
    ret |= config_long(info, "op_win_pool_size", 1, component.op_win_pool_size, &op_pool);
    ret |=
        config_long(info, "target_win_pool_size", 1, component.target_win_pool_size, &target_pool);
    ret |= config_long(info, "piggyback_threshold", 0, component.piggyback_threshold, &piggyback);
    ret |= config_long(info, "single_op_threshold", 0, (long) component.single_op_threshold,
                       &single_op);
    ret |= config_long(info, "single_op_emulated_threshold", 0,
                       (long) component.single_op_emulated_threshold, &single_op_emulated);
    ret |= config_long(info, "lock_data_bytes", 0, (long) component.lock_data_bytes, &lock_bytes);
    ret |= config_long(info, "active_req_threshold", -1, component.active_req_threshold, &active);
    ret |= config_long(info, "aggregate_bytes", 0, (long) component.aggregate_bytes, &agg_bytes);
    ret |= config_long(info, "aggregate_threshold", 0, (long) component.aggregate_threshold,
                       &agg_threshold);
    ret |= config_long(info, "rndv_threshold", 0, (long) component.rndv_threshold, &rndv_threshold);
    ret |= config_long(info, "acc_cma_bytes", 0, (long) component.acc_cma_bytes, &acc_cma);
    ret |= config_long(info, "cma_bytes", 0, (long) component.cma_bytes, &cma);
    ret |= config_bool(info, "shm", component.shm, &c->shm);
    ret |= config_bool(info, "lock_parallel", component.lock_parallel, &c->lock_parallel);
    ret |= config_bool(info, "alloc_shared_noncontig", false, &c->alloc_shared_noncontig);
    ret |= config_bool(info, "same_size", false, &c->same_size);
    ret |= config_bool(info, "same_disp_unit", false, &c->same_disp_unit);
    ret |= config_bool(info, "no_locks", false, &c->no_locks);
    ret |= config_bool(info, "mailbox", component.mailbox, &c->mailbox);
    if (OMPI_SUCCESS != ret) {
        return OMPI_ERR_BAD_PARAM;
    }
    /* slots beyond the number of possible targets would stay empty */
    c->slots = (int) (slots < module->comm_size ? slots : module->comm_size);
    c->op_win_pool_size = (int) op_pool;
    c->target_win_pool_size = (int) target_pool;
    c->piggyback_threshold = (int) piggyback;
    c->single_op_threshold = (size_t) single_op;
    c->single_op_emulated_threshold = (size_t) single_op_emulated;
    c->lock_data_bytes = (size_t) lock_bytes;
    c->active_req_threshold = (int) active;
    c->aggregate_bytes = (size_t) agg_bytes;
    /* a packet bigger than the message it would be packed into goes alone */
    c->aggregate_threshold = (size_t) (agg_threshold < agg_bytes ? agg_threshold : agg_bytes);
    c->rndv_threshold = (size_t) rndv_threshold;
    c->acc_cma_bytes = (size_t) acc_cma;
    c->cma_bytes = (size_t) cma;
    config_acc(info, c);
    return OMPI_SUCCESS;
}

/* ---- component-wide resources, created with the first window ---- */

static int component_window_setup(void)
{
    int ret = OMPI_SUCCESS;

    ompi_osc_newrma_mutex_lock(&component.lock, OMPI_OSC_NEWRMA_MUTEX_COMPONENT);
    if (!component.pools_ready) {
        ret = ompi_osc_newrma_pool_init(&component.op_global_pool, "global op",
                                        OBJ_CLASS(ompi_osc_newrma_op_t),
                                        component.op_global_pool_size, true);
        if (OMPI_SUCCESS == ret) {
            ret = ompi_osc_newrma_pool_init(&component.target_global_pool, "global target",
                                            OBJ_CLASS(ompi_osc_newrma_target_t),
                                            component.target_global_pool_size, true);
        }
        component.pools_ready = (OMPI_SUCCESS == ret);
    }
    if (OMPI_SUCCESS == ret) {
        /* the async thread and the MPI threads share the worker */
        ret = ompi_osc_newrma_ucx_init(ompi_osc_newrma_threaded(), ompi_osc_newrma_pkt_enqueue,
                                       ompi_osc_newrma_rdma_at_call_done);
    }
    if (OMPI_SUCCESS == ret && !component.progress_registered) {
        ret = opal_progress_register(ompi_osc_newrma_progress_cb);
        component.progress_registered = (OMPI_SUCCESS == ret);
    }
    if (OMPI_SUCCESS == ret && component.async_progress) {
        ret = ompi_osc_newrma_progress_thread_start();
    }
    ompi_osc_newrma_mutex_unlock(&component.lock, OMPI_OSC_NEWRMA_MUTEX_COMPONENT);
    return ret;
}

/* ---- window memory per flavor ---- */

static bool module_need_addresses(ompi_osc_newrma_module_t *module);

/* The user's memory on one node: the segment of synchronization words,
 * whose allgather also tells whether some rank lacks worker addresses
 * (looked at only there: a loop over the ranks). */
static int module_sync_segment(ompi_osc_newrma_module_t *module, int status)
{
    if (!ompi_osc_newrma_shm_sync_wanted(module)) {
        return status;
    }
    return ompi_osc_newrma_shm_sync_attach(module, status, module_need_addresses(module));
}

/* Collective where the memory is a shared segment: a rank whose creation
 * already failed (@p status) still takes part, so the others learn it. */
static int module_memory(ompi_osc_newrma_module_t *module, void **base, size_t size, int status)
{
    int ret;

    switch (module->flavor) {
        case MPI_WIN_FLAVOR_SHARED:
            if (ompi_group_have_remote_peers(module->comm->c_local_group)) {
                return OMPI_ERR_RMA_SHARED; /* the same on every rank */
            }
            module->shm.direct = module->config.shm;
            return ompi_osc_newrma_shm_allocate(
                module, size, module->config.alloc_shared_noncontig, status,
                !module->shm.direct && module_need_addresses(module), &module->base);
        case MPI_WIN_FLAVOR_ALLOCATE:
            if (module->config.shm) {
                module->shm.direct = true;
                return ompi_osc_newrma_shm_allocate(module, size, false, status, false,
                                                    &module->base);
            }
            if (OMPI_SUCCESS != status) {
                return status;
            }
            ret = posix_memalign(&module->base, opal_getpagesize(), size > 0 ? size : 1);
            if (0 != ret) {
                module->base = NULL;
                return OMPI_ERR_OUT_OF_RESOURCE;
            }
            module->owns_base = true;
            return OMPI_SUCCESS;
        case MPI_WIN_FLAVOR_CREATE:
            module->base = *base;
            return module_sync_segment(module, status);
        default: /* MPI_WIN_FLAVOR_DYNAMIC: memory comes with MPI_Win_attach */
            module->base = NULL;
            return module_sync_segment(module, status);
    }
}

/* ---- window creation's agreement, and worker addresses ---- */

/* Worker addresses are per process, not per window: once known (from an
 * earlier window) they need not travel again. */
static bool module_need_addresses(ompi_osc_newrma_module_t *module)
{
    for (int i = 0; i < module->comm_size; ++i) {
        if (i != module->my_rank &&
            !ompi_osc_newrma_ucx_knows(ompi_comm_peer_lookup(module->comm, i))) {
            return true;
        }
    }
    return false;
}

/* Record the peers' worker addresses from the allgatherv (@p status: its
 * result), and agree on it: a rank that could not record one (out of
 * memory) fails the creation on every rank, not alone. */
static int module_learn_addresses(ompi_osc_newrma_module_t *module, const char *all,
                                  const int *counts, const int *displs, int status)
{
    ompi_communicator_t *comm = module->comm;
    int agreed, ret;

    if (2 == component.test_fail_create && OMPI_SUCCESS == status) {
        component.test_fail_create = 0; /* once */
        status = OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (int i = 0; OMPI_SUCCESS == status && i < module->comm_size; ++i) {
        if (i != module->my_rank && counts[i] > 0) {
            status = ompi_osc_newrma_ucx_learn_address(ompi_comm_peer_lookup(comm, i),
                                                       all + displs[i], (size_t) counts[i]);
        }
    }
    agreed = status;
    ret = comm->c_coll->coll_allreduce(MPI_IN_PLACE, &agreed, 1, MPI_INT, MPI_MIN, comm,
                                       comm->c_coll->coll_allreduce_module);
    if (OMPI_SUCCESS != status) {
        return status;
    }
    return OMPI_SUCCESS != ret ? ret : agreed;
}

/* Every rank's worker address: their lengths, then the addresses.  Made
 * when some rank of the window lacks one (so at most once per process,
 * unless windows come on ever new communicators).  @p counts (2 ints per
 * rank) was allocated before the agreement, so that its failure reached
 * every rank there; the addresses' buffer, sized by the lengths, is agreed
 * on before the addresses travel, so that nobody waits in a collective for
 * a rank that could not allocate it. */
static int module_exchange_addresses(ompi_osc_newrma_module_t *module, int *counts)
{
    ompi_communicator_t *comm = module->comm;
    int *displs = counts + module->comm_size, mine = (int) component.worker_address_len;
    int total = 0, status, ret;
    char *all = NULL;

    ret = comm->c_coll->coll_allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, comm,
                                       comm->c_coll->coll_allgather_module);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    for (int i = 0; i < module->comm_size; ++i) {
        displs[i] = total;
        total += counts[i];
    }
    all = malloc((size_t) total + 1);
    status = NULL != all ? OMPI_SUCCESS : OMPI_ERR_OUT_OF_RESOURCE;
    ret = comm->c_coll->coll_allreduce(MPI_IN_PLACE, &status, 1, MPI_INT, MPI_MIN, comm,
                                       comm->c_coll->coll_allreduce_module);
    if (OMPI_SUCCESS == ret) {
        ret = status;
    }
    if (OMPI_SUCCESS == ret) {
        ret = comm->c_coll->coll_allgatherv(component.worker_address, mine, MPI_BYTE, all, counts,
                                            displs, MPI_BYTE, comm,
                                            comm->c_coll->coll_allgatherv_module);
        /* every rank that made the allgatherv makes this agreement too */
        ret = module_learn_addresses(module, all, counts, displs, ret);
    }
    free(all);
    return ret;
}

/* The creation's last collective, made even by a rank whose creation has
 * failed (@p status): then every rank returns an error from the same call
 * and nobody waits in it for the failed one.  It carries two ints whatever
 * the number of ranks: the first failure, and whether worker addresses must
 * travel.  What a peer's window is (base, size, displacement unit, rkey) is
 * asked of the peer on its first access (ops: rma_peer_info). */
static int module_agree(ompi_osc_newrma_module_t *module, int status)
{
    ompi_communicator_t *comm = module->comm;
    int *counts = NULL, mine[2] = {status, 0}, all[2], ret;

    /* a window on one node in a segment its ranks reused: the segment's
     * allgather was the last point of failure, and carried every rank's
     * status (shm_prepare) and whether it lacks worker addresses, so it is
     * the agreement (and the same on every rank: every rank adopted the
     * segment or none) */
    if (OMPI_SUCCESS == status && module->shm.reused && module->shm.whole &&
        (module->node_direct || !module->shm.addresses_needed)) {
        return OMPI_SUCCESS;
    }

    /* a window reached by loads and stores only never exchanges addresses
     * (node_direct is the same on every rank) */
    if (OMPI_SUCCESS == status && !module->node_direct) {
        counts = malloc(2 * sizeof(int) * (size_t) module->comm_size);
        mine[0] = NULL != counts ? OMPI_SUCCESS : OMPI_ERR_OUT_OF_RESOURCE;
        mine[1] = OMPI_SUCCESS == mine[0] && module_need_addresses(module) ? -1 : 0;
    }
    ret = comm->c_coll->coll_allreduce(mine, all, 2, MPI_INT, MPI_MIN, comm,
                                       comm->c_coll->coll_allreduce_module);
    if (OMPI_SUCCESS == ret) {
        /* my own failure first: it says more than a peer's */
        ret = OMPI_SUCCESS != mine[0] ? mine[0] : all[0];
    }
    if (OMPI_SUCCESS == ret && all[1] < 0) {
        ret = module_exchange_addresses(module, counts);
    }
    free(counts);
    return ret;
}

/* ---- construction / destruction ---- */

/* What a peer entry holds beyond the entry itself. */
static void module_peer_release(ompi_osc_newrma_peer_t *peer)
{
    if (NULL != peer->rkey) {
        ucp_rkey_destroy(peer->rkey);
    }
    ompi_osc_newrma_region_cache_clear(&peer->regions);
}

static void module_peers_free(ompi_osc_newrma_module_t *module)
{
    if (module->peers_ready) {
        OSC_NEWRMA_VERBOSE(20, "window %u: %zu peer entries for %d ranks", module->cid,
                           ompi_osc_newrma_peers_count(module), module->comm_size);
    }
    while (NULL != opal_list_remove_first(&module->locked_peers)) {
        /* an epoch left open by an erroneous program */
    }
    ompi_osc_newrma_peers_fini(module, module_peer_release);
}

static void module_unregister(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_mutex_lock(&component.windows_lock, OMPI_OSC_NEWRMA_MUTEX_WINDOWS);
    if (ompi_osc_newrma_pkt_window_remove(module)) {
        opal_list_remove_item(&component.windows, &module->window_item);
        ompi_osc_newrma_stats_retire(module);
    }
    ompi_osc_newrma_mutex_unlock(&component.windows_lock, OMPI_OSC_NEWRMA_MUTEX_WINDOWS);
}

/* A packet handler that looked the window up before it was unregistered
 * runs inside the (single) agent: wait for it to leave, and drop what was
 * held for a window that never finished creation. */
static void module_quiesce_agent(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_agent_acquire();
    if (!module->built) {
        ompi_osc_newrma_pkt_release_held(module->cid, false);
    }
    ompi_osc_newrma_agent_mbox_close(module);
    ompi_osc_newrma_agent_release();
}

/* Creation is complete: packets held for the window go to the inbox ahead
 * of later ones, and from now on reach their handlers. */
static void module_open_to_packets(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_agent_acquire();
    module->built = true;
    ompi_osc_newrma_pkt_release_held(module->cid, true);
    ompi_osc_newrma_agent_mbox_open(module);
    ompi_osc_newrma_agent_release();
}

static void module_destroy(ompi_osc_newrma_module_t *module)
{
    opal_list_item_t *item;

    module_unregister(module);
    module_quiesce_agent(module);
    ompi_osc_newrma_lock_queue_fini(module);
    if (module->pools_ready) {
        (void) ompi_osc_newrma_pool_fini(&module->op_pool);
        (void) ompi_osc_newrma_pool_fini(&module->target_pool);
    }
    ompi_osc_newrma_optable_fini(&module->table);
    ompi_osc_newrma_pscw_group_fini(&module->pscw_access);
    ompi_osc_newrma_pscw_group_fini(&module->pscw_exposure);
    module_peers_free(module);
    ompi_osc_newrma_ucx_mem_unmap(module->memh, module->rkey_packed);
    ompi_osc_newrma_shm_free(module);
    while (NULL != (item = opal_list_remove_first(&module->attached_runs))) {
        OBJ_RELEASE(item);
    }
    while (NULL != (item = opal_list_remove_first(&module->attached))) {
        OBJ_RELEASE(item);
    }
    if (module->owns_base) {
        free(module->base);
    }
    ompi_osc_newrma_comm_put(&module->comm, module->comm_keep);
    OBJ_DESTRUCT(&module->attached_runs);
    OBJ_DESTRUCT(&module->attached);
    OBJ_DESTRUCT(&module->attached_lock);
    ompi_osc_newrma_pkt_pending_dones_drop(module);
    OBJ_DESTRUCT(&module->am_pending_done);
    ompi_osc_newrma_pkt_epoch_drop(module);
    OBJ_DESTRUCT(&module->epoch_held);
    ompi_osc_newrma_pkt_land_window_drop(module);
    OBJ_DESTRUCT(&module->landing_held);
    OBJ_DESTRUCT(&module->am_received);
    OBJ_DESTRUCT(&module->pscw_posts);
    OBJ_DESTRUCT(&module->am_lock);
    OBJ_DESTRUCT(&module->lock_queue);
    OBJ_DESTRUCT(&module->locked_peers);
    OBJ_DESTRUCT(&module->lock_queue_lock);
    OBJ_DESTRUCT(&module->lock);
    OBJ_DESTRUCT(&module->window_item);
    if (module->reserve) {
        opal_atomic_wmb();
        component.module_reserve_used = 0;
    } else {
        free(module);
    }
}

static int module_register(ompi_osc_newrma_module_t *module)
{
    int ret;

    ompi_osc_newrma_mutex_lock(&component.windows_lock, OMPI_OSC_NEWRMA_MUTEX_WINDOWS);
    ret = ompi_osc_newrma_pkt_window_add(module);
    if (OMPI_SUCCESS == ret) {
        opal_list_append(&component.windows, &module->window_item);
    }
    ompi_osc_newrma_mutex_unlock(&component.windows_lock, OMPI_OSC_NEWRMA_MUTEX_WINDOWS);
    return ret;
}

static int module_tables(ompi_osc_newrma_module_t *module)
{
    int ret = ompi_osc_newrma_optable_init(&module->table, module->config.slots);

    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    ret = ompi_osc_newrma_pool_init(&module->op_pool, "window op", OBJ_CLASS(ompi_osc_newrma_op_t),
                                    (size_t) module->config.op_win_pool_size, false);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    ret = ompi_osc_newrma_pool_init(&module->target_pool, "window target",
                                    OBJ_CLASS(ompi_osc_newrma_target_t),
                                    (size_t) module->config.target_win_pool_size, false);
    if (OMPI_SUCCESS != ret) {
        (void) ompi_osc_newrma_pool_fini(&module->op_pool);
        return ret;
    }
    module->pools_ready = true;
    return OMPI_SUCCESS;
}

/* ---- window info: MPI_Win_get_info reports the hints in effect ---- */

static char *info_bool(bool value)
{
    return value ? "true" : "false";
}

/* The hints newrma reads; alloc_shared_noncontig on shared windows only. */
static const char *const module_info_keys[] = {"no_locks",       "accumulate_ordering",
                                               "accumulate_ops", "same_size",
                                               "same_disp_unit", "alloc_shared_noncontig"};

/* The value in effect for one of module_info_keys. */
static char *module_info_in_effect(const ompi_osc_newrma_config_t *c, const char *key)
{
    if (0 == strcmp(key, "no_locks")) {
        return info_bool(c->no_locks);
    }
    if (0 == strcmp(key, "accumulate_ordering")) {
        return c->acc_ordered ? "rar,raw,war,waw" : "none";
    }
    if (0 == strcmp(key, "accumulate_ops")) {
        return c->acc_same_op ? "same_op" : "same_op_no_op";
    }
    if (0 == strcmp(key, "same_size")) {
        return info_bool(c->same_size);
    }
    if (0 == strcmp(key, "same_disp_unit")) {
        return info_bool(c->same_disp_unit);
    }
    return info_bool(c->alloc_shared_noncontig);
}

/* Called for the value given at creation (at subscription) and for every
 * MPI_Win_set_info; returns the value in effect.  no_locks may change
 * between epochs; the others are fixed at creation (a hint may be
 * ignored), so the window's info tells what it really does. */
static char *module_info_update(opal_infosubscriber_t *obj, char *key, char *value)
{
    ompi_osc_newrma_config_t *c = &ompi_osc_newrma_module((struct ompi_win_t *) obj)->config;

    if (0 == strcmp(key, "no_locks")) {
        c->no_locks = opal_str_to_bool(value);
    }
    return module_info_in_effect(c, key);
}

/* no_locks, the one hint MPI_Win_set_info may change, needs a subscription
 * (its callback sees every new value); the others are fixed at creation and
 * written once, as the values in effect.  A subscription costs about a
 * microsecond of creation and free (a list, a hash entry, saved copies of
 * the value): five of them were a third of a window's creation on a node. */
static int module_info_subscribe(ompi_osc_newrma_module_t *module)
{
    size_t n = sizeof(module_info_keys) / sizeof(module_info_keys[0]);
    opal_infosubscriber_t *win = &module->win->super;
    int ret;

    if (MPI_WIN_FLAVOR_SHARED != module->flavor) {
        n--; /* alloc_shared_noncontig, last */
    }
    ret = opal_infosubscribe_subscribe(win, (char *) module_info_keys[0],
                                       module_info_in_effect(&module->config, module_info_keys[0]),
                                       module_info_update);
    if (OPAL_SUCCESS == ret && NULL == win->s_info) {
        ret = OPAL_ERR_NOT_INITIALIZED; /* the subscription makes it */
    }
    for (size_t i = 1; OPAL_SUCCESS == ret && i < n; ++i) {
        ret = opal_info_set(win->s_info, module_info_keys[i],
                            module_info_in_effect(&module->config, module_info_keys[i]));
    }
    return ret;
}

/* @p status: a failure before the build (the module is the reserve); the
 * build still makes every collective, which carry it to every rank. */
static int module_build(ompi_osc_newrma_module_t *module, void **base, size_t size,
                        struct opal_info_t *info, int status)
{
    ompi_communicator_t *dup = NULL;
    int ret;

    ret = ompi_osc_newrma_comm_get(module->comm, &dup);
    module->comm = dup;
    if (NULL == dup) {
        return ret;
    }
    if (OMPI_SUCCESS == status) {
        status = ret; /* this rank could not keep it: every rank fails, and drops it */
    }
    module->cid = ompi_comm_get_cid(module->comm);
    module->my_rank = ompi_comm_rank(module->comm);
    module->comm_size = ompi_comm_size(module->comm);
    /* from here on a failure on one rank does not skip the collectives
     * below (the shared segment's and the exchange), which carry it to all */
    ret = module_config(module, info); /* its defaults, even after a failure */
    if (OMPI_SUCCESS == ret) {
        ret = status;
    }
    if (OMPI_SUCCESS == ret) {
        ret = component_window_setup();
    }
    if (OMPI_SUCCESS == ret) {
        ret = ompi_osc_newrma_peers_init(module);
    }
    /* my own entry, before the collectives, so that failing to make it
     * fails the creation everywhere (module_self fills it in) */
    if (OMPI_SUCCESS == ret && NULL == ompi_osc_newrma_peer(module, module->my_rank)) {
        ret = OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (OMPI_SUCCESS == ret) {
        ret = module_tables(module);
    }
    /* registered before the collectives: once a peer is past them, it may
     * send us packets for this window (held until it is built) */
    if (OMPI_SUCCESS == ret) {
        ret = module_register(module);
    }
    if (OMPI_SUCCESS == ret) {
        ret = module_info_subscribe(module);
    }
    ret = module_memory(module, base, size, ret);
    /* the same on every rank: node_comm is the whole window or not */
    module->node_direct = OMPI_SUCCESS == ret && module->shm.direct &&
                          NULL != module->shm.node_comm &&
                          ompi_comm_size(module->shm.node_comm) == module->comm_size;
    module->mbox_ok =
        OMPI_SUCCESS == ret && ompi_osc_newrma_shm_indirect(&module->shm) && module->config.mailbox;
    module->seg_share_from = OMPI_SUCCESS == ret && ompi_osc_newrma_shm_whole(&module->shm) &&
                                     module->shm.direct && module->config.mailbox &&
                                     component.segment_share_bytes > 0
                                 ? (size_t) component.segment_share_bytes
                                 : SIZE_MAX;
    /* no UCX registration here: a window that is one node's segment, reached
     * by load/store only, never needs one, and any other registers its
     * memory when a peer first asks for its rkey (am_region) */
    ret = module_agree(module, ret);
    if (OMPI_SUCCESS == ret) {
        ompi_osc_newrma_shm_created(module); /* every node rank is attached by now */
    }
    return ret;
}

/* My own memory is always reached with loads and stores (my entry was made
 * in module_build). */
static void module_self(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_peer_t *self = ompi_osc_newrma_peer(module, module->my_rank);

    self->shm_base = module->base;
    self->base = (uint64_t) (uintptr_t) module->base;
    self->size = module->size;
    self->disp_unit = module->disp_unit;
    self->layout_known = true;
    self->info_known = true;
    if (NULL == module->my_lock) {
        module->my_lock = &module->self_lockword; /* no segment: my own word */
    }
    self->lock = module->my_lock;
}

int ompi_osc_newrma_module_reserve_init(void)
{
    component.module_reserve = malloc(sizeof(ompi_osc_newrma_module_t));
    component.module_reserve_used = 0;
    return NULL != component.module_reserve ? OMPI_SUCCESS : OMPI_ERR_OUT_OF_RESOURCE;
}

void ompi_osc_newrma_module_reserve_fini(void)
{
    free(component.module_reserve);
    component.module_reserve = NULL;
}

/* The window's choices between two ways (osc_newrma_base_pick.h): from
 * what the last freed windows learned (@p learn false, at creation), or
 * into it (true, at free, under the window lock). */
static void module_picks(ompi_osc_newrma_module_t *module, bool learn)
{
    ompi_osc_newrma_pick_t *picks[OMPI_OSC_NEWRMA_MODULE_PICKS] = {
        &module->cma_pick[0], &module->cma_pick[1], &module->acc_pick[0], &module->acc_pick[1],
        &module->stream_pick};

    ompi_osc_newrma_mutex_lock(&component.lock, OMPI_OSC_NEWRMA_MUTEX_COMPONENT);
    for (int i = 0; i < OMPI_OSC_NEWRMA_MODULE_PICKS; ++i) {
        if (learn) {
            ompi_osc_newrma_pick_learn(&component.picks_learned[i], picks[i]);
        } else {
            ompi_osc_newrma_pick_seed(picks[i], &component.picks_learned[i]);
        }
    }
    ompi_osc_newrma_mutex_unlock(&component.lock, OMPI_OSC_NEWRMA_MUTEX_COMPONENT);
}

/* A zeroed module, or, when none can be allocated, the component's reserve
 * with *@p status set: a rank that cannot allocate its module still takes
 * part in every collective of the creation, which carry its failure to all
 * (module_build), instead of leaving them waiting.  NULL only when the
 * reserve is taken too (two failing creations at once, in two threads). */
static ompi_osc_newrma_module_t *module_alloc(int *status)
{
    ompi_osc_newrma_module_t *module = NULL;
    int32_t unused = 0;

    if (1 == component.test_fail_create) {
        component.test_fail_create = 0; /* once */
    } else {
        module = calloc(1, sizeof(*module));
    }
    *status = OMPI_SUCCESS;
    if (NULL != module) {
        return module;
    }
    if (NULL == component.module_reserve ||
        !opal_atomic_compare_exchange_strong_32(&component.module_reserve_used, &unused, 1)) {
        return NULL;
    }
    module = component.module_reserve;
    memset(module, 0, sizeof(*module));
    module->reserve = true;
    *status = OMPI_ERR_OUT_OF_RESOURCE;
    return module;
}

int ompi_osc_newrma_select(struct ompi_win_t *win, void **base, size_t size, int disp_unit,
                           struct ompi_communicator_t *comm, struct opal_info_t *info, int flavor,
                           int *model)
{
    int status, ret;
    ompi_osc_newrma_module_t *module = module_alloc(&status);

    if (NULL == module) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    module->super = module_template;
    OBJ_CONSTRUCT(&module->window_item, opal_list_item_t);
    OBJ_CONSTRUCT(&module->lock, opal_mutex_t);
    module->lock_mt = component.enable_mpi_threads;
    OBJ_CONSTRUCT(&module->attached, opal_list_t);
    OBJ_CONSTRUCT(&module->attached_runs, opal_list_t);
    OBJ_CONSTRUCT(&module->attached_lock, opal_mutex_t);
    OBJ_CONSTRUCT(&module->am_received, opal_hash_table_t);
    OBJ_CONSTRUCT(&module->pscw_posts, opal_hash_table_t);
    OBJ_CONSTRUCT(&module->am_pending_done, opal_list_t);
    OBJ_CONSTRUCT(&module->epoch_held, opal_list_t);
    OBJ_CONSTRUCT(&module->landing_held, opal_list_t);
    OBJ_CONSTRUCT(&module->am_lock, opal_mutex_t);
    OBJ_CONSTRUCT(&module->lock_queue, opal_list_t);
    OBJ_CONSTRUCT(&module->locked_peers, opal_list_t);
    OBJ_CONSTRUCT(&module->lock_queue_lock, opal_mutex_t);
    module->win = win;
    module->comm = comm; /* replaced by a duplicate in module_build */
    module->flavor = flavor;
    module->size = MPI_WIN_FLAVOR_DYNAMIC == flavor ? 0 : size;
    module->disp_unit = disp_unit;
    module->win_state = OMPI_OSC_NEWRMA_WIN_NONE;
    module->fast_last.target = -1;
    module->sync_seq = 1; /* above a new peer entry's cma_seq */
    module_picks(module, false);

    win->w_osc_module = &module->super; /* the info callbacks find it there */
    ret = module_build(module, base, module->size, info, status);
    if (OMPI_SUCCESS != ret) {
        win->w_osc_module = NULL;
        OSC_NEWRMA_VERBOSE(1, "window creation failed: %d", ret);
        module_destroy(module);
        return ret;
    }
    module_self(module);
    if (MPI_WIN_FLAVOR_ALLOCATE == flavor || MPI_WIN_FLAVOR_SHARED == flavor) {
        *base = module->base;
    }
    *model = MPI_WIN_UNIFIED;
    module->comm_keep = true;
    module->ready = true;
    module_open_to_packets(module);
    OSC_NEWRMA_VERBOSE(
        10,
        "window %u created: flavor %d, %zu bytes, at most %d slots, shm %s, %d of %d "
        "ranks in the segment",
        module->cid, flavor, module->size, module->config.slots,
        module->shm.direct ? "direct" : "off", module->shm.active ? module->shm.node_size : 0,
        module->comm_size);
    return OMPI_SUCCESS;
}

static bool free_ready(ompi_osc_newrma_module_t *module, void *arg)
{
    (void) arg;
    return NULL == module->fence_req && 0 == module->fence.owed && 0 == module->table.num_targets &&
           0 == module->ack_counter && 0 == module->active_reqs;
}

int ompi_osc_newrma_free(struct ompi_win_t *win)
{
    ompi_osc_newrma_module_t *module = ompi_osc_newrma_module(win);
    ompi_osc_newrma_target_t *target;
    int ret, stats_ret;

    ompi_osc_newrma_module_lock(module);
    if ((module->win_state != OMPI_OSC_NEWRMA_WIN_NONE &&
         !ompi_osc_newrma_win_state_is_fence(module->win_state)) ||
        module->pscw_exposure.open) {
        ompi_osc_newrma_module_unlock(module);
        return OMPI_ERR_RMA_SYNC;
    }
    /* ops posted after the last FENCE (an erroneous program) still complete */
    for (target = ompi_osc_newrma_optable_first(&module->table); NULL != target;
         target = ompi_osc_newrma_optable_next(&module->table, target)) {
        target->sync_flag = OMPI_OSC_NEWRMA_SYNC_FLUSH;
    }
    if (OMPI_OSC_NEWRMA_WIN_FENCE_ISSUED == module->win_state && NULL == module->fence_req) {
        module->win_state = OMPI_OSC_NEWRMA_WIN_FENCE_GRANTED;
    }
    ret = ompi_osc_newrma_progress_wait(module, free_ready, NULL);
    module->ready = false;
    module_picks(module, true);
    ompi_osc_newrma_module_unlock(module);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    /* osc_newrma_stats: every rank's counters to rank 0's table */
    stats_ret = ompi_osc_newrma_stats_window_done(module);
    /* nobody may still be accessing my memory */
    ret =
        module->comm->c_coll->coll_barrier(module->comm, module->comm->c_coll->coll_barrier_module);
    if (OMPI_SUCCESS == ret) {
        ret = stats_ret;
    }
    win->w_osc_module = NULL;
    module_destroy(module);
    return ret;
}

/* ---- dynamic windows ---- */

static bool regions_overlap(ompi_osc_newrma_module_t *module, uint64_t base, size_t len)
{
    ompi_osc_newrma_region_t *region;

    OPAL_LIST_FOREACH(region, &module->attached, ompi_osc_newrma_region_t)
    {
        if (base < region->base + region->len && region->base < base + len) {
            return true;
        }
    }
    return false;
}

int ompi_osc_newrma_attach(struct ompi_win_t *win, void *base, size_t len)
{
    ompi_osc_newrma_module_t *module = ompi_osc_newrma_module(win);
    ompi_osc_newrma_region_t *region;
    int ret;

    if (MPI_WIN_FLAVOR_DYNAMIC != module->flavor) {
        return OMPI_ERR_RMA_FLAVOR;
    }
    if (0 == len) {
        return OMPI_SUCCESS; /* nothing can be accessed in it */
    }
    region = OBJ_NEW(ompi_osc_newrma_region_t);
    if (NULL == region) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    region->base = (uint64_t) (uintptr_t) base;
    region->len = len;
    ompi_osc_newrma_mutex_lock(&module->attached_lock, OMPI_OSC_NEWRMA_MUTEX_ATTACHED);
    /* registered with UCX when a peer first asks for it (am_region), as a
     * window's memory is: an attach that nobody reaches through UCX (a
     * node-local one accessed by this rank only) never pays for it */
    ret = regions_overlap(module, region->base, len) ? OMPI_ERR_RMA_ATTACH : OMPI_SUCCESS;
    if (OMPI_SUCCESS == ret) {
        opal_list_append(&module->attached, &region->super);
    }
    ompi_osc_newrma_mutex_unlock(&module->attached_lock, OMPI_OSC_NEWRMA_MUTEX_ATTACHED);
    if (OMPI_SUCCESS != ret) {
        OBJ_RELEASE(region);
    }
    return ret;
}

/* A run registration that held detached memory goes with it; the ranks
 * told about it join @p ranks. */
static int detach_runs(ompi_osc_newrma_module_t *module, ompi_osc_newrma_region_t *detached,
                       int **ranks, int *count, int *size)
{
    ompi_osc_newrma_region_t *run, *next;
    int ret = OMPI_SUCCESS;

    OPAL_LIST_FOREACH_SAFE(run, next, &module->attached_runs, ompi_osc_newrma_region_t)
    {
        if (run->base < detached->base + detached->len && detached->base < run->base + run->len) {
            if (OMPI_SUCCESS == ret) {
                ret = ompi_osc_newrma_region_add_origins(run, ranks, count, size);
            }
            opal_list_remove_item(&module->attached_runs, &run->super);
            OBJ_RELEASE(run);
        }
    }
    return ret;
}

/* The attached region starting at @p base, taken off the list with the
 * runs holding it; the ranks that may cache any of them in @p ranks. */
static ompi_osc_newrma_region_t *detach_take(ompi_osc_newrma_module_t *module, const void *base,
                                             int **ranks, int *count, int *size, int *ret)
{
    ompi_osc_newrma_region_t *region, *found = NULL;

    ompi_osc_newrma_mutex_lock(&module->attached_lock, OMPI_OSC_NEWRMA_MUTEX_ATTACHED);
    OPAL_LIST_FOREACH(region, &module->attached, ompi_osc_newrma_region_t)
    {
        if (region->base == (uint64_t) (uintptr_t) base) {
            found = region;
            break;
        }
    }
    if (NULL != found) {
        opal_list_remove_item(&module->attached, &found->super);
        *ret = ompi_osc_newrma_region_add_origins(found, ranks, count, size);
        int ret2 = detach_runs(module, found, ranks, count, size);
        *ret = OMPI_SUCCESS != *ret ? *ret : ret2;
    }
    ompi_osc_newrma_mutex_unlock(&module->attached_lock, OMPI_OSC_NEWRMA_MUTEX_ATTACHED);
    return found;
}

/* MPI_Win_detach returns once no origin can reach the memory through a
 * registration it cached: each origin told about it forgets it and
 * answers; the memory is unregistered after. */
int ompi_osc_newrma_detach(struct ompi_win_t *win, const void *base)
{
    ompi_osc_newrma_module_t *module = ompi_osc_newrma_module(win);
    ompi_osc_newrma_region_t *found;
    int *ranks = NULL, count = 0, size = 0, ret = OMPI_SUCCESS;

    if (MPI_WIN_FLAVOR_DYNAMIC != module->flavor) {
        return OMPI_ERR_RMA_FLAVOR;
    }
    found = detach_take(module, base, &ranks, &count, &size, &ret);
    if (NULL == found) {
        return OMPI_ERR_RMA_ATTACH;
    }
    if (OMPI_SUCCESS == ret && count > 0) {
        ompi_osc_newrma_module_lock(module);
        ret = ompi_osc_newrma_pkt_region_forget(module, ranks, count, found->base, found->len);
        ompi_osc_newrma_module_unlock(module);
    }
    free(ranks);
    OBJ_RELEASE(found);
    return ret;
}

/* ---- shared windows ---- */

/* MPI-4 semantics for every flavor: a rank's memory is answered when this
 * process can load and store it (a shared segment, or its own memory),
 * size 0 and NULL otherwise; a rank that exposes no bytes answers NULL too,
 * even inside a noncontiguous segment where it holds a placeholder address. */
static bool shared_query_visible(ompi_osc_newrma_module_t *module, int rank)
{
    /* no entry: neither mine nor in my segment */
    ompi_osc_newrma_peer_t *peer = ompi_osc_newrma_peer_find(module, rank);

    if (MPI_WIN_FLAVOR_DYNAMIC == module->flavor || NULL == peer ||
        0 == ompi_osc_newrma_peer_size(module, rank) || NULL == peer->shm_base) {
        return false;
    }
    return rank == module->my_rank || module->shm.active;
}

int ompi_osc_newrma_shared_query(struct ompi_win_t *win, int rank, size_t *size, int *disp_unit,
                                 void *baseptr)
{
    ompi_osc_newrma_module_t *module = ompi_osc_newrma_module(win);
    int found = -1;

    if (MPI_PROC_NULL == rank) {
        /* the lowest rank that exposes memory */
        for (int i = 0; i < module->comm_size && found < 0; ++i) {
            if (shared_query_visible(module, i)) {
                found = i;
            }
        }
    } else if (rank < 0 || rank >= module->comm_size) {
        return OMPI_ERR_BAD_PARAM;
    } else if (shared_query_visible(module, rank)) {
        found = rank;
    }
    if (found >= 0) {
        *size = ompi_osc_newrma_peer_size(module, found);
        *disp_unit = ompi_osc_newrma_peer_disp_unit(module, found);
        *(void **) baseptr = ompi_osc_newrma_peer(module, found)->shm_base;
    } else {
        *size = 0;
        *disp_unit = ompi_osc_newrma_peer_disp_unit(module, rank >= 0 ? rank : module->my_rank);
        *(void **) baseptr = NULL;
    }
    return OMPI_SUCCESS;
}
