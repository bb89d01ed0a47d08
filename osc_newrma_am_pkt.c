/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: active messages (see osc_newrma_am_pkt.h): the inbox,
 * sending, aggregation per target, and dispatch to the handlers the packet
 * types' owners register.
 */
#include "ompi_config.h"

#include <assert.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "ompi/proc/proc.h"
#include "opal/class/opal_free_list.h"
#include "opal/runtime/opal_progress.h"

#include "osc_newrma.h"
#include "osc_newrma_base_copy.h"
#include "osc_newrma_am_pkt.h"
#include "osc_newrma_base_element.h"
#include "osc_newrma_base_mutex.h"
#include "osc_newrma_base_optable.h"
#include "osc_newrma_base_wait.h"
#include "osc_newrma_pool.h"
#include "osc_newrma_transport_ucx.h"

#define component mca_osc_newrma_component

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

static bool pkt_free_list_ready = false;

/* Payloads of one origin and window still landing.  Made and read by the
 * agent only (packet handlers and dispatch), so no lock; few at a time. */
typedef struct {
    opal_list_item_t super;
    uint32_t cid;
    int32_t src;
    uint32_t count;
    /** of them, landings that no later packet may pass (not beside) */
    uint32_t ordered;
    /** its origin's packets that arrived since, in order */
    opal_list_t held;
} pkt_landing_t;

static OBJ_CLASS_INSTANCE(pkt_landing_t, opal_list_item_t, NULL, NULL);

static opal_list_t pkt_landings;

int ompi_osc_newrma_pkt_init(void)
{
    int ret = ompi_osc_newrma_free_list_init(&pkt_free_list, sizeof(pkt_elem_t),
                                             OBJ_CLASS(opal_free_list_item_t));

    OBJ_CONSTRUCT(&pkt_landings, opal_list_t);
    pkt_free_list_ready = OMPI_SUCCESS == ret;
    return ret;
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
        pkt->beside = false;
        return pkt;
    }
    pkt = malloc(sizeof(*pkt) + copied);
    if (NULL != pkt) {
        pkt->payload = (char *) (pkt + 1);
        pkt->pooled = false;
        pkt->beside = false;
    }
    return pkt;
}

/* Hand @p pkt to the agent (UCX callbacks; INBOX is the last lock taken). */
static void pkt_inbox_append(ompi_osc_newrma_pkt_t *pkt)
{
    ompi_osc_newrma_mutex_lock(&component.inbox_lock, OMPI_OSC_NEWRMA_MUTEX_INBOX);
    opal_list_append(&component.inbox, &pkt->super);
    ompi_osc_newrma_mutex_unlock(&component.inbox_lock, OMPI_OSC_NEWRMA_MUTEX_INBOX);
}

static bool pkt_may_borrow(const ompi_osc_newrma_pkt_hdr_t *hdr, const char *payload,
                           size_t payload_len);
static void pkt_deliver(ompi_osc_newrma_pkt_t *pkt);

bool ompi_osc_newrma_pkt_enqueue(const void *hdr, size_t hdr_len, void *payload, size_t payload_len,
                                 bool may_keep, bool rndv)
{
    /* large payloads stay in UCX's receive buffer: no copy of bulk data */
    bool keep = rndv || (may_keep && payload_len >= OMPI_OSC_NEWRMA_PKT_KEEP_MIN);
    /* a rendezvous's prefix came in the header: kept in the packet's room */
    size_t prefix_len = rndv && hdr_len > sizeof(ompi_osc_newrma_pkt_hdr_t)
                            ? hdr_len - sizeof(ompi_osc_newrma_pkt_hdr_t)
                            : 0;
    ompi_osc_newrma_pkt_hdr_t h;
    ompi_osc_newrma_pkt_t *pkt;
    bool borrow;

    if (hdr_len != sizeof(h) + prefix_len) {
        OSC_NEWRMA_VERBOSE(1, "dropping packet with a %zu-byte header", hdr_len);
        return false;
    }
    memcpy(&h, hdr, sizeof(h));
    borrow = !keep && pkt_may_borrow(&h, payload, payload_len);
    pkt = pkt_alloc(rndv ? prefix_len : payload_len, (keep && !rndv) || borrow);
    if (NULL == pkt) {
        opal_output(0, "osc/newrma: out of memory receiving a packet");
        return false;
    }
    OBJ_CONSTRUCT(&pkt->super, opal_list_item_t);
    pkt->hdr = h;
    pkt->payload_len = payload_len;
    pkt->prefix = NULL;
    pkt->prefix_len = prefix_len;
    if (prefix_len > 0) {
        pkt->prefix = pkt->payload;
        memcpy(pkt->prefix, (const char *) hdr + sizeof(pkt->hdr), prefix_len);
    }
    if (keep || borrow) {
        pkt->payload = payload;
    }
    pkt->ucx_data = keep ? payload : NULL;
    pkt->replies = NULL;
    pkt->tally = NULL;
    pkt->rndv = rndv;
    pkt->am_buffer = false;
    pkt->borrowed = borrow;
    if (rndv) {
        pkt->payload = NULL; /* not here yet */
    }
    if (borrow) {
        pkt_deliver(pkt); /* before UCX takes its buffer back */
        return false;
    }
    if (!keep && payload_len > 0) {
        ompi_osc_newrma_copy(pkt->payload, payload, payload_len);
    }
    pkt_inbox_append(pkt);
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
        [OMPI_OSC_NEWRMA_PKT_PUTS] = "PUTS",
        [OMPI_OSC_NEWRMA_PKT_POST] = "POST",
        [OMPI_OSC_NEWRMA_PKT_ACCS] = "ACCS",
        [OMPI_OSC_NEWRMA_PKT_GETS] = "GETS",
        [OMPI_OSC_NEWRMA_PKT_GETS_REPLY] = "GETS_REPLY",
    };

    if (type <= 0 || type > OMPI_OSC_NEWRMA_PKT_LAST) {
        return "UNKNOWN";
    }
    return names[type];
}

/* Every packet leaves through here (or ompi_osc_newrma_pkt_batch_flush):
 * header stamped with window and sender. */
static int pkt_send_ep2(ompi_osc_newrma_module_t *module, ucp_ep_h ep, int dest,
                        ompi_osc_newrma_pkt_hdr_t *hdr, const void *p1, size_t len1, const void *p2,
                        size_t len2)
{
    ompi_osc_newrma_pkt_stamp(module, hdr);
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

int ompi_osc_newrma_pkt_ep(ompi_osc_newrma_module_t *module, int dest, ucp_ep_h *ep_p)
{
    return ompi_osc_newrma_ucx_ep(ompi_comm_peer_lookup(module->comm, dest), ep_p, NULL);
}

int ompi_osc_newrma_pkt_send(ompi_osc_newrma_module_t *module, int dest,
                             ompi_osc_newrma_pkt_hdr_t *hdr, const void *payload,
                             size_t payload_len)
{
    ucp_ep_h ep;
    int ret = ompi_osc_newrma_pkt_ep(module, dest, &ep);

    return OMPI_SUCCESS != ret ? ret : pkt_send_ep(module, ep, dest, hdr, payload, payload_len);
}

/* ---- handlers registered from above ---- */

#define PKT_TYPES (OMPI_OSC_NEWRMA_PKT_LAST + 1)

static ompi_osc_newrma_pkt_handler_fn_t pkt_handlers[PKT_TYPES];

void ompi_osc_newrma_pkt_handler_register(ompi_osc_newrma_pkt_type_t type,
                                          ompi_osc_newrma_pkt_handler_fn_t handler)
{
    assert((int) type < PKT_TYPES);
    pkt_handlers[type] = handler;
}

static ompi_osc_newrma_pkt_batch_end_fn_t pkt_batch_end;

void ompi_osc_newrma_pkt_batch_end_register(ompi_osc_newrma_pkt_batch_end_fn_t fn)
{
    pkt_batch_end = fn;
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
    bool emulated, rndv;
    ucp_ep_h ep;
    int ret;

    if (NULL == hdr) {
        return OMPI_SUCCESS;
    }
    memset(hdr, 0, sizeof(*hdr));
    hdr->type = OMPI_OSC_NEWRMA_PKT_BATCH;
    ompi_osc_newrma_pkt_stamp(module, hdr);
    hdr->count = batch->count;
    batch->buf = NULL;
    batch->len = 0;
    batch->capacity = 0;
    batch->count = 0;
    batch->cap = 0;
    batch->recs_at = 0;
    ret = ompi_osc_newrma_ucx_ep(ompi_comm_peer_lookup(module->comm, dest), &ep, &emulated);
    if (OMPI_SUCCESS != ret) {
        ompi_osc_newrma_ucx_am_buffer_free(hdr);
        return ret;
    }
    rndv = ompi_osc_newrma_pkt_message_rndv(emulated, len);
    OSC_NEWRMA_VERBOSE(40, "rank %d window %u: packet BATCH to rank %d (%zu bytes of payload%s)",
                       module->my_rank, module->cid, dest, len, rndv ? ", by rendezvous" : "");
    OMPI_OSC_NEWRMA_STAT_ADD(module, MESSAGES, 1);
    return ompi_osc_newrma_ucx_am_send_buffer(ep, hdr, len, rndv);
}

/* how long an origin waits for the agent (ompi_osc_newrma_pkt_wait_while) */
#define PKT_WAIT_NS 10000000L
/* agent rounds between looks at the clock */
#define PKT_WAIT_ROUNDS 64

static long pkt_now_ns(void)
{
    struct timespec now;

    (void) clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1000000000L + now.tv_nsec;
}

void ompi_osc_newrma_pkt_wait_while(bool (*cond)(const void *arg), const void *arg)
{
    long deadline = 0;
    int events;

    for (unsigned int round = 0; cond(arg); ++round) {
        if (0 == round % PKT_WAIT_ROUNDS) {
            long now = pkt_now_ns();

            if (0 == deadline) {
                deadline = now + PKT_WAIT_NS;
            } else if (now > deadline) {
                return;
            }
        }
        events = ompi_osc_newrma_agent_round();
        /* busy with one thread only: this one holds the agent further up */
        if (events < 0 && !opal_using_threads() && !component.progress_thread_running) {
            return;
        }
        /* oversubscribed, the peer may need this core to make progress */
        if (events <= 0 && opal_progress_yield_when_idle) {
            sched_yield();
        }
    }
}

static bool pkt_buffer_awaited(const void *arg)
{
    return ompi_osc_newrma_ucx_am_buffer_awaited(sizeof(ompi_osc_newrma_pkt_hdr_t),
                                                 *(const size_t *) arg);
}

/* Flow control: when every pooled buffer of a full message is out and a
 * send holds one, the agent runs until that send completes (its receiver
 * has read it) rather than a buffer being malloc'd.  A malloc'd message
 * goes eagerly, and UCX gathers it at the target in a buffer it allocates
 * too: two fresh buffers of a few hundred KiB per message, whose page faults
 * and heap trims took most of a strided PUT's time. */
static void pkt_buffer_wait(size_t capacity)
{
    ompi_osc_newrma_pkt_wait_while(pkt_buffer_awaited, &capacity);
}

bool ompi_osc_newrma_pkt_message_rndv(bool emulated, size_t len)
{
    /* TCP's receive segment holds a whole batch (ucx_config_tcp_segment);
     * elsewhere a large message would arrive in fragments that UCX gathers
     * in a buffer it allocates per message (pkt_land_batch) */
    return !emulated && component.batch_rndv_bytes > 0 && len > component.batch_rndv_bytes;
}

/* Room for @p need bytes of packets in @p batch (at most @p cap): doubled
 * from PKT_BATCH_FIRST, so a batch of a few small packets costs what it
 * holds, not a message; a large packet takes the whole message at once
 * (no copies while growing).  @p wait: an origin's batch, whose sender may
 * wait for a pooled buffer (pkt_buffer_wait); not the agent's replies. */
static int pkt_batch_reserve(ompi_osc_newrma_batch_t *batch, size_t need, size_t cap, bool wait)
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
    if (wait) {
        pkt_buffer_wait(capacity);
    }
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

/* The most bytes of one aggregated message to window rank @p dest: the
 * window's aggregate_bytes, or over UCX's shared memory at most
 * aggregate_node_bytes.  There a message sent as soon as it holds 16 KiB
 * is copied out by the target while the origin packs the next (streams of
 * 2 and 32 KiB PUTs moved 5.0 and 8.6 GB/s instead of 3.4 and 5.2); one of
 * 256 KiB went by rendezvous, the target copying it only after the origin
 * had filled it.  Over TCP a message is a round of the
 * stream and large ones pay (ucx_config_tcp_segment). */
static size_t pkt_batch_cap(ompi_osc_newrma_module_t *module, int dest)
{
    struct ompi_proc_t *proc = ompi_comm_peer_lookup(module->comm, dest);
    size_t cap = module->config.aggregate_bytes;
    bool emulated = true;
    ucp_ep_h ep;

    if (0 == component.aggregate_node_bytes || cap <= component.aggregate_node_bytes ||
        !OPAL_PROC_ON_LOCAL_NODE(proc->super.proc_flags) ||
        OMPI_SUCCESS != ompi_osc_newrma_ucx_ep(proc, &ep, &emulated) || emulated) {
        return cap;
    }
    return component.aggregate_node_bytes;
}

/* Room for a packet of @p payload bytes for window rank @p dest at the
 * end of @p batch, sending the batch first when it does not fit: the
 * header written, the padding zeroed, *@p at_p where the payload goes; NULL
 * when the packet is larger than a whole batch (it goes alone). */
static int pkt_batch_entry(ompi_osc_newrma_module_t *module, ompi_osc_newrma_batch_t *batch,
                           bool wait, int dest, ompi_osc_newrma_pkt_hdr_t *hdr, size_t payload,
                           char **at_p)
{
    size_t padded = pkt_batch_padded(payload);
    size_t entry = sizeof(*hdr) + padded, cap;
    char *at;
    int ret;

    *at_p = NULL;
    if (0 == batch->cap) {
        batch->cap = pkt_batch_cap(module, dest);
    }
    cap = batch->cap;

    if (NULL != batch->buf && batch->len + entry > cap) {
        ret = pkt_batch_send(module, batch, dest);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
    }
    if (entry > cap) {
        return OMPI_SUCCESS;
    }
    if (batch->len + entry > batch->capacity) {
        ret = pkt_batch_reserve(batch, batch->len + entry, cap, wait);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
    }
    ompi_osc_newrma_pkt_stamp(module, hdr);
    hdr->batch_len = (uint32_t) payload;
    at = batch->buf + sizeof(*hdr) + batch->len;
    memcpy(at, hdr, sizeof(*hdr));
    at += sizeof(*hdr);
    if (padded > payload) {
        memset(at + payload, 0, padded - payload); /* no uninitialized bytes on the wire */
    }
    batch->len += entry;
    batch->count++;
    batch->recs_at = 0; /* records after it start a records packet of their own */
    OMPI_OSC_NEWRMA_STAT_ADD(module, PACKETS_AGGREGATED, 1);
    OSC_NEWRMA_VERBOSE(40, "rank %d window %u: %s for rank %d aggregated (%zu bytes of payload)",
                       module->my_rank, module->cid, ompi_osc_newrma_pkt_name(hdr->type), dest,
                       payload);
    *at_p = at;
    return OMPI_SUCCESS;
}

/* Add a packet for window rank @p dest to @p batch, sending the batch first
 * when the packet does not fit; one larger than a whole batch goes alone,
 * after the ones before it. */
static int pkt_batch_append(ompi_osc_newrma_module_t *module, ompi_osc_newrma_batch_t *batch,
                            bool wait, int dest, ompi_osc_newrma_pkt_hdr_t *hdr, const void *p1,
                            size_t len1, const void *p2, size_t len2)
{
    char *at;
    int ret = pkt_batch_entry(module, batch, wait, dest, hdr, len1 + len2, &at);
    ucp_ep_h ep;

    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    if (NULL == at) {
        ret = ompi_osc_newrma_pkt_ep(module, dest, &ep);
        return OMPI_SUCCESS != ret ? ret : pkt_send_ep2(module, ep, dest, hdr, p1, len1, p2, len2);
    }
    if (len1 > 0) {
        ompi_osc_newrma_copy(at, p1, len1);
    }
    if (len2 > 0) {
        ompi_osc_newrma_copy(at + len1, p2, len2);
    }
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
                                  ompi_osc_newrma_target_t *target, ompi_osc_newrma_pkt_hdr_t *hdr,
                                  const void *p1, size_t len1, const void *p2, size_t len2)
{
    bool was_open = NULL != target->batch.buf;
    int ret = pkt_batch_append(module, &target->batch, true, target->rank, hdr, p1, len1, p2, len2);

    /* the window counts its open batches, so a progress round with none is cheap */
    module->batches_open += (int) (NULL != target->batch.buf) - (int) was_open;
    return ret;
}

/* The records packet that ends @p batch (recs_at) takes records like
 * @p like's: its type, and for ACCS its op and element type. */
static bool pkt_recs_open(const ompi_osc_newrma_batch_t *batch,
                          const ompi_osc_newrma_pkt_hdr_t *like)
{
    const ompi_osc_newrma_pkt_hdr_t *open;

    if (NULL == batch->buf || 0 == batch->recs_at) {
        return false;
    }
    open = (const ompi_osc_newrma_pkt_hdr_t *) (batch->buf + batch->recs_at);
    return open->type == like->type && open->acc_op == like->acc_op && open->acc_dt == like->acc_dt;
}

/* Whether @p add more bytes fit the records packet that ends @p batch
 * (growing the batch's buffer up to its cap, which may move it). */
static bool pkt_recs_room(ompi_osc_newrma_batch_t *batch, size_t add)
{
    return batch->len + add <= batch->cap &&
           (batch->len + add <= batch->capacity ||
            OMPI_SUCCESS == pkt_batch_reserve(batch, batch->len + add, batch->cap, true));
}

/* The records packet that ends @p batch took @p add more bytes and one more
 * operation: its header, to which they were counted. */
static ompi_osc_newrma_pkt_hdr_t *pkt_recs_grown(ompi_osc_newrma_batch_t *batch, size_t add)
{
    ompi_osc_newrma_pkt_hdr_t *recs = (ompi_osc_newrma_pkt_hdr_t *) (batch->buf + batch->recs_at);

    recs->batch_len += (uint32_t) add;
    recs->count++;
    batch->len += add;
    return recs;
}

/* @p len bytes of @p data for @p taddr into the records packet that ends
 * @p batch, if there is room (it may grow the batch up to its cap): after
 * its last record when they continue it (that record's data unpadded),
 * else as a new record.  False when they do not fit.  An ACCS record
 * joined is reduced at once: the elements of both, each once, under the
 * accumulate lock. */
static bool pkt_recs_join(ompi_osc_newrma_batch_t *batch, const void *data, size_t len,
                          uint64_t taddr)
{
    ompi_osc_newrma_pkt_rec_t *last = (ompi_osc_newrma_pkt_rec_t *) (batch->buf + batch->recs_last);
    bool joins = component.puts_join && last->addr + last->len == taddr &&
                 0 == last->len % OMPI_OSC_NEWRMA_PKT_RECS_ALIGN;
    size_t padded = ompi_osc_newrma_pkt_recs_padded(len);
    size_t add = padded + (joins ? 0 : sizeof(*last));
    char *at;

    if (!pkt_recs_room(batch, add)) {
        return false;
    }
    at = batch->buf + sizeof(ompi_osc_newrma_pkt_hdr_t) + batch->len;
    if (joins) {
        /* again: growing the batch may have moved its buffer */
        last = (ompi_osc_newrma_pkt_rec_t *) (batch->buf + batch->recs_last);
        last->len += len;
    } else {
        last = (ompi_osc_newrma_pkt_rec_t *) at;
        last->addr = taddr;
        last->len = len;
        batch->recs_last = (size_t) (at - batch->buf);
        at += sizeof(*last);
    }
    if (8 == len) {
        memcpy(at, data, 8);
    } else {
        ompi_osc_newrma_copy(at, data, len);
        memset(at + len, 0, padded - len); /* no uninitialized bytes on the wire */
    }
    pkt_recs_grown(batch, add);
    return true;
}

/* A records packet of @p entry bytes (header included) was just added to
 * @p batch: it ends the batch (unless, larger than a batch, it went alone)
 * and more records may join it.  Its length counts the padding, as every
 * record after it does. */
static void pkt_recs_opened(ompi_osc_newrma_batch_t *batch, size_t entry)
{
    size_t hdr = sizeof(ompi_osc_newrma_pkt_hdr_t);

    if (NULL == batch->buf || entry > batch->cap) {
        return;
    }
    batch->recs_at = hdr + batch->len - entry;
    batch->recs_last = batch->recs_at + hdr;
    ((ompi_osc_newrma_pkt_hdr_t *) (batch->buf + batch->recs_at))->batch_len =
        (uint32_t) (entry - hdr);
}

/* A record for @p target into the records packet like @p hdr (PUTS or
 * ACCS) that ends its batch, or a new one. */
static int pkt_batch_recs(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                          ompi_osc_newrma_pkt_hdr_t *hdr, const void *data, size_t len,
                          uint64_t taddr)
{
    ompi_osc_newrma_batch_t *batch = &target->batch;
    ompi_osc_newrma_pkt_rec_t rec = {taddr, len};
    size_t entry = sizeof(*hdr) + sizeof(rec) + ompi_osc_newrma_pkt_recs_padded(len);
    int ret;

    if (pkt_recs_open(batch, hdr) && pkt_recs_join(batch, data, len, taddr)) {
        OMPI_OSC_NEWRMA_STAT_ADD(module, PACKETS_AGGREGATED, 1);
        return OMPI_SUCCESS;
    }
    hdr->count = 1;
    ret = ompi_osc_newrma_pkt_batch_add(module, target, hdr, &rec, sizeof(rec), data, len);
    if (OMPI_SUCCESS == ret) {
        pkt_recs_opened(batch, entry);
    }
    return ret;
}

/* The per-PUT header of a BATCH is 64 bytes: 8-byte PUTs took 72 bytes
 * each, and about 130 instructions to pack (64 PUTs + flush over UCX's
 * shared memory: 593 instructions per MPI_Put, 8,573 per flush; as
 * records, joined, 486 and 3,994). */
int ompi_osc_newrma_pkt_batch_puts(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_target_t *target, const void *data, size_t len,
                                   uint64_t taddr)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};

    hdr.type = OMPI_OSC_NEWRMA_PKT_PUTS;
    return pkt_batch_recs(module, target, &hdr, data, len, taddr);
}

int ompi_osc_newrma_pkt_batch_accs(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_target_t *target, uint16_t acc_op,
                                   uint16_t acc_dt, const void *data, size_t len, uint64_t taddr)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};

    hdr.type = OMPI_OSC_NEWRMA_PKT_ACCS;
    hdr.kind = OMPI_OSC_NEWRMA_OP_ACC;
    hdr.acc_op = acc_op;
    hdr.acc_dt = acc_dt;
    return pkt_batch_recs(module, target, &hdr, data, len, taddr);
}

/* The most payload a GETS packet's answer may have: what fits one message
 * with its own header and the BATCH's (the answers go back aggregated in
 * messages of the same size). */
static size_t pkt_gets_answer_max(const ompi_osc_newrma_batch_t *batch)
{
    size_t overhead = 2 * sizeof(ompi_osc_newrma_pkt_hdr_t);

    return batch->cap > overhead ? batch->cap - overhead : 0;
}

/* A GET record into the GETS packet that ends @p batch, if its answer
 * still fits one message (hdr.len: the answer's payload so far). */
static bool pkt_gets_join(ompi_osc_newrma_batch_t *batch, const ompi_osc_newrma_pkt_get_rec_t *rec)
{
    const ompi_osc_newrma_pkt_hdr_t *gets =
        (const ompi_osc_newrma_pkt_hdr_t *) (batch->buf + batch->recs_at);
    size_t answer = gets->len + ompi_osc_newrma_pkt_gets_answer(rec->len);

    if (answer > pkt_gets_answer_max(batch) || !pkt_recs_room(batch, sizeof(*rec))) {
        return false;
    }
    memcpy(batch->buf + sizeof(ompi_osc_newrma_pkt_hdr_t) + batch->len, rec, sizeof(*rec));
    pkt_recs_grown(batch, sizeof(*rec))->len = answer;
    return true;
}

int ompi_osc_newrma_pkt_batch_gets(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_target_t *target, void *dest, size_t len,
                                   uint64_t taddr)
{
    ompi_osc_newrma_batch_t *batch = &target->batch;
    ompi_osc_newrma_pkt_get_rec_t rec = {taddr, len, (uint64_t) (uintptr_t) dest};
    ompi_osc_newrma_pkt_hdr_t hdr = {0};
    int ret;

    hdr.type = OMPI_OSC_NEWRMA_PKT_GETS;
    hdr.tag = (uint64_t) (uintptr_t) target; /* echoed: whose owed_at_call */
    if (pkt_recs_open(batch, &hdr) && pkt_gets_join(batch, &rec)) {
        OMPI_OSC_NEWRMA_STAT_ADD(module, PACKETS_AGGREGATED, 1);
        return OMPI_SUCCESS;
    }
    hdr.count = 1;
    hdr.len = ompi_osc_newrma_pkt_gets_answer(len);
    ret = ompi_osc_newrma_pkt_batch_add(module, target, &hdr, &rec, sizeof(rec), NULL, 0);
    if (OMPI_SUCCESS == ret) {
        pkt_recs_opened(batch, sizeof(hdr) + sizeof(rec));
    }
    return ret;
}

int ompi_osc_newrma_pkt_reply(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_pkt_t *pkt,
                              ompi_osc_newrma_pkt_hdr_t *hdr, const void *payload,
                              size_t payload_len)
{
    if (NULL != pkt->replies) {
        return pkt_batch_append(module, pkt->replies, false, pkt->hdr.src, hdr, payload,
                                payload_len, NULL, 0);
    }
    return ompi_osc_newrma_pkt_send(module, pkt->hdr.src, hdr, payload, payload_len);
}

int ompi_osc_newrma_pkt_reply_fill(ompi_osc_newrma_module_t *module,
                                   const ompi_osc_newrma_pkt_t *pkt, ompi_osc_newrma_pkt_hdr_t *hdr,
                                   size_t payload_len, ompi_osc_newrma_pkt_fill_fn_t fill,
                                   void *ctx)
{
    char *at = NULL;
    int ret;

    if (NULL != pkt->replies) {
        ret = pkt_batch_entry(module, pkt->replies, false, pkt->hdr.src, hdr, payload_len, &at);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
        if (NULL != at) {
            fill(at, ctx);
            return OMPI_SUCCESS;
        }
    }
    /* alone: written in a buffer of the transport's pool first */
    at = ompi_osc_newrma_ucx_am_buffer(0, payload_len);
    if (NULL == at) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    fill(at, ctx);
    ret = ompi_osc_newrma_pkt_send(module, pkt->hdr.src, hdr, at, payload_len);
    ompi_osc_newrma_ucx_am_buffer_free(at);
    return ret;
}

/* A synchronization packet (RMA_DONE, UNLOCK, COMPLETE, FENCE_DONE) behind the
 * aggregated ones, sent at once (the design's piggybacking): it counts the
 * PUT and ACC packets sent since the last one. */
int ompi_osc_newrma_pkt_send_tail(ompi_osc_newrma_module_t *module,
                                  ompi_osc_newrma_target_t *target, ompi_osc_newrma_pkt_hdr_t *hdr)
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

/* As ompi_osc_newrma_pkt_send_tail, for a packet whose answer decrements *@p counter. */
int ompi_osc_newrma_pkt_send_tail_counted(ompi_osc_newrma_module_t *module,
                                          ompi_osc_newrma_target_t *target,
                                          ompi_osc_newrma_pkt_hdr_t *hdr,
                                          ompi_osc_newrma_atomic_t *counter)
{
    int ret;

    opal_atomic_add_fetch_32(counter, 1);
    ret = ompi_osc_newrma_pkt_send_tail(module, target, hdr);
    if (OMPI_SUCCESS != ret) {
        opal_atomic_add_fetch_32(counter, -1);
    }
    return ret;
}

size_t ompi_osc_newrma_pkt_chunk_max(const ompi_osc_newrma_module_t *module)
{
    size_t overhead = 2 * sizeof(ompi_osc_newrma_pkt_hdr_t); /* BATCH's and the packet's */
    size_t cap = module->config.aggregate_bytes;

    return cap > overhead + PKT_BATCH_ALIGN ? (cap - overhead) & ~(PKT_BATCH_ALIGN - 1)
                                            : PKT_BATCH_ALIGN;
}

/* The packets of a BATCH, in the order they were packed. */
static void pkt_handle(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt);

/* The header of the packet at @p *at of a BATCH's @p len bytes of
 * packets, @p *at moved to its payload; false at the end or where the
 * BATCH is malformed. */
static bool pkt_batch_next(const char *packets, size_t len, size_t *at,
                           ompi_osc_newrma_pkt_hdr_t *sub)
{
    if (len - *at < sizeof(*sub)) {
        return false;
    }
    memcpy(sub, packets + *at, sizeof(*sub));
    *at += sizeof(*sub);
    return sub->batch_len <= len - *at && OMPI_OSC_NEWRMA_PKT_BATCH != sub->type;
}

static void pkt_handle_batch(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    /* the answers to the packets of one BATCH go back as one BATCH too */
    ompi_osc_newrma_batch_t replies = {0};
    ompi_osc_newrma_pkt_tally_t tally = {0, false};
    ompi_osc_newrma_pkt_t sub;
    size_t at = 0;

    if ((pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_LANDED) && OMPI_SUCCESS != pkt->hdr.status) {
        opal_output(0, "osc/newrma: the packets of rank %d did not arrive: %d", pkt->hdr.src,
                    pkt->hdr.status);
        return;
    }
    sub.replies = &replies;
    sub.tally = &tally;
    sub.ucx_data = NULL; /* the BATCH owns the payload */
    sub.rndv = false;
    sub.am_buffer = false;
    sub.borrowed = false;
    sub.prefix = NULL;
    sub.prefix_len = 0;

    for (uint32_t i = 0;
         i < pkt->hdr.count && pkt_batch_next(pkt->payload, pkt->payload_len, &at, &sub.hdr); ++i) {
        sub.payload = pkt->payload + at;
        sub.payload_len = sub.hdr.batch_len;
        pkt_handle(module, &sub);
        at += pkt_batch_padded(sub.hdr.batch_len);
    }
    if (at < pkt->payload_len) {
        opal_output(0, "osc/newrma: malformed BATCH packet from rank %d", pkt->hdr.src);
    }
    if (tally.applied > 0 && NULL != pkt_batch_end) {
        sub.hdr.src = pkt->hdr.src; /* its acknowledgements join the answers */
        pkt_batch_end(module, &sub, &tally);
    }
    if (OMPI_SUCCESS != pkt_batch_send(module, &replies, pkt->hdr.src)) {
        opal_output(0, "osc/newrma: cannot answer the packets of rank %d", pkt->hdr.src);
    }
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
    mine =
        OPAL_SUCCESS == opal_hash_table_get_value_uint32(&component.modules, module->cid, &found) &&
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

/* ---- rendezvous payloads landing: the packets behind them wait ---- */

static void pkt_free(ompi_osc_newrma_pkt_t *pkt);
static void pkt_landing_done(const ompi_osc_newrma_pkt_t *notice);

/* Packets that waited go back to the head of the inbox, ahead of anything
 * that arrived later, so per-origin order holds; @p held is left empty. */
static void pkt_inbox_prepend(opal_list_t *held)
{
    ompi_osc_newrma_mutex_lock(&component.inbox_lock, OMPI_OSC_NEWRMA_MUTEX_INBOX);
    opal_list_join(&component.inbox, opal_list_get_first(&component.inbox), held);
    ompi_osc_newrma_mutex_unlock(&component.inbox_lock, OMPI_OSC_NEWRMA_MUTEX_INBOX);
}

/* Free every packet of @p list. */
static void pkt_list_free(opal_list_t *list)
{
    ompi_osc_newrma_pkt_t *pkt;

    while (NULL != (pkt = (ompi_osc_newrma_pkt_t *) opal_list_remove_first(list))) {
        pkt_free(pkt);
    }
}

static pkt_landing_t *pkt_landing_find(uint32_t cid, int32_t src)
{
    pkt_landing_t *landing;

    OPAL_LIST_FOREACH(landing, &pkt_landings, pkt_landing_t)
    {
        if (landing->cid == cid && landing->src == src) {
            return landing;
        }
    }
    return NULL;
}

/* A packet the receiver makes for itself: @p hdr with @p flag, no payload,
 * to come back through the inbox when a rendezvous ends (pkt_notice_post). */
static ompi_osc_newrma_pkt_t *pkt_notice(const ompi_osc_newrma_pkt_hdr_t *hdr, uint8_t flag)
{
    ompi_osc_newrma_pkt_t *notice = pkt_alloc(0, false);

    if (NULL == notice) {
        return NULL;
    }
    OBJ_CONSTRUCT(&notice->super, opal_list_item_t);
    notice->hdr = *hdr;
    /* a notice is of one kind: the SENT notice of an answer made from a
     * LANDED one (a fetching accumulate's operands by rendezvous) must not
     * count that landing down again */
    notice->hdr.flags = (uint8_t) ((hdr->flags & ~(OMPI_OSC_NEWRMA_PKT_FLAG_LANDED |
                                                   OMPI_OSC_NEWRMA_PKT_FLAG_SENT)) |
                                   flag);
    notice->payload_len = 0;
    notice->ucx_data = NULL;
    notice->replies = NULL;
    notice->tally = NULL;
    notice->rndv = false;
    notice->am_buffer = false;
    notice->borrowed = false;
    notice->prefix = NULL;
    notice->prefix_len = 0;
    return notice;
}

/* The rendezvous of a notice ended (UCX progress, or at once). */
static void pkt_notice_post(void *ctx, int status)
{
    ompi_osc_newrma_pkt_t *notice = ctx;

    notice->hdr.status = status;
    pkt_inbox_append(notice);
}

/* The later packets of @p pkt's origin on its window wait until a notice
 * that holds them comes back (pkt_landing_done), but for those that may
 * land beside it (@p beside, pkt_lands_beside). */
static int pkt_landing_add(const ompi_osc_newrma_pkt_t *pkt, bool beside)
{
    pkt_landing_t *landing = pkt_landing_find(pkt->hdr.cid, pkt->hdr.src);

    if (NULL == landing) {
        landing = OBJ_NEW(pkt_landing_t);
        if (NULL == landing) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        landing->cid = pkt->hdr.cid;
        landing->src = pkt->hdr.src;
        landing->count = 0;
        landing->ordered = 0;
        OBJ_CONSTRUCT(&landing->held, opal_list_t);
        opal_list_append(&pkt_landings, &landing->super);
    }
    landing->count++;
    landing->ordered += beside ? 0 : 1;
    return OMPI_SUCCESS;
}

/* A notice whose rendezvous held its origin's later packets: a payload
 * that landed, or an answer read without the accumulate lock. */
static bool pkt_notice_holds(const ompi_osc_newrma_pkt_t *notice)
{
    return (notice->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_LANDED) ||
           (OMPI_OSC_NEWRMA_PKT_ACC == notice->hdr.type &&
            (notice->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_SENT) &&
            (notice->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_UNLOCKED));
}

/* A landing beside others (landed_beside): of its origin's, or of
 * @p module's MPI_REPLACEs in the window (@p module NULL: not one). */
static void pkt_count_beside(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_pkt_t *pkt)
{
    if (NULL != pkt_landing_find(pkt->hdr.cid, pkt->hdr.src) ||
        (NULL != module && 0 != module->acc_landings)) {
        module = NULL != module ? module : pkt_window(pkt->hdr.cid);
        if (NULL != module) {
            OMPI_OSC_NEWRMA_STAT_ADD(module, LANDED_BESIDE, 1);
        }
    }
}

/* ompi_osc_newrma_pkt_land, with the @p notice that comes back (of a
 * landing in @p module's window, or NULL) */
static int pkt_land_notice(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt, void *dest,
                           ompi_osc_newrma_pkt_t *notice)
{
    void *desc = pkt->ucx_data;

    if (notice->beside) {
        pkt_count_beside(module, pkt);
    }
    if (OMPI_SUCCESS != pkt_landing_add(pkt, notice->beside)) {
        pkt_free(notice);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    pkt->ucx_data = NULL; /* UCX's from here on */
    ompi_osc_newrma_ucx_am_recv(desc, dest, pkt->payload_len, pkt_notice_post, notice);
    return OMPI_SUCCESS;
}

/* A contiguous PUT by rendezvous (pkt_land_put): straight in the window. */
static bool pkt_put_in_place(const ompi_osc_newrma_pkt_t *pkt)
{
    return OMPI_OSC_NEWRMA_PKT_PUT == pkt->hdr.type && pkt->rndv &&
           (pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_CONTIG) && 0 == pkt->prefix_len &&
           pkt->payload_len == pkt->hdr.len;
}

int ompi_osc_newrma_pkt_land(ompi_osc_newrma_pkt_t *pkt, void *dest)
{
    ompi_osc_newrma_pkt_t *notice = pkt_notice(&pkt->hdr, OMPI_OSC_NEWRMA_PKT_FLAG_LANDED);

    if (NULL == notice) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    notice->beside = pkt_put_in_place(pkt);
    return pkt_land_notice(NULL, pkt, dest, notice);
}

int ompi_osc_newrma_pkt_land_window(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt,
                                    void *dest)
{
    ompi_osc_newrma_pkt_t *notice = pkt_notice(&pkt->hdr, OMPI_OSC_NEWRMA_PKT_FLAG_LANDED);
    unsigned i = module->acc_landings;
    int ret;

    if (NULL == notice) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    notice->beside = true;
    ret = pkt_land_notice(module, pkt, dest, notice);
    if (OMPI_SUCCESS == ret) {
        /* the notice waits in the inbox even when UCX ended the landing at
         * once: nothing reads the inbox before this handler returns */
        module->acc_land[i].notice = notice;
        module->acc_land[i].lo = (uint64_t) (uintptr_t) dest;
        module->acc_land[i].hi = (uint64_t) (uintptr_t) dest + pkt->payload_len;
        module->acc_landings = i + 1;
    }
    return ret;
}

bool ompi_osc_newrma_pkt_land_window_room(const ompi_osc_newrma_module_t *module, uint64_t lo,
                                          size_t len)
{
    uint64_t hi;

    if (module->acc_landings >= OMPI_OSC_NEWRMA_LANDINGS ||
        __builtin_add_overflow(lo, (uint64_t) len, &hi)) {
        return false;
    }
    for (unsigned i = 0; i < module->acc_landings; ++i) {
        if (lo < module->acc_land[i].hi && module->acc_land[i].lo < hi) {
            return false;
        }
    }
    return true;
}

bool ompi_osc_newrma_pkt_land_window_notice(const ompi_osc_newrma_module_t *module,
                                            const ompi_osc_newrma_pkt_t *pkt)
{
    for (unsigned i = 0; i < module->acc_landings; ++i) {
        if (pkt == module->acc_land[i].notice) {
            return true;
        }
    }
    return false;
}

bool ompi_osc_newrma_pkt_land_window_end(ompi_osc_newrma_module_t *module,
                                         const ompi_osc_newrma_pkt_t *notice)
{
    unsigned n = module->acc_landings;

    for (unsigned i = 0; i < n; ++i) {
        if (notice == module->acc_land[i].notice) {
            module->acc_land[i] = module->acc_land[n - 1];
            module->acc_landings = --n;
            break;
        }
    }
    if (0 != n) {
        return false;
    }
    pkt_inbox_prepend(&module->landing_held);
    return true;
}

void ompi_osc_newrma_pkt_land_window_drop(ompi_osc_newrma_module_t *module)
{
    pkt_list_free(&module->landing_held);
}

int ompi_osc_newrma_pkt_land_pooled(ompi_osc_newrma_pkt_t *pkt)
{
    ompi_osc_newrma_pkt_t *notice = pkt_notice(&pkt->hdr, OMPI_OSC_NEWRMA_PKT_FLAG_LANDED);
    size_t len = pkt->prefix_len + pkt->payload_len;
    char *buf = NULL != notice ? ompi_osc_newrma_ucx_am_buffer(0, len) : NULL;

    if (NULL == buf) {
        if (NULL != notice) {
            pkt_free(notice);
        }
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (pkt->prefix_len > 0) {
        memcpy(buf, pkt->prefix, pkt->prefix_len);
    }
    notice->payload = buf;
    notice->payload_len = len;
    notice->am_buffer = true;
    return pkt_land_notice(NULL, pkt, buf + pkt->prefix_len, notice);
}

/* A BATCH sent by rendezvous lands in a buffer of the component's pool, not
 * in one UCX allocates, fills fragment by fragment and frees per message;
 * its origin's later packets wait meanwhile (landing), and it is handled
 * when its notice, which carries the buffer, comes back. */
static void pkt_land_batch(ompi_osc_newrma_pkt_t *pkt)
{
    int ret = ompi_osc_newrma_pkt_land_pooled(pkt);

    if (OMPI_SUCCESS != ret) {
        /* the packet's release cancels the rendezvous: the origin's send fails */
        opal_output(0, "osc/newrma: cannot receive %zu bytes of packets from rank %d: %d",
                    pkt->payload_len, pkt->hdr.src, ret);
    }
}

int ompi_osc_newrma_pkt_answer_rndv(ompi_osc_newrma_module_t *module,
                                    const ompi_osc_newrma_pkt_t *pkt, uint8_t type,
                                    const void *data, bool owned)
{
    ompi_osc_newrma_pkt_hdr_t reply = {0};
    size_t len = pkt->hdr.len;
    ompi_osc_newrma_pkt_t *notice = pkt_notice(&pkt->hdr, OMPI_OSC_NEWRMA_PKT_FLAG_SENT);
    bool held = false;
    ucp_ep_h ep;
    int ret = NULL == notice ? OMPI_ERR_OUT_OF_RESOURCE
                             : ompi_osc_newrma_pkt_ep(module, pkt->hdr.src, &ep);

    if (OMPI_SUCCESS == ret && pkt_notice_holds(notice)) {
        ret = pkt_landing_add(pkt, false);
        held = OMPI_SUCCESS == ret;
    }
    if (NULL != notice && owned) {
        notice->payload = (char *) data; /* freed with the notice (pkt_free) */
        notice->am_buffer = true;
    }
    if (OMPI_SUCCESS == ret) {
        reply.type = type;
        reply.tag = pkt->hdr.tag;
        reply.tag2 = pkt->hdr.tag2;
        reply.len = len;
        ompi_osc_newrma_pkt_stamp(module, &reply);
        OSC_NEWRMA_VERBOSE(40, "rank %d window %u: %s to rank %d by rendezvous (%zu bytes)",
                           module->my_rank, module->cid, ompi_osc_newrma_pkt_name(reply.type),
                           pkt->hdr.src, len);
        OMPI_OSC_NEWRMA_STAT_ADD(module, MESSAGES, 1);
        ret = ompi_osc_newrma_ucx_am_send_rndv(ep, &reply, sizeof(reply), data, len,
                                               pkt_notice_post, notice);
    }
    if (OMPI_SUCCESS != ret && NULL != notice) {
        if (held) {
            pkt_landing_done(notice); /* nothing holds them now */
        }
        notice->am_buffer = false; /* @p data stays the caller's */
        pkt_free(notice);
    }
    return ret;
}

static ompi_osc_newrma_pkt_lands_fn_t pkt_lands;

void ompi_osc_newrma_pkt_lands_register(ompi_osc_newrma_pkt_lands_fn_t fn)
{
    pkt_lands = fn;
}

/* Whether @p pkt (an ACC packet as it came) lands in its window now. */
static bool pkt_lands_in_window(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_pkt_t *pkt)
{
    return OMPI_OSC_NEWRMA_PKT_ACC == pkt->hdr.type && pkt->rndv && NULL != pkt_lands &&
           pkt_lands(module, pkt);
}

static bool pkt_epoch_next(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt);

/* Whether @p pkt may land beside its origin's payloads still landing
 * (@p landing), nothing of that origin waiting: a contiguous PUT, which
 * lands straight in the window (MPI orders no PUT after another of the
 * same epoch, and whatever ends the epoch, RMA_DONE, UNLOCK or a GET,
 * waits behind both), or an MPI_REPLACE that lands in the window beside
 * only such landings (pkt_lands checks its range against the others in
 * the window).  One after the other, each paid a round trip before its
 * data moved: a stream of 2 MiB PUTs + flush over TCP moved 4.3-4.6 GB/s,
 * 4.9-5.4 beside each other.  At most OMPI_OSC_NEWRMA_LANDINGS of an
 * origin at once: all 64 PUTs of 512 KiB of a fence epoch at once moved
 * 3.7-3.8 GB/s, one at a time 4.5-4.6, eight 4.7-5.1.  Only a packet that
 * no later wait holds (its window not in creation, not of the next fence
 * epoch, let past the landings in the window): held there, it would be
 * released apart from its origin's later packets, which could then
 * overtake it. */
static bool pkt_lands_beside(ompi_osc_newrma_pkt_t *pkt, pkt_landing_t *landing)
{
    bool put = pkt_put_in_place(pkt);
    ompi_osc_newrma_module_t *module;

    if (landing->count >= OMPI_OSC_NEWRMA_LANDINGS || !opal_list_is_empty(&landing->held) ||
        (!put &&
         (0 != landing->ordered || OMPI_OSC_NEWRMA_PKT_ACC != pkt->hdr.type || !pkt->rndv))) {
        return false;
    }
    module = pkt_window(pkt->hdr.cid);
    if (NULL == module || !module->built || pkt_epoch_next(module, pkt)) {
        return false;
    }
    return put ? 0 == module->acc_landings
               : opal_list_is_empty(&module->landing_held) && pkt_lands_in_window(module, pkt);
}

/* @p pkt comes from an origin whose payload is still landing: it waits.
 * The receiver's own notices never wait, nor do the answers to its GETs
 * and fetching accumulates: each lands at its own offset of the origin's
 * buffer and counts down its own operation, so they may land side by side
 * (a 2 MiB MPI_NO_OP read's 256 KiB chunks over TCP had one round trip and
 * transfer each, one after the other). */
static bool pkt_landing_hold(ompi_osc_newrma_pkt_t *pkt)
{
    pkt_landing_t *landing;

    if (opal_list_is_empty(&pkt_landings) ||
        (pkt->hdr.flags & (OMPI_OSC_NEWRMA_PKT_FLAG_LANDED | OMPI_OSC_NEWRMA_PKT_FLAG_SENT)) ||
        OMPI_OSC_NEWRMA_PKT_GET_REPLY == pkt->hdr.type ||
        OMPI_OSC_NEWRMA_PKT_GETS_REPLY == pkt->hdr.type ||
        OMPI_OSC_NEWRMA_PKT_ACC_REPLY == pkt->hdr.type) {
        return false;
    }
    landing = pkt_landing_find(pkt->hdr.cid, pkt->hdr.src);
    if (NULL == landing || pkt_lands_beside(pkt, landing)) {
        return false;
    }
    opal_list_append(&landing->held, &pkt->super);
    return true;
}

/* @p notice was handled: when its origin has nothing more landing, what
 * waited goes back to the head of the inbox, ahead of what came later. */
static void pkt_landing_done(const ompi_osc_newrma_pkt_t *notice)
{
    pkt_landing_t *landing = pkt_landing_find(notice->hdr.cid, notice->hdr.src);

    if (NULL == landing) {
        return;
    }
    landing->ordered -= notice->beside ? 0 : 1;
    if (--landing->count > 0) {
        return;
    }
    opal_list_remove_item(&pkt_landings, &landing->super);
    pkt_inbox_prepend(&landing->held);
    OBJ_DESTRUCT(&landing->held);
    OBJ_RELEASE(landing);
}

void ompi_osc_newrma_pkt_stamp(const ompi_osc_newrma_module_t *module,
                               ompi_osc_newrma_pkt_hdr_t *hdr)
{
    hdr->cid = module->cid;
    hdr->src = module->my_rank;
    hdr->echo = (uint8_t) ((hdr->echo & ~OMPI_OSC_NEWRMA_PKT_MARK_EPOCH) |
                           (module->fence.epoch ? OMPI_OSC_NEWRMA_PKT_MARK_EPOCH : 0));
}

/* A packet of a type that touches the window's memory or lock (its
 * notices too); answers, which requests of mine wait for, and the rest do
 * not. */
static bool pkt_of_window(const ompi_osc_newrma_pkt_t *pkt)
{
    switch (pkt->hdr.type) {
        case OMPI_OSC_NEWRMA_PKT_PUT:
        case OMPI_OSC_NEWRMA_PKT_RMA_DONE:
        case OMPI_OSC_NEWRMA_PKT_LOCK:
        case OMPI_OSC_NEWRMA_PKT_UNLOCK:
        case OMPI_OSC_NEWRMA_PKT_SINGLE:
        case OMPI_OSC_NEWRMA_PKT_ACC:
        case OMPI_OSC_NEWRMA_PKT_BATCH:
        case OMPI_OSC_NEWRMA_PKT_COMPLETE:
        case OMPI_OSC_NEWRMA_PKT_GET:
        case OMPI_OSC_NEWRMA_PKT_FENCE_DONE:
        case OMPI_OSC_NEWRMA_PKT_PUTS:
        case OMPI_OSC_NEWRMA_PKT_ACCS:
        case OMPI_OSC_NEWRMA_PKT_GETS:
            return true;
        default:
            return false;
    }
}

/* Such a packet as it came (not a notice): the rest pass the epoch check. */
static bool pkt_of_epoch(const ompi_osc_newrma_pkt_t *pkt)
{
    return pkt_of_window(pkt) && 0 == (pkt->hdr.flags & (OMPI_OSC_NEWRMA_PKT_FLAG_LANDED |
                                                         OMPI_OSC_NEWRMA_PKT_FLAG_SENT));
}

/* Hold @p pkt if it is of a peer's next fence epoch: the peer's fence is
 * done and mine is not (fence.epoch; a peer is at most one epoch ahead,
 * since its fence waited for mine to start, so the parity tells).  Under
 * the inbox lock, as ompi_osc_newrma_pkt_epoch_done: a packet is either
 * held before the fence is done, or handled after.  A window of one
 * segment needs none of it (a peer's next epoch waits for my
 * fence_drained). */
static bool pkt_epoch_hold_if(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt,
                              bool hold)
{
    bool next;

    if (module->shm.whole || !pkt_of_epoch(pkt)) {
        return false;
    }
    ompi_osc_newrma_mutex_lock(&component.inbox_lock, OMPI_OSC_NEWRMA_MUTEX_INBOX);
    next = (0 != (pkt->hdr.echo & OMPI_OSC_NEWRMA_PKT_MARK_EPOCH)) != (0 != module->fence.epoch);
    if (next && hold) {
        opal_list_append(&module->epoch_held, &pkt->super);
    }
    ompi_osc_newrma_mutex_unlock(&component.inbox_lock, OMPI_OSC_NEWRMA_MUTEX_INBOX);
    return next;
}

static bool pkt_epoch_hold(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    return pkt_epoch_hold_if(module, pkt, true);
}

/* Whether pkt_epoch_hold would hold @p pkt, asked before it gets there in
 * the same dispatch (a fence cannot end between the two while a packet of
 * its epoch waits to be handled). */
static bool pkt_epoch_next(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    return pkt_epoch_hold_if(module, pkt, false);
}

/* Learn from @p pkt that its sender is past my last fence
 * (ompi_osc_newrma_peer_bypass_ok): my fence is done, and the packet is one
 * of its next epoch's (of the current parity: it was not held), or the
 * answer to a packet of mine sent since, which the sender held until its
 * fence was done.  Every packet it sent before that came before its
 * FENCE_DONE, which my fence waited for. */
static void pkt_learn_drained(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_pkt_t *pkt)
{
    ompi_osc_newrma_peer_t *peer;

    if (module->fence.epoch != (module->fence.count & 1)) {
        return;
    }
    switch (pkt->hdr.type) {
        case OMPI_OSC_NEWRMA_PKT_RMA_DONE_ACK:
        case OMPI_OSC_NEWRMA_PKT_LOCK_GRANTED:
        case OMPI_OSC_NEWRMA_PKT_SINGLE_ACK:
        case OMPI_OSC_NEWRMA_PKT_ACC_REPLY:
        case OMPI_OSC_NEWRMA_PKT_GET_REPLY:
        case OMPI_OSC_NEWRMA_PKT_GETS_REPLY:
        case OMPI_OSC_NEWRMA_PKT_POST:
            break;
        default:
            if (!pkt_of_epoch(pkt)) {
                return;
            }
    }
    peer = ompi_osc_newrma_peer_find(module, pkt->hdr.src);
    if (NULL != peer) {
        peer->fence_drained = module->fence.count;
    }
}

void ompi_osc_newrma_pkt_epoch_done(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_mutex_lock(&component.inbox_lock, OMPI_OSC_NEWRMA_MUTEX_INBOX);
    module->fence.epoch = module->fence.count & 1;
    /* ahead of anything that arrived later, so per-origin order holds */
    opal_list_join(&component.inbox, opal_list_get_first(&component.inbox), &module->epoch_held);
    ompi_osc_newrma_mutex_unlock(&component.inbox_lock, OMPI_OSC_NEWRMA_MUTEX_INBOX);
}

void ompi_osc_newrma_pkt_epoch_drop(ompi_osc_newrma_module_t *module)
{
    pkt_list_free(&module->epoch_held);
}

/* While an MPI_REPLACE lands in @p module's window under its accumulate
 * lock (ompi_osc_newrma_pkt_land_window), the window's packets and their
 * notices wait: any of them may take that lock (an accumulate, the LANDED
 * notice of a BATCH or of an accumulate's operands, the SENT notice of a
 * read without the lock) or follow one that does, and a handler spinning
 * on it would stop the progress that ends the landing.  Answers to this
 * process's own requests go on: they touch its buffers, not the window;
 * so do the landings' notices, and, while nothing waits, a further
 * MPI_REPLACE that lands beside them (pkt_lands: at a range of its own). */
static bool pkt_land_window_hold(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    if (0 == module->acc_landings || !pkt_of_window(pkt) ||
        ompi_osc_newrma_pkt_land_window_notice(module, pkt) ||
        (opal_list_is_empty(&module->landing_held) && pkt_lands_in_window(module, pkt))) {
        return false;
    }
    opal_list_append(&module->landing_held, &pkt->super);
    return true;
}

/* Hand @p pkt to its handler.  @return false when it was held instead: its
 * window is registered but still inside creation (a peer that left the
 * creation's exchange early may already lock and access it), a payload
 * of its origin is still landing, or it belongs to a fence epoch this
 * process has not reached (pkt_epoch_hold), or an MPI_REPLACE lands in
 * its window (pkt_land_window_hold). */
static bool pkt_dispatch(ompi_osc_newrma_pkt_t *pkt)
{
    ompi_osc_newrma_module_t *module = NULL;

    if (pkt_landing_hold(pkt)) {
        return false;
    }
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
        if (pkt_epoch_hold(module, pkt) || pkt_land_window_hold(module, pkt)) {
            return false;
        }
        if (0 != module->fence.unsure) {
            pkt_learn_drained(module, pkt);
        }
        if (pkt->borrowed) {
            OMPI_OSC_NEWRMA_STAT_ADD(module, PACKETS_IN_PLACE, 1);
        }
    }
    pkt_handle(module, pkt);
    return true;
}

static void pkt_handle(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    if (OMPI_OSC_NEWRMA_PKT_BATCH == pkt->hdr.type && pkt->rndv) {
        pkt_land_batch(pkt);
    } else if (OMPI_OSC_NEWRMA_PKT_BATCH == pkt->hdr.type) {
        pkt_handle_batch(module, pkt);
    } else if (pkt->hdr.type < PKT_TYPES && NULL != pkt_handlers[pkt->hdr.type]) {
        pkt_handlers[pkt->hdr.type](module, pkt);
    } else {
        OSC_NEWRMA_VERBOSE(1, "dropping packet of unknown type %u", pkt->hdr.type);
    }
}

static void pkt_free(ompi_osc_newrma_pkt_t *pkt)
{
    if (NULL != pkt->ucx_data) {
        ompi_osc_newrma_ucx_am_data_release(pkt->ucx_data);
    }
    if (pkt->am_buffer) {
        ompi_osc_newrma_ucx_am_buffer_free(pkt->payload);
    }
    OBJ_DESTRUCT(&pkt->super);
    if (pkt->pooled) {
        opal_free_list_return_st(
            &pkt_free_list, (opal_free_list_item_t *) ((char *) pkt - offsetof(pkt_elem_t, pkt)));
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

/* A payload of type @p type that its handler only copies, byte for byte
 * (memcpy or the datatype engine): where it starts does not matter. */
static bool pkt_type_bytes_only(uint8_t type)
{
    return OMPI_OSC_NEWRMA_PKT_PUT == type || OMPI_OSC_NEWRMA_PKT_PUTS == type ||
           OMPI_OSC_NEWRMA_PKT_GET_REPLY == type || OMPI_OSC_NEWRMA_PKT_GETS == type ||
           OMPI_OSC_NEWRMA_PKT_GETS_REPLY == type;
}

/* The payload of a packet of @p type is only copied (pkt_type_bytes_only),
 * a BATCH's packets are each that or have no payload: it may be read at
 * any alignment (UCX's TCP segment puts a message's data at any byte),
 * where a reduction reads its operands as elements. */
static bool pkt_bytes_only(uint8_t type, const char *payload, size_t len)
{
    ompi_osc_newrma_pkt_hdr_t sub;
    size_t at = 0;

    if (OMPI_OSC_NEWRMA_PKT_BATCH != type) {
        return pkt_type_bytes_only(type);
    }
    while (at < len) {
        if (!pkt_batch_next(payload, len, &at, &sub) ||
            (0 != sub.batch_len && !pkt_type_bytes_only(sub.type))) {
            return false;
        }
        at += pkt_batch_padded(sub.batch_len);
    }
    return true;
}

/* Whether a payload UCX takes back when its receive callback returns (TCP
 * has no descriptor to leave with us) is read where it is, its packet
 * handled in that callback, instead of copied out to wait in the inbox
 * (UCX made that copy for us before, a quarter of the target's copying in
 * a stream of 2 MiB PUTs: perf).  Only for large payloads (what it saves),
 * aligned as a copy would be unless only copied, and only where the
 * packet would be handled next anyway: nothing ahead of it in the inbox,
 * one thread at the inbox (with more, a packet released from a hold may
 * enter it meanwhile).  The callback runs inside the agent's turn (UCX's
 * worker is progressed there only), before the agent reads the inbox: the
 * handler's context is the same.  A packet that dispatching holds instead
 * (its origin's payload still landing, its window still in creation, a
 * fence epoch not reached) copies its payload then (pkt_deliver). */
static bool pkt_may_borrow(const ompi_osc_newrma_pkt_hdr_t *hdr, const char *payload,
                           size_t payload_len)
{
    return payload_len >= OMPI_OSC_NEWRMA_PKT_KEEP_MIN && !ompi_osc_newrma_threaded() &&
           opal_list_is_empty(&component.inbox) &&
           (0 == ((uintptr_t) payload & 7) || pkt_bytes_only(hdr->type, payload, payload_len));
}

/* A borrowed payload copied to a buffer of the packet's own, which a held
 * packet needs (UCX takes its buffer back; with one thread at the inbox
 * nothing reads the held packet before).  Out of memory, the packet goes
 * on without it: its handler fails it, and its origin's completing call
 * reports that. */
static void pkt_own_payload(ompi_osc_newrma_pkt_t *pkt)
{
    char *copy = ompi_osc_newrma_ucx_am_buffer(0, pkt->payload_len);

    if (NULL != copy) {
        ompi_osc_newrma_copy(copy, pkt->payload, pkt->payload_len);
        pkt->am_buffer = true;
    } else {
        opal_output(0, "osc/newrma: out of memory keeping a packet of rank %d", pkt->hdr.src);
        pkt->payload_len = 0;
    }
    pkt->payload = copy;
    pkt->borrowed = false;
}

/* Dispatch @p pkt and free it, unless held. */
static void pkt_deliver(ompi_osc_newrma_pkt_t *pkt)
{
    if (pkt_dispatch(pkt)) {
        if (pkt_notice_holds(pkt)) {
            pkt_landing_done(pkt); /* handled, or its window is gone */
        }
        pkt_free(pkt);
    } else if (pkt->borrowed) {
        pkt_own_payload(pkt);
    }
}

int ompi_osc_newrma_pkt_process_inbox(void)
{
    ompi_osc_newrma_pkt_t *pkt;
    int count = 0;

    while (NULL != (pkt = pkt_dequeue())) {
        pkt_deliver(pkt);
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
        pkt_inbox_prepend(&mine);
    }
    pkt_list_free(&mine);
    OBJ_DESTRUCT(&mine);
}

void ompi_osc_newrma_pkt_drain(void)
{
    ompi_osc_newrma_pkt_t *pkt;
    pkt_landing_t *landing;

    while (NULL != (landing = (pkt_landing_t *) opal_list_remove_first(&pkt_landings))) {
        pkt_list_free(&landing->held);
        OBJ_DESTRUCT(&landing->held);
        OBJ_RELEASE(landing);
    }
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
    OBJ_DESTRUCT(&pkt_landings);
    OBJ_DESTRUCT(&pkt_free_list);
    pkt_free_list_ready = false;
}
