/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Streams of PUTs to described target layouts, which MPI_Put packs into
 * its target's aggregated message itself (one described PUT packet, the
 * osc_newrma_win_packed_at_call counter): every rank writes, round by
 * round, a seeded program of PUTs into its own slice of every rank's
 * window (its own too), each to a fresh range of the slice: vectors of
 * bytes and of ints, indexed layouts whose blocks touch, and vectors of
 * 4.8-6.4 KiB (more than MPI_Put packs a non-contiguous origin of on its
 * stack: the full way), from a contiguous origin or from every other
 * element of one; between some PUTs an MPI_Accumulate on the origin's
 * counter.  Every PUT is non-contiguous at the target, so with "packed"
 * the ranks' counters must have counted one (more than the accumulates,
 * which they count too).  The gaps between blocks keep
 * what earlier rounds wrote.  Every rank derives every origin's program
 * from the seed and checks its window byte by byte at the end, the
 * expected bytes unpacked by MPI_Unpack with the same layouts.
 *
 *   put_described FLAVOR SYNC [packed|any]
 */
#include "mtest.h"

#define ROUNDS 6
#define OPS    40
#define SLICE  (24 * 1024)
/* origin bytes per target: two for each byte of the slice */
#define SRC_BYTES (4 * (size_t) SLICE)

/* One PUT of a program (acc: an MPI_Accumulate of 1 on the counter). */
typedef struct {
    int acc;
    size_t at;          /* offset of the layout's byte 0 in the origin's slice */
    MPI_Datatype tdt;   /* target layout, one element */
    MPI_Datatype odt;   /* origin: contiguous or every other element */
    int ocount;         /* origin elements */
    size_t bytes, span; /* data bytes; bytes the target layout spans */
} step_t;

/* A target layout drawn from @p r, its basic type in *@p basic. */
static MPI_Datatype layout(mtest_rng_t *r, MPI_Datatype *basic)
{
    MPI_Datatype t;
    uint32_t kind = mtest_rng_next(r) % 8;

    *basic = MPI_BYTE;
    if (kind < 3) { /* blocks of 1-16 bytes, gaps of 1-16 */
        int bl = 1 + (int) (mtest_rng_next(r) % 16);
        MPI_CHECK(MPI_Type_vector(2 + (int) (mtest_rng_next(r) % 63), bl,
                                  bl + 1 + (int) (mtest_rng_next(r) % 16), MPI_BYTE, &t));
    } else if (kind < 5) { /* ints: blocks of 1-4, gaps of 1-4 */
        int bl = 1 + (int) (mtest_rng_next(r) % 4);
        *basic = MPI_INT;
        MPI_CHECK(MPI_Type_vector(2 + (int) (mtest_rng_next(r) % 31), bl,
                                  bl + 1 + (int) (mtest_rng_next(r) % 4), MPI_INT, &t));
    } else if (kind < 7) { /* irregular blocks, some touching the next (not the first) */
        int n = 2 + (int) (mtest_rng_next(r) % 15), lens[16], disps[16], at = 0;
        for (int i = 0; i < n; ++i) {
            lens[i] = 1 + (int) (mtest_rng_next(r) % 24);
            disps[i] = at;
            at += lens[i] + (int) (mtest_rng_next(r) % 13) + (0 == i);
        }
        MPI_CHECK(MPI_Type_indexed(n, lens, disps, MPI_BYTE, &t));
    } else { /* 4.8-6.4 KiB of 16-byte blocks */
        MPI_CHECK(MPI_Type_vector(300 + (int) (mtest_rng_next(r) % 101), 16, 24, MPI_BYTE, &t));
    }
    MPI_CHECK(MPI_Type_commit(&t));
    return t;
}

/* The program of @p origin for @p target in @p round into @p steps; free
 * with program_free.  The same on every rank. */
static int program(int origin, int target, int round, step_t *steps)
{
    mtest_rng_t r = {(uint64_t) (origin * 1000003 + target * 1009 + round) * 2654435761u + 7};
    size_t at = mtest_rng_next(&r) % 64;
    int n = 0;

    for (int i = 0; i < OPS; ++i) {
        step_t s = {0};
        MPI_Datatype basic;
        MPI_Aint lb, extent;
        int size;

        if (0 == mtest_rng_next(&r) % 9) {
            steps[n++] = (step_t){.acc = 1};
        }
        s.tdt = layout(&r, &basic);
        MPI_CHECK(MPI_Type_size(s.tdt, &size));
        MPI_CHECK(MPI_Type_get_true_extent(s.tdt, &lb, &extent));
        s.bytes = (size_t) size;
        s.span = (size_t) extent;
        if (at + s.span > SLICE) {
            MPI_CHECK(MPI_Type_free(&s.tdt));
            break;
        }
        s.at = at;
        at += s.span + mtest_rng_next(&r) % 32;
        s.ocount = size / (MPI_INT == basic ? 4 : 1);
        if (0 == mtest_rng_next(&r) % 3) { /* every other element */
            MPI_CHECK(MPI_Type_vector(s.ocount, 1, 2, basic, &s.odt));
            MPI_CHECK(MPI_Type_commit(&s.odt));
            s.ocount = 1;
        } else {
            s.odt = basic;
        }
        steps[n++] = s;
    }
    return n;
}

static void program_free(step_t *steps, int n)
{
    for (int s = 0; s < n; ++s) {
        if (steps[s].acc) {
            continue;
        }
        MPI_CHECK(MPI_Type_free(&steps[s].tdt));
        if (MPI_BYTE != steps[s].odt && MPI_INT != steps[s].odt) {
            MPI_CHECK(MPI_Type_free(&steps[s].odt));
        }
    }
}

/* The origin buffer of a step: 2 * bytes, a pattern of origin, target,
 * round and step. */
static void origin_fill(unsigned char *buf, const step_t *s, int origin, int target, int round,
                        int k)
{
    for (size_t i = 0; i < 2 * s->bytes; ++i) {
        buf[i] = mtest_pattern((uint32_t) (origin * 7919 + target * 31 + round * 131 + k), i);
    }
}

/* @return the accumulates issued */
static long issue(mtest_win_t *w, int me, int target, int round, unsigned char *src)
{
    static const long one = 1;
    step_t steps[2 * OPS];
    int n = program(me, target, round, steps);
    MPI_Aint slice = w->disp0[target] + (MPI_Aint) me * SLICE;
    MPI_Aint counter = w->disp0[target] + (MPI_Aint) SLICE * 4 + (MPI_Aint) me * 8;
    size_t used = 0;
    long accs = 0;

    for (int k = 0; k < n; ++k) {
        step_t *s = &steps[k];

        if (s->acc) {
            MPI_CHECK(
                MPI_Accumulate(&one, 1, MPI_LONG, target, counter, 1, MPI_LONG, MPI_SUM, w->win));
            accs++;
            continue;
        }
        /* the source stays untouched until the epoch ends */
        origin_fill(src + used, s, me, target, round, k);
        MPI_CHECK(MPI_Put(src + used, s->ocount, s->odt, target, slice + (MPI_Aint) s->at, 1,
                          s->tdt, w->win));
        used += 2 * s->bytes;
    }
    program_free(steps, n);
    return accs;
}

/* What @p origin's rounds leave in my slice of it, in @p want. */
static long expect(unsigned char *want, int origin, int nprocs)
{
    unsigned char *buf = malloc(2 * SLICE), *packed = malloc(SLICE);
    step_t steps[2 * OPS];
    long accs = 0;

    (void) nprocs;
    memset(want, 0, SLICE);
    for (int round = 0; round < ROUNDS; ++round) {
        int n = program(origin, mtest_rank, round, steps);

        for (int k = 0; k < n; ++k) {
            const step_t *s = &steps[k];
            int pos = 0;

            if (s->acc) {
                accs++;
                continue;
            }
            origin_fill(buf, s, origin, mtest_rank, round, k);
            MPI_CHECK(MPI_Pack(buf, s->ocount, s->odt, packed, SLICE, &pos, MPI_COMM_SELF));
            pos = 0;
            MPI_CHECK(MPI_Unpack(packed, SLICE, &pos, want + s->at, 1, s->tdt, MPI_COMM_SELF));
        }
        program_free(steps, n);
    }
    free(buf);
    free(packed);
    return accs;
}

/* My window after every round of every origin, and the counters. */
static void check(const unsigned char *mine, int nprocs)
{
    unsigned char *want = malloc(SLICE);

    for (int origin = 0; origin < nprocs; ++origin) {
        long accs = expect(want, origin, nprocs), got;

        for (size_t b = 0; b < SLICE; ++b) {
            if (mine[(size_t) origin * SLICE + b] != want[b]) {
                MTEST_CHECK(0, "origin %d byte %zu: %d, expected %d", origin, b,
                            mine[(size_t) origin * SLICE + b], want[b]);
                break;
            }
        }
        memcpy(&got, mine + (size_t) SLICE * 4 + (size_t) origin * 8, sizeof(got));
        MTEST_CHECK(got == accs, "origin %d: counter %ld, expected %ld", origin, got, accs);
    }
    free(want);
}

typedef struct {
    mtest_win_t *w;
    unsigned char *src; /* per target SRC_BYTES: in use until the epoch ends */
    unsigned long long accs;
} issue_ctx_t;

static void issue_round(void *ctx, int target, int round)
{
    issue_ctx_t *c = ctx;

    c->accs += (unsigned long long) issue(c->w, mtest_rank, target, round,
                                          c->src + (size_t) target * SRC_BYTES);
}

int main(int argc, char **argv)
{
    const char *name = "osc_newrma_win_packed_at_call";
    size_t bytes = (size_t) SLICE * 4 + 4 * 8;
    unsigned long long total, accs = 0;
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle;
    int nprocs, sync, want_packed;
    unsigned char *src, *mine;
    mtest_win_t w;
    issue_ctx_t c = {&w, NULL, 0};

    if (argc < 3) {
        fprintf(stderr, "usage: put_described FLAVOR SYNC [packed|any]\n");
        return 2;
    }
    nprocs = mtest_slices_init(&argc, &argv, &w, bytes, name, &session, &handle);
    sync = mtest_sync(argv[2]);
    want_packed = argc > 3 && 0 == strcmp(argv[3], "packed");
    src = malloc((size_t) nprocs * SRC_BYTES);
    c.src = src;
    mine = malloc(bytes);

    mtest_rounds_all(w.win, sync, ROUNDS, issue_round, &c);
    total = mtest_pvar_total_end(session, handle);
    MPI_CHECK(MPI_Allreduce(&c.accs, &accs, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    if (want_packed) {
        /* the counter counts accumulates packed by the call too */
        MTEST_CHECK(total > accs, "no described PUT was packed by the call itself (%llu)", total);
    }

    mtest_local_load(&w, 0, mine, bytes);
    check(mine, nprocs);
    mtest_win_free(&w);
    free(src);
    free(mine);
    return mtest_finalize();
}
