/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/* Unit test of the two-level element pools: local -> global -> exhausted,
 * return order (local share until full, then global), elements shared
 * between windows, leak report at fini. */
#include "ompi_config.h"

#include "ompi/constants.h"
#include "opal/runtime/opal.h"

#include "osc_newrma_base_optable.h"
#include "osc_newrma_pool.h"
#include "unit.h"

int main(int argc, char **argv)
{
    ompi_osc_newrma_pool_t local, other, global;
    opal_list_item_t *items[8];

    opal_init_util(&argc, &argv);
    CHECK(OMPI_SUCCESS ==
          ompi_osc_newrma_pool_init(&local, "local", OBJ_CLASS(ompi_osc_newrma_op_t), 2, false));
    CHECK(OMPI_SUCCESS ==
          ompi_osc_newrma_pool_init(&global, "global", OBJ_CLASS(ompi_osc_newrma_op_t), 3, true));
    /* elements are made on first use */
    CHECK(0 == local.created && 0 == global.created);
    CHECK(2 == ompi_osc_newrma_pool_available(&local));
    CHECK(3 == ompi_osc_newrma_pool_available(&global));

    /* local first */
    items[0] = ompi_osc_newrma_pool_get(&local, &global);
    items[1] = ompi_osc_newrma_pool_get(&local, &global);
    CHECK(NULL != items[0] && NULL != items[1] && items[0] != items[1]);
    CHECK(2 == local.in_use && 0 == ompi_osc_newrma_pool_available(&local));
    CHECK(0 == global.in_use && 0 == local.misses);
    /* then global */
    for (int i = 2; i < 5; ++i) {
        items[i] = ompi_osc_newrma_pool_get(&local, &global);
        CHECK(NULL != items[i]);
        CHECK((size_t) (i - 1) == global.in_use);
    }
    CHECK(3 == local.misses);
    /* then exhausted: the caller would run CLEANUP_WIN_AGGRESSIVE */
    CHECK(NULL == ompi_osc_newrma_pool_get(&local, &global));
    CHECK(0 == ompi_osc_newrma_pool_available(&global));
    CHECK(5 == global.created);

    /* returns count against the local share first, whichever share the
     * element was taken under; every element waits in the global list */
    ompi_osc_newrma_pool_put(&local, &global, items[4]);
    CHECK(1 == local.in_use && 3 == global.in_use);
    ompi_osc_newrma_pool_put(&local, &global, items[3]);
    CHECK(0 == local.in_use && 3 == global.in_use);
    /* local full: the rest give the global share back */
    ompi_osc_newrma_pool_put(&local, &global, items[0]);
    CHECK(0 == local.in_use && 2 == global.in_use);
    CHECK(3 == opal_list_get_size(&global.free) && 0 == opal_list_get_size(&local.free));
    /* the most recently returned element is reused first (cache-warm),
     * under the local share again */
    CHECK(items[0] == ompi_osc_newrma_pool_get(&local, &global));
    CHECK(1 == local.in_use);
    ompi_osc_newrma_pool_put(&local, &global, items[0]);

    /* a second window reuses the elements the first returned: an idle
     * window holds none, and nothing new is made */
    CHECK(OMPI_SUCCESS ==
          ompi_osc_newrma_pool_init(&other, "other", OBJ_CLASS(ompi_osc_newrma_op_t), 2, false));
    items[5] = ompi_osc_newrma_pool_get(&other, &global);
    CHECK(NULL != items[5] && 5 == global.created && 1 == other.in_use);
    ompi_osc_newrma_pool_put(&other, &global, items[5]);
    CHECK(0 == ompi_osc_newrma_pool_fini(&other));

    /* return the two still out: the global share is whole again, so a
     * window that borrowed does not shrink it for the windows after it */
    ompi_osc_newrma_pool_put(&local, &global, items[1]);
    ompi_osc_newrma_pool_put(&local, &global, items[2]);
    CHECK(0 == global.in_use && 3 == ompi_osc_newrma_pool_available(&global));
    CHECK(5 == opal_list_get_size(&global.free));
    CHECK(0 == ompi_osc_newrma_pool_fini(&local));
    CHECK(0 == ompi_osc_newrma_pool_fini(&global));

    /* leak report: a local pool freed while one element is in use */
    CHECK(OMPI_SUCCESS ==
          ompi_osc_newrma_pool_init(&local, "leaky", OBJ_CLASS(ompi_osc_newrma_op_t), 4, false));
    items[0] = ompi_osc_newrma_pool_get(&local, NULL);
    CHECK(NULL != items[0]);
    CHECK(1 == ompi_osc_newrma_pool_fini(&local));
    OBJ_RELEASE(items[0]);

    opal_finalize_util();
    return unit_finish("test_pool");
}
