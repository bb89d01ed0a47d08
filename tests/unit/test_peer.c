/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/* Unit test of the window's peer entries (osc_newrma_base_peer.h): made on
 * first touch, found again through the cache or the table whatever ranks
 * share a cache slot, counted, walked and freed. */
#include "ompi_config.h"

#include <stdlib.h>

#include "ompi/constants.h"
#include "opal/runtime/opal.h"

#include "osc_newrma.h"
#include "osc_newrma_base_peer.h"
#include "unit.h"

/* ranks far apart and sharing cache slots (OMPI_OSC_NEWRMA_PEER_CACHE apart) */
static const int ranks[] = {
    0, 5, 5 + OMPI_OSC_NEWRMA_PEER_CACHE, 5 + 2 * OMPI_OSC_NEWRMA_PEER_CACHE, 1000, 1000000, 31};
#define NRANKS ((int) (sizeof(ranks) / sizeof(ranks[0])))

static int walked, released;

static void walk(ompi_osc_newrma_peer_t *peer, void *arg)
{
    int *sum = arg;

    walked++;
    *sum += peer->rank;
}

static void release(ompi_osc_newrma_peer_t *peer)
{
    CHECK(NULL == peer->regions); /* made by a dynamic window's first region only */
    released++;
}

int main(int argc, char **argv)
{
    ompi_osc_newrma_module_t *module = calloc(1, sizeof(*module));
    ompi_osc_newrma_peer_t *made[NRANKS];
    int sum = 0, want = 0;

    opal_init_util(&argc, &argv);
    CHECK(NULL != module);
    CHECK(OMPI_SUCCESS == ompi_osc_newrma_peers_init(module));
    CHECK(0 == ompi_osc_newrma_peers_count(module));
    CHECK(NULL == ompi_osc_newrma_peer_find(module, 5));
    for (int i = 0; i < NRANKS; ++i) {
        made[i] = ompi_osc_newrma_peer(module, ranks[i]);
        CHECK(NULL != made[i] && made[i]->rank == ranks[i]);
        CHECK(!made[i]->info_known && NULL == made[i]->lock && 0 == made[i]->lock_type);
        made[i]->lock_seq = 100 + i; /* state kept in the entry */
        want += ranks[i];
    }
    /* the cache slot of 5 now holds a later rank: 5 still comes back */
    for (int i = 0; i < NRANKS; ++i) {
        CHECK(ompi_osc_newrma_peer(module, ranks[i]) == made[i]);
        CHECK(ompi_osc_newrma_peer_find(module, ranks[i]) == made[i]);
        CHECK(made[i]->lock_seq == 100 + i);
    }
    CHECK(NULL == ompi_osc_newrma_peer_find(module, 6));
    CHECK(NULL == ompi_osc_newrma_peer_find(module, 5 + 3 * OMPI_OSC_NEWRMA_PEER_CACHE));
    CHECK(NRANKS == (int) ompi_osc_newrma_peers_count(module));
    ompi_osc_newrma_peers_foreach(module, walk, &sum);
    CHECK(NRANKS == walked && want == sum);
    ompi_osc_newrma_peers_fini(module, release);
    CHECK(NRANKS == released);
    free(module);
    opal_finalize_util();
    return unit_finish("test_peer");
}
