/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: the window's peer entries (see osc_newrma_base_peer.h).
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "opal/sys/atomic.h"

#include "osc_newrma.h"
#include "osc_newrma_base_mutex.h"
#include "osc_newrma_base_peer.h"

int ompi_osc_newrma_peers_init(ompi_osc_newrma_module_t *module)
{
    OBJ_CONSTRUCT(&module->peers_lock, opal_mutex_t);
    module->peer_index = NULL;
    module->peer_count = 0;
    module->peer_capacity = 0;
    module->peers_ready = true;
    for (int i = 0; i < OMPI_OSC_NEWRMA_PEER_CACHE; ++i) {
        module->peer_cache[i] = NULL;
    }
    return OMPI_SUCCESS;
}

void ompi_osc_newrma_peers_fini(ompi_osc_newrma_module_t *module,
                                void (*release)(ompi_osc_newrma_peer_t *peer))
{
    if (!module->peers_ready) {
        return;
    }
    for (int i = 0; i < module->peer_count; ++i) {
        ompi_osc_newrma_peer_t *peer = module->peer_index[i];

        release(peer);
        OBJ_DESTRUCT(&peer->locked_item);
        free(peer);
    }
    free(module->peer_index);
    module->peer_index = NULL;
    module->peer_count = 0;
    OBJ_DESTRUCT(&module->peers_lock);
    module->peers_ready = false;
}

/* Where @p rank's entry is in the index, or would be inserted (PEERS held). */
static int peer_position(const ompi_osc_newrma_module_t *module, int rank)
{
    int lo = 0, hi = module->peer_count;

    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;

        if (module->peer_index[mid]->rank < rank) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

static ompi_osc_newrma_peer_t *peer_lookup(ompi_osc_newrma_module_t *module, int rank)
{
    int at = peer_position(module, rank);

    return at < module->peer_count && module->peer_index[at]->rank == rank ? module->peer_index[at]
                                                                           : NULL;
}

/* Room for one more pointer in the index, doubling (PEERS held). */
static int peer_index_grow(ompi_osc_newrma_module_t *module)
{
    int capacity = module->peer_capacity > 0 ? 2 * module->peer_capacity : 4;
    ompi_osc_newrma_peer_t **index;

    if (module->peer_count < module->peer_capacity) {
        return OMPI_SUCCESS;
    }
    index = realloc(module->peer_index, sizeof(*index) * (size_t) capacity);
    if (NULL == index) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    module->peer_index = index;
    module->peer_capacity = capacity;
    return OMPI_SUCCESS;
}

static ompi_osc_newrma_peer_t *peer_new(ompi_osc_newrma_module_t *module, int rank)
{
    int at = peer_position(module, rank);
    ompi_osc_newrma_peer_t *peer;

    if (OMPI_SUCCESS != peer_index_grow(module) || NULL == (peer = calloc(1, sizeof(*peer)))) {
        return NULL;
    }
    peer->rank = rank;
    /* a window all in one node's segment of its control part only: its
     * node rank r is window rank r, whose lock word is there (myself and the
     * peers of a window in the segment get theirs when it is placed) */
    if (ompi_osc_newrma_shm_indirect(&module->shm)) {
        peer->lock = ompi_osc_newrma_shm_lock_word(module->shm.seg_base, rank);
    }
    OBJ_CONSTRUCT(&peer->locked_item, opal_list_item_t);
    memmove(&module->peer_index[at + 1], &module->peer_index[at],
            sizeof(module->peer_index[0]) * (size_t) (module->peer_count - at));
    module->peer_index[at] = peer;
    module->peer_count++;
    return peer;
}

ompi_osc_newrma_peer_t *ompi_osc_newrma_peer_make(ompi_osc_newrma_module_t *module, int rank)
{
    ompi_osc_newrma_peer_t *peer;

    ompi_osc_newrma_mutex_lock(&module->peers_lock, OMPI_OSC_NEWRMA_MUTEX_PEERS);
    peer = peer_lookup(module, rank);
    if (NULL == peer) {
        peer = peer_new(module, rank);
    }
    if (NULL != peer) {
        opal_atomic_wmb(); /* the entry is whole before the cache shows it */
        module->peer_cache[rank & (OMPI_OSC_NEWRMA_PEER_CACHE - 1)] = peer;
    }
    ompi_osc_newrma_mutex_unlock(&module->peers_lock, OMPI_OSC_NEWRMA_MUTEX_PEERS);
    return peer;
}

ompi_osc_newrma_peer_t *ompi_osc_newrma_peer_find(ompi_osc_newrma_module_t *module, int rank)
{
    ompi_osc_newrma_peer_t *peer = module->peer_cache[rank & (OMPI_OSC_NEWRMA_PEER_CACHE - 1)];

    if (NULL != peer && peer->rank == rank) {
        return peer;
    }
    ompi_osc_newrma_mutex_lock(&module->peers_lock, OMPI_OSC_NEWRMA_MUTEX_PEERS);
    peer = peer_lookup(module, rank);
    ompi_osc_newrma_mutex_unlock(&module->peers_lock, OMPI_OSC_NEWRMA_MUTEX_PEERS);
    return peer;
}

void ompi_osc_newrma_peers_foreach(ompi_osc_newrma_module_t *module,
                                   void (*fn)(ompi_osc_newrma_peer_t *peer, void *arg), void *arg)
{
    ompi_osc_newrma_mutex_lock(&module->peers_lock, OMPI_OSC_NEWRMA_MUTEX_PEERS);
    for (int i = 0; i < module->peer_count; ++i) {
        fn(module->peer_index[i], arg);
    }
    ompi_osc_newrma_mutex_unlock(&module->peers_lock, OMPI_OSC_NEWRMA_MUTEX_PEERS);
}

size_t ompi_osc_newrma_peers_count(ompi_osc_newrma_module_t *module)
{
    size_t n;

    ompi_osc_newrma_mutex_lock(&module->peers_lock, OMPI_OSC_NEWRMA_MUTEX_PEERS);
    n = (size_t) module->peer_count;
    ompi_osc_newrma_mutex_unlock(&module->peers_lock, OMPI_OSC_NEWRMA_MUTEX_PEERS);
    return n;
}
