/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: LOCK and UNLOCK requests as an origin sends them, and the
 * answers it gets (LOCK_GRANTED, SINGLE_ACK); see osc_newrma_am_lock.h.
 * The target's side is its lock queue (osc_newrma_target_lock.c).
 *
 * Answers only touch atomic fields of elements that live until the answer
 * has arrived, so they need no window lock (they may run on the async
 * progress thread while the window's owner waits).
 */
#include "ompi_config.h"

#include <string.h>

#include "osc_newrma.h"
#include "osc_newrma_am_data.h"
#include "osc_newrma_am_lock.h"
#include "osc_newrma_am_pkt.h"

static void pkt_handle_lock_granted(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    ompi_osc_newrma_target_t *target = (void *) (uintptr_t) pkt->hdr.tag;

    opal_atomic_mb();
    if (NULL == target) {
        opal_atomic_add_fetch_32(&module->lock_all_pending, -1);
        return;
    }
    if (pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_TRY) {
        target->lock_reply = OMPI_OSC_NEWRMA_LOCK_REPLY_REFUSED;
    } else if (pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_DISCARDED) {
        target->lock_reply = OMPI_OSC_NEWRMA_LOCK_REPLY_RESEND;
    } else {
        target->lock_reply = OMPI_OSC_NEWRMA_LOCK_REPLY_GRANTED;
    }
}

static void pkt_handle_single_ack(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    ompi_osc_newrma_target_t *target = (void *) (uintptr_t) pkt->hdr.tag;
    ompi_osc_newrma_op_t *op = (void *) (uintptr_t) pkt->hdr.tag2;

    (void) module;
    if ((pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_GET) && pkt->payload_len == op->bytes) {
        memcpy(OMPI_OSC_NEWRMA_OP_GET == op->kind ? op->origin_addr : op->result_stream,
               pkt->payload, pkt->payload_len);
    }
    opal_atomic_wmb();
    opal_atomic_add_fetch_32(&op->outstanding, -1);
    opal_atomic_add_fetch_32(&target->ack_counter, -1);
}

int ompi_osc_newrma_pkt_lock(ompi_osc_newrma_module_t *module, int rank, int lock_type,
                             ompi_osc_newrma_target_t *target, bool try)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};

    hdr.type = OMPI_OSC_NEWRMA_PKT_LOCK;
    hdr.flags = MPI_LOCK_EXCLUSIVE == lock_type ? OMPI_OSC_NEWRMA_PKT_FLAG_EXCLUSIVE : 0;
    hdr.flags |= try ? OMPI_OSC_NEWRMA_PKT_FLAG_TRY : 0;
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
        return ompi_osc_newrma_pkt_send_tail_counted(module, target, &hdr, &target->ack_counter);
    }
    ret =
        ompi_osc_newrma_pkt_ep(module, rank, &ep); /* the window's lock_all: no packets to count */
    return OMPI_SUCCESS != ret ? ret
                               : ompi_osc_newrma_pkt_send_counted(module, ep, rank, &hdr, NULL, 0,
                                                                  &module->ack_counter);
}

void ompi_osc_newrma_pkt_lock_register_handlers(void)
{
    ompi_osc_newrma_pkt_handler_register(OMPI_OSC_NEWRMA_PKT_LOCK_GRANTED, pkt_handle_lock_granted);
    ompi_osc_newrma_pkt_handler_register(OMPI_OSC_NEWRMA_PKT_SINGLE_ACK, pkt_handle_single_ack);
}
