/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Large PUTs and GETs to a node-local neighbour whose window is the user's
 * memory, copied by the origin and the target's agent at once, chunk by
 * chunk (osc_newrma_cma_share_bytes): every byte arrives, at its place,
 * whoever copied it (argv[1]: create or dynamic; argv[2]: fence or lock;
 * argv[3]: rounds, default 48).  Sizes of 128 KiB to 2 MiB, some not a
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
 * is on.
 */
#include <stdbool.h>
#include <time.h>

#include "mtest.h"

#define SIZES     4
#define WIN_BYTES (2097152 + 64)

static const size_t sizes[SIZES] = {131072, 131072 + 24, 524288 + 8, 2097152 + 40};

static int me, nprocs, right, left, sync_kind;
static mtest_win_t w;
static unsigned char *buf, *got;

/* The pattern's seed of what rank @p rank offers (a GET's source) or
 * writes (a PUT) in round @p r. */
static uint32_t seed_of(int rank, int r, bool put)
{
    return (uint32_t) (rank * 100003 + r * 7 + (put ? 3 : 0));
}

/* Whether rank @p rank accesses its right neighbour in round @p r. */
static bool accesses(int rank, int r)
{
    return 1 == (r / SIZES) % 2 || 0 == rank;
}

static void busy_outside_mpi(double seconds)
{
    struct timespec t0, t;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((double) (t.tv_sec - t0.tv_sec) + 1e-9 * (double) (t.tv_nsec - t0.tv_nsec) < seconds);
}

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
    if (!accesses(me, r)) {
        return;
    }
    if (0 == me && 2 == r % 3) {
        busy_outside_mpi(0.002);
    }
    if (put) {
        mtest_fill(buf, n, seed_of(me, r, true));
    } else {
        memset(buf, 0, n);
    }
    if (MTEST_SYNC_LOCK == sync_kind) {
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w.win));
    }
    if (put) {
        MPI_CHECK(MPI_Put(buf, (int) n, MPI_BYTE, right, w.disp0[right], (int) n, MPI_BYTE, w.win));
    } else {
        MPI_CHECK(MPI_Get(buf, (int) n, MPI_BYTE, right, w.disp0[right], (int) n, MPI_BYTE, w.win));
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
    bool put = (r / (2 * SIZES)) % 2;
    size_t n = sizes[r % SIZES], bad;

    if (!put && MTEST_SYNC_FENCE == sync_kind) {
        mtest_fill(w.base, n, seed_of(me, r, false)); /* the fence below publishes it */
    } else if (!put) {
        mtest_fill(got, n, seed_of(me, r, false));
        mtest_local_store(&w, 0, got, n);
    }
    epoch_open();
    access_right(r, put, n);
    epoch_close();
    if (!put && accesses(me, r)) {
        bad = mtest_pattern_mismatch(buf, n, seed_of(right, r, false));
        MTEST_CHECK(bad == n, "round %d: GET of %zu bytes from rank %d: byte %zu wrong", r, n,
                    right, bad);
    }
    if (put && accesses(left, r)) {
        if (MTEST_SYNC_FENCE == sync_kind) {
            memcpy(got, w.base, n); /* after the fence that completed the PUT */
        } else {
            mtest_local_load(&w, 0, got, n);
        }
        bad = mtest_pattern_mismatch(got, n, seed_of(left, r, true));
        MTEST_CHECK(bad == n, "round %d: PUT of %zu bytes from rank %d: byte %zu wrong", r, n, left,
                    bad);
    }
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    static const char *const names[] = {"osc_newrma_win_copies_shared",
                                        "osc_newrma_win_chunks_by_target"};
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handles[2];
    unsigned long long mine[2], total[2];
    int rounds = 48, provided;
    const char *shm;

    setenv("OMPI_MCA_osc_newrma_cma_cheap", "1", 0);
    mtest_start(&argc, &argv, &me, &nprocs, &sync_kind, &rounds, &rounds);
    if (argc < 2 || (MTEST_SYNC_FENCE != sync_kind && MTEST_SYNC_LOCK != sync_kind)) {
        mtest_error("usage: cma_share create|dynamic fence|lock [rounds]");
        return mtest_finalize();
    }
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    mtest_ring(&nprocs, &right, &left);
    buf = malloc(WIN_BYTES);
    got = malloc(WIN_BYTES);
    mtest_win_create(&w, argv[1], WIN_BYTES, MPI_INFO_NULL, MPI_COMM_WORLD);
    mtest_win_zero(&w, WIN_BYTES);
    MPI_CHECK(MPI_T_pvar_session_create(&session));
    mtest_pvars_bind(session, names, 2, &w.win, handles);
    for (int r = 0; r < rounds; ++r) {
        round_run(r);
    }
    for (int i = 0; i < 2; ++i) {
        mine[i] = mtest_pvar_read(session, handles[i]);
        MPI_CHECK(MPI_T_pvar_handle_free(session, &handles[i]));
    }
    MPI_CHECK(MPI_Allreduce(mine, total, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    MPI_CHECK(MPI_T_pvar_session_free(&session));
    MPI_T_finalize();
    shm = getenv("OMPI_MCA_osc_newrma_shm");
    if (0 == me && 2 == nprocs && (NULL == shm || 0 != strcmp(shm, "0"))) {
        MTEST_CHECK(total[0] > 0 && total[1] >= total[0],
                    "the targets' agents shared %llu copies, %llu chunks: expected some", total[0],
                    total[1]);
    }
    if (0 == me) {
        printf("copies shared %llu, chunks by the targets %llu\n", total[0], total[1]);
    }
    mtest_win_free(&w);
    free(buf);
    free(got);
    return mtest_finalize();
}
