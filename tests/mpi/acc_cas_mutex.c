/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * A spin mutex built from MPI_Compare_and_swap protects a counter that is
 * updated with plain GET + PUT.  Every rank takes the mutex ITERS times and
 * increments the counter; with a broken CAS two ranks hold the mutex at once
 * and increments are lost.  The mutex word lives on rank 0, the counter on
 * the last rank, so both the shared-memory and the remote paths are used
 * (and self at 1 process per node for the others).  The mutex is released
 * with MPI_Fetch_and_op(MPI_REPLACE), which also proves it was held.
 *
 * usage: acc_cas_mutex FLAVOR [ITERS] [int32|int64]
 */
#include "mtest.h"

int main(int argc, char **argv)
{
    int me, nprocs, iters, wide;
    MPI_Datatype type;
    mtest_win_t w;
    int64_t zero[2] = {0, 0};

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    iters = argc > 2 ? atoi(argv[2]) : 40;
    wide = argc > 3 ? 0 == strcmp(argv[3], "int64") : 1;
    type = wide ? MPI_INT64_T : MPI_INT32_T;
    mtest_win_create(&w, argc > 1 ? argv[1] : "allocate", sizeof(zero), MPI_INFO_NULL,
                     MPI_COMM_WORLD);
    mtest_local_store(&w, 0, zero, sizeof(zero));
    MPI_Barrier(MPI_COMM_WORLD);

    int mutex_rank = 0, counter_rank = nprocs - 1;
    MPI_Aint mutex = w.disp0[mutex_rank], counter = w.disp0[counter_rank] + 8;
    MPI_CHECK(MPI_Win_lock_all(0, w.win));
    for (int i = 0; i < iters; ++i) {
        int64_t mine64 = me + 1, free64 = 0, old64 = -1, value = 0;
        int32_t mine32 = me + 1, free32 = 0, old32 = -1;
        void *mine = wide ? (void *) &mine64 : (void *) &mine32;
        void *freev = wide ? (void *) &free64 : (void *) &free32;
        void *old = wide ? (void *) &old64 : (void *) &old32;
        double start = MPI_Wtime();
        int stuck = 0;

        /* a holder may be descheduled (more ranks than cores): give up
         * only after seconds without the mutex, not after many spins */
        do { /* acquire */
            MPI_CHECK(MPI_Compare_and_swap(mine, freev, old, type, mutex_rank, mutex, w.win));
            MPI_CHECK(MPI_Win_flush(mutex_rank, w.win));
            stuck = MPI_Wtime() - start > 20.0;
        } while ((wide ? old64 : old32) != 0 && !stuck);
        MTEST_CHECK(!stuck, "no progress acquiring the mutex for 20 s (held by %ld)",
                    (long) (wide ? old64 : old32));
        if (stuck) {
            break;
        }

        MPI_CHECK(MPI_Get(&value, 1, MPI_INT64_T, counter_rank, counter, 1, MPI_INT64_T, w.win));
        MPI_CHECK(MPI_Win_flush(counter_rank, w.win));
        value++;
        MPI_CHECK(MPI_Put(&value, 1, MPI_INT64_T, counter_rank, counter, 1, MPI_INT64_T, w.win));
        MPI_CHECK(MPI_Win_flush(counter_rank, w.win));

        /* release: check it was ours, then replace with 0 */
        MPI_CHECK(MPI_Fetch_and_op(freev, old, type, mutex_rank, mutex, MPI_REPLACE, w.win));
        MPI_CHECK(MPI_Win_flush(mutex_rank, w.win));
        MTEST_CHECK((wide ? old64 : old32) == me + 1, "released a mutex held by %ld",
                    (long) (wide ? old64 : old32));
    }
    MPI_CHECK(MPI_Win_unlock_all(w.win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == counter_rank) {
        int64_t got[2];
        mtest_local_load(&w, 0, got, sizeof(got));
        MTEST_CHECK(got[1] == (int64_t) iters * nprocs, "counter %ld, expected %ld", (long) got[1],
                    (long) iters * nprocs);
    }
    mtest_win_free(&w);
    return mtest_finalize();
}
