/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: active target synchronization calls (design: "Algorithm For
 * FENCE" and "Algorithm for POST-START-COMPLETE-WAIT").
 */
#include "ompi_config.h"

#include <stdlib.h>

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/group/group.h"
#include "ompi/op/op.h"
#include "ompi/mca/coll/coll.h"
#include "ompi/mca/pml/pml.h"

#include "osc_newrma.h"
#include "osc_newrma_base_mutex.h"
#include "osc_newrma_am_pkt.h"
#include "osc_newrma_transport_ucx.h"
#include "osc_newrma_am_data.h"
#include "osc_newrma_base_state.h"
#include "osc_newrma_base_wait.h"
#include "osc_newrma_origin_mbox.h"

#define component mca_osc_newrma_component

int ompi_osc_newrma_win_state_move(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_win_event_t event)
{
    ompi_osc_newrma_win_state_t next;
    int ret = ompi_osc_newrma_win_state_next(module->win_state, event, &next);

    if (OMPI_SUCCESS == ret) {
        OSC_NEWRMA_VERBOSE(50, "window %u: %s -> %s", module->cid,
                           ompi_osc_newrma_win_state_name(module->win_state),
                           ompi_osc_newrma_win_state_name(next));
        module->win_state = next;
    }
    return ret;
}

static bool fence_req_done(ompi_osc_newrma_module_t *module, void *arg)
{
    (void) arg;
    return NULL == module->fence_req && 0 == module->fence.owed;
}

static bool fence_ops_done(ompi_osc_newrma_module_t *module, void *arg)
{
    (void) arg;
    return 0 == module->table.num_targets && 0 == module->ack_counter;
}

/* A window without a shared segment (every peer over UCX) and of few
 * ranks: the fence's PROC_SYNC is a FENCE_DONE from every rank to every
 * other, so none needs a collective to learn how many it is owed. */
static bool fence_by_packets(const ompi_osc_newrma_module_t *module)
{
    return !module->shm.active && module->comm_size > 1 &&
           module->comm_size <= (int) component.fence_packet_ranks;
}

/* The FENCE_DONEs the closing epoch did not send behind its packets
 * (fence.sent: one or none per target), alone; then one from each peer
 * (and those I sent myself) is owed to this fence.  Over TCP the
 * collective's messages went through the PML besides the epoch's UCX
 * packets, which already carried a FENCE_DONE to each target they went to. */
static int fence_packets(ompi_osc_newrma_module_t *module)
{
    int parity = (int) (module->fence.count & 1);
    int ret = OMPI_SUCCESS;

    for (int rank = 0; OMPI_SUCCESS == ret && rank < module->comm_size; ++rank) {
        if (rank != module->my_rank && 0 == module->fence.sent[rank]) {
            ret = ompi_osc_newrma_pkt_fence_done(module, rank, NULL, parity);
        }
    }
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    module->fence.owed = module->comm_size - 1 + module->fence.sent[module->my_rank];
    module->fence.owed_parity = parity;
    module->fence.count++;
    return OMPI_SUCCESS;
}

/* The fence's PROC_SYNC on a window not wholly in the shared segment:
 * one collective that also tells every rank how many FENCE_DONE packets
 * the closing epoch sent it (fence.sent; zeros after an epoch without
 * operations), so it needs no RMA_DONE_ACK round trip before it.  For a
 * few ranks an all-to-all of one int per pair costs what a barrier does;
 * for more, reduce_scatter_block moves O(ranks) bytes instead of messages.
 * The buffers live until progress sees the request complete
 * (fence_req_check). */
static int fence_exchange(ompi_osc_newrma_module_t *module)
{
    ompi_communicator_t *comm = module->comm;
    bool alltoall = module->comm_size <= (int) component.fence_alltoall_ranks;
    int ret;

    if (fence_by_packets(module)) {
        return fence_packets(module);
    }
    module->fence.received_len = alltoall ? module->comm_size : 1;
    module->fence.received = malloc((size_t) module->fence.received_len * sizeof(int));
    if (NULL == module->fence.received) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    module->fence.owed_parity = (int) (module->fence.count & 1);
    module->fence.count++;
    ret = alltoall ? comm->c_coll->coll_ialltoall(module->fence.sent, 1, &ompi_mpi_int.dt,
                                                  module->fence.received, 1, &ompi_mpi_int.dt, comm,
                                                  &module->fence_req,
                                                  comm->c_coll->coll_ialltoall_module)
                   : comm->c_coll->coll_ireduce_scatter_block(
                         module->fence.sent, module->fence.received, 1, &ompi_mpi_int.dt,
                         &ompi_mpi_op_sum.op, comm, &module->fence_req,
                         comm->c_coll->coll_ireduce_scatter_block_module);
    if (OMPI_SUCCESS != ret) {
        free(module->fence.received);
        module->fence.received = NULL;
    }
    return ret;
}

/* The fence's count of FENCE_DONEs sent to each rank, zero so far. */
static int fence_counts_alloc(ompi_osc_newrma_module_t *module)
{
    module->fence.sent = calloc((size_t) module->comm_size, sizeof(int));
    return NULL == module->fence.sent ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

/* Every element left holds only a mailbox slot posted by the call, its
 * answer to come (ompi_osc_newrma_mbox_only). */
static bool fence_ops_posted(ompi_osc_newrma_module_t *module, void *arg)
{
    ompi_osc_newrma_target_t *target;

    (void) arg;
    if (0 != module->ack_counter) {
        return false;
    }
    for (target = ompi_osc_newrma_optable_first(&module->table); NULL != target;
         target = ompi_osc_newrma_optable_next(&module->table, target)) {
        if (!ompi_osc_newrma_mbox_only(module, target)) {
            return false;
        }
    }
    return true;
}

/* Issue every operation of the ending epoch and the closing packet behind
 * the last op to each target, @p flag: RMA_DONE (SYNC_FLUSH; wait for every
 * RMA_DONE_ACK, ack_counter back to 0) or FENCE_DONE (SYNC_FENCE;
 * unanswered, counted in fence.sent); then wait until @p done: the op table
 * empty (fence_ops_done), or, on a window of one node whose RMA is not
 * direct, only mailbox slots posted by the calls left (fence_ops_posted):
 * each rank applies the slots posted to it after the barrier and before it
 * lets the next epoch at it (fence_shm), so the answer's round trip
 * overlaps the barrier's instead of preceding it. */
static int fence_complete_ops(ompi_osc_newrma_module_t *module, ompi_osc_newrma_sync_flag_t flag,
                              ompi_osc_newrma_cond_fn_t done)
{
    ompi_osc_newrma_target_t *target;

    if (fence_ops_done(module, NULL)) {
        return OMPI_SUCCESS; /* an epoch without operations: no progress round */
    }
    for (target = ompi_osc_newrma_optable_first(&module->table); NULL != target;
         target = ompi_osc_newrma_optable_next(&module->table, target)) {
        target->sync_flag = flag;
    }
    return ompi_osc_newrma_progress_wait_unless(module, done, NULL);
}

/* A previous FENCE's IBARRIER (its collective, or the FENCE_DONEs it is
 * owed) must finish before the next one starts. */
static int fence_finish_previous(ompi_osc_newrma_module_t *module)
{
    if (fence_req_done(module, NULL)) {
        return OMPI_SUCCESS;
    }
    /* progress also moves FENCE_ISSUED to FENCE_GRANTED */
    return ompi_osc_newrma_progress_wait(module, fence_req_done, NULL);
}

static bool fence_shm_done(ompi_osc_newrma_module_t *module, void *arg)
{
    (void) arg;
    return ompi_osc_newrma_shm_barrier_done(module);
}

/* Every slot posted to me is applied: origins may end an epoch (reach the
 * fence's barrier, raise COMPLETE) before their slots are answered. */
static bool mbox_applied(ompi_osc_newrma_module_t *module, void *arg)
{
    (void) arg;
    return !module->mbox_polled || ompi_osc_newrma_shm_mbox_applied(module);
}

bool ompi_osc_newrma_fence_dones_take(ompi_osc_newrma_module_t *module, int parity, int32_t owed)
{
    ompi_osc_newrma_atomic_t *dones = &module->fence.dones[parity];

    if (*dones < owed) {
        return false;
    }
    opal_atomic_add_fetch_32(dones, -owed);
    opal_atomic_rmb();
    if (OMPI_SUCCESS != module->fence.failed[parity]) {
        /* this fence returns it */
        ompi_osc_newrma_module_error(module, module->fence.failed[parity]);
        module->fence.failed[parity] = OMPI_SUCCESS;
    }
    return true;
}

typedef struct {
    int parity;
    int32_t owed;
} fence_owed_t;

static bool fence_dones_taken(ompi_osc_newrma_module_t *module, void *arg)
{
    const fence_owed_t *o = arg;

    return ompi_osc_newrma_fence_dones_take(module, o->parity, o->owed);
}

/* After the segment's barrier, on a window whose RMA is not direct: my
 * slots' answers (fence_ops_posted), the FENCE_DONEs that origins announced
 * in my block (each sent behind its packets to me) and the slots posted to
 * me have all been applied.  Announcements and slots of this epoch are all
 * made before the barrier, and the next ones only after the next barrier,
 * which waits for me, or after fence_drained. */
static int fence_shm_dones(ompi_osc_newrma_module_t *module, int parity)
{
    fence_owed_t o = {parity, ompi_osc_newrma_shm_fence_owed(module, parity)};
    int ret = ompi_osc_newrma_progress_wait_unless(module, fence_ops_done, NULL);

    if (OMPI_SUCCESS == ret && 0 != o.owed) {
        ret = ompi_osc_newrma_progress_wait(module, fence_dones_taken, &o);
    }
    return OMPI_SUCCESS == ret ? ompi_osc_newrma_progress_wait_unless(module, mbox_applied, NULL)
                               : ret;
}

/* The window is one node: the PROC_SYNC is the segment's barrier, no
 * collective through coll.  Waiting drives progress, since a peer may still
 * need our agent to acknowledge its RMA_DONE before it can arrive.  A window
 * whose RMA is not direct counts the closing epoch's FENCE_DONEs: its
 * parity moves on here, after they went out. */
static int fence_shm(ompi_osc_newrma_module_t *module, ompi_osc_newrma_win_event_t event)
{
    int parity = (int) (module->fence.count & 1);
    int ret;

    if (!module->shm.direct) {
        module->fence.count++;
    }
    opal_atomic_mb(); /* MEM_SYNC before PROC_SYNC */
    ompi_osc_newrma_shm_barrier_arrive(module);
    ret = ompi_osc_newrma_progress_wait(module, fence_shm_done, NULL);
    if (OMPI_SUCCESS == ret && !module->shm.direct) {
        ret = fence_shm_dones(module, parity);
        /* origins of the next epoch may now access me directly */
        ompi_osc_newrma_shm_set_fence_drained(module, (int32_t) module->fence.count);
    }
    if (OMPI_SUCCESS == ret) {
        ret = ompi_osc_newrma_win_state_move(module, event);
    }
    if (OMPI_SUCCESS == ret) {
        ret = ompi_osc_newrma_win_state_move(module, OMPI_OSC_NEWRMA_EV_FENCE_IBARRIER_DONE);
    }
    opal_atomic_mb(); /* MEM_SYNC after PROC_SYNC */
    return ret;
}

/* The segment's barrier of the node's ranks, between two MEM_SYNCs, waited
 * for with the window lock released (a blocking coll barrier would run
 * opal_progress under it); none without a segment. */
static int fence_node_barrier(ompi_osc_newrma_module_t *module)
{
    int ret;

    if (!module->shm.active) {
        return OMPI_SUCCESS;
    }
    opal_atomic_mb();
    ompi_osc_newrma_shm_barrier_arrive(module);
    ret = ompi_osc_newrma_progress_wait(module, fence_shm_done, NULL);
    opal_atomic_mb();
    return ret;
}

static int fence_noprecede(ompi_osc_newrma_module_t *module)
{
    int ret;

    opal_atomic_mb(); /* MEM_SYNC: expose earlier local stores */
    /* node-local peers may then be accessed directly at once */
    ret = fence_node_barrier(module);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    ret = fence_exchange(module);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    ret = ompi_osc_newrma_win_state_move(module, OMPI_OSC_NEWRMA_EV_FENCE_NOPRECEDE);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    /* done before it returns, as any fence: a lock epoch may follow at once,
     * and its packets must carry the next epoch's parity, which the fence
     * sets once done (ompi_osc_newrma_pkt_epoch_done) */
    return ompi_osc_newrma_progress_wait_unless(module, fence_req_done, NULL);
}

/* After fence_complete_ops: the collective, waited for, and the FENCE_DONEs
 * it announced. */
static int fence_full(ompi_osc_newrma_module_t *module)
{
    int ret;

    opal_atomic_mb(); /* MEM_SYNC before PROC_SYNC */
    ret = fence_exchange(module);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    ret = ompi_osc_newrma_win_state_move(module, OMPI_OSC_NEWRMA_EV_FENCE_IBARRIER);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    /* waits for the IBARRIER; progress sets FENCE_GRANTED and the MEM_SYNC
     * after PROC_SYNC */
    return ompi_osc_newrma_progress_wait(module, fence_req_done, NULL);
}

static int fence_locked(ompi_osc_newrma_module_t *module, int mpi_assert)
{
    /* the same on every rank: fences and their NOSUCCEED are collective */
    bool ends_epoch = ompi_osc_newrma_win_state_is_fence(module->win_state);
    ompi_osc_newrma_win_state_t next;
    int ret;

    /* only legal outside other epochs, exposure epochs included */
    if (module->pscw_exposure.open) {
        return OMPI_ERR_RMA_SYNC;
    }
    ret =
        ompi_osc_newrma_win_state_next(module->win_state, OMPI_OSC_NEWRMA_EV_FENCE_IBARRIER, &next);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    ret = fence_finish_previous(module);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    if (!module->shm.whole) {
        ret = fence_counts_alloc(module);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
    }
    /* NOPRECEDE promises no operations to complete; if the user broke the
     * promise, complete them anyway rather than lose them */
    if (!(mpi_assert & MPI_MODE_NOPRECEDE) || 0 != module->table.num_targets) {
        if (module->shm.whole) {
            /* direct RMA leaves no packets behind; packets are counted
             * by FENCE_DONE, announced in the segment (no round trip) */
            ret = module->shm.direct
                      ? fence_complete_ops(module, OMPI_OSC_NEWRMA_SYNC_FLUSH, fence_ops_done)
                      : fence_complete_ops(module, OMPI_OSC_NEWRMA_SYNC_FENCE, fence_ops_posted);
            ret = OMPI_SUCCESS != ret ? ret : fence_shm(module, OMPI_OSC_NEWRMA_EV_FENCE_IBARRIER);
        } else {
            ret = fence_complete_ops(module, OMPI_OSC_NEWRMA_SYNC_FENCE, fence_ops_done);
            if (OMPI_SUCCESS == ret) {
                /* on a window over UCX with node-local peers: once my fence
                 * is done (every packet of the ending epoch applied), the
                 * node's barrier keeps those peers from accessing me
                 * directly in the next epoch before (a remote origin's
                 * packet still on its way would land after such a write, or
                 * such a read would miss it); every rank that took part in
                 * the collective takes part in it, whatever its fence
                 * returns (NOPRECEDE ends no operations: none needed) */
                int drained;

                ret = fence_full(module);
                if (ends_epoch) {
                    module->fence.unsure = module->fence.count;
                }
                drained = fence_node_barrier(module);
                ret = OMPI_SUCCESS != ret ? ret : drained;
            }
        }
    } else {
        ret = module->shm.whole ? fence_shm(module, OMPI_OSC_NEWRMA_EV_FENCE_NOPRECEDE)
                                : fence_noprecede(module);
    }
    if (NULL == module->fence.received) {
        /* no collective reads the counts (it did not start, or finished) */
        free(module->fence.sent);
        module->fence.sent = NULL;
    }
    if (OMPI_SUCCESS == ret && (mpi_assert & MPI_MODE_NOSUCCEED)) {
        ret = ompi_osc_newrma_win_state_move(module, OMPI_OSC_NEWRMA_EV_FENCE_NOSUCCEED);
    }
    return ret;
}

int ompi_osc_newrma_fence(int mpi_assert, struct ompi_win_t *win)
{
    ompi_osc_newrma_module_t *module = ompi_osc_newrma_module(win);
    int ret;

    ompi_osc_newrma_module_lock(module);
    ret = ompi_osc_newrma_sync_ended(module, OMPI_OSC_NEWRMA_SYNC_FENCE,
                                     fence_locked(module, mpi_assert));
    ompi_osc_newrma_module_unlock(module);
    return ret;
}

int ompi_osc_newrma_sync(struct ompi_win_t *win)
{
    /* MEM_SYNC: order this process's loads/stores on shared window memory */
    opal_atomic_mb();
    /* a process polling its window with MPI_Win_sync must still apply the
     * packets other origins send it */
    ompi_osc_newrma_call_turn(ompi_osc_newrma_module(win));
    return OMPI_SUCCESS;
}

/* ---- POST-START-COMPLETE-WAIT ----
 *
 * FENCE with the IBARRIER replaced by zero-byte messages within the group:
 * WIN_POST sends POST to each origin and WIN_START receives them; WIN_COMPLETE
 * sends COMPLETE to each target and WIN_WAIT/TEST receives them.  Over UCX
 * (pscw_packets) both are packets instead, and in one segment flags.  The window
 * keeps one request array per side, sized by the group (design point 3).  The
 * window's communicator is a duplicate, so these tags meet nothing else, and
 * PML messages between two ranks do not overtake: epoch k's COMPLETE arrives
 * before epoch k+1's POST can be sent. */

#define PSCW_TAG_POST     1
#define PSCW_TAG_COMPLETE 2

/* A window whose ranks are all in one segment synchronizes PSCW through
 * flags in it: no message, no request (the group is then all node-local). */
static bool pscw_flags(ompi_osc_newrma_module_t *module)
{
    return ompi_osc_newrma_shm_whole(&module->shm);
}

/* A window whose RMA is not direct (the UCX path, or a segment of the
 * control part only: ompi_osc_newrma_shm_sync_attach) sends COMPLETE as a
 * packet behind the epoch's last packets to the target (design:
 * piggybacking), which counts them without an answer: MPI_Win_complete
 * waits for no round trip unless RDMA writes need flushing.  With flags, a
 * target that was sent nothing gets its COMPLETE as a flag. */
static bool pscw_packets(ompi_osc_newrma_module_t *module)
{
    return !module->shm.active || !module->shm.direct;
}

static int pscw_rank_cmp(const void *a, const void *b)
{
    return *(const int *) a - *(const int *) b;
}

/* Translate @p group to sorted ranks of the window's communicator into
 * @p g's arrays (allocated here). */
static int pscw_group_translate(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pscw_group_t *g,
                                ompi_group_t *group)
{
    int n = ompi_group_size(group), ret;
    int *in = calloc(n + 1, sizeof(int));

    g->ranks = malloc(sizeof(int) * (n + 1));
    g->reqs = calloc(n + 1, sizeof(ompi_request_t *));
    if (NULL == in || NULL == g->ranks || NULL == g->reqs) {
        free(in);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (int i = 0; i < n; ++i) {
        in[i] = i;
    }
    ret = ompi_group_translate_ranks(group, n, in, module->comm->c_local_group, g->ranks);
    for (int i = 0; OMPI_SUCCESS == ret && i < n; ++i) {
        if (MPI_UNDEFINED == g->ranks[i]) {
            ret = MPI_ERR_GROUP; /* not a member of the window's group */
        }
    }
    qsort(g->ranks, n, sizeof(int), pscw_rank_cmp);
    g->count = n;
    free(in);
    return ret;
}

/* @p g for an epoch of @p group: the last epoch's translation when it was
 * the same group, else a new one. */
static int pscw_group_open(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pscw_group_t *g,
                           ompi_group_t *group)
{
    int ret;

    g->pending = 0;
    g->post_packets = false;
    if (group == g->group) {
        return OMPI_SUCCESS;
    }
    ompi_osc_newrma_pscw_group_fini(g);
    ret = pscw_group_translate(module, g, group);
    if (OMPI_SUCCESS != ret) {
        ompi_osc_newrma_pscw_group_fini(g);
        return ret;
    }
    OBJ_RETAIN(group);
    g->group = group;
    return OMPI_SUCCESS;
}

void ompi_osc_newrma_pscw_group_close(ompi_osc_newrma_pscw_group_t *g)
{
    g->open = false;
}

void ompi_osc_newrma_pscw_group_fini(ompi_osc_newrma_pscw_group_t *g)
{
    free(g->ranks);
    free(g->reqs);
    g->ranks = NULL;
    g->reqs = NULL;
    g->count = 0;
    g->open = false;
    if (NULL != g->group) {
        OBJ_RELEASE(g->group);
        g->group = NULL;
    }
}

/* PROC_SYNC: one zero-byte ISEND (or IRECV) of @p tag per group member. */
static int pscw_proc_sync(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pscw_group_t *g,
                          int tag, bool send)
{
    int ret;

    for (int i = 0; i < g->count; ++i) {
        /* the handshake goes through the PML: let UCX watch the peer, so a
         * wait for one that died fails (osc_newrma_base_wait.h) */
        ompi_osc_newrma_ucx_watch(ompi_comm_peer_lookup(module->comm, g->ranks[i]));
        ret = send ? MCA_PML_CALL(isend(NULL, 0, MPI_BYTE, g->ranks[i], tag,
                                        MCA_PML_BASE_SEND_STANDARD, module->comm, &g->reqs[i]))
                   : MCA_PML_CALL(
                         irecv(NULL, 0, MPI_BYTE, g->ranks[i], tag, module->comm, &g->reqs[i]));
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
        g->pending++;
    }
    return OMPI_SUCCESS;
}

/* Free the completed requests of @p g; true when none is left. */
static bool pscw_reqs_done(ompi_osc_newrma_pscw_group_t *g)
{
    for (int i = 0; g->pending > 0 && i < g->count; ++i) {
        if (NULL != g->reqs[i] && REQUEST_COMPLETE(g->reqs[i])) {
            (void) ompi_request_free(&g->reqs[i]);
            g->reqs[i] = NULL;
            g->pending--;
        }
    }
    return 0 == g->pending;
}

/* The access epoch's POSTs are all in: their PML requests done, or one
 * POST packet taken from each target.  @return 1, 0 not yet, or an error. */
static int pscw_posts_in(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_pscw_group_t *g = &module->pscw_access;
    int ret;

    if (!g->post_packets) {
        return pscw_reqs_done(g);
    }
    ret = ompi_osc_newrma_pkt_posts_take(module, g->ranks, g->count);
    if (1 == ret) {
        g->post_packets = false;
    }
    return ret;
}

static bool pscw_access_granted(ompi_osc_newrma_module_t *module, void *arg)
{
    (void) arg;
    return OMPI_OSC_NEWRMA_WIN_PSCW_GRANTED == module->win_state;
}

/* PROGRESS_WAIT condition: every request of the group @p arg is done. */
static bool pscw_group_done(ompi_osc_newrma_module_t *module, void *arg)
{
    (void) module;
    return pscw_reqs_done((ompi_osc_newrma_pscw_group_t *) arg);
}

static int pscw_grant(ompi_osc_newrma_module_t *module)
{
    int ret = ompi_osc_newrma_win_state_move(module, OMPI_OSC_NEWRMA_EV_PSCW_POSTS_DONE);

    opal_atomic_mb(); /* MEM_SYNC after PROC_SYNC */
    return ret;
}

int ompi_osc_newrma_pscw_progress(ompi_osc_newrma_module_t *module)
{
    int ret;

    if (OMPI_OSC_NEWRMA_WIN_PSCW_ISSUED != module->win_state) {
        return 0;
    }
    ret = pscw_posts_in(module);
    if (1 != ret) {
        return ret;
    }
    ret = pscw_grant(module);
    return OMPI_SUCCESS == ret ? 1 : ret;
}

int ompi_osc_newrma_pscw_check_target(ompi_osc_newrma_module_t *module, int rank)
{
    ompi_osc_newrma_pscw_group_t *g = &module->pscw_access;

    switch (module->win_state) {
        case OMPI_OSC_NEWRMA_WIN_PSCW_ISSUED:
        case OMPI_OSC_NEWRMA_WIN_PSCW_GRANTED:
            return NULL != bsearch(&rank, g->ranks, g->count, sizeof(int), pscw_rank_cmp)
                       ? OMPI_SUCCESS
                       : OMPI_ERR_RMA_SYNC;
        default:
            return OMPI_SUCCESS;
    }
}

static bool pscw_posts_arrived(ompi_osc_newrma_module_t *module, void *arg)
{
    ompi_osc_newrma_pscw_group_t *g = arg;

    return ompi_osc_newrma_shm_posted(module, g->ranks, g->count);
}

/* Before the state moves to PSCW_ISSUED, so the progress engine does not
 * grant the epoch on an empty request list meanwhile. */
static int pscw_wait_posts(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pscw_group_t *g)
{
    int ret = ompi_osc_newrma_progress_wait_unless(module, pscw_posts_arrived, g);

    if (OMPI_SUCCESS == ret) {
        ompi_osc_newrma_shm_take_posts(module, g->ranks, g->count);
    }
    return ret;
}

/* PSCW over UCX: the targets' POSTs come as packets, counted by the agent
 * (ompi_osc_newrma_pkt_post), no request per target.  UCX watches each
 * target meanwhile, so a wait for one that died fails. */
static int pscw_await_post_packets(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_pscw_group_t *g)
{
    for (int i = 0; i < g->count; ++i) {
        if (g->ranks[i] != module->my_rank) {
            ompi_osc_newrma_ucx_watch(ompi_comm_peer_lookup(module->comm, g->ranks[i]));
        }
    }
    g->post_packets = true;
    return OMPI_SUCCESS;
}

static int start_locked(ompi_osc_newrma_module_t *module, ompi_group_t *group, int mpi_assert)
{
    ompi_osc_newrma_win_state_t next;
    int ret;

    ret = ompi_osc_newrma_win_state_next(module->win_state, OMPI_OSC_NEWRMA_EV_PSCW_START, &next);
    if (OMPI_SUCCESS == ret) {
        ret = fence_finish_previous(module);
    }
    if (OMPI_SUCCESS == ret) {
        ret = pscw_group_open(module, &module->pscw_access, group);
    }
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    module->pscw_access.open = true;
    /* MPI_MODE_NOCHECK: the targets post no POST for this epoch */
    if (!(mpi_assert & MPI_MODE_NOCHECK)) {
        ret = pscw_flags(module) ? pscw_wait_posts(module, &module->pscw_access)
              : pscw_packets(module)
                  ? pscw_await_post_packets(module, &module->pscw_access)
                  : pscw_proc_sync(module, &module->pscw_access, PSCW_TAG_POST, false);
    }
    if (OMPI_SUCCESS == ret) {
        ret = ompi_osc_newrma_win_state_move(module, OMPI_OSC_NEWRMA_EV_PSCW_START);
    }
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    ret = pscw_posts_in(module);
    if (ret < 0) {
        return ret;
    }
    if (1 == ret) {
        return pscw_grant(module);
    }
    /* direct load/store to node-local targets cannot be queued: wait for
     * the POSTs here (design point 2) */
    return module->shm.direct ? ompi_osc_newrma_progress_wait(module, pscw_access_granted, NULL)
                              : OMPI_SUCCESS;
}

int ompi_osc_newrma_start(struct ompi_group_t *group, int mpi_assert, struct ompi_win_t *win)
{
    ompi_osc_newrma_module_t *module = ompi_osc_newrma_module(win);
    int ret;

    ompi_osc_newrma_module_lock(module);
    ret = start_locked(module, group, mpi_assert);
    ompi_osc_newrma_module_unlock(module);
    return ret;
}

/* RMA_DONE to every target, then COMPLETE through the segment's flags or a
 * PML message once they are acknowledged. */
static int complete_by_messages(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pscw_group_t *g)
{
    int ret = fence_complete_ops(module, OMPI_OSC_NEWRMA_SYNC_FLUSH, fence_ops_done);

    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    opal_atomic_mb(); /* MEM_SYNC before PROC_SYNC */
    if (pscw_flags(module)) {
        for (int i = 0; i < g->count; ++i) {
            ompi_osc_newrma_shm_complete(module, g->ranks[i]);
        }
    } else {
        ret = pscw_proc_sync(module, g, PSCW_TAG_COMPLETE, true);
    }
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    return ompi_osc_newrma_progress_wait_unless(module, pscw_group_done, g);
}

/* COMPLETE packets: a target element sends its own behind its last op
 * (SYNC_COMPLETE); group members without one get a bare COMPLETE once
 * every earlier RMA_DONE is acknowledged. */
static int complete_by_packets(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pscw_group_t *g)
{
    ompi_osc_newrma_target_t *target;
    bool *bare = calloc((size_t) g->count + 1, sizeof(bool));
    int ret;

    if (NULL == bare) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (int i = 0; i < g->count; ++i) {
        bare[i] = NULL == ompi_osc_newrma_optable_lookup(&module->table, g->ranks[i]);
    }
    for (target = ompi_osc_newrma_optable_first(&module->table); NULL != target;
         target = ompi_osc_newrma_optable_next(&module->table, target)) {
        target->sync_flag = OMPI_OSC_NEWRMA_SYNC_COMPLETE;
    }
    ret = ompi_osc_newrma_progress_wait(module, fence_ops_done, NULL);
    for (int i = 0; OMPI_SUCCESS == ret && i < g->count; ++i) {
        if (bare[i] && pscw_flags(module)) {
            opal_atomic_wmb();
            ompi_osc_newrma_shm_complete(module, g->ranks[i]);
        } else if (bare[i] && g->ranks[i] == module->my_rank) {
            /* accesses to myself were direct */
            opal_atomic_wmb();
            opal_atomic_add_fetch_32(&module->pscw_completes, 1);
        } else if (bare[i]) {
            ret = ompi_osc_newrma_pkt_complete(module, g->ranks[i], NULL);
        }
    }
    free(bare);
    return ret;
}

static int complete_locked(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_pscw_group_t *g = &module->pscw_access;
    ompi_osc_newrma_win_state_t next;
    int ret;

    ret =
        ompi_osc_newrma_win_state_next(module->win_state, OMPI_OSC_NEWRMA_EV_PSCW_COMPLETE, &next);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    /* every POST must be received even without ops, or it would meet the
     * next epoch's WIN_START */
    ret = ompi_osc_newrma_progress_wait_unless(module, pscw_access_granted, NULL);
    if (OMPI_SUCCESS == ret) {
        ret =
            pscw_packets(module) ? complete_by_packets(module, g) : complete_by_messages(module, g);
    }
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    ompi_osc_newrma_pscw_group_close(g);
    return ompi_osc_newrma_win_state_move(module, OMPI_OSC_NEWRMA_EV_PSCW_COMPLETE);
}

int ompi_osc_newrma_complete(struct ompi_win_t *win)
{
    ompi_osc_newrma_module_t *module = ompi_osc_newrma_module(win);
    int ret;

    ompi_osc_newrma_module_lock(module);
    ret =
        ompi_osc_newrma_sync_ended(module, OMPI_OSC_NEWRMA_SYNC_COMPLETE, complete_locked(module));
    ompi_osc_newrma_module_unlock(module);
    return ret;
}

/* PSCW over UCX: a POST packet to each origin of @p g, which counts it
 * (ompi_osc_newrma_pkt_posts_take).  A PML message cost a TCP send and
 * a request the post waited for, and reached an origin that polls the
 * PML only one round in opal_every. */
static int pscw_post_packets(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pscw_group_t *g)
{
    int ret = OMPI_SUCCESS;

    for (int i = 0; OMPI_SUCCESS == ret && i < g->count; ++i) {
        ret = ompi_osc_newrma_pkt_post(module, g->ranks[i]);
    }
    return ret;
}

static int post_locked(ompi_osc_newrma_module_t *module, ompi_group_t *group, int mpi_assert)
{
    ompi_osc_newrma_pscw_group_t *g = &module->pscw_exposure;
    int ret;

    if (g->open) {
        return OMPI_ERR_RMA_SYNC;
    }
    ret = pscw_group_open(module, g, group);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    g->open = true;
    if (pscw_packets(module)) {
        /* no origin of this epoch can send COMPLETE before its POST */
        module->pscw_completes = 0;
    }
    opal_atomic_mb(); /* MEM_SYNC before PROC_SYNC */
    if (pscw_flags(module)) {
        for (int i = 0; !(mpi_assert & MPI_MODE_NOCHECK) && i < g->count; ++i) {
            ompi_osc_newrma_shm_post(module, g->ranks[i]);
        }
        return OMPI_SUCCESS; /* COMPLETEs are counted in my flags and packets */
    }
    if (pscw_packets(module)) {
        /* COMPLETEs come as packets too: nothing to receive here */
        return (mpi_assert & MPI_MODE_NOCHECK) ? OMPI_SUCCESS : pscw_post_packets(module, g);
    }
    if (!(mpi_assert & MPI_MODE_NOCHECK)) {
        /* POSTs go out and are known sent before the COMPLETE IRECVs take
         * the request array */
        ret = pscw_proc_sync(module, g, PSCW_TAG_POST, true);
        if (OMPI_SUCCESS == ret) {
            ret = ompi_osc_newrma_progress_wait(module, pscw_group_done, g);
        }
    }
    if (OMPI_SUCCESS == ret) {
        ret = pscw_proc_sync(module, g, PSCW_TAG_COMPLETE, false);
    }
    return ret;
}

int ompi_osc_newrma_post(struct ompi_group_t *group, int mpi_assert, struct ompi_win_t *win)
{
    ompi_osc_newrma_module_t *module = ompi_osc_newrma_module(win);
    int ret;

    ompi_osc_newrma_module_lock(module);
    ret = post_locked(module, group, mpi_assert);
    ompi_osc_newrma_module_unlock(module);
    return ret;
}

/* The exposure epoch ends once every origin's COMPLETE arrived; the origins
 * completed their operations (RMA_DONE acknowledged) before sending it. */
static void pscw_exposure_close(ompi_osc_newrma_module_t *module)
{
    opal_atomic_mb(); /* MEM_SYNC after PROC_SYNC */
    ompi_osc_newrma_pscw_group_close(&module->pscw_exposure);
}

/* Every origin of the exposure group has called MPI_Win_complete. */
static bool pscw_exposure_done(ompi_osc_newrma_module_t *module, void *arg)
{
    ompi_osc_newrma_pscw_group_t *g = arg;

    if (pscw_flags(module)) {
        /* each origin completes once, by a packet or a flag; the next
         * epoch's come only after my next POST */
        return ompi_osc_newrma_shm_completed(
            module, pscw_packets(module) ? g->count - module->pscw_completes : g->count);
    }
    return pscw_packets(module) ? module->pscw_completes >= g->count : pscw_reqs_done(g);
}

int ompi_osc_newrma_wait(struct ompi_win_t *win)
{
    ompi_osc_newrma_module_t *module = ompi_osc_newrma_module(win);
    int ret = OMPI_ERR_RMA_SYNC;

    ompi_osc_newrma_module_lock(module);
    if (module->pscw_exposure.open) {
        ret = ompi_osc_newrma_progress_wait_unless(module, pscw_exposure_done,
                                                   &module->pscw_exposure);
        ret = OMPI_SUCCESS == ret ? ompi_osc_newrma_progress_wait_unless(module, mbox_applied, NULL)
                                  : ret;
        if (OMPI_SUCCESS == ret) {
            pscw_exposure_close(module);
        }
        /* a packet of the epoch that could not be applied */
        ret = ompi_osc_newrma_sync_result(module, ret);
    }
    ompi_osc_newrma_module_unlock(module);
    return ret;
}

int ompi_osc_newrma_test(struct ompi_win_t *win, int *flag)
{
    ompi_osc_newrma_module_t *module = ompi_osc_newrma_module(win);
    int ret;

    *flag = 0;
    opal_progress();
    ompi_osc_newrma_module_lock(module);
    ret = module->pscw_exposure.open ? ompi_osc_newrma_win_progress(module) : OMPI_ERR_RMA_SYNC;
    if (ret >= 0) {
        ret = OMPI_SUCCESS;
        if (pscw_exposure_done(module, &module->pscw_exposure)) {
            /* the completes are taken: the slots posted before them are
             * applied now (by this process's agent: a short wait) */
            ret = ompi_osc_newrma_progress_wait_unless(module, mbox_applied, NULL);
            pscw_exposure_close(module); /* its completes are gone either way */
            *flag = OMPI_SUCCESS == ret;
        }
    }
    ompi_osc_newrma_module_unlock(module);
    return ret;
}
