/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: two-level element pools (see osc_newrma_pool.h).
 */
#include "ompi_config.h"

#include "ompi/constants.h"
#include "opal/util/output.h"

#include "osc_newrma_base_mutex.h"
#include "osc_newrma_pool.h"

/* Stream for leak reports; the component sets it once its output is open.
 * Stays -1 (silent) in the unit tests unless they open one. */
int ompi_osc_newrma_pool_output = -1;

int ompi_osc_newrma_pool_init(ompi_osc_newrma_pool_t *pool, const char *name, opal_class_t *cls,
                              size_t capacity, bool shared)
{
    OBJ_CONSTRUCT(&pool->free, opal_list_t);
    OBJ_CONSTRUCT(&pool->lock, opal_mutex_t);
    pool->capacity = capacity;
    pool->created = 0;
    pool->misses = 0;
    pool->cls = cls;
    pool->shared = shared;
    pool->name = name;
    /* elements are made on first use, up to the capacity: a window's pool
     * stays reserved for it without 2 x 256 allocations at every creation */
    return OMPI_SUCCESS;
}

size_t ompi_osc_newrma_pool_fini(ompi_osc_newrma_pool_t *pool)
{
    opal_list_item_t *item;
    size_t freed = 0, missing;

    while (NULL != (item = opal_list_remove_first(&pool->free))) {
        OBJ_RELEASE(item);
        freed++;
    }
    /* A local pool may end up holding elements that the global pool created
     * (and the reverse); only the total is conserved.  What must hold is
     * that a local pool gets back at least as many elements as it made. */
    missing = pool->shared ? 0 : (freed < pool->created ? pool->created - freed : 0);
    if (missing > 0 && ompi_osc_newrma_pool_output >= 0) {
        opal_output(ompi_osc_newrma_pool_output,
                    "osc/newrma: %s pool freed with %zu element(s) still in use (leak)", pool->name,
                    missing);
    }
    OBJ_DESTRUCT(&pool->free);
    OBJ_DESTRUCT(&pool->lock);
    return missing;
}

static opal_list_item_t *pool_take(ompi_osc_newrma_pool_t *pool)
{
    opal_list_item_t *item = opal_list_remove_first(&pool->free);

    if (NULL == item && pool->created < pool->capacity) {
        item = (opal_list_item_t *) opal_obj_new(pool->cls);
        if (NULL != item) {
            pool->created++;
        }
    }
    return item;
}

opal_list_item_t *ompi_osc_newrma_pool_get(ompi_osc_newrma_pool_t *local,
                                           ompi_osc_newrma_pool_t *global)
{
    opal_list_item_t *item = pool_take(local);

    if (NULL == item) {
        local->misses++;
    }
    if (NULL == item && NULL != global) {
        ompi_osc_newrma_mutex_lock_mt(&global->lock, OMPI_OSC_NEWRMA_MUTEX_POOL);
        item = pool_take(global);
        ompi_osc_newrma_mutex_unlock_mt(&global->lock, OMPI_OSC_NEWRMA_MUTEX_POOL);
    }
    return item;
}

void ompi_osc_newrma_pool_put(ompi_osc_newrma_pool_t *local, ompi_osc_newrma_pool_t *global,
                              opal_list_item_t *item)
{
    if (opal_list_get_size(&local->free) < local->capacity || NULL == global) {
        opal_list_prepend(&local->free, item);
        return;
    }
    ompi_osc_newrma_mutex_lock_mt(&global->lock, OMPI_OSC_NEWRMA_MUTEX_POOL);
    opal_list_prepend(&global->free, item);
    ompi_osc_newrma_mutex_unlock_mt(&global->lock, OMPI_OSC_NEWRMA_MUTEX_POOL);
}

size_t ompi_osc_newrma_pool_available(ompi_osc_newrma_pool_t *pool)
{
    size_t n;

    ompi_osc_newrma_mutex_lock_mt(&pool->lock, OMPI_OSC_NEWRMA_MUTEX_POOL);
    n = opal_list_get_size(&pool->free) + (pool->capacity - pool->created);
    ompi_osc_newrma_mutex_unlock_mt(&pool->lock, OMPI_OSC_NEWRMA_MUTEX_POOL);
    return n;
}

int ompi_osc_newrma_free_list_init(opal_free_list_t *list, size_t size, opal_class_t *cls)
{
    int ret;

    OBJ_CONSTRUCT(list, opal_free_list_t);
    ret = opal_free_list_init(list, size, opal_cache_line_size, cls, 0, 0, 0, -1, 16, NULL, 0,
                              NULL, NULL, NULL);
    if (OPAL_SUCCESS != ret) {
        OBJ_DESTRUCT(list);
    }
    return ret;
}
