/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: operation table (see osc_newrma_base_optable.h).
 */
#include "ompi_config.h"

#include <stdlib.h>

#include "ompi/constants.h"

#include "osc_newrma_base_optable.h"

static void op_construct(ompi_osc_newrma_op_t *op)
{
    op->bounce = NULL;
    op->issued = false;
    op->outstanding = 0;
    op->timed_ns = 0;
    op->took_ns = 0;
    op->read_seq_word = NULL;
    op->module = NULL;
    op->request = NULL;
}

static void target_construct(ompi_osc_newrma_target_t *target)
{
    OBJ_CONSTRUCT(&target->ops, opal_list_t);
    OBJ_CONSTRUCT(&target->table_item, opal_list_item_t);
    target->slot_next = NULL;
    target->next_op_to_issue = NULL;
    target->batch.buf = NULL;
    target->batch.len = 0;
    target->batch.capacity = 0;
    target->batch.count = 0;
    target->batch.cap = 0;
    target->batch.recs_at = 0;
    target->batch.recs_last = 0;
}

static void target_destruct(ompi_osc_newrma_target_t *target)
{
    OBJ_DESTRUCT(&target->ops);
    OBJ_DESTRUCT(&target->table_item);
}

OBJ_CLASS_INSTANCE(ompi_osc_newrma_op_t, opal_list_item_t, op_construct, NULL);
OBJ_CLASS_INSTANCE(ompi_osc_newrma_target_t, opal_list_item_t, target_construct, target_destruct);

int ompi_osc_newrma_optable_init(ompi_osc_newrma_optable_t *table, int max_slots)
{
    if (max_slots < 1) {
        return OMPI_ERR_BAD_PARAM;
    }
    table->nslots = max_slots < OMPI_OSC_NEWRMA_OPTABLE_MIN_SLOTS
                        ? max_slots
                        : OMPI_OSC_NEWRMA_OPTABLE_MIN_SLOTS;
    table->slots = calloc((size_t) table->nslots, sizeof(table->slots[0]));
    if (NULL == table->slots) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    table->max_slots = max_slots;
    table->num_targets = 0;
    OBJ_CONSTRUCT(&table->targets, opal_list_t);
    return OMPI_SUCCESS;
}

void ompi_osc_newrma_optable_fini(ompi_osc_newrma_optable_t *table)
{
    if (NULL != table->slots) {
        OBJ_DESTRUCT(&table->targets);
    }
    free(table->slots);
    table->slots = NULL;
    table->nslots = 0;
}

static void slot_link(ompi_osc_newrma_optable_t *table, ompi_osc_newrma_target_t *target)
{
    ompi_osc_newrma_slot_t *slot = ompi_osc_newrma_optable_slot(table, target->rank);

    target->slot_next = slot->targets;
    slot->targets = target;
}

/* Twice the slots (at most max_slots), every element linked again. */
static void optable_grow(ompi_osc_newrma_optable_t *table)
{
    int nslots = table->nslots > table->max_slots / 2 ? table->max_slots : 2 * table->nslots;
    ompi_osc_newrma_slot_t *slots = calloc((size_t) nslots, sizeof(slots[0]));
    ompi_osc_newrma_target_t *target;

    if (NULL == slots) {
        return; /* longer chains, still right */
    }
    free(table->slots);
    table->slots = slots;
    table->nslots = nslots;
    for (target = ompi_osc_newrma_optable_first(table); NULL != target;
         target = ompi_osc_newrma_optable_next(table, target)) {
        slot_link(table, target);
    }
}

ompi_osc_newrma_target_t *ompi_osc_newrma_optable_lookup(ompi_osc_newrma_optable_t *table, int rank)
{
    ompi_osc_newrma_target_t *target = ompi_osc_newrma_optable_slot(table, rank)->targets;

    while (NULL != target && target->rank != rank) {
        target = target->slot_next;
    }
    return target;
}

void ompi_osc_newrma_optable_insert(ompi_osc_newrma_optable_t *table,
                                    ompi_osc_newrma_target_t *target, int rank)
{
    target->rank = rank;
    target->op_count = 0;
    target->next_op_to_issue = NULL;
    target->sync_flag = OMPI_OSC_NEWRMA_SYNC_NONE;
    target->lock_state = OMPI_OSC_NEWRMA_LOCK_CALLED;
    target->lock_type = 0;
    target->lock_mode = 0;
    target->ack_counter = 0;
    target->needs_rma_done = false;
    target->rdma_writes_unfenced = false;
    target->am_sent = 0;
    target->owed_at_call = 0;
    target->rdma_reads = false;
    target->mbox_op = NULL;
    target->mbox_dest = NULL;
    target->mbox_slot = NULL;
    target->acc_channel = OMPI_OSC_NEWRMA_ACC_CHANNEL_NONE;
    target->lock_reply = OMPI_OSC_NEWRMA_LOCK_REPLY_NONE;
    target->flush_pending = 0;
    target->unlock_sent = false;
    target->complete_sent = false;
    target->release_when_done = false;
    target->req_ops = 0;
    target->lock_wanted = false;
    target->lock_counted = false;
    target->lock_try = false;
    target->lock_refused = false;

    if (table->num_targets >= table->nslots && table->nslots < table->max_slots) {
        optable_grow(table);
    }
    slot_link(table, target);
    opal_list_append(&table->targets, &target->table_item);
    table->num_targets++;
}

void ompi_osc_newrma_optable_remove(ompi_osc_newrma_optable_t *table,
                                    ompi_osc_newrma_target_t *target)
{
    ompi_osc_newrma_slot_t *slot = ompi_osc_newrma_optable_slot(table, target->rank);
    ompi_osc_newrma_target_t **link = &slot->targets;

    while (NULL != *link && *link != target) {
        link = &(*link)->slot_next;
    }
    if (NULL == *link) {
        return;
    }
    *link = target->slot_next;
    target->slot_next = NULL;
    opal_list_remove_item(&table->targets, &target->table_item);
    table->num_targets--;
}

void ompi_osc_newrma_target_enqueue_op(ompi_osc_newrma_target_t *target, ompi_osc_newrma_op_t *op)
{
    op->issued = false;
    op->outstanding = 0;
    op->timed_ns = 0;
    op->took_ns = 0;
    op->read_seq_word = NULL;
    opal_list_append(&target->ops, &op->super);
    if (NULL == target->next_op_to_issue) {
        target->next_op_to_issue = op;
    }
    target->op_count++;
}

void ompi_osc_newrma_target_dequeue_op(ompi_osc_newrma_target_t *target, ompi_osc_newrma_op_t *op)
{
    opal_list_remove_item(&target->ops, &op->super);
}

ompi_osc_newrma_op_t *ompi_osc_newrma_target_next_pending(ompi_osc_newrma_target_t *target)
{
    ompi_osc_newrma_op_t *op = target->next_op_to_issue;
    opal_list_item_t *next;

    if (NULL == op) {
        return NULL;
    }
    op->issued = true;
    next = opal_list_get_next(&op->super);
    target->next_op_to_issue =
        (next == opal_list_get_end(&target->ops)) ? NULL : (ompi_osc_newrma_op_t *) next;
    return op;
}
