/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: issuing and retiring operation elements (used by the basic
 * routines in osc_newrma_progress.c).  Caller holds the window lock.
 */
#ifndef OMPI_OSC_NEWRMA_OPS_H
#define OMPI_OSC_NEWRMA_OPS_H

#include "osc_newrma_base_types.h"

/** Below this average block size (bytes) a PUT's target layout is sent as
 * packets rather than one RDMA transfer per block. */
#define OMPI_OSC_NEWRMA_PUT_SEGMENT_MIN 256

/**
 * @p op, such a transfer (ompi_osc_newrma_op_by_cma), took @p ns
 * nanoseconds by way @p way (OMPI_OSC_NEWRMA_CMA_WAY_*): a sample for the
 * window's pick between the copy and UCX's transfer (window lock held).
 */
void ompi_osc_newrma_op_cma_record(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_op_t *op,
                                   int way, uint64_t ns);

/**
 * @p op, complete, was an MPI_NO_OP read by UCX's transfer without its
 * target's accumulate lock (read_seq_word set): if the lock word moved
 * meanwhile, read it again by the cross-memory copy under the lock, before
 * its result is delivered (window lock held).  Else nothing.
 */
int ompi_osc_newrma_op_read_verify(ompi_osc_newrma_module_t *module, ompi_osc_newrma_op_t *op);

/**
 * @p op (a contiguous PUT or GET of at least osc_newrma_cma_bytes to a
 * node-local peer, on a window with osc_newrma_shm on, the only op in
 * @p target's list) goes as one cross-memory copy, complete when issued.
 * Looks the peer's process id up once.
 */
bool ompi_osc_newrma_op_by_cma(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                               const ompi_osc_newrma_op_t *op);

/** True when a PUT or GET @p op to @p target travels as packets behind the
 * target's other packets (a contiguous target layout with aggregation on,
 * small and not alone at a peer with RDMA, or to a peer whose RDMA is
 * emulated; or a target layout of many small blocks, sent with its
 * description), so it is ordered after them. */
bool ompi_osc_newrma_op_as_packets(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_target_t *target,
                                   const ompi_osc_newrma_op_t *op);

/** The epoch lets ops of @p target go out now: FENCE or PSCW granted, or
 * its lock LOCK_GRANTED (not FENCE_ISSUED, when other processes may not
 * have entered the fence, nor a lock still being acquired); on a window
 * that is one node's segment with RMA by UCX, the target has applied the
 * last fence's packets too. */
bool ompi_osc_newrma_target_open(ompi_osc_newrma_module_t *module,
                                 const ompi_osc_newrma_target_t *target);

/** A window all on one node's segment, whose MPI_Win_wait counts the
 * segment's COMPLETE flags too: an epoch that sent @p target no PUT or ACC
 * packet (RDMA, mailbox ops, answered GETs) completes by the flag, without
 * a packet for its agent (and the ops MPI_Win_complete issues have no
 * packet to ride with). */
bool ompi_osc_newrma_target_complete_by_flag(const ompi_osc_newrma_module_t *module,
                                             const ompi_osc_newrma_target_t *target);

/** Completion of a GET or PUT by RDMA at the call (no op element; @p ctx
 * is its target element): records a failure as the window's error, then
 * counts the element's owed_at_call down.  Registered with the transport. */
void ompi_osc_newrma_rdma_at_call_done(void *ctx, int status);

/** Start the transfers of a PENDING op (it is marked ISSUED by the caller). */
int ompi_osc_newrma_op_issue(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                             ompi_osc_newrma_op_t *op);

/** Retire a completed op: deliver staged GET data, release it to the pools. */
int ompi_osc_newrma_op_finish(ompi_osc_newrma_module_t *module, ompi_osc_newrma_op_t *op);

/** RDMA writes to @p target not flushed yet: start the endpoint flush, whose
 * completion decrements *@p counter. */
int ompi_osc_newrma_op_flush_writes(ompi_osc_newrma_module_t *module,
                                    ompi_osc_newrma_target_t *target,
                                    ompi_osc_newrma_atomic_t *counter);

/** Issue RMA_DONE to @p target; its acknowledgement decrements *@p counter
 * (ompi_osc_newrma_ack_counter()). */
int ompi_osc_newrma_op_rma_done(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                                ompi_osc_newrma_atomic_t *counter);

#endif /* OMPI_OSC_NEWRMA_OPS_H */
