/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: the Operation Table (design: "Data structures").
 *
 *   slot[rank % nslots] -> target element -> target element -> ...
 *                              |
 *                              +-> op element -> op element -> ...
 *
 * Targets map onto slots round-robin.  The slot array grows with the
 * targets actually touched (doubling while there are more targets than
 * slots), up to the user's size (osc_newrma_slots) capped at the window's
 * number of processes: a window that talks to few peers keeps a few
 * pointers, whatever the rank count.  Every element is also on one list,
 * so sweeps (FLUSH_ALL, UNLOCK_ALL, FENCE, progress) cost O(targets), not
 * O(slots).  A target element holds the op list of one target and, in
 * passive target, that target's per-target epoch state.  An op element
 * holds everything needed to issue one RMA operation.  A PENDING op has not
 * been issued; an ISSUED op waits for its transport requests to complete.
 *
 * All functions here require the window lock.
 */
#ifndef OMPI_OSC_NEWRMA_BASE_OPTABLE_H
#define OMPI_OSC_NEWRMA_BASE_OPTABLE_H

#include "ompi_config.h"

#include <stddef.h>
#include <sys/types.h>

#include "opal/class/opal_list.h"
#include "opal/sys/atomic.h"

#include <ucp/api/ucp.h>

#include "osc_newrma_base_types.h"

struct ompi_datatype_t;

/** Operation element. */
struct ompi_osc_newrma_op_t {
    opal_list_item_t super;
    ompi_osc_newrma_op_kind_t kind;
    /** origin buffer as the user gave it */
    void *origin_addr;
    int origin_count;
    struct ompi_datatype_t *origin_dt;
    /** target side, in the target's displacement units */
    ptrdiff_t target_disp;
    int target_count;
    struct ompi_datatype_t *target_dt;
    /** bytes moved (origin and target type signatures carry the same) */
    size_t bytes;
    /** contiguous staging copy of a non-contiguous origin buffer, or NULL */
    void *bounce;
    /** GET as packets: where the replies' data goes (origin buffer or bounce) */
    char *get_stream;
    /** design's "req": false while PENDING, true once ISSUED */
    bool issued;
    /** transport requests of this op still in flight */
    ompi_osc_newrma_atomic_t outstanding;
    /** a large transfer sent by UCX instead of a cross-memory copy: when
     * it was issued, else 0; and the time it took, once its completion
     * came (0 before) */
    uint64_t timed_ns;
    uint64_t took_ns;
    /** an MPI_NO_OP read by UCX's transfer without the target's
     * accumulate lock: that lock word and its sequence before the read
     * (ompi_osc_newrma_op_read_verify), else NULL; the target's process
     * and the address to read again under the lock if it changed */
    volatile int32_t *read_seq_word;
    int32_t read_seq;
    pid_t read_pid;
    uint64_t read_addr;
    /** OMPI_SUCCESS, or the error a transport request completed with */
    volatile int status;
    /** window the op belongs to (completion callbacks update its counters) */
    ompi_osc_newrma_module_t *module;
    /** transport target: endpoint, rkey and remote address of target_disp */
    ucp_ep_h ep;
    ucp_rkey_h rkey;
    /** the object that owns rkey, retained while the op may use it (a
     * dynamic window's cached region), or NULL */
    opal_object_t *rkey_owner;
    uint64_t target_addr;
    /** MPI_Rput / MPI_Rget: completed at local completion, or NULL */
    struct ompi_request_t *request;
    /** accumulate family: the reduction and its single predefined element type */
    struct ompi_op_t *acc_op;
    struct ompi_datatype_t *acc_basic;
    /** where fetched old values go (GET_ACCUMULATE, FETCH_AND_OP, CAS) */
    void *result_addr;
    int result_count;
    struct ompi_datatype_t *result_dt;
    /** fetched old values, packed: result_inline, a malloc'd buffer, or
     * the user's result buffer itself when it is contiguous (result_direct) */
    char *result_stream;
    bool result_direct;
    /** UCX atomic operand and CAS compare value: must outlive the request */
    char operand[OMPI_OSC_NEWRMA_ACC_INLINE];
    char compare[OMPI_OSC_NEWRMA_ACC_INLINE];
    char result_inline[OMPI_OSC_NEWRMA_ACC_INLINE];
};
OBJ_CLASS_DECLARATION(ompi_osc_newrma_op_t);

/** Target element. */
struct ompi_osc_newrma_target_t {
    opal_list_item_t super;
    /** the window whose table holds it (a GET or PUT by RDMA at the call
     * reports a failure to it) */
    ompi_osc_newrma_module_t *module;
    /** next target element in the same slot */
    ompi_osc_newrma_target_t *slot_next;
    /** on the table's list of every element (super is the pools' link) */
    opal_list_item_t table_item;
    /** op list, in the order the user posted the operations */
    opal_list_t ops;
    /** first op not issued yet (NULL: all issued) */
    ompi_osc_newrma_op_t *next_op_to_issue;
    int rank;
    /** ops posted to this target since the element was created */
    int op_count;
    ompi_osc_newrma_sync_flag_t sync_flag;
    /** per-target epoch state (passive target) */
    ompi_osc_newrma_lock_state_t lock_state;
    int lock_type;
    int lock_mode;
    /** acknowledgements this target still owes us: RMA_DONE_ACK, the UNLOCK
     * acknowledgement, a single op's answer (passive target) */
    ompi_osc_newrma_atomic_t ack_counter;
    /** set by the LOCK_GRANTED handler (ompi_osc_newrma_lock_reply_t) */
    ompi_osc_newrma_atomic_t lock_reply;
    /** endpoint flush that must complete before UNLOCK is sent */
    ompi_osc_newrma_atomic_t flush_pending;
    /** RMA_DONE + UNLOCK has gone out */
    bool unlock_sent;
    /** PSCW over UCX: COMPLETE has gone out (ops may still await answers) */
    bool complete_sent;
    /** CLEANUP_WIN_AGGRESSIVE wants this element back once it is flushed */
    bool release_when_done;
    /** request-based ops queued: they must not wait for a synchronization */
    int req_ops;
    /** an op or a synchronization needs this LOCK_CALLED target's lock */
    bool lock_wanted;
    /** its LOCK counts in module->lock_requests */
    bool lock_counted;
    /** its LOCK went as a try and counts in module->lock_tries */
    bool lock_try;
    /** a try of it was refused: its next request is queued, in its turn */
    bool lock_refused;
    /** RDMA writes were issued that no RMA_DONE has covered yet */
    bool needs_rma_done;
    /** RDMA writes were issued since the last worker fence: an RDMA read
     * fences first (UCX orders RMA on an endpoint only across one) */
    bool rdma_writes_unfenced;
    /** a GET reads the target by RDMA: UNLOCK waits until every op of this
     * element has completed, or another origin could write under the read */
    bool rdma_reads;
    /** the target's mailbox slot holding an op of mine not yet applied:
     * nothing else goes to the target before it is (the agent may poll it
     * after packets sent later), and nothing that completes at the target
     * (flush, unlock, complete, the fence) before either */
    struct ompi_osc_newrma_shm_mbox_t *mbox_slot;
    /** the fetching op waiting for that slot's answer; NULL when it
     * fetches nothing (it completed locally when posted) */
    ompi_osc_newrma_op_t *mbox_op;
    /** where that answer goes: the op's stream, or for an access posted at
     * the call without an op element (mbox_op NULL) the user's buffer */
    char *mbox_dest;
    /** when that slot was posted, if it is timed for the window's
     * acc_pick (ompi_osc_newrma_mbox_issue_timed); 0 not */
    uint64_t mbox_timed_ns;
    /** PUT and ACC packets sent that no RMA_DONE has covered yet */
    uint32_t am_sent;
    /** completions owed to accesses served at the call, which no op
     * element holds: answers to GETs packed in a message, GETs and PUTs by
     * RDMA (local completion: a PUT's remote one is the endpoint flush of
     * needs_rma_done).  Every synchronization that completes operations
     * waits for none */
    ompi_osc_newrma_atomic_t owed_at_call;
    /** channel of the accumulates in flight (accumulate ordering) */
    ompi_osc_newrma_acc_channel_t acc_channel;
    /** aggregation: the active message being built for this target */
    ompi_osc_newrma_batch_t batch;
};
OBJ_CLASS_DECLARATION(ompi_osc_newrma_target_t);

/** Slot: head of a list of target elements. */
struct ompi_osc_newrma_slot_t {
    ompi_osc_newrma_target_t *targets;
};

/** The window's operation table. */
struct ompi_osc_newrma_optable_t {
    ompi_osc_newrma_slot_t *slots;
    int nslots;
    /** what nslots may grow to */
    int max_slots;
    /** every target element, in insertion order (sweeps) */
    opal_list_t targets;
    /** target elements in the table */
    int num_targets;
};

/** Slots a table starts with (fewer if max_slots is smaller). */
#define OMPI_OSC_NEWRMA_OPTABLE_MIN_SLOTS 4

/** An empty table whose slot array may grow to @p max_slots.
 * @return OMPI_SUCCESS, OMPI_ERR_BAD_PARAM or OMPI_ERR_OUT_OF_RESOURCE */
int ompi_osc_newrma_optable_init(ompi_osc_newrma_optable_t *table, int max_slots);

/** Free the slot array; the table must be empty. */
void ompi_osc_newrma_optable_fini(ompi_osc_newrma_optable_t *table);

/** Slot that holds @p rank's target element (round-robin mapping). */
static inline ompi_osc_newrma_slot_t *ompi_osc_newrma_optable_slot(ompi_osc_newrma_optable_t *table,
                                                                   int rank)
{
    return &table->slots[rank % table->nslots];
}

/** Find @p rank's target element. @return it, or NULL when absent. */
ompi_osc_newrma_target_t *ompi_osc_newrma_optable_lookup(ompi_osc_newrma_optable_t *table,
                                                         int rank);

/** Reset @p target for @p rank and link it into its slot; the slot array
 * grows first when the table holds as many targets as slots (if that
 * allocation fails, the chains just get longer). */
void ompi_osc_newrma_optable_insert(ompi_osc_newrma_optable_t *table,
                                    ompi_osc_newrma_target_t *target, int rank);

/** Unlink @p target from its slot; its op list must be empty. */
void ompi_osc_newrma_optable_remove(ompi_osc_newrma_optable_t *table,
                                    ompi_osc_newrma_target_t *target);

/** Append @p op to @p target's op list as a PENDING op. */
void ompi_osc_newrma_target_enqueue_op(ompi_osc_newrma_target_t *target, ompi_osc_newrma_op_t *op);

/** Remove a completed @p op from @p target's op list. */
void ompi_osc_newrma_target_dequeue_op(ompi_osc_newrma_target_t *target, ompi_osc_newrma_op_t *op);

/** Mark the next pending op of @p target issued and return it (NULL: none). */
ompi_osc_newrma_op_t *ompi_osc_newrma_target_next_pending(ompi_osc_newrma_target_t *target);

/** True when @p op is the last op of its target's list. */
static inline bool ompi_osc_newrma_target_is_last_op(ompi_osc_newrma_target_t *target,
                                                     ompi_osc_newrma_op_t *op)
{
    return (opal_list_item_t *) op == opal_list_get_last(&target->ops);
}

/** A small op alone at its target (osc_newrma_lone_rdma, osc_newrma_mailbox):
 * nothing queued behind or before it, no aggregated message open, no packet
 * waiting for an RMA_DONE.  A stream of ops is aggregated from its first:
 * the first is kept queued (piggyback_threshold) until the second comes. */
static inline bool ompi_osc_newrma_op_lone(ompi_osc_newrma_target_t *target,
                                           const ompi_osc_newrma_op_t *op)
{
    return NULL == target->batch.buf && 0 == target->am_sent &&
           &op->super == opal_list_get_first(&target->ops) &&
           &op->super == opal_list_get_last(&target->ops);
}

/** True when RMA_DONE is owed to @p target (RDMA writes or PUT packets). */
static inline bool ompi_osc_newrma_target_owes_rma_done(ompi_osc_newrma_target_t *target)
{
    return target->needs_rma_done || target->am_sent > 0;
}

/** A GET still reads @p target by RDMA (an op element's, or one read at the
 * call and counted in owed_at_call): UNLOCK, COMPLETE and FENCE_DONE, after
 * which another origin may write there, wait until it is done. */
static inline bool ompi_osc_newrma_target_rdma_reading(ompi_osc_newrma_target_t *target)
{
    return target->rdma_reads && (!opal_list_is_empty(&target->ops) || target->owed_at_call > 0);
}

/** Nothing of this process at @p target but (perhaps) its mailbox slot:
 * no op queued, no aggregated message open, nothing owing an RMA_DONE, no
 * endpoint flush pending, nothing unacknowledged on @p acks (the counter
 * its RMA_DONEs are acknowledged on). */
static inline bool ompi_osc_newrma_target_quiet(ompi_osc_newrma_target_t *target,
                                                const ompi_osc_newrma_atomic_t *acks)
{
    return opal_list_is_empty(&target->ops) && NULL == target->batch.buf &&
           !ompi_osc_newrma_target_owes_rma_done(target) && 0 == target->flush_pending &&
           0 == target->owed_at_call && 0 == *acks;
}

/** True when an op has been issued and every transport request completed. */
static inline bool ompi_osc_newrma_op_is_complete(ompi_osc_newrma_op_t *op)
{
    return op->issued && 0 == op->outstanding;
}

static inline ompi_osc_newrma_target_t *
ompi_osc_newrma_optable_of_item(ompi_osc_newrma_optable_t *table, opal_list_item_t *item)
{
    return item == opal_list_get_end(&table->targets)
               ? NULL
               : (ompi_osc_newrma_target_t *) ((char *) item -
                                               offsetof(ompi_osc_newrma_target_t, table_item));
}

/**
 * Iterate over every target element: for (t = first(table); t; t = next(table, t)).
 * The current element may be removed only after next() has been called for it.
 */
static inline ompi_osc_newrma_target_t *
ompi_osc_newrma_optable_first(ompi_osc_newrma_optable_t *table)
{
    return ompi_osc_newrma_optable_of_item(table, opal_list_get_first(&table->targets));
}

static inline ompi_osc_newrma_target_t *
ompi_osc_newrma_optable_next(ompi_osc_newrma_optable_t *table, ompi_osc_newrma_target_t *target)
{
    return ompi_osc_newrma_optable_of_item(table, opal_list_get_next(&target->table_item));
}

#endif /* OMPI_OSC_NEWRMA_BASE_OPTABLE_H */
