/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * A GET packet that the target cannot read is reported to the origin: the
 * MPI_Win_flush that completes it returns an error class through the
 * window's error handler, the window stays usable, and every other GET
 * brings the right data.  Rank 1 sets the component's test hook
 * (osc_newrma_test_fail_packet, argv[1]: the Nth packet rank 1 applies
 * fails).  Rank 0 reads rank 1, in a lock_all epoch, ROUNDS rounds of a
 * small contiguous GET (packets 1, 3, ...) and a GET of a target layout of
 * one-int blocks (packets 2, 4, ...: sent with the layout's description,
 * packed by the target), each flushed on its own.  For the UCX path
 * (osc_newrma_shm 0).
 */
#include "mtest.h"

#define ROUNDS 4
#define N      512 /* ints in each window */
#define NV     128 /* ints the strided GET reads: every other one */

static int check_flush(int rc, int fail_at, int packet, const char *what)
{
    int cls = MPI_SUCCESS;

    MPI_Error_class(rc, &cls);
    if (fail_at == packet) {
        MTEST_CHECK(MPI_ERR_OTHER == cls || MPI_ERR_INTERN == cls,
                    "%s: the flush completing failed packet %d: error class %d", what, packet, cls);
        return 0;
    }
    MTEST_CHECK(MPI_SUCCESS == rc, "%s: the flush completing packet %d failed: %d", what, packet,
                cls);
    return MPI_SUCCESS == rc;
}

int main(int argc, char **argv)
{
    int fail_at = mtest_fail_packet_hook(argc, argv), *base, got[NV];
    MPI_Datatype every_other;
    MPI_Win win;

    mtest_init(&argc, &argv);
    MPI_CHECK(
        MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (int i = 0; i < N; ++i) {
        base[i] = 1000 * mtest_rank + i;
    }
    MPI_CHECK(MPI_Type_vector(NV, 1, 2, MPI_INT, &every_other));
    MPI_CHECK(MPI_Type_commit(&every_other));
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));

    if (0 == mtest_rank) {
        MPI_CHECK(MPI_Win_lock_all(0, win));
        for (int r = 0; r < ROUNDS; ++r) {
            memset(got, 0, sizeof(got));
            MPI_CHECK(MPI_Get(got, 2, MPI_INT, 1, 8 * r, 2, MPI_INT, win));
            if (check_flush(MPI_Win_flush(1, win), fail_at, 2 * r + 1, "contiguous GET")) {
                MTEST_CHECK(1000 + 8 * r == got[0] && 1001 + 8 * r == got[1],
                            "round %d: contiguous GET read %d %d", r, got[0], got[1]);
            }
            memset(got, 0, sizeof(got));
            MPI_CHECK(MPI_Get(got, NV, MPI_INT, 1, r, 1, every_other, win));
            if (check_flush(MPI_Win_flush(1, win), fail_at, 2 * r + 2, "strided GET")) {
                for (int i = 0; i < NV; ++i) {
                    if (got[i] != 1000 + r + 2 * i) {
                        mtest_error("round %d: strided GET element %d is %d, expected %d", r, i,
                                    got[i], 1000 + r + 2 * i);
                        break;
                    }
                }
            }
        }
        MPI_CHECK(MPI_Win_unlock_all(win));
    }
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_CHECK(MPI_Type_free(&every_other));
    MPI_CHECK(MPI_Win_free(&win));
    return mtest_finalize();
}
