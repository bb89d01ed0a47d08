/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: accumulates as the origin issues them over UCX: one UCX
 * atomic, or ACC packets pipelined chunk by chunk (osc_newrma_base_acc.h
 * says which, per window).
 */
#ifndef OMPI_OSC_NEWRMA_ORIGIN_ACC_H
#define OMPI_OSC_NEWRMA_ORIGIN_ACC_H

#include "ompi_config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "osc_newrma_base_types.h"

struct ompi_datatype_t;
struct ompi_op_t;
struct ompi_osc_newrma_pkt_hdr_t;

/** Pipeline chunk of ACC packets (rounded down to whole elements), at most
 * what one aggregated message holds. */
#define OMPI_OSC_NEWRMA_ACC_CHUNK (64 * 1024)

/** Chunk of an accumulate sent by rendezvous (rounded down to whole
 * elements): the target lands each in a buffer of this size, one after
 * another, and a fetching one's old values of one chunk travel back while
 * the next chunk's operands travel out. */
#define OMPI_OSC_NEWRMA_ACC_RNDV_CHUNK (1024 * 1024)

/** Chunk of a read answered without the accumulate lock, or of an
 * MPI_REPLACE (whose operands may land straight in the window): in one
 * piece. */
#define OMPI_OSC_NEWRMA_ACC_RNDV_WHOLE_CHUNK (8 * 1024 * 1024)

/** Bytes per rendezvous chunk for elements of @p basic, of a read without
 * the lock or an MPI_REPLACE when @p whole. */
size_t ompi_osc_newrma_acc_rndv_chunk(struct ompi_datatype_t *basic, bool whole);

/** Bytes per pipeline chunk for elements of @p basic whose packets carry a
 * layout description of @p desc_len bytes. */
size_t ompi_osc_newrma_acc_chunk(const ompi_osc_newrma_module_t *module,
                                 struct ompi_datatype_t *basic, size_t desc_len);

/** Staging buffer for the fetched old values of @p op (allocated once). */
int ompi_osc_newrma_acc_result_stream(ompi_osc_newrma_op_t *op);

/**
 * Issue the accumulate @p op to @p target over UCX (window lock held);
 * @p stream holds the packed operands (NULL for NO_OP).
 */
int ompi_osc_newrma_acc_issue(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                              ompi_osc_newrma_op_t *op, const char *stream);

/**
 * An MPI_Accumulate of @p bytes of operands at @p data (a predefined
 * @p basic type, @p target_count elements of @p target_dt at @p taddr)
 * packed by the call into @p target's aggregated message, without an op
 * element, where ompi_osc_newrma_acc_issue would send it as one packet
 * (window lock held).  @return OMPI_ERR_NOT_AVAILABLE when it would not:
 * the call then takes the full way.
 */
int ompi_osc_newrma_acc_packed(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                               struct ompi_op_t *op, struct ompi_datatype_t *basic,
                               struct ompi_datatype_t *target_dt, int target_count, uint64_t taddr,
                               const void *data, size_t bytes);

/** Fill the accumulate fields of a packet header for @p op. */
void ompi_osc_newrma_acc_pkt_fill(struct ompi_osc_newrma_pkt_hdr_t *hdr, ompi_osc_newrma_op_t *op);

/** Register the ACC_REPLY handler (old values of a fetching accumulate)
 * with the packet layer (component init). */
void ompi_osc_newrma_acc_register_reply_handler(void);

#endif /* OMPI_OSC_NEWRMA_ORIGIN_ACC_H */
