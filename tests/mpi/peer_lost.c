/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * A peer dies while a call waits for it: the call returns MPI_ERR_OTHER
 * through the window's error handler instead of waiting for ever.
 *
 * Run under `mpirun --enable-recovery` (tests/sh/peer_lost.sh), which keeps
 * the other processes running when one dies.  The last rank is the victim;
 * every other rank waits for it:
 *   lock: the victim holds the exclusive lock on its own window and dies
 *         holding it; the others' MPI_Win_lock + MPI_Put + MPI_Win_unlock
 *         to it cannot be granted;
 *   pscw: the others start an access epoch to the victim, which never
 *         posts; MPI_Win_start / MPI_Put / MPI_Win_complete cannot finish;
 *   wait: the others expose their window to the victim, which never
 *         starts or completes; MPI_Win_post / MPI_Win_wait cannot finish;
 *   fetch: under lock_all, the others' second MPI_Fetch_and_op to the
 *         victim (a mailbox slot posted by the call, on one node with user
 *         memory) is never answered: MPI_Win_flush cannot finish.
 * The survivors then check that a window without the victim still works,
 * print the verdict and leave without MPI_Finalize, which is collective
 * over MPI_COMM_WORLD and so would wait for the dead process.
 *
 * usage: peer_lost FLAVOR lock|pscw|wait|fetch
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "mtest.h"

static int victim_lock(MPI_Win win, int victim)
{
    long one = 1;
    int rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, victim, 0, win);

    if (MPI_SUCCESS == rc) {
        rc = MPI_Put(&one, 1, MPI_LONG, victim, 0, 1, MPI_LONG, win);
    }
    if (MPI_SUCCESS == rc) {
        rc = MPI_Win_unlock(victim, win);
    }
    return rc;
}

static int victim_pscw(MPI_Win win, int victim)
{
    MPI_Group world, target;
    long one = 1;
    int rc;

    MPI_Win_get_group(win, &world);
    MPI_Group_incl(world, 1, &victim, &target);
    rc = MPI_Win_start(target, 0, win);
    if (MPI_SUCCESS == rc) {
        rc = MPI_Put(&one, 1, MPI_LONG, victim, 0, 1, MPI_LONG, win);
    }
    if (MPI_SUCCESS == rc) {
        rc = MPI_Win_complete(win);
    }
    MPI_Group_free(&target);
    MPI_Group_free(&world);
    return rc;
}

static int victim_wait(MPI_Win win, int victim)
{
    MPI_Group world, origin;
    int rc;

    MPI_Win_get_group(win, &world);
    MPI_Group_incl(world, 1, &victim, &origin);
    rc = MPI_Win_post(origin, 0, win);
    if (MPI_SUCCESS == rc) {
        rc = MPI_Win_wait(win);
    }
    MPI_Group_free(&origin);
    MPI_Group_free(&world);
    return rc;
}

/* A first FETCH_AND_OP while the victim still serves (it waits in the
 * second barrier) leaves the lock held and the target idle, so the second
 * is posted to the mailbox by the call, and its flush waits for the answer
 * alone. */
static int victim_fetch(MPI_Win win, int victim, MPI_Aint disp)
{
    long one = 1, old = -1;
    int rc = MPI_Win_lock_all(0, win);

    if (MPI_SUCCESS == rc) {
        rc = MPI_Fetch_and_op(&one, &old, MPI_LONG, victim, disp, MPI_SUM, win);
    }
    if (MPI_SUCCESS == rc) {
        rc = MPI_Win_flush(victim, win);
    }
    MTEST_CHECK(MPI_SUCCESS == rc, "FETCH_AND_OP to the victim while it lives: %d", rc);
    MPI_Barrier(MPI_COMM_WORLD);
    usleep(200000); /* the victim has left the barrier's progress: asleep */
    rc = MPI_Fetch_and_op(&one, &old, MPI_LONG, victim, disp, MPI_SUM, win);
    if (MPI_SUCCESS == rc) {
        rc = MPI_Win_flush(victim, win);
    }
    (void) MPI_Win_unlock_all(win); /* the dead peer's part fails again */
    return rc;
}

/* The survivors' own window still works after the loss. */
static void survivors_window(MPI_Comm survivors, const char *flavor)
{
    mtest_win_t w;
    long got = -1, mine;
    int rank, size;

    MPI_Comm_rank(survivors, &rank);
    MPI_Comm_size(survivors, &size);
    mine = 100 + rank;
    mtest_win_create(&w, flavor, sizeof(long), MPI_INFO_NULL, survivors);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w.win);
    memcpy(w.base, &mine, sizeof(mine));
    MPI_Win_unlock(rank, w.win);
    MPI_Barrier(survivors);
    MPI_Win_lock(MPI_LOCK_SHARED, (rank + 1) % size, 0, w.win);
    MPI_Get(&got, 1, MPI_LONG, (rank + 1) % size, (MPI_Aint) w.disp0[(rank + 1) % size], 1,
            MPI_LONG, w.win);
    MPI_Win_unlock((rank + 1) % size, w.win);
    MTEST_CHECK(got == 100 + (rank + 1) % size, "survivors' window: got %ld", got);
    MPI_Barrier(survivors);
    mtest_win_free(&w);
}

int main(int argc, char **argv)
{
    const char *flavor = argc > 1 ? argv[1] : "allocate";
    const char *what = argc > 2 ? argv[2] : "lock";
    MPI_Comm survivors;
    mtest_win_t w;
    int rank, nprocs, victim, rc, cls = MPI_SUCCESS, total = 0;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    victim = nprocs - 1;
    MPI_Comm_split(MPI_COMM_WORLD, rank == victim, rank, &survivors);
    mtest_win_create(&w, flavor, 64, MPI_INFO_NULL, MPI_COMM_WORLD);
    MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN);
    if (rank == victim) {
        if (0 == strcmp(what, "lock")) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, victim, 0, w.win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (0 == strcmp(what, "fetch")) {
            MPI_Barrier(MPI_COMM_WORLD); /* serving the first FETCH_AND_OPs */
        }
        sleep(1); /* the others are waiting for me now */
        _exit(0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (0 == strcmp(what, "lock")) {
        rc = victim_lock(w.win, victim);
    } else if (0 == strcmp(what, "pscw")) {
        rc = victim_pscw(w.win, victim);
    } else if (0 == strcmp(what, "fetch")) {
        rc = victim_fetch(w.win, victim, (MPI_Aint) w.disp0[victim]);
    } else {
        rc = victim_wait(w.win, victim);
    }
    if (MPI_SUCCESS != rc) {
        MPI_Error_class(rc, &cls);
    }
    MTEST_CHECK(MPI_ERR_OTHER == cls, "%s to a dead peer: error class %d, expected %d (%s)", what,
                cls, MPI_ERR_OTHER, MPI_SUCCESS == rc ? "it succeeded" : "another class");
    survivors_window(survivors, flavor);
    MPI_Allreduce(&mtest_errors, &total, 1, MPI_INT, MPI_SUM, survivors);
    if (0 == rank && 0 == total) {
        printf(" No Errors\n");
    } else if (0 == rank) {
        printf(" Found %d errors\n", total);
    }
    fflush(stdout);
    fflush(stderr);
    _exit(0 != total);
}
