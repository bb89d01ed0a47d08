/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * The fast path's steady state: argv[1] iterations, in one lock_all epoch,
 * of an 8-byte PUT, a one-element accumulate and an 8-byte GET from rank 0
 * to rank 1, each followed by a flush.  sh/allocs.sh runs it under
 * valgrind at two iteration counts: the difference in heap allocations
 * is what the iterations cost (packets, send buffers and RMA_DONEs come
 * from free lists, so about nothing).  The data is checked here.
 */
#include "mtest.h"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100;
    long *base, v, got = -1;
    int size;
    MPI_Win win;

    mtest_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_CHECK(MPI_Win_allocate(3 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                               &win));
    base[0] = base[1] = base[2] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHECK(MPI_Win_lock_all(0, win));
    if (0 == mtest_rank && size > 1) {
        for (int i = 1; i <= n; ++i) {
            v = i;
            MPI_CHECK(MPI_Put(&v, 1, MPI_LONG, 1, 0, 1, MPI_LONG, win));
            MPI_CHECK(MPI_Win_flush(1, win));
            MPI_CHECK(MPI_Accumulate(&v, 1, MPI_LONG, 1, 1, 1, MPI_LONG, MPI_SUM, win));
            MPI_CHECK(MPI_Win_flush(1, win));
            MPI_CHECK(MPI_Get(&got, 1, MPI_LONG, 1, 1, 1, MPI_LONG, win));
            MPI_CHECK(MPI_Win_flush(1, win));
            MTEST_CHECK(got == (long) i * (i + 1) / 2, "iteration %d: GET read %ld", i, got);
        }
    }
    MPI_CHECK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (1 == mtest_rank) {
        MTEST_CHECK(n == base[0], "PUT left %ld, expected %d", base[0], n);
    }
    MPI_CHECK(MPI_Win_free(&win));
    return mtest_finalize();
}
