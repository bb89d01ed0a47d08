/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/* Reductions of several element kinds whose results a test replays
 * (acc_by_ref, acc_fetch_copy): each origin's operands by round and
 * element, and the reduction the target must apply, as MPI defines it
 * (8-bit SUM wraps; MAXLOC keeps the lower index on a tie); and the run
 * around them: a window of user memory, its counters, a block every rank
 * updates at once. */
#ifndef ACC_CASES_H
#define ACC_CASES_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

typedef struct {
    int x, i;
} int2_t;

/* Element kinds; C_STRIDED and C_VECTOR are int64 (a strided origin, a
 * strided target). */
enum { C_I64, C_DBL, C_I8, C_XOR16, C_MAXLOC, C_LDBL, C_STRIDED, C_VECTOR };

/* The value an origin @p o gives element @p i in round @p r. */
static int64_t value(int o, int r, int i)
{
    return (int64_t) (o + 1) * (r + 3) + i % 11 - 5;
}

static size_t elem_size(int kind)
{
    switch (kind) {
        case C_DBL:
            return sizeof(double);
        case C_I8:
            return 1;
        case C_XOR16:
            return 2;
        case C_MAXLOC:
            return sizeof(int2_t);
        case C_LDBL:
            return sizeof(long double);
        default:
            return sizeof(int64_t);
    }
}

/* Element @p i of origin @p o's operands in round @p r, stored at @p p. */
static void operand(int kind, int o, int r, int i, void *p)
{
    int64_t v = value(o, r, i);

    switch (kind) {
        case C_DBL:
            *(double *) p = (double) v / 4;
            break;
        case C_I8:
            *(int8_t *) p = (int8_t) (v * 37);
            break;
        case C_XOR16:
            *(uint16_t *) p = (uint16_t) (v * 2654435761u >> 7);
            break;
        case C_MAXLOC:
            ((int2_t *) p)->x = (int) ((v * 7919) % 1000);
            ((int2_t *) p)->i = o * 100000 + i;
            break;
        case C_LDBL:
            *(long double *) p = (long double) v / 8;
            break;
        default:
            *(int64_t *) p = v;
    }
}

/* @p t reduced with @p src (of @p kind), as the target must. */
static void reduce(int kind, void *t, const void *src)
{
    switch (kind) {
        case C_DBL:
            *(double *) t += *(const double *) src;
            break;
        case C_I8:
            *(int8_t *) t =
                (int8_t) (uint8_t) ((uint8_t) * (int8_t *) t + (uint8_t) * (const int8_t *) src);
            break;
        case C_XOR16:
            *(uint16_t *) t ^= *(const uint16_t *) src;
            break;
        case C_MAXLOC: {
            int2_t *a = t;
            const int2_t *b = src;

            if (b->x > a->x || (b->x == a->x && b->i < a->i)) {
                *a = *b;
            }
            break;
        }
        case C_LDBL:
            *(long double *) t += *(const long double *) src;
            break;
        default:
            *(int64_t *) t += *(const int64_t *) src;
    }
}

static MPI_Datatype mpi_type(int kind)
{
    switch (kind) {
        case C_DBL:
            return MPI_DOUBLE;
        case C_I8:
            return MPI_INT8_T;
        case C_XOR16:
            return MPI_UINT16_T;
        case C_MAXLOC:
            return MPI_2INT;
        case C_LDBL:
            return MPI_LONG_DOUBLE;
        default:
            return MPI_INT64_T;
    }
}

static MPI_Op mpi_op(int kind)
{
    return C_XOR16 == kind ? MPI_BXOR : C_MAXLOC == kind ? MPI_MAXLOC : MPI_SUM;
}

/* ---- the run ---- */

#define ACC_RUN_PVARS 2
typedef struct {
    mtest_win_t w;
    int me, nprocs, right, left, sync;
    MPI_T_pvar_session session;
    MPI_T_pvar_handle pvar[ACC_RUN_PVARS];
    int64_t *ones; /* @p nones of them: operands of the block all update */
} acc_run_t;

/* MPI up, a zeroed window of @p flavor and @p bytes per rank, its counters
 * @p names bound, SYNC from argv[2] (lockall when absent). */
static void acc_run_start(acc_run_t *run, int *argc, char ***argv, size_t bytes,
                          const char *const names[ACC_RUN_PVARS], int nones)
{
    int provided;

    mtest_init(argc, argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &run->me);
    MPI_Comm_size(MPI_COMM_WORLD, &run->nprocs);
    run->sync = mtest_sync(*argc > 2 ? (*argv)[2] : "lockall");
    run->right = (run->me + 1) % run->nprocs;
    run->left = (run->me + run->nprocs - 1) % run->nprocs;
    run->ones = malloc((size_t) nones * sizeof(int64_t));
    for (int e = 0; e < nones; ++e) {
        run->ones[e] = 1;
    }
    mtest_win_create(&run->w, *argc > 1 ? (*argv)[1] : "create", bytes, MPI_INFO_NULL,
                     MPI_COMM_WORLD);
    mtest_win_zero(&run->w, bytes);
    MPI_CHECK(MPI_T_pvar_session_create(&run->session));
    mtest_pvars_bind(run->session, names, ACC_RUN_PVARS, &run->w.win, run->pvar);
}

static unsigned long long acc_run_count(const acc_run_t *run, int p)
{
    return mtest_pvar_read(run->session, run->pvar[p]);
}

/* Rank 0's first @p n int64 of its window against @p want(e). */
static void acc_run_check_block(acc_run_t *run, int n, int64_t (*want)(int e))
{
    int64_t *got = malloc((size_t) n * sizeof(int64_t));

    if (0 == run->me) {
        mtest_local_load(&run->w, 0, got, (size_t) n * sizeof(int64_t));
        for (int e = 0; e < n; ++e) {
            if (got[e] != want(e)) {
                MTEST_CHECK(false, "contended element %d is %lld, expected %lld", e,
                            (long long) got[e], (long long) want(e));
                break;
            }
        }
    }
    free(got);
}

static int acc_run_end(acc_run_t *run)
{
    for (int p = 0; p < ACC_RUN_PVARS; ++p) {
        MPI_T_pvar_handle_free(run->session, &run->pvar[p]);
    }
    MPI_T_pvar_session_free(&run->session);
    mtest_win_free(&run->w);
    MPI_T_finalize();
    free(run->ones);
    return mtest_finalize();
}

#endif /* ACC_CASES_H */
