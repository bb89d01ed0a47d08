/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * MPI_Win_lock / MPI_Win_unlock epochs to every target (myself included):
 *   1. single-op epochs: one short PUT, then one short GET (shared and
 *      exclusive locks alternate);
 *   2. multi-op epochs: several PUTs of contiguous and strided layouts,
 *      then GETs of them after MPI_Win_flush, in one epoch;
 *   3. MPI_MODE_NOCHECK epochs;
 *   4. an empty epoch, and an epoch with only a flush.
 * Every rank owns a disjoint slice of every target's window, so the data
 * each rank reads back is fully determined.
 *
 * usage: lock_putget FLAVOR
 */
#include "mtest.h"

#define SLICE 8192 /* bytes of each target window owned by one origin */

static void check_bytes(const unsigned char *got, uint32_t seed, size_t len, const char *what,
                        int target)
{
    size_t i = mtest_pattern_mismatch(got, len, seed);

    if (i < len) {
        mtest_error("%s, target %d: byte %zu is %u, expected %u", what, target, i, got[i],
                    mtest_pattern(seed, i));
    }
}

/* One PUT (or GET) alone in its epoch: the single-op path. */
static void single_ops(mtest_win_t *w, int me, int nprocs)
{
    unsigned char buf[64], got[64];

    for (int t = 0; t < nprocs; ++t) {
        int type = (t + me) % 2 ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED;
        MPI_Aint disp = w->disp0[t] + (MPI_Aint) me * SLICE;
        uint32_t seed = 1000u + (uint32_t) (me * 64 + t);

        mtest_fill(buf, sizeof(buf), seed);
        MPI_CHECK(MPI_Win_lock(type, t, 0, w->win));
        MPI_CHECK(MPI_Put(buf, 8, MPI_DOUBLE, t, disp, 8, MPI_DOUBLE, w->win));
        MPI_CHECK(MPI_Win_unlock(t, w->win));

        memset(got, 0, sizeof(got));
        MPI_CHECK(MPI_Win_lock(type, t, 0, w->win));
        MPI_CHECK(MPI_Get(got, 16, MPI_INT, t, disp, 16, MPI_INT, w->win));
        MPI_CHECK(MPI_Win_unlock(t, w->win));
        check_bytes(got, seed, sizeof(got), "single-op put/get", t);
    }
}

/* Several ops, contiguous and strided, a flush, then GETs in the same epoch. */
static void multi_ops(mtest_win_t *w, int me, int nprocs, int mode)
{
    int n = SLICE / 2 / (int) sizeof(int);
    int *src = malloc(SLICE), *got = malloc(SLICE), *expect = malloc(SLICE);
    MPI_Datatype vec;

    MPI_Type_vector(n / 2, 1, 2, MPI_INT, &vec); /* every other int */
    MPI_Type_commit(&vec);
    for (int t = 0; t < nprocs; ++t) {
        MPI_Aint disp = w->disp0[t] + (MPI_Aint) me * SLICE;
        uint32_t seed = 5000u + (uint32_t) (me * 64 + t) + (uint32_t) mode * 7u;

        mtest_fill(src, SLICE, seed);
        /* expected slice: first half contiguous, second half: even ints from
         * the strided put, odd ints from the contiguous one before it */
        memcpy(expect, src, SLICE);
        for (int i = 0; i < n; i += 2) {
            expect[n + i] = src[n + i / 2 + n / 2];
        }
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, mode, w->win));
        MPI_CHECK(MPI_Put(src, n, MPI_INT, t, disp, n, MPI_INT, w->win));
        MPI_CHECK(
            MPI_Put(src + n, n, MPI_INT, t, disp + n * (MPI_Aint) sizeof(int), n, MPI_INT, w->win));
        /* the strided put overlaps the one before: order them */
        MPI_CHECK(MPI_Win_flush(t, w->win));
        MPI_CHECK(MPI_Put(src + n + n / 2, n / 2, MPI_INT, t, disp + n * (MPI_Aint) sizeof(int), 1,
                          vec, w->win));
        MPI_CHECK(MPI_Win_flush(t, w->win));
        memset(got, 0xff, SLICE);
        MPI_CHECK(MPI_Get(got, n, MPI_INT, t, disp, n, MPI_INT, w->win));
        MPI_CHECK(
            MPI_Get(got + n, n, MPI_INT, t, disp + n * (MPI_Aint) sizeof(int), n, MPI_INT, w->win));
        MPI_CHECK(MPI_Win_unlock(t, w->win));
        for (int i = 0; i < 2 * n; ++i) {
            if (got[i] != expect[i]) {
                mtest_error("multi-op epoch (mode %d), target %d: int %d is %d, expected %d", mode,
                            t, i, got[i], expect[i]);
                break;
            }
        }
    }
    MPI_Type_free(&vec);
    free(src);
    free(got);
    free(expect);
}

/* Empty epochs and flush-only epochs must not hang or send anything wrong. */
static void empty_epochs(mtest_win_t *w, int nprocs)
{
    for (int t = 0; t < nprocs; ++t) {
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w->win));
        MPI_CHECK(MPI_Win_unlock(t, w->win));
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w->win));
        MPI_CHECK(MPI_Win_flush(t, w->win));
        MPI_CHECK(MPI_Win_flush_local(t, w->win));
        MPI_CHECK(MPI_Win_unlock(t, w->win));
    }
}

/* Locks on several targets at once (PER_TARGET with many target elements). */
static void many_targets(mtest_win_t *w, int me, int nprocs)
{
    long *vals = calloc((size_t) nprocs, sizeof(long)),
         *got = calloc((size_t) nprocs, sizeof(long));

    for (int t = 0; t < nprocs; ++t) {
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w->win));
    }
    for (int t = 0; t < nprocs; ++t) {
        vals[t] = 77 * me + t;
        MPI_CHECK(MPI_Put(&vals[t], 1, MPI_LONG, t, w->disp0[t] + (MPI_Aint) me * SLICE + 4096, 1,
                          MPI_LONG, w->win));
    }
    MPI_CHECK(MPI_Win_flush_all(w->win));
    for (int t = 0; t < nprocs; ++t) {
        MPI_CHECK(MPI_Get(&got[t], 1, MPI_LONG, t, w->disp0[t] + (MPI_Aint) me * SLICE + 4096, 1,
                          MPI_LONG, w->win));
    }
    for (int t = nprocs - 1; t >= 0; --t) {
        MPI_CHECK(MPI_Win_unlock(t, w->win));
    }
    for (int t = 0; t < nprocs; ++t) {
        MTEST_CHECK(got[t] == vals[t], "many targets: target %d holds %ld, expected %ld", t, got[t],
                    vals[t]);
    }
    free(vals);
    free(got);
}

int main(int argc, char **argv)
{
    mtest_win_t w;
    int me, nprocs;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    mtest_win_create(&w, argc > 1 ? argv[1] : "allocate", (size_t) SLICE * nprocs, MPI_INFO_NULL,
                     MPI_COMM_WORLD);
    MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN);

    single_ops(&w, me, nprocs);
    multi_ops(&w, me, nprocs, 0);
    multi_ops(&w, me, nprocs, MPI_MODE_NOCHECK);
    empty_epochs(&w, nprocs);
    many_targets(&w, me, nprocs);

    /* every origin's last single-op PUT is still visible to a fence reader */
    MPI_Barrier(MPI_COMM_WORLD);
    mtest_win_free(&w);
    return mtest_finalize();
}
