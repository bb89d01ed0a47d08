/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Element-wise atomicity between every kind of accumulate-class call on
 * overlapping elements, at once from every rank: multi-element
 * MPI_Accumulate(SUM) and MPI_Get_accumulate(SUM) over the whole array,
 * single-element MPI_Fetch_and_op(SUM) on each element in turn, and (for
 * integer types) an increment by MPI_Compare_and_swap retry loop.  Every
 * call adds 1 to each element it touches, so every element's final value is
 * exactly the number of calls that touched it: a lost update shows.  Types:
 * 1-, 2-, 4- and 8-byte integers, double, long double, and MAXLOC pairs
 * (MPI_2INT: each rank raises the value of pair i to its own step count,
 * the location to its rank; the result is the largest step of all).
 *
 * usage: acc_mix FLAVOR SYNC [ITERS] [COUNT]   (SYNC: lock | lockall)
 */
#include "mtest.h"

enum { T_U8, T_U16, T_I32, T_I64, T_DBL, T_LDBL, NTYPES };
static const char *const names[NTYPES] = {"uint8", "uint16", "int32",
                                          "int64", "double", "long double"};

static MPI_Datatype type_of(int t)
{
    static MPI_Datatype types[NTYPES];
    types[T_U8] = MPI_UINT8_T;
    types[T_U16] = MPI_UINT16_T;
    types[T_I32] = MPI_INT32_T;
    types[T_I64] = MPI_INT64_T;
    types[T_DBL] = MPI_DOUBLE;
    types[T_LDBL] = MPI_LONG_DOUBLE;
    return types[t];
}

static size_t size_of(int t)
{
    int size;
    MPI_Type_size(type_of(t), &size);
    return (size_t) size;
}

static void set_one(int t, void *p)
{
    switch (t) {
        case T_U8:
            *(uint8_t *) p = 1;
            break;
        case T_U16:
            *(uint16_t *) p = 1;
            break;
        case T_I32:
            *(int32_t *) p = 1;
            break;
        case T_I64:
            *(int64_t *) p = 1;
            break;
        case T_DBL:
            *(double *) p = 1;
            break;
        default:
            *(long double *) p = 1;
            break;
    }
}

static long long value_of(int t, const void *p)
{
    switch (t) {
        case T_U8:
            return *(const uint8_t *) p;
        case T_U16:
            return *(const uint16_t *) p;
        case T_I32:
            return *(const int32_t *) p;
        case T_I64:
            return *(const int64_t *) p;
        case T_DBL:
            return (long long) *(const double *) p;
        default:
            return (long long) *(const long double *) p;
    }
}

/* CAS increment of one integer element: read, then swap old for old+1 until it holds. */
static void cas_increment(int t, MPI_Win win, int target, MPI_Aint disp)
{
    char old[8] = {0}, next[8], seen[8];
    long long v;

    MPI_CHECK(MPI_Fetch_and_op(NULL, old, type_of(t), target, disp, MPI_NO_OP, win));
    MPI_CHECK(MPI_Win_flush(target, win));
    for (;;) {
        v = value_of(t, old) + 1;
        memcpy(next, &v, size_of(t)); /* little endian: the low bytes */
        MPI_CHECK(MPI_Compare_and_swap(next, old, seen, type_of(t), target, disp, win));
        MPI_CHECK(MPI_Win_flush(target, win));
        if (0 == memcmp(seen, old, size_of(t))) {
            return;
        }
        memcpy(old, seen, size_of(t));
    }
}

int main(int argc, char **argv)
{
    int me, nprocs, sync, iters, count;
    size_t stride, bytes;
    char *ones, *result;
    mtest_win_t w;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    sync = mtest_sync(argc > 2 ? argv[2] : "lockall");
    iters = argc > 3 ? atoi(argv[3]) : 20;
    count = argc > 4 ? atoi(argv[4]) : 256;
    stride = (size_t) count * 16; /* one array per type, room for long double */
    bytes = stride * NTYPES + (size_t) count * 2 * sizeof(int);
    /* zeroed: a long double's padding bytes travel too (valgrind) */
    ones = calloc(1, stride);
    result = malloc(stride);
    mtest_win_create(&w, argc > 1 ? argv[1] : "allocate", bytes, MPI_INFO_NULL, MPI_COMM_WORLD);
    memset(w.base, 0, bytes);
    for (int i = 0; i < count; ++i) {
        ((int *) (w.base + stride * NTYPES))[2 * i + 1] = -1; /* MAXLOC pairs: value 0, loc -1 */
    }
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));

    for (int t = 0; t < NTYPES; ++t) {
        MPI_Datatype dt = type_of(t);
        int integer = t <= T_I64;
        for (int i = 0; i < count; ++i) {
            set_one(t, ones + (size_t) i * size_of(t));
        }
        for (int target = 0; target < nprocs; ++target) {
            MPI_Aint disp = w.disp0[target] + (MPI_Aint) (stride * (size_t) t);
            if (MTEST_SYNC_LOCKALL == sync) {
                MPI_CHECK(MPI_Win_lock_all(0, w.win));
            } else {
                MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, w.win));
            }
            for (int it = 0; it < iters; ++it) {
                int e = (it * 7 + me) % count;
                MPI_Aint edisp = disp + (MPI_Aint) ((size_t) e * size_of(t));
                MPI_CHECK(MPI_Accumulate(ones, count, dt, target, disp, count, dt, MPI_SUM, w.win));
                MPI_CHECK(MPI_Fetch_and_op(ones, result, dt, target, edisp, MPI_SUM, w.win));
                MPI_CHECK(MPI_Get_accumulate(ones, count, dt, result, count, dt, target, disp,
                                             count, dt, MPI_SUM, w.win));
                MPI_CHECK(MPI_Win_flush(target, w.win));
                if (integer) {
                    cas_increment(t, w.win, target, edisp);
                }
            }
            if (MTEST_SYNC_LOCKALL == sync) {
                MPI_CHECK(MPI_Win_unlock_all(w.win));
            } else {
                MPI_CHECK(MPI_Win_unlock(target, w.win));
            }
        }
    }
    /* MAXLOC pairs: rank me raises every pair to (step, me) on each target */
    for (int target = 0; target < nprocs; ++target) {
        int *pairs = malloc((size_t) count * 2 * sizeof(int));
        MPI_Aint disp = w.disp0[target] + (MPI_Aint) (stride * NTYPES);
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, w.win));
        for (int it = 0; it < iters; ++it) {
            for (int i = 0; i < count; ++i) {
                pairs[2 * i] = it * nprocs + me;
                pairs[2 * i + 1] = me;
            }
            MPI_CHECK(MPI_Accumulate(pairs, count, MPI_2INT, target, disp, count, MPI_2INT,
                                     MPI_MAXLOC, w.win));
            MPI_CHECK(MPI_Win_flush(target, w.win));
        }
        MPI_CHECK(MPI_Win_unlock(target, w.win));
        free(pairs);
    }
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w.win));
    for (int t = 0; t < NTYPES; ++t) {
        size_t size = size_of(t);
        for (int e = 0; e < count; ++e) {
            /* two whole-array calls per iteration, plus single-element FOP and CAS */
            long long want = 2LL * iters * nprocs, got;
            for (int r = 0; r < nprocs; ++r) {
                for (int it = 0; it < iters; ++it) {
                    want += (it * 7 + r) % count == e ? (t <= T_I64 ? 2 : 1) : 0;
                }
            }
            if (T_U8 == t) {
                want &= 0xff;
            } else if (T_U16 == t) {
                want &= 0xffff;
            }
            got = value_of(t, w.base + stride * (size_t) t + (size_t) e * size);
            MTEST_CHECK(got == want, "%s element %d: %lld, expected %lld", names[t], e, got, want);
        }
    }
    for (int i = 0; i < count; ++i) {
        int *pair = (int *) (w.base + stride * NTYPES) + 2 * i;
        int want = (iters - 1) * nprocs + nprocs - 1;
        MTEST_CHECK(pair[0] == want && pair[1] == nprocs - 1,
                    "MAXLOC pair %d: (%d, %d), expected (%d, %d)", i, pair[0], pair[1], want,
                    nprocs - 1);
    }
    MPI_CHECK(MPI_Win_unlock(me, w.win));
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    mtest_win_free(&w);
    free(ones);
    free(result);
    return mtest_finalize();
}
