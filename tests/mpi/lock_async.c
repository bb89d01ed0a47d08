/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Progress without the target: rank 0 computes for COMPUTE seconds without
 * calling MPI while every other rank runs ten lock / put / get / unlock
 * epochs on it.  With osc_newrma_async_progress=1 the origins must finish
 * while rank 0 is still computing (checked on MPI_Wtime, one node, so one
 * clock); without it they finish only once rank 0 is back in MPI.
 *
 * usage: lock_async FLAVOR [COMPUTE_SECONDS] [expect-overlap: 1|0]
 */
#include "mtest.h"

int main(int argc, char **argv)
{
    double compute = argc > 2 ? atof(argv[2]) : 2.0, t0, t_end = 0.0, t_done = 0.0, times[2];
    int expect_overlap = argc > 3 ? atoi(argv[3]) : 1, me, nprocs;
    volatile double sink = 0.0;
    mtest_win_t w;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    mtest_win_create(&w, argc > 1 ? argv[1] : "allocate", 64 * (size_t) nprocs, MPI_INFO_NULL,
                     MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (0 == me) {
        while (MPI_Wtime() - t0 < compute) { /* no MPI calls but the clock */
            for (int i = 0; i < 1000; ++i) {
                sink += i * 0.5;
            }
        }
        t_end = MPI_Wtime();
    } else {
        long out[8], in[8];
        for (int e = 0; e < 10; ++e) {
            for (int i = 0; i < 8; ++i) {
                out[i] = 1000L * me + 10L * e + i;
            }
            MPI_Aint disp = w.disp0[0] + 64 * me;
            MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w.win));
            MPI_CHECK(MPI_Put(out, 8, MPI_LONG, 0, disp, 8, MPI_LONG, w.win));
            MPI_CHECK(MPI_Win_flush(0, w.win));
            MPI_CHECK(MPI_Get(in, 8, MPI_LONG, 0, disp, 8, MPI_LONG, w.win));
            MPI_CHECK(MPI_Win_unlock(0, w.win));
            MTEST_CHECK(0 == memcmp(in, out, sizeof(in)), "epoch %d read back wrong data", e);
        }
        t_done = MPI_Wtime();
    }
    MPI_Allreduce(&t_end, &times[0], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&t_done, &times[1], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (0 == me) {
        printf("target computed until +%.3f s, origins done at +%.3f s\n", times[0] - t0,
               times[1] - t0);
        if (expect_overlap) {
            MTEST_CHECK(times[1] < times[0], "origins waited for the target to return to MPI");
        }
    }
    mtest_win_free(&w);
    (void) sink;
    return mtest_finalize();
}
