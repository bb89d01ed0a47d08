/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: accumulates issued by the origin over UCX (see
 * osc_newrma_origin_acc.h).
 */
#include "ompi_config.h"

#include <string.h>

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"

#include "osc_newrma.h"
#include "osc_newrma_am_pkt.h"
#include "osc_newrma_am_data.h"
#include "osc_newrma_base_acc.h"
#include "osc_newrma_base_dtype.h"
#include "osc_newrma_origin_acc.h"
#include "osc_newrma_transport_ucx.h"

/* @p chunk rounded down to whole elements of @p basic (one at least) */
static size_t acc_whole_elements(struct ompi_datatype_t *basic, size_t chunk)
{
    size_t size;

    ompi_datatype_type_size(basic, &size);
    return chunk >= size ? chunk / size * size : size;
}

size_t ompi_osc_newrma_acc_chunk(const ompi_osc_newrma_module_t *module,
                                 struct ompi_datatype_t *basic, size_t desc_len)
{
    size_t chunk = OMPI_OSC_NEWRMA_ACC_CHUNK, fits;

    /* a chunk with its layout description, and a fetching one's reply, each
     * fill at most one aggregated message: a larger one goes alone, and over
     * UCX's TCP transport one above its receive segment is several times
     * slower */
    fits = ompi_osc_newrma_pkt_chunk_max(module);
    if (module->config.aggregate_bytes > 0 && fits > desc_len && fits - desc_len < chunk) {
        chunk = fits - desc_len;
    }
    return acc_whole_elements(basic, chunk);
}

size_t ompi_osc_newrma_acc_rndv_chunk(struct ompi_datatype_t *basic, bool whole)
{
    return acc_whole_elements(basic, whole ? OMPI_OSC_NEWRMA_ACC_RNDV_WHOLE_CHUNK
                                           : OMPI_OSC_NEWRMA_ACC_RNDV_CHUNK);
}

int ompi_osc_newrma_acc_result_stream(ompi_osc_newrma_op_t *op)
{
    ptrdiff_t offset;

    if (NULL != op->result_stream) {
        return OMPI_SUCCESS;
    }
    /* a contiguous result buffer takes the replies itself: a malloc'd
     * stream of 128 KiB or more was mapped, faulted in and unmapped (or the
     * heap's top grown and trimmed) per operation, a TLB shootdown each
     * time, and its copy came on top; and a small one's unpacking through
     * the datatype engine cost 280 instructions of a FETCH_AND_OP */
    op->result_direct = ompi_osc_newrma_dtype_contig(op->result_dt, op->result_count, &offset);
    op->result_stream = op->result_direct                        ? (char *) op->result_addr + offset
                        : op->bytes <= sizeof(op->result_inline) ? op->result_inline
                                                                 : malloc(op->bytes);
    return NULL == op->result_stream ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

/* ---- origin side over UCX ---- */

/* The UCX atomic for one 4- or 8-byte integer element, or -1. */
static int acc_ucx_opcode(ompi_osc_newrma_op_t *op)
{
    if (OMPI_OSC_NEWRMA_OP_CAS == op->kind) {
        return UCP_ATOMIC_OP_CSWAP;
    }
    if (ompi_osc_newrma_acc_is_no_op(op->acc_op)) {
        return UCP_ATOMIC_OP_OR; /* fetch-or 0: an atomic read */
    }
    switch (ompi_osc_newrma_acc_fast(op->acc_op, op->acc_basic)) {
        case OMPI_OSC_NEWRMA_ACC_FAST_REPLACE:
            return UCP_ATOMIC_OP_SWAP;
        case OMPI_OSC_NEWRMA_ACC_FAST_ADD:
            return UCP_ATOMIC_OP_ADD;
        case OMPI_OSC_NEWRMA_ACC_FAST_AND:
            return UCP_ATOMIC_OP_AND;
        case OMPI_OSC_NEWRMA_ACC_FAST_OR:
            return UCP_ATOMIC_OP_OR;
        case OMPI_OSC_NEWRMA_ACC_FAST_XOR:
            return UCP_ATOMIC_OP_XOR;
        default:
            return -1;
    }
}

/* One element, contiguous on both sides, integer of 4 or 8 bytes, aligned. */
static int acc_atomic_opcode(ompi_osc_newrma_op_t *op, uint64_t *raddr_p)
{
    ptrdiff_t toff;
    size_t size;

    ompi_datatype_type_size(op->acc_basic, &size);
    if (op->bytes != size || (4 != size && 8 != size) ||
        (OMPI_OSC_NEWRMA_OP_CAS != op->kind && !ompi_osc_newrma_acc_integer(op->acc_basic)) ||
        !ompi_osc_newrma_dtype_contig(op->target_dt, op->target_count, &toff)) {
        return -1;
    }
    *raddr_p = op->target_addr + (uint64_t) toff;
    if (0 != *raddr_p % size) {
        return -1;
    }
    return acc_ucx_opcode(op);
}

static int acc_issue_atomic(ompi_osc_newrma_target_t *target, ompi_osc_newrma_op_t *op, int opcode,
                            uint64_t raddr, const char *stream)
{
    bool fetch = ompi_osc_newrma_op_kind_fetches(op->kind) || UCP_ATOMIC_OP_SWAP == opcode;
    int ret;

    /* the operand must outlive the request: keep it in the op element */
    if (OMPI_OSC_NEWRMA_OP_CAS == op->kind) {
        memcpy(op->operand, op->compare, op->bytes);
    } else if (NULL != stream) {
        memcpy(op->operand, stream, op->bytes);
    } else {
        memset(op->operand, 0, op->bytes);
    }
    if (fetch) {
        ret = ompi_osc_newrma_acc_result_stream(op);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
        if (OMPI_OSC_NEWRMA_OP_CAS == op->kind) {
            memcpy(op->result_stream, stream, op->bytes); /* CSWAP: the new value */
        }
    }
    target->needs_rma_done = true; /* remote completion: the endpoint flush */
    return ompi_osc_newrma_ucx_atomic(op, op->ep, (ucp_atomic_op_t) opcode, op->operand, op->bytes,
                                      fetch ? op->result_stream : NULL, raddr, op->rkey);
}

/* The operation of an ACC packet: its kind, op and basic type, as the
 * target looks them up (acc_apply_hdr). */
static void acc_pkt_operation(ompi_osc_newrma_pkt_hdr_t *hdr, ompi_osc_newrma_op_kind_t kind,
                              const struct ompi_op_t *acc_op, const struct ompi_datatype_t *basic)
{
    hdr->kind = (uint8_t) kind;
    hdr->acc_op = (uint16_t) (NULL != acc_op ? acc_op->o_f_to_c_index : 0);
    hdr->acc_dt = (uint16_t) basic->d_f_to_c_index;
}

void ompi_osc_newrma_acc_pkt_fill(struct ompi_osc_newrma_pkt_hdr_t *hdr, ompi_osc_newrma_op_t *op)
{
    acc_pkt_operation(hdr, op->kind, op->acc_op, op->acc_basic);
    hdr->tag2 = (uint64_t) (uintptr_t) op;
    if (ompi_osc_newrma_op_kind_fetches(op->kind)) {
        hdr->flags |= OMPI_OSC_NEWRMA_PKT_FLAG_GET;
    }
}

/* Whether @p op goes by rendezvous to a target whose transport emulates
 * RDMA (TCP): an accumulate of at least rndv_threshold bytes.  Its operands
 * land in a buffer at the target, in chunks of OMPI_OSC_NEWRMA_ACC_RNDV_CHUNK,
 * and are applied from there in one pass each, as osc/pt2pt's receive
 * does; a fetching one's old values come back the same way, straight into
 * the result stream.  In eager chunks of 64 KiB over TCP every byte was
 * copied once more, out of UCX's receive segment (an MPI_REPLACE of 2 MiB
 * in a lock epoch took 2-4 times osc/pt2pt's time; by rendezvous 0.77-0.93
 * times the eager chunks' in one run); over UCX's shared memory the eager
 * chunks were faster (0.54-0.85 times).  A chunk's rendezvous costs UCX's
 * TCP put_zcopy scheme (the component's) some 60 us of round trips, and the
 * next chunk lands only after it: a 2 MiB MPI_Get_accumulate SUM in a lock
 * epoch took 2240-2370 us in chunks of 64 KiB, 1730-1770 in 128 KiB,
 * 1250-1320 in 256 KiB, 710-830 in 512 KiB, 690-740 in 1 MiB and 760-810
 * in one (osc/pt2pt 740-830; 2026-12-01).  Letting the next chunk land
 * beside the last was slower still (4 MiB 2100-2700 against 1470-1610).
 * An MPI_REPLACE stays whole: it lands straight in the window under the
 * lock, and a second chunk waited for the first (2 MiB under PSCW 324-413
 * us in two chunks, 281-316 in one). */
static bool acc_rndv(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                     const ompi_osc_newrma_op_t *op)
{
    return OMPI_OSC_NEWRMA_OP_CAS != op->kind && ompi_osc_newrma_pkt_rndv(module, op->bytes) &&
           ompi_osc_newrma_pkt_target_emulated(module, target);
}

/* One ACC packet.  Operands beyond aggregate_threshold go straight from the
 * origin's stream (the op completes when UCX has sent them), as large PUTs
 * do: copying them into the aggregated message cost more than sending it
 * (fresh pages for every message); by rendezvous when @p rndv. */
static int acc_send_chunk(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                          ompi_osc_newrma_op_t *op, ompi_osc_newrma_pkt_hdr_t *hdr,
                          const void *desc, size_t desc_len, const char *data, size_t data_len,
                          bool rndv)
{
    int ret;

    if (NULL != data && OMPI_OSC_NEWRMA_OP_CAS != op->kind &&
        (rndv || op->bytes > module->config.aggregate_threshold)) {
        return ompi_osc_newrma_pkt_send_op(module, target, op, hdr, desc, desc_len, data, data_len,
                                           rndv);
    }
    ret = ompi_osc_newrma_pkt_batch_add(module, target, hdr, desc, desc_len, data, data_len);
    if (OMPI_SUCCESS == ret) {
        target->am_sent++;
    }
    return ret;
}

/* A large MPI_NO_OP read by rendezvous that the target may answer from
 * its window without the accumulate lock (OMPI_OSC_NEWRMA_PKT_FLAG_UNLOCKED,
 * read_unlocked): a contiguous target range, under the plain rule (no UCX
 * or CPU atomic writes without the lock). */
static bool acc_unlocked(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_op_t *op)
{
    ptrdiff_t toff;

    return mca_osc_newrma_component.read_unlocked && OMPI_OSC_NEWRMA_OP_GACC == op->kind &&
           ompi_osc_newrma_acc_is_no_op(op->acc_op) && ompi_osc_newrma_acc_plain(module) &&
           ompi_osc_newrma_dtype_contig(op->target_dt, op->target_count, &toff);
}

/* One ACC packet that may be answered without the lock: alone in its
 * message, after what was aggregated before it, so that the target's hold
 * on its origin's later packets (ompi_osc_newrma_pkt_answer_rndv) covers
 * every one of them; the description is all its payload. */
static int acc_send_unlocked(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                             ompi_osc_newrma_op_t *op, ompi_osc_newrma_pkt_hdr_t *hdr,
                             const void *desc, size_t desc_len)
{
    return ompi_osc_newrma_pkt_send_op(module, target, op, hdr, NULL, 0, desc, desc_len, false);
}

/* ACC packets: the target layout's description, then the operands of one
 * chunk (and, for CAS, the compare value).  A chunk read without the lock
 * is answered twice (FLAG_UNLOCKED), and in one piece: the target's copy
 * that the chunks overlapped is gone. */
static int acc_issue_packets(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                             ompi_osc_newrma_op_t *op, const char *stream)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};
    size_t desc_len = ompi_datatype_pack_description_length(op->target_dt);
    bool rndv = acc_rndv(module, target, op);
    bool fetch = ompi_osc_newrma_op_kind_fetches(op->kind);
    bool unlocked = rndv && acc_unlocked(module, op);
    int32_t answers = unlocked ? 2 : 1;
    bool whole = unlocked || (!fetch && ompi_osc_newrma_acc_is_replace(op->acc_op));
    size_t chunk = rndv ? ompi_osc_newrma_acc_rndv_chunk(op->acc_basic, whole)
                        : ompi_osc_newrma_acc_chunk(module, op->acc_basic, desc_len);
    char cas[2 * OMPI_OSC_NEWRMA_ACC_INLINE];
    const void *desc;
    int ret = ompi_datatype_get_pack_description(op->target_dt, &desc);

    if (OMPI_SUCCESS == ret && fetch) {
        ret = ompi_osc_newrma_acc_result_stream(op);
    }
    if (OMPI_OSC_NEWRMA_OP_CAS == op->kind) {
        memcpy(cas, stream, op->bytes);
        memcpy(cas + op->bytes, op->compare, op->bytes);
        stream = cas;
    }
    hdr.type = OMPI_OSC_NEWRMA_PKT_ACC;
    hdr.addr = op->target_addr;
    hdr.count = (uint32_t) op->target_count;
    hdr.desc_len = (uint32_t) desc_len;
    ompi_osc_newrma_acc_pkt_fill(&hdr, op);
    if (rndv && fetch) {
        hdr.flags |= OMPI_OSC_NEWRMA_PKT_FLAG_RNDV; /* the old values by rendezvous */
    }
    if (unlocked) {
        hdr.flags |= OMPI_OSC_NEWRMA_PKT_FLAG_UNLOCKED;
    }
    for (size_t offset = 0; OMPI_SUCCESS == ret && offset < op->bytes; offset += chunk) {
        size_t len = op->bytes - offset < chunk ? op->bytes - offset : chunk;
        size_t data_len = NULL == stream ? 0 : OMPI_OSC_NEWRMA_OP_CAS == op->kind ? 2 * len : len;
        hdr.tag = offset;
        hdr.len = len;
        if (fetch) {
            opal_atomic_add_fetch_32(&op->outstanding, answers); /* its ACC_REPLYs */
        }
        ret = unlocked ? acc_send_unlocked(module, target, op, &hdr, desc, desc_len)
                       : acc_send_chunk(module, target, op, &hdr, desc, desc_len,
                                        NULL == stream ? NULL : stream + offset, data_len, rndv);
        if (OMPI_SUCCESS != ret && fetch) {
            opal_atomic_add_fetch_32(&op->outstanding, -answers);
        }
    }
    OSC_NEWRMA_VERBOSE(30, "accumulate of %zu bytes to rank %d as packets%s", op->bytes,
                       target->rank, rndv ? " by rendezvous" : "");
    return ret;
}

/* Not under the plain rule (a UCX atomic would not take the target's
 * lock), nor where one would overtake another origin's packets of the
 * epoch a fence ended (ompi_osc_newrma_peer_bypass_ok). */
static bool acc_atomics_ok(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_target_t *target)
{
    return !ompi_osc_newrma_acc_plain(module) &&
           ompi_osc_newrma_peer_bypass_ok(module, ompi_osc_newrma_peer(module, target->rank));
}

int ompi_osc_newrma_acc_issue(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                              ompi_osc_newrma_op_t *op, const char *stream)
{
    bool ordered = module->config.acc_ordered;
    bool acked = 0 == *ompi_osc_newrma_ack_counter(module, target);
    uint64_t raddr = 0;
    int opcode = acc_atomics_ok(module, target) ? acc_atomic_opcode(op, &raddr) : -1, ret;

    if (ordered && OMPI_OSC_NEWRMA_ACC_CHANNEL_NONE == target->acc_channel && !acked) {
        /* a fresh element, but an earlier one for this target may still
         * have accumulates in flight on either channel: order after both */
        ret = ompi_osc_newrma_ucx_fence();
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
        target->acc_channel = OMPI_OSC_NEWRMA_ACC_CHANNEL_AM;
    }
    /* packets are applied later by the target's agent: atomics must not
     * overtake them, so the packet channel stays until it has drained */
    if (ordered && OMPI_OSC_NEWRMA_ACC_CHANNEL_AM == target->acc_channel && 0 == target->am_sent &&
        acked) {
        target->acc_channel = OMPI_OSC_NEWRMA_ACC_CHANNEL_NONE;
    }
    if (opcode >= 0 && !(ordered && OMPI_OSC_NEWRMA_ACC_CHANNEL_AM == target->acc_channel)) {
        if (ordered && OMPI_OSC_NEWRMA_ACC_CHANNEL_ATOMIC == target->acc_channel) {
            ret = ompi_osc_newrma_ucx_fence(); /* atomic after atomic, in order */
            if (OMPI_SUCCESS != ret) {
                return ret;
            }
        }
        target->acc_channel = OMPI_OSC_NEWRMA_ACC_CHANNEL_ATOMIC;
        ompi_osc_newrma_stat_op(&module->stats, op->kind, OMPI_OSC_NEWRMA_STAT_OPS_ATOMIC,
                                op->bytes);
        return acc_issue_atomic(target, op, opcode, raddr, stream);
    }
    if (ordered && OMPI_OSC_NEWRMA_ACC_CHANNEL_ATOMIC == target->acc_channel) {
        ret = ompi_osc_newrma_ucx_fence(); /* atomics complete before the packets */
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
    }
    target->acc_channel = OMPI_OSC_NEWRMA_ACC_CHANNEL_AM;
    ompi_osc_newrma_stat_op(&module->stats, op->kind, OMPI_OSC_NEWRMA_STAT_OPS_PACKET, op->bytes);
    return acc_issue_packets(module, target, op, stream);
}

/* An ACC packet of its own: header, the target layout's description, the
 * operands. */
static int acc_packed_packet(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                             struct ompi_op_t *op, struct ompi_datatype_t *basic,
                             struct ompi_datatype_t *target_dt, int target_count, uint64_t taddr,
                             const void *data, size_t bytes, size_t desc_len)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};
    const void *desc;
    int ret = ompi_datatype_get_pack_description(target_dt, &desc);

    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    hdr.type = OMPI_OSC_NEWRMA_PKT_ACC;
    acc_pkt_operation(&hdr, OMPI_OSC_NEWRMA_OP_ACC, op, basic);
    hdr.addr = taddr;
    hdr.count = (uint32_t) target_count;
    hdr.desc_len = (uint32_t) desc_len;
    hdr.len = bytes;
    return ompi_osc_newrma_pkt_batch_add(module, target, &hdr, desc, desc_len, data, bytes);
}

/* A record of an ACCS packet serves an accumulate of at most
 * OMPI_OSC_NEWRMA_PKT_RECS_MAX bytes of elements that lie one after the
 * other (not a pair type with a gap), unless acc_records is off.  An ACC
 * packet took 64 bytes of header and the type's description for 8 bytes
 * of data, and its target looked both up per packet. */
static bool acc_packed_record(struct ompi_datatype_t *target_dt, int target_count, size_t bytes)
{
    return mca_osc_newrma_component.acc_records && bytes <= OMPI_OSC_NEWRMA_PKT_RECS_MAX &&
           ompi_datatype_is_contiguous_memory_layout(target_dt, target_count);
}

int ompi_osc_newrma_acc_packed(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                               struct ompi_op_t *op, struct ompi_datatype_t *basic,
                               struct ompi_datatype_t *target_dt, int target_count, uint64_t taddr,
                               const void *data, size_t bytes)
{
    bool ordered = module->config.acc_ordered;
    size_t desc_len;
    int ret;

    /* what acc_issue would send as one packet without a fence: the plain
     * rule (no UCX atomic), one chunk copied into the message, and in
     * order behind earlier accumulates (the packet channel, or a fresh
     * element with nothing unacknowledged) */
    if (!ompi_osc_newrma_acc_plain(module) || bytes > module->config.aggregate_threshold ||
        (ordered && OMPI_OSC_NEWRMA_ACC_CHANNEL_AM != target->acc_channel &&
         (OMPI_OSC_NEWRMA_ACC_CHANNEL_NONE != target->acc_channel ||
          0 != *ompi_osc_newrma_ack_counter(module, target)))) {
        return OMPI_ERR_NOT_AVAILABLE;
    }
    if (acc_packed_record(target_dt, target_count, bytes)) {
        /* one chunk: a batch too small for the record sends it alone */
        ret = ompi_osc_newrma_pkt_batch_accs(module, target, (uint16_t) op->o_f_to_c_index,
                                             (uint16_t) basic->d_f_to_c_index, data, bytes, taddr);
        OMPI_OSC_NEWRMA_STAT_ADD(module, ACC_RECORDS, OMPI_SUCCESS == ret);
    } else {
        desc_len = ompi_datatype_pack_description_length(target_dt);
        if (bytes > ompi_osc_newrma_acc_chunk(module, basic, desc_len)) {
            return OMPI_ERR_NOT_AVAILABLE;
        }
        ret = acc_packed_packet(module, target, op, basic, target_dt, target_count, taddr, data,
                                bytes, desc_len);
    }
    if (OMPI_SUCCESS == ret) {
        target->am_sent++;
        target->acc_channel = OMPI_OSC_NEWRMA_ACC_CHANNEL_AM;
    }
    return ret;
}

/* Origin side: ACC_REPLY with old values of a fetching accumulate. */
static void acc_handle_reply(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    ompi_osc_newrma_op_t *op = (void *) (uintptr_t) pkt->hdr.tag2;

    (void) module;
    if (pkt->rndv || (pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_LANDED)) {
        ompi_osc_newrma_pkt_land_reply(op, op->result_stream, pkt);
        return;
    }
    ompi_osc_newrma_pkt_deliver_reply(op, op->result_stream, pkt);
}

void ompi_osc_newrma_acc_register_reply_handler(void)
{
    ompi_osc_newrma_pkt_handler_register(OMPI_OSC_NEWRMA_PKT_ACC_REPLY, acc_handle_reply);
}
