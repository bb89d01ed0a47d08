/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/* Small PUTs and GETs on the UCX path (create and dynamic windows):
 * one alone at its target goes by UCX RDMA where the transport has it
 * (osc_newrma_lone_rdma), a stream of them goes as aggregated packets.
 * GETs of osc_newrma_get_rdma_bytes or more go by RDMA in streams too.
 * Each rank PUTs to and GETs from its right neighbour, in every kind of
 * epoch, sizes 1 B to 32 KiB at odd offsets: a lone PUT, a lone GET, a
 * stream of PUTs and GETs, and (lock_all) a lone PUT right after a flushed
 * stream.  The data is checked after each epoch, and the window's MPI_T
 * counters say which path each op took: EXPECT "rdma" (by RDMA every lone
 * op closed by a flush or a fence, and the streamed GETs of 1 KiB or more
 * so closed; the rest as packets; in fence epochs either way, see
 * fence_unsure), "rdmalock" (the same, and lone ops
 * closed by UNLOCK by RDMA too: a window all on one node, whose lock words
 * are in its segment and released without a message; and lone GETs of 1
 * KiB or more and PUTs of 4 KiB or more closed by COMPLETE, which is the
 * segment's flag there) or "packet" (all as packets).
 * Usage: lone_rdma FLAVOR EXPECT */
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define MAX_BYTES      32768
#define STREAM         12
#define GET_RDMA_BYTES 1024
#define PUT_RDMA_BYTES 4096
#define PUT_AT         8
#define GET_AT         (PUT_AT + MAX_BYTES + 8)
#define WIN_BYTES      (GET_AT + MAX_BYTES + 8)

enum { RDMA, PACKET, NPATH };
static const char *const path_names[NPATH] = {"osc_newrma_win_ops_rdma",
                                              "osc_newrma_win_ops_packet"};
static MPI_T_pvar_session session;
static MPI_T_pvar_handle path_h[NPATH];
static int nprocs, right, left, expect_rdma, expect_lock_rdma;
static unsigned char *origin, *got, *mine;

static void paths_read(unsigned long long *v)
{
    for (int p = 0; p < NPATH; ++p) {
        MPI_CHECK(MPI_T_pvar_read(session, path_h[p], &v[p]));
    }
}

static void check(const unsigned char *buf, size_t n, uint32_t seed, const char *what, int sync)
{
    size_t i = mtest_pattern_mismatch(buf, n, seed);

    if (i < n) {
        mtest_error("%s of %zu bytes (sync %d): byte %zu is %u, expected %u", what, n, sync, i,
                    buf[i], mtest_pattern(seed, i));
    }
}

/* My window's PUT region zeroed, its GET region filled with my pattern. */
static void regions_reset(mtest_win_t *w, size_t n, uint32_t seed)
{
    mtest_fill(mine, n, seed | 0x80 | (uint32_t) mtest_rank);
    mtest_local_store(w, GET_AT, mine, n);
    memset(mine, 0, n);
    mtest_local_store(w, PUT_AT, mine, n);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* After the epoch: what my left neighbour PUT into my window. */
static void put_check(mtest_win_t *w, size_t n, uint32_t seed, int sync)
{
    MPI_Barrier(MPI_COMM_WORLD);
    mtest_local_load(w, PUT_AT, mine, n);
    check(mine, n, seed | (uint32_t) left, "PUT", sync);
}

static void paths_expect(const unsigned long long *before, int rdma, int packet, const char *what,
                         int sync, size_t n)
{
    unsigned long long now[NPATH];

    paths_read(now);
    MTEST_CHECK(now[RDMA] - before[RDMA] == (unsigned long long) rdma &&
                    now[PACKET] - before[PACKET] == (unsigned long long) packet,
                "%s of %zu bytes (sync %d): %llu by RDMA and %llu as packets, expected %d and %d",
                what, n, sync, now[RDMA] - before[RDMA], now[PACKET] - before[PACKET], rdma,
                packet);
}

/* @p n ops of the epoch went one way or the other. */
static void paths_expect_total(const unsigned long long *before, int n_ops, const char *what,
                               int sync, size_t n)
{
    unsigned long long now[NPATH];

    paths_read(now);
    MTEST_CHECK(now[RDMA] - before[RDMA] + now[PACKET] - before[PACKET] ==
                    (unsigned long long) n_ops,
                "%s of %zu bytes (sync %d): %llu by RDMA and %llu as packets, expected %d in all",
                what, n, sync, now[RDMA] - before[RDMA], now[PACKET] - before[PACKET], n_ops);
}

/* A fence epoch over UCX (EXPECT "rdma") after a fence that ended an
 * epoch with operations: an access to a target goes by RDMA only once the
 * target is known to be past that fence (it sent this rank a packet of
 * the new epoch, or answered one), or it could overtake another origin's
 * packets of the ended epoch there; which comes first is timing's. */
static bool fence_unsure(int sync)
{
    return MTEST_SYNC_FENCE == sync && expect_rdma && !expect_lock_rdma;
}

/* A stream closed by UNLOCK or COMPLETE: its PUTs are packets; its GETs
 * too, unless a shortage of elements (the tiny variant's pools of one)
 * issued them before the closing call, as a flush would have (or, in a
 * fence epoch, fence_unsure: by RDMA once the target is known past the
 * fence before them). */
static void stream_closed_expect(const unsigned long long *before, int sync, size_t n)
{
    unsigned long long now[NPATH], rdma, packet;

    paths_read(now);
    rdma = now[RDMA] - before[RDMA];
    packet = now[PACKET] - before[PACKET];
    MTEST_CHECK(rdma + packet == 2 * STREAM && packet >= STREAM &&
                    (rdma == 0 || (expect_rdma && n / STREAM >= GET_RDMA_BYTES)),
                "stream of %zu bytes (sync %d): %llu by RDMA and %llu as packets", n, sync, rdma,
                packet);
}

/* One epoch with one op: a PUT (@p get false) or a GET. */
/* The data of an epoch of @p n bytes set up, the counters read into
 * @p before, the epoch opened for the right neighbour. */
static void epoch_open(mtest_win_t *w, int sync, size_t n, uint32_t seed,
                       unsigned long long *before)
{
    mtest_fill(origin, n, seed | (uint32_t) mtest_rank);
    memset(got, 0, n);
    regions_reset(w, n, seed);
    paths_read(before);
    mtest_epoch_begin(w->win, sync);
    mtest_op_begin(w->win, sync, right);
}

static void lone_epoch(mtest_win_t *w, int sync, size_t n, bool get, uint32_t seed)
{
    unsigned long long before[NPATH];
    int rdma;

    epoch_open(w, sync, n, seed, before);
    if (get) {
        MPI_CHECK(MPI_Get(got, (int) n, MPI_BYTE, right, w->disp0[right] + GET_AT, (int) n,
                          MPI_BYTE, w->win));
    } else {
        MPI_CHECK(MPI_Put(origin, (int) n, MPI_BYTE, right, w->disp0[right] + PUT_AT, (int) n,
                          MPI_BYTE, w->win));
    }
    mtest_op_end(w->win, sync, right);
    mtest_epoch_end(w->win, sync);
    /* not when UNLOCK (lock mode) or COMPLETE closes the epoch: one message
     * carries the op and the closing packet; but a lock word in the
     * window's segment is released without a message, and so is a
     * COMPLETE that is the segment's flag, which lets the sizes that go by
     * RDMA in streams go so (EXPECT "rdmalock") */
    rdma = expect_rdma && (MTEST_SYNC_FENCE == sync || MTEST_SYNC_LOCKALL == sync ||
                           (MTEST_SYNC_LOCK == sync && expect_lock_rdma) ||
                           (MTEST_SYNC_PSCW == sync && expect_lock_rdma &&
                            n >= (get ? GET_RDMA_BYTES : PUT_RDMA_BYTES)));
    if (fence_unsure(sync)) {
        paths_expect_total(before, 1, get ? "lone GET" : "lone PUT", sync, n);
    } else {
        paths_expect(before, rdma, !rdma, get ? "lone GET" : "lone PUT", sync, n);
    }
    if (get) {
        check(got, n, seed | 0x80 | (uint32_t) right, "lone GET", sync);
    } else {
        put_check(w, n, seed, sync);
    }
}

/* STREAM PUTs of consecutive pieces, then STREAM GETs: as packets, but
 * for GETs of GET_RDMA_BYTES or more closed by a flush or fence (RDMA).
 * In lock_all, then a lone PUT after the flush: RDMA again. */
static void stream_epoch(mtest_win_t *w, int sync, size_t n, uint32_t seed)
{
    size_t piece = n / STREAM;
    unsigned long long before[NPATH];
    int rdma;

    epoch_open(w, sync, n, seed, before);
    for (size_t i = 0; i < STREAM; ++i) {
        size_t len = STREAM - 1 == i ? n - i * piece : piece;

        MPI_CHECK(MPI_Put(origin + i * piece, (int) len, MPI_BYTE, right,
                          w->disp0[right] + PUT_AT + (MPI_Aint) (i * piece), (int) len, MPI_BYTE,
                          w->win));
    }
    for (size_t i = 0; i < STREAM; ++i) {
        size_t len = STREAM - 1 == i ? n - i * piece : piece;

        MPI_CHECK(MPI_Get(got + i * piece, (int) len, MPI_BYTE, right,
                          w->disp0[right] + GET_AT + (MPI_Aint) (i * piece), (int) len, MPI_BYTE,
                          w->win));
    }
    mtest_op_end(w->win, sync, right);
    /* GETs of GET_RDMA_BYTES or more by RDMA in a stream too */
    rdma = expect_rdma && (MTEST_SYNC_FENCE == sync || MTEST_SYNC_LOCKALL == sync) &&
                   piece >= GET_RDMA_BYTES
               ? STREAM
               : 0;
    if (MTEST_SYNC_LOCKALL == sync) { /* flushed: the next op is alone again */
        paths_expect(before, rdma, 2 * STREAM - rdma, "stream", sync, n);
        paths_read(before);
        MPI_CHECK(
            MPI_Put(origin, 1, MPI_BYTE, right, w->disp0[right] + PUT_AT, 1, MPI_BYTE, w->win));
        MPI_CHECK(MPI_Win_flush(right, w->win));
        paths_expect(before, expect_rdma, !expect_rdma, "PUT after a stream", sync, 1);
    }
    mtest_epoch_end(w->win, sync);
    if (fence_unsure(sync)) {
        stream_closed_expect(before, sync, n);
    } else if (MTEST_SYNC_FENCE == sync) {
        /* counted when issued, by the epoch's end at the latest */
        paths_expect(before, rdma, 2 * STREAM - rdma, "stream", sync, n);
    } else if (MTEST_SYNC_LOCKALL != sync) {
        stream_closed_expect(before, sync, n);
    }
    check(got, n, seed | 0x80 | (uint32_t) right, "streamed GET", sync);
    put_check(w, n, seed, sync);
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = {1, 8, 1001, MAX_BYTES};
    static const char *const syncs[] = {"lock", "lockall", "fence", "pscw"};
    const char *flavor = argc > 1 ? argv[1] : "create";
    int provided;
    mtest_win_t w;

    /* the counts below assume these (a user's choice wins) */
    setenv("OMPI_MCA_osc_newrma_aggregate_threshold", "32768", 0);
    setenv("OMPI_MCA_osc_newrma_single_op_threshold", "0", 0);
    setenv("OMPI_MCA_osc_newrma_piggyback_threshold", "1", 0);
    setenv("OMPI_MCA_osc_newrma_get_rdma_bytes", "1024", 0);
    /* the shm path's small lone ops would go through the target's mailbox
     * (acc_mailbox tests that) */
    setenv("OMPI_MCA_osc_newrma_mailbox", "0", 0);
    /* and those of 32 KiB by the cross-memory copy where the probe finds it
     * cheap (cma_putget small tests that) */
    setenv("OMPI_MCA_osc_newrma_cma_bytes", "131072", 0);
    setenv("OMPI_MCA_osc_newrma_cma_small_bytes", "0", 0);
    mtest_init(&argc, &argv);
    expect_lock_rdma = argc > 2 && 0 == strcmp(argv[2], "rdmalock");
    expect_rdma = expect_lock_rdma || (argc > 2 && 0 == strcmp(argv[2], "rdma"));
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    right = (mtest_rank + 1) % nprocs;
    left = (mtest_rank + nprocs - 1) % nprocs;
    origin = malloc(MAX_BYTES);
    got = malloc(MAX_BYTES);
    mine = malloc(MAX_BYTES);
    MPI_CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    MPI_CHECK(MPI_T_pvar_session_create(&session));
    mtest_win_create(&w, flavor, WIN_BYTES, MPI_INFO_NULL, MPI_COMM_WORLD);
    mtest_pvars_bind(session, path_names, NPATH, &w.win, path_h);

    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); ++s) {
        for (size_t k = 0; k < sizeof(syncs) / sizeof(syncs[0]); ++k) {
            uint32_t seed = (uint32_t) (s * 16 + k * 4) << 8;

            lone_epoch(&w, mtest_sync(syncs[k]), sizes[s], false, seed);
            lone_epoch(&w, mtest_sync(syncs[k]), sizes[s], true, seed + 0x100);
            if (sizes[s] >= STREAM) {
                stream_epoch(&w, mtest_sync(syncs[k]), sizes[s], seed + 0x200);
            }
        }
    }

    for (int p = 0; p < NPATH; ++p) {
        MPI_CHECK(MPI_T_pvar_handle_free(session, &path_h[p]));
    }
    MPI_CHECK(MPI_T_pvar_session_free(&session));
    mtest_win_free(&w);
    MPI_CHECK(MPI_T_finalize());
    free(origin);
    free(got);
    free(mine);
    return mtest_finalize();
}
