/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Small GETs requested as the records of GETS packets and answered by one
 * GETS_REPLY each (osc_newrma_get_records).  Every rank's window holds a
 * pattern of its own, rewritten by its owner before every round.  Every
 * rank runs, round by round, a seeded program of GETs from every rank's
 * window (its own too): most of 1-64 bytes, some of 65-256, a few of
 * 257-768 (records up to 512 bytes, OMPI_OSC_NEWRMA_PKT_GETS_MAX; above,
 * a GET packet of their own, which ends the GETS packet), runs
 * of adjacent ones and jumps, of MPI_BYTE and of MPI_INT, into buffers
 * that lie one after the other or apart, and now and then an
 * MPI_Accumulate on a counter of the target (a packet between GETs).
 * After each round's epoch, every byte read must be the pattern's, and at
 * the end every counter the number of accumulates.  With "records", some
 * GET must have been a record on some rank (osc_newrma_win_get_records);
 * with "off" none.
 *
 *   get_records FLAVOR SYNC [records|any] [off]
 *     off: osc_newrma_get_records 0 (a GET packet per GET)
 */
#include "mtest.h"

#define ROUNDS  6
#define STEPS   80
#define AREA    4096
#define COUNTER AREA /* then a counter per origin, 8 bytes each */
/* bytes of destination a round's program for one target can take */
#define DEST_BYTES (STEPS * 800)

/* One step: a GET of size bytes at offset at (of MPI_INT when ints) into
 * the round's destination at dest, or an MPI_Accumulate on the counter. */
typedef struct {
    int acc, ints;
    size_t at, size, dest;
} step_t;

static size_t step_size(mtest_rng_t *r)
{
    uint32_t pick = mtest_rng_next(r) % 20;

    if (pick < 14) {
        return 1 + mtest_rng_next(r) % 64;
    }
    if (pick < 18) {
        return 65 + mtest_rng_next(r) % 192;
    }
    return 257 + mtest_rng_next(r) % 512;
}

static int program(int origin, int target, int round, step_t *steps)
{
    mtest_rng_t r = {(uint64_t) (origin * 1000003 + target * 1009 + round) * 2654435761u + 11};
    size_t at = mtest_rng_next(&r) % AREA, dest = 0;
    int n = 0;

    for (int i = 0; i < STEPS; ++i) {
        step_t s = {0, 0, 0, step_size(&r), 0};

        if (0 == mtest_rng_next(&r) % 12) {
            steps[n++] = (step_t){1, 0, 0, 0, 0};
        }
        if (0 == mtest_rng_next(&r) % 4) {
            s.ints = 1;
            s.size = (s.size + 3) & ~(size_t) 3;
            at &= ~(size_t) 3;
        }
        if (0 == mtest_rng_next(&r) % 6 || at + s.size > AREA) {
            at = mtest_rng_next(&r) % (AREA - s.size) & (s.ints ? ~(size_t) 3 : ~(size_t) 0);
        }
        if (0 == mtest_rng_next(&r) % 5) {
            dest += 1 + mtest_rng_next(&r) % 16; /* apart from the last */
        }
        s.at = at;
        s.dest = dest;
        steps[n++] = s;
        at += s.size;
        dest += s.size;
    }
    return n;
}

/* What byte @p i of @p target's window holds in @p round. */
static unsigned char window_byte(int target, int round, size_t i)
{
    return mtest_pattern((uint32_t) (target * 7919 + round * 104729 + 1), i);
}

typedef struct {
    mtest_win_t *w;
    unsigned char *got; /* per round and target */
    int nprocs, round;
} issue_ctx_t;

static unsigned char *round_dest(issue_ctx_t *c, int round, int target)
{
    return c->got + ((size_t) round * (size_t) c->nprocs + (size_t) target) * DEST_BYTES;
}

static void issue_round(void *ctx, int target, int unused)
{
    static const long one = 1;
    issue_ctx_t *c = ctx;
    int round = c->round;
    step_t steps[2 * STEPS];
    int n = program(mtest_rank, target, round, steps);
    unsigned char *dest = round_dest(c, round, target);
    MPI_Aint base = c->w->disp0[target];

    for (int i = 0; i < n; ++i) {
        const step_t *s = &steps[i];

        if (s->acc) {
            MPI_CHECK(MPI_Accumulate(&one, 1, MPI_LONG, target,
                                     base + COUNTER + (MPI_Aint) mtest_rank * 8, 1, MPI_LONG,
                                     MPI_SUM, c->w->win));
        } else if (s->ints) {
            MPI_CHECK(MPI_Get(dest + s->dest, (int) (s->size / 4), MPI_INT, target,
                              base + (MPI_Aint) s->at, (int) (s->size / 4), MPI_INT, c->w->win));
        } else {
            MPI_CHECK(MPI_Get(dest + s->dest, (int) s->size, MPI_BYTE, target,
                              base + (MPI_Aint) s->at, (int) s->size, MPI_BYTE, c->w->win));
        }
    }
}

/* The bytes each GET of mine read in @p round. */
static void check_round(issue_ctx_t *c, int round)
{
    step_t steps[2 * STEPS];

    for (int target = 0; target < c->nprocs; ++target) {
        int n = program(mtest_rank, target, round, steps);
        const unsigned char *dest = round_dest(c, round, target);

        for (int i = 0; i < n; ++i) {
            const step_t *s = &steps[i];

            for (size_t b = 0; !s->acc && b < s->size; ++b) {
                unsigned char want = window_byte(target, round, s->at + b);

                if (dest[s->dest + b] != want) {
                    MTEST_CHECK(0, "round %d target %d step %d byte %zu: %d, expected %d", round,
                                target, i, b, dest[s->dest + b], want);
                    return;
                }
            }
        }
    }
}

int main(int argc, char **argv)
{
    const char *name = "osc_newrma_win_get_records";
    size_t bytes = AREA + 4 * 8;
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle;
    unsigned long long records;
    int nprocs, sync, want, off;
    unsigned char *area;
    long counters[4] = {0};
    issue_ctx_t c;
    mtest_win_t w;

    if (argc < 3) {
        fprintf(stderr, "usage: get_records FLAVOR SYNC [records|any] [off]\n");
        return 2;
    }
    off = argc > 4 && 0 == strcmp(argv[4], "off");
    if (off) {
        setenv("OMPI_MCA_osc_newrma_get_records", "0", 1);
    }
    nprocs = mtest_slices_init(&argc, &argv, &w, bytes, name, &session, &handle);
    sync = mtest_sync(argv[2]);
    want = argc > 3 && 0 == strcmp(argv[3], "records");
    c = (issue_ctx_t){&w, calloc((size_t) ROUNDS * (size_t) nprocs, DEST_BYTES), nprocs, 0};
    area = malloc(AREA);

    if (MTEST_SYNC_LOCKALL == sync) {
        MPI_CHECK(MPI_Win_lock_all(0, w.win));
    }
    for (c.round = 0; c.round < ROUNDS; ++c.round) {
        /* the owner rewrites its window and everyone reads it in the round:
         * lockall, in one epoch, the rounds' GETs streams (after the first
         * flush), the stores published by MPI_Win_sync and barriers; else
         * outside any epoch (active target: before the opening fence or
         * post, which publish them) */
        for (size_t i = 0; i < AREA; ++i) {
            area[i] = window_byte(mtest_rank, c.round, i);
        }
        if (MTEST_SYNC_LOCKALL == sync) {
            memcpy(w.base, area, AREA);
            MPI_CHECK(MPI_Win_sync(w.win));
            MPI_Barrier(MPI_COMM_WORLD);
            for (int k = 0; k < nprocs; ++k) {
                issue_round(&c, (mtest_rank + k) % nprocs, c.round);
                MPI_CHECK(MPI_Win_flush((mtest_rank + k) % nprocs, w.win));
            }
            MPI_Barrier(MPI_COMM_WORLD);
            continue;
        }
        if (mtest_sync_is_active(sync)) {
            memcpy(w.base, area, AREA);
        } else {
            mtest_local_store(&w, 0, area, AREA);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        mtest_rounds_all(w.win, sync, 1, issue_round, &c);
    }
    if (MTEST_SYNC_LOCKALL == sync) {
        MPI_CHECK(MPI_Win_unlock_all(w.win));
    }
    records = mtest_pvar_total_end(session, handle);
    MTEST_CHECK(!want || records > 0, "no GET travelled as a record");
    MTEST_CHECK(!off || 0 == records, "%llu records with osc_newrma_get_records 0", records);

    for (int round = 0; round < ROUNDS; ++round) {
        check_round(&c, round);
    }
    mtest_local_load(&w, COUNTER, counters, (size_t) nprocs * 8);
    for (int origin = 0; origin < nprocs; ++origin) {
        long want_accs = 0;
        step_t steps[2 * STEPS];

        for (int round = 0; round < ROUNDS; ++round) {
            int n = program(origin, mtest_rank, round, steps);

            for (int i = 0; i < n; ++i) {
                want_accs += steps[i].acc;
            }
        }
        MTEST_CHECK(counters[origin] == want_accs, "origin %d: counter %ld, expected %ld", origin,
                    counters[origin], want_accs);
    }
    mtest_win_free(&w);
    free(c.got);
    free(area);
    return mtest_finalize();
}
