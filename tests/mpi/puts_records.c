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

typedef struct {
    uint64_t state;
} rng_t;

static uint32_t rng_next(rng_t *r)
{
    r->state = r->state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t) (r->state >> 33);
}

/* What one PUT or accumulate of a program does. */
typedef struct {
    int acc;     /* an MPI_Accumulate of 1 on the origin's counter */
    size_t at;   /* PUT: offset in the origin's slice */
    size_t size; /* PUT: bytes */
    size_t src;  /* PUT: offset of its data in the round's source buffer */
} step_t;

static size_t step_size(rng_t *r)
{
    uint32_t pick = rng_next(r) % 20;

    if (pick < 12) {
        return 8;
    }
    if (pick < 15) {
        return 1 + rng_next(r) % 7;
    }
    if (pick < 19) {
        return 9 + rng_next(r) % 56;
    }
    return 257 + rng_next(r) % 44;
}

/* The program of @p origin for @p target in @p round, @p n steps into
 * @p steps: the same on every rank. */
static int program(int origin, int target, int round, step_t *steps)
{
    unsigned char used[SLICE] = {0};
    rng_t r = {(uint64_t) (origin * 1000003 + target * 1009 + round) * 2654435761u + 1};
    size_t at = rng_next(&r) % SLICE, src = 0;
    int n = 0;

    for (int i = 0; i < OPS; ++i) {
        size_t size = step_size(&r);
        int clash = 0;

        if (0 == rng_next(&r) % 9) {
            steps[n++] = (step_t){1, 0, 0, 0};
        }
        if (0 == rng_next(&r) % 8 || at + size > SLICE) {
            at = rng_next(&r) % (SLICE - size);
        }
        for (size_t b = at; b < at + size && !clash; ++b) {
            clash = used[b];
        }
        if (clash) { /* PUTs of one epoch may not overlap */
            at = rng_next(&r) % (SLICE - size);
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

int main(int argc, char **argv)
{
    const char *name = "osc_newrma_win_packed_at_call";
    size_t bytes = SLICE * 4 + 4 * 8;
    unsigned long long packed, total = 0;
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle;
    int nprocs, sync, provided, want_packed;
    unsigned char *src, *mine;
    mtest_win_t w;

    if (argc < 3) {
        fprintf(stderr, "usage: puts_records FLAVOR SYNC [packed|any] [nojoin]\n");
        return 2;
    }
    if (argc > 4 && 0 == strcmp(argv[4], "nojoin")) {
        setenv("OMPI_MCA_osc_newrma_puts_join", "0", 1);
    }
    mtest_init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (nprocs > 4) {
        mtest_error("at most 4 ranks (the window holds 4 slices)");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    sync = mtest_sync(argv[2]);
    want_packed = argc > 3 && 0 == strcmp(argv[3], "packed");
    src = malloc((size_t) nprocs * SRC_BYTES);
    mine = malloc(bytes);
    mtest_win_counted(&w, argv[1], bytes, name, &session, &handle);

    mtest_rounds_begin(w.win, sync);
    for (int round = 0; round < ROUNDS; ++round) {
        if (mtest_sync_is_active(sync)) {
            mtest_epoch_begin(w.win, sync);
        }
        for (int k = 0; k < nprocs; ++k) {
            int target = (mtest_rank + k) % nprocs;

            if (MTEST_SYNC_LOCK == sync) {
                MPI_CHECK(MPI_Win_lock(round % 2 ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE, target, 0,
                                       w.win));
            }
            /* a source buffer per target: it is in use until the epoch ends */
            issue(&w, mtest_rank, target, round, src + (size_t) target * SRC_BYTES);
            if (MTEST_SYNC_LOCK == sync) {
                MPI_CHECK(MPI_Win_unlock(target, w.win));
            } else if (MTEST_SYNC_LOCKALL == sync) {
                MPI_CHECK(MPI_Win_flush(target, w.win));
            }
        }
        if (mtest_sync_is_active(sync)) {
            mtest_epoch_end(w.win, sync);
        }
    }
    mtest_rounds_end(w.win, sync);
    MPI_Barrier(MPI_COMM_WORLD);
    packed = mtest_pvar_read(session, handle);
    MPI_Allreduce(&packed, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (want_packed) {
        MTEST_CHECK(total > 0, "no PUT was packed by the call itself");
    }
    MPI_CHECK(MPI_T_pvar_handle_free(session, &handle));
    MPI_CHECK(MPI_T_pvar_session_free(&session));
    MPI_T_finalize();

    mtest_local_load(&w, 0, mine, bytes);
    check(mine, nprocs);
    mtest_win_free(&w);
    free(src);
    free(mine);
    return mtest_finalize();
}
