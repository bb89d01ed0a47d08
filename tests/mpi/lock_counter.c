/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Mutual exclusion: every rank increments a counter on every target with a
 * read-modify-write (GET, flush, PUT) under an exclusive lock.  Without
 * exclusion, increments are lost.  Shared-lock readers run alongside and
 * must never see a torn counter pair (both words are updated together).
 *
 * usage: lock_counter FLAVOR [ITERATIONS]
 */
#include "mtest.h"

int main(int argc, char **argv)
{
    int iters = argc > 2 ? atoi(argv[2]) : 100;
    long pair[2], got[2];
    mtest_win_t w;
    int me, nprocs;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    mtest_win_create(&w, argc > 1 ? argv[1] : "allocate", 2 * sizeof(long), MPI_INFO_NULL,
                     MPI_COMM_WORLD);
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w.win));
    memset(w.base, 0, 2 * sizeof(long));
    MPI_CHECK(MPI_Win_unlock(me, w.win));
    MPI_Barrier(MPI_COMM_WORLD);

    for (int i = 0; i < iters; ++i) {
        int t = (me + i) % nprocs;

        MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w.win));
        MPI_CHECK(MPI_Get(pair, 2, MPI_LONG, t, w.disp0[t], 2, MPI_LONG, w.win));
        MPI_CHECK(MPI_Win_flush(t, w.win));
        MTEST_CHECK(pair[0] == pair[1], "exclusive: torn pair %ld/%ld at %d", pair[0], pair[1], t);
        pair[0]++;
        pair[1]++;
        MPI_CHECK(MPI_Put(pair, 2, MPI_LONG, t, w.disp0[t], 2, MPI_LONG, w.win));
        MPI_CHECK(MPI_Win_unlock(t, w.win));

        /* a shared reader sees either the old or the new pair, never half */
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, (t + 1) % nprocs, 0, w.win));
        MPI_CHECK(MPI_Get(got, 2, MPI_LONG, (t + 1) % nprocs, w.disp0[(t + 1) % nprocs], 2,
                          MPI_LONG, w.win));
        MPI_CHECK(MPI_Win_unlock((t + 1) % nprocs, w.win));
        MTEST_CHECK(got[0] == got[1], "shared: torn pair %ld/%ld", got[0], got[1]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w.win));
    memcpy(pair, w.base, sizeof(pair));
    MPI_CHECK(MPI_Win_unlock(me, w.win));
    /* each rank visits each target iters / nprocs times (+1 for some) */
    long expect = 0;
    for (int r = 0; r < nprocs; ++r) {
        for (int i = 0; i < iters; ++i) {
            expect += (r + i) % nprocs == me;
        }
    }
    MTEST_CHECK(pair[0] == expect && pair[1] == expect, "counter %ld/%ld, expected %ld", pair[0],
                pair[1], expect);
    mtest_win_free(&w);
    return mtest_finalize();
}
