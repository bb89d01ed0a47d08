/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * ARMCI-MPI's large puts and gets on a window in the node's segment: an
 * MPI_Accumulate of MPI_REPLACE and an MPI_Get_accumulate of MPI_NO_OP of
 * 128 KiB to 2 MiB to the right neighbour, copied by the origin and the
 * target's agent at once under the target's accumulate lock
 * (osc_newrma_segment_share_bytes, lowered here to 128 KiB): every byte
 * arrives, at its place, whoever copied it (argv[1]: allocate or shared;
 * argv[2]: lock, fence or pscw; argv[3]: rounds, default 48).  Beside them
 * every rank adds 1 to a counter in rank 0's window (MPI_Fetch_and_op) in
 * every round, which must count every add: the accumulate lock the copies
 * hold stays consistent with the atomics.  In rounds of the first kind only
 * rank 0 accesses; rank 0 also spends 2 ms outside MPI before some, so that
 * its left neighbour copies every chunk itself.  At 2 ranks the window's
 * counters must show the agent copying chunks, where osc/newrma's shared
 * memory path is on.
 */
#include <stdbool.h>

#include "mtest.h"

#define DATA_BYTES (2097152 + 64)
#define COUNTER_AT DATA_BYTES
#define WIN_BYTES  (DATA_BYTES + 8)

static int me, nprocs, right, left, sync_kind;
static mtest_win_t w;
static unsigned char *buf, *got;

/* A round's epoch: a fence, a barrier (lock epochs are each access's own)
 * or the whole group's PSCW. */
static void epoch_open(void)
{
    if (MTEST_SYNC_LOCK == sync_kind) {
        MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    }
    mtest_epoch_begin(w.win, sync_kind);
}

static void lock_open(int rank)
{
    if (MTEST_SYNC_LOCK == sync_kind) {
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w.win));
    }
}

static void lock_close(int rank)
{
    if (MTEST_SYNC_LOCK == sync_kind) {
        MPI_CHECK(MPI_Win_unlock(rank, w.win));
    }
}

/* Round @p r's accesses of mine: the counter's add, then the move. */
static void access_right(int r, bool put, size_t n)
{
    int64_t one = 1, old;
    int count = (int) (n / 8);

    lock_open(0);
    MPI_CHECK(
        MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, w.disp0[0] + COUNTER_AT, MPI_SUM, w.win));
    lock_close(0);
    if (!mtest_share_accesses(me, r)) {
        return;
    }
    if (0 == me && 2 == r % 3) {
        mtest_busy_outside_mpi(0.002);
    }
    lock_open(right);
    if (put) {
        mtest_fill(buf, n, mtest_share_seed(me, r, true));
        MPI_CHECK(MPI_Accumulate(buf, count, MPI_INT64_T, right, w.disp0[right], count, MPI_INT64_T,
                                 MPI_REPLACE, w.win));
    } else {
        memset(buf, 0, n);
        MPI_CHECK(MPI_Get_accumulate(NULL, 0, MPI_INT64_T, buf, count, MPI_INT64_T, right,
                                     w.disp0[right], count, MPI_INT64_T, MPI_NO_OP, w.win));
    }
    lock_close(right);
}

static void round_run(int r)
{
    bool put = (r / (2 * MTEST_SHARE_SIZES)) % 2;
    size_t n = mtest_share_size(r) / 8 * 8, bad;

    if (!put && MTEST_SYNC_FENCE == sync_kind) {
        mtest_fill(w.base, n, mtest_share_seed(me, r, false)); /* the fence below publishes it */
    } else if (!put) {
        mtest_fill(got, n, mtest_share_seed(me, r, false));
        mtest_local_store(&w, 0, got, n);
    }
    epoch_open(); /* my window's contents before anyone reads them */
    access_right(r, put, n);
    mtest_epoch_end(w.win, sync_kind);
    if (!put && mtest_share_accesses(me, r)) {
        bad = mtest_pattern_mismatch(buf, n, mtest_share_seed(right, r, false));
        MTEST_CHECK(bad == n, "round %d: MPI_NO_OP read of %zu bytes from rank %d: byte %zu wrong",
                    r, n, right, bad);
    }
    if (put && mtest_share_accesses(left, r)) {
        if (MTEST_SYNC_FENCE == sync_kind) {
            memcpy(got, w.base, n); /* after the fence that completed it */
        } else {
            mtest_local_load(&w, 0, got, n);
        }
        bad = mtest_pattern_mismatch(got, n, mtest_share_seed(left, r, true));
        MTEST_CHECK(bad == n, "round %d: MPI_REPLACE of %zu bytes from rank %d: byte %zu wrong", r,
                    n, left, bad);
    }
}

/* Rank 0's counter must hold an add of every rank in every round. */
static void counter_check(int rounds)
{
    int64_t total = 0;

    if (0 == me) {
        mtest_local_load(&w, COUNTER_AT, &total, sizeof(total));
        MTEST_CHECK(total == (int64_t) nprocs * rounds, "counter %lld, expected %lld",
                    (long long) total, (long long) nprocs * rounds);
    }
}

int main(int argc, char **argv)
{
    mtest_shares_t shares;
    int rounds = 48;

    setenv("OMPI_MCA_osc_newrma_segment_share_bytes", "131072", 0);
    mtest_start(&argc, &argv, &me, &nprocs, &sync_kind, &rounds, &rounds);
    if (argc < 2 || MTEST_SYNC_LOCKALL == sync_kind) {
        mtest_error("usage: share_acc allocate|shared lock|fence|pscw [rounds]");
        return mtest_finalize();
    }
    mtest_ring(&nprocs, &right, &left);
    buf = malloc(WIN_BYTES);
    got = malloc(WIN_BYTES);
    mtest_win_create(&w, argv[1], WIN_BYTES, MPI_INFO_NULL, MPI_COMM_WORLD);
    mtest_win_zero(&w, WIN_BYTES);
    mtest_shares_bind(&shares, &w.win);
    for (int r = 0; r < rounds; ++r) {
        round_run(r);
    }
    counter_check(rounds);
    mtest_shares_check(&shares, true);
    mtest_win_free(&w);
    free(buf);
    free(got);
    return mtest_finalize();
}
