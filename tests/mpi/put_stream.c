/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Streams of small PUTs to one target, most of which MPI_Put copies into
 * the target's open aggregated message itself (the packed_at_call
 * counter): every rank sends its right neighbour, in each of ROUNDS
 * epochs, STREAM PUTs of 1 to 100 bytes to consecutive ranges, every
 * seventh of a two-block vector type (an operation element, queued: the
 * PUTs behind it may not overtake it), two MPI_SUM accumulates on one
 * counter in the middle, and in lock and lock_all epochs a GET, after
 * MPI_Win_flush_local, of the range the last PUT wrote (it must see it).
 * The target checks every byte and the counter after the epochs.
 *
 *   put_stream FLAVOR SYNC [packed|any] [SCALE]
 *     SYNC: fence, lock (one exclusive lock epoch per round), lockall
 *     (one epoch, a flush per round), pscw; packed: MPI_Put must have
 *     packed some (create and dynamic windows, where PUTs travel as
 *     packets; not in lock or PSCW epochs over UCX, whose PUTs may wait
 *     in the queue for LOCK_GRANTED or the targets' posts).
 *   put_stream fail N
 *     rank 1 fails the Nth packet it applies (osc_newrma_test_fail_packet,
 *     N up to 21: PUT N-1 of rank 0's first round, create window, lock_all;
 *     every PUT a packet): the flush of that round returns an error,
 *     the range of that PUT stays as it was, every other one lands.
 */
#include <stdbool.h>

#include "mtest.h"

#define ROUNDS 6
#define STREAM 40
/* bytes of PUT ranges per round (then, after ROUNDS of them, the counter) */
#define REGION (4096 * scale)

/* argv[4]: PUT sizes times this (a round's stream fills several
 * aggregated messages, osc_newrma_aggregate_node_bytes) */
static int scale = 1;

static const int sizes[] = {1, 2, 3, 8, 16, 24, 64, 100, 5, 8};

/* Byte offset and size of PUT @p i of a round. */
static size_t put_at(int i, int *size)
{
    size_t at = 0;

    for (int k = 0; k < i; ++k) {
        at += (size_t) (sizes[k % 10] * scale) * (k % 7 == 6 ? 3 : 1); /* a vector spans 3 */
    }
    *size = sizes[i % 10] * scale;
    return at;
}

static unsigned char byte_of(int origin, int round, size_t at)
{
    return mtest_pattern((uint32_t) (origin * 131 + round), at);
}

/* One round's PUTs to @p right, with the accumulates and (passive) the GET. */
static void stream(MPI_Win win, int sync, int right, MPI_Aint d0, int round, unsigned char *src,
                   unsigned char *got)
{
    static const long one = 1; /* read until the epoch ends */
    size_t at = 0;
    int size = 0;

    for (int i = 0; i < STREAM; ++i) {
        at = put_at(i, &size);
        size_t base = (size_t) round * REGION;

        if (i % 7 == 6) { /* two blocks of size bytes, a gap of size between */
            MPI_Datatype vec;

            MPI_CHECK(MPI_Type_vector(2, size, 2 * size, MPI_BYTE, &vec));
            MPI_CHECK(MPI_Type_commit(&vec));
            MPI_CHECK(
                MPI_Put(src + base + at, 1, vec, right, d0 + (MPI_Aint) (base + at), 1, vec, win));
            MPI_CHECK(MPI_Type_free(&vec));
        } else {
            MPI_CHECK(MPI_Put(src + base + at, size, MPI_BYTE, right, d0 + (MPI_Aint) (base + at),
                              size, MPI_BYTE, win));
        }
        if (i == STREAM / 2 || i == STREAM / 2 + 1) {
            MPI_CHECK(MPI_Accumulate(&one, 1, MPI_LONG, right, d0 + (MPI_Aint) (ROUNDS * REGION), 1,
                                     MPI_LONG, MPI_SUM, win));
        }
    }
    if (MTEST_SYNC_LOCK == sync || MTEST_SYNC_LOCKALL == sync) {
        size_t base = (size_t) round * REGION;

        MPI_CHECK(MPI_Win_flush_local(right, win));
        MPI_CHECK(
            MPI_Get(got, size, MPI_BYTE, right, d0 + (MPI_Aint) (base + at), size, MPI_BYTE, win));
        MPI_CHECK(MPI_Win_flush_local(right, win));
        MTEST_CHECK(0 == memcmp(got, src + base + at, (size_t) size),
                    "round %d: the GET behind the PUTs did not see the last one", round);
    }
}

static void check_window(const unsigned char *mem, int left, int skip_round, int skip_put)
{
    long counter;

    for (int r = 0; r < ROUNDS; ++r) {
        for (int i = 0; i < STREAM; ++i) {
            int size;
            size_t at = put_at(i, &size), base = (size_t) r * REGION;
            int blocks = i % 7 == 6 ? 2 : 1;

            for (int k = 0; k < (2 == blocks ? 3 : 1) * size; ++k) {
                size_t x = at + (size_t) k;
                bool gap = 2 == blocks && k >= size && k < 2 * size;
                unsigned char want =
                    gap || (r == skip_round && i == skip_put) ? 0 : byte_of(left, r, base + x);

                if (mem[base + x] != want) {
                    MTEST_CHECK(0, "round %d PUT %d byte %zu: %u, expected %u", r, i, x,
                                mem[base + x], want);
                    return;
                }
            }
        }
    }
    memcpy(&counter, mem + ROUNDS * REGION, sizeof(counter));
    MTEST_CHECK(2 * ROUNDS == counter, "accumulated counter %ld, expected %d", counter, 2 * ROUNDS);
}

static int run_fail(int argc, char **argv)
{
    int fail_at = mtest_fail_packet_hook(argc - 1, argv + 1), nprocs, rc;
    size_t bytes = ROUNDS * REGION + sizeof(long);
    unsigned char *src = malloc(bytes), *got = malloc(128);
    mtest_win_t w;

    mtest_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    mtest_win_create(&w, "create", bytes, MPI_INFO_NULL, MPI_COMM_WORLD);
    MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN);
    memset(w.base, 0, bytes);
    for (size_t x = 0; x < bytes; ++x) {
        src[x] = byte_of(mtest_rank, (int) (x / REGION), x);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (0 == mtest_rank) {
        MPI_CHECK(MPI_Win_lock_all(0, w.win));
        for (int r = 0; r < ROUNDS; ++r) {
            stream(w.win, MTEST_SYNC_FENCE /* no GET: its packet would count */, 1, 0, r, src, got);
            rc = MPI_Win_flush(1, w.win);
            if (0 == r) {
                mtest_expect_class(rc, MPI_ERR_OTHER, MPI_ERR_INTERN, "the failed PUT's flush");
            } else {
                MTEST_CHECK(MPI_SUCCESS == rc, "round %d: flush failed: %d", r, rc);
            }
        }
        MPI_CHECK(MPI_Win_unlock_all(w.win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (1 == mtest_rank) {
        /* packets in the order sent: PUT N-1 for N up to 21 (the
         * accumulates follow PUT 20) */
        check_window((const unsigned char *) w.base, 0, 0, fail_at - 1);
    }
    mtest_win_free(&w);
    free(src);
    free(got);
    return mtest_finalize();
}

int main(int argc, char **argv)
{
    const char *name = "osc_newrma_win_packed_at_call";
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle;
    int nprocs, right, left, sync, provided, want_packed;
    size_t bytes = ROUNDS * REGION + sizeof(long);
    unsigned char *src, *got;
    mtest_win_t w;

    if (argc > 1 && 0 == strcmp(argv[1], "fail")) {
        return run_fail(argc, argv);
    }
    if (argc < 3) {
        fprintf(stderr, "usage: put_stream FLAVOR SYNC [packed|any] | put_stream fail N\n");
        return 2;
    }
    mtest_init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    sync = mtest_sync(argv[2]);
    want_packed = argc > 3 && 0 == strcmp(argv[3], "packed");
    scale = argc > 4 ? atoi(argv[4]) : 1;
    bytes = ROUNDS * REGION + sizeof(long);
    got = malloc(128 * (size_t) scale);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    right = (mtest_rank + 1) % nprocs;
    left = (mtest_rank + nprocs - 1) % nprocs;
    src = malloc(bytes);
    for (size_t x = 0; x < bytes; ++x) {
        src[x] = byte_of(mtest_rank, (int) (x / REGION), x);
    }
    mtest_win_counted(&w, argv[1], bytes, name, &session, &handle);

    /* lock_all: one epoch, a flush per round (once granted, the PUTs of a
     * round need not wait for the lock) */
    mtest_rounds_begin(w.win, sync);
    for (int r = 0; r < ROUNDS; ++r) {
        mtest_round_open(w.win, sync, MPI_LOCK_EXCLUSIVE, right);
        stream(w.win, sync, right, w.disp0[right], r, src, got);
        mtest_round_close(w.win, sync, right);
    }
    mtest_rounds_end(w.win, sync);
    MPI_Barrier(MPI_COMM_WORLD);
    if (want_packed) {
        MTEST_CHECK(mtest_pvar_read(session, handle) > 0, "no PUT was packed by the call itself");
    }
    MPI_CHECK(MPI_T_pvar_handle_free(session, &handle));
    MPI_CHECK(MPI_T_pvar_session_free(&session));
    MPI_T_finalize();

    {
        unsigned char *mine = malloc(bytes);

        mtest_local_load(&w, 0, mine, bytes);
        check_window(mine, left, -1, -1);
        free(mine);
    }
    mtest_win_free(&w);
    free(src);
    free(got);
    return mtest_finalize();
}
