/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * A freed window's communicator waits on the user's communicator for the
 * next window (osc_newrma_comm_cache).  Every window must still work (a
 * PUT to the right neighbour under fence and under lock_all, checked) when:
 * windows come and go on one communicator; two live at once on it and are
 * freed in either order; the user frees the communicator while a window on
 * it lives, or while nothing uses it; the user duplicates a communicator
 * that has one waiting (the duplicate must not share it); windows are made
 * on halves of MPI_COMM_WORLD and on the whole in turn.
 *
 *   comm_reuse FLAVOR
 */
#include "mtest.h"

#define ROUNDS 30

/* A PUT of @p value to the right neighbour in a fence epoch and one in a
 * lock_all epoch; the left neighbour's must arrive. */
static void use_window(mtest_win_t *w, MPI_Comm comm, long value, const char *what)
{
    int n, me, right;
    long got[2] = {0, 0}, mine[2] = {value, value + 1}, zero[2] = {0, 0};

    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    right = (me + 1) % n;
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w->win));
    memcpy(w->base, zero, sizeof(zero));
    MPI_CHECK(MPI_Win_unlock(me, w->win));
    MPI_Barrier(comm);
    MPI_CHECK(MPI_Win_fence(0, w->win));
    MPI_CHECK(MPI_Put(&mine[0], 1, MPI_LONG, right, w->disp0[right], 1, MPI_LONG, w->win));
    MPI_CHECK(MPI_Win_fence(0, w->win));
    MPI_CHECK(MPI_Win_lock_all(0, w->win));
    MPI_CHECK(MPI_Put(&mine[1], 1, MPI_LONG, right, w->disp0[right] + (MPI_Aint) sizeof(long), 1,
                      MPI_LONG, w->win));
    MPI_CHECK(MPI_Win_unlock_all(w->win));
    MPI_Barrier(comm);
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w->win));
    memcpy(got, w->base, sizeof(got));
    MPI_CHECK(MPI_Win_unlock(me, w->win));
    /* every rank puts the same values in a round: the left neighbour's */
    MTEST_CHECK(got[0] == value && got[1] == value + 1, "%s: got %ld %ld, expected %ld %ld", what,
                got[0], got[1], value, value + 1);
}

static void one_window(const char *flavor, MPI_Comm comm, long value, const char *what)
{
    mtest_win_t w;

    mtest_win_create(&w, flavor, 2 * sizeof(long), MPI_INFO_NULL, comm);
    use_window(&w, comm, value, what);
    mtest_win_free(&w);
}

int main(int argc, char **argv)
{
    const char *flavor;
    mtest_win_t a, b, c;
    MPI_Comm dup, half, dup2;
    long v = 1;

    mtest_init(&argc, &argv);
    flavor = argc > 1 ? argv[1] : "allocate";

    /* one after another on one communicator */
    for (int r = 0; r < ROUNDS; ++r) {
        one_window(flavor, MPI_COMM_WORLD, v++, "in a row");
    }
    /* two at once, freed first-made first, then last-made first */
    for (int order = 0; order < 2; ++order) {
        mtest_win_create(&a, flavor, 2 * sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD);
        mtest_win_create(&b, flavor, 2 * sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD);
        use_window(&a, MPI_COMM_WORLD, v++, "two at once, first");
        use_window(&b, MPI_COMM_WORLD, v++, "two at once, second");
        mtest_win_free(0 == order ? &a : &b);
        mtest_win_create(&c, flavor, 2 * sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD);
        use_window(&c, MPI_COMM_WORLD, v++, "a third beside one left");
        use_window(0 == order ? &b : &a, MPI_COMM_WORLD, v++, "the one left");
        mtest_win_free(0 == order ? &b : &a);
        mtest_win_free(&c);
    }
    /* the user's communicator freed under a live window, and with one waiting */
    for (int r = 0; r < ROUNDS / 3; ++r) {
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        mtest_win_create(&a, flavor, 2 * sizeof(long), MPI_INFO_NULL, dup);
        MPI_Comm_free(&dup);
        use_window(&a, MPI_COMM_WORLD, v++, "its communicator freed");
        mtest_win_free(&a);
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        one_window(flavor, dup, v++, "on a duplicate");
        MPI_Comm_free(&dup);
    }
    /* a user's duplicate of a communicator with one waiting shares nothing:
     * its windows come and go while the original's next one works */
    one_window(flavor, MPI_COMM_WORLD, v++, "before the duplicate");
    MPI_Comm_dup(MPI_COMM_WORLD, &dup2);
    one_window(flavor, dup2, v++, "on the user's duplicate");
    MPI_Comm_free(&dup2);
    one_window(flavor, MPI_COMM_WORLD, v++, "after the duplicate is freed");
    /* halves and the whole in turn */
    MPI_Comm_split(MPI_COMM_WORLD, mtest_rank % 2, mtest_rank, &half);
    for (int r = 0; r < ROUNDS / 3; ++r) {
        one_window(flavor, half, v++, "on a half");
        one_window(flavor, MPI_COMM_WORLD, v++, "on the whole");
    }
    MPI_Comm_free(&half);
    return mtest_finalize();
}
