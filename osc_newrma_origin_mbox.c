/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: small operations through a node-local target's mailbox, the
 * origin's side (see osc_newrma_origin_mbox.h).
 */
#include "ompi_config.h"

#include <string.h>

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"

#include "osc_newrma.h"
#include "osc_newrma_base_dtype.h"
#include "osc_newrma_origin_mbox.h"
#include "osc_newrma_origin_acc.h"
#include "osc_newrma_transport_shm.h"

/* Alone at its target (osc_newrma_op_lone) with nothing before it
 * unacknowledged: no packet without its RMA_DONE_ACK, no RDMA write or UCX
 * atomic unflushed, so it overtakes nothing.  A packet round trip costs both
 * processes about 9,000 instructions through UCX and the agent; a slot a
 * few hundred. */
static bool mbox_wanted(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                        ompi_osc_newrma_op_t *op, ptrdiff_t *toff_p)
{
    return module->mbox_ok && op->bytes > 0 && op->bytes <= OMPI_OSC_NEWRMA_SHM_MBOX_BYTES &&
           !target->needs_rma_done && ompi_osc_newrma_op_lone(target, op) &&
           0 == *ompi_osc_newrma_ack_counter(module, target) &&
           ompi_osc_newrma_dtype_contig(op->target_dt, op->target_count, toff_p);
}

/* What the op puts in the slot: its operands (a CAS's compare value after
 * them), or for a fetching op where its answer goes. */
static int mbox_fill(ompi_osc_newrma_op_t *op, ompi_osc_newrma_shm_mbox_t *slot,
                     const char *stream)
{
    bool acc = ompi_osc_newrma_op_kind_is_acc(op->kind);

    slot->kind = (uint8_t) op->kind;
    slot->len = (uint16_t) op->bytes;
    slot->acc_op = (uint16_t) (acc && NULL != op->acc_op ? op->acc_op->o_f_to_c_index : 0);
    slot->acc_dt = (uint16_t) (acc ? op->acc_basic->d_f_to_c_index : 0);
    slot->fetch = OMPI_OSC_NEWRMA_OP_GET == op->kind || ompi_osc_newrma_op_kind_fetches(op->kind);
    if (NULL != stream && OMPI_OSC_NEWRMA_OP_GET != op->kind) {
        memcpy(slot->data, stream, op->bytes);
    }
    if (OMPI_OSC_NEWRMA_OP_CAS == op->kind) {
        memcpy(slot->data + op->bytes, op->compare, op->bytes);
    }
    if (OMPI_OSC_NEWRMA_OP_GET == op->kind) {
        op->get_stream = (char *) stream;
        return OMPI_SUCCESS;
    }
    return slot->fetch ? ompi_osc_newrma_acc_result_stream(op) : OMPI_SUCCESS;
}

bool ompi_osc_newrma_mbox_issue(ompi_osc_newrma_module_t *module,
                                ompi_osc_newrma_target_t *target, ompi_osc_newrma_op_t *op,
                                char *stream, int *ret_p)
{
    ompi_osc_newrma_shm_mbox_t *slot;
    ptrdiff_t toff;

    if (!mbox_wanted(module, target, op, &toff) ||
        NULL == (slot = ompi_osc_newrma_shm_mbox_claim(module, target->rank))) {
        return false;
    }
    *ret_p = mbox_fill(op, slot, stream);
    if (OMPI_SUCCESS != *ret_p) {
        ompi_osc_newrma_shm_mbox_free(slot);
        return true;
    }
    slot->addr = op->target_addr + (uint64_t) toff;
    target->mbox_slot = slot;
    module->mbox_pending++;
    if (slot->fetch) {
        /* complete with its answer; one that fetches nothing is complete
         * locally now (its operands are in the slot): MPI_Win_flush_local
         * does not wait for the target */
        target->mbox_op = op;
        opal_atomic_add_fetch_32(&op->outstanding, 1);
        opal_atomic_add_fetch_32(&module->active_reqs, 1);
    }
    ompi_osc_newrma_stat_op(&module->stats, op->kind, OMPI_OSC_NEWRMA_STAT_OPS_MAILBOX, op->bytes);
    ompi_osc_newrma_shm_mbox_post(slot);
    return true;
}

/* The answer of @p target's mailbox slot, if it has come: a fetching op's
 * status and data (a failure of one that fetched nothing goes to the
 * window: the next completing synchronization returns it); the slot is
 * free again and the target open to its next ops. */
static int mbox_reap_target(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target)
{
    ompi_osc_newrma_shm_mbox_t *slot = target->mbox_slot;
    ompi_osc_newrma_op_t *op = target->mbox_op;

    if (NULL == slot || !ompi_osc_newrma_shm_mbox_done(slot)) {
        return 0;
    }
    if (OMPI_SUCCESS != slot->status) {
        OSC_NEWRMA_VERBOSE(1, "rank %d could not apply an operation: %d", target->rank,
                           slot->status);
        if (NULL != op) {
            op->status = OMPI_ERROR;
        } else {
            ompi_osc_newrma_module_error(module, OMPI_ERROR);
        }
    } else if (NULL != op) {
        memcpy(OMPI_OSC_NEWRMA_OP_GET == op->kind ? op->get_stream : op->result_stream,
               ompi_osc_newrma_shm_mbox_result(slot), op->bytes);
    }
    ompi_osc_newrma_shm_mbox_free(slot);
    target->mbox_slot = NULL;
    target->mbox_op = NULL;
    module->mbox_pending--;
    if (NULL != op) {
        opal_atomic_add_fetch_32(&module->active_reqs, -1);
        opal_atomic_add_fetch_32(&op->outstanding, -1);
    }
    return 1;
}

int ompi_osc_newrma_mbox_reap(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_target_t *target;
    int reaped = 0;

    for (target = ompi_osc_newrma_optable_first(&module->table);
         module->mbox_pending > 0 && NULL != target;
         target = ompi_osc_newrma_optable_next(&module->table, target)) {
        reaped += mbox_reap_target(module, target);
    }
    return reaped;
}
