/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Fairness: ranks other than 1 keep taking shared locks on rank 0, each held
 * a little while so that shared holders overlap.  Rank 1 asks for an
 * exclusive lock; the readers stop when they see the flag it writes under
 * that lock.  A lock that lets later shared requests overtake a queued
 * exclusive one starves rank 1 and the readers hit their iteration limit.
 *
 * usage: lock_fair FLAVOR
 */
#include <unistd.h>

#include "mtest.h"

#define READ_LIMIT 20000

int main(int argc, char **argv)
{
    int me, nprocs, flag = 0, one = 1, reads = 0;
    mtest_win_t w;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    mtest_win_create(&w, argc > 1 ? argv[1] : "allocate", sizeof(int), MPI_INFO_NULL,
                     MPI_COMM_WORLD);
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w.win));
    *(int *) w.base = 0;
    MPI_CHECK(MPI_Win_unlock(me, w.win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (1 == me) {
        usleep(20000); /* let the readers get going */
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w.win));
        MPI_CHECK(MPI_Put(&one, 1, MPI_INT, 0, w.disp0[0], 1, MPI_INT, w.win));
        MPI_CHECK(MPI_Win_unlock(0, w.win));
    } else {
        while (!flag && reads < READ_LIMIT) {
            MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w.win));
            MPI_CHECK(MPI_Get(&flag, 1, MPI_INT, 0, w.disp0[0], 1, MPI_INT, w.win));
            MPI_CHECK(MPI_Win_flush(0, w.win));
            usleep(100); /* hold the shared lock for a while */
            MPI_CHECK(MPI_Win_unlock(0, w.win));
            reads++;
        }
        MTEST_CHECK(flag, "exclusive request starved: %d shared epochs went first", reads);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    mtest_win_free(&w);
    return mtest_finalize();
}
