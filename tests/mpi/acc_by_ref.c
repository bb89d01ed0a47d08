/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/* MPI_Accumulate reductions of 8 KiB or more (osc_newrma_acc_stream_bytes)
 * on windows of user memory (create, dynamic) to a node-local target: the
 * target's agent reads the operands from the origin by cross-memory copies
 * and reduces them into its window, part by part (osc_newrma_acc_stream_part,
 * 256 KiB) and 128 KiB at a time, under its accumulate lock.
 * usage: acc_by_ref FLAVOR SYNC MODE
 *   SYNC   lockall (a flush per round), lock, fence or pscw
 *   MODE   ref   every large reduction goes so: the window's counter
 *                reduced_by_ref counts each (where osc_newrma_shm is on;
 *                none where it is off);
 *          busy  as ref, but each rank computes for 0.2-1 ms outside MPI
 *                after each round: the origin takes back parts the agent
 *                leaves for 50 us and reduces them itself (the counter
 *                stream_parts_back, over all ranks, is not 0 where
 *                osc_newrma_shm is on);
 *          any   no counter checked (threads, tiny pools).
 * Phase 1: each rank reduces into its right neighbour's window, ROUNDS
 * times, one operation per round and case: SUM of int64 (8 KiB, 32 KiB,
 * 32 KiB + 8, 312.5 KiB: two parts, the first read in two blocks), SUM of double, SUM of int8
 * (wrapping), BXOR of uint16, MAXLOC of MPI_2INT, SUM of long double, a SUM from a strided origin
 * (packed first), and a SUM of 8 KiB into every other int64 of the target (not this way: not
 * contiguous there); the target replays the same operations and compares every element. Phase 2:
 * every rank at once on rank 0's block of 8192 int64: a SUM of ones over all of it (by reference),
 * a FETCH_AND_OP on its first and last elements, a one-element SUM in the middle, a SUM of 2 KiB
 * over its head (through the slot's area), per round: the totals are exact (element-wise atomicity
 * between all of them). */
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acc_cases.h"

#define ROUNDS    4
#define NCASE     11
#define CASE_MAX  (320 * 1024)
#define WIN_BYTES (NCASE * CASE_MAX)
#define CONTEND   8192 /* int64 elements of phase 2's block */
#define HEAD      256  /* int64 elements of its 2 KiB SUM */

enum { BY_REF, PARTS_BACK, NPATH };
static const char *const path_names[NPATH] = {"osc_newrma_win_reduced_by_ref",
                                              "osc_newrma_win_stream_parts_back"};
static acc_run_t run;
static bool busy;

typedef struct {
    int kind;
    int count;   /* elements */
    bool by_ref; /* the target reads it from the origin */
} case_t;

static const case_t cases[NCASE] = {
    {C_I64, 1024, true},  {C_I64, 4096, true},     {C_I64, 4097, true},     {C_I64, 40000, true},
    {C_DBL, 4096, true},  {C_I8, 16384, true},     {C_XOR16, 8192, true},   {C_MAXLOC, 2048, true},
    {C_LDBL, 1024, true}, {C_STRIDED, 2048, true}, {C_VECTOR, 1024, false},
};

/* Round @p r of case @p c to @p target: contiguous operands, or (the
 * strided case) every other int64 of a buffer twice as long. */
static void issue(int c, int r, int target, char *buf)
{
    const case_t *k = &cases[c];
    size_t size = elem_size(k->kind);
    MPI_Aint disp = run.w.disp0[target] + (MPI_Aint) c * CASE_MAX;
    MPI_Datatype dt = mpi_type(k->kind), strided;

    memset(buf, 0, 2 * CASE_MAX);
    for (int i = 0; i < k->count; ++i) {
        operand(k->kind, run.me, r, i, buf + (C_STRIDED == k->kind ? 2 : 1) * (size_t) i * size);
    }
    if (C_STRIDED == k->kind || C_VECTOR == k->kind) {
        MPI_CHECK(MPI_Type_vector(k->count, 1, 2, MPI_INT64_T, &strided));
        MPI_CHECK(MPI_Type_commit(&strided));
        if (C_STRIDED == k->kind) {
            MPI_CHECK(MPI_Accumulate(buf, 1, strided, target, disp, k->count, MPI_INT64_T, MPI_SUM,
                                     run.w.win));
        } else {
            MPI_CHECK(MPI_Accumulate(buf, k->count, MPI_INT64_T, target, disp, 1, strided, MPI_SUM,
                                     run.w.win));
        }
        MPI_CHECK(MPI_Type_free(&strided));
        return;
    }
    MPI_CHECK(
        MPI_Accumulate(buf, k->count, dt, target, disp, k->count, dt, mpi_op(k->kind), run.w.win));
}

/* My window's case @p c after ROUNDS rounds of my left neighbour's. */
static void check_case(int c, const char *mine, char *want)
{
    const case_t *k = &cases[c];
    size_t size = elem_size(k->kind), at = (C_VECTOR == k->kind ? 2 : 1) * size;
    char v[sizeof(long double)] __attribute__((aligned(16)));

    memset(want, 0, CASE_MAX);
    for (int r = 0; r < ROUNDS; ++r) {
        for (int i = 0; i < k->count; ++i) {
            operand(k->kind, run.left, r, i, v);
            reduce(k->kind, want + (size_t) i * at, v);
        }
    }
    for (size_t i = 0; i < CASE_MAX / size; ++i) {
        size_t data = C_LDBL == k->kind ? 10 : size; /* long double: its padding is not data */

        if (0 != memcmp(mine + i * size, want + i * size, data)) {
            MTEST_CHECK(false, "case %d (kind %d, %d elements): element %zu differs (%d vs %d)", c,
                        k->kind, k->count, i, (int) mine[i * size], (int) want[i * size]);
            return;
        }
    }
}

/* Compute outside MPI for @p us microseconds. */
static void busy_us(int us)
{
    double until = MPI_Wtime() + 1e-6 * us;

    while (MPI_Wtime() < until) {
    }
}

static void rounds_to_right(char *buf)
{
    mtest_rounds_begin(run.w.win, run.sync);
    for (int r = 0; r < ROUNDS; ++r) {
        for (int c = 0; c < NCASE; ++c) {
            mtest_round_open(run.w.win, run.sync, MPI_LOCK_SHARED, run.right);
            issue(c, r, run.right, buf);
            mtest_round_close(run.w.win, run.sync, run.right);
            if (busy) {
                busy_us(200 + 100 * ((run.me + r + c) % 9));
            }
        }
    }
    mtest_rounds_end(run.w.win, run.sync);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Phase 2's round on rank 0's first block (lock_all, a flush per op). */
static void contend(int64_t *ones)
{
    int64_t one = 1, old;
    MPI_Aint base = run.w.disp0[0];

    MPI_CHECK(MPI_Win_lock_all(0, run.w.win));
    for (int r = 0; r < ROUNDS * 4; ++r) {
        MPI_CHECK(MPI_Accumulate(ones, CONTEND, MPI_INT64_T, 0, base, CONTEND, MPI_INT64_T, MPI_SUM,
                                 run.w.win));
        MPI_CHECK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, base, MPI_SUM, run.w.win));
        MPI_CHECK(MPI_Win_flush(0, run.w.win));
        MPI_CHECK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, base + (MPI_Aint) (CONTEND - 1) * 8,
                                   MPI_SUM, run.w.win));
        MPI_CHECK(MPI_Accumulate(&one, 1, MPI_INT64_T, 0, base + (CONTEND / 2) * 8, 1, MPI_INT64_T,
                                 MPI_SUM, run.w.win));
        MPI_CHECK(MPI_Win_flush(0, run.w.win));
        MPI_CHECK(MPI_Accumulate(ones, HEAD, MPI_INT64_T, 0, base, HEAD, MPI_INT64_T, MPI_SUM,
                                 run.w.win));
        MPI_CHECK(MPI_Win_flush(0, run.w.win));
    }
    MPI_CHECK(MPI_Win_unlock_all(run.w.win));
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Rank 0's block after phase 2. */
static int64_t contended(int e)
{
    int64_t n = (int64_t) run.nprocs * ROUNDS * 4;

    return n * (1 + (0 == e) + (CONTEND - 1 == e) + (CONTEND / 2 == e) + (e < HEAD));
}

int main(int argc, char **argv)
{
    const char *mode = argc > 3 ? argv[3] : "ref";
    const char *shm = getenv("OMPI_MCA_osc_newrma_shm");
    bool counted = (NULL == shm || 0 != strcmp(shm, "0")) && 0 != strcmp(mode, "any");
    unsigned long long n[NPATH], all_back = 0;
    int by_ref_ops = 0;
    char *buf = malloc(2 * CASE_MAX), *mine = malloc(CASE_MAX), *want = malloc(CASE_MAX);

    acc_run_start(&run, &argc, &argv, WIN_BYTES, path_names, CONTEND);
    busy = 0 == strcmp(mode, "busy");
    rounds_to_right(buf);
    for (int c = 0; c < NCASE; ++c) {
        mtest_local_load(&run.w, (size_t) c * CASE_MAX, mine, CASE_MAX);
        check_case(c, mine, want);
        by_ref_ops += cases[c].by_ref ? ROUNDS : 0;
    }
    for (int p = 0; p < NPATH; ++p) {
        n[p] = acc_run_count(&run, p);
    }
    MPI_Allreduce(&n[PARTS_BACK], &all_back, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (counted) {
        MTEST_CHECK(n[BY_REF] == (unsigned long long) by_ref_ops,
                    "%llu reductions read by the target, expected %d", n[BY_REF], by_ref_ops);
        /* (without busy ones too, where a target waits for a core) */
        MTEST_CHECK(!busy || all_back > 0, "no part taken back from a busy target");
    } else if (0 != strcmp(mode, "any")) {
        MTEST_CHECK(0 == n[BY_REF] && 0 == all_back,
                    "%llu reductions read by the target, %llu parts taken back, on the UCX path",
                    n[BY_REF], all_back);
    }

    mtest_win_zero(&run.w, WIN_BYTES);
    contend(run.ones);
    acc_run_check_block(&run, CONTEND, contended);
    free(buf);
    free(mine);
    free(want);
    return acc_run_end(&run);
}
