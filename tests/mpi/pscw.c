/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * POST-START-COMPLETE-WAIT on one window flavor, with groups that are
 * proper subsets of the window's group: rank r exposes its window to
 * r-1 and r-2 and accesses r+1 and r+2 (mod n; at 2 ranks that includes
 * itself, at 4 ranks it leaves one rank out either way).
 *
 * Each epoch, every origin PUTs a pattern of SIZE bytes into its own slot at
 * each target, GETs the target's slot 0 (filled by the target before
 * WIN_POST) and adds its rank + 1 into the target's counter with
 * MPI_Accumulate.  After WIN_WAIT (or an MPI_Win_test loop, every other
 * epoch) the target checks its slots and counter; after WIN_COMPLETE the
 * origin checks what it got.  Every third epoch runs with MPI_MODE_NOCHECK
 * on both sides (post, barrier, start).  Epochs follow each other without
 * barriers, so a POST of epoch k+1 meeting a WIN_START of epoch k would show.
 *
 * Then the errors, through MPI_ERRORS_RETURN, each leaving the window
 * usable: complete without start, wait and test without post, a second
 * post, a second start, RMA to a rank outside the start group, MPI_Rput in a
 * PSCW epoch, fence inside an exposure or access epoch; one more epoch
 * checks the data again.
 *
 * usage: pscw FLAVOR [SIZE] [EPOCHS]
 */
#include "mtest.h"

#define NDIST 2 /* targets r+1 and r+2 */

static int nprocs, me;
static size_t size;
static mtest_win_t w;

/* slot 0: the target's own data; slot d (1..NDIST): PUT by origin r-d;
 * after the slots, the 8-byte counter */
static size_t counter_off(void)
{
    return (NDIST + 1) * size;
}

static uint32_t seed_of(int rank, int epoch, int slot)
{
    return (uint32_t) (epoch * 1000 + rank * 10 + slot);
}

static MPI_Group group_of(int first, int step, int n)
{
    MPI_Group world, g;
    int ranks[NDIST], k = 0;

    for (int i = 0; i < n; ++i) {
        int r = ((me + first + i * step) % nprocs + nprocs) % nprocs;
        int dup = 0;
        for (int j = 0; j < k; ++j) {
            dup |= ranks[j] == r;
        }
        if (!dup) {
            ranks[k++] = r;
        }
    }
    MPI_Win_get_group(w.win, &world);
    MPI_Group_incl(world, k, ranks, &g);
    MPI_Group_free(&world);
    return g;
}

static void fill_own(int epoch)
{
    memset(w.base, 0, counter_off() + sizeof(int64_t));
    mtest_fill(w.base, size, seed_of(me, epoch, 0));
}

/* Target side: slot d holds origin (me - d)'s pattern, the counter the sum
 * of the origins' rank + 1 (r-1 and r-2 are distinct from 2 ranks on). */
static void check_target(int epoch)
{
    int64_t want = 0, got;

    for (int d = 1; d <= NDIST; ++d) {
        int origin = ((me - d) % nprocs + nprocs) % nprocs;
        want += origin + 1;
        for (size_t i = 0; i < size; ++i) {
            if ((unsigned char) w.base[d * size + i] !=
                mtest_pattern(seed_of(origin, epoch, d), i)) {
                mtest_error("epoch %d: slot %d byte %zu from rank %d wrong", epoch, d, i, origin);
                break;
            }
        }
    }
    memcpy(&got, w.base + counter_off(), sizeof(got));
    MTEST_CHECK(got == want, "epoch %d: counter %lld, expected %lld", epoch, (long long) got,
                (long long) want);
}

/* One epoch; the exposure side finishes with MPI_Win_wait, or with an
 * MPI_Win_test loop when @p use_test. */
static void epoch(int e, int nocheck, int use_test, unsigned char *put, unsigned char *got)
{
    MPI_Group origins = group_of(-1, -1, NDIST), targets = group_of(1, 1, NDIST);
    int ntargets, assert_ = nocheck ? MPI_MODE_NOCHECK : 0;

    fill_own(e);
    MPI_CHECK(MPI_Win_post(origins, assert_, w.win));
    if (nocheck) {
        MPI_Barrier(MPI_COMM_WORLD); /* every post precedes every start */
    }
    MPI_CHECK(MPI_Win_start(targets, assert_, w.win));
    MPI_Group_size(targets, &ntargets);
    for (int d = 1; d <= ntargets; ++d) {
        int t = (me + d) % nprocs;
        int64_t add = me + 1;
        unsigned char *p = put + (d - 1) * size, *g = got + (d - 1) * size;
        mtest_fill(p, size, seed_of(me, e, d));
        memset(g, 0xAB, size);
        MPI_CHECK(MPI_Put(p, (int) size, MPI_BYTE, t, w.disp0[t] + (MPI_Aint) (d * size),
                          (int) size, MPI_BYTE, w.win));
        MPI_CHECK(MPI_Get(g, (int) size, MPI_BYTE, t, w.disp0[t], (int) size, MPI_BYTE, w.win));
        MPI_CHECK(MPI_Accumulate(&add, 1, MPI_INT64_T, t, w.disp0[t] + (MPI_Aint) counter_off(), 1,
                                 MPI_INT64_T, MPI_SUM, w.win));
    }
    MPI_CHECK(MPI_Win_complete(w.win));
    for (int d = 1; d <= ntargets; ++d) {
        int t = (me + d) % nprocs;
        for (size_t i = 0; i < size; ++i) {
            if (got[(d - 1) * size + i] != mtest_pattern(seed_of(t, e, 0), i)) {
                mtest_error("epoch %d: GET from rank %d byte %zu wrong", e, t, i);
                break;
            }
        }
    }
    if (use_test) {
        int flag = 0;
        while (!flag) {
            MPI_CHECK(MPI_Win_test(w.win, &flag));
        }
    } else {
        MPI_CHECK(MPI_Win_wait(w.win));
    }
    check_target(e);
    MPI_Group_free(&origins);
    MPI_Group_free(&targets);
}

#define expect_sync(rc, what) mtest_expect_class(rc, MPI_ERR_RMA_SYNC, MPI_ERR_RMA_SYNC, what)

static void errors(void)
{
    MPI_Group left = group_of(-1, -1, 1), right = group_of(1, 1, 1);
    MPI_Request req;
    int flag, value = 7;

    MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN);
    expect_sync(MPI_Win_complete(w.win), "complete without start");
    expect_sync(MPI_Win_wait(w.win), "wait without post");
    expect_sync(MPI_Win_test(w.win, &flag), "test without post");

    /* expose to the left neighbour, access the right one */
    MPI_CHECK(MPI_Win_post(left, 0, w.win));
    expect_sync(MPI_Win_post(left, 0, w.win), "second post");
    expect_sync(MPI_Win_fence(0, w.win), "fence inside an exposure epoch");
    MPI_CHECK(MPI_Win_start(right, 0, w.win));
    expect_sync(MPI_Win_start(right, 0, w.win), "second start");
    expect_sync(MPI_Win_fence(0, w.win), "fence inside an access epoch");
    expect_sync(MPI_Put(&value, 1, MPI_INT, me, w.disp0[me], 1, MPI_INT, w.win),
                "put to a rank outside the start group");
    int right_rank = (me + 1) % nprocs;
    expect_sync(
        MPI_Rput(&value, 1, MPI_INT, right_rank, w.disp0[right_rank], 1, MPI_INT, w.win, &req),
        "rput in a PSCW epoch");
    MPI_CHECK(MPI_Win_complete(w.win));
    MPI_CHECK(MPI_Win_wait(w.win));
    MPI_Group_free(&left);
    MPI_Group_free(&right);
    MPI_Win_set_errhandler(w.win, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    int epochs;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    size = argc > 2 ? (size_t) atol(argv[2]) : 4096;
    epochs = argc > 3 ? atoi(argv[3]) : 12;
    mtest_win_create(&w, argc > 1 ? argv[1] : "allocate", counter_off() + sizeof(int64_t),
                     MPI_INFO_NULL, MPI_COMM_WORLD);
    unsigned char *put = malloc(NDIST * size), *got = malloc(NDIST * size);

    for (int e = 0; e < epochs; ++e) {
        epoch(e, e % 3 == 2, e % 2 == 1, put, got);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    errors();
    MPI_Barrier(MPI_COMM_WORLD);
    epoch(epochs, 0, 0, put, got);
    MPI_Barrier(MPI_COMM_WORLD);
    free(put);
    free(got);
    mtest_win_free(&w);
    return mtest_finalize();
}
