/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: active-message packets (see osc_newrma_pkt.h).
 */
#include "ompi_config.h"

#include <assert.h>
#include <stddef.h>
#include <string.h>

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/proc/proc.h"
#include "opal/class/opal_free_list.h"
#include "opal/datatype/opal_convertor.h"

#include "osc_newrma.h"
#include "osc_newrma_dtype.h"
#include "osc_newrma_element.h"
#include "osc_newrma_mutex.h"
#include "osc_newrma_optable.h"
#include "osc_newrma_pkt.h"
#include "osc_newrma_pool.h"
#include "osc_newrma_ucx.h"
#include "osc_newrma_wait.h"

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

/* A received packet and, when it is copied and small, its payload: one
 * free-list element instead of a malloc per packet (payloads from
 * OMPI_OSC_NEWRMA_PKT_KEEP_MIN on are mostly kept in UCX's buffer).  Packets
 * are made (UCX receive callback) and freed only by the agent, one thread at
 * a time (ompi_osc_newrma_agent_progress / _acquire), or at finalize: the
 * single-threaded free list calls, without the 16-byte compare-and-swap of
 * the thread-safe ones. */
typedef struct {
    opal_free_list_item_t super;
    ompi_osc_newrma_pkt_t pkt;
    char payload[OMPI_OSC_NEWRMA_PKT_KEEP_MIN];
} pkt_elem_t;

static opal_free_list_t pkt_free_list;
/* RMA_DONEs waiting for their packets (pkt_pending_done_t): made by the
 * agent, freed by whoever settles them under the window's am_lock, so the
 * thread-safe calls */
static opal_free_list_t pkt_done_free_list;
static bool pkt_free_list_ready = false;

int ompi_osc_newrma_pkt_init(void)
{
    int ret = ompi_osc_newrma_free_list_init(&pkt_free_list, sizeof(pkt_elem_t),
                                             OBJ_CLASS(opal_free_list_item_t));

    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    ret = ompi_osc_newrma_free_list_init(&pkt_done_free_list, sizeof(pkt_pending_done_t),
                                         OBJ_CLASS(pkt_pending_done_t));
    if (OMPI_SUCCESS != ret) {
        OBJ_DESTRUCT(&pkt_free_list);
        return ret;
    }
    pkt_free_list_ready = true;
    return OMPI_SUCCESS;
}

/* @p payload_len bytes are copied after the packet unless @p keep */
static ompi_osc_newrma_pkt_t *pkt_alloc(size_t payload_len, bool keep)
{
    size_t copied = keep ? 0 : payload_len;
    opal_free_list_item_t *item;
    ompi_osc_newrma_pkt_t *pkt;

    if (copied <= OMPI_OSC_NEWRMA_PKT_KEEP_MIN &&
        NULL != (item = opal_free_list_get_st(&pkt_free_list))) {
        pkt = &((pkt_elem_t *) item)->pkt;
        pkt->payload = ((pkt_elem_t *) item)->payload;
        pkt->pooled = true;
        return pkt;
    }
    pkt = malloc(sizeof(*pkt) + copied);
    if (NULL != pkt) {
        pkt->payload = (char *) (pkt + 1);
        pkt->pooled = false;
    }
    return pkt;
}

bool ompi_osc_newrma_pkt_enqueue(const void *hdr, size_t hdr_len, void *payload,
                                 size_t payload_len, bool may_keep)
{
    /* large payloads stay in UCX's receive buffer: no copy of bulk data */
    bool keep = may_keep && payload_len >= OMPI_OSC_NEWRMA_PKT_KEEP_MIN;
    ompi_osc_newrma_pkt_t *pkt;

    if (hdr_len != sizeof(pkt->hdr)) {
        OSC_NEWRMA_VERBOSE(1, "dropping packet with a %zu-byte header", hdr_len);
        return false;
    }
    pkt = pkt_alloc(payload_len, keep);
    if (NULL == pkt) {
        opal_output(0, "osc/newrma: out of memory receiving a packet");
        return false;
    }
    OBJ_CONSTRUCT(&pkt->super, opal_list_item_t);
    memcpy(&pkt->hdr, hdr, sizeof(pkt->hdr));
    pkt->payload_len = payload_len;
    if (keep) {
        pkt->payload = payload;
    }
    pkt->ucx_data = keep ? payload : NULL;
    pkt->replies = NULL;
    if (!keep && payload_len > 0) {
        memcpy(pkt->payload, payload, payload_len);
    }
    ompi_osc_newrma_mutex_lock(&component.inbox_lock, OMPI_OSC_NEWRMA_MUTEX_INBOX);
    opal_list_append(&component.inbox, &pkt->super);
    ompi_osc_newrma_mutex_unlock(&component.inbox_lock, OMPI_OSC_NEWRMA_MUTEX_INBOX);
    return keep;
}

const char *ompi_osc_newrma_pkt_name(int type)
{
    static const char *const names[] = {
        [OMPI_OSC_NEWRMA_PKT_REGION_QUERY] = "REGION_QUERY",
        [OMPI_OSC_NEWRMA_PKT_REGION_REPLY] = "REGION_REPLY",
        [OMPI_OSC_NEWRMA_PKT_PUT] = "PUT",
        [OMPI_OSC_NEWRMA_PKT_RMA_DONE] = "RMA_DONE",
        [OMPI_OSC_NEWRMA_PKT_RMA_DONE_ACK] = "RMA_DONE_ACK",
        [OMPI_OSC_NEWRMA_PKT_LOCK] = "LOCK",
        [OMPI_OSC_NEWRMA_PKT_LOCK_GRANTED] = "LOCK_GRANTED",
        [OMPI_OSC_NEWRMA_PKT_UNLOCK] = "UNLOCK",
        [OMPI_OSC_NEWRMA_PKT_SINGLE] = "SINGLE",
        [OMPI_OSC_NEWRMA_PKT_SINGLE_ACK] = "SINGLE_ACK",
        [OMPI_OSC_NEWRMA_PKT_WAKE] = "WAKE",
        [OMPI_OSC_NEWRMA_PKT_ACC] = "ACC",
        [OMPI_OSC_NEWRMA_PKT_ACC_REPLY] = "ACC_REPLY",
        [OMPI_OSC_NEWRMA_PKT_REGION_FORGET] = "REGION_FORGET",
        [OMPI_OSC_NEWRMA_PKT_REGION_FORGET_ACK] = "REGION_FORGET_ACK",
        [OMPI_OSC_NEWRMA_PKT_BATCH] = "BATCH",
        [OMPI_OSC_NEWRMA_PKT_COMPLETE] = "COMPLETE",
        [OMPI_OSC_NEWRMA_PKT_GET] = "GET",
        [OMPI_OSC_NEWRMA_PKT_GET_REPLY] = "GET_REPLY",
        [OMPI_OSC_NEWRMA_PKT_FENCE_DONE] = "FENCE_DONE",
    };

    if (type <= 0 || type > OMPI_OSC_NEWRMA_PKT_LAST) {
        return "UNKNOWN";
    }
    return names[type];
}

/* Every packet leaves through here (or ompi_osc_newrma_pkt_batch_flush):
 * header stamped with window and sender. */
static int pkt_send_ep2(ompi_osc_newrma_module_t *module, ucp_ep_h ep, int dest,
                        ompi_osc_newrma_pkt_hdr_t *hdr, const void *p1, size_t len1,
                        const void *p2, size_t len2)
{
    hdr->cid = module->cid;
    hdr->src = module->my_rank;
    OSC_NEWRMA_VERBOSE(40, "rank %d window %u: packet %s to rank %d (%zu bytes of payload)",
                       module->my_rank, module->cid, ompi_osc_newrma_pkt_name(hdr->type), dest,
                       len1 + len2);
    OMPI_OSC_NEWRMA_STAT_ADD(module, MESSAGES, 1);
    return ompi_osc_newrma_ucx_am_send2(ep, hdr, sizeof(*hdr), p1, len1, p2, len2);
}

static int pkt_send_ep(ompi_osc_newrma_module_t *module, ucp_ep_h ep, int dest,
                       ompi_osc_newrma_pkt_hdr_t *hdr, const void *payload, size_t payload_len)
{
    return pkt_send_ep2(module, ep, dest, hdr, payload, payload_len, NULL, 0);
}

/* A packet whose answer decrements *@p counter: counted before it can be
 * answered, uncounted if it could not be sent. */
int ompi_osc_newrma_pkt_send_counted(ompi_osc_newrma_module_t *module, ucp_ep_h ep, int dest,
                                     ompi_osc_newrma_pkt_hdr_t *hdr, const void *payload,
                                     size_t payload_len, ompi_osc_newrma_atomic_t *counter)
{
    int ret;

    opal_atomic_add_fetch_32(counter, 1);
    ret = pkt_send_ep(module, ep, dest, hdr, payload, payload_len);
    if (OMPI_SUCCESS != ret) {
        opal_atomic_add_fetch_32(counter, -1);
    }
    return ret;
}

static int pkt_ep(ompi_osc_newrma_module_t *module, int dest, ucp_ep_h *ep_p)
{
    return ompi_osc_newrma_ucx_ep(ompi_comm_peer_lookup(module->comm, dest), ep_p, NULL);
}

int ompi_osc_newrma_pkt_send(ompi_osc_newrma_module_t *module, int dest,
                             ompi_osc_newrma_pkt_hdr_t *hdr, const void *payload,
                             size_t payload_len)
{
    ucp_ep_h ep;
    int ret = pkt_ep(module, dest, &ep);

    return OMPI_SUCCESS != ret ? ret : pkt_send_ep(module, ep, dest, hdr, payload, payload_len);
}

/* ---- handlers registered from above ---- */

#define PKT_TYPES (OMPI_OSC_NEWRMA_PKT_LAST + 1)

static ompi_osc_newrma_pkt_handler_fn_t pkt_handlers[PKT_TYPES];
static ompi_osc_newrma_pkt_unlock_fn_t pkt_unlock_fn;

void ompi_osc_newrma_pkt_handler_register(ompi_osc_newrma_pkt_type_t type,
                                          ompi_osc_newrma_pkt_handler_fn_t handler)
{
    assert((int) type < PKT_TYPES);
    pkt_handlers[type] = handler;
}

void ompi_osc_newrma_pkt_unlock_register(ompi_osc_newrma_pkt_unlock_fn_t unlock)
{
    pkt_unlock_fn = unlock;
}

/* ---- aggregation: one active message per target per progress round ---- */

#define PKT_BATCH_ALIGN ((size_t) 8)
/** a new batch's first allocation (bytes of packets) */
#define PKT_BATCH_FIRST ((size_t) 4096)

static size_t pkt_batch_padded(size_t payload_len)
{
    return (payload_len + PKT_BATCH_ALIGN - 1) & ~(PKT_BATCH_ALIGN - 1);
}

/* Send @p batch, if it holds packets, to window rank @p dest as one BATCH
 * message (UCX owns and frees the buffer) and leave it empty. */
static int pkt_batch_send(ompi_osc_newrma_module_t *module, ompi_osc_newrma_batch_t *batch,
                          int dest)
{
    ompi_osc_newrma_pkt_hdr_t *hdr = (ompi_osc_newrma_pkt_hdr_t *) batch->buf;
    size_t len = batch->len;
    ucp_ep_h ep;
    int ret;

    if (NULL == hdr) {
        return OMPI_SUCCESS;
    }
    memset(hdr, 0, sizeof(*hdr));
    hdr->type = OMPI_OSC_NEWRMA_PKT_BATCH;
    hdr->cid = module->cid;
    hdr->src = module->my_rank;
    hdr->count = batch->count;
    batch->buf = NULL;
    batch->len = 0;
    batch->capacity = 0;
    batch->count = 0;
    ret = pkt_ep(module, dest, &ep);
    if (OMPI_SUCCESS != ret) {
        ompi_osc_newrma_ucx_am_buffer_free(hdr);
        return ret;
    }
    OSC_NEWRMA_VERBOSE(40, "rank %d window %u: packet BATCH to rank %d (%zu bytes of payload)",
                       module->my_rank, module->cid, dest, len);
    OMPI_OSC_NEWRMA_STAT_ADD(module, MESSAGES, 1);
    return ompi_osc_newrma_ucx_am_send_buffer(ep, hdr, len);
}

/* Room for @p need bytes of packets in @p batch (at most @p cap): doubled
 * from PKT_BATCH_FIRST, so a batch of a few small packets costs what it
 * holds, not a message; a large packet takes the whole message at once
 * (no copies while growing). */
static int pkt_batch_reserve(ompi_osc_newrma_batch_t *batch, size_t need, size_t cap)
{
    size_t capacity = batch->capacity > 0 ? batch->capacity : PKT_BATCH_FIRST;
    char *buf;

    if (need - batch->len >= PKT_BATCH_FIRST) {
        capacity = cap;
    }
    while (capacity < need) {
        capacity *= 2;
    }
    capacity = capacity < cap ? capacity : cap;
    buf = NULL == batch->buf
              ? ompi_osc_newrma_ucx_am_buffer(sizeof(ompi_osc_newrma_pkt_hdr_t), capacity)
              : ompi_osc_newrma_ucx_am_buffer_resize(batch->buf, capacity);
    if (NULL == buf) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    batch->buf = buf;
    batch->capacity = capacity;
    return OMPI_SUCCESS;
}

/* Add a packet for window rank @p dest to @p batch, sending the batch first
 * when the packet does not fit; one larger than a whole batch goes alone,
 * after the ones before it. */
static int pkt_batch_append(ompi_osc_newrma_module_t *module, ompi_osc_newrma_batch_t *batch,
                            int dest, ompi_osc_newrma_pkt_hdr_t *hdr, const void *p1, size_t len1,
                            const void *p2, size_t len2)
{
    size_t payload = len1 + len2, padded = pkt_batch_padded(payload);
    size_t entry = sizeof(*hdr) + padded, cap = module->config.aggregate_bytes;
    char *at;
    int ret;

    if (NULL != batch->buf && batch->len + entry > cap) {
        ret = pkt_batch_send(module, batch, dest);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
    }
    if (entry > cap) {
        ucp_ep_h ep;

        ret = pkt_ep(module, dest, &ep);
        return OMPI_SUCCESS != ret ? ret : pkt_send_ep2(module, ep, dest, hdr, p1, len1, p2, len2);
    }
    if (batch->len + entry > batch->capacity) {
        ret = pkt_batch_reserve(batch, batch->len + entry, cap);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
    }
    hdr->cid = module->cid;
    hdr->src = module->my_rank;
    hdr->batch_len = (uint32_t) payload;
    at = batch->buf + sizeof(*hdr) + batch->len;
    memcpy(at, hdr, sizeof(*hdr));
    at += sizeof(*hdr);
    if (len1 > 0) {
        memcpy(at, p1, len1);
    }
    if (len2 > 0) {
        memcpy(at + len1, p2, len2);
    }
    memset(at + payload, 0, padded - payload); /* no uninitialized bytes on the wire */
    batch->len += entry;
    batch->count++;
    OMPI_OSC_NEWRMA_STAT_ADD(module, PACKETS_AGGREGATED, 1);
    OSC_NEWRMA_VERBOSE(40, "rank %d window %u: %s for rank %d aggregated (%zu bytes of payload)",
                       module->my_rank, module->cid, ompi_osc_newrma_pkt_name(hdr->type), dest,
                       payload);
    return OMPI_SUCCESS;
}

int ompi_osc_newrma_pkt_batch_flush(ompi_osc_newrma_module_t *module,
                                    ompi_osc_newrma_target_t *target)
{
    if (NULL == target->batch.buf) {
        return OMPI_SUCCESS;
    }
    module->batches_open--;
    return pkt_batch_send(module, &target->batch, target->rank);
}

void ompi_osc_newrma_pkt_target_release(ompi_osc_newrma_module_t *module,
                                        ompi_osc_newrma_target_t *target)
{
    int ret = ompi_osc_newrma_pkt_batch_flush(module, target);

    if (OMPI_SUCCESS != ret) {
        ompi_osc_newrma_module_error(module, ret);
    }
    ompi_osc_newrma_target_put(module, target);
}

int ompi_osc_newrma_pkt_batch_flush_all(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_target_t *target;
    int ret;

    if (0 == module->batches_open) {
        return OMPI_SUCCESS;
    }
    for (target = ompi_osc_newrma_optable_first(&module->table); NULL != target;
         target = ompi_osc_newrma_optable_next(&module->table, target)) {
        ret = ompi_osc_newrma_pkt_batch_flush(module, target);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
    }
    return OMPI_SUCCESS;
}

int ompi_osc_newrma_pkt_batch_add(ompi_osc_newrma_module_t *module,
                                  ompi_osc_newrma_target_t *target,
                                  ompi_osc_newrma_pkt_hdr_t *hdr, const void *p1, size_t len1,
                                  const void *p2, size_t len2)
{
    bool was_open = NULL != target->batch.buf;
    int ret = pkt_batch_append(module, &target->batch, target->rank, hdr, p1, len1, p2, len2);

    /* the window counts its open batches, so a progress round with none is cheap */
    module->batches_open += (int) (NULL != target->batch.buf) - (int) was_open;
    return ret;
}

int ompi_osc_newrma_pkt_reply(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_pkt_t *pkt,
                              ompi_osc_newrma_pkt_hdr_t *hdr, const void *payload,
                              size_t payload_len)
{
    if (NULL != pkt->replies) {
        return pkt_batch_append(module, pkt->replies, pkt->hdr.src, hdr, payload, payload_len,
                                NULL, 0);
    }
    return ompi_osc_newrma_pkt_send(module, pkt->hdr.src, hdr, payload, payload_len);
}

/* A synchronization packet (RMA_DONE, UNLOCK, COMPLETE, FENCE_DONE) behind the
 * aggregated ones, sent at once (the design's piggybacking): it counts the
 * PUT and ACC packets sent since the last one. */
static int pkt_batch_send_tail(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                               ompi_osc_newrma_pkt_hdr_t *hdr)
{
    int ret;

    if (target->batch.count > 0) {
        OMPI_OSC_NEWRMA_STAT_ADD(module, PIGGYBACKED, 1); /* rides with operations */
    }
    hdr->count = target->am_sent;
    ret = ompi_osc_newrma_pkt_batch_add(module, target, hdr, NULL, 0, NULL, 0);
    if (OMPI_SUCCESS == ret) {
        ret = ompi_osc_newrma_pkt_batch_flush(module, target);
    }
    if (OMPI_SUCCESS == ret) {
        target->am_sent = 0;
    }
    return ret;
}

/* As pkt_batch_send_tail, for a packet whose answer decrements *@p counter. */
static int pkt_batch_send_counted(ompi_osc_newrma_module_t *module,
                                  ompi_osc_newrma_target_t *target, ompi_osc_newrma_pkt_hdr_t *hdr,
                                  ompi_osc_newrma_atomic_t *counter)
{
    int ret;

    opal_atomic_add_fetch_32(counter, 1);
    ret = pkt_batch_send_tail(module, target, hdr);
    if (OMPI_SUCCESS != ret) {
        opal_atomic_add_fetch_32(counter, -1);
    }
    return ret;
}

int ompi_osc_newrma_pkt_put_contig(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_target_t *target, const void *data, size_t len,
                                   uint64_t taddr)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};
    int ret;

    hdr.type = OMPI_OSC_NEWRMA_PKT_PUT;
    hdr.flags = OMPI_OSC_NEWRMA_PKT_FLAG_CONTIG;
    hdr.addr = taddr;
    hdr.len = len;
    ret = ompi_osc_newrma_pkt_batch_add(module, target, &hdr, data, len, NULL, 0);
    if (OMPI_SUCCESS == ret) {
        target->am_sent++;
    }
    return ret;
}

int ompi_osc_newrma_pkt_send_op(ompi_osc_newrma_module_t *module,
                                ompi_osc_newrma_target_t *target, ompi_osc_newrma_op_t *op,
                                ompi_osc_newrma_pkt_hdr_t *hdr, const void *prefix,
                                size_t prefix_len, const void *data, size_t len)
{
    ucp_ep_h ep;
    int ret = ompi_osc_newrma_pkt_batch_flush(module, target); /* after those before it */

    if (OMPI_SUCCESS == ret) {
        ret = pkt_ep(module, target->rank, &ep);
    }
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    hdr->cid = module->cid;
    hdr->src = module->my_rank;
    ret = ompi_osc_newrma_ucx_am_send_op(op, ep, hdr, sizeof(*hdr), prefix, prefix_len, data, len);
    if (OMPI_SUCCESS == ret) {
        target->am_sent++;
        OMPI_OSC_NEWRMA_STAT_ADD(module, MESSAGES, 1);
    }
    return ret;
}

int ompi_osc_newrma_pkt_put_bulk(ompi_osc_newrma_module_t *module,
                                 ompi_osc_newrma_target_t *target, ompi_osc_newrma_op_t *op,
                                 const char *data, size_t len, uint64_t taddr)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};

    hdr.type = OMPI_OSC_NEWRMA_PKT_PUT;
    hdr.flags = OMPI_OSC_NEWRMA_PKT_FLAG_CONTIG;
    hdr.addr = taddr;
    hdr.len = len;
    return ompi_osc_newrma_pkt_send_op(module, target, op, &hdr, NULL, 0, data, len);
}

size_t ompi_osc_newrma_pkt_chunk_max(const ompi_osc_newrma_module_t *module)
{
    size_t overhead = 2 * sizeof(ompi_osc_newrma_pkt_hdr_t); /* BATCH's and the packet's */
    size_t cap = module->config.aggregate_bytes;

    return cap > overhead + PKT_BATCH_ALIGN ? (cap - overhead) & ~(PKT_BATCH_ALIGN - 1)
                                            : PKT_BATCH_ALIGN;
}

int ompi_osc_newrma_pkt_get_contig(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_target_t *target, ompi_osc_newrma_op_t *op,
                                   char *dest, uint64_t taddr)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};
    size_t chunk = ompi_osc_newrma_pkt_chunk_max(module);
    int ret = OMPI_SUCCESS;

    op->get_stream = dest;
    hdr.type = OMPI_OSC_NEWRMA_PKT_GET;
    hdr.tag2 = (uint64_t) (uintptr_t) op;
    for (size_t offset = 0; OMPI_SUCCESS == ret && offset < op->bytes; offset += chunk) {
        hdr.addr = taddr + offset;
        hdr.len = op->bytes - offset < chunk ? op->bytes - offset : chunk;
        hdr.tag = offset;
        opal_atomic_add_fetch_32(&op->outstanding, 1); /* its GET_REPLY */
        ret = ompi_osc_newrma_pkt_batch_add(module, target, &hdr, NULL, 0, NULL, 0);
        if (OMPI_SUCCESS == ret) {
            target->am_sent++;
        } else {
            opal_atomic_add_fetch_32(&op->outstanding, -1);
        }
    }
    return ret;
}

/* The packets of a BATCH, in the order they were packed. */
static void pkt_handle(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt);

static void pkt_handle_batch(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    /* the answers to the packets of one BATCH go back as one BATCH too */
    ompi_osc_newrma_batch_t replies = {0};
    ompi_osc_newrma_pkt_t sub;
    size_t at = 0;

    sub.replies = &replies;
    sub.ucx_data = NULL; /* the BATCH owns the payload */

    for (uint32_t i = 0; i < pkt->hdr.count; ++i) {
        if (pkt->payload_len - at < sizeof(sub.hdr)) {
            break;
        }
        memcpy(&sub.hdr, pkt->payload + at, sizeof(sub.hdr));
        at += sizeof(sub.hdr);
        if (sub.hdr.batch_len > pkt->payload_len - at ||
            OMPI_OSC_NEWRMA_PKT_BATCH == sub.hdr.type) {
            break;
        }
        sub.payload = pkt->payload + at;
        sub.payload_len = sub.hdr.batch_len;
        pkt_handle(module, &sub);
        at += pkt_batch_padded(sub.hdr.batch_len);
    }
    if (at < pkt->payload_len) {
        opal_output(0, "osc/newrma: malformed BATCH packet from rank %d", pkt->hdr.src);
    }
    if (OMPI_SUCCESS != pkt_batch_send(module, &replies, pkt->hdr.src)) {
        opal_output(0, "osc/newrma: cannot answer the packets of rank %d", pkt->hdr.src);
    }
}

/* The registration for [lo, hi): the attached region holding it, or a run of
 * adjacent attached regions it spans (registered as one the first time). */
static ompi_osc_newrma_region_t *pkt_region_for(ompi_osc_newrma_module_t *module, uint64_t lo,
                                                uint64_t hi)
{
    ompi_osc_newrma_region_t *found = ompi_osc_newrma_region_find(&module->attached, lo, hi);
    uint64_t run_lo, run_hi;

    if (NULL == found) {
        found = ompi_osc_newrma_region_find(&module->attached_runs, lo, hi);
    }
    if (NULL != found || !ompi_osc_newrma_region_run(&module->attached, lo, hi, &run_lo, &run_hi)) {
        return found;
    }
    found = OBJ_NEW(ompi_osc_newrma_region_t);
    if (NULL == found) {
        return NULL;
    }
    found->base = run_lo;
    found->len = run_hi - run_lo;
    if (OMPI_SUCCESS != ompi_osc_newrma_ucx_mem_map((void *) (uintptr_t) run_lo, found->len,
                                                    &found->memh, &found->rkey_packed,
                                                    &found->rkey_packed_len)) {
        OBJ_RELEASE(found);
        return NULL;
    }
    opal_list_append(&module->attached_runs, &found->super);
    return found;
}

/* Target side: answer a REGION_QUERY (its tag echoed) with @p status, the
 * memory [@p addr, +@p len), a displacement unit (0 for a dynamic
 * window's region) and the rkey that reaches it (NULL: none). */
static int pkt_region_reply(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_pkt_t *pkt,
                            int status, uint64_t addr, uint64_t len, int disp_unit,
                            const void *rkey, size_t rkey_len)
{
    ompi_osc_newrma_pkt_hdr_t reply = pkt->hdr;

    reply.type = OMPI_OSC_NEWRMA_PKT_REGION_REPLY;
    reply.src = module->my_rank;
    reply.status = status;
    reply.addr = addr;
    reply.len = len;
    reply.count = (uint32_t) disp_unit;
    return ompi_osc_newrma_pkt_send(module, pkt->hdr.src, &reply, rkey, rkey_len);
}

/* Target side: for a dynamic window, the attached memory holding the
 * queried range; for any other, what an origin needs of my window on its
 * first access to it (nothing per peer travels at creation). */
static void pkt_handle_region_query(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    ompi_osc_newrma_region_t *found;
    int ret;

    if (MPI_WIN_FLAVOR_DYNAMIC != module->flavor) {
        ret = pkt_region_reply(module, pkt, OMPI_SUCCESS, (uint64_t) (uintptr_t) module->base,
                               module->size, module->disp_unit, module->rkey_packed,
                               module->rkey_packed_len);
    } else {
        ompi_osc_newrma_mutex_lock(&module->attached_lock, OMPI_OSC_NEWRMA_MUTEX_ATTACHED);
        found = pkt_region_for(module, pkt->hdr.addr, pkt->hdr.addr + pkt->hdr.len);
        /* the origin may cache it from now on: a detach must tell it */
        if (NULL != found &&
            OMPI_SUCCESS != ompi_osc_newrma_region_note_origin(found, pkt->hdr.src)) {
            found = NULL;
        }
        ret = NULL == found ? pkt_region_reply(module, pkt, OMPI_ERR_RMA_RANGE, 0, 0, 0, NULL, 0)
                            : pkt_region_reply(module, pkt, OMPI_SUCCESS, found->base, found->len,
                                               0, found->rkey_packed, found->rkey_packed_len);
        ompi_osc_newrma_mutex_unlock(&module->attached_lock, OMPI_OSC_NEWRMA_MUTEX_ATTACHED);
    }
    if (OMPI_SUCCESS != ret) {
        opal_output(0, "osc/newrma: cannot answer a region query from rank %d", pkt->hdr.src);
    }
}

/* Origin side: hand the answer to the waiting ompi_osc_newrma_pkt_region_query(). */
static void pkt_handle_region_reply(ompi_osc_newrma_pkt_t *pkt)
{
    ompi_osc_newrma_region_query_t *query = (void *) (uintptr_t) pkt->hdr.tag;

    query->status = pkt->hdr.status;
    query->base = pkt->hdr.addr;
    query->len = pkt->hdr.len;
    query->disp_unit = (int) pkt->hdr.count;
    query->rkey_packed = NULL;
    if (OMPI_SUCCESS == query->status && pkt->payload_len > 0) {
        query->rkey_packed = malloc(pkt->payload_len);
        if (NULL == query->rkey_packed) {
            query->status = OMPI_ERR_OUT_OF_RESOURCE;
        } else {
            memcpy(query->rkey_packed, pkt->payload, pkt->payload_len);
        }
    }
    opal_atomic_wmb();
    query->done = true;
}

/* Origin side: the target detached memory; no access may use a cached
 * registration of it any more.  The count tells a query in flight that its
 * answer may be stale (ompi_osc_newrma_pkt_region_query). */
static void pkt_handle_region_forget(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    ompi_osc_newrma_peer_t *peer = &module->peers[pkt->hdr.src];
    ompi_osc_newrma_pkt_hdr_t ack = pkt->hdr;

    ompi_osc_newrma_mutex_lock(&module->attached_lock, OMPI_OSC_NEWRMA_MUTEX_ATTACHED);
    (void) ompi_osc_newrma_region_cache_drop(&peer->regions, pkt->hdr.addr,
                                             pkt->hdr.addr + pkt->hdr.len);
    peer->regions_forgotten++;
    ompi_osc_newrma_mutex_unlock(&module->attached_lock, OMPI_OSC_NEWRMA_MUTEX_ATTACHED);
    ack.type = OMPI_OSC_NEWRMA_PKT_REGION_FORGET_ACK;
    if (OMPI_SUCCESS != ompi_osc_newrma_pkt_send(module, pkt->hdr.src, &ack, NULL, 0)) {
        opal_output(0, "osc/newrma: cannot acknowledge a detach of rank %d", pkt->hdr.src);
    }
}

/* ---- PUT packets and RMA_DONE at the target ---- */

/* The per-origin count of applied packets carries one more bit: one of
 * them failed since the last RMA_DONE or UNLOCK was answered. */
#define PKT_APPLIED_FAILED ((uint64_t) 1 << 62)

static uint64_t pkt_applied(ompi_osc_newrma_module_t *module, int32_t src)
{
    void *value;

    if (!module->am_received_ready ||
        OPAL_SUCCESS !=
        opal_hash_table_get_value_uint32(&module->am_received, (uint32_t) src, &value)) {
        return 0;
    }
    return (uint64_t) (uintptr_t) value;
}

static void pkt_set_applied(ompi_osc_newrma_module_t *module, int32_t src, uint64_t n)
{
    /* made with the first packet: most windows never receive one */
    if (!module->am_received_ready) {
        if (OPAL_SUCCESS != opal_hash_table_init(&module->am_received, 4)) {
            ompi_osc_newrma_module_error(module, OMPI_ERR_OUT_OF_RESOURCE);
            return;
        }
        module->am_received_ready = true;
    }
    (void) opal_hash_table_set_value_uint32(&module->am_received, (uint32_t) src,
                                            (void *) (uintptr_t) n);
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

struct ompi_datatype_t *ompi_osc_newrma_pkt_datatype(ompi_osc_newrma_module_t *module,
                                                     const ompi_osc_newrma_pkt_t *pkt)
{
    void *desc = (void *) pkt->payload;

    return ompi_datatype_create_from_packed_description(
        &desc, ompi_comm_peer_lookup(module->comm, pkt->hdr.src));
}

static int pkt_unpack_put(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    ompi_datatype_t *dt;
    int ret;

    if (pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_CONTIG) {
        if (pkt->payload_len != pkt->hdr.len) {
            return OMPI_ERR_BAD_PARAM;
        }
        memcpy((void *) (uintptr_t) pkt->hdr.addr, pkt->payload, pkt->payload_len);
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

void ompi_osc_newrma_pkt_count_applied(ompi_osc_newrma_module_t *module,
                                       const ompi_osc_newrma_pkt_t *pkt, int status)
{
    int32_t src = pkt->hdr.src;

    ompi_osc_newrma_mutex_lock(&module->am_lock, OMPI_OSC_NEWRMA_MUTEX_AM);
    pkt_set_applied(module, src,
                    (pkt_applied(module, src) + 1) |
                        (OMPI_SUCCESS != status ? PKT_APPLIED_FAILED : 0));
    pkt_settle_rma_dones(module, pkt);
    ompi_osc_newrma_mutex_unlock(&module->am_lock, OMPI_OSC_NEWRMA_MUTEX_AM);
}

bool ompi_osc_newrma_pkt_test_fail(void)
{
    static ompi_osc_newrma_atomic_t applied = 0;

    return component.test_fail_packet > 0 &&
           opal_atomic_add_fetch_32(&applied, 1) == component.test_fail_packet;
}

static void pkt_handle_put(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    int ret = ompi_osc_newrma_pkt_test_fail() ? OMPI_ERROR : pkt_unpack_put(module, pkt);

    if (OMPI_SUCCESS != ret) {
        OSC_NEWRMA_VERBOSE(1, "cannot apply a PUT packet from rank %d: %d", pkt->hdr.src, ret);
    }
    /* counted even when it failed, so the origin is not left waiting; its
     * RMA_DONE or UNLOCK reports the failure */
    ompi_osc_newrma_pkt_count_applied(module, pkt, ret);
}

void ompi_osc_newrma_pkt_answer(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_pkt_t *pkt,
                                uint8_t type, int status, const void *data)
{
    ompi_osc_newrma_pkt_hdr_t reply = {0};

    reply.type = type;
    reply.status = status;
    reply.tag = pkt->hdr.tag;
    reply.tag2 = pkt->hdr.tag2;
    reply.len = pkt->hdr.len;
    if (OMPI_SUCCESS != ompi_osc_newrma_pkt_reply(module, pkt, &reply, data,
                                                  NULL != data ? pkt->hdr.len : 0)) {
        opal_output(0, "osc/newrma: cannot answer %s of rank %d",
                    OMPI_OSC_NEWRMA_PKT_GET_REPLY == type ? "a GET" : "an accumulate",
                    pkt->hdr.src);
    }
}

static void pkt_handle_get(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    int ret = ompi_osc_newrma_pkt_test_fail() ? OMPI_ERROR : OMPI_SUCCESS;
    /* the origin checked the range against the window when it queued the op */
    const void *data = OMPI_SUCCESS == ret ? (const void *) (uintptr_t) pkt->hdr.addr : NULL;

    ompi_osc_newrma_pkt_answer(module, pkt, OMPI_OSC_NEWRMA_PKT_GET_REPLY, ret, data);
    ompi_osc_newrma_pkt_count_applied(module, pkt, ret);
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
        memcpy(stream + pkt->hdr.tag, pkt->payload, pkt->payload_len);
    } else {
        op->status = OMPI_ERROR; /* the target could not read or apply it */
    }
    opal_atomic_wmb();
    opal_atomic_add_fetch_32(&op->outstanding, -1);
}

static void pkt_handle_get_reply(ompi_osc_newrma_pkt_t *pkt)
{
    ompi_osc_newrma_op_t *op = (void *) (uintptr_t) pkt->hdr.tag2;

    ompi_osc_newrma_pkt_deliver_reply(op, op->get_stream, pkt);
}

static void pkt_handle_lock_granted(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    ompi_osc_newrma_target_t *target = (void *) (uintptr_t) pkt->hdr.tag;

    opal_atomic_mb();
    if (NULL == target) {
        opal_atomic_add_fetch_32(&module->lock_all_pending, -1);
        return;
    }
    target->lock_reply = (pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_DISCARDED)
                             ? OMPI_OSC_NEWRMA_LOCK_REPLY_RESEND
                             : OMPI_OSC_NEWRMA_LOCK_REPLY_GRANTED;
}

static void pkt_handle_single_ack(ompi_osc_newrma_pkt_t *pkt)
{
    ompi_osc_newrma_target_t *target = (void *) (uintptr_t) pkt->hdr.tag;
    ompi_osc_newrma_op_t *op = (void *) (uintptr_t) pkt->hdr.tag2;

    if ((pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_GET) && pkt->payload_len == op->bytes) {
        memcpy(OMPI_OSC_NEWRMA_OP_GET == op->kind ? op->origin_addr : op->result_stream,
               pkt->payload, pkt->payload_len);
    }
    opal_atomic_wmb();
    opal_atomic_add_fetch_32(&op->outstanding, -1);
    opal_atomic_add_fetch_32(&target->ack_counter, -1);
}

/* ---- windows by communicator id: what a packet's cid names ---- */

int ompi_osc_newrma_pkt_window_add(ompi_osc_newrma_module_t *module)
{
    int ret;

    ompi_osc_newrma_mutex_lock(&component.modules_lock, OMPI_OSC_NEWRMA_MUTEX_LOOKUP);
    ret = opal_hash_table_set_value_uint32(&component.modules, module->cid, module);
    ompi_osc_newrma_mutex_unlock(&component.modules_lock, OMPI_OSC_NEWRMA_MUTEX_LOOKUP);
    return ret;
}

bool ompi_osc_newrma_pkt_window_remove(ompi_osc_newrma_module_t *module)
{
    void *found;
    bool mine;

    ompi_osc_newrma_mutex_lock(&component.modules_lock, OMPI_OSC_NEWRMA_MUTEX_LOOKUP);
    mine = OPAL_SUCCESS == opal_hash_table_get_value_uint32(&component.modules, module->cid,
                                                             &found) &&
           found == module;
    if (mine) {
        opal_hash_table_remove_value_uint32(&component.modules, module->cid);
    }
    ompi_osc_newrma_mutex_unlock(&component.modules_lock, OMPI_OSC_NEWRMA_MUTEX_LOOKUP);
    return mine;
}

static ompi_osc_newrma_module_t *pkt_window(uint32_t cid)
{
    void *module = NULL;

    ompi_osc_newrma_mutex_lock(&component.modules_lock, OMPI_OSC_NEWRMA_MUTEX_LOOKUP);
    if (OPAL_SUCCESS != opal_hash_table_get_value_uint32(&component.modules, cid, &module)) {
        module = NULL;
    }
    ompi_osc_newrma_mutex_unlock(&component.modules_lock, OMPI_OSC_NEWRMA_MUTEX_LOOKUP);
    return module;
}

/* Hand @p pkt to its handler.  @return false when it was held instead: its
 * window is registered but still inside creation (a peer that left the
 * creation's exchange early may already lock and access it). */
static bool pkt_dispatch(ompi_osc_newrma_pkt_t *pkt)
{
    ompi_osc_newrma_module_t *module = NULL;

    if (OMPI_OSC_NEWRMA_PKT_REGION_REPLY != pkt->hdr.type) {
        module = pkt_window(pkt->hdr.cid);
        if (NULL == module) {
            OSC_NEWRMA_VERBOSE(1, "packet %u for unknown window cid %u", pkt->hdr.type,
                               pkt->hdr.cid);
            return true;
        }
        if (!module->built) {
            opal_list_append(&component.held, &pkt->super);
            return false;
        }
    }
    pkt_handle(module, pkt);
    return true;
}

static void pkt_handle(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    switch ((ompi_osc_newrma_pkt_type_t) pkt->hdr.type) {
        case OMPI_OSC_NEWRMA_PKT_PUT:
            pkt_handle_put(module, pkt);
            return;
        case OMPI_OSC_NEWRMA_PKT_RMA_DONE:
        case OMPI_OSC_NEWRMA_PKT_UNLOCK:
        case OMPI_OSC_NEWRMA_PKT_COMPLETE:
        case OMPI_OSC_NEWRMA_PKT_FENCE_DONE:
            pkt_handle_rma_done(module, pkt);
            return;
        case OMPI_OSC_NEWRMA_PKT_RMA_DONE_ACK:
            pkt_handle_rma_done_ack(module, pkt);
            return;
        case OMPI_OSC_NEWRMA_PKT_LOCK_GRANTED:
            pkt_handle_lock_granted(module, pkt);
            return;
        case OMPI_OSC_NEWRMA_PKT_SINGLE_ACK:
            pkt_handle_single_ack(pkt);
            return;
        case OMPI_OSC_NEWRMA_PKT_REGION_QUERY:
            pkt_handle_region_query(module, pkt);
            return;
        case OMPI_OSC_NEWRMA_PKT_REGION_REPLY:
            pkt_handle_region_reply(pkt);
            return;
        case OMPI_OSC_NEWRMA_PKT_REGION_FORGET:
            pkt_handle_region_forget(module, pkt);
            return;
        case OMPI_OSC_NEWRMA_PKT_REGION_FORGET_ACK:
            opal_atomic_add_fetch_32(&module->forget_pending, -1);
            return;
        case OMPI_OSC_NEWRMA_PKT_BATCH:
            pkt_handle_batch(module, pkt);
            return;
        case OMPI_OSC_NEWRMA_PKT_GET:
            pkt_handle_get(module, pkt);
            return;
        case OMPI_OSC_NEWRMA_PKT_GET_REPLY:
            pkt_handle_get_reply(pkt);
            return;
        default:
            /* LOCK, SINGLE, WAKE, ACC, ACC_REPLY: the target's handlers */
            if (pkt->hdr.type < PKT_TYPES && NULL != pkt_handlers[pkt->hdr.type]) {
                pkt_handlers[pkt->hdr.type](module, pkt);
                return;
            }
            OSC_NEWRMA_VERBOSE(1, "dropping packet of unknown type %u", pkt->hdr.type);
            return;
    }
}

static void pkt_free(ompi_osc_newrma_pkt_t *pkt)
{
    if (NULL != pkt->ucx_data) {
        ompi_osc_newrma_ucx_am_data_release(pkt->ucx_data);
    }
    OBJ_DESTRUCT(&pkt->super);
    if (pkt->pooled) {
        opal_free_list_return_st(&pkt_free_list,
                              (opal_free_list_item_t *) ((char *) pkt - offsetof(pkt_elem_t, pkt)));
    } else {
        free(pkt);
    }
}

static ompi_osc_newrma_pkt_t *pkt_dequeue(void)
{
    ompi_osc_newrma_pkt_t *pkt;

    if (0 == opal_list_get_size(&component.inbox)) {
        return NULL;
    }
    ompi_osc_newrma_mutex_lock(&component.inbox_lock, OMPI_OSC_NEWRMA_MUTEX_INBOX);
    pkt = (ompi_osc_newrma_pkt_t *) opal_list_remove_first(&component.inbox);
    ompi_osc_newrma_mutex_unlock(&component.inbox_lock, OMPI_OSC_NEWRMA_MUTEX_INBOX);
    return pkt;
}

int ompi_osc_newrma_pkt_process_inbox(void)
{
    ompi_osc_newrma_pkt_t *pkt;
    int count = 0;

    while (NULL != (pkt = pkt_dequeue())) {
        if (pkt_dispatch(pkt)) {
            pkt_free(pkt);
        }
        count++;
    }
    return count;
}

void ompi_osc_newrma_pkt_release_held(uint32_t cid, bool deliver)
{
    ompi_osc_newrma_pkt_t *pkt, *next;
    opal_list_t mine;

    OBJ_CONSTRUCT(&mine, opal_list_t);
    OPAL_LIST_FOREACH_SAFE(pkt, next, &component.held, ompi_osc_newrma_pkt_t)
    {
        if (pkt->hdr.cid == cid) {
            opal_list_remove_item(&component.held, &pkt->super);
            opal_list_append(&mine, &pkt->super);
        }
    }
    if (deliver) {
        /* ahead of anything that arrived later, so per-origin order holds */
        ompi_osc_newrma_mutex_lock(&component.inbox_lock, OMPI_OSC_NEWRMA_MUTEX_INBOX);
        opal_list_join(&component.inbox, opal_list_get_first(&component.inbox), &mine);
        ompi_osc_newrma_mutex_unlock(&component.inbox_lock, OMPI_OSC_NEWRMA_MUTEX_INBOX);
    }
    while (NULL != (pkt = (ompi_osc_newrma_pkt_t *) opal_list_remove_first(&mine))) {
        pkt_free(pkt);
    }
    OBJ_DESTRUCT(&mine);
}

void ompi_osc_newrma_pkt_drain(void)
{
    ompi_osc_newrma_pkt_t *pkt;

    while (NULL != (pkt = pkt_dequeue()) ||
           NULL != (pkt = (ompi_osc_newrma_pkt_t *) opal_list_remove_first(&component.held))) {
        pkt_free(pkt);
    }
}

void ompi_osc_newrma_pkt_fini(void)
{
    if (!pkt_free_list_ready) {
        return;
    }
    ompi_osc_newrma_pkt_drain(); /* what arrived while the transport closed */
    OBJ_DESTRUCT(&pkt_done_free_list);
    OBJ_DESTRUCT(&pkt_free_list);
    pkt_free_list_ready = false;
}

static bool region_query_done(ompi_osc_newrma_module_t *module, void *arg)
{
    (void) module;
    return ((ompi_osc_newrma_region_query_t *) arg)->done;
}

int ompi_osc_newrma_pkt_region_query(ompi_osc_newrma_module_t *module, int target, uint64_t addr,
                                     uint64_t len, ompi_osc_newrma_region_query_t *query)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};
    int ret;

    query->done = false;
    hdr.type = OMPI_OSC_NEWRMA_PKT_REGION_QUERY;
    hdr.addr = addr;
    hdr.len = len;
    hdr.tag = (uint64_t) (uintptr_t) query;
    ret = ompi_osc_newrma_pkt_send(module, target, &hdr, NULL, 0);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    ret = ompi_osc_newrma_progress_wait(module, region_query_done, query);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    opal_atomic_rmb();
    return query->status;
}

static bool region_forget_done(ompi_osc_newrma_module_t *module, void *arg)
{
    (void) arg;
    return 0 == module->forget_pending;
}

int ompi_osc_newrma_pkt_region_forget(ompi_osc_newrma_module_t *module, const int *ranks,
                                      int count, uint64_t addr, uint64_t len)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};
    int ret = OMPI_SUCCESS;

    hdr.type = OMPI_OSC_NEWRMA_PKT_REGION_FORGET;
    hdr.addr = addr;
    hdr.len = len;
    for (int i = 0; OMPI_SUCCESS == ret && i < count; ++i) {
        opal_atomic_add_fetch_32(&module->forget_pending, 1);
        ret = ompi_osc_newrma_pkt_send(module, ranks[i], &hdr, NULL, 0);
        if (OMPI_SUCCESS != ret) {
            opal_atomic_add_fetch_32(&module->forget_pending, -1);
        }
    }
    /* the ones sent are answered even when a later send failed */
    int wait = ompi_osc_newrma_progress_wait(module, region_forget_done, NULL);
    return OMPI_SUCCESS != ret ? ret : wait;
}

/* ---- PUT packets and RMA_DONE at the origin ---- */

int ompi_osc_newrma_pkt_put(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                            const char *stream, size_t bytes,
                            struct ompi_datatype_t *tdt, int tcount, uint64_t taddr)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};
    size_t desc_len = ompi_datatype_pack_description_length(tdt);
    const void *desc;
    int ret = ompi_datatype_get_pack_description(tdt, &desc);

    OSC_NEWRMA_VERBOSE(30, "PUT of %zu bytes to rank %d as packets (fine-grained target layout)",
                       bytes, target->rank);
    hdr.type = OMPI_OSC_NEWRMA_PKT_PUT;
    hdr.cid = module->cid;
    hdr.src = module->my_rank;
    hdr.addr = taddr;
    hdr.count = (uint32_t) tcount;
    hdr.desc_len = (uint32_t) desc_len;
    /* pipelined: the target unpacks each chunk at its stream offset */
    for (size_t offset = 0; OMPI_SUCCESS == ret && offset < bytes;
         offset += OMPI_OSC_NEWRMA_PKT_PUT_CHUNK) {
        size_t len = bytes - offset;
        if (len > OMPI_OSC_NEWRMA_PKT_PUT_CHUNK) {
            len = OMPI_OSC_NEWRMA_PKT_PUT_CHUNK;
        }
        hdr.tag = offset;
        hdr.len = len;
        ret = ompi_osc_newrma_pkt_batch_add(module, target, &hdr, desc, desc_len, stream + offset,
                                            len);
        if (OMPI_SUCCESS == ret) {
            target->am_sent++;
        }
    }
    return ret;
}

int ompi_osc_newrma_pkt_rma_done(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                                 ompi_osc_newrma_atomic_t *counter)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};

    hdr.type = OMPI_OSC_NEWRMA_PKT_RMA_DONE;
    /* passive target counts the acknowledgement on the target element */
    hdr.tag = counter == &target->ack_counter ? (uint64_t) (uintptr_t) target : 0;
    return pkt_batch_send_counted(module, target, &hdr, counter);
}

int ompi_osc_newrma_pkt_complete(ompi_osc_newrma_module_t *module, int rank,
                                 ompi_osc_newrma_target_t *target)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};

    hdr.type = OMPI_OSC_NEWRMA_PKT_COMPLETE;
    return NULL == target ? ompi_osc_newrma_pkt_send(module, rank, &hdr, NULL, 0)
                          : pkt_batch_send_tail(module, target, &hdr);
}

int ompi_osc_newrma_pkt_fence_done(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_target_t *target, int parity)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};

    hdr.type = OMPI_OSC_NEWRMA_PKT_FENCE_DONE;
    hdr.tag = (uint64_t) parity;
    return pkt_batch_send_tail(module, target, &hdr);
}

/* ---- passive target requests at the origin ---- */

int ompi_osc_newrma_pkt_lock(ompi_osc_newrma_module_t *module, int rank, int lock_type,
                             ompi_osc_newrma_target_t *target)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};

    hdr.type = OMPI_OSC_NEWRMA_PKT_LOCK;
    hdr.flags = MPI_LOCK_EXCLUSIVE == lock_type ? OMPI_OSC_NEWRMA_PKT_FLAG_EXCLUSIVE : 0;
    hdr.tag = (uint64_t) (uintptr_t) target;
    if (NULL != target) {
        target->lock_reply = OMPI_OSC_NEWRMA_LOCK_REPLY_NONE;
    }
    return ompi_osc_newrma_pkt_send(module, rank, &hdr, NULL, 0);
}

int ompi_osc_newrma_pkt_unlock(ompi_osc_newrma_module_t *module, int rank, int lock_type,
                               ompi_osc_newrma_target_t *target)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};
    ucp_ep_h ep;
    int ret;

    hdr.type = OMPI_OSC_NEWRMA_PKT_UNLOCK;
    hdr.flags = MPI_LOCK_EXCLUSIVE == lock_type ? OMPI_OSC_NEWRMA_PKT_FLAG_EXCLUSIVE : 0;
    hdr.tag = (uint64_t) (uintptr_t) target;
    if (NULL != target) {
        return pkt_batch_send_counted(module, target, &hdr, &target->ack_counter);
    }
    ret = pkt_ep(module, rank, &ep); /* the window's lock_all: no packets to count */
    return OMPI_SUCCESS != ret ? ret
                               : ompi_osc_newrma_pkt_send_counted(module, ep, rank, &hdr, NULL, 0,
                                                  &module->ack_counter);
}

