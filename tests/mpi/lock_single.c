/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Lock epochs of one short operation each (the single-op optimization):
 * rank 0 puts then gets 8 bytes on rank 1 in two exclusive epochs and checks
 * the data.  tests/sh/single_op.sh runs it with verbose packet tracing and
 * checks that each epoch was exactly one packet and its answer.
 *
 * With "acc" the four epochs are the accumulate family instead: a lone
 * FETCH_AND_OP (int64, then double), COMPARE_AND_SWAP and ACCUMULATE, each
 * one message plus its response.
 *
 * usage: lock_single FLAVOR [acc]
 */
#include "mtest.h"

int main(int argc, char **argv)
{
    double out = 3.25, in = 0.0;
    mtest_win_t w;
    int me;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    mtest_win_create(&w, argc > 1 ? argv[1] : "allocate", sizeof(double), MPI_INFO_NULL,
                     MPI_COMM_WORLD);
    memset(&in, 0, sizeof(in));
    mtest_local_store(&w, 0, &in, sizeof(in));
    MPI_Barrier(MPI_COMM_WORLD);
    if (0 == me && argc > 2 && 0 == strcmp(argv[2], "acc")) {
        int64_t five = 5, old = -1, cmp = 5, swap = 9;
        double half = 0.5, dold = -1.0;
        MPI_Aint at = w.disp0[1];
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w.win));
        MPI_CHECK(MPI_Fetch_and_op(&five, &old, MPI_INT64_T, 1, at, MPI_SUM, w.win));
        MPI_CHECK(MPI_Win_unlock(1, w.win));
        MTEST_CHECK(0 == old, "fetch_and_op returned %ld, expected 0", (long) old);
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w.win));
        MPI_CHECK(MPI_Compare_and_swap(&swap, &cmp, &old, MPI_INT64_T, 1, at, w.win));
        MPI_CHECK(MPI_Win_unlock(1, w.win));
        MTEST_CHECK(5 == old, "compare_and_swap returned %ld, expected 5", (long) old);
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, w.win));
        MPI_CHECK(MPI_Put(&half, 1, MPI_DOUBLE, 1, at, 1, MPI_DOUBLE, w.win));
        MPI_CHECK(MPI_Win_unlock(1, w.win));
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w.win));
        MPI_CHECK(MPI_Accumulate(&half, 1, MPI_DOUBLE, 1, at, 1, MPI_DOUBLE, MPI_SUM, w.win));
        MPI_CHECK(MPI_Win_unlock(1, w.win));
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w.win));
        MPI_CHECK(MPI_Fetch_and_op(&half, &dold, MPI_DOUBLE, 1, at, MPI_SUM, w.win));
        MPI_CHECK(MPI_Win_unlock(1, w.win));
        MTEST_CHECK(1.0 == dold, "fetch_and_op(double) returned %g, expected 1", dold);
    } else if (0 == me) {
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, w.win));
        MPI_CHECK(MPI_Put(&out, 1, MPI_DOUBLE, 1, w.disp0[1], 1, MPI_DOUBLE, w.win));
        MPI_CHECK(MPI_Win_unlock(1, w.win));
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w.win));
        MPI_CHECK(MPI_Get(&in, 1, MPI_DOUBLE, 1, w.disp0[1], 1, MPI_DOUBLE, w.win));
        MPI_CHECK(MPI_Win_unlock(1, w.win));
        MTEST_CHECK(in == out, "single-op get returned %g, expected %g", in, out);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    mtest_win_free(&w);
    return mtest_finalize();
}
