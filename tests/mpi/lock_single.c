/*
 * Lock epochs of one short operation each (the single-op optimization):
 * rank 0 puts then gets 8 bytes on rank 1 in two exclusive epochs and checks
 * the data.  tests/sh/single_op.sh runs it with verbose packet tracing and
 * checks that each epoch was exactly one packet and its answer.
 *
 * usage: lock_single FLAVOR
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
    MPI_Barrier(MPI_COMM_WORLD);
    if (0 == me) {
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
