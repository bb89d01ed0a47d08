/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * A dynamic window whose memory is attached as adjacent regions (one buffer
 * attached in pieces): a PUT, an ACCUMULATE and a GET_ACCUMULATE that span
 * several pieces land in all of them, from every rank into one target and
 * into itself, under lock and lock_all; an access running past the last
 * piece is still MPI_ERR_RMA_RANGE.  Then a middle piece is detached and a
 * FENCE separates the epochs (origins refresh their view of a target's
 * regions there; in passive epochs alone they do not yet): an access across
 * the hole is refused, the pieces on either side still work.
 * argv[1]: lock | lockall.
 */
#include "mtest.h"

#define PIECES     4
#define PIECE_INTS 8
#define NINTS      (PIECES * PIECE_INTS)

static void epoch_begin(int lockall, int target, MPI_Win win)
{
    if (lockall) {
        MPI_CHECK(MPI_Win_lock_all(0, win));
    } else {
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
    }
}

static void epoch_end(int lockall, int target, MPI_Win win)
{
    if (lockall) {
        MPI_CHECK(MPI_Win_unlock_all(win));
    } else {
        MPI_CHECK(MPI_Win_unlock(target, win));
    }
}

int main(int argc, char **argv)
{
    int nprocs, me, lockall = argc > 1 && 0 == strcmp(argv[1], "lockall");
    int *mem = calloc(NINTS, sizeof(int)), src[NINTS], got[NINTS];
    MPI_Aint base0, mine;
    MPI_Win win;

    mtest_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    me = mtest_rank;
    MPI_CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    /* attached out of order: adjacency, not attach order, makes the run */
    for (int p = PIECES - 1; p >= 0; --p) {
        MPI_CHECK(MPI_Win_attach(win, mem + p * PIECE_INTS, PIECE_INTS * sizeof(int)));
    }
    MPI_Get_address(mem, &mine);
    base0 = mine;
    MPI_Bcast(&base0, 1, MPI_AINT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < NINTS; ++i) {
        src[i] = i + 1;
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* everybody accumulates across all pieces of rank 0, rank 0 puts first */
    if (0 == me) {
        epoch_begin(lockall, 0, win);
        MPI_CHECK(MPI_Put(src, NINTS, MPI_INT, 0, base0, NINTS, MPI_INT, win));
        epoch_end(lockall, 0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    epoch_begin(lockall, 0, win);
    MPI_CHECK(MPI_Accumulate(src, NINTS, MPI_INT, 0, base0, NINTS, MPI_INT, MPI_SUM, win));
    epoch_end(lockall, 0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    epoch_begin(lockall, 0, win);
    MPI_CHECK(MPI_Get_accumulate(NULL, 0, MPI_INT, got, NINTS, MPI_INT, 0, base0, NINTS, MPI_INT,
                                 MPI_NO_OP, win));
    /* one int past the last piece */
    mtest_expect_class(MPI_Put(src, NINTS, MPI_INT, 0, base0 + sizeof(int), NINTS, MPI_INT, win),
                       MPI_ERR_RMA_RANGE, MPI_ERR_RMA_RANGE, "put past the last piece");
    epoch_end(lockall, 0, win);
    for (int i = 0; i < NINTS; ++i) {
        if (got[i] != (nprocs + 1) * (i + 1)) {
            mtest_error("element %d across pieces: %d, expected %d", i, got[i],
                        (nprocs + 1) * (i + 1));
            break;
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* rank 0 detaches piece 1: across the hole is refused, each side works */
    if (0 == me) {
        MPI_CHECK(MPI_Win_detach(win, mem + PIECE_INTS));
    }
    MPI_CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED, win));
    MPI_Barrier(MPI_COMM_WORLD); /* such a fence need not synchronize */
    if (0 != me || 1 == nprocs) {
        epoch_begin(lockall, 0, win);
        mtest_expect_class(
            MPI_Put(src, 2 * PIECE_INTS, MPI_INT, 0, base0, 2 * PIECE_INTS, MPI_INT, win),
            MPI_ERR_RMA_RANGE, MPI_ERR_RMA_RANGE, "put across a detached piece");
        MPI_CHECK(MPI_Accumulate(src, 2 * PIECE_INTS, MPI_INT, 0,
                                 base0 + 2 * PIECE_INTS * (MPI_Aint) sizeof(int), 2 * PIECE_INTS,
                                 MPI_INT, MPI_SUM, win));
        MPI_CHECK(
            MPI_Accumulate(src, PIECE_INTS, MPI_INT, 0, base0, PIECE_INTS, MPI_INT, MPI_SUM, win));
        epoch_end(lockall, 0, win);
    }
    /* my own window, across my own pieces (all still attached) */
    epoch_begin(lockall, me, win);
    if (0 != me) {
        MPI_CHECK(MPI_Put(src, NINTS, MPI_INT, me, mine, NINTS, MPI_INT, win));
    }
    epoch_end(lockall, me, win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (0 == me) {
        for (int i = 0; i < NINTS; ++i) {
            int expect = (nprocs + 1) * (i + 1);
            if (i < PIECE_INTS || i >= 2 * PIECE_INTS) {
                expect += (nprocs - 1) * src[i < PIECE_INTS ? i : i - 2 * PIECE_INTS];
            }
            if (mem[i] != expect) {
                mtest_error("after the detach, element %d: %d, expected %d", i, mem[i], expect);
                break;
            }
        }
    } else if (0 != memcmp(mem, src, sizeof(src))) {
        mtest_error("put across my own pieces did not land");
    }
    for (int p = 0; p < PIECES; ++p) {
        if (0 != me || 1 != p) {
            MPI_CHECK(MPI_Win_detach(win, mem + p * PIECE_INTS));
        }
    }
    MPI_CHECK(MPI_Win_free(&win));
    free(mem);
    return mtest_finalize();
}
