/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * A node-local MPI_Put or MPI_Get like the last one served by loads and
 * stores (same target, predefined datatype and count) skips the peer lookup
 * and the datatype checks (rma_fast_again in osc_newrma_ops.c); everything
 * that can have changed since is still checked:
 * - the displacement against this target's own window: ranks have windows
 *   of different sizes and disp_units, so a displacement in range for the
 *   last target may be out of range for the next (MPI_ERR_RMA_RANGE);
 * - the epoch: after MPI_Win_unlock_all, after a fence with
 *   MPI_MODE_NOSUCCEED, for a target not locked while another is, and after
 *   MPI_Win_unlock (MPI_ERR_RMA_SYNC);
 * - another count of the same type, and a derived type made where a freed
 *   one was: the bytes moved are the new ones.
 * Accesses alternate between the right neighbour, the left one and myself.
 * argv[1]: window flavor (create, allocate or shared).
 */
#include "mtest.h"

#define NINTS 24 /* rank r's window holds NINTS + 4 r ints */

static int nprocs, me, right, left;

static int win_ints(int rank)
{
    return NINTS + 4 * rank;
}

static int win_unit(int rank)
{
    return rank % 2 ? 8 : 4;
}

/* The highest displacement of an int in @p rank's window. */
static int last_disp(int rank)
{
    return (4 * win_ints(rank) - 4) / win_unit(rank);
}

static int value(int writer, int k)
{
    return 1000 * (writer + 1) + k;
}

/* Int @p i of @p rank's window once its left neighbour wrote it. */
static int expected(int rank, int i)
{
    int unit = win_unit(rank), writer = (rank + nprocs - 1) % nprocs;

    return 0 == (4 * i) % unit ? value(writer, 4 * i / unit) : -1;
}

static void expect_rc(int rc, int cls, const char *what, int target, int disp)
{
    char msg[128];

    snprintf(msg, sizeof msg, "%s, target %d, displacement %d", what, target, disp);
    mtest_expect_class(rc, cls, cls, msg);
}

/* Where the GETs of an epoch land, each in an int of its own: over UCX
 * one completes at the epoch's end, long after its call returned. */
#define SCRATCH_INTS 256
static int scratch[SCRATCH_INTS], scratch_used;

/* A GET of one int from @p target at @p disp: in range or not. */
static void get_one(MPI_Win win, int target, int disp)
{
    MTEST_CHECK(scratch_used < SCRATCH_INTS, "more GETs than scratch ints");
    expect_rc(
        MPI_Get(&scratch[scratch_used++ % SCRATCH_INTS], 1, MPI_INT, target, disp, 1, MPI_INT, win),
        disp <= last_disp(target) ? MPI_SUCCESS : MPI_ERR_RMA_RANGE, "get", target, disp);
}

/* LOCK_ALL: my right neighbour's window written int by int, between GETs
 * from my left neighbour and myself; then each target's last displacement
 * and the one past it, right after an access to another target. */
static void lock_all_round(MPI_Win win, const int *src)
{
    int targets[3] = {right, left, me}, got;

    scratch_used = 0;
    MPI_CHECK(MPI_Win_lock_all(0, win));
    for (int k = 0; k <= last_disp(right); ++k) {
        expect_rc(MPI_Put(&src[k], 1, MPI_INT, right, k, 1, MPI_INT, win), MPI_SUCCESS, "put",
                  right, k);
        expect_rc(MPI_Put(&src[k], 1, MPI_INT, right, k, 1, MPI_INT, win), MPI_SUCCESS, "put again",
                  right, k);
        get_one(win, left, k);
        get_one(win, me, k);
    }
    for (int x = 0; x < 3; ++x) {
        int d = last_disp(targets[x]);

        for (int y = 0; y < 3; ++y) {
            get_one(win, targets[x], d); /* the last access: target x */
            if (right == targets[y]) {
                expect_rc(MPI_Put(&src[d], 1, MPI_INT, right, d, 1, MPI_INT, win),
                          d <= last_disp(right) ? MPI_SUCCESS : MPI_ERR_RMA_RANGE,
                          "put after another target", right, d);
            } else {
                get_one(win, targets[y], d);
            }
            get_one(win, targets[x], d + 1);
        }
    }
    MPI_CHECK(MPI_Win_unlock_all(win));
    expect_rc(MPI_Put(&src[0], 1, MPI_INT, right, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC,
              "put after unlock_all", right, 0);
    expect_rc(MPI_Get(&got, 1, MPI_INT, right, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC,
              "get after unlock_all", right, 0);
}

/* LOCK of my right neighbour only, then FENCE with NOSUCCEED. */
static void lock_and_fence_rounds(MPI_Win win, const int *src)
{
    int got;

    MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    expect_rc(MPI_Put(&src[0], 1, MPI_INT, right, 0, 1, MPI_INT, win), MPI_SUCCESS,
              "put under lock", right, 0);
    if (left != right) {
        expect_rc(MPI_Get(&got, 1, MPI_INT, left, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC,
                  "get from a target not locked", left, 0);
    }
    if (me != right) {
        expect_rc(MPI_Get(&got, 1, MPI_INT, me, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC,
                  "get from myself not locked", me, 0);
    }
    expect_rc(MPI_Put(&src[1], 1, MPI_INT, right, 1, 1, MPI_INT, win), MPI_SUCCESS,
              "put under lock", right, 1);
    MPI_CHECK(MPI_Win_unlock(right, win));
    expect_rc(MPI_Put(&src[1], 1, MPI_INT, right, 1, 1, MPI_INT, win), MPI_ERR_RMA_SYNC,
              "put after unlock", right, 1);

    MPI_CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    expect_rc(MPI_Put(&src[2], 1, MPI_INT, right, 2, 1, MPI_INT, win), MPI_SUCCESS,
              "put under fence", right, 2);
    MPI_CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    expect_rc(MPI_Put(&src[2], 1, MPI_INT, right, 2, 1, MPI_INT, win), MPI_ERR_RMA_SYNC,
              "put after fence NOSUCCEED", right, 2);
}

/* Ints 0..n-1 of @p got against my right neighbour's window. */
static void check_read(const int *got, int n, const char *what)
{
    for (int i = 0; i < n; ++i) {
        MTEST_CHECK(got[i] == expected(right, i), "%s: int %d is %d, expected %d", what, i, got[i],
                    expected(right, i));
    }
}

/* Reads of my right neighbour's window after writes: one int, then two of
 * the same type, then one of a derived type of two ints, freed, and one of
 * a derived type of three made in its place. */
static void count_and_type_round(MPI_Win win)
{
    MPI_Datatype two, three;
    int got[3];

    MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    got[1] = got[2] = -7;
    MPI_CHECK(MPI_Get(got, 1, MPI_INT, right, 0, 1, MPI_INT, win));
    MPI_CHECK(MPI_Win_flush(right, win));
    check_read(got, 1, "one int");
    MTEST_CHECK(-7 == got[1], "one int: the next one was written");
    MPI_CHECK(MPI_Get(got, 2, MPI_INT, right, 0, 2, MPI_INT, win));
    MPI_CHECK(MPI_Win_flush(right, win));
    check_read(got, 2, "two ints");
    MTEST_CHECK(-7 == got[2], "two ints: the third one was written");

    MPI_Type_contiguous(2, MPI_INT, &two);
    MPI_Type_commit(&two);
    got[0] = got[1] = got[2] = -7;
    MPI_CHECK(MPI_Get(got, 1, two, right, 0, 1, two, win));
    MPI_CHECK(MPI_Win_flush(right, win));
    check_read(got, 2, "a type of two ints");
    MTEST_CHECK(-7 == got[2], "a type of two ints: the third one was written");
    MPI_Type_free(&two);
    MPI_Type_contiguous(3, MPI_INT, &three);
    MPI_Type_commit(&three);
    MPI_CHECK(MPI_Get(got, 1, three, right, 0, 1, three, win));
    MPI_CHECK(MPI_Win_flush(right, win));
    check_read(got, 3, "a type of three ints");
    MPI_Type_free(&three);
    MPI_CHECK(MPI_Win_unlock(right, win));
}

int main(int argc, char **argv)
{
    const char *flavor = argc > 1 ? argv[1] : "allocate";
    int *base, *src, n;
    MPI_Aint bytes;
    MPI_Win win;

    mtest_init(&argc, &argv);
    mtest_ring(&nprocs, &right, &left);
    me = mtest_rank;
    n = win_ints(me);
    bytes = (MPI_Aint) n * (MPI_Aint) sizeof(int);
    /* past any rank's last displacement */
    src = malloc((size_t) win_ints(nprocs) * sizeof(int));
    for (int k = 0; k < win_ints(nprocs); ++k) {
        src[k] = value(me, k);
    }
    if (0 == strcmp(flavor, "create")) {
        base = malloc((size_t) bytes);
        MPI_CHECK(MPI_Win_create(base, bytes, win_unit(me), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    } else if (0 == strcmp(flavor, "shared")) {
        MPI_CHECK(MPI_Win_allocate_shared(bytes, win_unit(me), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                                          &win));
    } else {
        MPI_CHECK(
            MPI_Win_allocate(bytes, win_unit(me), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    }
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win));
    for (int i = 0; i < n; ++i) {
        base[i] = -1;
    }
    MPI_CHECK(MPI_Win_unlock(me, win));
    MPI_Barrier(MPI_COMM_WORLD);

    lock_all_round(win, src);
    lock_and_fence_rounds(win, src);
    MPI_Barrier(MPI_COMM_WORLD);
    count_and_type_round(win);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win));
    for (int i = 0; i < n; ++i) {
        MTEST_CHECK(base[i] == expected(me, i), "my int %d is %d, expected %d", i, base[i],
                    expected(me, i));
    }
    MPI_CHECK(MPI_Win_unlock(me, win));

    MPI_CHECK(MPI_Win_free(&win));
    if (0 == strcmp(flavor, "create")) {
        free(base);
    }
    free(src);
    return mtest_finalize();
}
