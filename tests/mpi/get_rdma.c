/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Streams of contiguous GETs of 1-8 KiB (and PUTs of 8 KiB), the sizes
 * that go by UCX RDMA where the transport has it (osc_newrma_get_rdma_bytes
 * and put_rdma_bytes up to aggregate_threshold): most are moved by the MPI
 * call itself, without an operation element (the rdma_at_call counter).  In each of ROUNDS rounds
 * every rank rewrites its window with that round's bytes, then reads
 * STREAM ranges of its right neighbour's into consecutive ranges of a
 * buffer and checks every byte once the epoch (or the flush) completed
 * them.  In even rounds it first PUTs a few small values (aggregated
 * packets; in passive target epochs sent by MPI_Win_flush_local before
 * the GETs) where some of the GETs read: a GET must see its own origin's
 * earlier PUT (location consistency), so it may not overtake the packets
 * by RDMA.  In odd rounds it first PUTs two blocks of 8 KiB there (by
 * RDMA, osc_newrma_put_rdma_bytes, most by MPI_Put itself): the GETs
 * must see them too (UCX orders an RDMA read after a write only across a
 * fence).
 *
 *   get_rdma FLAVOR SYNC [rdma|any] [flush|local]
 *     SYNC: fence, pscw, lock (one shared lock epoch per round), lockall
 *     (one epoch; rounds end with MPI_Win_flush, or MPI_Win_flush_local:
 *     "local"); rdma: MPI_Get must have read some itself, on some rank;
 *     copy: node-local GETs and PUTs of 1 KiB or more by the cross-memory
 *     copy (osc_newrma_cma_bytes 1024), most from the call itself.
 *   get_rdma fail N
 *     rank 0's Nth UCX transfer fails (osc_newrma_test_fail_rdma): in a
 *     lock_all epoch of single GETs read at the call, each flushed, only
 *     the flush after the failed one returns an error, and later GETs land.
 */
#include <stdbool.h>

#include "mtest.h"

#define ROUNDS 6
#define STREAM 24
#define PUTS   4
#define BIG    8192 /* odd rounds' PUTs: from osc_newrma_put_rdma_bytes, by RDMA */
#define BIGS   2
#define REGION (128 * 1024)

static const int sizes[] = {1024, 2048, 4096, 8192, 1536, 3000};

static size_t get_at(int i, int *size)
{
    size_t at = 0;

    for (int k = 0; k < i; ++k) {
        at += (size_t) sizes[k % 6];
    }
    *size = sizes[i % 6];
    return at;
}

static unsigned char byte_of(int owner, int round, size_t at)
{
    return mtest_pattern((uint32_t) (owner * 131 + round + 7), at);
}

/* Where PUT @p k of an even round writes its 8 bytes: inside GET 3k+1. */
static size_t put_at(int k)
{
    int size;

    return get_at(3 * k + 1, &size) + 16;
}

static long put_value(int origin, int round, int k)
{
    return 1000000L * (origin + 1) + 100L * round + k;
}

/* Where big PUT @p k of an odd round writes: from inside GET 4k+2 on. */
static size_t big_at(int k)
{
    int size;

    return get_at(4 * k + 2, &size) + 100;
}

static unsigned char big_byte(int origin, int round, size_t x)
{
    return mtest_pattern((uint32_t) (origin * 977 + round + 3), x);
}

/* The byte the origin's own PUTs of @p round left at @p x, or -1. */
static int put_byte(int round, size_t x)
{
    for (int k = 0; 0 == round % 2 && k < PUTS; ++k) {
        if (x >= put_at(k) && x < put_at(k) + sizeof(long)) {
            long v = put_value(mtest_rank, round, k);
            unsigned char b[sizeof(long)];

            memcpy(b, &v, sizeof(long));
            return b[x - put_at(k)];
        }
    }
    for (int k = 0; 1 == round % 2 && k < BIGS; ++k) {
        if (x >= big_at(k) && x < big_at(k) + BIG) {
            return big_byte(mtest_rank, round, x - big_at(k));
        }
    }
    return -1;
}

static void stream(MPI_Win win, int sync, int round, int right, MPI_Aint d0, unsigned char *got,
                   long *vals, unsigned char *big)
{
    for (int k = 0; 1 == round % 2 && k < BIGS; ++k) {
        for (size_t x = 0; x < BIG; ++x) {
            big[k * BIG + x] = big_byte(mtest_rank, round, x);
        }
        MPI_CHECK(MPI_Put(big + k * BIG, BIG, MPI_BYTE, right, d0 + (MPI_Aint) big_at(k), BIG,
                          MPI_BYTE, win));
    }
    if (0 == round % 2) {
        for (int k = 0; k < PUTS; ++k) {
            vals[k] = put_value(mtest_rank, round, k);
            MPI_CHECK(MPI_Put(&vals[k], 1, MPI_LONG, right, d0 + (MPI_Aint) put_at(k),
                              (int) sizeof(long), MPI_BYTE, win));
        }
        /* passive target: the PUTs' message sent, perhaps not yet applied */
        if (!mtest_sync_is_active(sync)) {
            MPI_CHECK(MPI_Win_flush_local(right, win));
        }
    }
    for (int i = 0; i < STREAM; ++i) {
        int size;
        size_t at = get_at(i, &size);

        MPI_CHECK(
            MPI_Get(got + at, size, MPI_BYTE, right, d0 + (MPI_Aint) at, size, MPI_BYTE, win));
    }
}

static void check_got(const unsigned char *got, int right, int round)
{
    int size;
    size_t end = get_at(STREAM, &size);

    for (size_t x = 0; x < end; ++x) {
        int p = put_byte(round, x);
        unsigned char w = p >= 0 ? (unsigned char) p : byte_of(right, round, x);

        if (got[x] != w) {
            MTEST_CHECK(0, "round %d byte %zu: %u, expected %u", round, x, got[x], w);
            return;
        }
    }
}

/* Single GETs, each flushed; the Nth UCX transfer of rank 0 fails. */
static int fail_case(int fail_at)
{
    const char *names[] = {"osc_newrma_win_rdma_at_call"};
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle;
    long *base, got = 0;
    char *big;
    MPI_Win win;
    int rc, cls, provided;

    MPI_CHECK(MPI_Alloc_mem(8192, MPI_INFO_NULL, &big));
    MPI_CHECK(MPI_Win_create(big, 8192, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_CHECK(MPI_T_pvar_session_create(&session));
    mtest_pvars_bind(session, names, 1, &win, &handle);
    base = (long *) big;
    for (int i = 0; i < 1024; ++i) {
        base[i] = 7000 + i;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (0 == mtest_rank) {
        /* 4 KiB: a lone GET of up to 2 KiB goes through the mailbox */
        char *buf = malloc(4096);

        MPI_CHECK(MPI_Win_lock_all(0, win));
        for (int i = 1; i <= 5; ++i) {
            memset(buf, 0, 4096);
            MPI_CHECK(MPI_Get(buf, 4096, MPI_BYTE, 1, 8 * i, 4096, MPI_BYTE, win));
            rc = MPI_Win_flush(1, win);
            cls = MPI_SUCCESS;
            MPI_Error_class(rc, &cls);
            if (i == fail_at) {
                MTEST_CHECK(MPI_ERR_OTHER == cls || MPI_ERR_INTERN == cls,
                            "flush after the failed GET %d: error class %d", i, cls);
                continue;
            }
            MTEST_CHECK(MPI_SUCCESS == rc, "flush after GET %d failed: %d", i, rc);
            memcpy(&got, buf, sizeof(long));
            MTEST_CHECK(7000 + i == got, "GET %d read %ld, expected %d", i, got, 7000 + i);
        }
        MPI_CHECK(MPI_Win_unlock_all(win));
        free(buf);
        MTEST_CHECK(mtest_pvar_read(session, handle) > 0, "no GET was read by the call itself");
    }
    MPI_CHECK(MPI_T_pvar_handle_free(session, &handle));
    MPI_CHECK(MPI_T_pvar_session_free(&session));
    MPI_T_finalize();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHECK(MPI_Win_free(&win));
    MPI_CHECK(MPI_Free_mem(big));
    return mtest_finalize();
}

int main(int argc, char **argv)
{
    const char *rank_env = getenv("OMPI_COMM_WORLD_RANK");
    long vals[PUTS];
    static unsigned char big[BIGS * BIG];
    mtest_stream_t s;
    bool copy;

    if (argc < 3) {
        fprintf(stderr, "usage: get_rdma FLAVOR SYNC [rdma|any] [flush|local] [copy] | fail N\n");
        return 2;
    }
    /* node-local accesses of 1 KiB or more take the cross-memory copy where
     * the probe finds it cheap: here from 128 KiB, unless "copy" asks for
     * them from 1 KiB (the same orders kept by the copy from the call) */
    copy = 0 == strcmp(argv[argc - 1], "copy");
    argc -= copy ? 1 : 0;
    setenv("OMPI_MCA_osc_newrma_cma_bytes", copy ? "1024" : "131072", 0);
    /* nor smaller ones after a flush (cma_putget small tests those) */
    setenv("OMPI_MCA_osc_newrma_cma_small_bytes", "0", 0);
    if (0 == strcmp(argv[1], "fail")) {
        if (NULL != rank_env && 0 == strcmp(rank_env, "0")) {
            setenv("OMPI_MCA_osc_newrma_test_fail_rdma", argv[2], 1);
        }
        mtest_init(&argc, &argv);
        return fail_case(atoi(argv[2]));
    }
    mtest_stream_init(&s, &argc, &argv, "rdma", "osc_newrma_win_rdma_at_call", REGION);
    for (int r = 0; r < ROUNDS; ++r) {
        for (size_t x = 0; x < REGION; ++x) {
            s.mine[x] = byte_of(mtest_rank, r, x);
        }
        mtest_stream_open(&s);
        stream(s.w.win, s.sync, r, s.right, s.w.disp0[s.right], s.got, vals, big);
        mtest_stream_close(&s, check_got, r);
    }
    return mtest_stream_fini(&s, "no GET was read by the call itself");
}
