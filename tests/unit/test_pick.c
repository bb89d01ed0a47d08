/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/* Unit test of the choice between two ways by their measured times
 * (osc_newrma_base_pick.h): both are tried first, the faster is taken,
 * briefly the first time, the other is tried again after a stay and taken
 * when it has become the faster, the first transfer after a change of way
 * does not count, and a new pick starts from what an earlier one learned. */
#include <stdbool.h>
#include <stdint.h>

#include "osc_newrma_base_pick.h"
#include "unit.h"

#define KIB 1024

/* One transfer of 1 KiB by the picked way, taking @p ns[way] ns. */
static int step(ompi_osc_newrma_pick_t *p, const uint64_t ns[2])
{
    int way = ompi_osc_newrma_pick(p);

    ompi_osc_newrma_pick_record(p, way, KIB, ns[way]);
    return way;
}

/* Both ways are tried, each for a trial, way 0 first. */
static void trials_first(void)
{
    ompi_osc_newrma_pick_t p;
    const uint64_t ns[2] = {100, 200};

    ompi_osc_newrma_pick_init(&p);
    for (int i = 0; i < OMPI_OSC_NEWRMA_PICK_TRIAL; ++i) {
        CHECK(0 == step(&p, ns));
    }
    for (int i = 0; i < OMPI_OSC_NEWRMA_PICK_TRIAL; ++i) {
        CHECK(1 == step(&p, ns));
    }
    CHECK(100 == p.ns_per_kib[0] && 200 == p.ns_per_kib[1]);
}

/* The first trials over (the first stay too: @p first_stay); @return the
 * steps taken. */
static int past_first(ompi_osc_newrma_pick_t *p, const uint64_t ns[2], bool first_stay)
{
    int n = 2 * OMPI_OSC_NEWRMA_PICK_TRIAL +
            (first_stay ? OMPI_OSC_NEWRMA_PICK_FIRST_STAY + OMPI_OSC_NEWRMA_PICK_TRIAL : 0);

    ompi_osc_newrma_pick_init(p);
    for (int i = 0; i < n; ++i) {
        step(p, ns);
    }
    return n;
}

/* The faster is taken for a stay, then the slower tried for a trial. */
static void stay_then_trial(void)
{
    ompi_osc_newrma_pick_t p;
    const uint64_t ns[2] = {300, 100};
    int counts[2] = {0, 0};

    past_first(&p, ns, true);
    for (int i = 0; i < OMPI_OSC_NEWRMA_PICK_STAY; ++i) {
        CHECK(1 == step(&p, ns));
    }
    for (int i = 0; i < OMPI_OSC_NEWRMA_PICK_TRIAL; ++i) {
        counts[step(&p, ns)]++;
    }
    CHECK(OMPI_OSC_NEWRMA_PICK_TRIAL == counts[0]);
    CHECK(1 == step(&p, ns)); /* still the faster */
}

/* Each trial the slower way loses doubles the next stay, up to the most;
 * a trial it wins brings the stay back. */
static void stays_grow(void)
{
    ompi_osc_newrma_pick_t p;
    uint64_t ns[2] = {300, 100};
    uint32_t stay = OMPI_OSC_NEWRMA_PICK_STAY;

    past_first(&p, ns, true);
    for (int round = 0; round < 8; ++round) {
        int run = 0;

        while (1 == step(&p, ns)) { /* the stay, then the first of the trial */
            run++;
        }
        CHECK((uint32_t) run == stay);
        for (int i = 1; i < OMPI_OSC_NEWRMA_PICK_TRIAL; ++i) {
            CHECK(0 == step(&p, ns));
        }
        stay = 2 * stay < OMPI_OSC_NEWRMA_PICK_STAY_MAX ? 2 * stay : OMPI_OSC_NEWRMA_PICK_STAY_MAX;
    }
    CHECK(OMPI_OSC_NEWRMA_PICK_STAY_MAX == stay);
    ns[0] = 10; /* the next trial way 0 wins: stays of the usual length */
    while (1 == step(&p, ns)) {
    }
    for (int i = 1; i < OMPI_OSC_NEWRMA_PICK_TRIAL; ++i) {
        step(&p, ns);
    }
    for (int i = 0; i < OMPI_OSC_NEWRMA_PICK_STAY; ++i) {
        CHECK(0 == step(&p, ns));
    }
    CHECK(1 == step(&p, ns));
}

/* A change of speed is noticed at the next trial: way 0, slower at
 * first, becomes the faster and is then taken. */
static void follows_a_change(void)
{
    ompi_osc_newrma_pick_t p;
    uint64_t ns[2] = {300, 100};
    int last = -1;

    past_first(&p, ns, true);
    for (int i = 0; i < OMPI_OSC_NEWRMA_PICK_STAY; ++i) {
        step(&p, ns);
    }
    ns[0] = 50; /* way 0 became faster */
    for (int i = 0; i < OMPI_OSC_NEWRMA_PICK_TRIAL + 1; ++i) {
        last = step(&p, ns);
    }
    CHECK(0 == last);
    CHECK(p.ns_per_kib[0] < p.ns_per_kib[1]);
}

/* The first stay is short: way 0, the faster, met cold pages in its first
 * trial and lost it; tried again after that stay, it wins and is taken for
 * a whole stay. */
static void first_stay_short(void)
{
    ompi_osc_newrma_pick_t p;
    uint64_t ns[2] = {300, 100};
    int run = 0;

    past_first(&p, ns, false);
    ns[0] = 50;                 /* warm now */
    while (1 == step(&p, ns)) { /* the first stay, then the first of the trial */
        run++;
    }
    CHECK(OMPI_OSC_NEWRMA_PICK_FIRST_STAY == run);
    for (int i = 1; i < OMPI_OSC_NEWRMA_PICK_TRIAL; ++i) {
        CHECK(0 == step(&p, ns));
    }
    for (int i = 0; i < OMPI_OSC_NEWRMA_PICK_STAY; ++i) {
        CHECK(0 == step(&p, ns));
    }
    CHECK(1 == step(&p, ns));
}

/* The first transfer after a change of way does not count: a slow first
 * one (set-up) leaves the average alone. */
static void first_not_counted(void)
{
    ompi_osc_newrma_pick_t p;

    ompi_osc_newrma_pick_init(&p);
    CHECK(0 == ompi_osc_newrma_pick(&p));
    ompi_osc_newrma_pick_record(&p, 0, KIB, 5000); /* set-up */
    CHECK(0 == p.ns_per_kib[0]);
    ompi_osc_newrma_pick_record(&p, 0, 2 * KIB, 200);
    CHECK(100 == p.ns_per_kib[0]);
    /* a faster sample weighs three quarters, a slower one a quarter */
    ompi_osc_newrma_pick_record(&p, 0, KIB, 60);
    CHECK(70 == p.ns_per_kib[0]);
    ompi_osc_newrma_pick_record(&p, 0, KIB, 170);
    CHECK(95 == p.ns_per_kib[0]);
    ompi_osc_newrma_pick_record(&p, 1, KIB, 10); /* way 1's first */
    CHECK(0 == p.ns_per_kib[1]);
    ompi_osc_newrma_pick_record(&p, 0, KIB, 1000); /* back to 0: its first again */
    CHECK(95 == p.ns_per_kib[0]);
}

/* A new window starts from what an earlier one learned: the faster way at
 * once, for a usual stay, then the other tried; nothing learned
 * (one way never measured) is a fresh start. */
static void seeded(void)
{
    ompi_osc_newrma_pick_t p, learned, q;
    const uint64_t ns[2] = {300, 100};
    int run = 0;

    ompi_osc_newrma_pick_init(&learned);
    past_first(&p, ns, true);
    for (int i = 0; i < 3 * OMPI_OSC_NEWRMA_PICK_STAY; ++i) {
        step(&p, ns);
    }
    ompi_osc_newrma_pick_learn(&learned, &p);
    CHECK(100 == learned.ns_per_kib[1] && learned.stay > OMPI_OSC_NEWRMA_PICK_STAY);
    ompi_osc_newrma_pick_seed(&q, &learned);
    while (1 == step(&q, ns)) {
        run++;
    }
    CHECK(OMPI_OSC_NEWRMA_PICK_STAY == run); /* a usual stay, not the one reached */
    for (int i = 1; i < OMPI_OSC_NEWRMA_PICK_TRIAL; ++i) {
        CHECK(0 == step(&q, ns));
    }
    CHECK(1 == step(&q, ns));

    ompi_osc_newrma_pick_init(&p); /* way 0 measured only */
    step(&p, ns);
    step(&p, ns);
    ompi_osc_newrma_pick_learn(&learned, &p); /* keeps the earlier lesson */
    CHECK(100 == learned.ns_per_kib[1]);
    ompi_osc_newrma_pick_init(&learned);
    ompi_osc_newrma_pick_learn(&learned, &p);
    ompi_osc_newrma_pick_seed(&q, &learned);
    for (int i = 0; i < OMPI_OSC_NEWRMA_PICK_TRIAL; ++i) {
        CHECK(0 == step(&q, ns)); /* the first trials, as a fresh pick */
    }
    CHECK(1 == step(&q, ns));
}

int main(void)
{
    trials_first();
    stay_then_trial();
    stays_grow();
    follows_a_change();
    first_stay_short();
    first_not_counted();
    seeded();
    return unit_finish("test_pick");
}
