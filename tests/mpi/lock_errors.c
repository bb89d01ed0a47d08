/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Erroneous passive target synchronization returns MPI_ERR_RMA_SYNC through
 * MPI_ERRORS_RETURN and leaves the window usable:
 * unlock / flush without a lock, a second lock on a locked target,
 * lock_all inside a lock, lock inside lock_all, RMA to a target that is not
 * locked in a lock epoch, MPI_Rput outside a passive epoch, fence inside a
 * lock epoch.
 *
 * usage: lock_errors FLAVOR
 */
#include "mtest.h"

/* MPI_ERR_RMA_SYNC, or MPI_ERR_RMA_CONFLICT for conflicting locks */
#define expect_sync(rc, what) mtest_expect_class(rc, MPI_ERR_RMA_SYNC, MPI_ERR_RMA_CONFLICT, what)

int main(int argc, char **argv)
{
    int me, nprocs, other, value = 0;
    MPI_Request req;
    mtest_win_t w;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    other = (me + 1) % nprocs;
    mtest_win_create(&w, argc > 1 ? argv[1] : "allocate", 64, MPI_INFO_NULL, MPI_COMM_WORLD);
    MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN);

    expect_sync(MPI_Win_unlock(other, w.win), "unlock without lock");
    expect_sync(MPI_Win_flush(other, w.win), "flush without lock");
    expect_sync(MPI_Win_flush_local_all(w.win), "flush_local_all without lock");
    expect_sync(MPI_Win_unlock_all(w.win), "unlock_all without lock_all");
    expect_sync(MPI_Rput(&value, 1, MPI_INT, other, w.disp0[other], 1, MPI_INT, w.win, &req),
                "rput outside an epoch");

    MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, other, 0, w.win));
    expect_sync(MPI_Win_lock(MPI_LOCK_SHARED, other, 0, w.win), "second lock");
    expect_sync(MPI_Win_lock_all(0, w.win), "lock_all inside lock");
    expect_sync(MPI_Win_fence(0, w.win), "fence inside lock");
    if (nprocs > 2) {
        int third = (me + 2) % nprocs;
        expect_sync(MPI_Put(&value, 1, MPI_INT, third, w.disp0[third], 1, MPI_INT, w.win),
                    "put to an unlocked target");
        expect_sync(MPI_Win_flush(third, w.win), "flush of an unlocked target");
    }
    expect_sync(MPI_Win_unlock_all(w.win), "unlock_all inside lock");
    MPI_CHECK(MPI_Win_unlock(other, w.win));

    MPI_CHECK(MPI_Win_lock_all(0, w.win));
    expect_sync(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, other, 0, w.win), "lock inside lock_all");
    expect_sync(MPI_Win_unlock(other, w.win), "unlock inside lock_all");
    MPI_CHECK(MPI_Win_unlock_all(w.win));

    /* the window still works */
    MPI_Barrier(MPI_COMM_WORLD);
    value = 1000 + me;
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, other, 0, w.win));
    MPI_CHECK(MPI_Put(&value, 1, MPI_INT, other, w.disp0[other], 1, MPI_INT, w.win));
    MPI_CHECK(MPI_Win_unlock(other, w.win));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w.win));
    value = *(int *) w.base;
    MPI_CHECK(MPI_Win_unlock(me, w.win));
    MTEST_CHECK(value == 1000 + (me + nprocs - 1) % nprocs, "after errors: %d", value);
    mtest_win_free(&w);
    return mtest_finalize();
}
