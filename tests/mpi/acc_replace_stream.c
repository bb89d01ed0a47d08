/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Streams of MPI_REPLACEs of long elements to a node-local neighbour, in
 * one epoch without a flush between them: sizes from one element to
 * 2 MiB, at seeded offsets that overlap, so that most locations are
 * written several times.  Those of osc_newrma_cma_share_bytes or more go
 * by the MPI call, copied under the target's accumulate lock and shared
 * with its agent; the smaller ones take packets, the mailbox or the copy.
 * MPI's default accumulate_ordering asks that the last write of a location
 * wins whatever way each took, and an MPI_Get_accumulate(MPI_NO_OP) of
 * the whole range at the end of the stream (same epoch) sees them all, as
 * do two more of seeded pieces (a stream of reads, which goes by the calls
 * too from osc_newrma_cma_stream_bytes).
 * The target checks its window against the same program run locally.  In
 * rounds of the first kind only rank 0 writes (its target waits in MPI, its
 * agent free to help), in the others every rank writes its right
 * neighbour at once.  At 2 ranks (not oversubscribed), with the shared
 * memory path on, the agents must have copied chunks of the windows that
 * are the user's memory (create, dynamic).
 *
 *   acc_replace_stream FLAVOR SYNC [ROUNDS]
 */
#include <stdbool.h>

#include "mtest.h"

#define STREAM    7
#define READS     2
#define WIN_LONGS (2 * 262144 + 64) /* 4 MiB + 512 B */

static const size_t sizes[] = {1, 3, 256, 4096, 32768 + 5, 65536, 262144 + 5};
#define SIZES (sizeof(sizes) / sizeof(sizes[0]))

static int me, nprocs, right, left, sync_kind;
static mtest_win_t w;
static long *ops[STREAM], *expect, *got, *read_back, *pieces[READS];

typedef struct {
    size_t at, n;
} piece_t;

/* Op @p i of round @p r of writer @p rank: its place and length. */
static piece_t piece(int rank, int r, int i)
{
    mtest_rng_t rng = {(uint64_t) (rank * 7919 + r * 131 + i) * 2654435761u + 1};
    piece_t p;

    p.n = sizes[mtest_rng_next(&rng) % SIZES];
    p.at = mtest_rng_next(&rng) % (WIN_LONGS - p.n + 1);
    return p;
}

static long value(int rank, int r, int i, size_t k)
{
    return ((long) rank << 48) ^ ((long) r << 36) ^ ((long) i << 28) ^ (long) k;
}

static bool writes(int rank, int r)
{
    return 1 == r % 2 || 0 == rank;
}

/* What writer @p rank's round @p r leaves in @p mem (its target's window,
 * from @p mem's prior contents). */
static void apply(long *mem, int rank, int r)
{
    for (int i = 0; i < STREAM; ++i) {
        piece_t p = piece(rank, r, i);

        for (size_t k = 0; k < p.n; ++k) {
            mem[p.at + k] = value(rank, r, i, k);
        }
    }
}

/* My stream of round @p r to my right neighbour, then the read of all. */
static void stream_right(int r)
{
    if (MTEST_SYNC_LOCK == sync_kind) {
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w.win));
    }
    for (int i = 0; i < STREAM; ++i) {
        piece_t p = piece(me, r, i);

        for (size_t k = 0; k < p.n; ++k) {
            ops[i][k] = value(me, r, i, k);
        }
        MPI_CHECK(MPI_Accumulate(ops[i], (int) p.n, MPI_LONG, right,
                                 w.disp0[right] + (MPI_Aint) (p.at * sizeof(long)), (int) p.n,
                                 MPI_LONG, MPI_REPLACE, w.win));
    }
    MPI_CHECK(MPI_Get_accumulate(NULL, 0, MPI_LONG, read_back, WIN_LONGS, MPI_LONG, right,
                                 w.disp0[right], WIN_LONGS, MPI_LONG, MPI_NO_OP, w.win));
    for (int j = 0; j < READS; ++j) {
        piece_t p = piece(me, r, STREAM + j);

        MPI_CHECK(MPI_Get_accumulate(NULL, 0, MPI_LONG, pieces[j], (int) p.n, MPI_LONG, right,
                                     w.disp0[right] + (MPI_Aint) (p.at * sizeof(long)), (int) p.n,
                                     MPI_LONG, MPI_NO_OP, w.win));
    }
    if (MTEST_SYNC_LOCK == sync_kind) {
        MPI_CHECK(MPI_Win_unlock(right, w.win));
    } else if (MTEST_SYNC_LOCKALL == sync_kind) {
        MPI_CHECK(MPI_Win_flush(right, w.win));
    }
}

static size_t first_mismatch(const long *a, const long *b, size_t n)
{
    for (size_t k = 0; k < n; ++k) {
        if (a[k] != b[k]) {
            return k;
        }
    }
    return n;
}

static void round_run(int r, long *mine_before, long *right_before)
{
    size_t bad;

    mtest_epoch_begin(w.win, sync_kind);
    if (writes(me, r)) {
        stream_right(r);
    }
    mtest_epoch_end(w.win, sync_kind);
    if (writes(me, r)) {
        memcpy(expect, right_before, WIN_LONGS * sizeof(long));
        apply(expect, me, r);
        bad = first_mismatch(read_back, expect, WIN_LONGS);
        MTEST_CHECK(bad == WIN_LONGS,
                    "round %d: read of rank %d's window: long %zu is %ld, not %ld", r, right, bad,
                    read_back[bad % WIN_LONGS], expect[bad % WIN_LONGS]);
        for (int j = 0; j < READS; ++j) {
            piece_t p = piece(me, r, STREAM + j);

            bad = first_mismatch(pieces[j], expect + p.at, p.n);
            MTEST_CHECK(bad == p.n, "round %d: read %d of %zu longs at %zu: long %zu wrong", r, j,
                        p.n, p.at, bad);
        }
        memcpy(right_before, expect, WIN_LONGS * sizeof(long));
    }
    if (writes(left, r)) {
        apply(mine_before, left, r);
        mtest_local_load(&w, 0, got, WIN_LONGS * sizeof(long));
        bad = first_mismatch(got, mine_before, WIN_LONGS);
        MTEST_CHECK(bad == WIN_LONGS, "round %d: from rank %d: long %zu is %ld, not %ld", r, left,
                    bad, got[bad % WIN_LONGS], mine_before[bad % WIN_LONGS]);
    }
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    mtest_shares_t shares;
    long *mine_before, *right_before;
    int rounds = 8, unused = 0;

    setenv("OMPI_MCA_osc_newrma_cma_cheap", "1", 0);
    mtest_start(&argc, &argv, &me, &nprocs, &sync_kind, &rounds, &unused);
    if (argc < 3 || MTEST_SYNC_PSCW == sync_kind) {
        mtest_error("usage: acc_replace_stream create|dynamic|allocate|shared "
                    "fence|lock|lockall [rounds]");
        return mtest_finalize();
    }
    mtest_ring(&nprocs, &right, &left);
    for (int i = 0; i < STREAM; ++i) {
        ops[i] = malloc(sizes[SIZES - 1] * sizeof(long));
    }
    for (int j = 0; j < READS; ++j) {
        pieces[j] = malloc(sizes[SIZES - 1] * sizeof(long));
    }
    expect = malloc(WIN_LONGS * sizeof(long));
    got = malloc(WIN_LONGS * sizeof(long));
    read_back = malloc(WIN_LONGS * sizeof(long));
    mine_before = calloc(WIN_LONGS, sizeof(long));
    right_before = calloc(WIN_LONGS, sizeof(long));
    mtest_win_create(&w, argv[1], WIN_LONGS * sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD);
    mtest_win_zero(&w, WIN_LONGS * sizeof(long));
    mtest_shares_bind(&shares, &w.win);
    for (int r = 0; r < rounds; ++r) {
        round_run(r, mine_before, right_before);
    }
    /* windows in the node's segment take loads and stores instead */
    mtest_shares_check(&shares, 0 == strcmp(argv[1], "create") || 0 == strcmp(argv[1], "dynamic"));
    mtest_win_free(&w);
    for (int i = 0; i < STREAM; ++i) {
        free(ops[i]);
    }
    for (int j = 0; j < READS; ++j) {
        free(pieces[j]);
    }
    free(expect);
    free(got);
    free(read_back);
    free(mine_before);
    free(right_before);
    return mtest_finalize();
}
