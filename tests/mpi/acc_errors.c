/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Accumulate-class calls the standard forbids return a clear error class
 * through MPI_ERRORS_RETURN, and the window stays usable:
 *   outside an epoch                          MPI_ERR_RMA_SYNC
 *   past the end of the target window         MPI_ERR_RMA_RANGE
 *   a user-defined reduction                  MPI_ERR_OP
 *   MAXLOC on MPI_INT, NO_OP in MPI_Accumulate MPI_ERR_OP
 *   REPLACE / SUM on a struct of int + double MPI_ERR_TYPE (or, for SUM,
 *                                             MPI_ERR_ARG from Open MPI's
 *                                             binding, which checks first)
 *   COMPARE_AND_SWAP on MPI_DOUBLE            MPI_ERR_TYPE
 *   origin and target signatures differ       MPI_ERR_TYPE
 *
 * usage: acc_errors FLAVOR
 */
#include "mtest.h"

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    for (int i = 0; i < *len; ++i) {
        ((int *) inout)[i] += ((int *) in)[i];
    }
    (void) dt;
}

int main(int argc, char **argv)
{
    int me, nprocs, other, one = 1, res = 0, ints[4] = {1, 2, 3, 4};
    double d = 1.0, dres;
    MPI_Datatype mixed;
    MPI_Op user;
    mtest_win_t w;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    other = (me + 1) % nprocs;
    mtest_win_create(&w, argc > 1 ? argv[1] : "allocate", 64, MPI_INFO_NULL, MPI_COMM_WORLD);
    MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN);
    {
        int blocklens[2] = {1, 1};
        MPI_Aint displs[2] = {0, 8};
        MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
        MPI_CHECK(MPI_Type_create_struct(2, blocklens, displs, types, &mixed));
        MPI_CHECK(MPI_Type_commit(&mixed));
    }
    MPI_CHECK(MPI_Op_create(user_sum, 1, &user));
    char zero[64] = {0};
    mtest_local_store(&w, 0, zero, sizeof(zero));
    MPI_Barrier(MPI_COMM_WORLD);

    mtest_expect_class(
        MPI_Accumulate(&one, 1, MPI_INT, other, w.disp0[other], 1, MPI_INT, MPI_SUM, w.win),
        MPI_ERR_RMA_SYNC, MPI_ERR_RMA_SYNC, "accumulate outside an epoch");
    mtest_expect_class(MPI_Fetch_and_op(&one, &res, MPI_INT, other, w.disp0[other], MPI_SUM, w.win),
                       MPI_ERR_RMA_SYNC, MPI_ERR_RMA_SYNC, "fetch_and_op outside an epoch");

    MPI_CHECK(MPI_Win_lock_all(0, w.win));
    if (MPI_WIN_FLAVOR_DYNAMIC != w.flavor) {
        mtest_expect_class(MPI_Accumulate(ints, 4, MPI_INT, other, w.disp0[other] + 56, 4, MPI_INT,
                                          MPI_SUM, w.win),
                           MPI_ERR_RMA_RANGE, MPI_ERR_RMA_RANGE, "accumulate past the window");
        mtest_expect_class(
            MPI_Compare_and_swap(&one, &one, &res, MPI_INT, other, w.disp0[other] + 64, w.win),
            MPI_ERR_RMA_RANGE, MPI_ERR_RMA_RANGE, "compare_and_swap past the window");
    }
    mtest_expect_class(
        MPI_Accumulate(&one, 1, MPI_INT, other, w.disp0[other], 1, MPI_INT, user, w.win),
        MPI_ERR_OP, MPI_ERR_OP, "user-defined op");
    mtest_expect_class(MPI_Fetch_and_op(&one, &res, MPI_INT, other, w.disp0[other], user, w.win),
                       MPI_ERR_OP, MPI_ERR_OP, "fetch_and_op with a user-defined op");
    mtest_expect_class(
        MPI_Accumulate(ints, 2, MPI_INT, other, w.disp0[other], 2, MPI_INT, MPI_MAXLOC, w.win),
        MPI_ERR_OP, MPI_ERR_OP, "MAXLOC on MPI_INT");
    mtest_expect_class(
        MPI_Accumulate(&one, 1, MPI_INT, other, w.disp0[other], 1, MPI_INT, MPI_NO_OP, w.win),
        MPI_ERR_OP, MPI_ERR_OP, "NO_OP in MPI_Accumulate");
    {
        /* no bitwise reduction of floating point (MPI-3.1 5.9.2) */
        double dv = 1.0, dr = 0.0;
        mtest_expect_class(MPI_Accumulate(&dv, 1, MPI_DOUBLE, other, w.disp0[other], 1, MPI_DOUBLE,
                                          MPI_BAND, w.win),
                           MPI_ERR_OP, MPI_ERR_OP, "BAND on MPI_DOUBLE");
        mtest_expect_class(
            MPI_Fetch_and_op(&dv, &dr, MPI_DOUBLE, other, w.disp0[other], MPI_BXOR, w.win),
            MPI_ERR_OP, MPI_ERR_OP, "fetch_and_op BXOR on MPI_DOUBLE");
    }
    mtest_expect_class(
        MPI_Accumulate(zero, 1, mixed, other, w.disp0[other], 1, mixed, MPI_REPLACE, w.win),
        MPI_ERR_TYPE, MPI_ERR_TYPE, "REPLACE on int + double");
    mtest_expect_class(
        MPI_Accumulate(zero, 1, mixed, other, w.disp0[other], 1, mixed, MPI_SUM, w.win),
        MPI_ERR_TYPE, MPI_ERR_ARG, "SUM on int + double");
    mtest_expect_class(
        MPI_Compare_and_swap(&d, &d, &dres, MPI_DOUBLE, other, w.disp0[other], w.win), MPI_ERR_TYPE,
        MPI_ERR_TYPE, "compare_and_swap on MPI_DOUBLE");
    mtest_expect_class(
        MPI_Accumulate(ints, 2, MPI_INT, other, w.disp0[other], 1, MPI_INT, MPI_SUM, w.win),
        MPI_ERR_TYPE, MPI_ERR_TYPE, "origin 2 ints, target 1");
    mtest_expect_class(MPI_Get_accumulate(ints, 1, MPI_INT, &res, 1, MPI_LONG, other,
                                          w.disp0[other], 1, MPI_INT, MPI_SUM, w.win),
                       MPI_ERR_TYPE, MPI_ERR_TYPE, "result type differs");

    /* still usable: every rank adds 1 to each target's first int */
    for (int t = 0; t < nprocs; ++t) {
        MPI_CHECK(MPI_Accumulate(&one, 1, MPI_INT, t, w.disp0[t], 1, MPI_INT, MPI_SUM, w.win));
    }
    MPI_CHECK(MPI_Win_unlock_all(w.win));
    MPI_Barrier(MPI_COMM_WORLD);
    int mine;
    mtest_local_load(&w, 0, &mine, sizeof(mine));
    MTEST_CHECK(mine == nprocs, "counter %d after the errors, expected %d", mine, nprocs);

    MPI_Op_free(&user);
    MPI_Type_free(&mixed);
    mtest_win_free(&w);
    return mtest_finalize();
}
