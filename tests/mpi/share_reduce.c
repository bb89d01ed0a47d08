/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Large reductions on a window in the node's segment, reduced by the origin
 * and the target's agent at once under the target's accumulate lock
 * (osc_newrma_segment_share_bytes, lowered here to 128 KiB; long double
 * and complex from an eighth of it): every rank accumulates 160 KiB to
 * 2 MiB into one target per round (MPI_SUM of double, long double and
 * double complex, MPI_MAX of int32), and beside each large one an
 * MPI_Accumulate of one element inside its range and an MPI_Fetch_and_op
 * of a counter.  In rounds of the second kind one rank alone makes the
 * large access, an MPI_Get_accumulate, whose old values must be the
 * window's before the round (the agent writes those of its chunks).  The target's memory must hold
 * every contribution exactly once (the values are integers, exact in any order), whoever reduced
 * which chunk: the reductions are atomic per element with each other and with the single-element
 * ones.  In some rounds the target spends 2 ms outside MPI, so that its origins reduce every chunk
 * themselves (argv[1]: allocate or shared; argv[2]: lock, fence or pscw; argv[3]: rounds, default
 * 24; argv[4]: N, the Nth cross-memory copy of each process fails, so that an agent's read of
 * operands fails half way and the origin reduces the rest of its chunk, no element twice). At 2
 * ranks the window's counters must show the agent reducing chunks, where osc/newrma's shared memory
 * path is on.
 */
#include <complex.h>
#include <stdbool.h>

#include "mtest.h"

#define DATA_BYTES (2097152 + 64)
#define COUNTER_AT DATA_BYTES
#define WIN_BYTES  (DATA_BYTES + 8)
#define SINGLE_AT  5 /* the element the single accumulates hit */
#define KINDS      4
#define SIZES      3

typedef enum { K_DOUBLE, K_LONG_DOUBLE, K_INT_MAX, K_COMPLEX } kind_t;

static int me, nprocs, sync_kind;
static mtest_win_t w;
static char *ops, *got, *want, *res;

static MPI_Datatype kind_type(kind_t k)
{
    static const MPI_Datatype types[KINDS] = {MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_INT32_T,
                                              MPI_C_DOUBLE_COMPLEX};
    return types[k];
}

static size_t kind_size(kind_t k)
{
    static const size_t sizes[KINDS] = {sizeof(double), sizeof(long double), sizeof(int32_t),
                                        sizeof(double complex)};
    return sizes[k];
}

/* Round @p r's elements: 160 KiB, 1 MiB and 2 MiB, give or take a few. */
static int round_count(int r, kind_t k)
{
    static const size_t bytes[SIZES] = {163840, 1048576, 2097152};
    static const int more[SIZES] = {3, 1, -5};

    return (int) (bytes[(r / KINDS) % SIZES] / kind_size(k)) + more[(r / KINDS) % SIZES];
}

/* What rank @p o adds (or offers to MAX) at element @p i in round @p r;
 * the window's own value before the round is rank -1's. */
static long value_of(int o, int r, int i)
{
    return o < 0 ? i % 1000 : (long) (o + 1) * ((i * 7 + r) % 13) + ((o * 131 + i) % 2000) / 1000;
}

static void fill(char *at, kind_t k, int count, int o, int r)
{
    for (int i = 0; i < count; ++i) {
        long v = value_of(o, r, i);

        switch (k) {
            case K_DOUBLE:
                ((double *) at)[i] = (double) v;
                break;
            case K_LONG_DOUBLE:
                ((long double *) at)[i] = (long double) v;
                break;
            case K_INT_MAX:
                ((int32_t *) at)[i] = (int32_t) v;
                break;
            case K_COMPLEX:
                ((double complex *) at)[i] = (double) v + (double) (2 * v + 1) * I;
                break;
        }
    }
}

/* The target's element @p i after every rank's contribution. */
/* Rounds of the second kind: one rank alone (the target's right
 * neighbour) makes the large access, an MPI_Get_accumulate, whose old
 * values are then the window's own before the round. */
static bool fetch_round(int r)
{
    return 1 == (r / (KINDS * SIZES)) % 2;
}

static int round_target(int r)
{
    return (r / (KINDS * SIZES)) % nprocs;
}

/* Whether rank @p o makes round @p r's large access. */
static bool large_by(int o, int r)
{
    return !fetch_round(r) || o == (round_target(r) + 1) % nprocs;
}

static void expect(char *at, kind_t k, int count, int r)
{
    for (int i = 0; i < count; ++i) {
        long sum = value_of(-1, r, i), top = sum;

        for (int o = 0; o < nprocs; ++o) {
            long v = large_by(o, r) ? value_of(o, r, i) : 0;

            sum += v + (SINGLE_AT == i);
            top = v > top ? v : top;
        }
        switch (k) {
            case K_DOUBLE:
                ((double *) at)[i] = (double) sum;
                break;
            case K_LONG_DOUBLE:
                ((long double *) at)[i] = (long double) sum;
                break;
            case K_INT_MAX:
                ((int32_t *) at)[i] = (int32_t) (SINGLE_AT == i ? 5000 + nprocs - 1 : top);
                break;
            case K_COMPLEX: {
                long base = value_of(-1, r, i), im = 2 * base + 1;

                for (int o = 0; o < nprocs; ++o) {
                    im += (large_by(o, r) ? 2 * value_of(o, r, i) + 1 : 0) + (SINGLE_AT == i);
                }
                ((double complex *) at)[i] = (double) sum + (double) im * I;
                break;
            }
        }
    }
}

/* One element at SINGLE_AT: 1 added (both parts of a complex), or 5000 +
 * my rank offered to MAX.  Its operand stays put until the epoch ends. */
static void single_acc(kind_t k, int target)
{
    static double d = 1.0;
    static long double ld = 1.0L;
    static int32_t top;
    static double complex c = 1.0 + 1.0 * I;
    const void *one[KINDS] = {&d, &ld, &top, &c};

    top = 5000 + me;
    MPI_CHECK(MPI_Accumulate(one[k], 1, kind_type(k), target,
                             w.disp0[target] + SINGLE_AT * kind_size(k), 1, kind_type(k),
                             K_INT_MAX == k ? MPI_MAX : MPI_SUM, w.win));
}

/* Element @p i of @p a and @p b alike, by value: a long double's padding
 * is nobody's. */
static bool same(kind_t k, const char *a, const char *b, int i)
{
    switch (k) {
        case K_DOUBLE:
            return ((const double *) a)[i] == ((const double *) b)[i];
        case K_LONG_DOUBLE:
            return ((const long double *) a)[i] == ((const long double *) b)[i];
        case K_INT_MAX:
            return ((const int32_t *) a)[i] == ((const int32_t *) b)[i];
        default:
            return ((const double complex *) a)[i] == ((const double complex *) b)[i];
    }
}

/* Element @p i of @p a as a double (a complex's real part), to print. */
static double shown(kind_t k, const char *a, int i)
{
    switch (k) {
        case K_DOUBLE:
            return ((const double *) a)[i];
        case K_LONG_DOUBLE:
            return (double) ((const long double *) a)[i];
        case K_INT_MAX:
            return ((const int32_t *) a)[i];
        default:
            return creal(((const double complex *) a)[i]);
    }
}

static void access_target(int r, kind_t k, int target, int count)
{
    int64_t one = 1, old;

    fill(ops, k, count, me, r);
    if (MTEST_SYNC_LOCK == sync_kind) {
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, w.win));
    }
    MPI_CHECK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, target, w.disp0[target] + COUNTER_AT,
                               MPI_SUM, w.win));
    if (r % 2) {
        single_acc(k, target); /* before the large one, or after it */
    }
    if (fetch_round(r) && large_by(me, r)) {
        MPI_CHECK(MPI_Get_accumulate(ops, count, kind_type(k), res, count, kind_type(k), target,
                                     w.disp0[target], count, kind_type(k),
                                     K_INT_MAX == k ? MPI_MAX : MPI_SUM, w.win));
    } else if (large_by(me, r)) {
        MPI_CHECK(MPI_Accumulate(ops, count, kind_type(k), target, w.disp0[target], count,
                                 kind_type(k), K_INT_MAX == k ? MPI_MAX : MPI_SUM, w.win));
    }
    if (0 == r % 2) {
        single_acc(k, target);
    }
    if (MTEST_SYNC_LOCK == sync_kind) {
        MPI_CHECK(MPI_Win_unlock(target, w.win));
    }
}

static void round_run(int r)
{
    kind_t k = (kind_t) (r % KINDS);
    int count = round_count(r, k), target = round_target(r);
    size_t n = (size_t) count * kind_size(k);

    if (me == target) {
        fill(got, k, count, -1, r);
        mtest_local_store(&w, 0, got, n);
    }
    if (MTEST_SYNC_LOCK == sync_kind) {
        MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    }
    mtest_epoch_begin(w.win, sync_kind);
    if (me == target && 2 == r % 3) {
        mtest_busy_outside_mpi(0.002);
    }
    access_target(r, k, target, count);
    mtest_epoch_end(w.win, sync_kind);
    if (me == target) {
        mtest_local_load(&w, 0, got, n);
        expect(want, k, count, r);
        for (int i = 0; i < count; ++i) {
            if (!same(k, got, want, i)) {
                MTEST_CHECK(false, "round %d: kind %d, %d elements: element %d is %g, not %g", r,
                            (int) k, count, i, shown(k, got, i), shown(k, want, i));
                break;
            }
        }
    }
    if (fetch_round(r) && large_by(me, r)) {
        fill(want, k, count, -1, r); /* the old values: the round's first */
        for (int i = 0; i < count; ++i) {
            /* the single accumulates may come before mine there */
            if (SINGLE_AT != i && !same(k, res, want, i)) {
                MTEST_CHECK(false, "round %d: kind %d, %d elements: old value %d is %g, not %g", r,
                            (int) k, count, i, shown(k, res, i), shown(k, want, i));
                break;
            }
        }
    }
}

/* Each target's counter: one add of every rank in each of its rounds. */
static void counter_check(int rounds)
{
    int64_t total = 0, expected = 0;

    for (int r = 0; r < rounds; ++r) {
        expected += round_target(r) == me ? nprocs : 0;
    }
    mtest_local_load(&w, COUNTER_AT, &total, sizeof(total));
    MTEST_CHECK(total == expected, "rank %d: counter %lld, expected %lld", me, (long long) total,
                (long long) expected);
}

int main(int argc, char **argv)
{
    mtest_shares_t shares;
    int rounds = 2 * KINDS * SIZES, fail_cma = 0;

    setenv("OMPI_MCA_osc_newrma_segment_share_bytes", "131072", 0);
    if (argc > 4) { /* the Nth cross-memory copy fails: the origin mends it */
        setenv("OMPI_MCA_osc_newrma_test_fail_cma", argv[4], 1);
    }
    mtest_start(&argc, &argv, &me, &nprocs, &sync_kind, &rounds, &fail_cma);
    if (argc < 2 || MTEST_SYNC_LOCKALL == sync_kind) {
        mtest_error("usage: share_reduce allocate|shared lock|fence|pscw [rounds]");
        return mtest_finalize();
    }
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    ops = malloc(WIN_BYTES);
    got = malloc(WIN_BYTES);
    want = malloc(WIN_BYTES);
    res = malloc(WIN_BYTES);
    mtest_win_create(&w, argv[1], WIN_BYTES, MPI_INFO_NULL, MPI_COMM_WORLD);
    mtest_win_zero(&w, WIN_BYTES);
    mtest_shares_bind(&shares, &w.win);
    for (int r = 0; r < rounds; ++r) {
        round_run(r);
    }
    counter_check(rounds);
    /* a failed copy stops the window's sharing with that origin: how many
     * were shared before it is the timing's */
    mtest_shares_check(&shares, argc <= 4);
    mtest_win_free(&w);
    free(ops);
    free(got);
    free(want);
    free(res);
    return mtest_finalize();
}
