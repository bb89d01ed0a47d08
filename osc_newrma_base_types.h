/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: forward declarations and the design's named states.
 *
 * Names follow MPICH's "New RMA Design" (../shared/design/new-rma-design.md):
 * operation element, target element, slot, window state, per-target state.
 */
#ifndef OMPI_OSC_NEWRMA_BASE_TYPES_H
#define OMPI_OSC_NEWRMA_BASE_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Counter updated by transport callbacks with opal_atomic_* (Open MPI 4.1 has
 * no opal_atomic_int32_t). */
typedef volatile int32_t ompi_osc_newrma_atomic_t;

struct ompi_osc_newrma_module_t;
struct ompi_osc_newrma_component_t;
struct ompi_osc_newrma_op_t;
struct ompi_osc_newrma_target_t;
struct ompi_osc_newrma_slot_t;
struct ompi_osc_newrma_optable_t;
struct ompi_osc_newrma_pool_t;
struct ompi_osc_newrma_peer_t;
struct ompi_osc_newrma_endpoint_t;

typedef struct ompi_osc_newrma_module_t ompi_osc_newrma_module_t;
typedef struct ompi_osc_newrma_component_t ompi_osc_newrma_component_t;
typedef struct ompi_osc_newrma_op_t ompi_osc_newrma_op_t;
typedef struct ompi_osc_newrma_target_t ompi_osc_newrma_target_t;
typedef struct ompi_osc_newrma_slot_t ompi_osc_newrma_slot_t;
typedef struct ompi_osc_newrma_optable_t ompi_osc_newrma_optable_t;
typedef struct ompi_osc_newrma_pool_t ompi_osc_newrma_pool_t;
typedef struct ompi_osc_newrma_peer_t ompi_osc_newrma_peer_t;
typedef struct ompi_osc_newrma_endpoint_t ompi_osc_newrma_endpoint_t;

/** Aggregation: an active message being built for one peer (BATCH header,
 * then @c count packets in @c len bytes of @c capacity); @c buf is NULL when
 * none is.  It grows as packets are added, up to aggregate_bytes, so a
 * peer sent a few small packets does not hold a whole message's memory. */
typedef struct {
    char *buf;
    size_t len;
    size_t capacity;
    uint32_t count;
    /** the most bytes its message takes (ompi_osc_newrma_pkt_batch_add),
     * found when it is started; 0 before */
    size_t cap;
    /** the PUTS or ACCS packet that ends it, which more small PUTs (or
     * accumulates of its op and type) may join: its header's offset in
     * @c buf and its last record's; 0 when none does */
    size_t recs_at;
    size_t recs_last;
} ompi_osc_newrma_batch_t;

/** The nine window states of the design (MPIDI_RMA_*). */
typedef enum {
    OMPI_OSC_NEWRMA_WIN_NONE = 0,
    OMPI_OSC_NEWRMA_WIN_FENCE_ISSUED,
    OMPI_OSC_NEWRMA_WIN_FENCE_GRANTED,
    OMPI_OSC_NEWRMA_WIN_PSCW_ISSUED,
    OMPI_OSC_NEWRMA_WIN_PSCW_GRANTED,
    OMPI_OSC_NEWRMA_WIN_LOCK_ALL_CALLED,
    OMPI_OSC_NEWRMA_WIN_LOCK_ALL_ISSUED,
    OMPI_OSC_NEWRMA_WIN_LOCK_ALL_GRANTED,
    OMPI_OSC_NEWRMA_WIN_PER_TARGET,
    OMPI_OSC_NEWRMA_WIN_STATE_COUNT
} ompi_osc_newrma_win_state_t;

/** The three per-target states (used in PER_TARGET and LOCK_ALL_CALLED). */
typedef enum {
    OMPI_OSC_NEWRMA_LOCK_CALLED = 0,
    OMPI_OSC_NEWRMA_LOCK_ISSUED,
    OMPI_OSC_NEWRMA_LOCK_GRANTED,
    OMPI_OSC_NEWRMA_LOCK_STATE_COUNT
} ompi_osc_newrma_lock_state_t;

/** What a LOCK_GRANTED told the origin about its target element. */
typedef enum {
    OMPI_OSC_NEWRMA_LOCK_REPLY_NONE = 0,
    OMPI_OSC_NEWRMA_LOCK_REPLY_GRANTED,
    /** granted, but the single op's data was discarded: send it again */
    OMPI_OSC_NEWRMA_LOCK_REPLY_RESEND,
    /** a try request found the lock taken: nothing is held */
    OMPI_OSC_NEWRMA_LOCK_REPLY_REFUSED
} ompi_osc_newrma_lock_reply_t;

/** What a target element's closing synchronization asks of ISSUE_OPS_TARGET. */
typedef enum {
    OMPI_OSC_NEWRMA_SYNC_NONE = 0,
    /** issue every queued op and wait for local completion only */
    OMPI_OSC_NEWRMA_SYNC_FLUSH_LOCAL,
    /** issue every queued op, then RMA_DONE; wait for RMA_DONE_ACK */
    OMPI_OSC_NEWRMA_SYNC_FLUSH,
    /** as FLUSH, and release the lock (RMA_DONE + UNLOCK) */
    OMPI_OSC_NEWRMA_SYNC_UNLOCK,
    /** PSCW over UCX: issue every op, flush RDMA writes, then COMPLETE
     * (counting the packets, unanswered) and release the element */
    OMPI_OSC_NEWRMA_SYNC_COMPLETE,
    /** FENCE over UCX: as COMPLETE, with FENCE_DONE, which the fence's
     * collective counts for the target (no RMA_DONE_ACK to wait for) */
    OMPI_OSC_NEWRMA_SYNC_FENCE
} ompi_osc_newrma_sync_flag_t;

/** Kind of an operation element. */
typedef enum {
    OMPI_OSC_NEWRMA_OP_PUT = 0,
    OMPI_OSC_NEWRMA_OP_GET,
    /** MPI_Accumulate / MPI_Raccumulate */
    OMPI_OSC_NEWRMA_OP_ACC,
    /** MPI_Get_accumulate / MPI_Rget_accumulate / MPI_Fetch_and_op */
    OMPI_OSC_NEWRMA_OP_GACC,
    /** MPI_Compare_and_swap */
    OMPI_OSC_NEWRMA_OP_CAS
} ompi_osc_newrma_op_kind_t;

/** Largest predefined element (long double complex): operands of one
 * element live inline in the op element. */
#define OMPI_OSC_NEWRMA_ACC_INLINE 32

/** Accumulate-class operations (atomic per element, ordered per window info). */
static inline bool ompi_osc_newrma_op_kind_is_acc(ompi_osc_newrma_op_kind_t kind)
{
    return kind >= OMPI_OSC_NEWRMA_OP_ACC;
}

/** Operations that bring data back to the origin. */
static inline bool ompi_osc_newrma_op_kind_fetches(ompi_osc_newrma_op_kind_t kind)
{
    return OMPI_OSC_NEWRMA_OP_GET == kind || kind >= OMPI_OSC_NEWRMA_OP_GACC;
}

/** How a target element's accumulates travel (accumulate ordering). */
typedef enum {
    OMPI_OSC_NEWRMA_ACC_CHANNEL_NONE = 0,
    /** UCX atomic operations */
    OMPI_OSC_NEWRMA_ACC_CHANNEL_ATOMIC,
    /** ACC packets applied by the target's agent */
    OMPI_OSC_NEWRMA_ACC_CHANNEL_AM
} ompi_osc_newrma_acc_channel_t;

/** Resource that CLEANUP_WIN_AGGRESSIVE is asked to free. */
typedef enum {
    OMPI_OSC_NEWRMA_RESOURCE_OP = 0,
    OMPI_OSC_NEWRMA_RESOURCE_TARGET
} ompi_osc_newrma_resource_t;

#endif /* OMPI_OSC_NEWRMA_BASE_TYPES_H */
