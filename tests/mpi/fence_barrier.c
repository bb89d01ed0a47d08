/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * MPI_Win_fence separates every rank's local stores from the other ranks'
 * reads (argv[1]: window flavor; argv[2]: fences in a row, default 4000).
 * Each round every rank stores the round's number into its own window
 * memory, fences, reads every other rank's number with MPI_Get and fences
 * again: a fence that let a rank through before the others arrived makes it
 * read the round before's number (the first fence) or the round after's
 * (the second, which a fast rank's next store overtakes).  The asserts
 * cycle through those the program keeps: NOPUT before the reads, NOSTORE
 * and NOPUT after them, NOPRECEDE on the first fence.  On one node the
 * fence is the segment's barrier, whatever the number of ranks (1, 2 or
 * more rounds of it); elsewhere its collective.
 */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rounds = argc > 2 ? atoi(argv[2]) : 4000, n, me;
    mtest_win_t w;
    int32_t *got;

    mtest_init(&argc, &argv);
    if (argc < 2) {
        fprintf(stderr, "usage: fence_barrier FLAVOR [ROUNDS]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    mtest_win_create(&w, argv[1], sizeof(int32_t), MPI_INFO_NULL, MPI_COMM_WORLD);
    got = calloc((size_t) n, sizeof(int32_t));
    *(int32_t *) w.base = -1;
    MPI_CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, w.win));
    for (int r = 0; r < rounds && mtest_errors < 10; ++r) {
        *(volatile int32_t *) w.base = r;
        MPI_CHECK(MPI_Win_fence(r % 2 ? MPI_MODE_NOPUT : 0, w.win));
        for (int t = 0; t < n; ++t) {
            if (t != me) {
                MPI_CHECK(MPI_Get(&got[t], 1, MPI_INT32_T, t, w.disp0[t], 1, MPI_INT32_T, w.win));
            }
        }
        MPI_CHECK(MPI_Win_fence(r % 3 ? MPI_MODE_NOSTORE | MPI_MODE_NOPUT : 0, w.win));
        for (int t = 0; t < n; ++t) {
            MTEST_CHECK(t == me || got[t] == r, "round %d: rank %d's number read as %d", r, t,
                        got[t]);
        }
    }
    MPI_CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
    free(got);
    mtest_win_free(&w);
    return mtest_finalize();
}
