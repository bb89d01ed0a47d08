/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: the window's peer entries, made on first touch.
 *
 * A window keeps an entry (ompi_osc_newrma_peer_t: what it learnt of the
 * peer's window, its endpoint, its lock state) only for the ranks it has
 * touched: pointers sorted by rank (a binary search), in front of which a
 * fixed cache of OMPI_OSC_NEWRMA_PEER_CACHE pointers (indexed by rank)
 * answers the common case with two loads (ompi_osc_newrma_peer in
 * osc_newrma.h).  So per-window memory grows with the peers touched, never
 * with the number of ranks.  Not an opal_hash_table_t: its smallest table
 * is 31 buckets of 32 bytes, a kilobyte per window before any peer.
 * Entries never move and live until the window is freed, so a pointer to
 * one stays valid.  Making one takes the window's PEERS mutex, a leaf: the
 * agent (without the window lock) and the window's owner may both make
 * entries.
 */
#ifndef OMPI_OSC_NEWRMA_BASE_PEER_H
#define OMPI_OSC_NEWRMA_BASE_PEER_H

#include "ompi_config.h"

#include "osc_newrma_base_types.h"

struct ompi_osc_newrma_peer_t;

/** Slots of the window's peer cache (a power of two). */
#define OMPI_OSC_NEWRMA_PEER_CACHE 32

/** The empty table (window creation). */
int ompi_osc_newrma_peers_init(ompi_osc_newrma_module_t *module);

/** Free every entry, after @p release has freed what it holds (window
 * destruction; no other thread uses the window any more). */
void ompi_osc_newrma_peers_fini(ompi_osc_newrma_module_t *module,
                                void (*release)(struct ompi_osc_newrma_peer_t *peer));

/** @p rank's entry, made (zeroed, its lists constructed) if it has none
 * yet; NULL when it cannot be allocated. */
struct ompi_osc_newrma_peer_t *ompi_osc_newrma_peer_make(ompi_osc_newrma_module_t *module,
                                                         int rank);

/** @p rank's entry if it has one, else NULL (nothing is made). */
struct ompi_osc_newrma_peer_t *ompi_osc_newrma_peer_find(ompi_osc_newrma_module_t *module,
                                                         int rank);

/** Call @p fn on every entry the window holds (under PEERS: @p fn takes
 * no mutex and makes no entry). */
void ompi_osc_newrma_peers_foreach(ompi_osc_newrma_module_t *module,
                                   void (*fn)(struct ompi_osc_newrma_peer_t *peer, void *arg),
                                   void *arg);

/** How many entries the window holds (statistics, tests). */
size_t ompi_osc_newrma_peers_count(ompi_osc_newrma_module_t *module);

#endif /* OMPI_OSC_NEWRMA_BASE_PEER_H */
