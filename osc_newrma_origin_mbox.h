/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: small operations through a node-local target's mailbox
 * (osc_newrma_mailbox), the origin's side; the target's in
 * osc_newrma_target_mbox.h.
 *
 * A window whose memory is the user's (MPI_Win_create, dynamic) and whose
 * ranks are all on one node has a segment of synchronization words, with
 * mailbox slots per rank (osc_newrma_transport_shm.h).  A contiguous PUT,
 * GET or accumulate-class op that fits (ompi_osc_newrma_mbox_fits), alone
 * at its target with nothing before it unacknowledged, is written into a
 * free slot of the target's mailbox (or the slot's area, when larger than
 * the slot); the target's agent applies it (an
 * accumulate exactly as an ACC packet: the same atomicity rule and lock) and
 * answers in the slot.  Until the answer is taken nothing else goes to that
 * target, and a flush, UNLOCK, COMPLETE or fence waits for it; an op that
 * fetches nothing is complete locally once posted.
 */
#ifndef OMPI_OSC_NEWRMA_ORIGIN_MBOX_H
#define OMPI_OSC_NEWRMA_ORIGIN_MBOX_H

#include "ompi_config.h"

#include <stdbool.h>

#include "osc_newrma_base_types.h"

struct ompi_op_t;
struct ompi_datatype_t;

/** One small contiguous access as the mailbox carries it. */
typedef struct {
    ompi_osc_newrma_op_kind_t kind;
    size_t bytes;
    /** the target address of its first byte */
    uint64_t addr;
    /** PUT data or accumulate operands; NULL for a GET or MPI_NO_OP */
    const char *operands;
    /** CAS: the compare value */
    const void *compare;
    /** accumulate family: the reduction (NULL for CAS) and element type */
    struct ompi_op_t *acc_op;
    struct ompi_datatype_t *acc_basic;
    /** a fetching op: where its answer goes (contiguous, @p bytes) */
    char *dest;
    /** the slot carries where @p operands lie, not them: the target's agent
     * reads them by cross-memory copies (OMPI_OSC_NEWRMA_SHM_MBOX_BY_REF);
     * they stay untouched until its answer */
    bool by_ref;
} ompi_osc_newrma_mbox_access_t;

/**
 * An op of @p kind (reduction @p acc_op) and @p bytes fits a mailbox slot:
 * up to OMPI_OSC_NEWRMA_SHM_MBOX_BYTES in the slot itself; but for a CAS,
 * a reduction (not MPI_REPLACE, not MPI_NO_OP) up to
 * OMPI_OSC_NEWRMA_SHM_MBOX_AREA_BYTES in its area, any other op up to
 * OMPI_OSC_NEWRMA_SHM_MBOX_COPY_BYTES; not a PUT that RDMA serves
 * (osc_newrma_put_rdma_bytes).  A lone GET of 1-2 KiB is faster so than
 * by RDMA (2 KiB + flush 0.95 -> 0.78 us, under PSCW 2.74 -> 1.23); the
 * GETs of a stream behind it still go by RDMA.
 */
bool ompi_osc_newrma_mbox_fits(ompi_osc_newrma_op_kind_t kind, struct ompi_op_t *acc_op,
                               size_t bytes);

/**
 * The op of mine in @p target's mailbox slot only reads the target (a
 * GET): a later read may pass it.  False when the slot is free.
 */
bool ompi_osc_newrma_mbox_reads_only(const ompi_osc_newrma_target_t *target);

/** Nothing of this process at @p target but a slot the call posted (no op
 * element waits for its answer): an epoch may end before the answer, the
 * target applying its slots before it lets the next epoch at it. */
bool ompi_osc_newrma_mbox_only(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target);

/**
 * Origin, at the call itself (window lock held, the target's epoch open):
 * post @p access to @p target's mailbox when the target is idle (nothing
 * queued, in flight or unacknowledged) and a slot is free, without an op
 * element: the target element keeps where a fetching op's answer goes.
 * The call must carry no request.  @return true when it went (*@p ret_p
 * its result), false when it takes the op element's way.
 */
bool ompi_osc_newrma_mbox_post_access(ompi_osc_newrma_module_t *module,
                                      ompi_osc_newrma_target_t *target,
                                      const ompi_osc_newrma_mbox_access_t *access, int *ret_p);

/**
 * Origin: issue @p op (window lock held) through @p target's mailbox when
 * it qualifies and a slot is free; @p stream holds its packed operands (a
 * GET's destination).  @return true when it went (*@p ret_p its result),
 * false when it takes another path.
 */
bool ompi_osc_newrma_mbox_issue(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                                ompi_osc_newrma_op_t *op, char *stream, int *ret_p);

/**
 * Origin: as ompi_osc_newrma_mbox_issue, for an MPI_REPLACE or MPI_NO_OP
 * read that the slot's area holds (up to
 * OMPI_OSC_NEWRMA_SHM_MBOX_AREA_BYTES) and that the window's acc_pick
 * sent this way: timed from here until its answer is taken, a sample of
 * the mailbox's way for acc_pick[0] (REPLACE) or [1] (the read).
 */
bool ompi_osc_newrma_mbox_issue_timed(ompi_osc_newrma_module_t *module,
                                      ompi_osc_newrma_target_t *target, ompi_osc_newrma_op_t *op,
                                      char *stream, int *ret_p);

/** Moves bytes [@p offset, @p offset + @p len) of a streamed access that
 * the mailbox did not (ompi_osc_newrma_mbox_stream). */
typedef int (*ompi_osc_newrma_mbox_rest_fn_t)(void *arg, size_t offset, size_t len);

/**
 * Origin: an accumulate @p access (an MPI_REPLACE larger than a slot's
 * area, a reduction of acc_stream_bytes) to a target with nothing of mine
 * before it (window lock held), through @p target's mailbox, @p part
 * bytes (at most an area's) of whole elements per slot: the target's agent
 * applies one slot under its accumulate lock while this process fills the
 * other.  Two copies, each by one process at memory speed, in place of one
 * cross-memory copy that walks the target's pages (a 512 KiB MPI_REPLACE
 * under fence 47-49 us against 66-70).  Complete when it returns.  A slot
 * the agent has not taken within 50 us is taken back and the stream stops:
 * what the mailbox did not move, @p rest (@p arg) moves.
 * @return OMPI_ERR_NOT_AVAILABLE when no slot was free (nothing moved).
 */
int ompi_osc_newrma_mbox_stream(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                                const ompi_osc_newrma_mbox_access_t *access, size_t part,
                                ompi_osc_newrma_mbox_rest_fn_t rest, void *arg);

/**
 * A PUT (@p put) or GET of @p bytes between @p origin and @p taddr in
 * window rank @p rank's memory (process @p pid, on this node, reached by
 * the cross-memory copy), copied by this process and the target's agent at
 * once, chunk by chunk (ompi_osc_newrma_shm_mbox_share_t), through one of
 * its mailbox slots: the agent takes the chunks this process has not taken
 * yet when it polls, and this process takes them all when it does not.
 * Complete when it returns; what the agent failed to copy is copied again
 * here.  Window lock held.
 * @return OMPI_ERR_NOT_AVAILABLE when no slot was free (nothing moved) or
 *         the kernel refuses the copy; else the copy's status.
 */
int ompi_osc_newrma_mbox_share_copy(ompi_osc_newrma_module_t *module, int rank, int32_t pid,
                                    bool put, char *origin, uint64_t taddr, size_t bytes);

/**
 * ompi_osc_newrma_mbox_share_copy for a window in the node's segment
 * (module->seg_share_from): this process copies its chunks by memcpy between @p
 * origin and @p there (its mapping of the target's bytes, @p offset from
 * the target's base), the agent its own by the cross-memory copy from its
 * mapping.  Complete when it returns.  Needs no window lock.
 * @return OMPI_ERR_NOT_AVAILABLE when no slot was free or the target's
 *         agent does not poll (nothing moved); else OMPI_SUCCESS, or an
 *         error when the target died copying.
 */
int ompi_osc_newrma_mbox_share_segment(ompi_osc_newrma_module_t *module, int rank, bool put,
                                       char *origin, char *there, size_t offset, size_t bytes);

/**
 * ompi_osc_newrma_mbox_share_segment for an MPI_Accumulate of @p op (a
 * reduction ompi_osc_newrma_acc_reduces serves) on contiguous elements of
 * @p basic, or an MPI_Get_accumulate of it when @p result is not NULL (the
 * old values to @p result): this process reduces its chunks from @p origin
 * into @p there, the agent its own, read from @p origin by cross-memory
 * copies, into its mapping, the old values first written to @p result.  The caller holds the
 * target's accumulate lock throughout, which neither takes: the reduction is atomic per element as
 * one by the origin. Complete when it returns.
 * @return OMPI_ERR_NOT_AVAILABLE when no slot was free or the target's
 *         agent does not poll (nothing reduced); else OMPI_SUCCESS, or an
 *         error when the target died reducing.
 */
int ompi_osc_newrma_mbox_share_reduce(ompi_osc_newrma_module_t *module, int rank,
                                      struct ompi_op_t *op, struct ompi_datatype_t *basic,
                                      const char *origin, char *result, char *there, size_t offset,
                                      size_t bytes);

/** Origin: take the answer of @p target's slot if it has come (window lock
 * held).  @return 1 when taken, else 0. */
int ompi_osc_newrma_mbox_reap_target(ompi_osc_newrma_module_t *module,
                                     ompi_osc_newrma_target_t *target);

/** Origin: take the answers of @p module's slots that have them (window
 * lock held).  @return how many. */
int ompi_osc_newrma_mbox_reap(ompi_osc_newrma_module_t *module);

#endif /* OMPI_OSC_NEWRMA_ORIGIN_MBOX_H */
