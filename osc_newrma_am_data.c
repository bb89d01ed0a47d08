/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: PUT and GET packets and the RMA_DONE family (see
 * osc_newrma_am_data.h): what an origin sends, what the target applies and
 * counts, and the answers.
 */
#include "ompi_config.h"

#include <string.h>

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/proc/proc.h"
#include "opal/class/opal_free_list.h"

#include "osc_newrma.h"
#include "osc_newrma_base_copy.h"
#include "osc_newrma_am_data.h"
#include "osc_newrma_am_pkt.h"
#include "osc_newrma_base_dtype.h"
#include "osc_newrma_base_mutex.h"
#include "osc_newrma_pool.h"
#include "osc_newrma_transport_ucx.h"

#define component mca_osc_newrma_component

/** An RMA_DONE (or RMA_DONE + UNLOCK) waiting for PUT packets that have
 * not arrived yet. */
typedef struct {
    opal_free_list_item_t super;
    int32_t src;
    uint32_t count;
    uint64_t tag;
    /** the packet: RMA_DONE, UNLOCK, COMPLETE or FENCE_DONE */
    uint8_t type;
    int lock_type;
} pkt_pending_done_t;

static OBJ_CLASS_INSTANCE(pkt_pending_done_t, opal_free_list_item_t, NULL, NULL);

/* RMA_DONEs waiting for their packets (pkt_pending_done_t): made by the
 * agent, freed by whoever settles them under the window's am_lock, so the
 * thread-safe calls */
static opal_free_list_t pkt_done_free_list;
static bool pkt_done_free_list_ready = false;

static ompi_osc_newrma_pkt_unlock_fn_t pkt_unlock_fn;

void ompi_osc_newrma_pkt_unlock_register(ompi_osc_newrma_pkt_unlock_fn_t unlock)
{
    pkt_unlock_fn = unlock;
}

int ompi_osc_newrma_pkt_put_contig(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_target_t *target, const void *data, size_t len,
                                   uint64_t taddr)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};
    int ret;

    if (len <= OMPI_OSC_NEWRMA_PKT_RECS_MAX) {
        ret = ompi_osc_newrma_pkt_batch_puts(module, target, data, len, taddr);
    } else {
        hdr.type = OMPI_OSC_NEWRMA_PKT_PUT;
        hdr.flags = OMPI_OSC_NEWRMA_PKT_FLAG_CONTIG;
        hdr.addr = taddr;
        hdr.len = len;
        ret = ompi_osc_newrma_pkt_batch_add(module, target, &hdr, data, len, NULL, 0);
    }
    if (OMPI_SUCCESS == ret) {
        target->am_sent++;
    }
    return ret;
}

int ompi_osc_newrma_pkt_send_op(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                                ompi_osc_newrma_op_t *op, ompi_osc_newrma_pkt_hdr_t *hdr,
                                const void *prefix, size_t prefix_len, const void *data, size_t len,
                                bool rndv)
{
    ucp_ep_h ep;
    int ret = ompi_osc_newrma_pkt_batch_flush(module, target); /* after those before it */

    if (OMPI_SUCCESS == ret) {
        ret = ompi_osc_newrma_pkt_ep(module, target->rank, &ep);
    }
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    ompi_osc_newrma_pkt_stamp(module, hdr);
    ret = ompi_osc_newrma_ucx_am_send_op(op, ep, hdr, sizeof(*hdr), prefix, prefix_len, data, len,
                                         rndv);
    if (OMPI_SUCCESS == ret) {
        target->am_sent++;
        OMPI_OSC_NEWRMA_STAT_ADD(module, MESSAGES, 1);
    }
    return ret;
}

bool ompi_osc_newrma_pkt_rndv(const ompi_osc_newrma_module_t *module, size_t bytes)
{
    return module->config.rndv_threshold > 0 && bytes >= module->config.rndv_threshold;
}

int ompi_osc_newrma_pkt_put_bulk(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                                 ompi_osc_newrma_op_t *op, const char *data, size_t len,
                                 uint64_t taddr, bool rndv)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};

    hdr.type = OMPI_OSC_NEWRMA_PKT_PUT;
    hdr.flags = OMPI_OSC_NEWRMA_PKT_FLAG_CONTIG;
    hdr.addr = taddr;
    hdr.len = len;
    return ompi_osc_newrma_pkt_send_op(module, target, op, &hdr, NULL, 0, data, len, rndv);
}

/* Bytes of GET replies this process has asked for as packets (not by
 * rendezvous) and not received yet. */
static volatile int64_t pkt_get_awaited = 0;

/* Half the pool's full messages: each answer in flight holds two at the
 * target (the packed chunk, the message it is copied into). */
static bool pkt_get_over_budget(const void *arg)
{
    int64_t chunks = component.am_buffers > 2 ? component.am_buffers / 2 : 1;

    (void) arg;
    return pkt_get_awaited > chunks * OMPI_OSC_NEWRMA_PKT_PUT_CHUNK;
}

/* A GET_REPLY arrived, or its failure: it leaves the budget unless its
 * GET was asked for by rendezvous (the answer echoes the flag). */
static void pkt_get_answered(const ompi_osc_newrma_pkt_t *pkt)
{
    if (!(pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_RNDV)) {
        opal_atomic_add_fetch_64(&pkt_get_awaited, -(int64_t) pkt->hdr.len);
    }
}

/* Enter @p len bytes of answers into the budget, once the answers asked
 * for so far fit: they go out first, to be answered (flow control: the
 * target packs each answer into a pooled buffer and sends it from another;
 * asked for faster than this origin takes them in, one at a time, they
 * outgrew its pool, and every further one was malloc'd at both ends: a
 * strided GET of 2 MiB 3 -> 0.4 GB/s once the target packed at memory
 * speed). */
static int pkt_get_budget(ompi_osc_newrma_module_t *module, size_t len)
{
    if (pkt_get_over_budget(NULL)) {
        int ret = ompi_osc_newrma_pkt_batch_flush_all(module);

        if (OMPI_SUCCESS != ret) {
            return ret;
        }
        ompi_osc_newrma_pkt_wait_while(pkt_get_over_budget, NULL);
    }
    opal_atomic_add_fetch_64(&pkt_get_awaited, (int64_t) len);
    return OMPI_SUCCESS;
}

/* The GET packets of @p op, @p chunk bytes of its stream each (hdr.tag:
 * the offset, where the reply lands), behind the target's other packets;
 * each counts one reply in op->outstanding. */
static int pkt_get_chunks(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                          ompi_osc_newrma_op_t *op, ompi_osc_newrma_pkt_hdr_t *hdr, uint64_t taddr,
                          size_t chunk, const void *desc, size_t desc_len)
{
    bool counted = !(hdr->flags & OMPI_OSC_NEWRMA_PKT_FLAG_RNDV);
    int ret = OMPI_SUCCESS;

    for (size_t offset = 0; OMPI_SUCCESS == ret && offset < op->bytes; offset += chunk) {
        /* a contiguous range: the chunk's own address; a described layout:
         * its base, the target finds the chunk by its stream offset */
        hdr->addr = taddr + (desc_len > 0 ? 0 : offset);
        hdr->len = op->bytes - offset < chunk ? op->bytes - offset : chunk;
        hdr->tag = offset;
        if (counted) {
            ret = pkt_get_budget(module, hdr->len);
            if (OMPI_SUCCESS != ret) {
                break;
            }
        }
        opal_atomic_add_fetch_32(&op->outstanding, 1); /* its GET_REPLY */
        ret = ompi_osc_newrma_pkt_batch_add(module, target, hdr, desc, desc_len, NULL, 0);
        if (OMPI_SUCCESS == ret) {
            target->am_sent++;
        } else {
            opal_atomic_add_fetch_32(&op->outstanding, -1);
            if (counted) {
                opal_atomic_add_fetch_64(&pkt_get_awaited, -(int64_t) hdr->len);
            }
        }
    }
    return ret;
}

int ompi_osc_newrma_pkt_get_packed(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_target_t *target, char *dest, size_t len,
                                   uint64_t taddr)
{
    /* a record of a GETS packet: 24 bytes where a GET packet has 64, and
     * an answer of 16 bytes and the data where a GET_REPLY has 64 */
    bool records = component.get_records && len <= OMPI_OSC_NEWRMA_PKT_GETS_MAX;
    ompi_osc_newrma_pkt_hdr_t hdr = {0};
    int ret = pkt_get_budget(module, len);

    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    hdr.type = OMPI_OSC_NEWRMA_PKT_GET;
    hdr.echo = OMPI_OSC_NEWRMA_PKT_ECHO_PACKED_GET;
    hdr.addr = taddr;
    hdr.len = len;
    hdr.tag = (uint64_t) (uintptr_t) target; /* held until owed_at_call is 0 */
    hdr.tag2 = (uint64_t) (uintptr_t) dest;
    opal_atomic_add_fetch_32(&target->owed_at_call, 1);
    ret = records ? ompi_osc_newrma_pkt_batch_gets(module, target, dest, len, taddr)
                  : ompi_osc_newrma_pkt_batch_add(module, target, &hdr, NULL, 0, NULL, 0);
    if (OMPI_SUCCESS == ret) {
        target->am_sent++;
        OMPI_OSC_NEWRMA_STAT_ADD(module, GET_RECORDS, records);
    } else {
        opal_atomic_add_fetch_32(&target->owed_at_call, -1);
        opal_atomic_add_fetch_64(&pkt_get_awaited, -(int64_t) len);
    }
    return ret;
}

int ompi_osc_newrma_pkt_get_contig(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_target_t *target, ompi_osc_newrma_op_t *op,
                                   char *dest, uint64_t taddr)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};
    size_t chunk = ompi_osc_newrma_pkt_chunk_max(module);

    op->get_stream = dest;
    hdr.type = OMPI_OSC_NEWRMA_PKT_GET;
    hdr.tag2 = (uint64_t) (uintptr_t) op;
    if (ompi_osc_newrma_pkt_rndv(module, op->bytes)) {
        OSC_NEWRMA_VERBOSE(30, "GET of %zu bytes from rank %d by rendezvous", op->bytes,
                           target->rank);
        hdr.flags = OMPI_OSC_NEWRMA_PKT_FLAG_RNDV; /* one answer, straight into dest */
        chunk = op->bytes;
    }
    return pkt_get_chunks(module, target, op, &hdr, taddr, chunk, NULL, 0);
}

/* A described GET's chunk: each reply fits one aggregated message (a larger
 * one arrives in pieces, several times slower over TCP), at most
 * OMPI_OSC_NEWRMA_PKT_PUT_CHUNK (the target packs each into a buffer). */
static size_t pkt_get_chunk(const ompi_osc_newrma_module_t *module)
{
    size_t chunk = ompi_osc_newrma_pkt_chunk_max(module);

    if (0 == module->config.aggregate_bytes || chunk > OMPI_OSC_NEWRMA_PKT_PUT_CHUNK) {
        return OMPI_OSC_NEWRMA_PKT_PUT_CHUNK;
    }
    return chunk;
}

int ompi_osc_newrma_pkt_get(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                            ompi_osc_newrma_op_t *op, char *dest)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};
    size_t desc_len = ompi_datatype_pack_description_length(op->target_dt);
    const void *desc;
    int ret = ompi_datatype_get_pack_description(op->target_dt, &desc);

    OSC_NEWRMA_VERBOSE(30, "GET of %zu bytes from rank %d as packets (fine-grained target layout)",
                       op->bytes, target->rank);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    op->get_stream = dest;
    hdr.type = OMPI_OSC_NEWRMA_PKT_GET;
    hdr.count = (uint32_t) op->target_count;
    hdr.desc_len = (uint32_t) desc_len;
    hdr.tag2 = (uint64_t) (uintptr_t) op;
    /* pipelined as PUT packets are: the target packs each chunk at its
     * stream offset, the replies land at that offset of dest */
    return pkt_get_chunks(module, target, op, &hdr, op->target_addr, pkt_get_chunk(module), desc,
                          desc_len);
}

/* ---- PUT packets and RMA_DONE at the origin ---- */

/* chunks of whole cache lines: the target's unpacking starts aligned */
#define PKT_PUT_CHUNK_ALIGN 64

/* Data per described PUT packet: with the layout's description, one
 * aggregated message (no copy into a message of its own, one TCP segment,
 * a rendezvous into the target's pool elsewhere); a description of more
 * than half a message leaves chunks of OMPI_OSC_NEWRMA_PKT_PUT_CHUNK, each
 * a message of its own. */
static size_t pkt_put_chunk(const ompi_osc_newrma_module_t *module, size_t desc_len)
{
    size_t max = ompi_osc_newrma_pkt_chunk_max(module);
    size_t room = max > desc_len ? (max - desc_len) & ~(size_t) (PKT_PUT_CHUNK_ALIGN - 1) : 0;

    return room >= max / 2 ? room : OMPI_OSC_NEWRMA_PKT_PUT_CHUNK;
}

/* One described PUT packet (@p hdr, its description @p desc, @p hdr->len
 * bytes of @p data) into @p target's aggregated message, counted. */
static int pkt_put_described_add(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                                 ompi_osc_newrma_pkt_hdr_t *hdr, const void *desc, const void *data)
{
    int ret =
        ompi_osc_newrma_pkt_batch_add(module, target, hdr, desc, hdr->desc_len, data, hdr->len);

    if (OMPI_SUCCESS == ret) {
        target->am_sent++;
    }
    return ret;
}

bool ompi_osc_newrma_pkt_target_emulated(ompi_osc_newrma_module_t *module,
                                         const ompi_osc_newrma_target_t *target)
{
    bool emulated = true;
    ucp_ep_h ep;

    return OMPI_SUCCESS != ompi_osc_newrma_ucx_ep(ompi_comm_peer_lookup(module->comm, target->rank),
                                                  &ep, &emulated) ||
           emulated;
}

int ompi_osc_newrma_pkt_put(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                            ompi_osc_newrma_op_t *op, const char *stream)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};
    size_t desc_len = ompi_datatype_pack_description_length(op->target_dt);
    const void *desc;
    int ret = ompi_datatype_get_pack_description(op->target_dt, &desc);
    size_t chunk = pkt_put_chunk(module, desc_len);
    size_t first = desc_len + (op->bytes < chunk ? op->bytes : chunk);
    /* Where the transport reads large messages in place (by hardware or the
     * kernel; not TCP, which emulates RDMA), a described PUT's chunk of
     * more than batch_rndv_bytes goes from the origin's stream in a message
     * of its own by rendezvous: it lands in a pooled buffer at the target,
     * one copy fewer than through an aggregated message, which took most
     * of a strided PUT's time at the origin.  The peer is looked up only
     * when the largest chunk is large enough. */
    bool rndv = ompi_osc_newrma_pkt_message_rndv(false, first) &&
                !ompi_osc_newrma_pkt_target_emulated(module, target);

    OSC_NEWRMA_VERBOSE(30, "PUT of %zu bytes to rank %d as packets (fine-grained target layout%s)",
                       op->bytes, target->rank, rndv ? ", by rendezvous" : "");
    hdr.type = OMPI_OSC_NEWRMA_PKT_PUT;
    hdr.addr = op->target_addr;
    hdr.count = (uint32_t) op->target_count;
    hdr.desc_len = (uint32_t) desc_len;
    /* pipelined: the target unpacks each chunk at its stream offset */
    for (size_t offset = 0; OMPI_SUCCESS == ret && offset < op->bytes; offset += chunk) {
        size_t len = op->bytes - offset < chunk ? op->bytes - offset : chunk;
        hdr.tag = offset;
        hdr.len = len;
        if (rndv && ompi_osc_newrma_pkt_message_rndv(false, desc_len + len)) {
            /* counted in am_sent by the send */
            ret = ompi_osc_newrma_pkt_send_op(module, target, op, &hdr, desc, desc_len,
                                              stream + offset, len, true);
            continue;
        }
        ret = pkt_put_described_add(module, target, &hdr, desc, stream + offset);
    }
    return ret;
}

bool ompi_osc_newrma_pkt_put_described(ompi_osc_newrma_module_t *module,
                                       ompi_osc_newrma_target_t *target, struct ompi_datatype_t *dt,
                                       int count, const void *data, size_t len, uint64_t taddr,
                                       int *ret_p)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};
    size_t desc_len = ompi_datatype_pack_description_length(dt);
    const void *desc;

    if (len > pkt_put_chunk(module, desc_len) ||
        ompi_osc_newrma_pkt_message_rndv(false, desc_len + len)) {
        return false;
    }
    *ret_p = ompi_datatype_get_pack_description(dt, &desc);
    if (OMPI_SUCCESS == *ret_p) {
        hdr.type = OMPI_OSC_NEWRMA_PKT_PUT;
        hdr.addr = taddr;
        hdr.count = (uint32_t) count;
        hdr.desc_len = (uint32_t) desc_len;
        hdr.len = len;
        *ret_p = pkt_put_described_add(module, target, &hdr, desc, data);
    }
    return true;
}

int ompi_osc_newrma_pkt_rma_done(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                                 ompi_osc_newrma_atomic_t *counter)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};

    hdr.type = OMPI_OSC_NEWRMA_PKT_RMA_DONE;
    /* passive target counts the acknowledgement on the target element */
    hdr.tag = counter == &target->ack_counter ? (uint64_t) (uintptr_t) target : 0;
    return ompi_osc_newrma_pkt_send_tail_counted(module, target, &hdr, counter);
}

/* An unanswered epoch-closing packet (COMPLETE, FENCE_DONE) to @p rank:
 * behind the packets of @p target, or alone (NULL). */
static int pkt_send_closing(ompi_osc_newrma_module_t *module, int rank,
                            ompi_osc_newrma_target_t *target, ompi_osc_newrma_pkt_hdr_t *hdr)
{
    return NULL == target ? ompi_osc_newrma_pkt_send(module, rank, hdr, NULL, 0)
                          : ompi_osc_newrma_pkt_send_tail(module, target, hdr);
}

int ompi_osc_newrma_pkt_complete(ompi_osc_newrma_module_t *module, int rank,
                                 ompi_osc_newrma_target_t *target)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};

    hdr.type = OMPI_OSC_NEWRMA_PKT_COMPLETE;
    return pkt_send_closing(module, rank, target, &hdr);
}

/* ---- per-origin counts (applied packets, POSTs) ---- */

/* The count @p key holds in @p table, made lazily (@p ready): 0 if none. */
static uint64_t pkt_count(opal_hash_table_t *table, bool ready, uint32_t key)
{
    void *value;

    if (!ready || OPAL_SUCCESS != opal_hash_table_get_value_uint32(table, key, &value)) {
        return 0;
    }
    return (uint64_t) (uintptr_t) value;
}

/* Set @p key's count in @p table, made with the first (most windows never
 * need one). */
static int pkt_count_set(opal_hash_table_t *table, bool *ready, uint32_t key, uint64_t n)
{
    if (!*ready) {
        if (OPAL_SUCCESS != opal_hash_table_init(table, 4)) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        *ready = true;
    }
    (void) opal_hash_table_set_value_uint32(table, key, (void *) (uintptr_t) n);
    return OMPI_SUCCESS;
}

/* ---- POST ---- */

/* POSTs of @p rank not yet taken (am_lock held). */
static uint64_t pkt_posts(ompi_osc_newrma_module_t *module, int rank)
{
    return pkt_count(&module->pscw_posts, module->pscw_posts_ready, (uint32_t) rank);
}

/* @p n more POSTs of @p rank, or fewer (am_lock held). */
static void pkt_posts_add(ompi_osc_newrma_module_t *module, int rank, int n)
{
    int ret = pkt_count_set(&module->pscw_posts, &module->pscw_posts_ready, (uint32_t) rank,
                            pkt_posts(module, rank) + (uint64_t) (int64_t) n);

    if (OMPI_SUCCESS != ret) {
        module->pscw_posts_failed = ret;
    }
}

/* A POST of @p rank arrived (or, from myself, was made). */
static void pkt_post_received(ompi_osc_newrma_module_t *module, int rank)
{
    ompi_osc_newrma_mutex_lock(&module->am_lock, OMPI_OSC_NEWRMA_MUTEX_AM);
    pkt_posts_add(module, rank, 1);
    ompi_osc_newrma_mutex_unlock(&module->am_lock, OMPI_OSC_NEWRMA_MUTEX_AM);
}

int ompi_osc_newrma_pkt_post(ompi_osc_newrma_module_t *module, int rank)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};

    if (rank == module->my_rank) {
        pkt_post_received(module, rank);
        return OMPI_SUCCESS;
    }
    hdr.type = OMPI_OSC_NEWRMA_PKT_POST;
    return ompi_osc_newrma_pkt_send(module, rank, &hdr, NULL, 0);
}

int ompi_osc_newrma_pkt_posts_take(ompi_osc_newrma_module_t *module, const int *ranks, int count)
{
    int ret = 1;

    ompi_osc_newrma_mutex_lock(&module->am_lock, OMPI_OSC_NEWRMA_MUTEX_AM);
    for (int i = 0; i < count && 1 == ret; ++i) {
        ret = pkt_posts(module, ranks[i]) > 0;
    }
    for (int i = 0; i < count && 1 == ret; ++i) {
        pkt_posts_add(module, ranks[i], -1);
    }
    if (OMPI_SUCCESS != module->pscw_posts_failed) {
        ret = module->pscw_posts_failed;
    }
    ompi_osc_newrma_mutex_unlock(&module->am_lock, OMPI_OSC_NEWRMA_MUTEX_AM);
    return ret;
}

static void pkt_handle_post(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    pkt_post_received(module, pkt->hdr.src);
}

int ompi_osc_newrma_pkt_fence_done(ompi_osc_newrma_module_t *module, int rank,
                                   ompi_osc_newrma_target_t *target, int parity)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};

    hdr.type = OMPI_OSC_NEWRMA_PKT_FENCE_DONE;
    hdr.tag = (uint64_t) parity;
    return pkt_send_closing(module, rank, target, &hdr);
}

/* ---- PUT packets and RMA_DONE at the target ---- */

/* The per-origin count of applied packets carries one more bit: one of
 * them failed since the last RMA_DONE or UNLOCK was answered. */
#define PKT_APPLIED_FAILED ((uint64_t) 1 << 62)

static uint64_t pkt_applied(ompi_osc_newrma_module_t *module, int32_t src)
{
    return pkt_count(&module->am_received, module->am_received_ready, (uint32_t) src);
}

static void pkt_set_applied(ompi_osc_newrma_module_t *module, int32_t src, uint64_t n)
{
    int ret = pkt_count_set(&module->am_received, &module->am_received_ready, (uint32_t) src, n);

    if (OMPI_SUCCESS != ret) {
        ompi_osc_newrma_module_error(module, ret);
    }
}

/* An earlier RMA_DONE, UNLOCK or COMPLETE of the same origin still waits:
 * each one's count follows the one before it. */
static bool pkt_done_blocked(ompi_osc_newrma_module_t *module, pkt_pending_done_t *done)
{
    pkt_pending_done_t *before;

    OPAL_LIST_FOREACH(before, &module->am_pending_done, pkt_pending_done_t)
    {
        if (before == done) {
            return false;
        }
        if (before->src == done->src) {
            return true;
        }
    }
    return false;
}

/* An acknowledgement for @p src: with the answers to the BATCH being
 * handled when it came from @p src (one message back, not two). */
static int pkt_ack(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_pkt_t *handled,
                   int32_t src, ompi_osc_newrma_pkt_hdr_t *ack)
{
    if (NULL != handled && handled->hdr.src == src) {
        return ompi_osc_newrma_pkt_reply(module, handled, ack, NULL, 0);
    }
    return ompi_osc_newrma_pkt_send(module, src, ack, NULL, 0);
}

/* Answer every RMA_DONE whose PUT packets have all been applied (am_lock
 * held).  Packets and RMA_DONE may arrive in any order: counting makes the
 * acknowledgement independent of it.  An UNLOCK also releases the lock; a
 * COMPLETE is counted for MPI_Win_wait, a FENCE_DONE for the fence. */
static void pkt_settle_rma_dones(ompi_osc_newrma_module_t *module,
                                 const ompi_osc_newrma_pkt_t *handled)
{
    pkt_pending_done_t *done, *next;
    ompi_osc_newrma_pkt_hdr_t ack = {0};

    OPAL_LIST_FOREACH_SAFE(done, next, &module->am_pending_done, pkt_pending_done_t)
    {
        uint64_t raw = pkt_applied(module, done->src), applied = raw & ~PKT_APPLIED_FAILED;
        int status = (raw & PKT_APPLIED_FAILED) ? OMPI_ERROR : OMPI_SUCCESS;
        if (applied < done->count || pkt_done_blocked(module, done)) {
            continue;
        }
        pkt_set_applied(module, done->src, applied - done->count);
        opal_list_remove_item(&module->am_pending_done, &done->super.super);
        if (OMPI_OSC_NEWRMA_PKT_COMPLETE == done->type) {
            if (OMPI_SUCCESS != status) {
                ompi_osc_newrma_module_error(module, status); /* MPI_Win_wait reports it */
            }
            opal_atomic_wmb();
            opal_atomic_add_fetch_32(&module->pscw_completes, 1);
        } else if (OMPI_OSC_NEWRMA_PKT_FENCE_DONE == done->type) {
            if (OMPI_SUCCESS != status) {
                module->fence.failed[done->tag & 1] = status; /* the fence reports it */
            }
            opal_atomic_wmb();
            opal_atomic_add_fetch_32(&module->fence.dones[done->tag & 1], 1);
        } else if (OMPI_OSC_NEWRMA_PKT_UNLOCK == done->type) {
            pkt_unlock_fn(module, done->src, done->lock_type, done->tag, status);
        } else {
            ack.type = OMPI_OSC_NEWRMA_PKT_RMA_DONE_ACK;
            ack.tag = done->tag;
            ack.status = status;
            if (OMPI_SUCCESS != pkt_ack(module, handled, done->src, &ack)) {
                opal_output(0, "osc/newrma: cannot send RMA_DONE_ACK to rank %d", done->src);
            }
        }
        opal_free_list_return_mt(&pkt_done_free_list, &done->super);
    }
}

void ompi_osc_newrma_pkt_pending_dones_drop(ompi_osc_newrma_module_t *module)
{
    opal_list_item_t *item;

    while (NULL != (item = opal_list_remove_first(&module->am_pending_done))) {
        opal_free_list_return_mt(&pkt_done_free_list, (opal_free_list_item_t *) item);
    }
}

/* ---- Target layouts from their descriptions ---- */

/* Layouts made from descriptions, kept for the next packet with the same
 * description from the same process: a strided PUT of 128 bytes (sixteen
 * 8-byte blocks) as packets spent a third of its target's time making and
 * freeing its datatype (malloc, opal_datatype_add, commit, free).  Only the
 * packet handlers use it, one thread at a time (the agent's turn,
 * progress_busy).  A handful of entries, replaced in turn: a program
 * touches few layouts at a time, and a description is a few dozen bytes. */
#define PKT_LAYOUTS         8
#define PKT_LAYOUT_DESC_MAX 1024

typedef struct {
    struct ompi_datatype_t *dt; /* one reference of the cache's */
    struct ompi_proc_t *proc;   /* the sender: a description is read in its terms */
    size_t len;
    char *desc;
} pkt_layout_t;

static pkt_layout_t pkt_layouts[PKT_LAYOUTS];
static unsigned pkt_layout_next;

static void pkt_layout_clear(pkt_layout_t *l)
{
    ompi_osc_newrma_dtype_release(l->dt);
    free(l->desc);
    memset(l, 0, sizeof(*l));
}

static struct ompi_datatype_t *pkt_layout_find(const char *desc, size_t len,
                                               struct ompi_proc_t *proc)
{
    for (int i = 0; i < PKT_LAYOUTS; ++i) {
        pkt_layout_t *l = &pkt_layouts[i];
        if (NULL != l->dt && l->len == len && l->proc == proc && 0 == memcmp(l->desc, desc, len)) {
            OBJ_RETAIN(l->dt);
            return l->dt;
        }
    }
    return NULL;
}

/* Keep derived @p dt for @p desc (a predefined one costs nothing to make);
 * without memory for the copy it is simply not kept. */
static void pkt_layout_keep(struct ompi_datatype_t *dt, const char *desc, size_t len,
                            struct ompi_proc_t *proc)
{
    pkt_layout_t *l = &pkt_layouts[pkt_layout_next];
    char *copy;

    if (ompi_datatype_is_predefined(dt) || len > PKT_LAYOUT_DESC_MAX ||
        NULL == (copy = malloc(len))) {
        return;
    }
    pkt_layout_next = (pkt_layout_next + 1) % PKT_LAYOUTS;
    pkt_layout_clear(l);
    memcpy(copy, desc, len);
    OBJ_RETAIN(dt);
    *l = (pkt_layout_t){dt, proc, len, copy};
}

static void pkt_layouts_fini(void)
{
    for (int i = 0; i < PKT_LAYOUTS; ++i) {
        pkt_layout_clear(&pkt_layouts[i]);
    }
    pkt_layout_next = 0;
}

struct ompi_datatype_t *ompi_osc_newrma_pkt_datatype(ompi_osc_newrma_module_t *module,
                                                     const ompi_osc_newrma_pkt_t *pkt)
{
    /* a rendezvous not landed yet: its description came as the prefix */
    bool landed = NULL != pkt->payload;
    const char *desc = landed ? pkt->payload : pkt->prefix;
    size_t len = pkt->hdr.desc_len;
    struct ompi_proc_t *proc = ompi_comm_peer_lookup(module->comm, pkt->hdr.src);
    struct ompi_datatype_t *dt;
    void *at = (void *) desc;

    if (0 == len || len > (landed ? pkt->payload_len : pkt->prefix_len)) {
        return NULL; /* the description cannot lie beyond what came */
    }
    dt = pkt_layout_find(desc, len, proc);
    if (NULL == dt) {
        dt = ompi_datatype_create_from_packed_description(&at, proc);
        if (NULL != dt) {
            pkt_layout_keep(dt, desc, len, proc);
        }
    }
    return dt;
}

static int pkt_unpack_put(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    ompi_datatype_t *dt;
    int ret;

    if (pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_CONTIG) {
        if (pkt->payload_len != pkt->hdr.len) {
            return OMPI_ERR_BAD_PARAM;
        }
        ompi_osc_newrma_copy((void *) (uintptr_t) pkt->hdr.addr, pkt->payload, pkt->payload_len);
        return OMPI_SUCCESS;
    }
    dt = ompi_osc_newrma_pkt_datatype(module, pkt);
    if (NULL == dt) {
        return OMPI_ERR_BAD_PARAM;
    }
    ret = ompi_osc_newrma_dtype_unpack_at((void *) (uintptr_t) pkt->hdr.addr, dt,
                                          (int) pkt->hdr.count, pkt->hdr.tag,
                                          pkt->payload + pkt->hdr.desc_len, pkt->hdr.len);
    ompi_osc_newrma_dtype_release(dt);
    return ret;
}

/* @p n more packets of @p handled's origin applied: the RMA_DONEs they
 * complete are answered. */
static void pkt_add_applied(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_pkt_t *handled,
                            uint32_t n, bool failed)
{
    int32_t src = handled->hdr.src;

    ompi_osc_newrma_mutex_lock(&module->am_lock, OMPI_OSC_NEWRMA_MUTEX_AM);
    pkt_set_applied(module, src,
                    (pkt_applied(module, src) + n) | (failed ? PKT_APPLIED_FAILED : 0));
    pkt_settle_rma_dones(module, handled);
    ompi_osc_newrma_mutex_unlock(&module->am_lock, OMPI_OSC_NEWRMA_MUTEX_AM);
}

void ompi_osc_newrma_pkt_count_applied_n(ompi_osc_newrma_module_t *module,
                                         const ompi_osc_newrma_pkt_t *pkt, uint32_t n, int status)
{
    if (NULL != pkt->tally) { /* counted with the rest of its BATCH */
        pkt->tally->applied += n;
        pkt->tally->failed |= OMPI_SUCCESS != status;
        return;
    }
    pkt_add_applied(module, pkt, n, OMPI_SUCCESS != status);
}

void ompi_osc_newrma_pkt_count_applied(ompi_osc_newrma_module_t *module,
                                       const ompi_osc_newrma_pkt_t *pkt, int status)
{
    ompi_osc_newrma_pkt_count_applied_n(module, pkt, 1, status);
}

/* A BATCH's packets applied: counted at once (an RMA_DONE among them, which
 * found them not counted yet, is answered now). */
static void pkt_batch_end(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_pkt_t *handled,
                          const ompi_osc_newrma_pkt_tally_t *tally)
{
    pkt_add_applied(module, handled, tally->applied, tally->failed);
}

bool ompi_osc_newrma_pkt_test_fail(void)
{
    static ompi_osc_newrma_atomic_t applied = 0;

    return component.test_fail_packet > 0 &&
           opal_atomic_add_fetch_32(&applied, 1) == component.test_fail_packet;
}

/* A PUT sent by rendezvous: contiguous data lands straight in the window; a
 * described chunk in a pooled buffer, unpacked on the packet's second
 * visit (LANDED).  It counts as applied on that visit. */
int ompi_osc_newrma_pkt_land_described(ompi_osc_newrma_pkt_t *pkt)
{
    return pkt->prefix_len + pkt->payload_len == pkt->hdr.desc_len + pkt->hdr.len
               ? ompi_osc_newrma_pkt_land_pooled(pkt)
               : OMPI_ERR_BAD_PARAM;
}

static int pkt_land_put(ompi_osc_newrma_pkt_t *pkt)
{
    if (!(pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_CONTIG)) {
        return ompi_osc_newrma_pkt_land_described(pkt);
    }
    if (0 != pkt->prefix_len || pkt->payload_len != pkt->hdr.len) {
        return OMPI_ERR_BAD_PARAM;
    }
    return ompi_osc_newrma_pkt_land(pkt, (void *) (uintptr_t) pkt->hdr.addr);
}

static void pkt_handle_put(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    int ret;

    if (pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_LANDED) {
        ret = pkt->hdr.status;
        if (OMPI_SUCCESS == ret && !(pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_CONTIG)) {
            ret = pkt_unpack_put(module, pkt);
        }
    } else if (ompi_osc_newrma_pkt_test_fail()) {
        ret = OMPI_ERROR; /* a rendezvous payload is cancelled with the packet */
    } else if (pkt->rndv) {
        ret = pkt_land_put(pkt);
        if (OMPI_SUCCESS == ret) {
            return;
        }
    } else {
        ret = pkt_unpack_put(module, pkt);
    }

    if (OMPI_SUCCESS != ret) {
        OSC_NEWRMA_VERBOSE(1, "cannot apply a PUT packet from rank %d: %d", pkt->hdr.src, ret);
    }
    /* counted even when it failed, so the origin is not left waiting; its
     * RMA_DONE or UNLOCK reports the failure */
    ompi_osc_newrma_pkt_count_applied(module, pkt, ret);
}

int ompi_osc_newrma_pkt_rec_next(const ompi_osc_newrma_pkt_t *pkt, size_t *at_p,
                                 ompi_osc_newrma_pkt_rec_t *rec, const char **data_p)
{
    size_t at = *at_p;

    if (pkt->payload_len - at < sizeof(*rec)) {
        return OMPI_ERR_BAD_PARAM;
    }
    memcpy(rec, pkt->payload + at, sizeof(*rec));
    at += sizeof(*rec);
    if (rec->len > pkt->payload_len - at) {
        return OMPI_ERR_BAD_PARAM;
    }
    *data_p = pkt->payload + at;
    *at_p = at + ompi_osc_newrma_pkt_recs_padded(rec->len);
    return OMPI_SUCCESS;
}

int ompi_osc_newrma_pkt_recs_apply(const ompi_osc_newrma_pkt_t *pkt,
                                   ompi_osc_newrma_pkt_rec_fn_t apply, void *ctx)
{
    ompi_osc_newrma_pkt_rec_t rec;
    const char *data;
    size_t at = 0;
    int ret = OMPI_SUCCESS, rc;

    while (at < pkt->payload_len) {
        if (OMPI_SUCCESS != ompi_osc_newrma_pkt_rec_next(pkt, &at, &rec, &data)) {
            return OMPI_ERR_BAD_PARAM;
        }
        rc = ompi_osc_newrma_pkt_test_fail() ? OMPI_ERROR : apply(ctx, &rec, data);
        ret = OMPI_SUCCESS != rc ? rc : ret;
    }
    return ret;
}

static int pkt_put_rec(void *ctx, const ompi_osc_newrma_pkt_rec_t *rec, const char *data)
{
    (void) ctx;
    ompi_osc_newrma_copy((void *) (uintptr_t) rec->addr, data, rec->len);
    return OMPI_SUCCESS;
}

/* Small PUTs, record by record, in order.  A malformed packet stops at
 * its first bad record; the count is applied even then (as pkt_handle_put
 * does), the failure going to the origin's RMA_DONE or UNLOCK. */
static void pkt_handle_puts(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    int ret = ompi_osc_newrma_pkt_recs_apply(pkt, pkt_put_rec, NULL);

    if (OMPI_SUCCESS != ret) {
        OSC_NEWRMA_VERBOSE(1, "cannot apply a PUTS packet from rank %d: %d", pkt->hdr.src, ret);
    }
    ompi_osc_newrma_pkt_count_applied_n(module, pkt, pkt->hdr.count, ret);
}

void ompi_osc_newrma_pkt_answer(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_pkt_t *pkt,
                                uint8_t type, int status, const void *data)
{
    ompi_osc_newrma_pkt_hdr_t reply = {0};

    reply.type = type;
    reply.status = status;
    /* a GET asked for by rendezvous is not in its origin's GET budget */
    reply.flags = pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_RNDV;
    reply.echo = pkt->hdr.echo;
    reply.tag = pkt->hdr.tag;
    reply.tag2 = pkt->hdr.tag2;
    reply.len = pkt->hdr.len;
    if (OMPI_SUCCESS !=
        ompi_osc_newrma_pkt_reply(module, pkt, &reply, data, NULL != data ? pkt->hdr.len : 0)) {
        opal_output(0, "osc/newrma: cannot answer %s of rank %d",
                    OMPI_OSC_NEWRMA_PKT_GET_REPLY == type ? "a GET" : "an accumulate",
                    pkt->hdr.src);
    }
}

/* A large GET's answer, read in place by rendezvous.  The GET counts as
 * applied only once the data has been read (its second visit, SENT): an
 * RMA_DONE, UNLOCK or COMPLETE behind it, which may let the target's owner
 * or another origin write there, waits for that. */
static int pkt_answer_get_rndv(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_pkt_t *pkt)
{
    return ompi_osc_newrma_pkt_answer_rndv(module, pkt, OMPI_OSC_NEWRMA_PKT_GET_REPLY,
                                           (const void *) (uintptr_t) pkt->hdr.addr, false);
}

/* A GET whose target layout its payload describes: bytes [tag, tag+len)
 * of the layout's data stream, packed into *@p packed, a buffer of the
 * transport's pool (freed by the caller): a chunk is up to 256 KiB, and one
 * malloc'd and freed per chunk made glibc trim the heap and fault it in
 * again, most of a strided GET's time at the target. */
static int pkt_pack_get(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_pkt_t *pkt,
                        char **packed)
{
    ompi_datatype_t *dt;
    int ret;

    if (pkt->payload_len != pkt->hdr.desc_len || pkt->hdr.len > OMPI_OSC_NEWRMA_PKT_PUT_CHUNK) {
        return OMPI_ERR_BAD_PARAM;
    }
    dt = ompi_osc_newrma_pkt_datatype(module, pkt);
    if (NULL == dt) {
        return OMPI_ERR_BAD_PARAM;
    }
    *packed = ompi_osc_newrma_ucx_am_buffer(0, pkt->hdr.len);
    ret = NULL == *packed
              ? OMPI_ERR_OUT_OF_RESOURCE
              : ompi_osc_newrma_dtype_pack_at(*packed, (const void *) (uintptr_t) pkt->hdr.addr, dt,
                                              (int) pkt->hdr.count, pkt->hdr.tag, pkt->hdr.len);
    ompi_osc_newrma_dtype_release(dt);
    return ret;
}

static void pkt_handle_get_described(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    char *packed = NULL;
    int ret = ompi_osc_newrma_pkt_test_fail() ? OMPI_ERROR : pkt_pack_get(module, pkt, &packed);

    ompi_osc_newrma_pkt_answer(module, pkt, OMPI_OSC_NEWRMA_PKT_GET_REPLY, ret,
                               OMPI_SUCCESS == ret ? packed : NULL);
    ompi_osc_newrma_ucx_am_buffer_free(packed); /* the answer copied it */
    ompi_osc_newrma_pkt_count_applied(module, pkt, ret);
}

static void pkt_handle_get(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    int ret;
    const void *data;

    if (pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_SENT) {
        ompi_osc_newrma_pkt_count_applied(module, pkt, pkt->hdr.status);
        return;
    }
    if (pkt->hdr.desc_len > 0) {
        pkt_handle_get_described(module, pkt);
        return;
    }
    ret = ompi_osc_newrma_pkt_test_fail() ? OMPI_ERROR : OMPI_SUCCESS;
    /* the origin checked the range against the window when it queued the op */
    data = OMPI_SUCCESS == ret ? (const void *) (uintptr_t) pkt->hdr.addr : NULL;
    if (OMPI_SUCCESS == ret && (pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_RNDV)) {
        ret = pkt_answer_get_rndv(module, pkt);
        if (OMPI_SUCCESS == ret) {
            return;
        }
        data = NULL; /* the failure is answered at once */
    }
    ompi_osc_newrma_pkt_answer(module, pkt, OMPI_OSC_NEWRMA_PKT_GET_REPLY, ret, data);
    ompi_osc_newrma_pkt_count_applied(module, pkt, ret);
}

/* A GETS packet's answer (ompi_osc_newrma_pkt_fill_fn_t): for each of its
 * records, in order, the origin's buffer and length, and the data read. */
static void pkt_gets_fill(char *at, void *ctx)
{
    const ompi_osc_newrma_pkt_t *pkt = ctx;
    ompi_osc_newrma_pkt_get_rec_t get;
    ompi_osc_newrma_pkt_rec_t rec;

    for (size_t in = 0; in + sizeof(get) <= pkt->payload_len; in += sizeof(get)) {
        size_t padded;

        memcpy(&get, pkt->payload + in, sizeof(get));
        padded = ompi_osc_newrma_pkt_recs_padded(get.len);
        rec.addr = get.dest;
        rec.len = get.len;
        memcpy(at, &rec, sizeof(rec));
        at += sizeof(rec);
        ompi_osc_newrma_copy(at, (const void *) (uintptr_t) get.addr, get.len);
        memset(at + get.len, 0, padded - get.len); /* no uninitialized bytes on the wire */
        at += padded;
    }
}

/* Target side: a GETS packet, answered by one GETS_REPLY with the data of
 * all its records (written straight into the answers' message).  The
 * origin checked each range against the window when it packed it.  A
 * malformed packet, or a record that fails (osc_newrma_test_fail_packet),
 * is answered without data: the origin's completing call reports it. */
static void pkt_handle_gets(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    ompi_osc_newrma_pkt_hdr_t reply = {0};
    ompi_osc_newrma_pkt_get_rec_t get;
    size_t answer = 0, bytes = 0, in;
    uint32_t n = 0;
    int ret = OMPI_SUCCESS, rc;

    for (in = 0; in + sizeof(get) <= pkt->payload_len; in += sizeof(get), ++n) {
        memcpy(&get, pkt->payload + in, sizeof(get));
        answer += ompi_osc_newrma_pkt_gets_answer(get.len);
        bytes += get.len;
        if (ompi_osc_newrma_pkt_test_fail()) {
            ret = OMPI_ERROR;
        }
    }
    if (in != pkt->payload_len || n != pkt->hdr.count) {
        ret = OMPI_ERR_BAD_PARAM;
    }
    reply.type = OMPI_OSC_NEWRMA_PKT_GETS_REPLY;
    reply.status = ret;
    reply.echo = pkt->hdr.echo;
    reply.tag = pkt->hdr.tag;
    reply.count = pkt->hdr.count;
    reply.len = bytes; /* what its origin's answer budget counted */
    rc = OMPI_SUCCESS == ret
             ? ompi_osc_newrma_pkt_reply_fill(module, pkt, &reply, answer, pkt_gets_fill, pkt)
             : ompi_osc_newrma_pkt_reply(module, pkt, &reply, NULL, 0);
    if (OMPI_SUCCESS != ret || OMPI_SUCCESS != rc) {
        OSC_NEWRMA_VERBOSE(1, "cannot answer a GETS packet from rank %d: %d, %d", pkt->hdr.src, ret,
                           rc);
    }
    ompi_osc_newrma_pkt_count_applied_n(module, pkt, pkt->hdr.count, ret);
}

static void pkt_handle_rma_done(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    pkt_pending_done_t *done = (pkt_pending_done_t *) opal_free_list_get_mt(&pkt_done_free_list);

    if (NULL == done) {
        opal_output(0, "osc/newrma: out of memory handling RMA_DONE");
        return;
    }
    done->src = pkt->hdr.src;
    done->count = pkt->hdr.count;
    done->tag = pkt->hdr.tag;
    done->type = pkt->hdr.type;
    done->lock_type = (pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_EXCLUSIVE) ? MPI_LOCK_EXCLUSIVE
                                                                            : MPI_LOCK_SHARED;
    ompi_osc_newrma_mutex_lock(&module->am_lock, OMPI_OSC_NEWRMA_MUTEX_AM);
    opal_list_append(&module->am_pending_done, &done->super.super);
    pkt_settle_rma_dones(module, pkt);
    ompi_osc_newrma_mutex_unlock(&module->am_lock, OMPI_OSC_NEWRMA_MUTEX_AM);
}

/* ---- origin side: answers to passive target requests ---- */

/* Answers only touch atomic fields of elements that live until the answer
 * has arrived, so they need no window lock (they may run on the async
 * progress thread while the window's owner waits). */
static void pkt_handle_rma_done_ack(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    ompi_osc_newrma_target_t *target = (void *) (uintptr_t) pkt->hdr.tag;

    if (OMPI_SUCCESS != pkt->hdr.status) {
        /* the target could not apply one of the packets this answer covers */
        ompi_osc_newrma_module_error(module, pkt->hdr.status);
        opal_atomic_wmb();
    }
    opal_atomic_add_fetch_32(NULL != target ? &target->ack_counter : &module->ack_counter, -1);
}

void ompi_osc_newrma_pkt_deliver_reply(ompi_osc_newrma_op_t *op, char *stream,
                                       const ompi_osc_newrma_pkt_t *pkt)
{
    if (OMPI_SUCCESS == pkt->hdr.status && pkt->payload_len == pkt->hdr.len &&
        pkt->hdr.tag + pkt->hdr.len <= op->bytes) {
        ompi_osc_newrma_copy(stream + pkt->hdr.tag, pkt->payload, pkt->payload_len);
    } else {
        op->status = OMPI_ERROR; /* the target could not read or apply it */
    }
    opal_atomic_wmb();
    opal_atomic_add_fetch_32(&op->outstanding, -1);
}

void ompi_osc_newrma_pkt_land_reply(ompi_osc_newrma_op_t *op, char *stream,
                                    ompi_osc_newrma_pkt_t *pkt)
{
    int ret = OMPI_ERR_BAD_PARAM;

    if (pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_LANDED) {
        ret = pkt->hdr.status;
    } else if (pkt->payload_len == pkt->hdr.len && pkt->hdr.tag <= op->bytes &&
               pkt->hdr.len <= op->bytes - pkt->hdr.tag) {
        ret = ompi_osc_newrma_pkt_land(pkt, stream + pkt->hdr.tag);
        if (OMPI_SUCCESS == ret) {
            return;
        }
    }
    if (OMPI_SUCCESS != ret) {
        op->status = OMPI_ERROR;
    }
    opal_atomic_wmb();
    opal_atomic_add_fetch_32(&op->outstanding, -1);
}

/* The answer to a GET packed by the call: the data into the user's buffer,
 * then the count its synchronization waits on. */
static void pkt_get_packed_answered(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    ompi_osc_newrma_target_t *target = (void *) (uintptr_t) pkt->hdr.tag;

    pkt_get_answered(pkt);
    if (OMPI_SUCCESS != pkt->hdr.status || pkt->payload_len != pkt->hdr.len) {
        OSC_NEWRMA_VERBOSE(1, "rank %d could not answer a GET: %d", pkt->hdr.src, pkt->hdr.status);
        ompi_osc_newrma_module_error(module, OMPI_ERROR);
    } else {
        ompi_osc_newrma_copy((void *) (uintptr_t) pkt->hdr.tag2, pkt->payload, pkt->payload_len);
    }
    opal_atomic_wmb(); /* the data before the count a waiter reads */
    opal_atomic_add_fetch_32(&target->owed_at_call, -1);
}

/* The answer to a GETS packet: each record's data into the user's buffer,
 * then the count its synchronization waits on (as pkt_get_packed_answered
 * for each). */
static void pkt_handle_gets_reply(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    ompi_osc_newrma_target_t *target = (void *) (uintptr_t) pkt->hdr.tag;
    ompi_osc_newrma_pkt_rec_t rec;
    const char *data;
    int ret = pkt->hdr.status;
    uint32_t n = 0;
    size_t at = 0;

    pkt_get_answered(pkt);
    while (OMPI_SUCCESS == ret && at < pkt->payload_len) {
        ret = ompi_osc_newrma_pkt_rec_next(pkt, &at, &rec, &data);
        if (OMPI_SUCCESS == ret) {
            ompi_osc_newrma_copy((void *) (uintptr_t) rec.addr, data, rec.len);
            n++;
        }
    }
    if (OMPI_SUCCESS != ret || n != pkt->hdr.count) {
        OSC_NEWRMA_VERBOSE(1, "rank %d could not answer %u GETs: %d", pkt->hdr.src, pkt->hdr.count,
                           ret);
        ompi_osc_newrma_module_error(module, OMPI_ERROR);
    }
    opal_atomic_wmb(); /* the data before the count a waiter reads */
    opal_atomic_add_fetch_32(&target->owed_at_call, -(int32_t) pkt->hdr.count);
}

static void pkt_handle_get_reply(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    ompi_osc_newrma_op_t *op;

    if (pkt->hdr.echo & OMPI_OSC_NEWRMA_PKT_ECHO_PACKED_GET) {
        pkt_get_packed_answered(module, pkt);
        return;
    }
    op = (void *) (uintptr_t) pkt->hdr.tag2; /* its op element: where the data goes */

    if (pkt->rndv || (pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_LANDED)) {
        ompi_osc_newrma_pkt_land_reply(op, op->get_stream, pkt);
        return;
    }
    pkt_get_answered(pkt);
    ompi_osc_newrma_pkt_deliver_reply(op, op->get_stream, pkt);
}

int ompi_osc_newrma_pkt_data_init(void)
{
    int ret = ompi_osc_newrma_free_list_init(&pkt_done_free_list, sizeof(pkt_pending_done_t),
                                             OBJ_CLASS(pkt_pending_done_t));

    pkt_done_free_list_ready = OMPI_SUCCESS == ret;
    return ret;
}

void ompi_osc_newrma_pkt_data_fini(void)
{
    pkt_layouts_fini();
    if (pkt_done_free_list_ready) {
        OBJ_DESTRUCT(&pkt_done_free_list);
        pkt_done_free_list_ready = false;
    }
}

void ompi_osc_newrma_pkt_data_register_handlers(void)
{
    ompi_osc_newrma_pkt_batch_end_register(pkt_batch_end);
    ompi_osc_newrma_pkt_handler_register(OMPI_OSC_NEWRMA_PKT_PUT, pkt_handle_put);
    ompi_osc_newrma_pkt_handler_register(OMPI_OSC_NEWRMA_PKT_PUTS, pkt_handle_puts);
    ompi_osc_newrma_pkt_handler_register(OMPI_OSC_NEWRMA_PKT_GET, pkt_handle_get);
    ompi_osc_newrma_pkt_handler_register(OMPI_OSC_NEWRMA_PKT_GET_REPLY, pkt_handle_get_reply);
    ompi_osc_newrma_pkt_handler_register(OMPI_OSC_NEWRMA_PKT_GETS, pkt_handle_gets);
    ompi_osc_newrma_pkt_handler_register(OMPI_OSC_NEWRMA_PKT_GETS_REPLY, pkt_handle_gets_reply);
    ompi_osc_newrma_pkt_handler_register(OMPI_OSC_NEWRMA_PKT_RMA_DONE, pkt_handle_rma_done);
    ompi_osc_newrma_pkt_handler_register(OMPI_OSC_NEWRMA_PKT_UNLOCK, pkt_handle_rma_done);
    ompi_osc_newrma_pkt_handler_register(OMPI_OSC_NEWRMA_PKT_COMPLETE, pkt_handle_rma_done);
    ompi_osc_newrma_pkt_handler_register(OMPI_OSC_NEWRMA_PKT_FENCE_DONE, pkt_handle_rma_done);
    ompi_osc_newrma_pkt_handler_register(OMPI_OSC_NEWRMA_PKT_POST, pkt_handle_post);
    ompi_osc_newrma_pkt_handler_register(OMPI_OSC_NEWRMA_PKT_RMA_DONE_ACK, pkt_handle_rma_done_ack);
}
