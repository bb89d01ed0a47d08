/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * A PUT or accumulate packet that the target cannot apply in a FENCE epoch
 * is reported by the target's MPI_Win_fence that closes that epoch (the
 * FENCE_DONE behind the packets is not answered, as COMPLETE in PSCW), and
 * by no other fence; the window stays usable and the other packets land.
 * Rank 1 sets the component's test hook (osc_newrma_test_fail_packet,
 * argv[1]: the Nth packet rank 1 applies fails).  Rank 0 sends rank 1 five
 * epochs of a PUT (packets 1, 3, ..., 9) and a two-element accumulate (2,
 * 4, ..., 10), each closed by a fence; the other ranks only fence.  For the
 * UCX path (osc_newrma_shm 0).
 */
#include "mtest.h"

#define ROUNDS 5

int main(int argc, char **argv)
{
    long *base, vals[ROUNDS + 1], ones[2] = {1, 1}, want_put, want_acc;
    MPI_Win win;
    int fail_at = mtest_init_fail_packet(&argc, &argv, &base, &win), cls;

    MPI_CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    for (int i = 1; i <= ROUNDS; ++i) {
        int rc;

        if (0 == mtest_rank) {
            vals[i] = 100 + i;
            MPI_CHECK(MPI_Put(&vals[i], 1, MPI_LONG, 1, 0, 1, MPI_LONG, win));
            MPI_CHECK(MPI_Accumulate(ones, 2, MPI_LONG, 1, 1, 2, MPI_LONG, MPI_SUM, win));
        }
        rc = MPI_Win_fence(0, win);
        MPI_Error_class(rc, &cls);
        if (1 == mtest_rank && (fail_at == 2 * i - 1 || fail_at == 2 * i)) {
            MTEST_CHECK(MPI_ERR_OTHER == cls || MPI_ERR_INTERN == cls,
                        "fence %d closing failed packet %d: error class %d", i, fail_at, cls);
        } else {
            MTEST_CHECK(MPI_SUCCESS == rc, "rank %d fence %d failed: error class %d", mtest_rank, i,
                        cls);
        }
    }
    if (1 == mtest_rank) {
        /* the failed packet did nothing; every other one landed */
        want_put = 2 * ROUNDS - 1 == fail_at ? 100 + ROUNDS - 1 : 100 + ROUNDS;
        want_acc = ROUNDS - (0 == fail_at % 2 && fail_at <= 2 * ROUNDS ? 1 : 0);
        MTEST_CHECK(want_put == base[0], "PUTs left %ld, expected %ld", base[0], want_put);
        MTEST_CHECK(want_acc == base[1] && want_acc == base[2],
                    "accumulates left %ld %ld, expected %ld", base[1], base[2], want_acc);
    }
    MPI_CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    MPI_CHECK(MPI_Win_free(&win));
    return mtest_finalize();
}
