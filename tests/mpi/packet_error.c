/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * A PUT or accumulate packet that the target cannot apply is reported to
 * the origin: the MPI_Win_flush or MPI_Win_unlock that completes it returns
 * an error class through the window's error handler, the window stays
 * usable, and the other packets land.  Rank 1 sets the component's test
 * hook (osc_newrma_test_fail_packet, argv[1]: the Nth packet rank 1 applies
 * fails).  Rank 0 sends rank 1, in a lock_all epoch, five rounds of a PUT
 * (packets 1, 3, ..., 9) and a two-element accumulate (2, 4, ..., 10), each
 * round flushed; then one exclusive lock epoch with a PUT (11) and an
 * accumulate (12).  For the UCX path (osc_newrma_shm 0).
 */
#include "mtest.h"

#define ROUNDS 5

/* Does the call that completes packets [first, last] see the failure? */
static void expect(int rc, int fail_at, int first, int last, const char *what)
{
    int cls = MPI_SUCCESS;

    MPI_Error_class(rc, &cls);
    if (fail_at >= first && fail_at <= last) {
        MTEST_CHECK(MPI_ERR_OTHER == cls || MPI_ERR_INTERN == cls,
                    "%s completing failed packet %d: error class %d", what, fail_at, cls);
    } else {
        MTEST_CHECK(MPI_SUCCESS == rc, "%s completing packets %d-%d failed: %d", what, first, last,
                    rc);
    }
}

int main(int argc, char **argv)
{
    long *base, vals[ROUNDS + 2], ones[2] = {1, 1}, want_put, want_acc;
    MPI_Win win;
    int fail_at = mtest_init_fail_packet(&argc, &argv, &base, &win);

    MPI_Barrier(MPI_COMM_WORLD);
    if (0 == mtest_rank) {
        MPI_CHECK(MPI_Win_lock_all(0, win));
        for (int i = 1; i <= ROUNDS; ++i) {
            vals[i] = 100 + i;
            MPI_CHECK(MPI_Put(&vals[i], 1, MPI_LONG, 1, 0, 1, MPI_LONG, win));
            MPI_CHECK(MPI_Accumulate(ones, 2, MPI_LONG, 1, 1, 2, MPI_LONG, MPI_SUM, win));
            expect(MPI_Win_flush(1, win), fail_at, 2 * i - 1, 2 * i, "MPI_Win_flush");
        }
        MPI_CHECK(MPI_Win_unlock_all(win));
        vals[ROUNDS + 1] = 200;
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
        MPI_CHECK(MPI_Put(&vals[ROUNDS + 1], 1, MPI_LONG, 1, 0, 1, MPI_LONG, win));
        MPI_CHECK(MPI_Accumulate(ones, 2, MPI_LONG, 1, 1, 2, MPI_LONG, MPI_SUM, win));
        expect(MPI_Win_unlock(1, win), fail_at, 2 * ROUNDS + 1, 2 * ROUNDS + 2, "MPI_Win_unlock");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (1 == mtest_rank) {
        /* the failed packet did nothing; every other one landed */
        want_put = 2 * ROUNDS + 1 == fail_at ? 100 + ROUNDS : 200;
        want_acc = ROUNDS + 1 - (0 == fail_at % 2 && fail_at <= 2 * ROUNDS + 2 ? 1 : 0);
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
        MTEST_CHECK(want_put == base[0], "PUTs left %ld, expected %ld", base[0], want_put);
        MTEST_CHECK(want_acc == base[1] && want_acc == base[2],
                    "accumulates left %ld %ld, expected %ld", base[1], base[2], want_acc);
        MPI_CHECK(MPI_Win_unlock(1, win));
    }
    MPI_CHECK(MPI_Win_free(&win));
    return mtest_finalize();
}
