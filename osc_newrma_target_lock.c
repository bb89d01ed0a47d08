/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: the target-side lock queue and direct access to lock words (see
 * osc_newrma_target_lock.h).
 */
#include "ompi_config.h"

#include <string.h>

#include "opal/sys/atomic.h"

#include "osc_newrma.h"
#include "osc_newrma_target_acc.h"
#include "osc_newrma_target_lock.h"
#include "osc_newrma_base_mutex.h"
#include "osc_newrma_am_pkt.h"
#include "osc_newrma_am_data.h"
#include "osc_newrma_base_wait.h"

/* ---- origin side, direct access to the word ---- */

typedef struct {
    ompi_osc_newrma_lockword_t *word;
    int lock_type;
    int32_t ticket;
} direct_wait_t;

static bool direct_entered(ompi_osc_newrma_module_t *module, void *arg)
{
    direct_wait_t *wait = arg;

    (void) module;
    return ompi_osc_newrma_lockword_try_enter(wait->word, wait->lock_type, wait->ticket);
}

int ompi_osc_newrma_lock_direct_wait(ompi_osc_newrma_module_t *module,
                                     ompi_osc_newrma_lockword_t *word, int lock_type,
                                     int32_t ticket)
{
    direct_wait_t wait = {word, lock_type, ticket};
    uint64_t start = ompi_osc_newrma_stats_now_ns();
    int ret;

    /* the word's owner may have to grant earlier tickets it queued for remote
     * origins: progress (ours, and theirs through the packets they await) */
    ret = ompi_osc_newrma_progress_wait(module, direct_entered, &wait);
    OMPI_OSC_NEWRMA_STAT_ADD(module, LOCK_WAITS, 1);
    OMPI_OSC_NEWRMA_STAT_ADD(module, LOCK_WAIT_NS, ompi_osc_newrma_stats_now_ns() - start);
    return ret;
}

int ompi_osc_newrma_lock_direct_acquire(ompi_osc_newrma_module_t *module, int rank, int lock_type)
{
    ompi_osc_newrma_lockword_t *word = ompi_osc_newrma_peer(module, rank)->lock;
    int32_t ticket;

    /* requests that arrived for my own word draw their tickets first: an
     * application that only locks itself must not starve them */
    if (rank == module->my_rank) {
        ompi_osc_newrma_agent_turn(module);
    }
    ticket = ompi_osc_newrma_lockword_ticket(word);
    if (ompi_osc_newrma_lockword_try_enter(word, lock_type, ticket)) {
        return OMPI_SUCCESS;
    }
    return ompi_osc_newrma_lock_direct_wait(module, word, lock_type, ticket);
}

int ompi_osc_newrma_lock_direct_release(ompi_osc_newrma_module_t *module, int rank, int lock_type)
{
    ompi_osc_newrma_lockword_t *word = ompi_osc_newrma_peer(module, rank)->lock;
    ompi_osc_newrma_pkt_hdr_t hdr = {0};

    ompi_osc_newrma_lockword_release(word, lock_type);
    if (0 == word->agent_waiting) {
        return OMPI_SUCCESS;
    }
    if (rank == module->my_rank) {
        (void) ompi_osc_newrma_lock_queue_progress(module);
        return OMPI_SUCCESS;
    }
    /* the owner may be computing; its agent sleeps until a packet arrives */
    hdr.type = OMPI_OSC_NEWRMA_PKT_WAKE;
    return ompi_osc_newrma_pkt_send(module, rank, &hdr, NULL, 0);
}

/* ---- the agent: lock queue ---- */

/** A remote origin's request waiting for its ticket to be served. */
typedef struct {
    opal_list_item_t super;
    int32_t src;
    int lock_type;
    int32_t ticket;
    /** the request packet's header (tag, and the operation of a single op) */
    ompi_osc_newrma_pkt_hdr_t hdr;
    /** single op: kept data (PUT), or discarded because over lock_data_bytes */
    bool single;
    bool discarded;
    size_t data_len;
    char *data;
    /** when the request was queued (statistics: lock_wait_ns) */
    uint64_t queued_ns;
} lock_waiter_t;

static void waiter_construct(lock_waiter_t *waiter)
{
    waiter->data = NULL;
    waiter->data_len = 0;
    waiter->single = false;
    waiter->discarded = false;
}

static void waiter_destruct(lock_waiter_t *waiter)
{
    free(waiter->data);
}

static OBJ_CLASS_INSTANCE(lock_waiter_t, opal_list_item_t, waiter_construct, waiter_destruct);

static int pkt_lock_type(const ompi_osc_newrma_pkt_hdr_t *hdr)
{
    return (hdr->flags & OMPI_OSC_NEWRMA_PKT_FLAG_EXCLUSIVE) ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED;
}

static void lock_reply(ompi_osc_newrma_module_t *module, int32_t dest,
                       ompi_osc_newrma_pkt_type_t type, uint8_t flags,
                       const ompi_osc_newrma_pkt_hdr_t *req, const void *payload, size_t len)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};

    hdr.type = type;
    hdr.flags = flags;
    hdr.tag = req->tag;
    hdr.tag2 = req->tag2;
    hdr.status = req->status;
    hdr.len = len;
    if (OMPI_SUCCESS != ompi_osc_newrma_pkt_send(module, dest, &hdr, payload, len)) {
        opal_output(0, "osc/newrma: cannot answer a lock packet of rank %d", dest);
    }
}

/* A single op whose lock is held now: apply it, release, acknowledge.  The
 * acknowledgement of a GET is its response. */
static void lock_apply_single_acc(ompi_osc_newrma_module_t *module, int32_t src,
                                  const ompi_osc_newrma_pkt_hdr_t *hdr, const char *data)
{
    bool fetch = hdr->flags & OMPI_OSC_NEWRMA_PKT_FLAG_GET;
    char inline_result[OMPI_OSC_NEWRMA_ACC_INLINE];
    char *result = hdr->len <= sizeof(inline_result) ? inline_result : malloc(hdr->len);
    int ret = NULL == result ? OMPI_ERR_OUT_OF_RESOURCE
                             : ompi_osc_newrma_acc_apply_single(module, hdr, data, result);

    if (OMPI_SUCCESS != ret) {
        opal_output(0, "osc/newrma: cannot apply a single accumulate of rank %d: %d", src, ret);
    }
    /* answered even when it failed, so the origin is not left waiting */
    lock_reply(module, src, OMPI_OSC_NEWRMA_PKT_SINGLE_ACK,
               fetch && OMPI_SUCCESS == ret ? OMPI_OSC_NEWRMA_PKT_FLAG_GET : 0, hdr,
               fetch && OMPI_SUCCESS == ret ? result : NULL,
               fetch && OMPI_SUCCESS == ret ? hdr->len : 0);
    if (result != inline_result) {
        free(result);
    }
}

static void lock_apply_single(ompi_osc_newrma_module_t *module, int32_t src,
                              const ompi_osc_newrma_pkt_hdr_t *hdr, const char *data)
{
    void *addr = (void *) (uintptr_t) hdr->addr;

    if (ompi_osc_newrma_op_kind_is_acc(hdr->kind)) {
        lock_apply_single_acc(module, src, hdr, data);
    } else if (hdr->flags & OMPI_OSC_NEWRMA_PKT_FLAG_GET) {
        lock_reply(module, src, OMPI_OSC_NEWRMA_PKT_SINGLE_ACK, OMPI_OSC_NEWRMA_PKT_FLAG_GET, hdr,
                   addr, hdr->len);
    } else {
        memcpy(addr, data, hdr->len);
        lock_reply(module, src, OMPI_OSC_NEWRMA_PKT_SINGLE_ACK, 0, hdr, NULL, 0);
    }
    ompi_osc_newrma_lockword_release(module->my_lock, pkt_lock_type(hdr));
}

static void lock_grant(ompi_osc_newrma_module_t *module, lock_waiter_t *waiter)
{
    OMPI_OSC_NEWRMA_STAT_ADD(module, LOCK_WAIT_NS,
                             ompi_osc_newrma_stats_now_ns() - waiter->queued_ns);
    if (!waiter->single) {
        lock_reply(module, waiter->src, OMPI_OSC_NEWRMA_PKT_LOCK_GRANTED, 0, &waiter->hdr, NULL, 0);
    } else if (waiter->discarded) {
        /* the origin holds the lock now and sends the operation again */
        lock_reply(module, waiter->src, OMPI_OSC_NEWRMA_PKT_LOCK_GRANTED,
                   OMPI_OSC_NEWRMA_PKT_FLAG_DISCARDED, &waiter->hdr, NULL, 0);
    } else {
        lock_apply_single(module, waiter->src, &waiter->hdr, waiter->data);
    }
}

int ompi_osc_newrma_lock_queue_progress(ompi_osc_newrma_module_t *module)
{
    lock_waiter_t *waiter;
    int granted = 0;

    if (0 == opal_list_get_size(&module->lock_queue)) {
        return 0;
    }
    ompi_osc_newrma_mutex_lock(&module->lock_queue_lock, OMPI_OSC_NEWRMA_MUTEX_QUEUE);
    /* waiters are in ticket order: the first one not served stops the scan */
    while (!opal_list_is_empty(&module->lock_queue)) {
        waiter = (lock_waiter_t *) opal_list_get_first(&module->lock_queue);
        if (!ompi_osc_newrma_lockword_try_enter(module->my_lock, waiter->lock_type,
                                                waiter->ticket)) {
            break;
        }
        opal_list_remove_first(&module->lock_queue);
        opal_atomic_add_fetch_32(&module->my_lock->agent_waiting, -1);
        opal_atomic_add_fetch_32(&mca_osc_newrma_component.lock_waiters, -1);
        module->lock_data_used -= waiter->data_len;
        lock_grant(module, waiter);
        OBJ_RELEASE(waiter);
        granted++;
    }
    ompi_osc_newrma_mutex_unlock(&module->lock_queue_lock, OMPI_OSC_NEWRMA_MUTEX_QUEUE);
    return granted;
}

/* Draw a ticket for the request; queue it unless it is served at once
 * (lock_queue_lock held). */
static lock_waiter_t *lock_enqueue(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt,
                                   bool *granted_p)
{
    int lock_type = pkt_lock_type(&pkt->hdr);
    lock_waiter_t *waiter = OBJ_NEW(lock_waiter_t);

    *granted_p = false;
    if (NULL == waiter) {
        /* no ticket drawn: the request is refused, not half taken */
        opal_output(0, "osc/newrma: out of memory queueing a lock request of rank %d",
                    pkt->hdr.src);
        return NULL;
    }
    waiter->ticket = ompi_osc_newrma_lockword_ticket(module->my_lock);
    /* earlier queued tickets go first (FIFO) */
    if (0 == opal_list_get_size(&module->lock_queue) &&
        ompi_osc_newrma_lockword_try_enter(module->my_lock, lock_type, waiter->ticket)) {
        OBJ_RELEASE(waiter);
        *granted_p = true;
        return NULL;
    }
    waiter->src = pkt->hdr.src;
    waiter->lock_type = lock_type;
    waiter->hdr = pkt->hdr;
    waiter->queued_ns = ompi_osc_newrma_stats_now_ns();
    OMPI_OSC_NEWRMA_STAT_ADD(module, LOCK_WAITS, 1);
    opal_atomic_add_fetch_32(&module->my_lock->agent_waiting, 1);
    opal_atomic_add_fetch_32(&mca_osc_newrma_component.lock_waiters, 1);
    opal_list_append(&module->lock_queue, &waiter->super);
    OSC_NEWRMA_VERBOSE(50,
                       "rank %d window %u: %s lock of rank %d queued (ticket %d, read %d, "
                       "write %d)",
                       module->my_rank, module->cid,
                       MPI_LOCK_EXCLUSIVE == lock_type ? "exclusive" : "shared", waiter->src,
                       waiter->ticket, module->my_lock->read, module->my_lock->write);
    return waiter;
}

/* A try (one of an origin's parallel requests): the lock if it is free now
 * and nobody queues for it, otherwise a refusal; it never waits here, so an
 * origin holding it cannot be part of a wait cycle (osc_newrma_origin_passive.c). */
static void lock_handle_try(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    bool granted = 0 == opal_list_get_size(&module->lock_queue) &&
                   ompi_osc_newrma_lockword_try_lock(module->my_lock, pkt_lock_type(&pkt->hdr));

    lock_reply(module, pkt->hdr.src, OMPI_OSC_NEWRMA_PKT_LOCK_GRANTED,
               granted ? 0 : OMPI_OSC_NEWRMA_PKT_FLAG_TRY, &pkt->hdr, NULL, 0);
}

/* LOCK request from an origin. */
static void lock_handle_request(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    bool granted;

    ompi_osc_newrma_mutex_lock(&module->lock_queue_lock, OMPI_OSC_NEWRMA_MUTEX_QUEUE);
    if (pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_TRY) {
        lock_handle_try(module, pkt);
    } else {
        (void) lock_enqueue(module, pkt, &granted);
        if (granted) {
            lock_reply(module, pkt->hdr.src, OMPI_OSC_NEWRMA_PKT_LOCK_GRANTED, 0, &pkt->hdr, NULL,
                       0);
        }
    }
    ompi_osc_newrma_mutex_unlock(&module->lock_queue_lock, OMPI_OSC_NEWRMA_MUTEX_QUEUE);
}

/* LOCK + one operation + UNLOCK in one packet. */
static void lock_handle_single(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    /* PUT data and accumulate operands (GET and NO_OP carry none) */
    bool granted, carries_data = pkt->payload_len > 0;
    lock_waiter_t *waiter;

    ompi_osc_newrma_mutex_lock(&module->lock_queue_lock, OMPI_OSC_NEWRMA_MUTEX_QUEUE);
    waiter = lock_enqueue(module, pkt, &granted);
    if (granted) {
        lock_apply_single(module, pkt->hdr.src, &pkt->hdr, pkt->payload);
    } else if (NULL != waiter) {
        waiter->single = true;
        /* keep the data while the window's buffered bytes stay bounded */
        if (carries_data &&
            module->lock_data_used + pkt->payload_len <= module->config.lock_data_bytes &&
            NULL != (waiter->data = malloc(pkt->payload_len > 0 ? pkt->payload_len : 1))) {
            memcpy(waiter->data, pkt->payload, pkt->payload_len);
            waiter->data_len = pkt->payload_len;
            module->lock_data_used += pkt->payload_len;
        } else if (carries_data) {
            waiter->discarded = true;
            OSC_NEWRMA_VERBOSE(30, "single op of rank %d: %zu bytes discarded while queued",
                               pkt->hdr.src, pkt->payload_len);
        }
    }
    ompi_osc_newrma_mutex_unlock(&module->lock_queue_lock, OMPI_OSC_NEWRMA_MUTEX_QUEUE);
}

/* UNLOCK whose operations have all been applied: release, answer (with
 * @p status: one of them failed), grant. */
static void lock_handle_unlock(ompi_osc_newrma_module_t *module, int32_t src, int lock_type,
                               uint64_t tag, int status)
{
    ompi_osc_newrma_pkt_hdr_t req = {0};

    req.tag = tag;
    req.status = status;
    ompi_osc_newrma_lockword_release(module->my_lock, lock_type);
    lock_reply(module, src, OMPI_OSC_NEWRMA_PKT_RMA_DONE_ACK, 0, &req, NULL, 0);
    (void) ompi_osc_newrma_lock_queue_progress(module);
}

/* WAKE: a node-local origin released the lock word directly. */
static void lock_handle_wake(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    (void) pkt;
    (void) ompi_osc_newrma_lock_queue_progress(module);
}

void ompi_osc_newrma_lock_register_handlers(void)
{
    ompi_osc_newrma_pkt_handler_register(OMPI_OSC_NEWRMA_PKT_LOCK, lock_handle_request);
    ompi_osc_newrma_pkt_handler_register(OMPI_OSC_NEWRMA_PKT_SINGLE, lock_handle_single);
    ompi_osc_newrma_pkt_handler_register(OMPI_OSC_NEWRMA_PKT_WAKE, lock_handle_wake);
    ompi_osc_newrma_pkt_unlock_register(lock_handle_unlock);
}

void ompi_osc_newrma_lock_queue_fini(ompi_osc_newrma_module_t *module)
{
    opal_list_item_t *item;

    while (NULL != (item = opal_list_remove_first(&module->lock_queue))) {
        opal_atomic_add_fetch_32(&mca_osc_newrma_component.lock_waiters, -1);
        OBJ_RELEASE(item);
    }
    module->lock_data_used = 0;
}
