/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: active-message packets.
 *
 * Packets arrive in a UCX callback, are copied into the component's inbox
 * and are handled later by the progress callback, outside UCX, where a
 * handler may send replies and take window locks.
 */
#ifndef OMPI_OSC_NEWRMA_AM_PKT_H
#define OMPI_OSC_NEWRMA_AM_PKT_H

#include "ompi_config.h"

#include <stdint.h>

#include <ucp/api/ucp.h>

#include "opal/class/opal_list.h"

#include "osc_newrma_base_types.h"

typedef enum {
    /** origin asks which attached region of a dynamic window holds an
     * address; on other windows, its first access asks for the window
     * (base, size, displacement unit in count, rkey) */
    OMPI_OSC_NEWRMA_PKT_REGION_QUERY = 1,
    /** target answers a REGION_QUERY: the region and its rkey (payload) */
    OMPI_OSC_NEWRMA_PKT_REGION_REPLY,
    /** one chunk of a PUT whose target layout is too fine-grained for RDMA:
     * payload = target datatype description + packed data at stream offset */
    OMPI_OSC_NEWRMA_PKT_PUT,
    /** all PUT packets sent since the last RMA_DONE (count) must be applied
     * before the target answers RMA_DONE_ACK */
    OMPI_OSC_NEWRMA_PKT_RMA_DONE,
    /** answers RMA_DONE and UNLOCK; tag: origin's target element (0: window) */
    OMPI_OSC_NEWRMA_PKT_RMA_DONE_ACK,
    /** lock request (flags: EXCLUSIVE); tag: origin's target element or 0 */
    OMPI_OSC_NEWRMA_PKT_LOCK,
    /** the lock is held for the origin (flags: DISCARDED for a single op
     * whose data was not kept: send the operation again) */
    OMPI_OSC_NEWRMA_PKT_LOCK_GRANTED,
    /** RMA_DONE + UNLOCK: release once the PUT packets it counts are applied */
    OMPI_OSC_NEWRMA_PKT_UNLOCK,
    /** LOCK + one PUT/GET (flags: GET) at addr/len + UNLOCK in one packet */
    OMPI_OSC_NEWRMA_PKT_SINGLE,
    /** single op done and lock released; a GET's response carries the data */
    OMPI_OSC_NEWRMA_PKT_SINGLE_ACK,
    /** a node-local origin released the lock word directly: grant waiters */
    OMPI_OSC_NEWRMA_PKT_WAKE,
    /** one chunk of an accumulate (kind, acc_op, acc_dt; flags: GET when it
     * fetches): payload = target datatype description + operands at stream
     * offset tag (+ compare value for CAS); counted like PUT packets */
    OMPI_OSC_NEWRMA_PKT_ACC,
    /** old values of one fetching ACC chunk (tag: offset, tag2: op element) */
    OMPI_OSC_NEWRMA_PKT_ACC_REPLY,
    /** the target detached [addr, addr+len): forget cached regions in it */
    OMPI_OSC_NEWRMA_PKT_REGION_FORGET,
    /** answers REGION_FORGET: this origin no longer holds them */
    OMPI_OSC_NEWRMA_PKT_REGION_FORGET_ACK,
    /** aggregation: count packets for one window, each a header (its
     * batch_len: payload bytes) + payload, padded to 8 bytes, handled in order */
    OMPI_OSC_NEWRMA_PKT_BATCH,
    /** PSCW: the origin called MPI_Win_complete; the count PUT/ACC packets
     * before it are applied before the target counts it (no answer) */
    OMPI_OSC_NEWRMA_PKT_COMPLETE,
    /** read [addr, addr+len) and answer with GET_REPLY (tag: offset in the
     * origin's stream, tag2: op element); counted like PUT packets, so a
     * RMA_DONE or UNLOCK behind it waits until it has read */
    OMPI_OSC_NEWRMA_PKT_GET,
    /** the data one GET packet read (tag, tag2 echoed; status) */
    OMPI_OSC_NEWRMA_PKT_GET_REPLY,
    /** FENCE: the origin's epoch to this target ends here; as COMPLETE, the
     * count packets before it are applied first (no answer); tag: the
     * parity of the fence, whose collective tells the target to expect it */
    OMPI_OSC_NEWRMA_PKT_FENCE_DONE,
    /** PSCW: the target called MPI_Win_post; the origin counts it for its
     * access epoch to the target (no answer) */
    OMPI_OSC_NEWRMA_PKT_POST,
    /** small contiguous PUTs (ompi_osc_newrma_pkt_batch_puts): payload =
     * records (ompi_osc_newrma_pkt_rec_t, then its data padded to 8
     * bytes), applied in order; count: the PUTs it carries, which count as
     * that many PUT packets */
    OMPI_OSC_NEWRMA_PKT_PUTS,
    /** small contiguous MPI_Accumulates of one op and one predefined type
     * (acc_op, acc_dt; ompi_osc_newrma_pkt_batch_accs): records as a PUTS
     * packet's, each reduced into the window in order; count: the
     * accumulates it carries, which count as that many ACC packets */
    OMPI_OSC_NEWRMA_PKT_ACCS,
    /** small contiguous GETs packed by the call
     * (ompi_osc_newrma_pkt_batch_gets): payload = records
     * (ompi_osc_newrma_pkt_get_rec_t), read in order; count: the GETs it
     * carries, which count as that many GET packets; tag: the origin's
     * target element; len: the bytes of its answer's payload */
    OMPI_OSC_NEWRMA_PKT_GETS,
    /** answers a GETS packet (tag echoed, status): a record per GET
     * (ompi_osc_newrma_pkt_rec_t: the origin's buffer, the length), then
     * the data read, padded to 8; count: its records; len: the bytes read */
    OMPI_OSC_NEWRMA_PKT_GETS_REPLY
} ompi_osc_newrma_pkt_type_t;

/** the highest packet type (bounds the name and handler tables) */
#define OMPI_OSC_NEWRMA_PKT_LAST OMPI_OSC_NEWRMA_PKT_GETS_REPLY

#define OMPI_OSC_NEWRMA_PKT_FLAG_EXCLUSIVE 0x01
#define OMPI_OSC_NEWRMA_PKT_FLAG_GET       0x02
#define OMPI_OSC_NEWRMA_PKT_FLAG_DISCARDED 0x04
/** ACC (a fetching MPI_NO_OP of a contiguous range, old values by
 * rendezvous, plain rule): the target may answer from its window without
 * the accumulate lock, noting the lock word's sequence before and checking
 * it once the answer has been read; each chunk is answered twice, by the
 * data read so, then by an empty ACC_REPLY when it stands or by the data
 * read again under the lock (ompi_osc_newrma_pkt_answer_rndv holds the
 * origin's later packets until then).  Shares its bit with DISCARDED,
 * which only LOCK_GRANTED and SINGLE_ACK carry. */
#define OMPI_OSC_NEWRMA_PKT_FLAG_UNLOCKED 0x04
/** PUT: the payload is the data for [addr, addr+len), no datatype */
#define OMPI_OSC_NEWRMA_PKT_FLAG_CONTIG 0x08
/** the packet's rendezvous payload has landed (ompi_osc_newrma_pkt_land);
 * hdr.status: how.  Made by the receiver for itself, never sent. */
#define OMPI_OSC_NEWRMA_PKT_FLAG_LANDED 0x10
/** GET: answer by rendezvous, the data read in place and received straight
 * into the origin's buffer; a fetching ACC: its old values the same way,
 * from a buffer of the target's */
#define OMPI_OSC_NEWRMA_PKT_FLAG_RNDV 0x20
/** the rendezvous answer to this packet has been read
 * (ompi_osc_newrma_pkt_answer_rndv); hdr.status: how.  Never sent. */
#define OMPI_OSC_NEWRMA_PKT_FLAG_SENT 0x40
/** LOCK: a try (parallel lock requests): granted only if the lock is free
 * now, never queued; a refusal is LOCK_GRANTED with the same flag */
#define OMPI_OSC_NEWRMA_PKT_FLAG_TRY 0x80

/** GET packed by the call (ompi_osc_newrma_pkt_get_packed): no op element;
 * hdr.tag is the origin's target element, hdr.tag2 the user's buffer */
#define OMPI_OSC_NEWRMA_PKT_ECHO_PACKED_GET 0x01
/** Not echoed: the sender's fence epoch (fence.epoch) was odd when it sent
 * the packet (ompi_osc_newrma_pkt_stamp), so the receiver knows a packet of
 * a fence epoch it has not reached yet (ompi_osc_newrma_pkt_epoch_done). */
#define OMPI_OSC_NEWRMA_PKT_MARK_EPOCH 0x80

/** Header of every packet. */
typedef struct ompi_osc_newrma_pkt_hdr_t {
    uint8_t type;
    uint8_t flags;
    /** ACC and single op: the operation kind (ompi_osc_newrma_op_kind_t) */
    uint8_t kind;
    /** the sender's marks, echoed in the answer (OMPI_OSC_NEWRMA_PKT_ECHO_*) */
    uint8_t echo;
    /** window: communicator id, the same on every member */
    uint32_t cid;
    /** sender's rank in the window */
    int32_t src;
    /** OMPI_SUCCESS or an OMPI_ERR_* code (replies) */
    int32_t status;
    uint64_t addr;
    uint64_t len;
    /** origin's cookie, echoed in the reply; PUT: offset in the packed stream */
    uint64_t tag;
    /** PUT, GET: target datatype count; RMA_DONE: PUT packets it covers */
    uint32_t count;
    /** PUT, GET, ACC: bytes of target datatype description at the payload's
     * start (GET: 0 for a contiguous range) */
    uint32_t desc_len;
    /** single op: the origin's operation element, echoed in SINGLE_ACK */
    uint64_t tag2;
    /** accumulates: Fortran handles of the predefined op and element type */
    uint16_t acc_op;
    uint16_t acc_dt;
    /** a packet inside a BATCH: bytes of payload that follow the header */
    uint32_t batch_len;
} ompi_osc_newrma_pkt_hdr_t;

/** One record of a PUTS or ACCS packet: @c len bytes for @c addr follow it. */
typedef struct {
    uint64_t addr;
    uint64_t len;
} ompi_osc_newrma_pkt_rec_t;

/** Records and their data are padded to this many bytes. */
#define OMPI_OSC_NEWRMA_PKT_RECS_ALIGN ((size_t) 8)
/** The largest PUT a PUTS packet carries (and accumulate an ACCS packet):
 * beyond, a packet header of its own (64 bytes) is little against the data. */
#define OMPI_OSC_NEWRMA_PKT_RECS_MAX ((size_t) 256)
/** The largest GET a GETS packet asks for: its record and answer take 24
 * and 16 bytes where a GET packet and its GET_REPLY take 64 each, and one
 * loop answers them all.  64 GETs of 512 bytes + flush on one node moved
 * 2.0-2.5 GB/s so against 1.2-1.8 as GET packets (under fence 2.9-3.6
 * against 2.5-3.1; six alternating runs); at 1 KiB no faster. */
#define OMPI_OSC_NEWRMA_PKT_GETS_MAX ((size_t) 512)

static inline size_t ompi_osc_newrma_pkt_recs_padded(size_t len)
{
    return (len + OMPI_OSC_NEWRMA_PKT_RECS_ALIGN - 1) & ~(OMPI_OSC_NEWRMA_PKT_RECS_ALIGN - 1);
}

/** One record of a GETS packet: @c len bytes at @c addr, for the origin's
 * buffer at @c dest. */
typedef struct {
    uint64_t addr;
    uint64_t len;
    uint64_t dest;
} ompi_osc_newrma_pkt_get_rec_t;

/** Bytes a GET of @p len bytes takes in its GETS_REPLY. */
static inline size_t ompi_osc_newrma_pkt_gets_answer(size_t len)
{
    return sizeof(ompi_osc_newrma_pkt_rec_t) + ompi_osc_newrma_pkt_recs_padded(len);
}

/** The packets of one BATCH its handlers counted as applied, counted for
 * their origin once the BATCH is through (ompi_osc_newrma_pkt_count_applied):
 * one lock and count update per message instead of one per packet. */
typedef struct {
    uint32_t applied;
    /** one of them failed */
    bool failed;
} ompi_osc_newrma_pkt_tally_t;

/** A received packet waiting in the inbox. */
typedef struct ompi_osc_newrma_pkt_t {
    opal_list_item_t super;
    ompi_osc_newrma_pkt_hdr_t hdr;
    size_t payload_len;
    /** after this structure, or inside the BATCH packet that carried it */
    char *payload;
    /** UCX's receive buffer holding the payload, released when handled, or
     * NULL; with @a rndv its rendezvous descriptor (cancelled if released) */
    void *ucx_data;
    /** inside a BATCH: where its answers are aggregated, else NULL */
    ompi_osc_newrma_batch_t *replies;
    /** inside a BATCH: where it is counted applied, else NULL (at once) */
    ompi_osc_newrma_pkt_tally_t *tally;
    /** an element of the packet free list (else malloc'd) */
    bool pooled;
    /** sent by rendezvous: the payload_len bytes have not arrived yet, the
     * handler places them with ompi_osc_newrma_pkt_land (payload NULL) */
    bool rndv;
    /** a rendezvous's first prefix_len bytes of payload (a target layout's
     * description), which came in the message's header; payload_len does
     * not count them.  ompi_osc_newrma_pkt_land_pooled puts them back in
     * front of the rest; NULL: none */
    char *prefix;
    size_t prefix_len;
    /** the payload is a buffer of ompi_osc_newrma_ucx_am_buffer's pool, freed
     * with the packet (a BATCH that landed by rendezvous) */
    bool am_buffer;
    /** the payload is UCX's, valid only inside the receive callback that
     * handles the packet (never held) */
    bool borrowed;
    /** a LANDED notice of a landing that its origin's later PUTs and
     * MPI_REPLACEs by rendezvous may land beside (a contiguous PUT's, or an
     * MPI_REPLACE's straight in the window) */
    bool beside;
} ompi_osc_newrma_pkt_t;

/** The most data one PUT or GET packet carries so that it fills, with its
 * header, one aggregated active message of the window's aggregate_bytes:
 * bulk transfers go as one such message per chunk. */
size_t ompi_osc_newrma_pkt_chunk_max(const ompi_osc_newrma_module_t *module);

/**
 * Aggregation: add a packet for @p target (header + payload in two pieces)
 * to the active message being built for it; sent when full, or by
 * ompi_osc_newrma_pkt_batch_flush.  A packet larger than the window's
 * aggregate_bytes goes alone, after the ones before it.
 */
int ompi_osc_newrma_pkt_batch_add(ompi_osc_newrma_module_t *module,
                                  ompi_osc_newrma_target_t *target, ompi_osc_newrma_pkt_hdr_t *hdr,
                                  const void *p1, size_t len1, const void *p2, size_t len2);

/**
 * Aggregation of a small contiguous PUT (at most OMPI_OSC_NEWRMA_PKT_RECS_MAX
 * bytes) for @p target: a record in the PUTS packet that ends its
 * aggregated message, or in a new one.  Data for the bytes right after the
 * last record's joins that record.  Counts as one PUT packet, as
 * ompi_osc_newrma_pkt_batch_add of a PUT would.
 */
int ompi_osc_newrma_pkt_batch_puts(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_target_t *target, const void *data, size_t len,
                                   uint64_t taddr);

/**
 * Aggregation of a small contiguous MPI_Accumulate (at most
 * OMPI_OSC_NEWRMA_PKT_RECS_MAX bytes of one predefined type) for @p target,
 * as ompi_osc_newrma_pkt_batch_puts does a PUT: a record in the ACCS packet
 * of the same op and type (Fortran handles @p acc_op, @p acc_dt) that ends
 * its aggregated message, or in a new one.  The caller counts it as one ACC
 * packet (am_sent).
 */
int ompi_osc_newrma_pkt_batch_accs(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_target_t *target, uint16_t acc_op,
                                   uint16_t acc_dt, const void *data, size_t len, uint64_t taddr);

/** Send the packets aggregated for @p target, if any, in one message. */
int ompi_osc_newrma_pkt_batch_flush(ompi_osc_newrma_module_t *module,
                                    ompi_osc_newrma_target_t *target);

/** Return @p target (its op list empty) to the pools, after sending the
 * packets still aggregated for it: an element owing RMA_DONE is never
 * released, and RMA_DONE flushes them, so there are some only after an
 * error, which goes to the window (ompi_osc_newrma_module_error). */
void ompi_osc_newrma_pkt_target_release(ompi_osc_newrma_module_t *module,
                                        ompi_osc_newrma_target_t *target);

/**
 * Aggregation of a small contiguous GET packed by the call (at most
 * OMPI_OSC_NEWRMA_PKT_GETS_MAX bytes) from @p target into @p dest: a record
 * in the GETS packet that ends its aggregated message, if its answer still
 * fits one message, or in a new one.  The caller counts it (am_sent,
 * owed_at_call, the answers' budget) as a GET packet.
 */
int ompi_osc_newrma_pkt_batch_gets(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_target_t *target, void *dest, size_t len,
                                   uint64_t taddr);

/** Send every target's aggregated packets (one message each): a progress
 * round ends here, so nobody waits on a packet still held. */
int ompi_osc_newrma_pkt_batch_flush_all(ompi_osc_newrma_module_t *module);

/** Answer @p pkt: @p hdr (type set by the caller) and an optional payload
 * go to its sender, aggregated with the other answers to the BATCH that
 * carried it, if any. */
int ompi_osc_newrma_pkt_reply(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_pkt_t *pkt,
                              ompi_osc_newrma_pkt_hdr_t *hdr, const void *payload,
                              size_t payload_len);

/** Writes an answer's @p payload_len bytes of payload at @p at. */
typedef void (*ompi_osc_newrma_pkt_fill_fn_t)(char *at, void *ctx);

/** As ompi_osc_newrma_pkt_reply, the payload written by @p fill(@p ctx)
 * where it goes (the answers' aggregated message) instead of copied there;
 * an answer larger than a message is written in a pooled buffer first. */
int ompi_osc_newrma_pkt_reply_fill(ompi_osc_newrma_module_t *module,
                                   const ompi_osc_newrma_pkt_t *pkt, ompi_osc_newrma_pkt_hdr_t *hdr,
                                   size_t payload_len, ompi_osc_newrma_pkt_fill_fn_t fill,
                                   void *ctx);

/** Printable name of a packet type (verbose output). */
const char *ompi_osc_newrma_pkt_name(int type);

/** Send @p hdr (type set by the caller; cid and src filled in) and an
 * optional payload to window rank @p dest. */
int ompi_osc_newrma_pkt_send(ompi_osc_newrma_module_t *module, int dest,
                             ompi_osc_newrma_pkt_hdr_t *hdr, const void *payload,
                             size_t payload_len);

/** Payloads from this size on are kept in UCX's buffer, not copied. */
#define OMPI_OSC_NEWRMA_PKT_KEEP_MIN 4096

/**
 * Answer @p pkt with a packet of @p type, its tags and its hdr.len bytes at
 * @p data by rendezvous: the payload is read in place, and when it has
 * been, @p pkt comes back to its handler with OMPI_OSC_NEWRMA_PKT_FLAG_SENT
 * and the outcome in hdr.status (so what depends on the read, such as
 * counting a GET as applied, waits for it).  When @p owned, @p data is a
 * buffer of the transport's pool (ompi_osc_newrma_ucx_am_buffer) that the
 * answer frees after that visit.  A packet with
 * OMPI_OSC_NEWRMA_PKT_FLAG_UNLOCKED (its answer read from the window
 * without the accumulate lock) holds its origin's later packets on the
 * window until that visit is through, as a payload still landing does: an
 * accumulate of that origin behind it must not change what it reads.
 * Handler context only.  @return an error if nothing was sent (@p data
 * stays the caller's).
 */
int ompi_osc_newrma_pkt_answer_rndv(ompi_osc_newrma_module_t *module,
                                    const ompi_osc_newrma_pkt_t *pkt, uint8_t type,
                                    const void *data, bool owned);

/** Put a packet into the inbox (called from the UCX receive callback).  Its
 * payload is copied, or, when @p may_keep and it is large, kept where it is
 * until the packet is handled (then released with
 * ompi_osc_newrma_ucx_am_data_release); with @p rndv the payload is a
 * rendezvous descriptor, always kept.  A large payload UCX cannot leave
 * with us (TCP) is handled at once, read where it is, when nothing is
 * waiting ahead of it (ompi_osc_newrma_pkt_enqueue's borrow).  @return
 * true when kept. */
bool ompi_osc_newrma_pkt_enqueue(const void *hdr, size_t hdr_len, void *payload, size_t payload_len,
                                 bool may_keep, bool rndv);

/**
 * Receive the rendezvous payload of @p pkt (pkt->rndv) straight into
 * @p dest.  When it is there, the packet comes back to its handler with
 * OMPI_OSC_NEWRMA_PKT_FLAG_LANDED and the outcome in hdr.status; until
 * then the later packets of the same origin and window wait in the agent,
 * so that whatever follows the data (a GET of it, RMA_DONE, UNLOCK) sees
 * it, as it would a PUT applied in arrival order.  Handler context only.
 * @return OMPI_SUCCESS, or an error (nothing started, the payload is
 * cancelled with the packet).
 */
int ompi_osc_newrma_pkt_land(ompi_osc_newrma_pkt_t *pkt, void *dest);

/**
 * ompi_osc_newrma_pkt_land into @p module's window memory at @p dest, under
 * its accumulate lock, which the caller holds for the landings (an
 * MPI_REPLACE, acc_land_in_window in osc_newrma_target_acc.c; there is
 * ompi_osc_newrma_pkt_land_window_room): until the packets come back
 * LANDED (module->acc_land), every other packet of the window waits in the
 * agent, whatever its origin, since any may take that lock, but for
 * further MPI_REPLACEs that land beside them while nothing waits, and the
 * handler ends the wait with ompi_osc_newrma_pkt_land_window_end.
 * Handler context only; @return as ompi_osc_newrma_pkt_land.
 */
int ompi_osc_newrma_pkt_land_window(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt,
                                    void *dest);

/** The landing of ompi_osc_newrma_pkt_land_window whose LANDED notice is
 * @p notice is over.  @return true when it was the window's last: the
 * caller gives the lock back, and the window's packets that waited go to
 * the head of the inbox. */
bool ompi_osc_newrma_pkt_land_window_end(ompi_osc_newrma_module_t *module,
                                         const ompi_osc_newrma_pkt_t *notice);

/** Whether an MPI_REPLACE of @p len bytes at window address @p lo may land
 * in @p module's window now (ompi_osc_newrma_pkt_land_window): fewer than
 * OMPI_OSC_NEWRMA_LANDINGS land there, none of them overlapping it
 * (accumulate ordering and element-wise atomicity). */
bool ompi_osc_newrma_pkt_land_window_room(const ompi_osc_newrma_module_t *module, uint64_t lo,
                                          size_t len);

/** Whether @p pkt is the LANDED notice of a landing in @p module's window. */
bool ompi_osc_newrma_pkt_land_window_notice(const ompi_osc_newrma_module_t *module,
                                            const ompi_osc_newrma_pkt_t *pkt);

/** Whether @p pkt (an ACC packet of @p module) lands in the window now
 * (acc_land_in_window's terms), asked before it is handled: such a packet
 * need not wait behind the landings of its origin and window. */
typedef bool (*ompi_osc_newrma_pkt_lands_fn_t)(ompi_osc_newrma_module_t *module,
                                               const ompi_osc_newrma_pkt_t *pkt);

/** That question goes to @p fn (component init, before any window). */
void ompi_osc_newrma_pkt_lands_register(ompi_osc_newrma_pkt_lands_fn_t fn);

/**
 * ompi_osc_newrma_pkt_land into a buffer of the transport's pool: when the
 * packet comes back LANDED, its payload is that buffer (freed with it), to
 * be handled as if it had come eagerly.
 */
int ompi_osc_newrma_pkt_land_pooled(ompi_osc_newrma_pkt_t *pkt);

/**
 * A handler for packets of one type, registered from the layer above (the
 * target's lock queue and accumulates) at component init, as UCX's own AM
 * handler tables are; the packet layer never calls those layers by name.
 * Runs in the agent, without the window lock.
 */
typedef void (*ompi_osc_newrma_pkt_handler_fn_t)(ompi_osc_newrma_module_t *module,
                                                 ompi_osc_newrma_pkt_t *pkt);

/** Called once the packets of a BATCH have been handled, with what they
 * counted in @p tally; @p handled is the last of them (its answers still
 * aggregated, its header naming the origin). */
typedef void (*ompi_osc_newrma_pkt_batch_end_fn_t)(ompi_osc_newrma_module_t *module,
                                                   const ompi_osc_newrma_pkt_t *handled,
                                                   const ompi_osc_newrma_pkt_tally_t *tally);

/** A BATCH's end goes to @p fn (component init, before any window). */
void ompi_osc_newrma_pkt_batch_end_register(ompi_osc_newrma_pkt_batch_end_fn_t fn);

/** Packets of @p type go to @p handler (component init, before any window). */
void ompi_osc_newrma_pkt_handler_register(ompi_osc_newrma_pkt_type_t type,
                                          ompi_osc_newrma_pkt_handler_fn_t handler);

/** Send a packet to @p dest over @p ep, counting it in @p counter (undone
 * when the send fails). */
int ompi_osc_newrma_pkt_send_counted(ompi_osc_newrma_module_t *module, ucp_ep_h ep, int dest,
                                     ompi_osc_newrma_pkt_hdr_t *hdr, const void *payload,
                                     size_t payload_len, ompi_osc_newrma_atomic_t *counter);

/** Packets for @p module's communicator id go to it from now on (the caller
 * holds WINDOWS; LOOKUP is taken inside). */
int ompi_osc_newrma_pkt_window_add(ompi_osc_newrma_module_t *module);

/** Forget @p module (as ..._window_add). @return false when it was not the
 * window registered under its id. */
bool ompi_osc_newrma_pkt_window_remove(ompi_osc_newrma_module_t *module);

/** Whether a message of @p len bytes of payload goes by rendezvous, into a
 * pooled buffer at its receiver: above osc_newrma_batch_rndv_bytes, where
 * the transport is not @p emulated (TCP). */
bool ompi_osc_newrma_pkt_message_rndv(bool emulated, size_t len);

/**
 * An origin's flow control (window lock held, not in the agent): the agent
 * runs while @p cond(@p arg) holds, for at most 10 ms, so that an origin
 * whose peer does not progress for a while still goes on.
 */
void ompi_osc_newrma_pkt_wait_while(bool (*cond)(const void *arg), const void *arg);

/** The received-packet free list (component init). */
int ompi_osc_newrma_pkt_init(void);

/** Drop what is left and free the packet free list (component finalize,
 * after the transport is closed). */
void ompi_osc_newrma_pkt_fini(void);

/** Handle every packet in the inbox. @return number handled. */
int ompi_osc_newrma_pkt_process_inbox(void);

/**
 * A window's creation is over: its held packets go back to the head of the
 * inbox (@p deliver) or are dropped (creation failed).  The caller holds the
 * agent (ompi_osc_newrma_agent_acquire).
 */
void ompi_osc_newrma_pkt_release_held(uint32_t cid, bool deliver);

/** Stamp @p hdr with the window, the sender and its fence epoch's parity
 * (OMPI_OSC_NEWRMA_PKT_MARK_EPOCH): every packet leaves through this. */
void ompi_osc_newrma_pkt_stamp(const ompi_osc_newrma_module_t *module,
                               ompi_osc_newrma_pkt_hdr_t *hdr);

/** My fence on a window over UCX is done: the next epoch's parity goes on
 * my packets, and the packets of it that peers sent while my fence still
 * waited, held on @p module, go back to the head of the inbox.  A peer
 * whose fence is done may start the next epoch; applied at once, its
 * packets could pass another origin's packets of the ending epoch still on
 * their way, or be read by a GET of it. */
void ompi_osc_newrma_pkt_epoch_done(ompi_osc_newrma_module_t *module);
/** Drop the packets held on @p module (the window goes). */
void ompi_osc_newrma_pkt_epoch_drop(ompi_osc_newrma_module_t *module);

/** Drop the packets waiting behind a landing in the window (window free). */
void ompi_osc_newrma_pkt_land_window_drop(ompi_osc_newrma_module_t *module);

/** Drop packets left in the inbox (component finalize). */
void ompi_osc_newrma_pkt_drain(void);

/** The UCX endpoint to window rank @p dest (made on first use). */
int ompi_osc_newrma_pkt_ep(ompi_osc_newrma_module_t *module, int dest, ucp_ep_h *ep_p);

/** A synchronization packet @p hdr (RMA_DONE, UNLOCK, COMPLETE,
 * FENCE_DONE) behind the packets aggregated for @p target, sent at once
 * with them (the design's piggybacking); hdr->count takes the PUT, GET and
 * ACC packets sent since the last one (target->am_sent). */
int ompi_osc_newrma_pkt_send_tail(ompi_osc_newrma_module_t *module,
                                  ompi_osc_newrma_target_t *target, ompi_osc_newrma_pkt_hdr_t *hdr);

/** As ompi_osc_newrma_pkt_send_tail, for a packet whose answer decrements
 * *@p counter (counted before it can be answered). */
int ompi_osc_newrma_pkt_send_tail_counted(ompi_osc_newrma_module_t *module,
                                          ompi_osc_newrma_target_t *target,
                                          ompi_osc_newrma_pkt_hdr_t *hdr,
                                          ompi_osc_newrma_atomic_t *counter);

#endif /* OMPI_OSC_NEWRMA_AM_PKT_H */
