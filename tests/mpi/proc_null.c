/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * MPI_PROC_NULL is a valid target: RMA calls to it and passive-target
 * synchronization with it (MPI_Win_lock/unlock, the flush family) succeed
 * and do nothing, inside and outside epochs of every kind, and zero-count
 * or zero-size accesses with NULL buffers succeed and touch nothing.
 * Open MPI 4.1's MPI_Win_lock/unlock/flush bindings refuse MPI_PROC_NULL
 * with MPI_ERR_RANK before a component is called; with its argument checks
 * off (mpi_param_check 0, set here before MPI_Init) the call reaches
 * osc/newrma, and that is what this tests.  argv[1]: window flavor.
 */
#include "mtest.h"

static void rma_to_proc_null(MPI_Win win)
{
    int v = 5, r = -1, c = 0;
    MPI_Request req;

    MPI_CHECK(MPI_Put(&v, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win));
    MPI_CHECK(MPI_Get(&r, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win));
    MPI_CHECK(MPI_Accumulate(&v, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, MPI_SUM, win));
    MPI_CHECK(MPI_Get_accumulate(&v, 1, MPI_INT, &r, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT,
                                 MPI_SUM, win));
    MPI_CHECK(MPI_Fetch_and_op(&v, &r, MPI_INT, MPI_PROC_NULL, 0, MPI_SUM, win));
    MPI_CHECK(MPI_Compare_and_swap(&v, &c, &r, MPI_INT, MPI_PROC_NULL, 0, win));
    MPI_CHECK(MPI_Rput(&v, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win, &req));
    MPI_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MTEST_CHECK(-1 == r, "a fetch from MPI_PROC_NULL wrote the result buffer: %d", r);
}

/* @passive: request-based calls are allowed (passive-target epochs only) */
static void empty_accesses(int target, int passive, MPI_Win win)
{
    MPI_Datatype empty;
    MPI_Request req;

    MPI_CHECK(MPI_Type_contiguous(0, MPI_INT, &empty));
    MPI_CHECK(MPI_Type_commit(&empty));
    MPI_CHECK(MPI_Put(NULL, 0, MPI_INT, target, 0, 0, MPI_INT, win));
    MPI_CHECK(MPI_Get(NULL, 0, MPI_INT, target, 0, 0, MPI_INT, win));
    MPI_CHECK(MPI_Accumulate(NULL, 0, MPI_INT, target, 0, 0, MPI_INT, MPI_SUM, win));
    MPI_CHECK(MPI_Accumulate(NULL, 1, empty, target, 0, 1, empty, MPI_SUM, win));
    MPI_CHECK(MPI_Get_accumulate(NULL, 0, MPI_INT, NULL, 0, MPI_INT, target, 0, 0, MPI_INT, MPI_SUM,
                                 win));
    if (passive) {
        MPI_CHECK(MPI_Raccumulate(NULL, 0, MPI_INT, target, 0, 0, MPI_INT, MPI_REPLACE, win, &req));
        MPI_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    MPI_CHECK(MPI_Type_free(&empty));
}

int main(int argc, char **argv)
{
    int nprocs, me, right;
    mtest_win_t w;

    setenv("OMPI_MCA_mpi_param_check", "0", 1);
    mtest_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    me = mtest_rank;
    right = (me + 1) % nprocs;
    mtest_win_create(&w, argc > 1 ? argv[1] : "allocate", 64, MPI_INFO_NULL, MPI_COMM_WORLD);
    MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN);
    memset(w.base, 0x5a, 64);
    MPI_Barrier(MPI_COMM_WORLD);

    /* passive synchronization with MPI_PROC_NULL, no epoch open */
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, MPI_PROC_NULL, 0, w.win));
    rma_to_proc_null(w.win);
    MPI_CHECK(MPI_Win_flush(MPI_PROC_NULL, w.win));
    MPI_CHECK(MPI_Win_flush_local(MPI_PROC_NULL, w.win));
    MPI_CHECK(MPI_Win_unlock(MPI_PROC_NULL, w.win));
    /* inside a lock epoch of a real target, and inside lock_all */
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w.win));
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, MPI_PROC_NULL, 0, w.win));
    rma_to_proc_null(w.win);
    empty_accesses(right, 1, w.win);
    MPI_CHECK(MPI_Win_unlock(MPI_PROC_NULL, w.win));
    MPI_CHECK(MPI_Win_unlock(right, w.win));
    MPI_CHECK(MPI_Win_lock_all(0, w.win));
    rma_to_proc_null(w.win);
    empty_accesses(right, 1, w.win);
    MPI_CHECK(MPI_Win_flush(MPI_PROC_NULL, w.win));
    MPI_CHECK(MPI_Win_flush_local(MPI_PROC_NULL, w.win));
    MPI_CHECK(MPI_Win_unlock_all(w.win));
    /* FENCE epoch */
    MPI_CHECK(MPI_Win_fence(0, w.win));
    rma_to_proc_null(w.win);
    empty_accesses(right, 0, w.win);
    MPI_CHECK(MPI_Win_fence(0, w.win));
    /* a rank outside the group still gets MPI_ERR_RANK from the component */
    mtest_expect_class(MPI_Win_lock(MPI_LOCK_SHARED, nprocs, 0, w.win), MPI_ERR_RANK, MPI_ERR_RANK,
                       "lock of a rank outside the group");
    mtest_expect_class(MPI_Win_flush(nprocs + 3, w.win), MPI_ERR_RANK, MPI_ERR_RANK,
                       "flush of a rank outside the group");
    /* nothing was written: every byte is still the fill */
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 64; ++i) {
        if (0x5a != (unsigned char) w.base[i]) {
            mtest_error("byte %d of my window changed to %#x", i, (unsigned char) w.base[i]);
            break;
        }
    }
    mtest_win_free(&w);
    return mtest_finalize();
}
