/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Location consistency as ARMCI-MPI (and so Global Arrays and NWChem) relies
 * on it: inside one lock_all epoch, MPI_Put + MPI_Win_flush_local, then
 * MPI_Accumulate + MPI_Win_flush_local, then MPI_Get + MPI_Win_flush of the
 * same elements; the GET must see the PUT and the ACCUMULATE.  A GET that
 * reads the target directly must not overtake accumulate packets the
 * target's agent has not applied yet.
 *
 * Each rank works on its own elements of its right neighbour's window, so
 * the check is exact.  usage: loc_consistency FLAVOR [ITERATIONS] [COUNT]
 */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, nprocs, iters, count, right;
    long *put, *acc, *got;
    size_t bytes;
    MPI_Aint disp;
    mtest_win_t w;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2) {
        fprintf(stderr, "usage: loc_consistency FLAVOR [ITERATIONS] [COUNT]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    iters = argc > 2 ? atoi(argv[2]) : 500;
    count = argc > 3 ? atoi(argv[3]) : 64;
    bytes = (size_t) count * sizeof(long);
    right = (rank + 1) % nprocs;
    put = malloc(bytes);
    acc = malloc(bytes);
    got = malloc(bytes);
    /* one block of COUNT longs per origin in every window */
    mtest_win_create(&w, argv[1], bytes * (size_t) nprocs, MPI_INFO_NULL, MPI_COMM_WORLD);
    disp = w.disp0[right] + (MPI_Aint) (bytes * (size_t) rank);
    MPI_CHECK(MPI_Win_lock_all(0, w.win));
    for (int it = 0; it < iters; ++it) {
        for (int i = 0; i < count; ++i) {
            put[i] = (long) it * 1000003L + i;
            acc[i] = (long) rank + 7 * i + 1;
        }
        MPI_CHECK(MPI_Put(put, count, MPI_LONG, right, disp, count, MPI_LONG, w.win));
        MPI_CHECK(MPI_Win_flush_local(right, w.win));
        MPI_CHECK(
            MPI_Accumulate(acc, count, MPI_LONG, right, disp, count, MPI_LONG, MPI_SUM, w.win));
        MPI_CHECK(MPI_Win_flush_local(right, w.win));
        MPI_CHECK(MPI_Get(got, count, MPI_LONG, right, disp, count, MPI_LONG, w.win));
        MPI_CHECK(MPI_Win_flush(right, w.win));
        for (int i = 0; i < count; ++i) {
            MTEST_CHECK(got[i] == put[i] + acc[i],
                        "iteration %d element %d: read %ld, expected %ld", it, i, got[i],
                        put[i] + acc[i]);
        }
    }
    MPI_CHECK(MPI_Win_unlock_all(w.win));
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    mtest_win_free(&w);
    free(put);
    free(acc);
    free(got);
    return mtest_finalize();
}
