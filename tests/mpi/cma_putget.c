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
 * Each lone one of 128 KiB or more is the copy or UCX's transfer,
 * whichever was faster lately (osc_newrma_cma_pick: both are tried); with
 * "copy", always the copy.  With "small", osc_newrma_cma_bytes is 1 KiB (as
 * the probe sets it where the copy is cheap) and the sizes are 1023 bytes
 * (the target's mailbox), 1024 and 2056 (the copy from the call), 32776 and
 * 65544 (the copy of a queued op): the window's ops_mailbox counter must not
 * count more than the 1023-byte accesses.
 * Usage: cma_putget FLAVOR [copy|small] */
#include <mpi.h>
#include <stdbool.h>
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
    static const size_t large[] = {32767, 32768, 65544, MAX_BYTES};
    static const size_t small[] = {1023, 1024, 2056, 32776, 65544};
    static const char *const syncs[] = {"lock", "lockall", "fence", "pscw"};
    const char *flavor = argc > 1 ? argv[1] : "create";
    const char *mode = argc > 2 ? argv[2] : "";
    bool is_small = 0 == strcmp(mode, "small");
    const size_t *sizes = is_small ? small : large;
    size_t nsizes = is_small ? sizeof(small) / sizeof(small[0]) : sizeof(large) / sizeof(large[0]);
    unsigned long long lone_small = 0;
    MPI_T_pvar_session session;
    MPI_T_pvar_handle mailbox;
    const char *counter = "osc_newrma_win_ops_mailbox";
    mtest_win_t w;
    int provided;

    /* 32 KiB (1 KiB: "small") unless the caller chose a value; the copy
     * taken as dear, so that from 128 KiB both ways take turns, or
     * ("small") as cheap, so that it is always the copy */
    setenv("OMPI_MCA_osc_newrma_cma_bytes", is_small ? "1024" : "32768", 0);
    setenv("OMPI_MCA_osc_newrma_cma_cheap", is_small ? "1" : "0", 0);
    if (0 == strcmp(mode, "copy")) {
        /* always the copy, not the faster of it and UCX's transfer lately */
        setenv("OMPI_MCA_osc_newrma_cma_pick", "0", 1);
    }
    mtest_init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    right = (mtest_rank + 1) % nprocs;
    left = (mtest_rank + nprocs - 1) % nprocs;
    origin = malloc(MAX_BYTES);
    got = malloc(MAX_BYTES);
    mine = malloc(MAX_BYTES);
    mtest_win_counted(&w, flavor, WIN_BYTES, counter, &session, &mailbox);

    for (size_t s = 0; s < nsizes; ++s) {
        for (size_t k = 0; k < sizeof(syncs) / sizeof(syncs[0]); ++k) {
            for (int ops = 1; ops <= 3; ++ops) { /* 1: PUT, 2: GET, 3: both */
                one_epoch(&w, mtest_sync(syncs[k]), sizes[s], ops,
                          (uint32_t) (s * 64 + k * 4 + (size_t) ops) << 8);
                lone_small += sizes[s] < 1024 ? (3 == ops ? 2 : 1) : 0;
            }
        }
    }
    if (is_small && mtest_pvar_read(session, mailbox) > lone_small) {
        mtest_error("%llu accesses through the mailbox, at most %llu expected (1023 bytes)",
                    mtest_pvar_read(session, mailbox), lone_small);
    }

    mtest_win_counted_free(&w, &session, &mailbox);
    MPI_T_finalize();
    free(origin);
    free(got);
    free(mine);
    return mtest_finalize();
}
