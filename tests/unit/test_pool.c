/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/* Unit test of the two-level element pools: local -> global -> exhausted,
 * return order (local until full, then global), leak report at fini. */
#include "ompi_config.h"

#include "ompi/constants.h"
#include "opal/runtime/opal.h"

#include "osc_newrma_base_optable.h"
#include "osc_newrma_pool.h"
#include "unit.h"

int main(int argc, char **argv)
{
    ompi_osc_newrma_pool_t local, global;
    opal_list_item_t *items[8];

    opal_init_util(&argc, &argv);
    CHECK(OMPI_SUCCESS ==
          ompi_osc_newrma_pool_init(&local, "local", OBJ_CLASS(ompi_osc_newrma_op_t), 2, false));
    CHECK(OMPI_SUCCESS ==
          ompi_osc_newrma_pool_init(&global, "global", OBJ_CLASS(ompi_osc_newrma_op_t), 3, true));
    /* both pools make their elements on first use */
    CHECK(0 == local.created);
    CHECK(0 == global.created);
    CHECK(2 == ompi_osc_newrma_pool_available(&local));
    CHECK(3 == ompi_osc_newrma_pool_available(&global));

    /* local first */
    items[0] = ompi_osc_newrma_pool_get(&local, &global);
    items[1] = ompi_osc_newrma_pool_get(&local, &global);
    CHECK(NULL != items[0] && NULL != items[1] && items[0] != items[1]);
    CHECK(2 == local.created);
    CHECK(0 == ompi_osc_newrma_pool_available(&local));
    CHECK(0 == global.created);
    /* then global */
    for (int i = 2; i < 5; ++i) {
        items[i] = ompi_osc_newrma_pool_get(&local, &global);
        CHECK(NULL != items[i]);
        CHECK((size_t) (i - 1) == global.created);
    }
    /* then exhausted: the caller would run CLEANUP_WIN_AGGRESSIVE */
    CHECK(NULL == ompi_osc_newrma_pool_get(&local, &global));
    CHECK(0 == ompi_osc_newrma_pool_available(&global));

    /* returns fill the local pool first, whichever pool made the element */
    ompi_osc_newrma_pool_put(&local, &global, items[4]);
    CHECK(1 == opal_list_get_size(&local.free));
    CHECK(0 == opal_list_get_size(&global.free));
    ompi_osc_newrma_pool_put(&local, &global, items[3]);
    CHECK(2 == opal_list_get_size(&local.free));
    /* local full: the rest go to global */
    ompi_osc_newrma_pool_put(&local, &global, items[0]);
    CHECK(1 == opal_list_get_size(&global.free));
    /* the most recently returned element is reused first (cache-warm) */
    CHECK(items[3] == ompi_osc_newrma_pool_get(&local, &global));
    ompi_osc_newrma_pool_put(&local, &global, items[3]);

    /* items[1] and items[2] are still out: the local pool is full again, so
     * only what global lent matters; return one and fini reports none
     * missing for local, while a local pool short of elements reports them */
    ompi_osc_newrma_pool_put(&local, &global, items[1]);
    ompi_osc_newrma_pool_put(&local, &global, items[2]);
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
