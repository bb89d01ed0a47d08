/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * The window info hints newrma reads are honoured and reported:
 * - MPI_Win_get_info of a window created without info reports the values
 *   in effect (no_locks=false, accumulate_ordering=rar,raw,war,waw,
 *   accumulate_ops=same_op_no_op, same_size=false, same_disp_unit=false);
 * - no_locks=true makes MPI_Win_lock and MPI_Win_lock_all erroneous
 *   (MPI_ERR_RMA_SYNC) while fence epochs work; MPI_Win_set_info with
 *   no_locks=false allows locks again, and get_info says so;
 * - same_size and same_disp_unit: accesses land at the right place and an
 *   access past the (common) size is still MPI_ERR_RMA_RANGE;
 * - same_disp_unit alone, with sizes that differ per rank: each access is
 *   checked against its target's own size;
 * - accumulate_ordering=none is reported as such.
 *
 * usage: info_hints FLAVOR   (create | allocate)
 */
#include "mtest.h"

#define N 16

static void expect_info(MPI_Win win, const char *key, const char *want)
{
    MPI_Info info;
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0;

    MPI_CHECK(MPI_Win_get_info(win, &info));
    MPI_CHECK(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag));
    MTEST_CHECK(flag && 0 == strcmp(value, want), "info %s = %s, expected %s", key,
                flag ? value : "(unset)", want);
    MPI_Info_free(&info);
}

static MPI_Win make_window(const char *flavor, MPI_Info info, int **base)
{
    static int created[4][N];
    static int next = 0;
    MPI_Win win;

    if (0 == strcmp(flavor, "allocate")) {
        MPI_CHECK(MPI_Win_allocate(N * sizeof(int), sizeof(int), info, MPI_COMM_WORLD, base, &win));
    } else {
        *base = created[next++ % 4];
        MPI_CHECK(MPI_Win_create(*base, N * sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &win));
    }
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (int i = 0; i < N; ++i) {
        (*base)[i] = -1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return win;
}

/* A window created with two hints, which its info then reports. */
static MPI_Win window_with(const char *flavor, const char *k1, const char *v1, const char *k2,
                           const char *v2, int **base)
{
    MPI_Info info;
    MPI_Win win;

    MPI_Info_create(&info);
    MPI_Info_set(info, k1, v1);
    MPI_Info_set(info, k2, v2);
    win = make_window(flavor, info, base);
    MPI_Info_free(&info);
    expect_info(win, k1, v1);
    expect_info(win, k2, v2);
    return win;
}

/* same_disp_unit alone: rank r exposes N/2 + r ints, and each origin's
 * range check uses its target's own size (the sizes were exchanged). */
static void sizes_differ(const char *flavor, int me, int nprocs)
{
    static int created[N + 64];
    int right = (me + 1) % nprocs, last = N / 2 + right - 1, *base = created, rc, cls;
    MPI_Aint bytes = (MPI_Aint) ((N / 2 + me) * sizeof(int));
    MPI_Info info;
    MPI_Win win;

    MPI_Info_create(&info);
    MPI_Info_set(info, "same_disp_unit", "true");
    if (0 == strcmp(flavor, "allocate")) {
        MPI_CHECK(MPI_Win_allocate(bytes, sizeof(int), info, MPI_COMM_WORLD, &base, &win));
    } else {
        MPI_CHECK(MPI_Win_create(base, bytes, sizeof(int), info, MPI_COMM_WORLD, &win));
    }
    MPI_Info_free(&info);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    MPI_CHECK(MPI_Put(&me, 1, MPI_INT, right, last, 1, MPI_INT, win));
    rc = MPI_Put(&me, 1, MPI_INT, right, last + 1, 1, MPI_INT, win);
    MPI_Error_class(rc, &cls);
    MTEST_CHECK(MPI_ERR_RMA_RANGE == cls, "PUT past rank %d's own size: class %d", right, cls);
    MPI_CHECK(MPI_Win_unlock(right, win));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win));
    MTEST_CHECK(base[N / 2 + me - 1] == (me + nprocs - 1) % nprocs, "last element %d, expected %d",
                base[N / 2 + me - 1], (me + nprocs - 1) % nprocs);
    MPI_CHECK(MPI_Win_unlock(me, win));
    MPI_CHECK(MPI_Win_free(&win));
}

/* Every rank PUTs its rank into element (its rank + 1) of its right
 * neighbour, under a fence or a lock; then checks what it received. */
static void put_and_check(MPI_Win win, int *base, int me, int nprocs, int use_lock)
{
    int right = (me + 1) % nprocs, left = (me + nprocs - 1) % nprocs;

    if (use_lock) {
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
        MPI_CHECK(MPI_Put(&me, 1, MPI_INT, right, me + 1, 1, MPI_INT, win));
        MPI_CHECK(MPI_Win_unlock(right, win));
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_CHECK(MPI_Win_sync(win));
    } else {
        MPI_CHECK(MPI_Win_fence(0, win));
        MPI_CHECK(MPI_Put(&me, 1, MPI_INT, right, me + 1, 1, MPI_INT, win));
        MPI_CHECK(MPI_Win_fence(0, win));
    }
    MTEST_CHECK(base[left + 1] == left, "element %d holds %d, expected %d (%s)", left + 1,
                base[left + 1], left, use_lock ? "lock" : "fence");
    base[left + 1] = -1;
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    const char *flavor = argc > 1 ? argv[1] : "allocate";
    int me, nprocs, rc, cls, *base;
    MPI_Info info;
    MPI_Win win;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    /* defaults */
    win = make_window(flavor, MPI_INFO_NULL, &base);
    expect_info(win, "no_locks", "false");
    expect_info(win, "accumulate_ordering", "rar,raw,war,waw");
    expect_info(win, "accumulate_ops", "same_op_no_op");
    expect_info(win, "same_size", "false");
    expect_info(win, "same_disp_unit", "false");
    put_and_check(win, base, me, nprocs, 1);
    MPI_CHECK(MPI_Win_free(&win));

    /* no_locks, then allowed again by MPI_Win_set_info */
    win = window_with(flavor, "no_locks", "true", "accumulate_ordering", "none", &base);
    rc = MPI_Win_lock(MPI_LOCK_SHARED, (me + 1) % nprocs, 0, win);
    MPI_Error_class(rc, &cls);
    MTEST_CHECK(MPI_ERR_RMA_SYNC == cls, "MPI_Win_lock with no_locks: class %d", cls);
    rc = MPI_Win_lock_all(0, win);
    MPI_Error_class(rc, &cls);
    MTEST_CHECK(MPI_ERR_RMA_SYNC == cls, "MPI_Win_lock_all with no_locks: class %d", cls);
    put_and_check(win, base, me, nprocs, 0);
    MPI_CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    MPI_Info_create(&info);
    MPI_Info_set(info, "no_locks", "false");
    MPI_CHECK(MPI_Win_set_info(win, info));
    MPI_Info_free(&info);
    expect_info(win, "no_locks", "false");
    put_and_check(win, base, me, nprocs, 1);
    MPI_CHECK(MPI_Win_free(&win));

    /* same_size, same_disp_unit */
    win = window_with(flavor, "same_size", "true", "same_disp_unit", "true", &base);
    put_and_check(win, base, me, nprocs, 1);
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, (me + 1) % nprocs, 0, win));
    rc = MPI_Put(&me, 1, MPI_INT, (me + 1) % nprocs, N, 1, MPI_INT, win);
    MPI_Error_class(rc, &cls);
    MTEST_CHECK(MPI_ERR_RMA_RANGE == cls, "PUT past the common size: class %d", cls);
    MPI_CHECK(MPI_Win_unlock((me + 1) % nprocs, win));
    MPI_CHECK(MPI_Win_free(&win));

    sizes_differ(flavor, me, nprocs);
    return mtest_finalize();
}
