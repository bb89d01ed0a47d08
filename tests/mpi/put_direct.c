/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * MPI_Put and MPI_Get of contiguous data to a node-local target go straight
 * to memory in FENCE, LOCK and LOCK_ALL epochs (the fast path of
 * osc_newrma_ops.c); they keep every check of the full path:
 * - a contiguous type whose data starts past its address (true lb > 0),
 *   count > 1 of a contiguous type, the last element of the window, a
 *   window with disp_unit 4: the data lands where MPI says;
 * - one element past the end, a displacement whose byte offset overflows:
 *   MPI_ERR_RMA_RANGE (a negative one: MPI_ERR_DISP from the binding), nothing
 *   written;
 * - mismatched type sizes: MPI_ERR_TYPE; count 0: success, nothing moved;
 * - a target not locked while another is (MPI_Win_lock): MPI_ERR_RMA_SYNC.
 * argv[1]: window flavor (create, allocate or shared).
 */
#include <stdint.h>

#include "mtest.h"

#define NINTS 32 /* window ints per rank (disp_unit 4) */

enum { SYNC_FENCE, SYNC_LOCK_EXCL, SYNC_LOCK_SHARED, SYNC_LOCKALL, SYNC_COUNT };
static const char *const sync_names[] = {"fence", "exclusive lock", "shared lock", "lock_all"};

#define expect_class(rc, cls, what) mtest_expect_class(rc, cls, cls, what)

static MPI_Datatype shifted; /* two ints, 8 bytes past the address */
static MPI_Datatype three;   /* three contiguous ints */

static int value(int writer, int round, int k)
{
    return 100000 * (writer + 1) + 1000 * round + k;
}

static void epoch_begin(MPI_Win win, int sync, int target)
{
    if (SYNC_FENCE == sync) {
        MPI_CHECK(MPI_Win_fence(0, win));
    } else if (SYNC_LOCKALL == sync) {
        MPI_CHECK(MPI_Win_lock_all(0, win));
    } else {
        MPI_CHECK(MPI_Win_lock(SYNC_LOCK_EXCL == sync ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED,
                               target, 0, win));
    }
}

static void epoch_end(MPI_Win win, int sync, int target)
{
    if (SYNC_FENCE == sync) {
        MPI_CHECK(MPI_Win_fence(0, win));
    } else if (SYNC_LOCKALL == sync) {
        MPI_CHECK(MPI_Win_unlock_all(win));
    } else {
        MPI_CHECK(MPI_Win_unlock(target, win));
    }
}

/* The accesses of one round, as PUTs from @p src or GETs into @p dst. */
static void accesses(MPI_Win win, int target, int *src, int *dst, const char *what)
{
    int rc[4];

    if (NULL != src) {
        rc[0] = MPI_Put(&src[1], 1, MPI_INT, target, 1, 1, MPI_INT, win);
        rc[1] = MPI_Put(&src[4], 1, shifted, target, 4, 1, shifted, win);
        rc[2] = MPI_Put(&src[10], 2, three, target, 10, 2, three, win);
        rc[3] = MPI_Put(&src[NINTS - 1], 1, MPI_INT, target, NINTS - 1, 1, MPI_INT, win);
    } else {
        rc[0] = MPI_Get(&dst[1], 1, MPI_INT, target, 1, 1, MPI_INT, win);
        rc[1] = MPI_Get(&dst[4], 1, shifted, target, 4, 1, shifted, win);
        rc[2] = MPI_Get(&dst[10], 2, three, target, 10, 2, three, win);
        rc[3] = MPI_Get(&dst[NINTS - 1], 1, MPI_INT, target, NINTS - 1, 1, MPI_INT, win);
    }
    for (int i = 0; i < 4; ++i) {
        MTEST_CHECK(MPI_SUCCESS == rc[i], "%s %d failed: %d", what, i, rc[i]);
    }
}

/* Accesses that must fail, and the empty one that must not. */
static void bad_accesses(MPI_Win win, int target, int *buf, const char *what)
{
    char msg[192];

    snprintf(msg, sizeof msg, "%s: put one past the end", what);
    expect_class(MPI_Put(buf, 1, MPI_INT, target, NINTS, 1, MPI_INT, win), MPI_ERR_RMA_RANGE, msg);
    snprintf(msg, sizeof msg, "%s: get straddling the end", what);
    expect_class(MPI_Get(buf, 1, shifted, target, NINTS - 3, 1, shifted, win), MPI_ERR_RMA_RANGE,
                 msg);
    snprintf(msg, sizeof msg, "%s: put at displacement -1", what);
    /* Open MPI's binding answers this one itself */
    mtest_expect_class(MPI_Put(buf, 1, MPI_INT, target, -1, 1, MPI_INT, win), MPI_ERR_RMA_RANGE,
                       MPI_ERR_DISP, msg);
    snprintf(msg, sizeof msg, "%s: get at an overflowing displacement", what);
    expect_class(MPI_Get(buf, 1, MPI_INT, target, (MPI_Aint) (INTPTR_MAX / 2), 1, MPI_INT, win),
                 MPI_ERR_RMA_RANGE, msg);
    snprintf(msg, sizeof msg, "%s: put of mismatched sizes", what);
    expect_class(MPI_Put(buf, 1, MPI_INT, target, 0, 1, MPI_DOUBLE, win), MPI_ERR_TYPE, msg);
    snprintf(msg, sizeof msg, "%s: put of count 0", what);
    expect_class(MPI_Put(buf, 0, MPI_INT, target, 0, 0, MPI_INT, win), MPI_SUCCESS, msg);
}

/* The ints the accesses touch. */
static int touched(int k)
{
    return 1 == k || 6 == k || 7 == k || (k >= 10 && k < 16) || NINTS - 1 == k;
}

static void check(const int *got, int writer, int round, const char *what)
{
    for (int k = 0; k < NINTS; ++k) {
        int want = touched(k) ? value(writer, round, k) : -1;
        MTEST_CHECK(got[k] == want, "%s: int %d is %d, expected %d", what, k, got[k], want);
    }
}

int main(int argc, char **argv)
{
    const char *flavor = argc > 1 ? argv[1] : "allocate";
    int nprocs, me, right, left, *base, src[NINTS], dst[NINTS];
    int blocklen[1] = {2};
    MPI_Aint disp[1] = {8};
    MPI_Win win;

    mtest_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    me = mtest_rank;
    right = (me + 1) % nprocs;
    left = (me + nprocs - 1) % nprocs;
    MPI_Type_create_hindexed(1, blocklen, disp, MPI_INT, &shifted);
    MPI_Type_commit(&shifted);
    MPI_Type_contiguous(3, MPI_INT, &three);
    MPI_Type_commit(&three);

    if (0 == strcmp(flavor, "create")) {
        base = malloc(NINTS * sizeof(int));
        MPI_CHECK(
            MPI_Win_create(base, NINTS * sizeof(int), 4, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    } else if (0 == strcmp(flavor, "shared")) {
        MPI_CHECK(MPI_Win_allocate_shared(NINTS * sizeof(int), 4, MPI_INFO_NULL, MPI_COMM_WORLD,
                                          &base, &win));
    } else {
        MPI_CHECK(
            MPI_Win_allocate(NINTS * sizeof(int), 4, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    }
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);

    for (int sync = 0; sync < SYNC_COUNT; ++sync) {
        char what[96];

        /* PUT round: I write my right neighbour's window */
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win));
        for (int k = 0; k < NINTS; ++k) {
            base[k] = -1;
        }
        MPI_CHECK(MPI_Win_unlock(me, win));
        for (int k = 0; k < NINTS; ++k) {
            src[k] = value(me, sync, k);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        epoch_begin(win, sync, right);
        snprintf(what, sizeof what, "%s put", sync_names[sync]);
        accesses(win, right, src, NULL, what);
        bad_accesses(win, right, dst, what);
        epoch_end(win, sync, right);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win));
        check(base, left, sync, what);
        MPI_CHECK(MPI_Win_unlock(me, win));

        /* GET round: I read back what I wrote there */
        for (int k = 0; k < NINTS; ++k) {
            dst[k] = -1;
        }
        epoch_begin(win, sync, right);
        snprintf(what, sizeof what, "%s get", sync_names[sync]);
        accesses(win, right, NULL, dst, what);
        epoch_end(win, sync, right);
        check(dst, me, sync, what);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    /* only my right neighbour is locked: my own window is not accessible */
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    if (right != me) {
        expect_class(MPI_Put(src, 1, MPI_INT, me, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC,
                     "put to a target not locked");
        expect_class(MPI_Get(dst, 1, MPI_INT, me, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC,
                     "get from a target not locked");
    }
    MPI_CHECK(MPI_Win_unlock(right, win));

    MPI_CHECK(MPI_Win_free(&win));
    if (0 == strcmp(flavor, "create")) {
        free(base);
    }
    MPI_Type_free(&shifted);
    MPI_Type_free(&three);
    return mtest_finalize();
}
