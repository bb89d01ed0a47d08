/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Streams of large MPI_REPLACEs (or PUTs) from every other rank to rank 0
 * at once, each of 256 KiB or more: over TCP they come by rendezvous and
 * land straight in the window, several at a time where their ranges are
 * disjoint (osc_newrma_win_landed_beside counts those).
 *
 * replace: each origin writes a stream at seeded places of the whole
 * window, overlapping its own earlier ones and the other origins'.  Every
 * element must then hold a value one op wrote whole (its origin, round, op
 * and element encoded in it): an op that covers the element, and the last
 * of its origin's ops that does (accumulate ordering; a later overlapping
 * op landing beside an earlier one would break it), or 0 where no op came.
 * Each origin also reads a seeded piece with MPI_Get_accumulate(MPI_NO_OP)
 * after its stream, in the same epoch: where its own ops cover an element
 * it must see its own last one or another origin's.
 * put: each origin writes a stream of disjoint pieces of its own slice;
 * the window must hold exactly them.
 * mix: each origin's stream alternates MPI_REPLACE and MPI_SUM at seeded,
 * overlapping places of its own slice; a SUM lands in a buffer and is
 * applied afterwards, so no REPLACE may land beside it: the slice must
 * hold what applying the stream in order gives.
 *
 *   land_beside FLAVOR replace|put|mix lockall|lock [ROUNDS] [beside]
 *
 * "beside": rank 0 must have counted landings beside others (the TCP path).
 */
#include "mtest.h"

#define STREAM    10
#define WIN_LONGS (1024 * 1024) /* 8 MiB */
#define VAL_K     40            /* element index bits */

static const size_t sizes[] = {32768, 49152 + 3, 65536, 131072 + 7};
#define SIZES     (sizeof(sizes) / sizeof(sizes[0]))
#define OP_MAX    (131072 + 7)
#define BUF_LONGS (STREAM * OP_MAX) /* an origin buffer per op of a stream */

static int me, nprocs;
static bool put_kind, mix_kind, lock_kind;
static mtest_win_t w;

typedef struct {
    size_t at, n;
} piece_t;

/* Op @p i of origin @p o in round @p r. */
static piece_t piece(int o, int r, int i)
{
    mtest_rng_t rng = {(uint64_t) (o * 7919 + r * 131 + i) * 2654435761u + 7};
    size_t slice = WIN_LONGS / (size_t) (nprocs - 1), at = (size_t) (o - 1) * slice;
    piece_t p;

    p.n = sizes[mtest_rng_next(&rng) % SIZES];
    if (put_kind) { /* disjoint pieces of the origin's slice */
        size_t room = slice / STREAM;

        p.n = p.n < room ? p.n : room;
        p.at = at + (size_t) i * room;
    } else if (mix_kind) { /* overlapping pieces of the origin's slice */
        p.n = p.n < slice / 2 ? p.n : slice / 2;
        p.at = at + mtest_rng_next(&rng) % (slice - p.n + 1);
    } else {
        p.at = mtest_rng_next(&rng) % (WIN_LONGS - p.n + 1);
    }
    return p;
}

static bool covers(piece_t p, size_t k)
{
    return k >= p.at && k < p.at + p.n;
}

static long value(int o, int r, int i, size_t k)
{
    return (long) (((uint64_t) o << 56) | ((uint64_t) (r & 0xff) << 48) | ((uint64_t) i << VAL_K) |
                   (uint64_t) (k + 1));
}

/* The last op of origin @p o in round @p r covering @p k, or -1. */
static int last_cover(int o, int r, size_t k)
{
    for (int i = STREAM - 1; i >= 0; --i) {
        if (covers(piece(o, r, i), k)) {
            return i;
        }
    }
    return -1;
}

/* Whether @p v at element @p k is a value op i of origin o wrote whole
 * (and, @p last, the last of o's covering ops). */
static bool valid(long v, int r, size_t k, bool last)
{
    uint64_t u = (uint64_t) v;
    int o = (int) (u >> 56), i = (int) ((u >> VAL_K) & 0xff);

    if (o < 1 || o >= nprocs || i >= STREAM || v != value(o, r, i, k) ||
        !covers(piece(o, r, i), k)) {
        return false;
    }
    return !last || i == last_cover(o, r, k);
}

static void stream(int r, long *buf, long *got)
{
    MPI_Aint base = w.disp0[0];
    piece_t q;

    if (lock_kind) {
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w.win));
    }
    for (int i = 0; i < STREAM; ++i) {
        piece_t p = piece(me, r, i);
        long *src = buf + (size_t) i * OP_MAX;

        for (size_t k = 0; k < p.n; ++k) {
            src[k] = value(me, r, i, p.at + k);
        }
        if (mix_kind && (i & 1)) {
            for (size_t k = 0; k < p.n; ++k) {
                src[k] = (long) (i + 1) << 20;
            }
        }
        if (put_kind) {
            MPI_CHECK(MPI_Put(src, (int) p.n, MPI_LONG, 0, base + (MPI_Aint) (p.at * sizeof(long)),
                              (int) p.n, MPI_LONG, w.win));
        } else {
            MPI_CHECK(MPI_Accumulate(src, (int) p.n, MPI_LONG, 0,
                                     base + (MPI_Aint) (p.at * sizeof(long)), (int) p.n, MPI_LONG,
                                     mix_kind && (i & 1) ? MPI_SUM : MPI_REPLACE, w.win));
        }
    }
    q = piece(me, r + 1000, 0);
    if (!put_kind && !mix_kind) { /* ordered after the stream, in the same epoch */
        MPI_CHECK(MPI_Get_accumulate(NULL, 0, MPI_LONG, got, (int) q.n, MPI_LONG, 0,
                                     base + (MPI_Aint) (q.at * sizeof(long)), (int) q.n, MPI_LONG,
                                     MPI_NO_OP, w.win));
    }
    if (lock_kind) {
        MPI_CHECK(MPI_Win_unlock(0, w.win));
    } else {
        MPI_CHECK(MPI_Win_flush(0, w.win));
    }
    for (size_t k = 0; !put_kind && !mix_kind && k < q.n && mtest_errors < 10; ++k) {
        int mine = last_cover(me, r, q.at + k);
        long v = got[k];
        bool ok = mine < 0
                      ? 0 == v || valid(v, r, q.at + k, false)
                      : v == value(me, r, mine, q.at + k) ||
                            ((uint64_t) v >> 56 != (uint64_t) me && valid(v, r, q.at + k, false));

        MTEST_CHECK(ok, "round %d: read of element %zu: %#lx (my last op there %d)", r, q.at + k, v,
                    mine);
    }
}

/* mix: the window as applying every origin's stream in order leaves it */
static void check_mix(int r, const long *mem)
{
    long *expect = calloc(WIN_LONGS, sizeof(long));

    for (int o = 1; o < nprocs; ++o) {
        for (int i = 0; i < STREAM; ++i) {
            piece_t p = piece(o, r, i);

            for (size_t k = p.at; k < p.at + p.n; ++k) {
                expect[k] = (i & 1) ? expect[k] + ((long) (i + 1) << 20) : value(o, r, i, k);
            }
        }
    }
    for (size_t k = 0; k < WIN_LONGS && mtest_errors < 10; ++k) {
        MTEST_CHECK(mem[k] == expect[k], "round %d: element %zu holds %#lx, expected %#lx", r, k,
                    mem[k], expect[k]);
    }
    free(expect);
}

static void check(int r, const long *mem)
{
    if (mix_kind) {
        check_mix(r, mem);
        return;
    }
    for (size_t k = 0; k < WIN_LONGS && mtest_errors < 10; ++k) {
        bool any = false;

        for (int o = 1; o < nprocs && !any; ++o) {
            any = last_cover(o, r, k) >= 0;
        }
        MTEST_CHECK(any ? valid(mem[k], r, k, true) : 0 == mem[k],
                    "round %d: element %zu holds %#lx (covered: %d)", r, k, mem[k], any);
    }
}

int main(int argc, char **argv)
{
    int rounds = argc > 4 ? atoi(argv[4]) : 4, provided;
    bool beside = argc > 5 && 0 == strcmp(argv[5], "beside");
    const char *name = "osc_newrma_win_landed_beside";
    long *buf = malloc(BUF_LONGS * sizeof(long)), *got = malloc(OP_MAX * sizeof(long));
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle;
    unsigned long long landed;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    put_kind = argc > 2 && 0 == strcmp(argv[2], "put");
    mix_kind = argc > 2 && 0 == strcmp(argv[2], "mix");
    lock_kind = argc > 3 && 0 == strcmp(argv[3], "lock");
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    mtest_win_counted(&w, argc > 1 ? argv[1] : "create", WIN_LONGS * sizeof(long), name, &session,
                      &handle);
    for (int r = 0; r < rounds; ++r) {
        if (r > 0) {
            mtest_win_zero(&w, WIN_LONGS * sizeof(long));
        }
        if (!lock_kind) {
            MPI_CHECK(MPI_Win_lock_all(0, w.win));
        }
        if (0 != me) {
            stream(r, buf, got);
        }
        if (!lock_kind) {
            MPI_CHECK(MPI_Win_unlock_all(w.win));
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (0 == me) {
            mtest_local_load(&w, 0, buf, WIN_LONGS * sizeof(long));
            check(r, buf);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    landed = mtest_pvar_read(session, handle);
    mtest_win_counted_free(&w, &session, &handle);
    MPI_T_finalize();
    MTEST_CHECK(0 != me || !beside || landed > 0, "no landing beside another in %d rounds", rounds);
    free(buf);
    free(got);
    return mtest_finalize();
}
