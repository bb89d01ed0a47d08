/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: two-level element pools (design: "Operation and Target
 * Element Pools").
 *
 * A window owns one local pool per element kind; the component owns one
 * global pool per kind, shared by every window.  Elements are taken from
 * the local pool first, then the global one; when both are empty the caller
 * runs CLEANUP_WIN_AGGRESSIVE.  A returned element goes to the local pool
 * unless it is full, then to the global pool.  Both sizes are fixed by the
 * user, so a window can never be starved by another window.
 *
 * A pool here is a share, counted: how many elements it may have out
 * (capacity) and has out (in_use).  The elements themselves, once made,
 * wait in the global pool's free list whichever share they were taken
 * under, so a window holds memory only for the elements it has out: an
 * idle window holds none, where keeping each window's returned elements
 * cost about 600 bytes per peer it had touched, for the window's life.
 * "Returned to the local pool" is the local share's count going down.
 */
#ifndef OMPI_OSC_NEWRMA_POOL_H
#define OMPI_OSC_NEWRMA_POOL_H

#include "ompi_config.h"

#include "opal/class/opal_free_list.h"
#include "opal/class/opal_list.h"
#include "opal/threads/mutex.h"

#include "osc_newrma_base_types.h"

struct ompi_osc_newrma_pool_t {
    /** free elements: the global pool's, shared by every window (a window's
     * own only when it has no global pool) */
    opal_list_t free;
    /** how many elements this share may have out (fixed by the user) */
    size_t capacity;
    /** elements out under this share */
    size_t in_use;
    /** elements this pool's free list has made so far (on first use) */
    size_t created;
    /** takes that found this share used up (statistics: pool_misses) */
    size_t misses;
    /** class of the elements (an opal_list_item_t subclass) */
    opal_class_t *cls;
    /** protects free, in_use and created of a global pool (POOL) */
    opal_mutex_t lock;
    bool shared;
    /** name used in the leak report */
    const char *name;
};

/**
 * Set up a pool of @p capacity elements of class @p cls.
 * Elements are made on first use: window creation allocates none, and a
 * local pool's capacity is still reserved for its window (a failed
 * allocation looks like an empty pool: the caller cleans up aggressively
 * and reports OMPI_ERR_OUT_OF_RESOURCE if that does not help).
 * @return OMPI_SUCCESS.
 */
int ompi_osc_newrma_pool_init(ompi_osc_newrma_pool_t *pool, const char *name, opal_class_t *cls,
                              size_t capacity, bool shared);

/**
 * Release the pool's free elements.
 * @return for a window's pool, the number of elements still out under its
 *         share: 0 unless something leaked.  Each leak is reported on the
 *         component's verbose stream.
 */
size_t ompi_osc_newrma_pool_fini(ompi_osc_newrma_pool_t *pool);

/**
 * Take one element: local pool first, then global.
 * @return the element, or NULL when both pools are empty (the caller then
 *         runs CLEANUP_WIN_AGGRESSIVE and tries again).
 * The caller holds the window lock (which protects @p local).
 */
opal_list_item_t *ompi_osc_newrma_pool_get(ompi_osc_newrma_pool_t *local,
                                           ompi_osc_newrma_pool_t *global);

/**
 * Return an element: to the local pool unless it is full, else to global.
 * The caller holds the window lock.
 */
void ompi_osc_newrma_pool_put(ompi_osc_newrma_pool_t *local, ompi_osc_newrma_pool_t *global,
                              opal_list_item_t *item);

/**
 * Construct and initialize @p list of elements of @p size bytes and class
 * @p cls (derived from opal_free_list_item_t), unbounded, grown 16 at a
 * time from the first get: a process that never uses it pays nothing.  For
 * the transport's and packets' buffers, where elements are taken and given
 * back at a rate the operation table's fixed pools are not sized for.
 * On failure @p list is destructed.
 */
int ompi_osc_newrma_free_list_init(opal_free_list_t *list, size_t size, opal_class_t *cls);

/** How many more elements @p pool's share may have out right now. */
size_t ompi_osc_newrma_pool_available(ompi_osc_newrma_pool_t *pool);

#endif /* OMPI_OSC_NEWRMA_POOL_H */
