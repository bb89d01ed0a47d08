/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: basic routines and the progress engine hook (see
 * osc_newrma_progress.h).
 */
#include "ompi_config.h"

#include <poll.h>
#include <sched.h>

#include "ompi/datatype/ompi_datatype.h"
#include "opal/runtime/opal_progress.h"

#include "osc_newrma.h"
#include "osc_newrma_base_mutex.h"
#include "osc_newrma_ops.h"
#include "osc_newrma_origin_passive.h"
#include "osc_newrma_origin_mbox.h"
#include "osc_newrma_target_mbox.h"
#include "osc_newrma_am_pkt.h"
#include "osc_newrma_am_data.h"
#include "osc_newrma_progress.h"
#include "osc_newrma_base_state.h"
#include "osc_newrma_transport_shm.h"
#include "osc_newrma_transport_ucx.h"

#define component mca_osc_newrma_component

/* PIGGYBACK_THRESHOLD: keep the first ops queued so the last one can carry
 * RMA_DONE, unless a synchronization or a request-based op asks for them. */
static bool target_past_threshold(ompi_osc_newrma_module_t *module,
                                  ompi_osc_newrma_target_t *target)
{
    return OMPI_OSC_NEWRMA_SYNC_NONE != target->sync_flag || target->req_ops > 0 ||
           target->op_count > module->config.piggyback_threshold;
}

/* May ops of @p target go out now?  Not while the epoch is still being
 * opened (ompi_osc_newrma_target_open), nor while its mailbox holds an op
 * of mine; the first ops wait for PIGGYBACK_THRESHOLD. */
static bool target_may_issue(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target)
{
    return NULL == target->mbox_slot && ompi_osc_newrma_target_open(module, target) &&
           target_past_threshold(module, target);
}

/* The synchronization message behind the last op: RMA_DONE for FLUSH (and
 * FENCE), RMA_DONE + UNLOCK for UNLOCK. */
static int issue_sync_target(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target)
{
    if (NULL != target->next_op_to_issue) {
        return OMPI_SUCCESS;
    }
    switch (target->sync_flag) {
        case OMPI_OSC_NEWRMA_SYNC_FLUSH:
            if (!ompi_osc_newrma_target_owes_rma_done(target)) {
                return OMPI_SUCCESS;
            }
            return ompi_osc_newrma_op_rma_done(module, target,
                                               ompi_osc_newrma_ack_counter(module, target));
        case OMPI_OSC_NEWRMA_SYNC_UNLOCK:
            return ompi_osc_newrma_passive_send_unlock(module, target);
        default:
            return OMPI_SUCCESS;
    }
}

/* Location consistency (README, "What it guarantees"): an RDMA GET reads
 * the target's memory directly, so it must not overtake PUT and ACC packets
 * that the target's agent may not have applied yet; nor may a cross-memory
 * PUT, which writes it at once.  RMA_DONE covers them;
 * the GET waits for its acknowledgement.  A GET sent as packets is applied
 * behind them anyway.  @return 1: the next op may go, 0: not yet, or an
 * error. */
static int packets_applied_before(ompi_osc_newrma_module_t *module,
                                  ompi_osc_newrma_target_t *target, ompi_osc_newrma_op_t *op)
{
    bool copied = ompi_osc_newrma_op_by_cma(module, target, op);
    int ret;

    if (!copied &&
        (OMPI_OSC_NEWRMA_OP_GET != op->kind || ompi_osc_newrma_op_as_packets(module, target, op))) {
        return 1;
    }
    if (copied && target->needs_rma_done) { /* UCX's RDMA writes, flushed */
        ret = ompi_osc_newrma_op_rma_done(module, target, &target->ack_counter);
        return OMPI_SUCCESS != ret ? ret : 0;
    }
    if (target->am_sent > 0) {
        ret = ompi_osc_newrma_pkt_rma_done(module, target, &target->ack_counter);
        return OMPI_SUCCESS != ret ? ret : 0;
    }
    return 0 == target->ack_counter;
}

int ompi_osc_newrma_issue_ops_target(ompi_osc_newrma_module_t *module,
                                     ompi_osc_newrma_target_t *target, int max)
{
    ompi_osc_newrma_op_t *op;
    int issued = 0, ret;

    /* a LOCK_GRANTED that arrived moves LOCK_ISSUED to LOCK_GRANTED */
    ret = ompi_osc_newrma_passive_update(module, target);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    if (!target_may_issue(module, target)) {
        return 0;
    }
    while ((max < 0 || issued < max) && NULL != (op = target->next_op_to_issue)) {
        ret = packets_applied_before(module, target, op);
        if (ret <= 0) {
            return ret < 0 ? ret : issued;
        }
        (void) ompi_osc_newrma_target_next_pending(target);
        ret = ompi_osc_newrma_op_issue(module, target, op);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
        issued++;
    }
    ret = issue_sync_target(module, target);
    return OMPI_SUCCESS != ret ? ret : issued;
}

int ompi_osc_newrma_issue_ops_win(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_target_t *target;
    int total = 0, round, ret;

    do {
        round = 0;
        for (target = ompi_osc_newrma_optable_first(&module->table); NULL != target;
             target = ompi_osc_newrma_optable_next(&module->table, target)) {
            ret = ompi_osc_newrma_issue_ops_target(module, target, 1);
            if (ret < 0) {
                return ret;
            }
            round += ret;
        }
        total += round;
    } while (round > 0);
    return total;
}

int ompi_osc_newrma_cleanup_target(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_target_t *target)
{
    ompi_osc_newrma_op_t *op;
    int count = 0, ret;

    /* oldest first; an incomplete op means the later ones are likely
     * incomplete too, so stop there */
    while (!opal_list_is_empty(&target->ops)) {
        op = (ompi_osc_newrma_op_t *) opal_list_get_first(&target->ops);
        if (!ompi_osc_newrma_op_is_complete(op)) {
            break;
        }
        ompi_osc_newrma_target_dequeue_op(target, op);
        if (NULL != op->request) {
            target->req_ops--;
        }
        if (0 != op->took_ns && OMPI_SUCCESS == op->status) {
            ompi_osc_newrma_op_cma_record(module, op, OMPI_OSC_NEWRMA_CMA_WAY_UCX, op->took_ns);
        }
        if (NULL != op->read_seq_word) {
            ret = ompi_osc_newrma_op_read_verify(module, op);
            op->status = OMPI_SUCCESS != ret ? ret : op->status;
        }
        ret = ompi_osc_newrma_op_finish(module, op);
        if (OMPI_SUCCESS != ret) {
            /* whoever runs progress, the user's next completing
             * synchronization reports it; the op is done either way */
            ompi_osc_newrma_module_error(module, ret);
        }
        count++;
    }
    return count;
}

/* FENCE_DONE behind the target's PUT and ACC packets, counted where the
 * target learns how many to wait for: the segment's block of a window on
 * one node (its barrier follows), else the fence's collective.  None
 * without such packets: GETs were answered, RDMA writes flushed,
 * cross-memory copies done when issued. */
static int fence_done_target(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target)
{
    int parity = (int) (module->fence.count & 1);
    int ret;

    if (0 == target->am_sent) {
        return OMPI_SUCCESS;
    }
    ret = ompi_osc_newrma_pkt_fence_done(module, target->rank, target, parity);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    if (module->shm.whole) {
        ompi_osc_newrma_shm_fence_announce(module, target->rank, parity);
    } else if (NULL != module->fence.sent) {
        /* (NULL: the fence failed before its collective and counts nothing) */
        module->fence.sent[target->rank]++;
    }
    return OMPI_SUCCESS;
}

/* A COMPLETE that is the segment's flag may go before the answer of a slot
 * the call posted to the target's mailbox, when nothing else of this
 * process is there: the target applies its slots once its completes are in
 * and before MPI_Win_wait returns (sync.c), so the answer's round trip
 * overlaps the flag's.  The element stays until the answer. */
static bool complete_passes_slot(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target)
{
    return OMPI_OSC_NEWRMA_SYNC_COMPLETE == target->sync_flag &&
           ompi_osc_newrma_target_complete_by_flag(module, target) &&
           ompi_osc_newrma_mbox_only(module, target);
}

/* PSCW over UCX: COMPLETE goes behind the target's packets and counts
 * them (FENCE: FENCE_DONE, and the fence's collective tells the target to
 * expect it); RDMA writes are flushed before it, as the target cannot see
 * them.
 * It may go once every op is out and nothing reads the target by RDMA: GET
 * and fetching packets still waiting for their answers are applied before
 * it (design: piggybacking), so the target's MPI_Win_wait does not wait a
 * round trip more.  @return 1 once sent (now or before), 0 while it cannot
 * go yet or the flush is under way. */
static int complete_target(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target)
{
    int ret;

    if (target->complete_sent) {
        return 1;
    }
    if (NULL != target->next_op_to_issue || ompi_osc_newrma_target_rdma_reading(target) ||
        (NULL != target->mbox_slot && !complete_passes_slot(module, target))) {
        return 0;
    }
    ret = ompi_osc_newrma_op_flush_writes(module, target, &target->flush_pending);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    if (target->flush_pending > 0) {
        return 0;
    }
    if (OMPI_OSC_NEWRMA_SYNC_COMPLETE == target->sync_flag &&
        ompi_osc_newrma_target_complete_by_flag(module, target)) {
        /* nothing of it travels as packets: a flag once all is done */
        if (!opal_list_is_empty(&target->ops)) {
            return 0;
        }
        opal_atomic_wmb(); /* MEM_SYNC before PROC_SYNC */
        ompi_osc_newrma_shm_complete(module, target->rank);
        target->complete_sent = true;
        return 1;
    }
    ret = OMPI_OSC_NEWRMA_SYNC_FENCE == target->sync_flag
              ? fence_done_target(module, target)
              : ompi_osc_newrma_pkt_complete(module, target->rank, target);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    target->complete_sent = true;
    return 1;
}

/* COMPLETE and FENCE_DONE close the target's epoch without an answer. */
static bool sync_flag_unanswered(ompi_osc_newrma_sync_flag_t flag)
{
    return OMPI_OSC_NEWRMA_SYNC_COMPLETE == flag || OMPI_OSC_NEWRMA_SYNC_FENCE == flag;
}

/* Active target: an element that a synchronization flagged is released
 * once its ops are done, after its COMPLETE, FENCE_DONE or RMA_DONE
 * (counted in the window's ack_counter). */
static int cleanup_active_target(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target)
{
    int ret;

    if (sync_flag_unanswered(target->sync_flag)) {
        ret = complete_target(module, target);
        if (ret <= 0) {
            return ret;
        }
    }
    if (!opal_list_is_empty(&target->ops) || NULL != target->mbox_slot ||
        target->owed_at_call > 0 || OMPI_OSC_NEWRMA_SYNC_NONE == target->sync_flag) {
        return 0;
    }
    if (!sync_flag_unanswered(target->sync_flag) && ompi_osc_newrma_target_owes_rma_done(target)) {
        ret = ompi_osc_newrma_op_rma_done(module, target, &module->ack_counter);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
    }
    ompi_osc_newrma_pkt_target_release(module, target);
    return 1;
}

/* Passive target: elements are released by the closing synchronization,
 * or here once CLEANUP_WIN_AGGRESSIVE's FLUSH of them is acknowledged. */
static int cleanup_passive_target(ompi_osc_newrma_module_t *module,
                                  ompi_osc_newrma_target_t *target)
{
    if (!target->release_when_done || OMPI_OSC_NEWRMA_LOCK_GRANTED != target->lock_state ||
        !opal_list_is_empty(&target->ops) || NULL != target->mbox_slot || target->ack_counter > 0 ||
        target->flush_pending > 0 || target->owed_at_call > 0 ||
        ompi_osc_newrma_target_owes_rma_done(target) ||
        OMPI_OSC_NEWRMA_SYNC_UNLOCK == target->sync_flag) {
        return 0;
    }
    ompi_osc_newrma_pkt_target_release(module, target);
    return 1;
}

int ompi_osc_newrma_cleanup_win(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_target_t *target, *next;
    bool active = ompi_osc_newrma_win_state_is_fence(module->win_state) ||
                  OMPI_OSC_NEWRMA_WIN_PSCW_ISSUED == module->win_state ||
                  OMPI_OSC_NEWRMA_WIN_PSCW_GRANTED == module->win_state ||
                  OMPI_OSC_NEWRMA_WIN_NONE == module->win_state;
    int total = 0, ret;

    for (target = ompi_osc_newrma_optable_first(&module->table); NULL != target; target = next) {
        next = ompi_osc_newrma_optable_next(&module->table, target);
        ret = ompi_osc_newrma_cleanup_target(module, target);
        if (ret >= 0) {
            int released = active ? cleanup_active_target(module, target)
                                  : cleanup_passive_target(module, target);
            ret = released < 0 ? released : ret + released;
        }
        if (ret < 0) {
            return ret;
        }
        total += ret;
    }
    return total;
}

int ompi_osc_newrma_make_rma_progress_target(ompi_osc_newrma_module_t *module,
                                             ompi_osc_newrma_target_t *target)
{
    int x, y, total = ompi_osc_newrma_mbox_reap(module);

    do {
        x = ompi_osc_newrma_issue_ops_target(module, target, -1);
        if (x < 0) {
            return x;
        }
        y = ompi_osc_newrma_cleanup_target(module, target);
        if (y < 0) {
            return y;
        }
        total += x + y;
    } while (x + y != 0);
    return total;
}

/* The fence's collective completed: free it and, when it carried the
 * FENCE_DONE counts, learn how many are owed to me. */
static int fence_req_finish(ompi_osc_newrma_module_t *module)
{
    int ret = ompi_request_free(&module->fence_req);

    module->fence_req = NULL;
    if (NULL != module->fence.received) {
        for (int i = 0; i < module->fence.received_len; ++i) {
            module->fence.owed += module->fence.received[i];
        }
        free(module->fence.received);
        free(module->fence.sent);
        module->fence.received = NULL;
        module->fence.sent = NULL;
    }
    return ret;
}

/* FENCE_ISSUED -> FENCE_GRANTED once the collective of fence_req completed
 * and every FENCE_DONE it announced has been counted (its packets are
 * applied). */
static int fence_req_check(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_win_state_t next;
    int ret, progressed = 0;

    if (NULL != module->fence_req) {
        if (!REQUEST_COMPLETE(module->fence_req)) {
            return 0;
        }
        ret = fence_req_finish(module);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
        progressed = 1;
    } else if (0 == module->fence.owed) {
        return 0;
    }
    if (module->fence.owed > 0) {
        if (!ompi_osc_newrma_fence_dones_take(module, module->fence.owed_parity,
                                              module->fence.owed)) {
            return progressed;
        }
        module->fence.owed = 0;
    }
    /* done: what peers sent of the next epoch meanwhile is handled now */
    ompi_osc_newrma_pkt_epoch_done(module);
    if (OMPI_OSC_NEWRMA_WIN_FENCE_ISSUED == module->win_state &&
        OMPI_SUCCESS == ompi_osc_newrma_win_state_next(
                            module->win_state, OMPI_OSC_NEWRMA_EV_FENCE_IBARRIER_DONE, &next)) {
        module->win_state = next;
        opal_atomic_mb(); /* MEM_SYNC after PROC_SYNC */
    }
    return 1;
}

/* MAKE_RMA_PROGRESS_WIN; with @p send false the round's aggregated messages
 * stay open (a FLUSH_LOCAL: their packets need no sending to be complete
 * locally). */
static int win_round(ompi_osc_newrma_module_t *module, bool send)
{
    int x, y, total;

    total = fence_req_check(module);
    if (total >= 0 && module->mbox_pending > 0) {
        total += ompi_osc_newrma_mbox_reap(module);
    }
    if (total >= 0) {
        x = ompi_osc_newrma_pscw_progress(module);
        total = x < 0 ? x : total + x;
    }
    if (total < 0) {
        return total;
    }
    do {
        x = ompi_osc_newrma_issue_ops_win(module);
        if (x < 0) {
            return x;
        }
        y = ompi_osc_newrma_cleanup_win(module);
        if (y < 0) {
            return y;
        }
        total += x + y;
    } while (x + y != 0);
    if (!send) {
        return total;
    }
    /* what this round aggregated goes out now: someone may wait on it */
    x = ompi_osc_newrma_pkt_batch_flush_all(module);
    return OMPI_SUCCESS != x ? x : total;
}

int ompi_osc_newrma_make_rma_progress_win(ompi_osc_newrma_module_t *module)
{
    return win_round(module, true);
}

static int win_round_held(ompi_osc_newrma_module_t *module)
{
    return win_round(module, false);
}

/* Nothing for a progress round of @p module to do: no target element, no
 * fence or PSCW opening under way, no mailbox answer awaited.  Read
 * without the window's lock, as a hint: what its owner adds meanwhile, its
 * own calls and waits progress, and the next round sees. */
static bool win_idle(ompi_osc_newrma_module_t *module)
{
    return opal_list_is_empty(&module->table.targets) && NULL == module->fence_req &&
           0 == module->fence.owed && 0 == module->mbox_pending &&
           OMPI_OSC_NEWRMA_WIN_PSCW_ISSUED != module->win_state;
}

int ompi_osc_newrma_make_rma_progress_global(void)
{
    ompi_osc_newrma_module_t *module;
    opal_list_item_t *item;
    int total = 0, ret;

    /* the list changes only in MPI calls: without MPI threads, none runs
     * beside this walk (the async progress thread only reads it) */
    ompi_osc_newrma_mutex_lock_mt(&component.windows_lock, OMPI_OSC_NEWRMA_MUTEX_WINDOWS);
    OPAL_LIST_FOREACH(item, &component.windows, opal_list_item_t)
    {
        module = ompi_osc_newrma_window_of(item);
        /* a window whose lock is taken is being progressed by its owner */
        if (!win_idle(module) && ompi_osc_newrma_module_trylock(module)) {
            if (module->ready) {
                ret = ompi_osc_newrma_make_rma_progress_win(module);
                total += ret > 0 ? ret : 0;
            }
            ompi_osc_newrma_module_unlock(module);
        }
    }
    ompi_osc_newrma_mutex_unlock_mt(&component.windows_lock, OMPI_OSC_NEWRMA_MUTEX_WINDOWS);
    return total;
}

static bool resource_available(ompi_osc_newrma_module_t *module,
                               ompi_osc_newrma_resource_t resource)
{
    if (OMPI_OSC_NEWRMA_RESOURCE_OP == resource) {
        return ompi_osc_newrma_pool_available(&module->op_pool) > 0 ||
               ompi_osc_newrma_pool_available(&component.op_global_pool) > 0;
    }
    return ompi_osc_newrma_pool_available(&module->target_pool) > 0 ||
           ompi_osc_newrma_pool_available(&component.target_global_pool) > 0;
}

typedef struct {
    ompi_osc_newrma_resource_t resource;
    ompi_osc_newrma_win_state_t issued_state;
    int rounds;
} aggressive_wait_t;

/* Some element of the table is on its way back to the pools: a target
 * element flagged for release, or op elements whose target is flushing. */
static bool release_under_way(ompi_osc_newrma_module_t *module, ompi_osc_newrma_resource_t resource)
{
    ompi_osc_newrma_target_t *target;

    for (target = ompi_osc_newrma_optable_first(&module->table); NULL != target;
         target = ompi_osc_newrma_optable_next(&module->table, target)) {
        bool returning = OMPI_OSC_NEWRMA_RESOURCE_TARGET == resource
                             ? target->release_when_done
                             : OMPI_OSC_NEWRMA_SYNC_NONE != target->sync_flag &&
                                   !opal_list_is_empty(&target->ops);

        if (returning) {
            return true;
        }
    }
    return false;
}

/* With threads, another caller may take the element this one freed while
 * the window lock was dropped: once nothing is on its way back (after one
 * turn of progress), return so that the caller picks again. */
static bool aggressive_resource_ready(ompi_osc_newrma_module_t *module, void *arg)
{
    aggressive_wait_t *wait = arg;

    if (resource_available(module, wait->resource)) {
        return true;
    }
    return wait->rounds++ > 0 && !release_under_way(module, wait->resource);
}

static bool aggressive_granted_or_ready(ompi_osc_newrma_module_t *module, void *arg)
{
    aggressive_wait_t *wait = arg;

    return module->win_state != wait->issued_state || resource_available(module, wait->resource);
}

/* Pick target element K whose completion frees the resource: for op
 * elements one that holds ops, for target elements any.  In passive target
 * prefer LOCK_GRANTED, then LOCK_ISSUED, then LOCK_CALLED. */
static ompi_osc_newrma_target_t *aggressive_pick(ompi_osc_newrma_module_t *module,
                                                 ompi_osc_newrma_resource_t resource)
{
    ompi_osc_newrma_target_t *target, *best = NULL;

    for (target = ompi_osc_newrma_optable_first(&module->table); NULL != target;
         target = ompi_osc_newrma_optable_next(&module->table, target)) {
        if (OMPI_OSC_NEWRMA_RESOURCE_OP == resource && opal_list_is_empty(&target->ops)) {
            continue;
        }
        if (OMPI_OSC_NEWRMA_RESOURCE_TARGET == resource && target->release_when_done) {
            continue; /* already on its way back */
        }
        if (NULL == best || target->lock_state > best->lock_state) {
            best = target;
        }
    }
    return best;
}

/* Passive target: FLUSH_LOCAL frees op elements; target elements come back
 * only once flushed (their RMA_DONE_ACK is what the next FLUSH counts). */
static int aggressive_passive(ompi_osc_newrma_module_t *module, ompi_osc_newrma_resource_t resource)
{
    ompi_osc_newrma_target_t *target = aggressive_pick(module, resource);
    ompi_osc_newrma_sync_flag_t flag = OMPI_OSC_NEWRMA_RESOURCE_OP == resource
                                           ? OMPI_OSC_NEWRMA_SYNC_FLUSH_LOCAL
                                           : OMPI_OSC_NEWRMA_SYNC_FLUSH;
    int ret;

    if (NULL == target) {
        return OMPI_SUCCESS;
    }
    if (OMPI_OSC_NEWRMA_LOCK_CALLED == target->lock_state) {
        /* lock epochs keep it until its lock is held: the element is where
         * its place in MPI_Win_lock order is kept, and a later lock taken
         * before it could deadlock */
        if (opal_list_is_empty(&target->ops) &&
            OMPI_OSC_NEWRMA_WIN_PER_TARGET != module->win_state) {
            /* nothing was ever sent for it: give it back as it is; it is
             * recreated in LOCK_CALLED (its peer entry was never granted) */
            ompi_osc_newrma_pkt_target_release(module, target);
            return OMPI_SUCCESS;
        }
        /* the single-op optimization gives way to freeing resources */
        ret = ompi_osc_newrma_passive_issue_lock(module, target);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
    }
    if (target->sync_flag < flag) {
        target->sync_flag = flag;
    }
    if (OMPI_OSC_NEWRMA_RESOURCE_TARGET == resource) {
        target->release_when_done = true;
    }
    return OMPI_SUCCESS;
}

int ompi_osc_newrma_cleanup_win_aggressive(ompi_osc_newrma_module_t *module,
                                           ompi_osc_newrma_resource_t resource)
{
    aggressive_wait_t wait = {resource, module->win_state, 0};
    ompi_osc_newrma_target_t *target;
    int ret;

    OMPI_OSC_NEWRMA_STAT_ADD(module, AGGRESSIVE_CLEANUPS, 1);
    switch (module->win_state) {
        case OMPI_OSC_NEWRMA_WIN_FENCE_ISSUED:
        case OMPI_OSC_NEWRMA_WIN_PSCW_ISSUED:
        case OMPI_OSC_NEWRMA_WIN_LOCK_ALL_ISSUED:
            /* queued ops cannot go out before the epoch is granted */
            ret = ompi_osc_newrma_progress_wait(module, aggressive_granted_or_ready, &wait);
            if (OMPI_SUCCESS != ret || resource_available(module, resource)) {
                return ret;
            }
            /* granted now: free an element as in the granted states */
            break;
        case OMPI_OSC_NEWRMA_WIN_NONE:
            return resource_available(module, resource) ? OMPI_SUCCESS : OMPI_ERR_OUT_OF_RESOURCE;
        default:
            break;
    }
    switch (module->win_state) {
        case OMPI_OSC_NEWRMA_WIN_FENCE_GRANTED:
        case OMPI_OSC_NEWRMA_WIN_PSCW_GRANTED:
            /* active target: FLUSH_LOCAL is enough, RMA_DONEs are counted
             * in the window's ack_counter and awaited at closing */
            target = aggressive_pick(module, resource);
            if (NULL == target) {
                break;
            }
            if (target->sync_flag < OMPI_OSC_NEWRMA_SYNC_FLUSH_LOCAL) {
                target->sync_flag = OMPI_OSC_NEWRMA_SYNC_FLUSH_LOCAL;
            }
            break;
        case OMPI_OSC_NEWRMA_WIN_PER_TARGET:
        case OMPI_OSC_NEWRMA_WIN_LOCK_ALL_CALLED:
        case OMPI_OSC_NEWRMA_WIN_LOCK_ALL_GRANTED:
            ret = aggressive_passive(module, resource);
            if (OMPI_SUCCESS != ret) {
                return ret;
            }
            break;
        default:
            break;
    }
    return ompi_osc_newrma_progress_wait(module, aggressive_resource_ready, &wait);
}

bool ompi_osc_newrma_table_empty(ompi_osc_newrma_module_t *module, void *arg)
{
    (void) arg;
    return 0 == module->table.num_targets;
}

/* ---- mailboxes: the agent applies what node-local origins posted ---- */

/* A segment's mailbox (seg_share_from) carries only large copies, which their
 * origins start by themselves: a look every this many rounds is soon
 * enough for them, where a look at every round of progress, over the
 * many windows Global Arrays makes (one per array), took NWChem's H2O
 * CCSD from 0.89 to 0.94 s. */
#define OMPI_OSC_NEWRMA_SEG_POLL_EVERY 16

/* The agent's list @p module's mailbox is polled in (its count *@p n_p):
 * a segment's, which carries shared copies alone, has its own. */
static ompi_osc_newrma_module_t **mbox_list(const ompi_osc_newrma_module_t *module, int **n_p)
{
    *n_p = module->mbox_ok ? &component.mbox_nwindows : &component.seg_nwindows;
    return module->mbox_ok ? component.mbox_windows : component.seg_windows;
}

void ompi_osc_newrma_agent_mbox_open(ompi_osc_newrma_module_t *module)
{
    int *n;
    ompi_osc_newrma_module_t **list = mbox_list(module, &n);

    if ((!module->mbox_ok && SIZE_MAX == module->seg_share_from) || component.async_progress ||
        *n >= OMPI_OSC_NEWRMA_MBOX_WINDOWS) {
        return; /* a progress thread sleeps in the kernel: it would not see them */
    }
    list[(*n)++] = module;
    module->mbox_polled = true;
    ompi_osc_newrma_shm_mbox_open(module, true);
}

void ompi_osc_newrma_agent_mbox_close(ompi_osc_newrma_module_t *module)
{
    int *n;
    ompi_osc_newrma_module_t **list = mbox_list(module, &n);

    if (!module->mbox_polled) {
        return;
    }
    ompi_osc_newrma_shm_mbox_open(module, false);
    module->mbox_polled = false;
    for (int i = 0; i < *n; ++i) {
        if (list[i] == module) {
            list[i] = list[--(*n)];
            break;
        }
    }
}

/* By the holder of progress_busy only, which keeps the table still. */
static int agent_mbox_poll(void)
{
    int applied = 0;

    for (int i = 0; i < component.mbox_nwindows; ++i) {
        applied +=
            ompi_osc_newrma_shm_mbox_poll(component.mbox_windows[i], ompi_osc_newrma_mbox_apply);
    }
    if (component.seg_nwindows > 0 &&
        0 == ++component.seg_poll_rounds % OMPI_OSC_NEWRMA_SEG_POLL_EVERY) {
        for (int i = 0; i < component.seg_nwindows; ++i) {
            applied +=
                ompi_osc_newrma_shm_mbox_poll(component.seg_windows[i], ompi_osc_newrma_mbox_apply);
        }
    }
    return applied;
}

/* The agent's share of progress: grant queued lock requests of every
 * window (a release by another process may have served their tickets). */
static int agent_lock_queues(void)
{
    opal_list_item_t *item;
    int total = 0;

    /* the common case, on every opal_progress: nobody waits for a lock */
    if (0 == component.lock_waiters) {
        return 0;
    }
    /* tried only: the agent also runs while an origin spinning on a lock
     * word holds its window's lock, and WINDOWS comes before WINDOW
     * (osc_newrma_base_mutex.h); a walk missed now is made on a later turn */
    if (!ompi_osc_newrma_mutex_trylock(&component.windows_lock, OMPI_OSC_NEWRMA_MUTEX_WINDOWS)) {
        return 0;
    }
    OPAL_LIST_FOREACH(item, &component.windows, opal_list_item_t)
    {
        total += ompi_osc_newrma_lock_queue_progress(ompi_osc_newrma_window_of(item));
    }
    ompi_osc_newrma_mutex_unlock(&component.windows_lock, OMPI_OSC_NEWRMA_MUTEX_WINDOWS);
    return total;
}

void ompi_osc_newrma_agent_acquire(void)
{
    int32_t idle = 0;

    while (!opal_atomic_compare_exchange_strong_32(&component.progress_busy, &idle, 1)) {
        idle = 0;
        sched_yield();
    }
}

void ompi_osc_newrma_agent_release(void)
{
    opal_atomic_wmb();
    component.progress_busy = 0;
}

/* Worker, inbox and lock queues, by one thread at a time: the opal_progress
 * callback and the async progress thread share it.  @return events, or -1
 * when another thread is at it. */
static int agent_progress(void)
{
    int32_t idle = 0;
    int count;

    /* one thread: the flag only stops a turn within a turn (a callback's
     * opal_progress), no atomic needed (the locked compare-exchange was 9%
     * of an idle target's time under a stream of GETs it serves) */
    if (!ompi_osc_newrma_threaded()) {
        if (0 != component.progress_busy) {
            return -1;
        }
        component.progress_busy = 1;
    } else if (!opal_atomic_compare_exchange_strong_32(&component.progress_busy, &idle, 1)) {
        return -1;
    }
    /* the mailboxes first: a poll of UCX's worker takes longer than the
     * slots' whole round trip */
    count = agent_mbox_poll();
    count += ompi_osc_newrma_ucx_progress();
    count += ompi_osc_newrma_pkt_process_inbox();
    count += agent_lock_queues();
    opal_atomic_wmb();
    component.progress_busy = 0;
    return count;
}

/* The MPI threads' agent rounds (the progress callback, waits, turns). */
int ompi_osc_newrma_agent_progress(void)
{
    if (component.progress_thread_running) {
        opal_atomic_add_fetch_32(&component.mpi_rounds, 1);
    }
    return agent_progress();
}

/* The wait service's agent turn (osc_newrma_base_wait.h). */
static void agent_turn(ompi_osc_newrma_module_t *module, bool due)
{
    /* my own mailbox first: a slot's CAS keeps it to one thread */
    if (module->mbox_polled) {
        (void) ompi_osc_newrma_shm_mbox_poll(module, ompi_osc_newrma_mbox_apply);
    }
    if (due || 0 != opal_list_get_size(&component.inbox)) {
        (void) ompi_osc_newrma_agent_progress();
    }
}

/* Node-local peers are looked at once per this many rounds of a wait that
 * has not ended (a few milliseconds): a system call per peer, only while
 * waiting. */
#define PROGRESS_LIVENESS_ROUNDS 4096

/* The wait service's peer check (osc_newrma_base_wait.h), asked only by a
 * wait whose condition does not hold.  A dead peer on another node is
 * reported by UCX (its error handler counts it: the window's ranks are
 * looked at after each new loss); node-local peers are looked up by
 * process id, once per PROGRESS_LIVENESS_ROUNDS rounds: those of the
 * segment from the segment, the others from their published addresses. */
static bool peer_lost(ompi_osc_newrma_module_t *module)
{
    int32_t losses = ompi_osc_newrma_ucx_losses();
    bool look = false;

    if (module->peer_lost) {
        return true;
    }
    if (losses != module->losses_seen) {
        module->losses_seen = losses;
        look = true;
    }
    if (0 == (++module->liveness_rounds % PROGRESS_LIVENESS_ROUNDS)) {
        look = true;
        module->peer_lost = module->shm.active && ompi_osc_newrma_shm_peer_lost(module);
    }
    for (int rank = 0; look && rank < module->comm_size && !module->peer_lost; ++rank) {
        module->peer_lost =
            rank != module->my_rank &&
            ompi_osc_newrma_ucx_proc_lost(ompi_comm_peer_lookup(module->comm, rank), true);
    }
    if (module->peer_lost) {
        OSC_NEWRMA_VERBOSE(1, "a peer of window %u died: its waits fail from now on", module->cid);
    }
    return module->peer_lost;
}

void ompi_osc_newrma_progress_register(void)
{
    const ompi_osc_newrma_engine_t engine = {
        .win_progress = ompi_osc_newrma_make_rma_progress_win,
        .win_progress_held = win_round_held,
        .agent_turn = agent_turn,
        .agent_backlog = &component.inbox.opal_list_length,
        .agent_round = ompi_osc_newrma_agent_progress,
        .issue_target = ompi_osc_newrma_issue_ops_target,
        .reclaim = ompi_osc_newrma_cleanup_win_aggressive,
        .peer_lost = peer_lost,
        .opal_every = component.wait_opal_every > 0 ? component.wait_opal_every : 1,
        .opal_every_agent =
            component.wait_opal_every_agent > 0 ? component.wait_opal_every_agent : 1,
    };

    ompi_osc_newrma_wait_register(&engine);
}

int ompi_osc_newrma_progress_cb(void)
{
    int count = ompi_osc_newrma_agent_progress();

    /* operation elements belong to the MPI threads (request completion) */
    return (count > 0 ? count : 0) + ompi_osc_newrma_make_rma_progress_global();
}

/* ---- async progress thread ---- */

/* Sleep in the kernel until the worker has an event (or a signal). */
static void progress_thread_sleep(int efd, int timeout_ms)
{
    struct pollfd pfd = {efd, POLLIN, 0};

    if (OMPI_SUCCESS == ompi_osc_newrma_ucx_arm()) {
        (void) poll(&pfd, 1, timeout_ms);
    }
}

/* The thread serves the agent only while no MPI call does: a rank that
 * calls MPI progresses it itself, and a wake-up per event took a core from
 * the spinning ranks and the agent from their waits (on 2 cores, TCP round
 * trips 2-7 times their time, a fence 1-2 ms, NWChem's CCSD 25 times its
 * time).  So after any round of the MPI threads it naps a millisecond
 * without the event fd, and sleeps on the fd once a nap saw none. */
static void *progress_thread_main(opal_object_t *obj)
{
    int efd = *(int *) ((opal_thread_t *) obj)->t_arg, count;
    int32_t seen = component.mpi_rounds;

    while (!component.progress_thread_stop) {
        if (seen != component.mpi_rounds) {
            seen = component.mpi_rounds;
            (void) poll(NULL, 0, 1);
            continue;
        }
        count = agent_progress();
        if (count > 0) {
            continue;
        }
        /* -1: an MPI call is progressing right now; look again soon */
        progress_thread_sleep(efd, count < 0 ? 1 : -1);
    }
    return NULL;
}

int ompi_osc_newrma_progress_thread_start(void)
{
    int ret;

    if (component.progress_thread_running) {
        return OMPI_SUCCESS;
    }
    ret = ompi_osc_newrma_ucx_efd(&component.progress_thread_efd);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    component.progress_thread_stop = false;
    OBJ_CONSTRUCT(&component.progress_thread, opal_thread_t);
    component.progress_thread.t_run = progress_thread_main;
    component.progress_thread.t_arg = &component.progress_thread_efd;
    ret = opal_thread_start(&component.progress_thread);
    if (OPAL_SUCCESS != ret) {
        OBJ_DESTRUCT(&component.progress_thread);
        opal_output(0, "osc/newrma: cannot start the async progress thread");
        return ret;
    }
    component.progress_thread_running = true;
    OSC_NEWRMA_VERBOSE(10, "async progress thread started (UCX event fd %d)",
                       component.progress_thread_efd);
    return OMPI_SUCCESS;
}

void ompi_osc_newrma_progress_thread_stop(void)
{
    if (!component.progress_thread_running) {
        return;
    }
    component.progress_thread_stop = true;
    opal_atomic_wmb();
    ompi_osc_newrma_ucx_signal();
    (void) opal_thread_join(&component.progress_thread, NULL);
    OBJ_DESTRUCT(&component.progress_thread);
    component.progress_thread_running = false;
}
