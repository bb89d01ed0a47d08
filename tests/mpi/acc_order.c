/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Accumulate ordering (default accumulate_ordering rar,raw,war,waw): from one
 * origin to one location, a later accumulate sees an earlier one without
 * any flush in between.  Each rank owns a slot on every target and runs,
 * per round, without flushing:
 *   REPLACE of 4 int64 (packets), FETCH_AND_OP(NO_OP) of element 0 (a UCX
 *   atomic when remote: must not overtake the packets), FETCH_AND_OP(SUM)
 *   of element 1 (atomic), GET_ACCUMULATE(NO_OP) of all 4 (packets: must
 *   not overtake the atomic), then REPLACE and NO_OP on a double (packets).
 * With "none" the same sequence runs, flushed between the steps.
 *
 * usage: acc_order FLAVOR SYNC [ordered|none] [ROUNDS]
 */
#include "mtest.h"

#define SLOT 48 /* 4 int64 + 1 double + padding, per origin */

int main(int argc, char **argv)
{
    int me, nprocs, sync, ordered, rounds;
    MPI_Info info = MPI_INFO_NULL;
    mtest_win_t w;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    sync = mtest_sync(argc > 2 ? argv[2] : "lockall");
    ordered = argc > 3 ? 0 != strcmp(argv[3], "none") : 1;
    rounds = argc > 4 ? atoi(argv[4]) : 20;
    if (!ordered && mtest_sync_is_active(sync)) {
        fprintf(stderr, "accumulate_ordering none needs lock or lockall (flushes)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (!ordered) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "accumulate_ordering", "none");
    }
    mtest_win_create(&w, argc > 1 ? argv[1] : "allocate", (size_t) SLOT * nprocs, info,
                     MPI_COMM_WORLD);
    if (MPI_INFO_NULL != info) {
        MPI_Info_free(&info);
    }
    char *zero = calloc((size_t) nprocs, SLOT);
    mtest_local_store(&w, 0, zero, (size_t) SLOT * nprocs);
    MPI_Barrier(MPI_COMM_WORLD);

    /* per target: operands and results stay untouched until the epoch ends */
    struct step {
        int64_t put[4], sum, fop0, fop1, all[4];
        double d, dgot;
    } *st = calloc((size_t) nprocs, sizeof(*st));

    for (int round = 1; round <= rounds; ++round) {
        mtest_epoch_begin(w.win, sync);
        for (int k = 0; k < nprocs; ++k) {
            int t = (me + k) % nprocs;
            MPI_Aint at = w.disp0[t] + (MPI_Aint) SLOT * me;
            struct step *s = &st[t];

            for (int i = 0; i < 4; ++i) {
                s->put[i] = 1000 * round + 10 * me + i;
            }
            s->sum = 7;
            s->d = round + 0.5;
            mtest_op_begin(w.win, sync, t);
            MPI_CHECK(
                MPI_Accumulate(s->put, 4, MPI_INT64_T, t, at, 4, MPI_INT64_T, MPI_REPLACE, w.win));
            if (!ordered) {
                mtest_op_end(w.win, sync, t), mtest_op_begin(w.win, sync, t);
            }
            MPI_CHECK(MPI_Fetch_and_op(&s->sum, &s->fop0, MPI_INT64_T, t, at, MPI_NO_OP, w.win));
            MPI_CHECK(MPI_Fetch_and_op(&s->sum, &s->fop1, MPI_INT64_T, t, at + 8, MPI_SUM, w.win));
            if (!ordered) {
                mtest_op_end(w.win, sync, t), mtest_op_begin(w.win, sync, t);
            }
            MPI_CHECK(MPI_Get_accumulate(s->put, 4, MPI_INT64_T, s->all, 4, MPI_INT64_T, t, at, 4,
                                         MPI_INT64_T, MPI_NO_OP, w.win));
            MPI_CHECK(MPI_Accumulate(&s->d, 1, MPI_DOUBLE, t, at + 32, 1, MPI_DOUBLE, MPI_REPLACE,
                                     w.win));
            if (!ordered) {
                mtest_op_end(w.win, sync, t), mtest_op_begin(w.win, sync, t);
            }
            MPI_CHECK(MPI_Get_accumulate(&s->d, 1, MPI_DOUBLE, &s->dgot, 1, MPI_DOUBLE, t, at + 32,
                                         1, MPI_DOUBLE, MPI_NO_OP, w.win));
            mtest_op_end(w.win, sync, t);
        }
        mtest_epoch_end(w.win, sync);
        for (int t = 0; t < nprocs; ++t) {
            struct step *s = &st[t];
            int64_t base = 1000 * round + 10 * me;
            MTEST_CHECK(s->fop0 == base,
                        "round %d target %d: NO_OP after REPLACE read %ld, "
                        "expected %ld",
                        round, t, (long) s->fop0, (long) base);
            MTEST_CHECK(s->fop1 == base + 1, "round %d target %d: SUM after REPLACE read %ld",
                        round, t, (long) s->fop1);
            MTEST_CHECK(s->all[0] == base && s->all[1] == base + 1 + 7 && s->all[2] == base + 2 &&
                            s->all[3] == base + 3,
                        "round %d target %d: GET_ACCUMULATE read %ld %ld %ld %ld", round, t,
                        (long) s->all[0], (long) s->all[1], (long) s->all[2], (long) s->all[3]);
            MTEST_CHECK(s->dgot == round + 0.5, "round %d target %d: double read %g", round, t,
                        s->dgot);
        }
    }
    free(st);
    free(zero);
    mtest_win_free(&w);
    return mtest_finalize();
}
