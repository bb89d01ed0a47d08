/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: taking and returning table elements (see osc_newrma_base_element.h).
 */
#include "ompi_config.h"

#include "osc_newrma.h"
#include "osc_newrma_base_element.h"
#include "osc_newrma_base_optable.h"
#include "osc_newrma_pool.h"
#include "osc_newrma_base_wait.h"

#define component mca_osc_newrma_component

int ompi_osc_newrma_op_alloc(ompi_osc_newrma_module_t *module, ompi_osc_newrma_op_t **op_p)
{
    opal_list_item_t *item;
    int ret;

    while (NULL == (item = ompi_osc_newrma_pool_get(&module->op_pool, &component.op_global_pool))) {
        ret = ompi_osc_newrma_reclaim(module, OMPI_OSC_NEWRMA_RESOURCE_OP);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
    }
    *op_p = (ompi_osc_newrma_op_t *) item;
    return OMPI_SUCCESS;
}

int ompi_osc_newrma_target_get(ompi_osc_newrma_module_t *module, int rank,
                               ompi_osc_newrma_target_t **target_p)
{
    int ret;

    for (;;) {
        *target_p = ompi_osc_newrma_optable_lookup(&module->table, rank);
        if (NULL != *target_p) {
            return OMPI_SUCCESS;
        }
        ret = ompi_osc_newrma_target_try_get(module, rank, target_p);
        if (OMPI_ERR_OUT_OF_RESOURCE != ret) {
            return ret;
        }
        ret = ompi_osc_newrma_reclaim(module, OMPI_OSC_NEWRMA_RESOURCE_TARGET);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
    }
}

int ompi_osc_newrma_target_try_get(ompi_osc_newrma_module_t *module, int rank,
                                   ompi_osc_newrma_target_t **target_p)
{
    opal_list_item_t *item =
        ompi_osc_newrma_pool_get(&module->target_pool, &component.target_global_pool);

    if (NULL == item) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    *target_p = (ompi_osc_newrma_target_t *) item;
    (*target_p)->module = module;
    ompi_osc_newrma_optable_insert(&module->table, *target_p, rank);
    return OMPI_SUCCESS;
}

void ompi_osc_newrma_target_put(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target)
{
    ompi_osc_newrma_optable_remove(&module->table, target);
    ompi_osc_newrma_pool_put(&module->target_pool, &component.target_global_pool, &target->super);
}
