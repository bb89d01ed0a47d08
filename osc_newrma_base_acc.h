/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: the accumulate family's reductions on memory, and the
 * atomicity rule for the accumulate family (ACCUMULATE, GET_ACCUMULATE,
 * FETCH_AND_OP, COMPARE_AND_SWAP and their request-based forms).
 *
 * Atomicity is per basic element, between all accumulate-class operations
 * on a location, whichever path they take.  The rule is chosen per window,
 * the same on every rank (ompi_osc_newrma_acc_plain):
 *
 * Plain windows: every window unless osc_newrma_acc_atomics is set (an MCA
 * variable, so alike on every rank), and windows whose ranks are all on
 * this node and reach each other's memory with loads and stores.  No UCX
 * atomic reaches the memory, so every accumulate-class call (single-element
 * FETCH_AND_OP and COMPARE_AND_SWAP included) runs under the target's
 * accumulate lock with plain loads and stores: a memcpy for REPLACE and
 * NO_OP, vectorized loops or Open MPI's reduction for the others.
 * Node-local origins take the lock in the shared segment (a large copy or
 * reduction on a window in the segment holds it while the target's agent
 * does part of the work, taking no lock: ompi_osc_newrma_mbox_share_*),
 * the target's agent takes it for packets, and remote origins send everything as ACC
 * packets (many in one message; large ones pipelined at memory speed).
 * The lock is a sequence lock (odd while held, each take and release
 * adding one), so one reader may go without it: an MPI_NO_OP read of a
 * node-local peer's own memory by UCX's transfer notes the word before
 * (even) and compares it after, and reads again under the lock when it
 * moved (ompi_osc_newrma_op_read_verify).
 *
 * Atomic windows (osc_newrma_acc_atomics, with a peer reached through UCX,
 * whose atomics do not take our lock; UCX_ATOMIC_MODE is then cpu):
 *  - elements of 1, 2, 4 or 8 bytes are updated with CPU atomics (fetch-add,
 *    fetch-and/or/xor, exchange, or a compare-exchange loop around the
 *    reduction for everything else, floating point included), by
 *    node-local origins directly and by the target's agent for packets;
 *  - other elements (long double, complex, pair types with padding) are
 *    updated under the target's accumulate lock, a word in the target's
 *    lock-word cache line (per target, not per window);
 *  - one 4- or 8-byte integer element whose op maps onto a UCX atomic
 *    (SUM, BAND, BOR, BXOR, REPLACE, NO_OP, CAS) travels as
 *    ucp_atomic_op_nbx; everything else as ACC packets.
 *
 * ACC packets carry at most ACC_CHUNK bytes of operands, and at most what
 * one aggregated message holds; the target's agent applies them as they
 * arrive (pipelined: a large accumulate is never buffered whole).
 *
 * Ordering (accumulate_ordering other than "none"): ACC packets of one
 * origin are applied in the order sent; a switch between the atomic and
 * the packet channel to one target waits (ucp_worker_fence for atomics
 * followed by packets, drained packets before atomics).
 */
#ifndef OMPI_OSC_NEWRMA_BASE_ACC_H
#define OMPI_OSC_NEWRMA_BASE_ACC_H

#include "ompi_config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ompi/op/op.h"

#include "osc_newrma_base_types.h"

struct ompi_datatype_t;
struct ompi_op_t;

/**
 * Check an accumulate-class call: @p op must be predefined, and the origin,
 * target and result datatypes must all be built from one predefined type
 * on which @p op is defined.  NULL datatypes are not checked.
 * @return OMPI_SUCCESS with *@p basic_p set, MPI_ERR_OP or MPI_ERR_TYPE.
 */
int ompi_osc_newrma_acc_check(ompi_osc_newrma_op_kind_t kind, struct ompi_op_t *op,
                              struct ompi_datatype_t *origin_dt, struct ompi_datatype_t *target_dt,
                              struct ompi_datatype_t *result_dt, struct ompi_datatype_t **basic_p);

/** True for MPI_NO_OP (no origin data travels).  In line, as the next:
 * every accumulate-class call asks both. */
static inline bool ompi_osc_newrma_acc_is_no_op(struct ompi_op_t *op)
{
    return &ompi_mpi_op_no_op.op == op;
}

/** True for MPI_REPLACE. */
static inline bool ompi_osc_newrma_acc_is_replace(struct ompi_op_t *op)
{
    return &ompi_mpi_op_replace.op == op;
}

/**
 * Take the accumulate lock @p lock (a word of the target's lock segment)
 * for a data movement of the caller's that is then atomic per element with
 * every accumulate applied to that memory: a cross-memory copy of an
 * MPI_REPLACE or MPI_NO_OP.  Never held across progress.
 */
void ompi_osc_newrma_acc_lock_take(volatile int32_t *lock);
void ompi_osc_newrma_acc_lock_release(volatile int32_t *lock);
/** The accumulate lock word as a sequence: odd while someone holds it,
 * changed by every take and release; read before the data it covers. */
int32_t ompi_osc_newrma_acc_lock_seq(volatile int32_t *lock);

/** One application of an accumulate to target memory. */
typedef struct {
    /** target memory: @p target_count elements of @p target_dt at @p base */
    char *base;
    struct ompi_datatype_t *target_dt;
    int target_count;
    /** the part of the packed data stream applied by this call */
    size_t offset;
    size_t len;
    /** packed operands of that part; NULL for MPI_NO_OP */
    const char *origin;
    /** COMPARE_AND_SWAP: the packed compare value, else NULL */
    const char *compare;
    /** packed old values are stored here when not NULL */
    char *result;
    struct ompi_datatype_t *basic;
    struct ompi_op_t *op;
    /** the target's accumulate lock */
    volatile int32_t *lock;
    /** the window's atomicity rule (ompi_osc_newrma_acc_plain):
     * the whole access under @p lock with plain loads, stores and the
     * (vectorized) reduction, instead of CPU atomics per element */
    bool plain;
    /** @p origin is not packed but laid out as the target (@p target_count
     * elements of @p target_dt from it, the whole access): an operand lies
     * where its element lies from @p base.  Only for a reduction under the
     * plain rule of elements stored without padding (no CAS); anything
     * else fails with OMPI_ERR_BAD_PARAM */
    bool origin_in_layout;
} ompi_osc_newrma_acc_apply_t;

/** Apply, atomically per element. */
int ompi_osc_newrma_acc_apply(const ompi_osc_newrma_acc_apply_t *a);

/**
 * The plain rule's common case in one step: @p bytes of contiguous
 * elements of the predefined @p basic at @p target, reduced with @p op from
 * @p origin (old values first to @p result, if not NULL), under @p lock.
 * Any predefined op valid on @p basic (a loop of its own, MPI_REPLACE,
 * MPI_NO_OP of a fetching kind, Open MPI's reduction for the rest), on
 * elements stored without padding; @return false, having done nothing,
 * for anything else (ompi_osc_newrma_acc_apply then).  The caller checked
 * the types and the range.
 */
bool ompi_osc_newrma_acc_contig(ompi_osc_newrma_op_kind_t kind, struct ompi_op_t *op,
                                struct ompi_datatype_t *basic, char *target, const char *origin,
                                char *result, size_t bytes, volatile int32_t *lock);

/** ompi_osc_newrma_acc_contig under the lock the caller holds: a reduction
 * its origin shares with the target's agent, the origin holding the lock
 * throughout (ompi_osc_newrma_mbox_share_reduce). */
bool ompi_osc_newrma_acc_contig_held(ompi_osc_newrma_op_kind_t kind, struct ompi_op_t *op,
                                     struct ompi_datatype_t *basic, char *target,
                                     const char *origin, char *result, size_t bytes);

/** Whether ompi_osc_newrma_acc_contig serves an MPI_Accumulate of @p op
 * (a reduction: not MPI_REPLACE, not MPI_NO_OP) on elements of @p basic;
 * true only for elements stored as they travel (acc_in_place). */
bool ompi_osc_newrma_acc_reduces(struct ompi_op_t *op, struct ompi_datatype_t *basic);

/**
 * The plain rule's access to @p count elements of a predefined pair type
 * with padding (MPI_SHORT_INT, MPI_LONG_INT, MPI_DOUBLE_INT,
 * MPI_LONG_DOUBLE_INT), laid out at the type's extent on every side,
 * under @p lock: MPI_MAXLOC or MPI_MINLOC by
 * Open MPI's reduction in place, MPI_REPLACE and fetches copying each
 * element's data bytes (never the padding, which is not the caller's to
 * write).  @return false, having done nothing, for any other type or op.
 * The caller checked the types and the range.
 */
bool ompi_osc_newrma_acc_padded(ompi_osc_newrma_op_kind_t kind, struct ompi_op_t *op,
                                struct ompi_datatype_t *basic, char *target, const char *origin,
                                char *result, size_t count, volatile int32_t *lock);

/** The plain rule's COMPARE_AND_SWAP of one element of @p basic (1, 2, 4
 * or 8 bytes without padding, a type MPI allows CAS on: integer, logical
 * and byte types; @return false, having done nothing, for any other, which
 * the full way reports) under @p lock: the old value to @p result, @p value
 * stored when the old one equals @p compare bit for bit. */
bool ompi_osc_newrma_acc_cas_contig(struct ompi_datatype_t *basic, char *target, const char *value,
                                    const char *compare, char *result, volatile int32_t *lock);

/** True for the integer types (C and Fortran, every width). */
bool ompi_osc_newrma_acc_integer(struct ompi_datatype_t *basic);

/** True for elements stored as they travel, without padding (not
 * MPI_DOUBLE_INT and the other pairs of mixed widths): under the
 * accumulate lock they are reduced in place, and an origin in the
 * target's layout can be read where it lies. */
bool ompi_osc_newrma_acc_in_place(struct ompi_datatype_t *basic);

/** Ops a single CPU (or UCX) atomic performs on an integer element. */
typedef enum {
    OMPI_OSC_NEWRMA_ACC_FAST_NONE = 0, /* compare-exchange loop around the reduction */
    OMPI_OSC_NEWRMA_ACC_FAST_REPLACE,
    OMPI_OSC_NEWRMA_ACC_FAST_ADD,
    OMPI_OSC_NEWRMA_ACC_FAST_AND,
    OMPI_OSC_NEWRMA_ACC_FAST_OR,
    OMPI_OSC_NEWRMA_ACC_FAST_XOR
} ompi_osc_newrma_acc_fast_t;

/** Which single atomic performs @p op on elements of @p basic. */
ompi_osc_newrma_acc_fast_t ompi_osc_newrma_acc_fast(struct ompi_op_t *op,
                                                    struct ompi_datatype_t *basic);

#endif /* OMPI_OSC_NEWRMA_BASE_ACC_H */
