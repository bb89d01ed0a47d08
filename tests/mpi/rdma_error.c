/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * A UCX transfer that completes with an error is not counted as done: the
 * MPI_Win_flush that completes it returns an error class through the
 * window's error handler, the window stays usable, and later transfers
 * land.  Rank 0 sets the component's test hook (osc_newrma_test_fail_rdma,
 * argv[1]: the Nth transfer fails) and PUTs to rank 1 five times in one
 * lock_all epoch, flushing after each; only the Nth flush fails.
 * With "unlock" (argv[2]) rank 0 PUTs twice under an exclusive lock and
 * the failure is returned by MPI_Win_unlock, which must still release the
 * lock: every rank then takes the same exclusive lock, and the window is
 * freed (both would hang on a lock left held).
 * Meant for the UCX path (osc_newrma_shm 0): direct load/store has no
 * transfer to fail.
 *
 * usage: rdma_error N [unlock]
 */
#include "mtest.h"

#define PUTS 5

static int unlock_case(MPI_Win win, long *base)
{
    long vals[2] = {201, 202};
    int rc, cls = MPI_SUCCESS;

    if (0 == mtest_rank) {
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
        MPI_CHECK(MPI_Put(&vals[0], 1, MPI_LONG, 1, 0, 1, MPI_LONG, win));
        MPI_CHECK(MPI_Put(&vals[1], 1, MPI_LONG, 1, 0, 1, MPI_LONG, win));
        rc = MPI_Win_unlock(1, win);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(MPI_ERR_OTHER == cls || MPI_ERR_INTERN == cls,
                    "unlock after a failed transfer: error class %d", cls);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* the lock was released in spite of the error */
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
    MPI_CHECK(MPI_Accumulate(&vals[1], 1, MPI_LONG, 1, 0, 1, MPI_LONG, MPI_REPLACE, win));
    MPI_CHECK(MPI_Win_unlock(1, win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (1 == mtest_rank) {
        MTEST_CHECK(202 == *base, "rank 1 holds %ld, expected 202", *base);
    }
    MPI_CHECK(MPI_Win_free(&win));
    return mtest_finalize();
}

int main(int argc, char **argv)
{
    const char *rank_env = getenv("OMPI_COMM_WORLD_RANK");
    int fail_at = argc > 1 ? atoi(argv[1]) : 2, nprocs, rc;
    long *base, vals[PUTS + 1];
    MPI_Win win;

    if (NULL != rank_env && 0 == strcmp(rank_env, "0") && argc > 1) {
        setenv("OMPI_MCA_osc_newrma_test_fail_rdma", argv[1], 1);
    }
    /* small PUTs would travel as aggregated packets: make them RDMA
     * (tests/mpi/packet_error.c covers packets) */
    setenv("OMPI_MCA_osc_newrma_aggregate_threshold", "0", 1);
    mtest_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_CHECK(
        MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    *base = -1;
    MPI_Barrier(MPI_COMM_WORLD);

    if (argc > 2 && 0 == strcmp(argv[2], "unlock")) {
        return unlock_case(win, base);
    }
    if (0 == mtest_rank) {
        MPI_CHECK(MPI_Win_lock_all(0, win));
        for (int i = 1; i <= PUTS; ++i) {
            vals[i] = 100 + i;
            MPI_CHECK(MPI_Put(&vals[i], 1, MPI_LONG, 1, 0, 1, MPI_LONG, win));
            rc = MPI_Win_flush(1, win);
            if (i == fail_at) {
                int cls = MPI_SUCCESS;
                MPI_Error_class(rc, &cls);
                MTEST_CHECK(MPI_ERR_OTHER == cls || MPI_ERR_INTERN == cls,
                            "flush after the failed transfer %d: error class %d", i, cls);
            } else {
                MTEST_CHECK(MPI_SUCCESS == rc, "flush after transfer %d failed: %d", i, rc);
            }
        }
        MPI_CHECK(MPI_Win_unlock_all(win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (1 == mtest_rank) {
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
        MTEST_CHECK(100 + PUTS == *base, "the last put left %ld, expected %d", *base, 100 + PUTS);
        MPI_CHECK(MPI_Win_unlock(1, win));
    }
    MPI_CHECK(MPI_Win_free(&win));
    return mtest_finalize();
}
