/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: memory regions of dynamic windows (see osc_newrma_transport_region.h).
 */
#include "ompi_config.h"

#include <stdlib.h>

#include "ompi/constants.h"

#include "osc_newrma_transport_region.h"
#include "osc_newrma_transport_ucx.h"

static void region_construct(ompi_osc_newrma_region_t *region)
{
    region->base = 0;
    region->len = 0;
    region->memh = NULL;
    region->rkey_packed = NULL;
    region->rkey_packed_len = 0;
    region->rkey = NULL;
    region->origins = NULL;
    region->origins_count = 0;
    region->origins_size = 0;
}

static void region_destruct(ompi_osc_newrma_region_t *region)
{
    if (NULL != region->rkey) {
        ucp_rkey_destroy(region->rkey);
    }
    ompi_osc_newrma_ucx_mem_unmap(region->memh, region->rkey_packed);
    free(region->origins);
}

OBJ_CLASS_INSTANCE(ompi_osc_newrma_region_t, opal_list_item_t, region_construct, region_destruct);

ompi_osc_newrma_region_t *ompi_osc_newrma_region_find(opal_list_t *regions, uint64_t lo,
                                                      uint64_t hi)
{
    ompi_osc_newrma_region_t *region;

    OPAL_LIST_FOREACH(region, regions, ompi_osc_newrma_region_t)
    {
        if (lo >= region->base && hi <= region->base + region->len) {
            return region;
        }
    }
    return NULL;
}

/* The region holding byte @p addr, or NULL. */
static ompi_osc_newrma_region_t *region_at(opal_list_t *regions, uint64_t addr)
{
    ompi_osc_newrma_region_t *region;

    OPAL_LIST_FOREACH(region, regions, ompi_osc_newrma_region_t)
    {
        if (addr >= region->base && addr < region->base + region->len) {
            return region;
        }
    }
    return NULL;
}

bool ompi_osc_newrma_region_run(opal_list_t *regions, uint64_t lo, uint64_t hi, uint64_t *run_lo,
                                uint64_t *run_hi)
{
    ompi_osc_newrma_region_t *region = region_at(regions, lo);

    if (NULL == region) {
        return false;
    }
    *run_lo = region->base;
    *run_hi = region->base + region->len;
    /* regions never overlap (attach refuses it): the next one starts where
     * this one ends */
    while (*run_hi < hi) {
        region = region_at(regions, *run_hi);
        if (NULL == region) {
            return false;
        }
        *run_hi = region->base + region->len;
    }
    return true;
}

/* ---- target side ---- */

/* Append @p rank to the set unless it is there (sets stay small: the ranks
 * that accessed one region). */
static int rank_set_add(int **ranks, int *count, int *size, int rank)
{
    int *grown;

    for (int i = 0; i < *count; ++i) {
        if ((*ranks)[i] == rank) {
            return OMPI_SUCCESS;
        }
    }
    if (*count == *size) {
        grown = realloc(*ranks, (size_t) (*size > 0 ? 2 * *size : 4) * sizeof(int));
        if (NULL == grown) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        *ranks = grown;
        *size = *size > 0 ? 2 * *size : 4;
    }
    (*ranks)[(*count)++] = rank;
    return OMPI_SUCCESS;
}

int ompi_osc_newrma_region_note_origin(ompi_osc_newrma_region_t *region, int rank)
{
    return rank_set_add(&region->origins, &region->origins_count, &region->origins_size, rank);
}

int ompi_osc_newrma_region_add_origins(const ompi_osc_newrma_region_t *region, int **ranks,
                                       int *count, int *size)
{
    int ret = OMPI_SUCCESS;

    for (int i = 0; OMPI_SUCCESS == ret && i < region->origins_count; ++i) {
        ret = rank_set_add(ranks, count, size, region->origins[i]);
    }
    return ret;
}

/* ---- origin side ---- */

ompi_osc_newrma_region_t *ompi_osc_newrma_region_cache_find(opal_list_t *cache, uint64_t lo,
                                                            uint64_t hi)
{
    ompi_osc_newrma_region_t *region =
        NULL != cache ? ompi_osc_newrma_region_find(cache, lo, hi) : NULL;

    if (NULL != region && &region->super != opal_list_get_last(cache)) {
        opal_list_remove_item(cache, &region->super);
        opal_list_append(cache, &region->super);
    }
    return region;
}

int ompi_osc_newrma_region_cache_add(opal_list_t **cache, ompi_osc_newrma_region_t *region,
                                     unsigned int max)
{
    opal_list_item_t *oldest;

    if (NULL == *cache && NULL == (*cache = OBJ_NEW(opal_list_t))) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    while (opal_list_get_size(*cache) >= (size_t) (max > 0 ? max : 1)) {
        oldest = opal_list_remove_first(*cache);
        OBJ_RELEASE(oldest);
    }
    opal_list_append(*cache, &region->super);
    return OMPI_SUCCESS;
}

int ompi_osc_newrma_region_cache_drop(opal_list_t *cache, uint64_t lo, uint64_t hi)
{
    ompi_osc_newrma_region_t *region, *next;
    int dropped = 0;

    if (NULL == cache) {
        return 0;
    }
    OPAL_LIST_FOREACH_SAFE(region, next, cache, ompi_osc_newrma_region_t)
    {
        if (region->base < hi && lo < region->base + region->len) {
            opal_list_remove_item(cache, &region->super);
            OBJ_RELEASE(region);
            ++dropped;
        }
    }
    return dropped;
}

void ompi_osc_newrma_region_cache_clear(opal_list_t **cache)
{
    opal_list_item_t *item;

    if (NULL == *cache) {
        return;
    }
    while (NULL != (item = opal_list_remove_first(*cache))) {
        OBJ_RELEASE(item);
    }
    OBJ_RELEASE(*cache);
    *cache = NULL;
}
