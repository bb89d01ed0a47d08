/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Small PUTs aggregated as the records of PUTS packets, a PUT to the bytes
 * right after the last record's joining that record (osc_newrma_puts_join).
 * Every rank writes, round by round, a seeded program of PUTs into its own
 * slice of every rank's window (its own too): runs of adjacent PUTs, most
 * of 8 bytes (they join), some of 1-7 or 9-64 (odd sizes join nothing
 * after them), a few of 257-300 (a PUT packet of their own, which ends the
 * PUTS packet), jumps to another place, and between some PUTs an
 * MPI_Accumulate on the origin's counter (a packet of its own too).  No
 * two PUTs of a round overlap; the next round writes over the last (what
 * the later round wrote must stay).  Every rank derives every origin's
 * program from the seed, and at the end checks its window byte by byte
 * and the counters.  With "packed", MPI_Put must have packed some PUTs
 * itself on some rank (osc_newrma_win_packed_at_call).
 *
 *   puts_records FLAVOR SYNC [packed|any] [nojoin]
 *     nojoin: osc_newrma_puts_join 0 (a record per PUT)
 */
#include "mtest.h"

#define ROUNDS 8
#define OPS    48
#define SLICE  2048
/* bytes of data a round's program of one origin for one target can take */
#define SRC_BYTES (OPS * 300)

/* What one PUT or accumulate of a program does. */
typedef struct {
    int acc;     /* an MPI_Accumulate of 1 on the origin's counter */
    size_t at;   /* PUT: offset in the origin's slice */
    size_t size; /* PUT: bytes */
    size_t src;  /* PUT: offset of its data in the round's source buffer */
} step_t;

static size_t step_size(mtest_rng_t *r)
{
    uint32_t pick = mtest_rng_next(r) % 20;

    if (pick < 12) {
        return 8;
    }
    if (pick < 15) {
        return 1 + mtest_rng_next(r) % 7;
    }
    if (pick < 19) {
        return 9 + mtest_rng_next(r) % 56;
    }
    return 257 + mtest_rng_next(r) % 44;
}

/* The program of @p origin for @p target in @p round, @p n steps into
 * @p steps: the same on every rank. */
static int program(int origin, int target, int round, step_t *steps)
{
    unsigned char used[SLICE] = {0};
    mtest_rng_t r = {(uint64_t) (origin * 1000003 + target * 1009 + round) * 2654435761u + 1};
    size_t at = mtest_rng_next(&r) % SLICE, src = 0;
    int n = 0;

    for (int i = 0; i < OPS; ++i) {
        size_t size = step_size(&r);
        int clash = 0;

        if (0 == mtest_rng_next(&r) % 9) {
            steps[n++] = (step_t){1, 0, 0, 0};
        }
        if (0 == mtest_rng_next(&r) % 8 || at + size > SLICE) {
            at = mtest_rng_next(&r) % (SLICE - size);
        }
        for (size_t b = at; b < at + size && !clash; ++b) {
            clash = used[b];
        }
        if (clash) { /* PUTs of one epoch may not overlap */
            at = mtest_rng_next(&r) % (SLICE - size);
            continue;
        }
        memset(used + at, 1, size);
        steps[n++] = (step_t){0, at, size, src};
        src += size;
        at += size;
    }
    return n;
}

static unsigned char data_byte(int origin, int target, int round, size_t i)
{
    return mtest_pattern((uint32_t) (origin * 7919 + target * 31 + round), i);
}

static void issue(mtest_win_t *w, int me, int target, int round, unsigned char *src)
{
    static const long one = 1;
    step_t steps[2 * OPS];
    int n = program(me, target, round, steps);
    MPI_Aint slice = w->disp0[target] + (MPI_Aint) me * SLICE;
    MPI_Aint counter = w->disp0[target] + (MPI_Aint) SLICE * 4 + (MPI_Aint) me * 8;

    for (size_t i = 0; i < SRC_BYTES; ++i) {
        src[i] = data_byte(me, target, round, i);
    }
    for (int s = 0; s < n; ++s) {
        if (steps[s].acc) {
            MPI_CHECK(
                MPI_Accumulate(&one, 1, MPI_LONG, target, counter, 1, MPI_LONG, MPI_SUM, w->win));
        } else {
            MPI_CHECK(MPI_Put(src + steps[s].src, (int) steps[s].size, MPI_BYTE, target,
                              slice + (MPI_Aint) steps[s].at, (int) steps[s].size, MPI_BYTE,
                              w->win));
        }
    }
}

/* My window after every round of every origin, and the counters. */
static void check(const unsigned char *mine, int nprocs)
{
    unsigned char want[SLICE];
    step_t steps[2 * OPS];

    for (int origin = 0; origin < nprocs; ++origin) {
        long accs = 0, got;

        memset(want, 0, sizeof(want));
        for (int round = 0; round < ROUNDS; ++round) {
            int n = program(origin, mtest_rank, round, steps);

            for (int s = 0; s < n; ++s) {
                for (size_t b = 0; b < steps[s].size; ++b) {
                    want[steps[s].at + b] = data_byte(origin, mtest_rank, round, steps[s].src + b);
                }
                accs += steps[s].acc;
            }
        }
        for (size_t b = 0; b < SLICE; ++b) {
            if (mine[(size_t) origin * SLICE + b] != want[b]) {
                MTEST_CHECK(0, "origin %d byte %zu: %d, expected %d", origin, b,
                            mine[(size_t) origin * SLICE + b], want[b]);
                break;
            }
        }
        memcpy(&got, mine + SLICE * 4 + (size_t) origin * 8, sizeof(got));
        MTEST_CHECK(got == accs, "origin %d: counter %ld, expected %ld", origin, got, accs);
    }
}

typedef struct {
    mtest_win_t *w;
    unsigned char *src; /* a source buffer per target: in use until the epoch ends */
} issue_ctx_t;

static void issue_round(void *ctx, int target, int round)
{
    issue_ctx_t *c = ctx;

    issue(c->w, mtest_rank, target, round, c->src + (size_t) target * SRC_BYTES);
}

int main(int argc, char **argv)
{
    const char *name = "osc_newrma_win_packed_at_call";
    size_t bytes = SLICE * 4 + 4 * 8;
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle;
    int nprocs, sync, want_packed;
    unsigned char *src, *mine;
    mtest_win_t w;

    if (argc < 3) {
        fprintf(stderr, "usage: puts_records FLAVOR SYNC [packed|any] [nojoin]\n");
        return 2;
    }
    if (argc > 4 && 0 == strcmp(argv[4], "nojoin")) {
        setenv("OMPI_MCA_osc_newrma_puts_join", "0", 1);
    }
    nprocs = mtest_slices_init(&argc, &argv, &w, bytes, name, &session, &handle);
    sync = mtest_sync(argv[2]);
    want_packed = argc > 3 && 0 == strcmp(argv[3], "packed");
    src = malloc((size_t) nprocs * SRC_BYTES);
    mine = malloc(bytes);

    mtest_rounds_all(w.win, sync, ROUNDS, issue_round, &(issue_ctx_t){&w, src});
    if (mtest_pvar_total_end(session, handle) == 0 && want_packed) {
        MTEST_CHECK(0, "no PUT was packed by the call itself");
    }

    mtest_local_load(&w, 0, mine, bytes);
    check(mine, nprocs);
    mtest_win_free(&w);
    free(src);
    free(mine);
    return mtest_finalize();
}
