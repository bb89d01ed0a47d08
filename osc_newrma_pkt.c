/*
 * osc/newrma: active-message packets (see osc_newrma_pkt.h).
 */
#include "ompi_config.h"

#include <string.h>

#include "ompi/proc/proc.h"

#include "osc_newrma.h"
#include "osc_newrma_pkt.h"
#include "osc_newrma_progress.h"
#include "osc_newrma_ucx.h"

#define component mca_osc_newrma_component

void ompi_osc_newrma_pkt_enqueue(const void *hdr, size_t hdr_len, const void *payload,
                                 size_t payload_len)
{
    ompi_osc_newrma_pkt_t *pkt;

    if (hdr_len != sizeof(pkt->hdr)) {
        OSC_NEWRMA_VERBOSE(1, "dropping packet with a %zu-byte header", hdr_len);
        return;
    }
    pkt = malloc(sizeof(*pkt) + payload_len);
    if (NULL == pkt) {
        opal_output(0, "osc/newrma: out of memory receiving a packet");
        return;
    }
    OBJ_CONSTRUCT(&pkt->super, opal_list_item_t);
    memcpy(&pkt->hdr, hdr, sizeof(pkt->hdr));
    pkt->payload_len = payload_len;
    if (payload_len > 0) {
        memcpy(pkt->payload, payload, payload_len);
    }
    OPAL_THREAD_LOCK(&component.inbox_lock);
    opal_list_append(&component.inbox, &pkt->super);
    OPAL_THREAD_UNLOCK(&component.inbox_lock);
}

static int pkt_reply(ompi_osc_newrma_module_t *module, int dest, ompi_osc_newrma_pkt_hdr_t *hdr,
                     const void *payload, size_t payload_len)
{
    ucp_ep_h ep;
    int ret = ompi_osc_newrma_ucx_ep(ompi_comm_peer_lookup(module->comm, dest), &ep);

    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    return ompi_osc_newrma_ucx_am_send(ep, hdr, sizeof(*hdr), payload, payload_len);
}

/* Target side: find the attached region holding the queried range. */
static void pkt_handle_region_query(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    ompi_osc_newrma_pkt_hdr_t reply = pkt->hdr;
    ompi_osc_newrma_region_t *region, *found = NULL;
    int ret;

    OPAL_THREAD_LOCK(&module->attached_lock);
    OPAL_LIST_FOREACH(region, &module->attached, ompi_osc_newrma_region_t)
    {
        if (pkt->hdr.addr >= region->base &&
            pkt->hdr.addr + pkt->hdr.len <= region->base + region->len) {
            found = region;
            break;
        }
    }
    reply.type = OMPI_OSC_NEWRMA_PKT_REGION_REPLY;
    reply.src = module->my_rank;
    reply.status = (NULL == found) ? OMPI_ERR_RMA_RANGE : OMPI_SUCCESS;
    reply.addr = found ? found->base : 0;
    reply.len = found ? found->len : 0;
    ret = pkt_reply(module, pkt->hdr.src, &reply, found ? found->rkey_packed : NULL,
                    found ? found->rkey_packed_len : 0);
    OPAL_THREAD_UNLOCK(&module->attached_lock);
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
    query->rkey_packed = NULL;
    if (OMPI_SUCCESS == query->status) {
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

static void pkt_dispatch(ompi_osc_newrma_pkt_t *pkt)
{
    ompi_osc_newrma_module_t *module;

    switch ((ompi_osc_newrma_pkt_type_t) pkt->hdr.type) {
        case OMPI_OSC_NEWRMA_PKT_REGION_QUERY:
            module = ompi_osc_newrma_module_lookup(pkt->hdr.cid);
            if (NULL == module) {
                OSC_NEWRMA_VERBOSE(1, "region query for unknown window cid %u", pkt->hdr.cid);
                return;
            }
            pkt_handle_region_query(module, pkt);
            return;
        case OMPI_OSC_NEWRMA_PKT_REGION_REPLY:
            pkt_handle_region_reply(pkt);
            return;
        default:
            OSC_NEWRMA_VERBOSE(1, "dropping packet of unknown type %u", pkt->hdr.type);
            return;
    }
}

static ompi_osc_newrma_pkt_t *pkt_dequeue(void)
{
    ompi_osc_newrma_pkt_t *pkt;

    if (0 == opal_list_get_size(&component.inbox)) {
        return NULL;
    }
    OPAL_THREAD_LOCK(&component.inbox_lock);
    pkt = (ompi_osc_newrma_pkt_t *) opal_list_remove_first(&component.inbox);
    OPAL_THREAD_UNLOCK(&component.inbox_lock);
    return pkt;
}

int ompi_osc_newrma_pkt_process_inbox(void)
{
    ompi_osc_newrma_pkt_t *pkt;
    int count = 0;

    while (NULL != (pkt = pkt_dequeue())) {
        pkt_dispatch(pkt);
        OBJ_DESTRUCT(&pkt->super);
        free(pkt);
        count++;
    }
    return count;
}

void ompi_osc_newrma_pkt_drain(void)
{
    ompi_osc_newrma_pkt_t *pkt;

    while (NULL != (pkt = pkt_dequeue())) {
        OBJ_DESTRUCT(&pkt->super);
        free(pkt);
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
    hdr.cid = module->cid;
    hdr.src = module->my_rank;
    hdr.addr = addr;
    hdr.len = len;
    hdr.tag = (uint64_t) (uintptr_t) query;
    ret = pkt_reply(module, target, &hdr, NULL, 0);
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
