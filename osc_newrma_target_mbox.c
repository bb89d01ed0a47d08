/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: small operations through a node-local target's mailbox, the
 * target's side (see osc_newrma_target_mbox.h).
 */
#include "ompi_config.h"

#include <string.h>

#include "osc_newrma.h"
#include "osc_newrma_am_data.h"
#include "osc_newrma_base_copy.h"
#include "osc_newrma_target_acc.h"
#include "osc_newrma_target_mbox.h"
#include "osc_newrma_transport_shm.h"

/* A shared copy's chunks (OMPI_OSC_NEWRMA_SHM_MBOX_SHARE) that its origin
 * has not taken: a GET's written into the origin's buffer, a PUT's read
 * from it, a reduction's read and reduced into the window.  A failure, or
 * an origin this process cannot reach, is the origin's to mend: it copies
 * the whole access again itself (a reduction the rest of its chunk). */
static int mbox_apply_share(ompi_osc_newrma_module_t *module, ompi_osc_newrma_shm_mbox_t *slot)
{
    ompi_osc_newrma_shm_mbox_share_t *share = &slot->share;
    ompi_osc_newrma_peer_t *origin = ompi_osc_newrma_shm_cma_peer(module, share->rank);
    char *mine = (char *) (uintptr_t) slot->addr;
    int status = OMPI_SUCCESS;

    if (NULL == origin) {
        share->failed = 1;
        return OMPI_SUCCESS;
    }
    if (slot->flags & OMPI_OSC_NEWRMA_SHM_MBOX_SEGMENT) {
        mine = (char *) module->base + slot->addr; /* my own mapping of it */
    }
    if (OMPI_OSC_NEWRMA_OP_ACC == slot->kind || OMPI_OSC_NEWRMA_OP_GACC == slot->kind) {
        ompi_osc_newrma_acc_apply_share(slot, origin->cma_pid, mine);
        return OMPI_SUCCESS;
    }
    share->by_target = ompi_osc_newrma_shm_share_run(
        share, origin->cma_pid, OMPI_OSC_NEWRMA_OP_GET == slot->kind, mine, share->addr, &status);
    share->failed = OMPI_SUCCESS != status;
    return OMPI_SUCCESS;
}

int ompi_osc_newrma_mbox_apply(ompi_osc_newrma_module_t *module, ompi_osc_newrma_shm_mbox_t *slot)
{
    char *mem = (char *) (uintptr_t) slot->addr, *data;

    if (slot->flags & OMPI_OSC_NEWRMA_SHM_MBOX_SHARE) {
        return mbox_apply_share(module, slot);
    }
    if (!module->mbox_ok) {
        return OMPI_ERR_BAD_PARAM; /* a segment's mailbox takes shared copies alone */
    }
    if (slot->len > OMPI_OSC_NEWRMA_SHM_MBOX_AREA_BYTES) {
        return OMPI_ERR_BAD_PARAM; /* more than its area holds */
    }
    /* osc_newrma_test_fail_packet counts the slots that write, as it counts
     * PUT and ACC packets */
    if (OMPI_OSC_NEWRMA_OP_GET != slot->kind && ompi_osc_newrma_pkt_test_fail()) {
        return OMPI_ERROR;
    }
    data = ompi_osc_newrma_shm_mbox_data(module, module->my_rank, slot);
    if (slot->flags & OMPI_OSC_NEWRMA_SHM_MBOX_BY_REF) {
        return ompi_osc_newrma_acc_apply_mbox_ref(module, slot, data);
    }
    switch (slot->kind) {
        case OMPI_OSC_NEWRMA_OP_PUT:
            ompi_osc_newrma_copy(mem, data, slot->len);
            return OMPI_SUCCESS;
        case OMPI_OSC_NEWRMA_OP_GET:
            ompi_osc_newrma_copy(ompi_osc_newrma_shm_mbox_result(data, slot), mem, slot->len);
            return OMPI_SUCCESS;
        default:
            return ompi_osc_newrma_acc_apply_mbox(module, slot, data);
    }
}
