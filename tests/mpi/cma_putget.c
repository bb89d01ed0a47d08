/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/* Large contiguous PUTs and GETs between node-local ranks whose window
 * memory is their own (create and dynamic windows): from
 * osc_newrma_cma_bytes (set to 32 KiB here) up, one that is alone in its
 * target's queue is a cross-memory copy; with others queued they go by UCX.
 * Sizes on both sides of that threshold, at an odd offset, in every kind of
 * epoch, in three epochs each: each rank PUTs its pattern into its right
 * neighbour's first region (alone), GETs the right neighbour's second region
 * (alone), then does both in one epoch; it checks what it got and what its
 * left neighbour put after each.
 * Each lone one is the copy or UCX's transfer, whichever was faster lately
 * (osc_newrma_cma_pick: both are tried); with "copy", always the copy.
 * Usage: cma_putget FLAVOR [copy] */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define MAX_BYTES ((1 << 20) + 24)
#define PUT_AT    8
#define GET_AT    (PUT_AT + MAX_BYTES + 8)
#define WIN_BYTES (GET_AT + MAX_BYTES)

static void check(const unsigned char *got, size_t n, uint32_t seed, const char *what, int sync,
                  size_t size)
{
    unsigned char *want = malloc(n);

    mtest_fill(want, n, seed);
    for (size_t i = 0; i < n; ++i) {
        if (got[i] != want[i]) {
            mtest_error("%s of %zu bytes (sync %d): byte %zu is %u, expected %u", what, size, sync,
                        i, got[i], want[i]);
            break;
        }
    }
    free(want);
}

static int nprocs, right, left;
static unsigned char *origin, *got, *mine;

/* One epoch of @p n bytes: the PUT (ops & 1), the GET (ops & 2), checked. */
static void one_epoch(mtest_win_t *w, int sync, size_t n, int ops, uint32_t round)
{
    mtest_fill(origin, n, round | (uint32_t) mtest_rank);
    mtest_fill(mine, n, round | 0x80 | (uint32_t) mtest_rank);
    mtest_local_store(w, GET_AT, mine, n);
    memset(mine, 0, n);
    mtest_local_store(w, PUT_AT, mine, n);
    memset(got, 0, n);
    MPI_Barrier(MPI_COMM_WORLD);
    mtest_epoch_begin(w->win, sync);
    mtest_op_begin(w->win, sync, right);
    if (ops & 1) {
        MPI_CHECK(MPI_Put(origin, (int) n, MPI_BYTE, right, w->disp0[right] + PUT_AT, (int) n,
                          MPI_BYTE, w->win));
    }
    if (ops & 2) {
        MPI_CHECK(MPI_Get(got, (int) n, MPI_BYTE, right, w->disp0[right] + GET_AT, (int) n,
                          MPI_BYTE, w->win));
    }
    mtest_op_end(w->win, sync, right);
    mtest_epoch_end(w->win, sync);
    if (ops & 2) {
        check(got, n, round | 0x80 | (uint32_t) right, "GET", sync, n);
    }
    if (ops & 1) {
        MPI_Barrier(MPI_COMM_WORLD); /* the left neighbour's PUT is complete */
        mtest_local_load(w, PUT_AT, mine, n);
        check(mine, n, round | (uint32_t) left, "PUT", sync, n);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = {32767, 32768, 65544, MAX_BYTES};
    static const char *const syncs[] = {"lock", "lockall", "fence", "pscw"};
    const char *flavor = argc > 1 ? argv[1] : "create";
    mtest_win_t w;

    /* 32 KiB (the default is larger) unless the caller chose a value */
    setenv("OMPI_MCA_osc_newrma_cma_bytes", "32768", 0);
    if (argc > 2 && 0 == strcmp(argv[2], "copy")) {
        /* always the copy, not the faster of it and UCX's transfer lately */
        setenv("OMPI_MCA_osc_newrma_cma_pick", "0", 1);
    }
    mtest_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    right = (mtest_rank + 1) % nprocs;
    left = (mtest_rank + nprocs - 1) % nprocs;
    origin = malloc(MAX_BYTES);
    got = malloc(MAX_BYTES);
    mine = malloc(MAX_BYTES);
    mtest_win_create(&w, flavor, WIN_BYTES, MPI_INFO_NULL, MPI_COMM_WORLD);

    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); ++s) {
        for (size_t k = 0; k < sizeof(syncs) / sizeof(syncs[0]); ++k) {
            for (int ops = 1; ops <= 3; ++ops) { /* 1: PUT, 2: GET, 3: both */
                one_epoch(&w, mtest_sync(syncs[k]), sizes[s], ops,
                          (uint32_t) (s * 64 + k * 4 + (size_t) ops) << 8);
            }
        }
    }

    mtest_win_free(&w);
    free(origin);
    free(got);
    free(mine);
    return mtest_finalize();
}
