/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: REGION_QUERY, REGION_REPLY and REGION_FORGET (see
 * osc_newrma_am_region.h): what a window or a dynamic window's attached
 * memory is at a peer, asked on first access and forgotten on detach.
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "osc_newrma.h"
#include "osc_newrma_am_pkt.h"
#include "osc_newrma_am_region.h"
#include "osc_newrma_base_mutex.h"
#include "osc_newrma_base_wait.h"
#include "osc_newrma_transport_region.h"
#include "osc_newrma_transport_ucx.h"

/* Memory registered with UCX on the first peer's question for it (neither
 * window creation nor MPI_Win_attach registers): nothing when it already
 * is, or is empty. */
static int pkt_register_once(void *base, size_t len, ucp_mem_h *memh, void **rkey_packed,
                             size_t *rkey_packed_len)
{
    if (NULL != *memh || 0 == len) {
        return OMPI_SUCCESS;
    }
    return ompi_osc_newrma_ucx_mem_map(base, len, memh, rkey_packed, rkey_packed_len);
}

/* An attached region, registered; NULL when it cannot be. */
static ompi_osc_newrma_region_t *pkt_region_registered(ompi_osc_newrma_region_t *region)
{
    return OMPI_SUCCESS == pkt_register_once((void *) (uintptr_t) region->base, region->len,
                                             &region->memh, &region->rkey_packed,
                                             &region->rkey_packed_len)
               ? region
               : NULL;
}

/* The registration for [lo, hi): the attached region holding it, or a run of
 * adjacent attached regions it spans (registered as one the first time). */
static ompi_osc_newrma_region_t *pkt_region_for(ompi_osc_newrma_module_t *module, uint64_t lo,
                                                uint64_t hi)
{
    ompi_osc_newrma_region_t *found = ompi_osc_newrma_region_find(&module->attached, lo, hi);
    uint64_t run_lo, run_hi;

    if (NULL != found) {
        return pkt_region_registered(found);
    }
    found = ompi_osc_newrma_region_find(&module->attached_runs, lo, hi);
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

/* The window's memory registered with UCX, on the first peer's question
 * (attached_lock held): most windows on one node are never the target of
 * UCX RDMA, and creation and free then skip the registration's cost. */
static int pkt_window_registration(ompi_osc_newrma_module_t *module)
{
    return pkt_register_once(module->base, module->size, &module->memh, &module->rkey_packed,
                             &module->rkey_packed_len);
}

/* Target side: my window's base, size, displacement unit and rkey. */
static int pkt_window_reply(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_pkt_t *pkt)
{
    int ret;

    ompi_osc_newrma_mutex_lock(&module->attached_lock, OMPI_OSC_NEWRMA_MUTEX_ATTACHED);
    ret = pkt_window_registration(module);
    ret = OMPI_SUCCESS != ret
              ? pkt_region_reply(module, pkt, ret, 0, 0, 0, NULL, 0)
              : pkt_region_reply(module, pkt, OMPI_SUCCESS, (uint64_t) (uintptr_t) module->base,
                                 module->size, module->disp_unit, module->rkey_packed,
                                 module->rkey_packed_len);
    ompi_osc_newrma_mutex_unlock(&module->attached_lock, OMPI_OSC_NEWRMA_MUTEX_ATTACHED);
    return ret;
}

/* Target side: for a dynamic window, the attached memory holding the
 * queried range; for any other, what an origin needs of my window on its
 * first access to it (nothing per peer travels at creation). */
static void pkt_handle_region_query(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    ompi_osc_newrma_region_t *found;
    int ret;

    if (MPI_WIN_FLAVOR_DYNAMIC != module->flavor) {
        ret = pkt_window_reply(module, pkt);
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
static void pkt_handle_region_reply(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    ompi_osc_newrma_region_query_t *query = (void *) (uintptr_t) pkt->hdr.tag;

    (void) module; /* NULL: a reply names no window, the query is in its tag */
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
    /* none: this origin never asked the target, so it caches nothing of it
     * and has no question in flight */
    ompi_osc_newrma_peer_t *peer = ompi_osc_newrma_peer_find(module, pkt->hdr.src);
    ompi_osc_newrma_pkt_hdr_t ack = pkt->hdr;

    if (NULL != peer) {
        ompi_osc_newrma_mutex_lock(&module->attached_lock, OMPI_OSC_NEWRMA_MUTEX_ATTACHED);
        (void) ompi_osc_newrma_region_cache_drop(peer->regions, pkt->hdr.addr,
                                                 pkt->hdr.addr + pkt->hdr.len);
        peer->regions_forgotten++;
        ompi_osc_newrma_mutex_unlock(&module->attached_lock, OMPI_OSC_NEWRMA_MUTEX_ATTACHED);
    }
    ack.type = OMPI_OSC_NEWRMA_PKT_REGION_FORGET_ACK;
    if (OMPI_SUCCESS != ompi_osc_newrma_pkt_send(module, pkt->hdr.src, &ack, NULL, 0)) {
        opal_output(0, "osc/newrma: cannot acknowledge a detach of rank %d", pkt->hdr.src);
    }
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

int ompi_osc_newrma_pkt_region_forget(ompi_osc_newrma_module_t *module, const int *ranks, int count,
                                      uint64_t addr, uint64_t len)
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

static void pkt_handle_region_forget_ack(ompi_osc_newrma_module_t *module,
                                         ompi_osc_newrma_pkt_t *pkt)
{
    (void) pkt;
    opal_atomic_add_fetch_32(&module->forget_pending, -1);
}

void ompi_osc_newrma_pkt_region_register_handlers(void)
{
    ompi_osc_newrma_pkt_handler_register(OMPI_OSC_NEWRMA_PKT_REGION_QUERY, pkt_handle_region_query);
    ompi_osc_newrma_pkt_handler_register(OMPI_OSC_NEWRMA_PKT_REGION_REPLY, pkt_handle_region_reply);
    ompi_osc_newrma_pkt_handler_register(OMPI_OSC_NEWRMA_PKT_REGION_FORGET,
                                         pkt_handle_region_forget);
    ompi_osc_newrma_pkt_handler_register(OMPI_OSC_NEWRMA_PKT_REGION_FORGET_ACK,
                                         pkt_handle_region_forget_ack);
}
