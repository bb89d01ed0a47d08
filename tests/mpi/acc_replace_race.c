/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * A large MPI_REPLACE and fetching adds of other ranks and of the target
 * itself on the same elements at once, round after round (argv[1]: window
 * flavor; argv[2]: rounds, default 12; argv[3] "landed": the target's
 * replaces_in_window must count every REPLACE, "any": no count asked).
 * Rank 1 replaces the target's whole 2 MiB block (rank 0's) with the
 * round's values while every other rank, rank 0 included (to itself), adds
 * 1 to every element with one large MPI_Get_accumulate (a rendezvous over
 * TCP, applied chunk by chunk), to each element of its own stripe with
 * MPI_Fetch_and_op, each followed by a GET from rank 2 (progress, so that
 * the target's adds to itself may meet the REPLACE landing), and reads
 * the whole block (MPI_NO_OP).
 *
 * A value holds its round in two bytes (bits 40-47 and 56-63), its element
 * in bits 8-31 and the adds since its REPLACE in the low byte.  What an add
 * fetched tells whether it came before this round's REPLACE (the round
 * before's value) or after (this round's); the target's element must then
 * hold this round's value plus the number of adds that came after, summed
 * over the ranks.  Element-wise atomicity broken by the REPLACE's bytes
 * landing in pieces around an add (TCP receives any number of bytes at a
 * time) shows: a fetched value with two rounds in it, or an add that
 * fetched the round before yet is counted in this round's value.
 */
#include "mtest.h"

#define COUNT (256 * 1024) /* int64 elements: 2 MiB, above rndv_threshold */
#define SMALL 16           /* MPI_Fetch_and_op per round, on my stripe */

static int me, nprocs;
static mtest_win_t w;

static uint64_t value(int round, int64_t e)
{
    uint64_t r = (uint64_t) (round + 1) & 0xff;

    return (r << 56) | (r << 40) | ((uint64_t) e << 8);
}

/* The round of @p v when it is a well-formed value of element @p e from
 * round @p round or the one before, with at most @p adds adds; else -2. */
static int round_of(int64_t e, uint64_t v, int round, int adds)
{
    for (int r = round - 1; r <= round; ++r) {
        uint64_t base = r < 0 ? 0 : value(r, e);

        if (v >= base && v - base <= (uint64_t) adds) {
            return r;
        }
    }
    return -2;
}

/* Rank r's stripe (r != 1): SMALL elements of its own. */
static int64_t stripe_at(int r)
{
    return (int64_t) (0 == r ? 0 : r - 1) * 4096;
}

static void replacer(uint64_t *buf, int round)
{
    for (int64_t e = 0; e < COUNT; ++e) {
        buf[e] = value(round, e);
    }
    MPI_CHECK(MPI_Accumulate(buf, COUNT, MPI_UINT64_T, 0, w.disp0[0], COUNT, MPI_UINT64_T,
                             MPI_REPLACE, w.win));
    MPI_CHECK(MPI_Win_flush(0, w.win));
}

/* My adds of this round; @p after[e]: how many of mine came after its
 * REPLACE. */
static void adder(uint64_t *buf, const uint64_t *one, int32_t *after, int round)
{
    int64_t at = stripe_at(me);
    int adds = 2 * nprocs; /* before the REPLACE: the round before's after it, and this one's */
    int peer = nprocs > 2 && 2 != me ? 2 : 1;
    uint64_t got[SMALL], peek;

    for (int i = 0; i < SMALL; ++i) {
        MPI_CHECK(MPI_Fetch_and_op(one, &got[i], MPI_UINT64_T, 0, w.disp0[0] + (at + i) * 8,
                                   MPI_SUM, w.win));
        /* a round trip between them: progress, in which the REPLACE may
         * start landing at the target, rank 0 itself, which returns to add
         * to itself while it lands when the answer is not behind its bytes
         * (not the replacer's, on the same TCP connection) */
        MPI_CHECK(MPI_Get(&peek, 1, MPI_UINT64_T, peer, w.disp0[peer], 1, MPI_UINT64_T, w.win));
        MPI_CHECK(MPI_Win_flush(peer, w.win));
    }
    MPI_CHECK(MPI_Get_accumulate(one, COUNT, MPI_UINT64_T, buf, COUNT, MPI_UINT64_T, 0, w.disp0[0],
                                 COUNT, MPI_UINT64_T, MPI_SUM, w.win));
    MPI_CHECK(MPI_Win_flush(0, w.win));
    for (int64_t e = 0; e < COUNT; ++e) {
        int r = round_of(e, buf[e], round, adds);

        MTEST_CHECK(r > -2, "round %d: element %lld fetched as %#llx", round, (long long) e,
                    (unsigned long long) buf[e]);
        after[e] = r == round;
    }
    for (int i = 0; i < SMALL; ++i) {
        int r = round_of(at + i, got[i], round, adds);

        MTEST_CHECK(r > -2, "round %d: element %lld fetched alone as %#llx", round,
                    (long long) (at + i), (unsigned long long) got[i]);
        after[at + i] += r == round;
    }
    MPI_CHECK(MPI_Get_accumulate(NULL, 0, MPI_UINT64_T, buf, COUNT, MPI_UINT64_T, 0, w.disp0[0],
                                 COUNT, MPI_UINT64_T, MPI_NO_OP, w.win));
    MPI_CHECK(MPI_Win_flush(0, w.win));
    for (int64_t e = 0; e < COUNT; ++e) {
        MTEST_CHECK(round_of(e, buf[e], round, adds) > -2, "round %d: element %lld read as %#llx",
                    round, (long long) e, (unsigned long long) buf[e]);
    }
}

/* The target's block: this round's values plus the adds that came after. */
static void check_block(uint64_t *buf, const int32_t *after, int round)
{
    mtest_local_load(&w, 0, buf, COUNT * sizeof(uint64_t));
    for (int64_t e = 0; e < COUNT; ++e) {
        MTEST_CHECK(buf[e] == value(round, e) + (uint64_t) after[e],
                    "round %d: element %lld holds %#llx, expected %#llx (%d adds after)", round,
                    (long long) e, (unsigned long long) buf[e],
                    (unsigned long long) (value(round, e) + (uint64_t) after[e]), after[e]);
    }
}

int main(int argc, char **argv)
{
    int rounds = argc > 2 ? atoi(argv[2]) : 12, provided;
    uint64_t *buf = malloc(COUNT * sizeof(uint64_t)), *one = malloc(COUNT * sizeof(uint64_t));
    int32_t *after = calloc(COUNT, sizeof(int32_t)), *total = calloc(COUNT, sizeof(int32_t));
    const char *name = "osc_newrma_win_replaces_in_window";
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle;
    unsigned long long landed;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    for (int64_t e = 0; e < COUNT; ++e) {
        one[e] = 1;
    }
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    mtest_win_counted(&w, argc > 1 ? argv[1] : "allocate", COUNT * sizeof(uint64_t), name, &session,
                      &handle);
    for (int round = 0; round < rounds; ++round) {
        memset(after, 0, COUNT * sizeof(int32_t));
        MPI_CHECK(MPI_Win_lock_all(0, w.win));
        if (1 == me) {
            replacer(buf, round);
        } else {
            adder(buf, one, after, round);
        }
        MPI_CHECK(MPI_Win_unlock_all(w.win));
        MPI_CHECK(MPI_Reduce(after, total, COUNT, MPI_INT32_T, MPI_SUM, 0, MPI_COMM_WORLD));
        if (0 == me && mtest_errors < 10) {
            check_block(buf, total, round);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    landed = mtest_pvar_read(session, handle);
    mtest_win_counted_free(&w, &session, &handle);
    MPI_T_finalize();
    MTEST_CHECK(0 != me || argc < 4 || 0 != strcmp(argv[3], "landed") ||
                    landed == (unsigned long long) rounds,
                "%llu of %d REPLACEs landed in the window", landed, rounds);
    free(buf);
    free(one);
    free(after);
    free(total);
    return mtest_finalize();
}
