/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/* Unit test of the operation table: slot mapping, target lookup/insert/remove,
 * op list order and the PENDING -> ISSUED cursor. */
#include "ompi_config.h"

#include "ompi/constants.h"
#include "opal/runtime/opal.h"

#include "osc_newrma_base_optable.h"
#include "unit.h"

static int count_targets(ompi_osc_newrma_optable_t *table)
{
    ompi_osc_newrma_target_t *t;
    int n = 0;

    for (t = ompi_osc_newrma_optable_first(table); NULL != t;
         t = ompi_osc_newrma_optable_next(table, t)) {
        n++;
    }
    return n;
}

int main(int argc, char **argv)
{
    ompi_osc_newrma_optable_t table;
    ompi_osc_newrma_target_t *targets[6];
    ompi_osc_newrma_op_t *ops[4];

    opal_init_util(&argc, &argv);
    CHECK(OMPI_ERR_BAD_PARAM == ompi_osc_newrma_optable_init(&table, 0));
    CHECK(OMPI_SUCCESS == ompi_osc_newrma_optable_init(&table, 4));
    CHECK(NULL == ompi_osc_newrma_optable_lookup(&table, 3));
    CHECK(0 == count_targets(&table));

    /* round-robin slot mapping */
    CHECK(ompi_osc_newrma_optable_slot(&table, 1) == ompi_osc_newrma_optable_slot(&table, 5));
    CHECK(ompi_osc_newrma_optable_slot(&table, 1) != ompi_osc_newrma_optable_slot(&table, 2));

    /* ranks 1, 5 and 9 share slot 1; rank 2 has its own */
    int ranks[4] = {1, 5, 9, 2};
    for (int i = 0; i < 4; ++i) {
        targets[i] = OBJ_NEW(ompi_osc_newrma_target_t);
        ompi_osc_newrma_optable_insert(&table, targets[i], ranks[i]);
    }
    CHECK(4 == table.num_targets && 4 == table.nslots);
    CHECK(4 == count_targets(&table));
    /* sweeps see the elements in insertion order */
    CHECK(targets[0] == ompi_osc_newrma_optable_first(&table));
    CHECK(targets[3] == ompi_osc_newrma_optable_next(&table, targets[2]));
    CHECK(NULL == ompi_osc_newrma_optable_next(&table, targets[3]));
    for (int i = 0; i < 4; ++i) {
        CHECK(targets[i] == ompi_osc_newrma_optable_lookup(&table, ranks[i]));
        CHECK(ranks[i] == targets[i]->rank);
        CHECK(OMPI_OSC_NEWRMA_SYNC_NONE == targets[i]->sync_flag);
    }
    CHECK(NULL == ompi_osc_newrma_optable_lookup(&table, 13));

    /* remove from the middle of a slot's list */
    ompi_osc_newrma_optable_remove(&table, targets[1]);
    CHECK(NULL == ompi_osc_newrma_optable_lookup(&table, 5));
    CHECK(targets[0] == ompi_osc_newrma_optable_lookup(&table, 1));
    CHECK(targets[2] == ompi_osc_newrma_optable_lookup(&table, 9));
    CHECK(3 == table.num_targets && 3 == count_targets(&table));
    ompi_osc_newrma_optable_remove(&table, targets[3]);
    CHECK(2 == count_targets(&table));

    /* op list: FIFO order, cursor of the next op to issue */
    for (int i = 0; i < 4; ++i) {
        ops[i] = OBJ_NEW(ompi_osc_newrma_op_t);
        ompi_osc_newrma_target_enqueue_op(targets[0], ops[i]);
        CHECK(!ops[i]->issued);
    }
    CHECK(4 == targets[0]->op_count);
    CHECK(ompi_osc_newrma_target_is_last_op(targets[0], ops[3]));
    CHECK(ops[0] == ompi_osc_newrma_target_next_pending(targets[0]));
    CHECK(ops[0]->issued && ompi_osc_newrma_op_is_complete(ops[0]));
    ops[1]->outstanding = 1;
    CHECK(ops[1] == ompi_osc_newrma_target_next_pending(targets[0]));
    CHECK(!ompi_osc_newrma_op_is_complete(ops[1]));
    CHECK(!ompi_osc_newrma_op_is_complete(ops[2]));
    CHECK(ops[2] == ompi_osc_newrma_target_next_pending(targets[0]));
    CHECK(ops[3] == ompi_osc_newrma_target_next_pending(targets[0]));
    CHECK(NULL == ompi_osc_newrma_target_next_pending(targets[0]));
    /* a new op after all were issued becomes the next to issue */
    ompi_osc_newrma_target_dequeue_op(targets[0], ops[0]);
    ompi_osc_newrma_target_enqueue_op(targets[0], ops[0]);
    CHECK(ops[0] == targets[0]->next_op_to_issue);
    CHECK((opal_list_item_t *) ops[1] == opal_list_get_first(&targets[0]->ops));
    for (int i = 0; i < 4; ++i) {
        ompi_osc_newrma_target_dequeue_op(targets[0], ops[i]);
        OBJ_RELEASE(ops[i]);
    }
    CHECK(opal_list_is_empty(&targets[0]->ops));

    /* re-inserting a released element resets its per-target state */
    targets[0]->sync_flag = OMPI_OSC_NEWRMA_SYNC_FLUSH;
    targets[0]->needs_rma_done = true;
    ompi_osc_newrma_optable_remove(&table, targets[0]);
    ompi_osc_newrma_optable_insert(&table, targets[0], 7);
    CHECK(OMPI_OSC_NEWRMA_SYNC_NONE == targets[0]->sync_flag && !targets[0]->needs_rma_done);
    CHECK(0 == targets[0]->op_count && OMPI_OSC_NEWRMA_LOCK_CALLED == targets[0]->lock_state);
    CHECK(targets[0] == ompi_osc_newrma_optable_lookup(&table, 7));

    /* a one-slot table holds every target in one list */
    ompi_osc_newrma_optable_t one;
    CHECK(OMPI_SUCCESS == ompi_osc_newrma_optable_init(&one, 1));
    targets[4] = OBJ_NEW(ompi_osc_newrma_target_t);
    targets[5] = OBJ_NEW(ompi_osc_newrma_target_t);
    ompi_osc_newrma_optable_insert(&one, targets[4], 0);
    ompi_osc_newrma_optable_insert(&one, targets[5], 3);
    CHECK(1 == one.nslots && 2 == count_targets(&one));
    CHECK(targets[5] == ompi_osc_newrma_optable_lookup(&one, 3));
    ompi_osc_newrma_optable_remove(&one, targets[4]);
    ompi_osc_newrma_optable_remove(&one, targets[5]);
    CHECK(0 == count_targets(&one) && 0 == one.num_targets);
    ompi_osc_newrma_optable_fini(&one);

    ompi_osc_newrma_optable_remove(&table, targets[0]);
    ompi_osc_newrma_optable_remove(&table, targets[2]);
    CHECK(0 == table.num_targets && 0 == count_targets(&table));
    ompi_osc_newrma_optable_fini(&table);

    /* the slot array grows with the targets, up to its maximum, and every
     * element stays reachable through the new slots */
    enum { MANY = 40 };
    ompi_osc_newrma_target_t *many[MANY];
    CHECK(OMPI_SUCCESS == ompi_osc_newrma_optable_init(&table, 24));
    CHECK(OMPI_OSC_NEWRMA_OPTABLE_MIN_SLOTS == table.nslots);
    for (int i = 0; i < MANY; ++i) {
        many[i] = OBJ_NEW(ompi_osc_newrma_target_t);
        ompi_osc_newrma_optable_insert(&table, many[i], 3 * i);
        CHECK(table.nslots >= (i + 1 < 24 ? i + 1 : 24) || table.nslots == 24);
    }
    CHECK(24 == table.nslots && MANY == count_targets(&table));
    for (int i = 0; i < MANY; ++i) {
        CHECK(many[i] == ompi_osc_newrma_optable_lookup(&table, 3 * i));
    }
    CHECK(NULL == ompi_osc_newrma_optable_lookup(&table, 1));
    for (int i = 0; i < MANY; i += 2) { /* every other one */
        ompi_osc_newrma_optable_remove(&table, many[i]);
    }
    CHECK(MANY / 2 == count_targets(&table));
    for (int i = 0; i < MANY; ++i) {
        CHECK((i % 2 ? many[i] : NULL) == ompi_osc_newrma_optable_lookup(&table, 3 * i));
    }
    for (int i = 1; i < MANY; i += 2) {
        ompi_osc_newrma_optable_remove(&table, many[i]);
    }
    for (int i = 0; i < MANY; ++i) {
        OBJ_RELEASE(many[i]);
    }
    ompi_osc_newrma_optable_fini(&table);
    for (int i = 0; i < 6; ++i) {
        OBJ_RELEASE(targets[i]);
    }
    opal_finalize_util();
    return unit_finish("test_optable");
}
