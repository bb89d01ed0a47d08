/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: PUT and GET packets and the RMA_DONE family (RMA_DONE,
 * UNLOCK, COMPLETE, FENCE_DONE), both ends.  The target counts the PUT,
 * GET and ACC packets it applies per origin; an RMA_DONE carries how many
 * were sent before it, and is answered (or the UNLOCK released, the
 * COMPLETE or FENCE_DONE counted) once that many are applied, whatever
 * order they arrived in.
 */
#ifndef OMPI_OSC_NEWRMA_AM_DATA_H
#define OMPI_OSC_NEWRMA_AM_DATA_H

#include "ompi_config.h"

#include "osc_newrma_am_pkt.h"
#include "osc_newrma_base_types.h"

struct ompi_datatype_t;

/** Chunk size of the PUT packet pipeline. */
#define OMPI_OSC_NEWRMA_PKT_PUT_CHUNK (256 * 1024)

/**
 * Send @p op, a PUT, as packets: @p stream holds its bytes packed in target
 * datatype order; the target unpacks each chunk into op's target layout.
 * Chunks are copied into the target's aggregated message, or, where they
 * go by rendezvous, sent from @p stream (the op completes when UCX has sent
 * them).  Counts the packets in target->am_sent (window lock held).
 */
int ompi_osc_newrma_pkt_put(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                            ompi_osc_newrma_op_t *op, const char *stream);

/**
 * A PUT of @p len bytes at @p data (packed in target datatype order) to
 * @p count elements of @p dt at @p taddr, from the call: one described PUT
 * packet in @p target's aggregated message, as ompi_osc_newrma_pkt_put
 * sends an op element of that size, when it is one (the description and
 * the data within a chunk, not by rendezvous).  @return false when it is
 * not, nothing done; else true, *@p ret_p its status (window lock held).
 */
bool ompi_osc_newrma_pkt_put_described(ompi_osc_newrma_module_t *module,
                                       ompi_osc_newrma_target_t *target, struct ompi_datatype_t *dt,
                                       int count, const void *data, size_t len, uint64_t taddr,
                                       int *ret_p);

/**
 * Send a PUT of @p len contiguous bytes at @p data to [taddr, taddr+len) of
 * @p target as a packet, aggregated with the target's other packets
 * (ompi_osc_newrma_pkt_batch_flush).  The data is copied: the origin buffer
 * is free when this returns.
 */
int ompi_osc_newrma_pkt_put_contig(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_target_t *target, const void *data, size_t len,
                                   uint64_t taddr);

/**
 * @p op's packet @p hdr as an active message of its own, its payload
 * @p prefix then @p data straight from where they are (neither copied: they
 * must stay valid until @p op completes), after the target's aggregated
 * packets; counted in op->outstanding until UCX has sent it.  @p rndv:
 * by rendezvous, the target placing the payload (ompi_osc_newrma_pkt_land).
 */
int ompi_osc_newrma_pkt_send_op(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                                ompi_osc_newrma_op_t *op, ompi_osc_newrma_pkt_hdr_t *hdr,
                                const void *prefix, size_t prefix_len, const void *data, size_t len,
                                bool rndv);

/** A contiguous PUT or GET of @p bytes that travels as packets goes by
 * rendezvous (config.rndv_threshold). */
bool ompi_osc_newrma_pkt_rndv(const ompi_osc_newrma_module_t *module, size_t bytes);

/**
 * A chunk of a bulk PUT as a packet of its own, straight from @p data (the
 * origin buffer or @p op's bounce copy: no copy here), after the target's
 * aggregated packets; @p op completes when UCX has sent it.  @p rndv: the
 * whole PUT by rendezvous, received straight into the target's window.
 */
int ompi_osc_newrma_pkt_put_bulk(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                                 ompi_osc_newrma_op_t *op, const char *data, size_t len,
                                 uint64_t taddr, bool rndv);

/**
 * A small contiguous GET without an op element (packed by the MPI call):
 * one GET packet for [taddr, taddr+@p len) in @p target's aggregated
 * message; its answer is copied into @p dest and counts down
 * target->owed_at_call (a failed one goes to the window's error).
 * @p len must fit one answer (at most aggregate_threshold).
 */
int ompi_osc_newrma_pkt_get_packed(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_target_t *target, char *dest, size_t len,
                                   uint64_t taddr);

/**
 * Read [taddr, taddr+@p op->bytes) of @p target into @p dest as GET packets
 * of at most ompi_osc_newrma_pkt_chunk_max() bytes each, aggregated with the target's
 * other packets; their replies complete @p op (op->outstanding).
 */
int ompi_osc_newrma_pkt_get_contig(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_target_t *target, ompi_osc_newrma_op_t *op,
                                   char *dest, uint64_t taddr);

/**
 * Read @p op's target layout (a derived target datatype of many small
 * blocks) into @p dest as GET packets that carry its description, one per
 * OMPI_OSC_NEWRMA_PKT_PUT_CHUNK bytes of the packed stream: the target packs
 * each, and their replies complete @p op (op->outstanding).
 */
int ompi_osc_newrma_pkt_get(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                            ompi_osc_newrma_op_t *op, char *dest);

/** Answer a GET or fetching accumulate @p pkt with a @p type packet of
 * @p status that echoes its tag, tag2 and length, carrying @p data (NULL:
 * none, after a failure); a failure to send is printed. */
void ompi_osc_newrma_pkt_answer(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_pkt_t *pkt,
                                uint8_t type, int status, const void *data);

/** Send RMA_DONE for the PUT packets counted in target->am_sent; its
 * RMA_DONE_ACK decrements *@p counter (the window's or the target element's). */
int ompi_osc_newrma_pkt_rma_done(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                                 ompi_osc_newrma_atomic_t *counter);

/** Target side: the target datatype a PUT or ACC packet describes at the
 * start of its payload, or in its prefix before a rendezvous payload has
 * landed (release with ompi_osc_newrma_dtype_release), or NULL. */
struct ompi_datatype_t *ompi_osc_newrma_pkt_datatype(ompi_osc_newrma_module_t *module,
                                                     const ompi_osc_newrma_pkt_t *pkt);

/** Target side: one more PUT, GET or ACC packet, @p pkt, is applied; answer
 * the RMA_DONE (or release the UNLOCK) waiting for it, with the answers to
 * @p pkt's BATCH; a failed one (@p status) makes that answer carry an error. */
void ompi_osc_newrma_pkt_count_applied(ompi_osc_newrma_module_t *module,
                                       const ompi_osc_newrma_pkt_t *pkt, int status);

/** As ompi_osc_newrma_pkt_count_applied, for @p n packets at once: the
 * records of a PUTS or ACCS packet (hdr.count). */
void ompi_osc_newrma_pkt_count_applied_n(ompi_osc_newrma_module_t *module,
                                         const ompi_osc_newrma_pkt_t *pkt, uint32_t n, int status);

/** The record of a PUTS, ACCS or GETS_REPLY packet at payload offset
 * *@p at_p into *@p rec, its data at *@p data_p, and *@p at_p moved past
 * it; OMPI_ERR_BAD_PARAM when it overruns the payload. */
int ompi_osc_newrma_pkt_rec_next(const ompi_osc_newrma_pkt_t *pkt, size_t *at_p,
                                 ompi_osc_newrma_pkt_rec_t *rec, const char **data_p);

/** Applies one record (its @p data: rec->len bytes) of a records packet. */
typedef int (*ompi_osc_newrma_pkt_rec_fn_t)(void *ctx, const ompi_osc_newrma_pkt_rec_t *rec,
                                            const char *data);

/** Target side: @p apply(@p ctx) on each record of a PUTS or ACCS packet,
 * in order, each counted by the test hook (ompi_osc_newrma_pkt_test_fail:
 * that one is not applied).  Stops at a malformed record
 * (OMPI_ERR_BAD_PARAM); else the last failure, or OMPI_SUCCESS. */
int ompi_osc_newrma_pkt_recs_apply(const ompi_osc_newrma_pkt_t *pkt,
                                   ompi_osc_newrma_pkt_rec_fn_t apply, void *ctx);

/** A packet sent by rendezvous whose payload is a layout description
 * (hdr.desc_len bytes, perhaps carried in its header) and hdr.len bytes of
 * data: landed whole in a pooled buffer (ompi_osc_newrma_pkt_land_pooled);
 * OMPI_ERR_BAD_PARAM, nothing started, when the sizes disagree. */
int ompi_osc_newrma_pkt_land_described(ompi_osc_newrma_pkt_t *pkt);

/** Whether the transport to @p target emulates RDMA (TCP), or cannot tell. */
bool ompi_osc_newrma_pkt_target_emulated(ompi_osc_newrma_module_t *module,
                                         const ompi_osc_newrma_target_t *target);

/** An answer sent by rendezvous (a GET's, a fetching accumulate's): received
 * straight into @p stream at its offset (hdr.tag); @p op counts it when it
 * has landed, on the packet's second visit (LANDED). */
void ompi_osc_newrma_pkt_land_reply(ompi_osc_newrma_op_t *op, char *stream,
                                    ompi_osc_newrma_pkt_t *pkt);

/** Origin side: the data of a GET_REPLY or ACC_REPLY @p pkt for @p op goes
 * to @p stream at the offset it carries (or @p op fails), and the op has one
 * answer less to wait for. */
void ompi_osc_newrma_pkt_deliver_reply(ompi_osc_newrma_op_t *op, char *stream,
                                       const ompi_osc_newrma_pkt_t *pkt);

/** Test hook (osc_newrma_test_fail_packet): true for the Nth PUT, GET or ACC
 * packet this process applies as a target, which then fails. */
bool ompi_osc_newrma_pkt_test_fail(void);

/** Forget the RMA_DONEs still waiting for packets (window destruction). */
void ompi_osc_newrma_pkt_pending_dones_drop(ompi_osc_newrma_module_t *module);

/** PSCW over UCX: send COMPLETE to @p rank behind the packets counted in
 * @p target->am_sent (or, NULL, none). */
int ompi_osc_newrma_pkt_complete(ompi_osc_newrma_module_t *module, int rank,
                                 ompi_osc_newrma_target_t *target);

/** PSCW over UCX: send POST to the origin @p rank (to myself: count it). */
int ompi_osc_newrma_pkt_post(ompi_osc_newrma_module_t *module, int rank);

/** PSCW over UCX, window lock held: take one POST from each of the
 * @p count targets @p ranks once every one has sent one.  @return 1 taken,
 * 0 not all in yet, or an error (the POSTs could not be recorded). */
int ompi_osc_newrma_pkt_posts_take(ompi_osc_newrma_module_t *module, const int *ranks, int count);

/** FENCE over UCX: send FENCE_DONE of the fence of @p parity to @p rank
 * behind the packets counted in @p target->am_sent (or, NULL, none). */
int ompi_osc_newrma_pkt_fence_done(ompi_osc_newrma_module_t *module, int rank,
                                   ompi_osc_newrma_target_t *target, int parity);

/** An UNLOCK whose operations have all been applied: release the lock word,
 * answer @p src (with @p status: one of them failed), grant waiters. */
typedef void (*ompi_osc_newrma_pkt_unlock_fn_t)(ompi_osc_newrma_module_t *module, int32_t src,
                                                int lock_type, uint64_t tag, int status);

/** Settled UNLOCKs go to @p unlock (component init). */
void ompi_osc_newrma_pkt_unlock_register(ompi_osc_newrma_pkt_unlock_fn_t unlock);

/** The free list of RMA_DONEs waiting for packets (component init). */
int ompi_osc_newrma_pkt_data_init(void);

/** Free it (component finalize, after every window). */
void ompi_osc_newrma_pkt_data_fini(void);

/** Register the handlers of PUT, GET, GET_REPLY, the RMA_DONE family and
 * RMA_DONE_ACK with the packet layer (component init). */
void ompi_osc_newrma_pkt_data_register_handlers(void);

#endif /* OMPI_OSC_NEWRMA_AM_DATA_H */
