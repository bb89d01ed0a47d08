/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Large PUTs and GETs to a node-local neighbour, copied by the origin and
 * the target's agent at once, chunk by chunk: every byte arrives, at its
 * place, whoever copied it (argv[1]: create, dynamic, allocate or shared;
 * argv[2]: fence or lock; argv[3]: rounds, default 48).  Where the window
 * is the user's memory both copy by the cross-memory copy
 * (osc_newrma_cma_share_bytes); where it is the node's shared segment the
 * origin copies by memcpy and the agent by the cross-memory copy from its
 * own mapping (osc_newrma_segment_share_bytes, lowered here to 128 KiB so
 * that every size below shares).  Sizes of 128 KiB to 2 MiB, some not a
 * multiple of the chunk, so the last chunk is short.  In rounds of the
 * first kind only rank 0 accesses (rank 1, its target, waits in the fence
 * or a barrier, where its agent polls), in the others every rank accesses
 * its right neighbour at once (each copies alone until its own is done),
 * and rank 0 also spends 2 ms outside MPI before some of its accesses, so
 * that its left neighbour copies every chunk itself.  The cross-memory copy
 * is made cheap here (osc_newrma_cma_cheap 1), as on the development VM,
 * so that these sizes take it.  At 2 ranks (not oversubscribed) the
 * window's counters must show the agent copying chunks
 * (osc_newrma_win_chunks_by_target), where osc/newrma's shared memory path
 * is on.  With "stream" (argv[4]), each GET round reads the range three
 * times in its epoch, into three buffers: the GETs of a stream of
 * osc_newrma_cma_share_bytes or more go by their calls, shared too.
 */
#include <stdbool.h>

#include "mtest.h"

#define WIN_BYTES (2097152 + 64)

#define STREAM_GETS 3

static int me, nprocs, right, left, sync_kind, gets = 1;
static mtest_win_t w;
static unsigned char *bufs[STREAM_GETS], *buf, *got;

static void epoch_open(void)
{
    if (MTEST_SYNC_FENCE == sync_kind) {
        MPI_CHECK(MPI_Win_fence(0, w.win));
    } else {
        MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    }
}

/* The access of round @p r (PUT when @p put), of @p n bytes, if mine. */
static void access_right(int r, bool put, size_t n)
{
    if (!mtest_share_accesses(me, r)) {
        return;
    }
    if (0 == me && 2 == r % 3) {
        mtest_busy_outside_mpi(0.002);
    }
    if (put) {
        mtest_fill(buf, n, mtest_share_seed(me, r, true));
    }
    for (int g = 0; !put && g < gets; ++g) {
        memset(bufs[g], 0, n);
    }
    if (MTEST_SYNC_LOCK == sync_kind) {
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w.win));
    }
    if (put) {
        MPI_CHECK(MPI_Put(buf, (int) n, MPI_BYTE, right, w.disp0[right], (int) n, MPI_BYTE, w.win));
    }
    for (int g = 0; !put && g < gets; ++g) {
        MPI_CHECK(
            MPI_Get(bufs[g], (int) n, MPI_BYTE, right, w.disp0[right], (int) n, MPI_BYTE, w.win));
    }
    if (MTEST_SYNC_LOCK == sync_kind) {
        MPI_CHECK(MPI_Win_unlock(right, w.win));
    }
}

static void epoch_close(void)
{
    if (MTEST_SYNC_FENCE == sync_kind) {
        MPI_CHECK(MPI_Win_fence(0, w.win));
    } else {
        MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    }
}

/* Round @p r: a GET of what the right neighbour offers, or a PUT that
 * my window must then hold from my left one. */
static void round_run(int r)
{
    bool put = (r / (2 * MTEST_SHARE_SIZES)) % 2;
    size_t n = mtest_share_size(r), bad;

    if (!put && MTEST_SYNC_FENCE == sync_kind) {
        mtest_fill(w.base, n, mtest_share_seed(me, r, false)); /* the fence below publishes it */
    } else if (!put) {
        mtest_fill(got, n, mtest_share_seed(me, r, false));
        mtest_local_store(&w, 0, got, n);
    }
    epoch_open();
    access_right(r, put, n);
    epoch_close();
    for (int g = 0; !put && mtest_share_accesses(me, r) && g < gets; ++g) {
        bad = mtest_pattern_mismatch(bufs[g], n, mtest_share_seed(right, r, false));
        MTEST_CHECK(bad == n, "round %d: GET %d of %zu bytes from rank %d: byte %zu wrong", r, g, n,
                    right, bad);
    }
    if (put && mtest_share_accesses(left, r)) {
        if (MTEST_SYNC_FENCE == sync_kind) {
            memcpy(got, w.base, n); /* after the fence that completed the PUT */
        } else {
            mtest_local_load(&w, 0, got, n);
        }
        bad = mtest_pattern_mismatch(got, n, mtest_share_seed(left, r, true));
        MTEST_CHECK(bad == n, "round %d: PUT of %zu bytes from rank %d: byte %zu wrong", r, n, left,
                    bad);
    }
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    mtest_shares_t shares;
    int rounds = 48, unused = 0;

    setenv("OMPI_MCA_osc_newrma_cma_cheap", "1", 0);
    setenv("OMPI_MCA_osc_newrma_segment_share_bytes", "131072", 0);
    mtest_start(&argc, &argv, &me, &nprocs, &sync_kind, &rounds, &unused);
    if (argc < 2 || (MTEST_SYNC_FENCE != sync_kind && MTEST_SYNC_LOCK != sync_kind)) {
        mtest_error("usage: cma_share create|dynamic|allocate|shared fence|lock [rounds] "
                    "[stream]");
        return mtest_finalize();
    }
    mtest_ring(&nprocs, &right, &left);
    if (argc > 4 && 0 == strcmp(argv[4], "stream")) {
        gets = STREAM_GETS;
    }
    for (int g = 0; g < STREAM_GETS; ++g) {
        bufs[g] = malloc(WIN_BYTES);
    }
    buf = bufs[0];
    got = malloc(WIN_BYTES);
    mtest_win_create(&w, argv[1], WIN_BYTES, MPI_INFO_NULL, MPI_COMM_WORLD);
    mtest_win_zero(&w, WIN_BYTES);
    mtest_shares_bind(&shares, &w.win);
    for (int r = 0; r < rounds; ++r) {
        round_run(r);
    }
    mtest_shares_check(&shares, true);
    mtest_win_free(&w);
    for (int g = 0; g < STREAM_GETS; ++g) {
        free(bufs[g]);
    }
    free(got);
    return mtest_finalize();
}
