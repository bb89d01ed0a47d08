/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: memory regions of dynamic windows.
 *
 * A target keeps the regions attached to it (and registrations of runs of
 * adjacent ones), each with the ranks it has described them to.  An origin
 * keeps, per target, a bounded cache of the regions it was told about, in
 * least-recently-used order.  MPI_Win_detach tells every origin that holds
 * the detached memory in its cache to forget it, and returns once they all
 * have: after it no access can go through a stale registration, in any
 * epoch (lock epochs included, where nothing else would refresh the cache).
 */
#ifndef OMPI_OSC_NEWRMA_TRANSPORT_REGION_H
#define OMPI_OSC_NEWRMA_TRANSPORT_REGION_H

#include "ompi_config.h"

#include <stdbool.h>
#include <stdint.h>

#include <ucp/api/ucp.h>

#include "opal/class/opal_list.h"

/** A memory region attached to a dynamic window (local or cached remote).
 * Operations that use a cached region's rkey retain it, so dropping it from
 * the cache never pulls the rkey from under an operation in flight. */
typedef struct {
    opal_list_item_t super;
    uint64_t base;
    size_t len;
    /** local: registration and packed rkey; remote: unpacked rkey */
    ucp_mem_h memh;
    void *rkey_packed;
    size_t rkey_packed_len;
    ucp_rkey_h rkey;
    /** local: the ranks this region was described to (REGION_REPLY) */
    int *origins;
    int origins_count;
    int origins_size;
} ompi_osc_newrma_region_t;
OBJ_CLASS_DECLARATION(ompi_osc_newrma_region_t);

/**
 * The region of @p regions (a list of ompi_osc_newrma_region_t) that holds
 * all of [lo, hi), or NULL.  The caller holds the lock protecting the list.
 */
ompi_osc_newrma_region_t *ompi_osc_newrma_region_find(opal_list_t *regions, uint64_t lo,
                                                      uint64_t hi);

/**
 * Whether regions of @p regions, adjacent one to the next, together hold all
 * of [lo, hi); if so *@p run_lo and *@p run_hi are the bounds of those
 * regions (the first one's base, the last one's end).  The caller holds the
 * lock protecting the list.
 */
bool ompi_osc_newrma_region_run(opal_list_t *regions, uint64_t lo, uint64_t hi, uint64_t *run_lo,
                                uint64_t *run_hi);

/* ---- target side ---- */

/** @p rank was told about @p region (it may cache it until told to forget). */
int ompi_osc_newrma_region_note_origin(ompi_osc_newrma_region_t *region, int rank);

/**
 * Add the ranks noted on @p region to the set @p ranks (*@p count of them,
 * room for *@p size; grown with realloc), each rank once.
 */
int ompi_osc_newrma_region_add_origins(const ompi_osc_newrma_region_t *region, int **ranks,
                                       int *count, int *size);

/* ---- origin side: one target's cache ---- */

/* A cache is a list made by its first region (most targets of most windows
 * never have one: the list head cost every peer entry 64 bytes); NULL
 * is an empty cache. */

/** The cached region holding [lo, hi), now the most recently used, or NULL. */
ompi_osc_newrma_region_t *ompi_osc_newrma_region_cache_find(opal_list_t *cache, uint64_t lo,
                                                            uint64_t hi);

/** Cache @p region (the cache takes the caller's reference), dropping the
 * least recently used ones beyond @p max; makes *@p cache if NULL.
 * @return OMPI_ERR_OUT_OF_RESOURCE (the reference stays the caller's) when
 * it cannot. */
int ompi_osc_newrma_region_cache_add(opal_list_t **cache, ompi_osc_newrma_region_t *region,
                                     unsigned int max);

/** Forget every cached region overlapping [lo, hi). @return how many. */
int ompi_osc_newrma_region_cache_drop(opal_list_t *cache, uint64_t lo, uint64_t hi);

/** Forget the whole cache and free its list (*@p cache NULL after). */
void ompi_osc_newrma_region_cache_clear(opal_list_t **cache);

#endif /* OMPI_OSC_NEWRMA_TRANSPORT_REGION_H */
