/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * FETCH_AND_OP tickets: every rank draws ITERS tickets with
 * MPI_Fetch_and_op(1, MPI_SUM) from one counter per type (int32, int64,
 * double) on every target in turn.  Per counter, the tickets handed out are
 * exactly 0 .. n-1, each once: a lost or duplicated update shows as a
 * repeated or missing ticket.  Also GET_ACCUMULATE(NO_OP) reads the final
 * counters.
 *
 * usage: acc_fop FLAVOR SYNC [ITERS]     (SYNC: fence | lock | lockall)
 */
#include "mtest.h"

enum { T_INT32, T_INT64, T_DOUBLE, NTYPES };
static const char *const type_names[NTYPES] = {"int32", "int64", "double"};

static MPI_Datatype type_of(int t)
{
    return T_INT32 == t ? MPI_INT32_T : T_INT64 == t ? MPI_INT64_T : MPI_DOUBLE;
}

/* counters live at byte 8 * t of each target's window */
static long value_of(int t, const void *p)
{
    return T_INT32 == t   ? (long) *(const int32_t *) p
           : T_INT64 == t ? (long) *(const int64_t *) p
                          : (long) *(const double *) p;
}

int main(int argc, char **argv)
{
    int me, nprocs, sync, iters;
    mtest_win_t w;
    char zero[8 * NTYPES] = {0};

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    sync = mtest_sync(argc > 2 ? argv[2] : "lockall");
    iters = argc > 3 ? atoi(argv[3]) : 50;
    mtest_win_create(&w, argc > 1 ? argv[1] : "allocate", sizeof(zero), MPI_INFO_NULL,
                     MPI_COMM_WORLD);
    mtest_local_store(&w, 0, zero, sizeof(zero));
    MPI_Barrier(MPI_COMM_WORLD);

    /* tickets[t][target][i]: the value drawn in round i */
    int n = iters * nprocs;
    union {
        int32_t i32;
        int64_t i64;
        double d;
    } *res = calloc((size_t) NTYPES * n, sizeof(*res));
    long *mine = calloc((size_t) NTYPES * n, sizeof(long)), *all = NULL;

    mtest_epoch_begin(w.win, sync);
    for (int i = 0; i < iters; ++i) {
        for (int k = 0; k < nprocs; ++k) {
            int target = (me + k) % nprocs;
            for (int t = 0; t < NTYPES; ++t) {
                /* origin buffers stay untouched until the epoch ends */
                static const int32_t one32 = 1;
                static const int64_t one64 = 1;
                static const double oned = 1.0;
                const void *one = T_INT32 == t   ? (const void *) &one32
                                  : T_INT64 == t ? (const void *) &one64
                                                 : (const void *) &oned;
                mtest_op_begin(w.win, sync, target);
                MPI_CHECK(MPI_Fetch_and_op(one, &res[t * n + i * nprocs + target], type_of(t),
                                           target, w.disp0[target] + 8 * t, MPI_SUM, w.win));
                mtest_op_end(w.win, sync, target);
            }
        }
    }
    mtest_epoch_end(w.win, sync);

    for (int t = 0; t < NTYPES; ++t) {
        for (int j = 0; j < n; ++j) {
            mine[t * n + j] = value_of(t, &res[t * n + j]);
        }
    }
    if (0 == me) {
        all = malloc(sizeof(long) * NTYPES * n * nprocs);
    }
    MPI_Gather(mine, NTYPES * n, MPI_LONG, all, NTYPES * n, MPI_LONG, 0, MPI_COMM_WORLD);
    if (0 == me) {
        /* per type and target: every rank's tickets together are 0..n-1 */
        char *seen = malloc((size_t) n);
        for (int t = 0; t < NTYPES; ++t) {
            for (int target = 0; target < nprocs; ++target) {
                memset(seen, 0, (size_t) n);
                for (int r = 0; r < nprocs; ++r) {
                    for (int i = 0; i < iters; ++i) {
                        long v = all[(size_t) r * NTYPES * n + t * n + i * nprocs + target];
                        if (v < 0 || v >= n || seen[v]++) {
                            mtest_error("%s target %d: ticket %ld from rank %d repeated or out "
                                        "of range",
                                        type_names[t], target, v, r);
                        }
                    }
                }
            }
        }
        free(seen);
    }

    /* GET_ACCUMULATE(NO_OP) reads every counter: n each */
    char *got = calloc((size_t) nprocs * NTYPES, 8);
    mtest_epoch_begin(w.win, sync);
    for (int target = 0; target < nprocs; ++target) {
        for (int t = 0; t < NTYPES; ++t) {
            char *g = got + 8 * (target * NTYPES + t);
            mtest_op_begin(w.win, sync, target);
            /* the origin buffer is ignored under MPI_NO_OP */
            MPI_CHECK(MPI_Get_accumulate(g, 1, type_of(t), g, 1, type_of(t), target,
                                         w.disp0[target] + 8 * t, 1, type_of(t), MPI_NO_OP, w.win));
            mtest_op_end(w.win, sync, target);
        }
    }
    mtest_epoch_end(w.win, sync);
    for (int target = 0; target < nprocs; ++target) {
        for (int t = 0; t < NTYPES; ++t) {
            long v = value_of(t, got + 8 * (target * NTYPES + t));
            MTEST_CHECK(v == n, "%s counter at %d is %ld, expected %d", type_names[t], target, v,
                        n);
        }
    }
    free(got);
    {
        char local[8 * NTYPES];
        mtest_local_load(&w, 0, local, sizeof(local));
        for (int t = 0; t < NTYPES; ++t) {
            MTEST_CHECK(value_of(t, local + 8 * t) == n, "my %s counter is %ld, expected %d",
                        type_names[t], value_of(t, local + 8 * t), n);
        }
    }
    free(res);
    free(mine);
    free(all);
    mtest_win_free(&w);
    return mtest_finalize();
}
