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
    pool->in_use = 0;
    pool->created = 0;
    pool->misses = 0;
    pool->cls = cls;
    pool->shared = shared;
    pool->name = name;
    /* elements are made on first use: creating a window allocates none */
    return OMPI_SUCCESS;
}

size_t ompi_osc_newrma_pool_fini(ompi_osc_newrma_pool_t *pool)
{
    opal_list_item_t *item;
    /* a global pool's elements may still be out with windows the user has
     * not freed yet (MPI_Finalize frees them first); a window's must not */
    size_t missing = pool->shared ? 0 : pool->in_use;

    while (NULL != (item = opal_list_remove_first(&pool->free))) {
        OBJ_RELEASE(item);
    }
    if (missing > 0 && ompi_osc_newrma_pool_output >= 0) {
        opal_output(ompi_osc_newrma_pool_output,
                    "osc/newrma: %s pool freed with %zu element(s) still in use (leak)", pool->name,
                    missing);
    }
    OBJ_DESTRUCT(&pool->free);
    OBJ_DESTRUCT(&pool->lock);
    return missing;
}

/* The pool whose free list holds the elements: the global one, shared by
 * every window, so an idle window keeps none; a window's own only when it
 * has no global pool (the unit tests). */
static ompi_osc_newrma_pool_t *pool_store(ompi_osc_newrma_pool_t *local,
                                          ompi_osc_newrma_pool_t *global)
{
    return NULL != global ? global : local;
}

static opal_list_item_t *store_take(ompi_osc_newrma_pool_t *store)
{
    opal_list_item_t *item;

    ompi_osc_newrma_mutex_lock_mt(&store->lock, OMPI_OSC_NEWRMA_MUTEX_POOL);
    item = opal_list_remove_first(&store->free);
    if (NULL == item) {
        item = (opal_list_item_t *) opal_obj_new(store->cls);
        store->created += NULL != item;
    }
    ompi_osc_newrma_mutex_unlock_mt(&store->lock, OMPI_OSC_NEWRMA_MUTEX_POOL);
    return item;
}

/* Take one of the global pool's elements for a window whose own are all
 * in use. */
static bool global_reserve(ompi_osc_newrma_pool_t *global)
{
    bool reserved;

    ompi_osc_newrma_mutex_lock_mt(&global->lock, OMPI_OSC_NEWRMA_MUTEX_POOL);
    reserved = global->in_use < global->capacity;
    global->in_use += reserved;
    ompi_osc_newrma_mutex_unlock_mt(&global->lock, OMPI_OSC_NEWRMA_MUTEX_POOL);
    return reserved;
}

static void global_release(ompi_osc_newrma_pool_t *global)
{
    ompi_osc_newrma_mutex_lock_mt(&global->lock, OMPI_OSC_NEWRMA_MUTEX_POOL);
    global->in_use--;
    ompi_osc_newrma_mutex_unlock_mt(&global->lock, OMPI_OSC_NEWRMA_MUTEX_POOL);
}

opal_list_item_t *ompi_osc_newrma_pool_get(ompi_osc_newrma_pool_t *local,
                                           ompi_osc_newrma_pool_t *global)
{
    opal_list_item_t *item;
    bool from_local = local->in_use < local->capacity;

    if (!from_local) {
        local->misses++;
        if (NULL == global || !global_reserve(global)) {
            return NULL;
        }
    }
    item = store_take(pool_store(local, global));
    if (NULL == item) { /* out of memory: looks like an empty pool */
        if (!from_local) {
            global_release(global);
        }
        return NULL;
    }
    local->in_use += from_local;
    return item;
}

void ompi_osc_newrma_pool_put(ompi_osc_newrma_pool_t *local, ompi_osc_newrma_pool_t *global,
                              opal_list_item_t *item)
{
    ompi_osc_newrma_pool_t *store = pool_store(local, global);

    /* the window's own share first: while it has elements out under its
     * own share, this one counts as one of them (the design's "return to
     * the local pool unless it is full"); else it was lent by the global
     * pool */
    if (local->in_use > 0) {
        local->in_use--;
    } else {
        global_release(global);
    }
    ompi_osc_newrma_mutex_lock_mt(&store->lock, OMPI_OSC_NEWRMA_MUTEX_POOL);
    opal_list_prepend(&store->free, item);
    ompi_osc_newrma_mutex_unlock_mt(&store->lock, OMPI_OSC_NEWRMA_MUTEX_POOL);
}

size_t ompi_osc_newrma_pool_available(ompi_osc_newrma_pool_t *pool)
{
    size_t n;

    ompi_osc_newrma_mutex_lock_mt(&pool->lock, OMPI_OSC_NEWRMA_MUTEX_POOL);
    n = pool->capacity - pool->in_use;
    ompi_osc_newrma_mutex_unlock_mt(&pool->lock, OMPI_OSC_NEWRMA_MUTEX_POOL);
    return n;
}

int ompi_osc_newrma_free_list_init(opal_free_list_t *list, size_t size, opal_class_t *cls)
{
    int ret;

    OBJ_CONSTRUCT(list, opal_free_list_t);
    ret = opal_free_list_init(list, size, opal_cache_line_size, cls, 0, 0, 0, -1, 16, NULL, 0, NULL,
                              NULL, NULL);
    if (OPAL_SUCCESS != ret) {
        OBJ_DESTRUCT(list);
    }
    return ret;
}
