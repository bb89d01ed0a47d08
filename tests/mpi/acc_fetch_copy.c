/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/* MPI_Get_accumulate reductions (not MPI_NO_OP) of 1 KiB or more
 * (osc_newrma_acc_fetch_copy_bytes) on windows of user memory (create,
 * dynamic) to a node-local target: the origin reads the range, keeps the
 * old values, reduces and writes it back by cross-memory copies under the
 * target's accumulate lock; one of up to 2 KiB by the MPI call itself
 * after a flush or unlock, larger ones (and any after a fence or complete
 * that the mailbox does not take) from their op elements.
 * usage: acc_fetch_copy FLAVOR SYNC MODE
 *   SYNC   lockall (a flush per round), lock, fence or pscw
 *   MODE   copy  the window's counters say so where osc_newrma_shm is on:
 *                copy_at_call counts the ones of up to 2 KiB under
 *                lockall and lock, ops_rdma (where every such copy
 *                counts) at least all the larger ones; none where it is
 *                off;
 *          any   no counter checked.
 * Phase 1: each rank applies every case to its right neighbour, ROUNDS
 * times, one operation per round: SUM of int64 (1 KiB, 2 KiB, 2 KiB + 8,
 * 8 KiB, 128 KiB), SUM of int8 (2 KiB, wrapping), BXOR of uint16 (4 KiB),
 * MAXLOC of MPI_2INT (1 KiB), SUM of double (64 KiB), MPI_REPLACE of
 * int64 (4 KiB: a swap), and a SUM of 512 bytes (below the size: the
 * mailbox); each fetched old value and, at the end, the target's memory
 * are checked against a replay.
 * Phase 2: every rank at once on rank 0's block of 2048 int64: per round a
 * GET_ACCUMULATE SUM of ones over all of it (16 KiB), one over its first
 * 2 KiB, a FETCH_AND_OP on its last element and a one-element SUM in the
 * middle: the totals are exact, and every old value fetched lies between 0
 * and the total (element-wise atomicity between all of them). */
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acc_cases.h"

#define ROUNDS    3
#define NCASE     11
#define CASE_MAX  (128 * 1024)
#define WIN_BYTES (NCASE * CASE_MAX)
#define CONTEND   2048 /* int64 elements of phase 2's block */
#define HEAD      256  /* int64 elements of its 2 KiB GET_ACCUMULATE */
#define AT_CALL   2048 /* the largest the call itself copies */
#define MIN_BYTES 1024

enum { COPY_AT_CALL, RDMA, NPATH };
static const char *const path_names[NPATH] = {"osc_newrma_win_copy_at_call",
                                              "osc_newrma_win_ops_rdma"};
static acc_run_t run;

typedef struct {
    int kind;
    int count; /* elements */
    bool replace;
} case_t;

static const case_t cases[NCASE] = {
    {C_I64, 128, false},   {C_I64, 256, false}, {C_I64, 257, false},    {C_I64, 1024, false},
    {C_I64, 16384, false}, {C_I8, 2048, false}, {C_XOR16, 2048, false}, {C_MAXLOC, 128, false},
    {C_DBL, 8192, false},  {C_I64, 512, true},  {C_I64, 64, false},
};

static size_t case_bytes(int c)
{
    return (size_t) cases[c].count * elem_size(cases[c].kind);
}

/* The target's case @p c after @p rounds rounds of origin @p o's. */
static void replay(int c, int o, int rounds, char *want)
{
    const case_t *k = &cases[c];
    size_t size = elem_size(k->kind);
    char v[sizeof(long double)] __attribute__((aligned(16)));

    memset(want, 0, CASE_MAX);
    for (int r = 0; r < rounds; ++r) {
        for (int i = 0; i < k->count; ++i) {
            operand(k->kind, o, r, i, v);
            if (k->replace) {
                memcpy(want + (size_t) i * size, v, size);
            } else {
                reduce(k->kind, want + (size_t) i * size, v);
            }
        }
    }
}

/* Round @p r of case @p c to my right neighbour; the old values fetched
 * are those of the rounds before. */
static void round_case(int c, int r, char *buf, char *result, char *want)
{
    const case_t *k = &cases[c];
    size_t size = elem_size(k->kind), bytes = case_bytes(c);
    MPI_Datatype dt = mpi_type(k->kind);

    for (int i = 0; i < k->count; ++i) {
        operand(k->kind, run.me, r, i, buf + (size_t) i * size);
    }
    memset(result, 0xCD, bytes);
    mtest_round_open(run.w.win, run.sync, MPI_LOCK_SHARED, run.right);
    MPI_CHECK(MPI_Get_accumulate(buf, k->count, dt, result, k->count, dt, run.right,
                                 run.w.disp0[run.right] + (MPI_Aint) c * CASE_MAX, k->count, dt,
                                 k->replace ? MPI_REPLACE : mpi_op(k->kind), run.w.win));
    mtest_round_close(run.w.win, run.sync, run.right);
    replay(c, run.me, r, want);
    MTEST_CHECK(0 == memcmp(result, want, bytes), "case %d round %d: old values differ", c, r);
}

static void check_mine(int c, char *mine, char *want)
{
    mtest_local_load(&run.w, (size_t) c * CASE_MAX, mine, CASE_MAX);
    replay(c, run.left, ROUNDS, want);
    MTEST_CHECK(0 == memcmp(mine, want, CASE_MAX), "case %d: the window differs", c);
}

/* Phase 2's rounds on rank 0's first block (lock_all, a flush per op). */
static void contend(const int64_t *ones, int64_t *old)
{
    MPI_Aint base = run.w.disp0[0];
    int64_t total = (int64_t) run.nprocs * ROUNDS * 4 * 2;

    MPI_CHECK(MPI_Win_lock_all(0, run.w.win));
    for (int r = 0; r < ROUNDS * 4; ++r) {
        MPI_CHECK(MPI_Get_accumulate(ones, CONTEND, MPI_INT64_T, old, CONTEND, MPI_INT64_T, 0, base,
                                     CONTEND, MPI_INT64_T, MPI_SUM, run.w.win));
        MPI_CHECK(MPI_Win_flush(0, run.w.win));
        for (int e = 0; e < CONTEND; ++e) {
            if (old[e] < 0 || old[e] >= total) {
                MTEST_CHECK(false, "round %d: element %d fetched as %lld", r, e,
                            (long long) old[e]);
                break;
            }
        }
        MPI_CHECK(MPI_Get_accumulate(ones, HEAD, MPI_INT64_T, old, HEAD, MPI_INT64_T, 0, base, HEAD,
                                     MPI_INT64_T, MPI_SUM, run.w.win));
        MPI_CHECK(MPI_Win_flush(0, run.w.win));
        MPI_CHECK(MPI_Fetch_and_op(ones, old, MPI_INT64_T, 0, base + (CONTEND - 1) * 8, MPI_SUM,
                                   run.w.win));
        MPI_CHECK(MPI_Accumulate(ones, 1, MPI_INT64_T, 0, base + (CONTEND / 2) * 8, 1, MPI_INT64_T,
                                 MPI_SUM, run.w.win));
        MPI_CHECK(MPI_Win_flush(0, run.w.win));
    }
    MPI_CHECK(MPI_Win_unlock_all(run.w.win));
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Rank 0's block after phase 2. */
static int64_t contended(int e)
{
    int64_t n = (int64_t) run.nprocs * ROUNDS * 4;

    return n * (1 + (e < HEAD) + (CONTEND - 1 == e) + (CONTEND / 2 == e));
}

int main(int argc, char **argv)
{
    const char *mode = argc > 3 ? argv[3] : "copy";
    const char *shm = getenv("OMPI_MCA_osc_newrma_shm");
    bool on = NULL == shm || 0 != strcmp(shm, "0"), passive;
    unsigned long long n[NPATH];
    int at_call = 0, queued = 0;
    char *buf = malloc(CASE_MAX), *result = malloc(CASE_MAX), *mine = malloc(CASE_MAX),
         *want = malloc(CASE_MAX);
    int64_t *old = malloc(CONTEND * sizeof(int64_t));

    /* the sizes above, whatever the probe finds the copy to cost */
    setenv("OMPI_MCA_osc_newrma_cma_cheap", "1", 0);
    acc_run_start(&run, &argc, &argv, WIN_BYTES, path_names, CONTEND);
    passive = MTEST_SYNC_LOCK == run.sync || MTEST_SYNC_LOCKALL == run.sync;
    mtest_rounds_begin(run.w.win, run.sync);
    for (int r = 0; r < ROUNDS; ++r) {
        for (int c = 0; c < NCASE; ++c) {
            round_case(c, r, buf, result, want);
        }
    }
    mtest_rounds_end(run.w.win, run.sync);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int c = 0; c < NCASE; ++c) {
        check_mine(c, mine, want);
        at_call += case_bytes(c) >= MIN_BYTES && case_bytes(c) <= AT_CALL ? ROUNDS : 0;
        queued += case_bytes(c) > AT_CALL ? ROUNDS : 0;
    }
    for (int p = 0; p < NPATH; ++p) {
        n[p] = acc_run_count(&run, p);
    }
    if (0 == strcmp(mode, "copy") && on) {
        MTEST_CHECK(n[COPY_AT_CALL] == (unsigned long long) (passive ? at_call : 0),
                    "%llu copied by their calls, expected %d", n[COPY_AT_CALL],
                    passive ? at_call : 0);
        MTEST_CHECK(n[RDMA] >= (unsigned long long) queued + n[COPY_AT_CALL],
                    "%llu copies, expected at least %llu", n[RDMA],
                    (unsigned long long) queued + n[COPY_AT_CALL]);
    } else if (0 == strcmp(mode, "copy")) {
        MTEST_CHECK(0 == n[COPY_AT_CALL], "%llu copied by their calls on the UCX path",
                    n[COPY_AT_CALL]);
    }

    mtest_win_zero(&run.w, WIN_BYTES);
    contend(run.ones, old);
    acc_run_check_block(&run, CONTEND, contended);
    free(buf);
    free(result);
    free(mine);
    free(want);
    free(old);
    return acc_run_end(&run);
}
