/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/* Where the cross-memory copy is cheap (osc_newrma_cma_cheap 1 here), which
 * way each PUT and GET to a node-local right neighbour takes, and that the
 * data arrives (create and dynamic windows, every rank at once):
 *  1. 8 PUTs of 2 KiB, then a flush: the first is the copy from the call,
 *     the others (a stream) not, the next through the target's mailbox;
 *  2. 8 PUTs of 8 KiB (osc_newrma_cma_stream_bytes 4 KiB): all copies;
 *  3. 8 GETs of 8 KiB: the first the copy, the other 7 UCX's RDMA (from
 *     the call but on dynamic windows; GET streams never take the copy);
 *  4. 64-byte GETs, each + flush (osc_newrma_cma_small_bytes 32): copies;
 *     64-byte PUTs, each + flush_local: only the first (after a flush) the
 *     copy, the next through the mailbox;
 *  5. after a flush, a 512-byte MPI_REPLACE and MPI_NO_OP read + flush:
 *     each copied under the target's accumulate lock by its call;
 *  6. a 512-byte PUT and GET in an MPI_Win_lock epoch each: the copy, with
 *     no target element (the unlock stays direct).
 * The ways are read from the window's counters copy_at_call, ops_mailbox
 * and rdma_at_call, only where
 * osc_newrma_shm is on.
 * Usage: cma_stream FLAVOR */
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define OPS       8
#define MAX_BYTES 8192
#define WIN_BYTES (OPS * MAX_BYTES)
#define SMALL     64
#define ROUNDS    6

enum { COPY, MAILBOX, AT_CALL, NPATH };
static const char *const path_names[NPATH] = {
    "osc_newrma_win_copy_at_call", "osc_newrma_win_ops_mailbox", "osc_newrma_win_rdma_at_call"};
static MPI_T_pvar_session session;
static MPI_T_pvar_handle path_h[NPATH];
static unsigned long long seen[NPATH];
static bool counted;
static int right, left;
static mtest_win_t w;
static unsigned char *origin, *got, *want;
static bool in_lock_all;

/* My window's memory, read or written by me: within my lock_all epoch
 * directly, between MPI_Win_syncs (the unified model); outside it, in an
 * epoch of my own. */
static void mine_load(size_t offset, void *dst, size_t len)
{
    if (!in_lock_all) {
        mtest_local_load(&w, offset, dst, len);
        return;
    }
    MPI_CHECK(MPI_Win_sync(w.win));
    memcpy(dst, w.base + offset, len);
}

static void mine_store(size_t offset, const void *src, size_t len)
{
    if (!in_lock_all) {
        mtest_local_store(&w, offset, src, len);
        return;
    }
    memcpy(w.base + offset, src, len);
    MPI_CHECK(MPI_Win_sync(w.win));
}

/* The counters' growth since the last call, checked against @p copy,
 * @p mailbox and @p at_call (-1: not checked; @p mailbox -2: not 0). */
static void expect_paths(const char *what, long copy, long mailbox, long at_call)
{
    const long want_n[NPATH] = {copy, mailbox, at_call};

    for (int p = 0; p < NPATH; ++p) {
        unsigned long long now = mtest_pvar_read(session, path_h[p]);

        MTEST_CHECK(!counted || -1 == want_n[p] || (-2 == want_n[p] && now > seen[p]) ||
                        now - seen[p] == (unsigned long long) want_n[p],
                    "%s: %s grew by %llu, expected %ld (-2: some)", what, path_names[p],
                    now - seen[p], want_n[p]);
        seen[p] = now;
    }
}

/* My window holds what my left neighbour PUT: @p n bytes at each of
 * @p count slots of @p n, seed @p seed. */
static void check_mine(size_t n, int count, uint32_t seed, const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < count; ++i) {
        mine_load((size_t) i * n, got, n);
        mtest_fill(want, n, seed + (uint32_t) (i * 16 + left));
        MTEST_CHECK(0 == memcmp(got, want, n), "%s: slot %d of %zu bytes is not the PUT's", what, i,
                    n);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* @p count PUTs of @p n bytes to consecutive slots, seed @p seed; then
 * MPI_Win_flush (@p local: MPI_Win_flush_local) after each or the last. */
static void puts_to_right(size_t n, int count, uint32_t seed, bool each, bool local)
{
    for (int i = 0; i < count; ++i) {
        mtest_fill(origin + (size_t) i * n, n, seed + (uint32_t) (i * 16 + mtest_rank));
        MPI_CHECK(MPI_Put(origin + (size_t) i * n, (int) n, MPI_BYTE, right,
                          w.disp0[right] + (MPI_Aint) ((size_t) i * n), (int) n, MPI_BYTE, w.win));
        if (each || i + 1 == count) {
            MPI_CHECK(local ? MPI_Win_flush_local(right, w.win) : MPI_Win_flush(right, w.win));
        }
    }
}

/* @p count GETs of @p n bytes from the right neighbour's slots, which hold
 * its seed @p seed; a flush after each (@p each) or the last; checked. */
static void gets_from_right(size_t n, int count, uint32_t seed, bool each, const char *what)
{
    for (int i = 0; i < count; ++i) {
        mtest_fill(got, n, seed + (uint32_t) (i * 16 + mtest_rank));
        mine_store((size_t) i * n, got, n);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    memset(origin, 0, (size_t) count * n);
    for (int i = 0; i < count; ++i) {
        MPI_CHECK(MPI_Get(origin + (size_t) i * n, (int) n, MPI_BYTE, right,
                          w.disp0[right] + (MPI_Aint) ((size_t) i * n), (int) n, MPI_BYTE, w.win));
        if (each || i + 1 == count) {
            MPI_CHECK(MPI_Win_flush(right, w.win));
        }
    }
    for (int i = 0; i < count; ++i) {
        mtest_fill(want, n, seed + (uint32_t) (i * 16 + right));
        MTEST_CHECK(0 == memcmp(origin + (size_t) i * n, want, n),
                    "%s: GET %d of %zu bytes is not the target's", what, i, n);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Step 5: an MPI_REPLACE of 512 bytes + flush, then an MPI_NO_OP read of
 * them back + flush. */
static void replace_and_read(void)
{
    mtest_fill(origin, 512, 0x6000u + (uint32_t) mtest_rank);
    MPI_CHECK(MPI_Win_flush(right, w.win));
    expect_paths("flush", -1, -1, -1);
    MPI_CHECK(MPI_Accumulate(origin, 512, MPI_BYTE, right, w.disp0[right], 512, MPI_BYTE,
                             MPI_REPLACE, w.win));
    MPI_CHECK(MPI_Win_flush(right, w.win));
    expect_paths("512-byte MPI_REPLACE + flush", 1, 0, 0);
    memset(got, 0, 512);
    MPI_CHECK(MPI_Get_accumulate(NULL, 0, MPI_BYTE, got, 512, MPI_BYTE, right, w.disp0[right], 512,
                                 MPI_BYTE, MPI_NO_OP, w.win));
    MPI_CHECK(MPI_Win_flush(right, w.win));
    expect_paths("512-byte MPI_NO_OP read + flush", 1, 0, 0);
    MTEST_CHECK(0 == memcmp(got, origin, 512), "MPI_NO_OP read: not what my MPI_REPLACE put");
}

static void lock_epochs(void)
{
    mtest_fill(origin, 512, 0x5000u + (uint32_t) mtest_rank);
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w.win));
    MPI_CHECK(MPI_Put(origin, 512, MPI_BYTE, right, w.disp0[right], 512, MPI_BYTE, w.win));
    MPI_CHECK(MPI_Win_unlock(right, w.win));
    expect_paths("PUT in a lock epoch", 1, 0, 0);
    check_mine(512, 1, 0x5000u, "PUT in a lock epoch");
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w.win));
    MPI_CHECK(MPI_Get(got, 512, MPI_BYTE, right, w.disp0[right], 512, MPI_BYTE, w.win));
    MPI_CHECK(MPI_Win_unlock(right, w.win));
    expect_paths("GET in a lock epoch", 1, 0, 0);
    mtest_fill(want, 512, 0x5000u + (uint32_t) mtest_rank); /* what I PUT there */
    MTEST_CHECK(0 == memcmp(got, want, 512), "GET in a lock epoch: not what I PUT");
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    const char *flavor = argc > 1 ? argv[1] : "create";
    const char *shm = getenv("OMPI_MCA_osc_newrma_shm");
    bool dynamic = 0 == strcmp(flavor, "dynamic");
    int nprocs, provided;

    setenv("OMPI_MCA_osc_newrma_cma_cheap", "1", 0);
    setenv("OMPI_MCA_osc_newrma_cma_bytes", "1024", 0);
    setenv("OMPI_MCA_osc_newrma_cma_small_bytes", "32", 0);
    setenv("OMPI_MCA_osc_newrma_cma_stream_bytes", "4096", 0);
    mtest_init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    right = (mtest_rank + 1) % nprocs;
    left = (mtest_rank + nprocs - 1) % nprocs;
    counted = NULL == shm || 0 != strcmp(shm, "0");
    origin = malloc(WIN_BYTES);
    got = malloc(MAX_BYTES);
    want = malloc(MAX_BYTES);
    mtest_win_create(&w, flavor, WIN_BYTES, MPI_INFO_NULL, MPI_COMM_WORLD);
    mtest_win_zero(&w, WIN_BYTES);
    MPI_CHECK(MPI_T_pvar_session_create(&session));
    mtest_pvars_bind(session, path_names, NPATH, &w.win, path_h);

    MPI_CHECK(MPI_Win_lock_all(0, w.win));
    in_lock_all = true;
    MPI_CHECK(MPI_Win_flush(right, w.win)); /* the last synchronization: a flush */
    expect_paths("start", -1, -1, -1);
    puts_to_right(2048, OPS, 0x1000u, false, false);
    expect_paths("2 KiB PUT stream", 1, -2, 0);
    check_mine(2048, OPS, 0x1000u, "2 KiB PUT stream");
    puts_to_right(MAX_BYTES, OPS, 0x2000u, false, false);
    expect_paths("8 KiB PUT stream", OPS, 0, 0);
    check_mine(MAX_BYTES, OPS, 0x2000u, "8 KiB PUT stream");
    gets_from_right(MAX_BYTES, OPS, 0x3000u, false, "8 KiB GET stream");
    /* (a dynamic window's go by RDMA from their op elements) */
    expect_paths("8 KiB GET stream", 1, 0, dynamic ? -1 : OPS - 1);
    gets_from_right(SMALL, ROUNDS, 0x4000u, true, "64-byte GETs + flush");
    expect_paths("64-byte GETs + flush", ROUNDS, 0, 0);
    puts_to_right(SMALL, ROUNDS, 0x4800u, true, true);
    expect_paths("64-byte PUTs + flush_local", 1, -2, 0);
    MPI_CHECK(MPI_Win_unlock_all(w.win));
    in_lock_all = false;
    check_mine(SMALL, ROUNDS, 0x4800u, "64-byte PUTs + flush_local");
    expect_paths("unlock_all", -1, -1, -1);
    MPI_CHECK(MPI_Win_lock_all(0, w.win));
    replace_and_read();
    MPI_CHECK(MPI_Win_unlock_all(w.win));
    MPI_Barrier(MPI_COMM_WORLD);
    lock_epochs();

    for (int p = 0; p < NPATH; ++p) {
        MPI_T_pvar_handle_free(session, &path_h[p]);
    }
    MPI_T_pvar_session_free(&session);
    mtest_win_free(&w);
    MPI_T_finalize();
    free(origin);
    free(got);
    free(want);
    return mtest_finalize();
}
