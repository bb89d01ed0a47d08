/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: passive target synchronization at the origin (design:
 * "Algorithm For LOCK-UNLOCK", "Algorithm For LOCK_ALL-UNLOCK_ALL",
 * "Algorithm For FLUSH", "Performance optimizations").
 *
 * A target reached with loads and stores (myself, and node-local peers
 * through the shared segment) is locked synchronously on its lock word.
 * Any other target gets a target element whose per-target state moves
 * LOCK_CALLED -> LOCK_ISSUED -> LOCK_GRANTED:
 *   - LOCK_CALLED sends nothing.  An epoch that stays empty costs no
 *     message at all; an epoch of one short operation of a basic datatype
 *     is sent at UNLOCK as LOCK + op + UNLOCK in one packet.
 *   - Anything else sends the LOCK request (LOCK_ISSUED); operations queue
 *     until LOCK_GRANTED and then go out as RDMA.
 *   - Locks are used in MPI_Win_lock order, as blocking locks would be
 *     taken; the requests of several targets still travel at once, as tries
 *     (passive_issue_locks).
 *   - Closing sends RMA_DONE + UNLOCK behind the last operation (after the
 *     endpoint flush that completes RDMA writes) and waits for its one
 *     acknowledgement.
 * What this process holds is recorded in its peer entry (lock_type,
 * lock_granted), so a reclaimed target element is recreated in
 * LOCK_GRANTED and UNLOCK still knows whether a lock must be released.
 */
#include "ompi_config.h"

#include "ompi/datatype/ompi_datatype.h"

#include "osc_newrma.h"
#include "osc_newrma_base_acc.h"
#include "osc_newrma_origin_acc.h"
#include "osc_newrma_base_dtype.h"
#include "osc_newrma_base_element.h"
#include "osc_newrma_target_lock.h"
#include "osc_newrma_origin_passive.h"
#include "osc_newrma_origin_mbox.h"
#include "osc_newrma_am_pkt.h"
#include "osc_newrma_am_data.h"
#include "osc_newrma_am_lock.h"
#include "osc_newrma_base_state.h"
#include "osc_newrma_transport_ucx.h"
#include "osc_newrma_base_wait.h"

#define component mca_osc_newrma_component

/** Window-protocol LOCK requests in flight at a time (LOCK_ALL fallback). */
#define OMPI_OSC_NEWRMA_LOCK_ALL_BATCH 16

/* @p rank's entry takes part in a passive epoch (lock held or requested):
 * it joins the entries that UNLOCK_ALL releases. */
static void passive_peer_lock(ompi_osc_newrma_module_t *module, ompi_osc_newrma_peer_t *peer,
                              int lock_type)
{
    if (0 == peer->lock_type) {
        opal_list_append(&module->locked_peers, &peer->locked_item);
    }
    peer->lock_type = lock_type;
}

/* MPI_Win_lock's bookkeeping for @p peer (not yet locked): it joins the
 * locked peers, in call order, with its assert. */
static void passive_lock_begin(ompi_osc_newrma_module_t *module, ompi_osc_newrma_peer_t *peer,
                               int lock_type, int mpi_assert)
{
    passive_peer_lock(module, peer, lock_type);
    peer->lock_nocheck = 0 != (mpi_assert & MPI_MODE_NOCHECK);
    peer->lock_seq = ++module->lock_seq;
    module->lock_count++;
}

static ompi_osc_newrma_peer_t *passive_peer_of(opal_list_item_t *item)
{
    return (ompi_osc_newrma_peer_t *) ((char *) item -
                                       offsetof(ompi_osc_newrma_peer_t, locked_item));
}

static bool passive_nocheck(ompi_osc_newrma_module_t *module, int rank)
{
    return ompi_osc_newrma_peer(module, rank)->lock_nocheck ||
           (module->lock_all_nocheck && OMPI_OSC_NEWRMA_WIN_PER_TARGET != module->win_state);
}

/* The largest single op to @p rank: over TCP (RDMA emulated by UCX) a
 * round trip costs more than the copies of a larger message. */
static size_t passive_single_threshold(ompi_osc_newrma_module_t *module, int rank)
{
    const ompi_osc_newrma_peer_t *peer = ompi_osc_newrma_peer(module, rank);

    return NULL != peer->ep && !peer->rdma_native ? module->config.single_op_emulated_threshold
                                                  : module->config.single_op_threshold;
}

bool ompi_osc_newrma_op_single_eligible(ompi_osc_newrma_module_t *module,
                                        const ompi_osc_newrma_target_t *target,
                                        ompi_osc_newrma_op_t *op)
{
    ptrdiff_t ooff, toff;

    /* one contiguous block on both sides (predefined pair types are not) */
    return NULL == op->request && op->bytes <= passive_single_threshold(module, target->rank) &&
           (NULL == op->origin_dt || /* MPI_NO_OP: no origin data */
            (ompi_datatype_is_predefined(op->origin_dt) &&
             ompi_osc_newrma_dtype_contig(op->origin_dt, op->origin_count, &ooff))) &&
           ompi_datatype_is_predefined(op->target_dt) &&
           ompi_osc_newrma_dtype_contig(op->target_dt, op->target_count, &toff) && 0 == toff;
}

static int passive_send_lock(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                             bool try)
{
    int ret = ompi_osc_newrma_pkt_lock(module, target->rank, target->lock_type, target, try);

    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    target->lock_state = OMPI_OSC_NEWRMA_LOCK_ISSUED;
    target->lock_wanted = false;
    if (OMPI_OSC_NEWRMA_WIN_PER_TARGET != module->win_state) {
        return OMPI_SUCCESS;
    }
    if (try) {
        target->lock_try = true;
        module->lock_tries++;
        OMPI_OSC_NEWRMA_STAT_ADD(module, LOCK_TRIES, 1);
    } else {
        target->lock_counted = true;
        module->lock_requests++;
    }
    return OMPI_SUCCESS;
}

static int passive_seq(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target)
{
    return ompi_osc_newrma_peer(module, target->rank)->lock_seq;
}

/* Its lock may still be requested: LOCK_CALLED, and not an empty epoch
 * that closed without a message (its element goes without waiting for an
 * answer). */
static bool passive_unrequested(ompi_osc_newrma_target_t *target)
{
    return OMPI_OSC_NEWRMA_LOCK_CALLED == target->lock_state && !target->unlock_sent;
}

/** The elements whose locks are still unrequested, in one scan. */
typedef struct {
    /** the one locked first (MPI_Win_lock order), or NULL */
    ompi_osc_newrma_target_t *first;
    /** how many there are */
    int count;
    /** the latest lock_seq among those that need their lock (0: none) */
    int max_wanted_seq;
} passive_unrequested_t;

static void passive_scan_unrequested(ompi_osc_newrma_module_t *module, passive_unrequested_t *scan)
{
    ompi_osc_newrma_target_t *target;
    int seq;

    *scan = (passive_unrequested_t){NULL, 0, 0};
    for (target = ompi_osc_newrma_optable_first(&module->table); NULL != target;
         target = ompi_osc_newrma_optable_next(&module->table, target)) {
        if (!passive_unrequested(target)) {
            continue;
        }
        seq = passive_seq(module, target);
        scan->count++;
        if (target->lock_wanted && seq > scan->max_wanted_seq) {
            scan->max_wanted_seq = seq;
        }
        if (NULL == scan->first || seq < passive_seq(module, scan->first)) {
            scan->first = target;
        }
    }
}

/* Locks called later wait for this one: it is not held (an empty epoch
 * closed without a message holds nothing and needs nothing). */
static bool passive_blocks_later(ompi_osc_newrma_target_t *target)
{
    return OMPI_OSC_NEWRMA_LOCK_ISSUED == target->lock_state || passive_unrequested(target);
}

/* Its lock will be held without waiting in a queue: a try whose answer is
 * not a refusal, or a grant that has arrived. */
static bool passive_settling(ompi_osc_newrma_target_t *target)
{
    if (OMPI_OSC_NEWRMA_LOCK_ISSUED != target->lock_state) {
        return false;
    }
    return target->lock_try
               ? OMPI_OSC_NEWRMA_LOCK_REPLY_REFUSED != target->lock_reply
               : OMPI_OSC_NEWRMA_LOCK_REPLY_NONE != target->lock_reply && !target->unlock_sent;
}

typedef enum {
    PASSIVE_EARLIER_HELD,     /* every lock called before is held */
    PASSIVE_EARLIER_SETTLING, /* some are still tries in flight or grants to apply */
    PASSIVE_EARLIER_WAITING   /* some wait in a queue, or will have to */
} passive_earlier_t;

static passive_earlier_t passive_earlier(ompi_osc_newrma_module_t *module,
                                         ompi_osc_newrma_target_t *target)
{
    passive_earlier_t state = PASSIVE_EARLIER_HELD;
    int seq = passive_seq(module, target);
    ompi_osc_newrma_target_t *other;

    for (other = ompi_osc_newrma_optable_first(&module->table); NULL != other;
         other = ompi_osc_newrma_optable_next(&module->table, other)) {
        if (passive_seq(module, other) >= seq || !passive_blocks_later(other)) {
            continue;
        }
        if (!passive_settling(other)) {
            return PASSIVE_EARLIER_WAITING;
        }
        state = PASSIVE_EARLIER_SETTLING;
    }
    return state;
}

/* Lock epochs request their locks lazily and use them in the order
 * MPI_Win_lock was called, as blocking locks would be taken: otherwise two
 * origins locking the same targets in the same order could each hold one
 * and wait for the other's on the targets' fair queues.
 *
 * One request may wait in a target's queue at a time, for the first lock
 * not held, while only earlier locks are held.  The others go at once as
 * tries, which a target grants only if its lock is free and otherwise
 * refuses; a tried lock is used once the locks before it are held, and
 * given back (passive_try_settle) if one of those must wait in a queue.
 * So no process waits in a queue while holding a later lock, and an epoch
 * to several free targets takes one round trip instead of one each. */
static int passive_issue_locks(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_target_t *first, *target;
    passive_unrequested_t scan;
    int ret;

    if (0 != module->lock_requests) {
        return OMPI_SUCCESS; /* later locks wait behind the queued request */
    }
    passive_scan_unrequested(module, &scan);
    first = scan.first;
    if (0 == scan.max_wanted_seq) {
        return OMPI_SUCCESS; /* none needs its lock yet */
    }
    /* the only lock of the epoch not requested yet, or refused before: a
     * try would only add a round trip.  With other targets locked, even
     * the first request is a try, so that theirs need not wait for it. */
    if (!module->config.lock_parallel ||
        (PASSIVE_EARLIER_HELD == passive_earlier(module, first) &&
         (first->lock_refused || (1 == scan.count && 0 == module->lock_tries)))) {
        return passive_send_lock(module, first, false);
    }
    for (target = ompi_osc_newrma_optable_first(&module->table); NULL != target;
         target = ompi_osc_newrma_optable_next(&module->table, target)) {
        /* a refused lock waits until it is the first one not held */
        if (!passive_unrequested(target) || target->lock_refused ||
            passive_seq(module, target) > scan.max_wanted_seq) {
            continue;
        }
        ret = passive_send_lock(module, target, true);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
    }
    return OMPI_SUCCESS;
}

int ompi_osc_newrma_passive_issue_lock(ompi_osc_newrma_module_t *module,
                                       ompi_osc_newrma_target_t *target)
{
    if (OMPI_OSC_NEWRMA_WIN_PER_TARGET != module->win_state) {
        return passive_send_lock(module, target, false); /* LOCK_ALL: all in parallel */
    }
    target->lock_wanted = true;
    return passive_issue_locks(module);
}

/* A single op may travel now only if it is next in MPI_Win_lock order. */
static bool passive_single_may_go(ompi_osc_newrma_module_t *module,
                                  ompi_osc_newrma_target_t *target)
{
    passive_unrequested_t scan;

    if (OMPI_OSC_NEWRMA_WIN_PER_TARGET != module->win_state) {
        return true;
    }
    passive_scan_unrequested(module, &scan);
    return 0 == module->lock_requests && 0 == module->lock_tries && target == scan.first;
}

/* Before blocking on a lock word (myself or a node-local peer), take the
 * remote locks called earlier, in order. */
static bool passive_called_done(ompi_osc_newrma_module_t *module, void *arg)
{
    passive_unrequested_t scan;

    (void) arg;
    passive_scan_unrequested(module, &scan);
    return NULL == scan.first && 0 == module->lock_requests && 0 == module->lock_tries;
}

static int passive_take_earlier_locks(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_target_t *target;
    int ret;

    if (passive_called_done(module, NULL)) {
        return OMPI_SUCCESS; /* no earlier lock waits (one lock at a time): no progress round */
    }
    for (target = ompi_osc_newrma_optable_first(&module->table); NULL != target;
         target = ompi_osc_newrma_optable_next(&module->table, target)) {
        target->lock_wanted =
            target->lock_wanted || OMPI_OSC_NEWRMA_LOCK_CALLED == target->lock_state;
    }
    ret = passive_issue_locks(module);
    return OMPI_SUCCESS != ret ? ret
                               : ompi_osc_newrma_progress_wait(module, passive_called_done, NULL);
}

/* The try of @p target is settled: it is no longer counted. */
static void passive_try_done(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target)
{
    target->lock_try = false;
    target->lock_reply = OMPI_OSC_NEWRMA_LOCK_REPLY_NONE;
    module->lock_tries--;
}

/* Back to LOCK_CALLED, still wanted: refused, or given back. */
static int passive_try_back_off(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                                bool refused)
{
    int ret = OMPI_SUCCESS;

    if (!refused) {
        /* nothing was issued under it: an UNLOCK without operations */
        ret = ompi_osc_newrma_pkt_unlock(module, target->rank, target->lock_type, target);
    }
    passive_try_done(module, target);
    target->lock_state = OMPI_OSC_NEWRMA_LOCK_CALLED;
    target->lock_wanted = true;
    target->lock_refused = target->lock_refused || refused;
    OMPI_OSC_NEWRMA_STAT_ADD(module, LOCK_TRY_BACKOFFS, 1);
    OSC_NEWRMA_VERBOSE(50, "rank %d window %u: tried lock of rank %d %s", module->my_rank,
                       module->cid, target->rank, refused ? "refused" : "given back");
    return OMPI_SUCCESS != ret ? ret : passive_issue_locks(module);
}

/* A try's answer (see passive_issue_locks).  @return 1: the lock is
 * granted and may be used now, 0: not (yet), or an error. */
static int passive_try_settle(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target)
{
    if (OMPI_OSC_NEWRMA_LOCK_REPLY_REFUSED == target->lock_reply) {
        return passive_try_back_off(module, target, true);
    }
    switch (passive_earlier(module, target)) {
        case PASSIVE_EARLIER_HELD:
            passive_try_done(module, target);
            return 1;
        case PASSIVE_EARLIER_SETTLING:
            return 0; /* held a moment longer: the earlier answers are coming */
        default:
            /* holding it while an earlier lock waits in a queue could close
             * a wait cycle with an origin that holds that one */
            return passive_try_back_off(module, target, false);
    }
}

static void passive_resend_single(ompi_osc_newrma_module_t *module,
                                  ompi_osc_newrma_target_t *target)
{
    ompi_osc_newrma_op_t *op = (ompi_osc_newrma_op_t *) opal_list_get_first(&target->ops);

    OMPI_OSC_NEWRMA_STAT_ADD(module, SINGLE_OP_RESENT, 1);
    /* the single op's data was not kept while it waited: the lock is ours
     * now, send the operation again the ordinary way */
    op->issued = false;
    op->outstanding = 0;
    target->next_op_to_issue = op;
    target->unlock_sent = false;
    opal_atomic_add_fetch_32(&target->ack_counter, -1);
}

static int passive_issued_update(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target)
{
    int ret;

    if (OMPI_OSC_NEWRMA_LOCK_REPLY_NONE == target->lock_reply) {
        return OMPI_SUCCESS;
    }
    opal_atomic_rmb();
    if (target->lock_try) {
        ret = passive_try_settle(module, target);
        if (ret <= 0) {
            return ret;
        }
    } else if (OMPI_OSC_NEWRMA_LOCK_REPLY_RESEND == target->lock_reply) {
        passive_resend_single(module, target);
    }
    target->lock_reply = OMPI_OSC_NEWRMA_LOCK_REPLY_NONE;
    target->lock_state = OMPI_OSC_NEWRMA_LOCK_GRANTED;
    target->lock_refused = false;
    ompi_osc_newrma_peer(module, target->rank)->lock_granted = true;
    if (target->lock_counted) {
        target->lock_counted = false;
        module->lock_requests--;
    }
    /* the next locks in MPI_Win_lock order may go now */
    return OMPI_OSC_NEWRMA_WIN_PER_TARGET == module->win_state ? passive_issue_locks(module)
                                                               : OMPI_SUCCESS;
}

int ompi_osc_newrma_passive_update(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_target_t *target)
{
    switch (target->lock_state) {
        case OMPI_OSC_NEWRMA_LOCK_ISSUED:
            return passive_issued_update(module, target);
        case OMPI_OSC_NEWRMA_LOCK_CALLED:
            /* a refused lock is requested again when its turn comes, which
             * may be the end of an epoch that sent no grant (a single op) */
            return target->lock_refused && target->lock_wanted &&
                           OMPI_OSC_NEWRMA_WIN_PER_TARGET == module->win_state
                       ? passive_issue_locks(module)
                       : OMPI_SUCCESS;
        default:
            return OMPI_SUCCESS;
    }
}

/* Nothing of the epoch is left to complete at the target: every op has
 * completed there (answered, or RDMA writes flushed on the endpoint) and
 * no packet awaits an RMA_DONE (a flush had them all acknowledged). */
static bool passive_owes_nothing(ompi_osc_newrma_target_t *target)
{
    return 0 == target->ack_counter && 0 == target->am_sent && 0 == target->batch.count &&
           opal_list_is_empty(&target->ops);
}

/* The RMA_DONE + UNLOCK step of ISSUE_OPS_TARGET, once every op is out. */
int ompi_osc_newrma_passive_send_unlock(ompi_osc_newrma_module_t *module,
                                        ompi_osc_newrma_target_t *target)
{
    ompi_osc_newrma_peer_t *peer = ompi_osc_newrma_peer(module, target->rank);
    int ret;

    if (target->unlock_sent) {
        return OMPI_SUCCESS;
    }
    if (target->needs_rma_done) {
        /* RDMA writes must be complete at the target before it releases */
        target->needs_rma_done = false;
        ret = ompi_osc_newrma_ucx_rma_done(peer->ep, &target->flush_pending);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
    }
    if (target->flush_pending > 0 || NULL != target->mbox_slot ||
        ompi_osc_newrma_target_rdma_reading(target)) {
        return OMPI_SUCCESS; /* the next round sends the UNLOCK */
    }
    if (passive_nocheck(module, target->rank) || NULL != peer->lock) {
        /* no lock to release by message (none, or a lock word the caller
         * releases once this is done): RMA_DONE only where packets need it */
        ret = target->am_sent > 0
                  ? ompi_osc_newrma_pkt_rma_done(module, target, &target->ack_counter)
                  : OMPI_SUCCESS;
    } else if (passive_owes_nothing(target)) {
        /* only the release is left, which nothing the MPI standard lets a
         * process observe has to wait for: MPI_Win_unlock does not wait for
         * its answer.  The window counts it, so MPI_Win_free, a fence or a
         * flush_all waits for it; a next LOCK to the same target travels
         * behind it on the endpoint. */
        ret = ompi_osc_newrma_pkt_unlock(module, target->rank, target->lock_type, NULL);
    } else {
        ret = ompi_osc_newrma_pkt_unlock(module, target->rank, target->lock_type, target);
    }
    if (OMPI_SUCCESS == ret) {
        target->unlock_sent = true;
    }
    return ret;
}

/* ---- target elements in passive epochs ---- */

static void passive_target_init(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target)
{
    ompi_osc_newrma_peer_t *peer = ompi_osc_newrma_peer(module, target->rank);

    target->lock_type = peer->lock_type ? peer->lock_type : MPI_LOCK_SHARED;
    target->lock_mode = peer->lock_nocheck ? MPI_MODE_NOCHECK : 0;
    /* recreated after it was reclaimed: the lock was granted before */
    target->lock_state = (peer->lock_granted || passive_nocheck(module, target->rank))
                             ? OMPI_OSC_NEWRMA_LOCK_GRANTED
                             : OMPI_OSC_NEWRMA_LOCK_CALLED;
}

/* LOCK_ALL_CALLED ran out of target elements: the window protocol.  Lock
 * every target not locked yet, a bounded number of requests at a time and
 * without allocating elements, then wait for every grant. */
static bool lock_all_below_batch(ompi_osc_newrma_module_t *module, void *arg)
{
    (void) arg;
    return module->lock_all_pending < OMPI_OSC_NEWRMA_LOCK_ALL_BATCH;
}

static bool lock_all_granted(ompi_osc_newrma_module_t *module, void *arg)
{
    ompi_osc_newrma_target_t *target;

    (void) arg;
    if (module->lock_all_pending > 0) {
        return false;
    }
    for (target = ompi_osc_newrma_optable_first(&module->table); NULL != target;
         target = ompi_osc_newrma_optable_next(&module->table, target)) {
        if (OMPI_OSC_NEWRMA_LOCK_GRANTED != target->lock_state) {
            return false;
        }
    }
    return true;
}

static int lock_all_fallback_peer(ompi_osc_newrma_module_t *module, int rank)
{
    ompi_osc_newrma_peer_t *peer = ompi_osc_newrma_peer(module, rank);
    int ret;

    if (NULL == peer) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    passive_peer_lock(module, peer, MPI_LOCK_SHARED);
    if (NULL != peer->lock) {
        peer->lock_granted = true;
        return ompi_osc_newrma_lock_direct_acquire(module, rank, MPI_LOCK_SHARED);
    }
    ret = ompi_osc_newrma_progress_wait(module, lock_all_below_batch, NULL);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    opal_atomic_add_fetch_32(&module->lock_all_pending, 1);
    ret = ompi_osc_newrma_pkt_lock(module, rank, MPI_LOCK_SHARED, NULL, false);
    if (OMPI_SUCCESS != ret) {
        opal_atomic_add_fetch_32(&module->lock_all_pending, -1);
        return ret;
    }
    peer->lock_granted = true; /* by the time LOCK_ALL_GRANTED is reached */
    return OMPI_SUCCESS;
}

static int lock_all_fallback(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_target_t *target;
    int ret;

    OSC_NEWRMA_VERBOSE(20,
                       "window %u: out of target elements, LOCK_ALL falls back to the window "
                       "protocol",
                       module->cid);
    ret = ompi_osc_newrma_win_state_move(module, OMPI_OSC_NEWRMA_EV_LOCK_ALL_FALLBACK);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    /* elements still holding back a single op need their lock now */
    for (target = ompi_osc_newrma_optable_first(&module->table); NULL != target;
         target = ompi_osc_newrma_optable_next(&module->table, target)) {
        if (OMPI_OSC_NEWRMA_LOCK_CALLED == target->lock_state) {
            ret = ompi_osc_newrma_passive_issue_lock(module, target);
            if (OMPI_SUCCESS != ret) {
                return ret;
            }
        }
    }
    /* the window protocol locks every rank: an entry each */
    for (int rank = 0; rank < module->comm_size; ++rank) {
        ompi_osc_newrma_peer_t *peer = ompi_osc_newrma_peer_find(module, rank);

        if (NULL == peer || 0 == peer->lock_type) {
            ret = lock_all_fallback_peer(module, rank);
            if (OMPI_SUCCESS != ret) {
                return ret;
            }
        }
    }
    ret = ompi_osc_newrma_progress_wait(module, lock_all_granted, NULL);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    return ompi_osc_newrma_win_state_move(module, OMPI_OSC_NEWRMA_EV_LOCK_ALL_GRANTED);
}

int ompi_osc_newrma_passive_target_get(ompi_osc_newrma_module_t *module, int rank,
                                       ompi_osc_newrma_target_t **target_p)
{
    ompi_osc_newrma_target_t *target = ompi_osc_newrma_optable_lookup(&module->table, rank);
    ompi_osc_newrma_peer_t *peer = ompi_osc_newrma_peer(module, rank);
    int ret;

    if (NULL != target) {
        *target_p = target;
        return OMPI_SUCCESS;
    }
    if (NULL == peer) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (OMPI_OSC_NEWRMA_WIN_LOCK_ALL_CALLED == module->win_state && 0 == peer->lock_type) {
        /* per-target protocol: only while elements last, since a freed
         * element would forget whether its lock was sent */
        ret = ompi_osc_newrma_target_try_get(module, rank, &target);
        if (OMPI_ERR_OUT_OF_RESOURCE == ret) {
            ret = lock_all_fallback(module);
            if (OMPI_SUCCESS != ret) {
                return ret;
            }
            return ompi_osc_newrma_passive_target_get(module, rank, target_p);
        }
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
        passive_peer_lock(module, peer, MPI_LOCK_SHARED);
    } else {
        ret = ompi_osc_newrma_target_get(module, rank, &target);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
    }
    passive_target_init(module, target);
    *target_p = target;
    return OMPI_SUCCESS;
}

int ompi_osc_newrma_passive_check_target(ompi_osc_newrma_module_t *module, int rank)
{
    ompi_osc_newrma_peer_t *peer = ompi_osc_newrma_peer(module, rank);

    if (NULL == peer) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    switch (module->win_state) {
        case OMPI_OSC_NEWRMA_WIN_PER_TARGET:
            return 0 != peer->lock_type ? OMPI_SUCCESS : OMPI_ERR_RMA_SYNC;
        case OMPI_OSC_NEWRMA_WIN_LOCK_ALL_CALLED:
            /* per-target protocol: a direct target is locked on first use */
            if (NULL != peer->lock && 0 == peer->lock_type) {
                passive_peer_lock(module, peer, MPI_LOCK_SHARED);
                peer->lock_granted = true;
                return ompi_osc_newrma_lock_direct_acquire(module, rank, MPI_LOCK_SHARED);
            }
            return OMPI_SUCCESS;
        default:
            return OMPI_SUCCESS;
    }
}

int ompi_osc_newrma_passive_op_queued(ompi_osc_newrma_module_t *module,
                                      ompi_osc_newrma_target_t *target, ompi_osc_newrma_op_t *op)
{
    if (OMPI_OSC_NEWRMA_LOCK_CALLED != target->lock_state) {
        return OMPI_SUCCESS;
    }
    /* one short op of a basic datatype may still become a single op */
    if (1 == opal_list_get_size(&target->ops) &&
        ompi_osc_newrma_op_single_eligible(module, target, op)) {
        return OMPI_SUCCESS;
    }
    return ompi_osc_newrma_passive_issue_lock(module, target);
}

/* The operands a single-op packet carries: PUT data, accumulate operands
 * (and CAS compare value); none for GET and NO_OP. */
static size_t single_payload(ompi_osc_newrma_op_t *op, char *buf, const void **payload_p)
{
    ptrdiff_t ooff = 0;

    *payload_p = NULL;
    if (OMPI_OSC_NEWRMA_OP_GET == op->kind ||
        (OMPI_OSC_NEWRMA_OP_GACC == op->kind && ompi_osc_newrma_acc_is_no_op(op->acc_op))) {
        return 0;
    }
    (void) ompi_osc_newrma_dtype_contig(op->origin_dt, op->origin_count, &ooff);
    *payload_p = (char *) op->origin_addr + ooff;
    if (OMPI_OSC_NEWRMA_OP_CAS != op->kind) {
        return op->bytes;
    }
    memcpy(buf, *payload_p, op->bytes);
    memcpy(buf + op->bytes, op->compare, op->bytes);
    *payload_p = buf;
    return 2 * op->bytes;
}

/* Send @p op, the only operation of @p target's epoch, as LOCK + op +
 * UNLOCK in one SINGLE packet. */
static int send_single(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                       ompi_osc_newrma_op_t *op)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};
    bool fetch = ompi_osc_newrma_op_kind_fetches(op->kind);
    char cas[2 * OMPI_OSC_NEWRMA_ACC_INLINE];
    const void *payload;
    size_t payload_len = single_payload(op, cas, &payload);
    int ret;

    hdr.type = OMPI_OSC_NEWRMA_PKT_SINGLE;
    hdr.flags = MPI_LOCK_EXCLUSIVE == target->lock_type ? OMPI_OSC_NEWRMA_PKT_FLAG_EXCLUSIVE : 0;
    if (ompi_osc_newrma_op_kind_is_acc(op->kind)) {
        ret = fetch ? ompi_osc_newrma_acc_result_stream(op) : OMPI_SUCCESS;
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
        ompi_osc_newrma_acc_pkt_fill(&hdr, op);
    }
    hdr.kind = (uint8_t) op->kind;
    hdr.flags |= fetch ? OMPI_OSC_NEWRMA_PKT_FLAG_GET : 0;
    hdr.addr = op->target_addr;
    hdr.len = op->bytes;
    hdr.tag = (uint64_t) (uintptr_t) target;
    hdr.tag2 = (uint64_t) (uintptr_t) op;
    target->lock_reply = OMPI_OSC_NEWRMA_LOCK_REPLY_NONE;
    op->issued = true;
    op->outstanding = 1;
    OSC_NEWRMA_VERBOSE(30, "single op: LOCK + op %d of %zu bytes + UNLOCK to rank %d in one packet",
                       (int) op->kind, op->bytes, target->rank);
    ret = ompi_osc_newrma_pkt_send_counted(module, op->ep, target->rank, &hdr, payload, payload_len,
                                           &target->ack_counter);
    if (OMPI_SUCCESS != ret) {
        op->outstanding = 0;
        op->issued = false;
    }
    return ret;
}

/* ---- closing a target's part of the epoch: FLUSH_LOCAL, FLUSH, UNLOCK ---- */

/* Start closing: decide messages for LOCK_CALLED, set the sync flag. */
static int passive_start(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                         ompi_osc_newrma_sync_flag_t flag)
{
    ompi_osc_newrma_op_t *op;
    int ret;

    if (target->sync_flag < flag) {
        target->sync_flag = flag;
    }
    switch (target->lock_state) {
        case OMPI_OSC_NEWRMA_LOCK_CALLED:
            if (opal_list_is_empty(&target->ops)) {
                /* empty so far: no lock was ever requested, nothing to send
                 * (and an UNLOCK closes an empty epoch without a message) */
                target->unlock_sent = OMPI_OSC_NEWRMA_SYNC_UNLOCK == flag;
                return OMPI_SUCCESS;
            }
            op = (ompi_osc_newrma_op_t *) opal_list_get_first(&target->ops);
            if (OMPI_OSC_NEWRMA_SYNC_UNLOCK == flag && 1 == opal_list_get_size(&target->ops) &&
                ompi_osc_newrma_op_single_eligible(module, target, op) &&
                passive_single_may_go(module, target)) {
                ret = send_single(module, target, op);
                if (OMPI_SUCCESS == ret) {
                    OMPI_OSC_NEWRMA_STAT_ADD(module, SINGLE_OP_EPOCHS, 1);
                    ompi_osc_newrma_stat_op(&module->stats, op->kind,
                                            OMPI_OSC_NEWRMA_STAT_OPS_PACKET, op->bytes);
                    target->next_op_to_issue = NULL;
                    target->lock_state = OMPI_OSC_NEWRMA_LOCK_ISSUED;
                    target->unlock_sent = true;
                }
                return ret;
            }
            return ompi_osc_newrma_passive_issue_lock(module, target);
        default:
            return OMPI_SUCCESS;
    }
}

typedef struct {
    int rank; /* -1: every target element */
    ompi_osc_newrma_sync_flag_t flag;
} passive_wait_t;

static bool passive_target_done(ompi_osc_newrma_target_t *target, ompi_osc_newrma_sync_flag_t flag)
{
    /* a GET packed by the call is complete, even locally, once answered */
    if (!opal_list_is_empty(&target->ops) || target->ack_counter > 0 || target->flush_pending > 0 ||
        target->owed_at_call > 0) {
        return false;
    }
    /* a mailbox op that fetches nothing is complete locally when posted;
     * one that fetches, once its answer is in (posted at the call, it has
     * no op element in the list to say so) */
    if (NULL != target->mbox_slot &&
        (OMPI_OSC_NEWRMA_SYNC_FLUSH_LOCAL != flag || NULL != target->mbox_dest)) {
        return false;
    }
    switch (flag) {
        case OMPI_OSC_NEWRMA_SYNC_UNLOCK:
            return target->unlock_sent;
        case OMPI_OSC_NEWRMA_SYNC_FLUSH:
            if (!ompi_osc_newrma_target_owes_rma_done(target)) {
                return true;
            }
            /* MPI_THREAD_MULTIPLE: a concurrent flush finished and cleared
             * the flag while another thread's ops (a GET or PUT packet whose
             * thread only flushes locally) added to what is owed: ask again */
            if (target->sync_flag < OMPI_OSC_NEWRMA_SYNC_FLUSH) {
                target->sync_flag = OMPI_OSC_NEWRMA_SYNC_FLUSH;
            }
            return false;
        default:
            return true;
    }
}

/* Looked up again on every poll: another thread may have released it. */
static bool passive_done(ompi_osc_newrma_module_t *module, void *arg)
{
    passive_wait_t *wait = arg;
    ompi_osc_newrma_target_t *target;

    if (wait->rank >= 0) {
        target = ompi_osc_newrma_optable_lookup(&module->table, wait->rank);
        return NULL == target || passive_target_done(target, wait->flag);
    }
    for (target = ompi_osc_newrma_optable_first(&module->table); NULL != target;
         target = ompi_osc_newrma_optable_next(&module->table, target)) {
        if (!passive_target_done(target, wait->flag)) {
            return false;
        }
    }
    return 0 == module->ack_counter;
}

static void passive_forget_peer(ompi_osc_newrma_module_t *module, ompi_osc_newrma_peer_t *peer)
{
    if (0 != peer->lock_type) {
        opal_list_remove_item(&module->locked_peers, &peer->locked_item);
    }
    peer->lock_type = 0;
    peer->lock_nocheck = false;
    peer->lock_granted = false;
}

static void passive_finish_target(ompi_osc_newrma_module_t *module,
                                  ompi_osc_newrma_target_t *target,
                                  ompi_osc_newrma_sync_flag_t flag)
{
    if (OMPI_OSC_NEWRMA_SYNC_UNLOCK == flag) {
        /* its UNLOCK (or single op) released the lock; a lock word is
         * released by the caller (passive_release_peer), which needs it */
        ompi_osc_newrma_peer_t *peer = ompi_osc_newrma_peer(module, target->rank);

        if (NULL == peer->lock) {
            passive_forget_peer(module, peer);
        }
        ompi_osc_newrma_pkt_target_release(module, target);
    } else if (target->sync_flag <= flag) {
        /* lazy release: keep the element and its lock state */
        target->sync_flag = OMPI_OSC_NEWRMA_SYNC_NONE;
    }
}

/* Every element (rank < 0) or @p rank's back to the lazy state, or
 * released at UNLOCK. */
static void passive_finish(ompi_osc_newrma_module_t *module, int rank,
                           ompi_osc_newrma_sync_flag_t flag)
{
    ompi_osc_newrma_target_t *target, *next;

    if (rank >= 0) {
        target = ompi_osc_newrma_optable_lookup(&module->table, rank);
        if (NULL != target) {
            passive_finish_target(module, target, flag);
        }
        return;
    }
    for (target = ompi_osc_newrma_optable_first(&module->table); NULL != target; target = next) {
        next = ompi_osc_newrma_optable_next(&module->table, target);
        passive_finish_target(module, target, flag);
    }
}

/* All that @p target still owes is its mailbox slot's answer. */
static bool passive_mbox_only(ompi_osc_newrma_target_t *target)
{
    return NULL != target->mbox_slot && OMPI_OSC_NEWRMA_LOCK_GRANTED == target->lock_state &&
           ompi_osc_newrma_target_quiet(target, &target->ack_counter);
}

/* Looked up again on every poll, as in passive_done. */
static bool passive_mbox_answered(ompi_osc_newrma_module_t *module, void *arg)
{
    ompi_osc_newrma_target_t *target = ompi_osc_newrma_optable_lookup(&module->table, *(int *) arg);

    return NULL == target || NULL == target->mbox_slot ||
           ompi_osc_newrma_mbox_reap_target(module, target) > 0;
}

/* A lone small op in the mailbox: only its answer is awaited (for a flush,
 * or a flush_local of an op that fetches), and the window's progress
 * rounds (issue, retire, send) would find nothing to do; after it, an
 * UNLOCK of a lock word owes no message (the caller releases the word). */
static bool passive_lone_mbox(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                              ompi_osc_newrma_sync_flag_t flag)
{
    if (!passive_mbox_only(target)) {
        return false;
    }
    switch (flag) {
        case OMPI_OSC_NEWRMA_SYNC_FLUSH_LOCAL:
            return NULL != target->mbox_dest;
        case OMPI_OSC_NEWRMA_SYNC_UNLOCK:
            return NULL != ompi_osc_newrma_peer(module, target->rank)->lock;
        default:
            return true;
    }
}

/* Wait until @p wait holds.  FLUSH_LOCAL asks only that the origin's
 * buffers be free again, which an op packed into an open aggregated message
 * already leaves them: the message stays open for the ops after it (it goes
 * when full, in the next progress round of any MPI call, or with the flush
 * or UNLOCK that closes the epoch) instead of one message per flush_local.
 * Otherwise nothing owed (a PUT copied by its call, say) is no progress
 * round: a flush after a 128-byte PUT so took 580 instructions with one,
 * where osc/rdma's took 240.  The agent still has its turn (flush_call). */
static int passive_wait(ompi_osc_newrma_module_t *module, passive_wait_t *wait)
{
    return OMPI_OSC_NEWRMA_SYNC_FLUSH_LOCAL == wait->flag
               ? ompi_osc_newrma_progress_wait_local(module, passive_done, wait)
               : ompi_osc_newrma_progress_wait_unless(module, passive_done, wait);
}

static int passive_wait_mbox(ompi_osc_newrma_module_t *module, passive_wait_t *wait)
{
    ompi_osc_newrma_target_t *target;
    int ret = ompi_osc_newrma_progress_wait_peer(module, passive_mbox_answered, &wait->rank);

    if (OMPI_SUCCESS == ret && OMPI_OSC_NEWRMA_SYNC_UNLOCK == wait->flag &&
        NULL != (target = ompi_osc_newrma_optable_lookup(&module->table, wait->rank))) {
        /* what issuing the target's ops would do next, with none left */
        ret = ompi_osc_newrma_passive_send_unlock(module, target);
    }
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    return ompi_osc_newrma_progress_wait_unless(module, passive_done, wait);
}

static int passive_complete_rank(ompi_osc_newrma_module_t *module, int rank,
                                 ompi_osc_newrma_sync_flag_t flag)
{
    ompi_osc_newrma_target_t *target = ompi_osc_newrma_optable_lookup(&module->table, rank);
    passive_wait_t wait = {rank, flag};
    int ret;

    if (NULL == target) {
        /* elements are released only when complete: nothing is owed */
        return OMPI_SUCCESS;
    }
    ret = passive_start(module, target, flag);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    ret = passive_lone_mbox(module, target, flag) ? passive_wait_mbox(module, &wait)
                                                  : passive_wait(module, &wait);
    if (OMPI_SUCCESS == ret) {
        passive_finish(module, rank, flag);
    }
    return ret;
}

static bool window_acks_done(ompi_osc_newrma_module_t *module, void *arg)
{
    (void) arg;
    return 0 == module->ack_counter;
}

static int passive_complete_all(ompi_osc_newrma_module_t *module, ompi_osc_newrma_sync_flag_t flag)
{
    passive_wait_t wait = {-1, flag};
    ompi_osc_newrma_target_t *target;
    int ret;

    if (0 == module->table.num_targets && window_acks_done(module, NULL)) {
        return OMPI_SUCCESS; /* nothing owed anywhere: no progress round */
    }
    for (target = ompi_osc_newrma_optable_first(&module->table); NULL != target;
         target = ompi_osc_newrma_optable_next(&module->table, target)) {
        ret = passive_start(module, target, flag);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
    }
    ret = passive_wait(module, &wait);
    if (OMPI_SUCCESS == ret) {
        passive_finish(module, -1, flag);
    }
    return ret;
}

/* Release @p rank's lock when no target element is left to carry the
 * UNLOCK: directly, or with an UNLOCK counted on the window. */
/* @p peer's lock word (a node-local peer or myself) released, or under
 * @p nocheck (no word was taken) only the memory synchronized. */
static int passive_release_direct(ompi_osc_newrma_module_t *module, ompi_osc_newrma_peer_t *peer,
                                  bool nocheck)
{
    if (nocheck) {
        opal_atomic_mb(); /* MEM_SYNC before PROC_SYNC */
        return OMPI_SUCCESS;
    }
    /* releasing the word is the MEM_SYNC and the PROC_SYNC */
    return ompi_osc_newrma_lock_direct_release(module, peer->rank, peer->lock_type);
}

static int passive_release_peer(ompi_osc_newrma_module_t *module, ompi_osc_newrma_peer_t *peer)
{
    int rank = peer->rank;

    if (NULL != peer->lock) {
        return passive_release_direct(module, peer, passive_nocheck(module, rank));
    }
    if (peer->lock_granted && !passive_nocheck(module, rank) &&
        NULL == ompi_osc_newrma_optable_lookup(&module->table, rank)) {
        return ompi_osc_newrma_pkt_unlock(module, rank, peer->lock_type, NULL);
    }
    return OMPI_SUCCESS;
}

/* ---- MPI_Win_lock / MPI_Win_unlock ---- */

/* The node-local fast path: a lock of a peer whose lock word is in the
 * shared segment (not myself, whose agent gets a turn first), in a window
 * with no target element (so no earlier lock is unrequested or in flight,
 * and nothing is owed at the unlock) and no window-protocol request or try
 * out.  It does what lock_locked and unlock_locked do for such a peer with
 * the peer looked up once and the state machine's two moves it can make
 * (LOCK from NONE or PER_TARGET to PER_TARGET, the last UNLOCK back to
 * NONE) written out: the general path cost 510 instructions per lock and
 * unlock pair, about half of them lookups and calls repeated on the way. */
static inline ompi_osc_newrma_peer_t *lock_direct_peer(ompi_osc_newrma_module_t *module, int rank)
{
    ompi_osc_newrma_peer_t *peer = module->peer_cache[rank & (OMPI_OSC_NEWRMA_PEER_CACHE - 1)];

    if (NULL == peer || peer->rank != rank || NULL == peer->lock || rank == module->my_rank ||
        NULL != ompi_osc_newrma_optable_first(&module->table)) {
        return NULL;
    }
    return peer;
}

static inline void lock_direct_state(ompi_osc_newrma_module_t *module,
                                     ompi_osc_newrma_win_state_t next)
{
    if (next != module->win_state) {
        OSC_NEWRMA_VERBOSE(50, "window %u: %s -> %s", module->cid,
                           ompi_osc_newrma_win_state_name(module->win_state),
                           ompi_osc_newrma_win_state_name(next));
        module->win_state = next;
    }
}

/* True when the lock was handled here, with its result in *@p ret_p. */
static bool lock_direct_fast(ompi_osc_newrma_module_t *module, int lock_type, int rank,
                             int mpi_assert, int *ret_p)
{
    ompi_osc_newrma_peer_t *peer;
    int32_t ticket;

    if ((OMPI_OSC_NEWRMA_WIN_NONE != module->win_state &&
         OMPI_OSC_NEWRMA_WIN_PER_TARGET != module->win_state) ||
        0 != module->lock_requests || 0 != module->lock_tries ||
        NULL == (peer = lock_direct_peer(module, rank)) || 0 != peer->lock_type) {
        return false;
    }
    lock_direct_state(module, OMPI_OSC_NEWRMA_WIN_PER_TARGET);
    passive_lock_begin(module, peer, lock_type, mpi_assert);
    peer->lock_granted = true;
    *ret_p = OMPI_SUCCESS;
    if (peer->lock_nocheck) {
        return true;
    }
    ticket = ompi_osc_newrma_lockword_ticket(peer->lock);
    if (!ompi_osc_newrma_lockword_try_enter(peer->lock, lock_type, ticket)) {
        *ret_p = ompi_osc_newrma_lock_direct_wait(module, peer->lock, lock_type, ticket);
    }
    return true;
}

/* True when the unlock was handled here, with its result in *@p ret_p. */
static bool unlock_direct_fast(ompi_osc_newrma_module_t *module, int rank, int *ret_p)
{
    ompi_osc_newrma_peer_t *peer;

    if (OMPI_OSC_NEWRMA_WIN_PER_TARGET != module->win_state ||
        NULL == (peer = lock_direct_peer(module, rank)) || 0 == peer->lock_type) {
        return false;
    }
    *ret_p = passive_release_direct(module, peer, peer->lock_nocheck);
    passive_forget_peer(module, peer);
    if (0 == --module->lock_count) {
        module->lock_requests = 0;
        lock_direct_state(module, OMPI_OSC_NEWRMA_WIN_NONE);
    }
    return true;
}

static int lock_locked(ompi_osc_newrma_module_t *module, int lock_type, int rank, int mpi_assert)
{
    ompi_osc_newrma_peer_t *peer = ompi_osc_newrma_peer(module, rank);
    ompi_osc_newrma_target_t *target;
    int ret;

    if (NULL == peer) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (0 != peer->lock_type) {
        return OMPI_ERR_RMA_SYNC; /* this target is locked already */
    }
    ret = ompi_osc_newrma_win_state_move(module, OMPI_OSC_NEWRMA_EV_LOCK);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    passive_lock_begin(module, peer, lock_type, mpi_assert);
    if (NULL != peer->lock) {
        /* myself or a node-local peer: take its lock word now */
        peer->lock_granted = true;
        if (peer->lock_nocheck) {
            return OMPI_SUCCESS;
        }
        ret = passive_take_earlier_locks(module);
        return OMPI_SUCCESS != ret ? ret
                                   : ompi_osc_newrma_lock_direct_acquire(module, rank, lock_type);
    }
    return ompi_osc_newrma_passive_target_get(module, rank, &target);
}

static int unlock_locked(ompi_osc_newrma_module_t *module, int rank)
{
    ompi_osc_newrma_peer_t *peer = ompi_osc_newrma_peer_find(module, rank);
    int ret;

    if (OMPI_OSC_NEWRMA_WIN_PER_TARGET != module->win_state || NULL == peer ||
        0 == peer->lock_type) {
        return OMPI_ERR_RMA_SYNC;
    }
    ret = passive_complete_rank(module, rank, OMPI_OSC_NEWRMA_SYNC_UNLOCK);
    if (OMPI_SUCCESS == ret) {
        /* a release counted on the window is not waited for (see
         * ompi_osc_newrma_passive_send_unlock) */
        ret = passive_release_peer(module, peer);
    }
    passive_forget_peer(module, peer);
    if (0 == --module->lock_count) {
        module->lock_requests = 0; /* every request was answered */
        int ret2 = ompi_osc_newrma_win_state_move(module, OMPI_OSC_NEWRMA_EV_UNLOCK_LAST);
        ret = OMPI_SUCCESS != ret ? ret : ret2;
    }
    return ret;
}

/* MPI_PROC_NULL makes a passive call a no-op that succeeds (as RMA calls to
 * it are); Open MPI's bindings refuse it before we are called unless
 * mpi_param_check is off, and let no other rank outside the group through.
 * @return true when the call is over, with its result in *@p ret_p. */
static bool passive_rank_done(ompi_osc_newrma_module_t *module, int rank, int *ret_p)
{
    if (MPI_PROC_NULL == rank) {
        *ret_p = OMPI_SUCCESS;
        return true;
    }
    *ret_p = rank >= 0 && rank < module->comm_size ? OMPI_SUCCESS : MPI_ERR_RANK;
    return OMPI_SUCCESS != *ret_p;
}

int ompi_osc_newrma_lock(int lock_type, int target, int mpi_assert, struct ompi_win_t *win)
{
    ompi_osc_newrma_module_t *module = ompi_osc_newrma_module(win);
    int ret;

    if (module->config.no_locks) {
        return OMPI_ERR_RMA_SYNC; /* the window was promised none (info no_locks) */
    }
    if (passive_rank_done(module, target, &ret)) {
        return ret;
    }
    ompi_osc_newrma_module_lock(module);
    if (!lock_direct_fast(module, lock_type, target, mpi_assert, &ret)) {
        ret = lock_locked(module, lock_type, target, mpi_assert);
    }
    ompi_osc_newrma_module_unlock(module);
    return ret;
}

int ompi_osc_newrma_unlock(int target, struct ompi_win_t *win)
{
    ompi_osc_newrma_module_t *module = ompi_osc_newrma_module(win);
    int ret;

    if (passive_rank_done(module, target, &ret)) {
        return ret;
    }
    ompi_osc_newrma_module_lock(module);
    if (!unlock_direct_fast(module, target, &ret)) {
        ret = unlock_locked(module, target);
    }
    ret = ompi_osc_newrma_sync_ended(module, OMPI_OSC_NEWRMA_SYNC_UNLOCK, ret);
    ompi_osc_newrma_module_unlock(module);
    ompi_osc_newrma_call_turn(module); /* as for flushes: direct unlocks never wait */
    return ret;
}

/* ---- MPI_Win_lock_all / MPI_Win_unlock_all ---- */

int ompi_osc_newrma_lock_all(int mpi_assert, struct ompi_win_t *win)
{
    ompi_osc_newrma_module_t *module = ompi_osc_newrma_module(win);
    int ret;

    if (module->config.no_locks) {
        return OMPI_ERR_RMA_SYNC;
    }
    ompi_osc_newrma_module_lock(module);
    /* NOCHECK: no lock is taken, straight to LOCK_ALL_GRANTED */
    ret = ompi_osc_newrma_win_state_move(module, (mpi_assert & MPI_MODE_NOCHECK)
                                                     ? OMPI_OSC_NEWRMA_EV_LOCK_ALL_NOCHECK
                                                     : OMPI_OSC_NEWRMA_EV_LOCK_ALL);
    if (OMPI_SUCCESS == ret) {
        module->lock_all_nocheck = 0 != (mpi_assert & MPI_MODE_NOCHECK);
    }
    ompi_osc_newrma_module_unlock(module);
    return ret;
}

static int unlock_all_locked(ompi_osc_newrma_module_t *module)
{
    opal_list_item_t *item;
    int ret, ret2;

    switch (module->win_state) {
        case OMPI_OSC_NEWRMA_WIN_LOCK_ALL_CALLED:
        case OMPI_OSC_NEWRMA_WIN_LOCK_ALL_ISSUED:
        case OMPI_OSC_NEWRMA_WIN_LOCK_ALL_GRANTED:
            break;
        default:
            return OMPI_ERR_RMA_SYNC;
    }
    ret = passive_complete_all(module, OMPI_OSC_NEWRMA_SYNC_UNLOCK);
    if (module->lock_all_nocheck) {
        opal_atomic_mb(); /* MEM_SYNC before PROC_SYNC, for direct targets */
    }
    /* targets locked without an element left: the window protocol, direct
     * targets, and elements reclaimed after LOCK_GRANTED */
    for (item = opal_list_get_first(&module->locked_peers);
         OMPI_SUCCESS == ret && item != opal_list_get_end(&module->locked_peers);
         item = opal_list_get_next(item)) {
        ret = passive_release_peer(module, passive_peer_of(item));
    }
    if (OMPI_SUCCESS == ret && !window_acks_done(module, NULL)) {
        ret = ompi_osc_newrma_progress_wait(module, window_acks_done, NULL);
    }
    while (!opal_list_is_empty(&module->locked_peers)) {
        passive_forget_peer(module, passive_peer_of(opal_list_get_first(&module->locked_peers)));
    }
    module->lock_all_nocheck = false;
    ret2 = ompi_osc_newrma_win_state_move(module, OMPI_OSC_NEWRMA_EV_UNLOCK_ALL);
    return OMPI_SUCCESS != ret ? ret : ret2;
}

int ompi_osc_newrma_unlock_all(struct ompi_win_t *win)
{
    ompi_osc_newrma_module_t *module = ompi_osc_newrma_module(win);
    int ret;

    ompi_osc_newrma_module_lock(module);
    ret =
        ompi_osc_newrma_sync_ended(module, OMPI_OSC_NEWRMA_SYNC_UNLOCK, unlock_all_locked(module));
    ompi_osc_newrma_module_unlock(module);
    return ret;
}

/* ---- MPI_Win_flush family ---- */

/* A passive epoch (ompi_osc_newrma_win_state_is_passive's states, here in
 * line: the direct flush's path), and in per-target locking @p peer's lock
 * held (@p peer NULL: every target, which needs no lock of its own). */
static inline bool flush_epoch_covers(const ompi_osc_newrma_module_t *module,
                                      const ompi_osc_newrma_peer_t *peer)
{
    switch (module->win_state) {
        case OMPI_OSC_NEWRMA_WIN_LOCK_ALL_CALLED:
        case OMPI_OSC_NEWRMA_WIN_LOCK_ALL_ISSUED:
        case OMPI_OSC_NEWRMA_WIN_LOCK_ALL_GRANTED:
            return true;
        case OMPI_OSC_NEWRMA_WIN_PER_TARGET:
            return NULL == peer || 0 != peer->lock_type;
        default:
            return false;
    }
}

/* @p rank's target reached by loads and stores (its lock word mapped, its
 * memory direct): a flush of it is the memory barrier alone. */
static inline bool flush_by_barrier(const ompi_osc_newrma_module_t *module,
                                    const ompi_osc_newrma_peer_t *peer, int rank)
{
    return NULL != peer->lock && (module->shm.direct || rank == module->my_rank);
}

/* FLUSH needs a passive epoch that covers @p rank. */
static int flush_check(ompi_osc_newrma_module_t *module, int rank)
{
    const ompi_osc_newrma_peer_t *peer = NULL;

    if (rank >= 0 && OMPI_OSC_NEWRMA_WIN_PER_TARGET == module->win_state) {
        peer = ompi_osc_newrma_peer_find(module, rank);
        if (NULL == peer) {
            return OMPI_ERR_RMA_SYNC; /* never locked */
        }
    }
    return flush_epoch_covers(module, peer) ? OMPI_SUCCESS : OMPI_ERR_RMA_SYNC;
}

static int flush_locked(ompi_osc_newrma_module_t *module, int rank,
                        ompi_osc_newrma_sync_flag_t flag)
{
    ompi_osc_newrma_peer_t *peer;
    int ret = flush_check(module, rank);

    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    peer = ompi_osc_newrma_peer(module, rank);
    if (NULL == peer) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    opal_atomic_mb(); /* MEM_SYNC: direct accesses before later PROC_SYNCs */
    if (flush_by_barrier(module, peer, rank)) {
        return OMPI_SUCCESS; /* nothing in flight */
    }
    /* remote completion under every lock type: the target itself may look
     * (a message from us, then MPI_Win_sync) before UNLOCK */
    return passive_complete_rank(module, rank, flag);
}

static int flush_all_locked(ompi_osc_newrma_module_t *module, ompi_osc_newrma_sync_flag_t flag)
{
    int ret = flush_check(module, -1);

    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    opal_atomic_mb();
    return passive_complete_all(module, flag);
}

/* The four flush calls: take the window lock, flush one target (rank >= 0)
 * or all of them. */
static int flush_call(struct ompi_win_t *win, int rank, ompi_osc_newrma_sync_flag_t flag)
{
    ompi_osc_newrma_module_t *module = ompi_osc_newrma_module(win);
    int ret;

    ompi_osc_newrma_module_lock(module);
    ret = ompi_osc_newrma_sync_ended(module, flag,
                                     rank >= 0 ? flush_locked(module, rank, flag)
                                               : flush_all_locked(module, flag));
    ompi_osc_newrma_module_unlock(module);
    ompi_osc_newrma_call_turn(module);
    return ret;
}

/* A flush flush_locked would answer with MEM_SYNC alone: @p rank's entry
 * cached, the target reached by loads and stores, the epoch covering it
 * (flush_epoch_covers, as flush_check).  Reads only, so no window lock;
 * false sends the call the full way, which also reports errors.  The full
 * way's lock, checks and calls were 80 instructions of a node-local PUT +
 * flush's 200, a tenth of its time, where osc/sm's flush is the barrier
 * alone. */
static inline bool flush_direct(const ompi_osc_newrma_module_t *module, int rank)
{
    const ompi_osc_newrma_peer_t *peer;

    if ((unsigned) rank >= (unsigned) module->comm_size) {
        return false;
    }
    peer = module->peer_cache[rank & (OMPI_OSC_NEWRMA_PEER_CACHE - 1)];
    return NULL != peer && peer->rank == rank && flush_by_barrier(module, peer, rank) &&
           flush_epoch_covers(module, peer);
}

/* One target's flush; MPI_PROC_NULL a no-op.  In line in both callers:
 * the direct flush is a handful of loads and the barrier. */
static inline __opal_attribute_always_inline__ int flush_one(struct ompi_win_t *win, int rank,
                                                             ompi_osc_newrma_sync_flag_t flag)
{
    ompi_osc_newrma_module_t *module = ompi_osc_newrma_module(win);
    int ret;

    if (OPAL_LIKELY(flush_direct(module, rank))) {
        opal_atomic_mb(); /* MEM_SYNC, as flush_locked */
        ret = ompi_osc_newrma_sync_result(module, OMPI_SUCCESS);
        ompi_osc_newrma_call_turn(module);
        return ret;
    }
    return passive_rank_done(module, rank, &ret) ? ret : flush_call(win, rank, flag);
}

int ompi_osc_newrma_flush(int target, struct ompi_win_t *win)
{
    return flush_one(win, target, OMPI_OSC_NEWRMA_SYNC_FLUSH);
}

int ompi_osc_newrma_flush_local(int target, struct ompi_win_t *win)
{
    return flush_one(win, target, OMPI_OSC_NEWRMA_SYNC_FLUSH_LOCAL);
}

int ompi_osc_newrma_flush_all(struct ompi_win_t *win)
{
    return flush_call(win, -1, OMPI_OSC_NEWRMA_SYNC_FLUSH);
}

int ompi_osc_newrma_flush_local_all(struct ompi_win_t *win)
{
    return flush_call(win, -1, OMPI_OSC_NEWRMA_SYNC_FLUSH_LOCAL);
}
