/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Streams of small GETs from one target, most of which MPI_Get requests in
 * the target's aggregated message itself, without an operation element
 * (the packed_at_call counter): in each of ROUNDS rounds every rank
 * rewrites its window with that round's bytes, then reads STREAM ranges of
 * 1 to 100 bytes of its right neighbour's, in even rounds every seventh
 * through a two-block vector type (an operation element, queued: the GETs
 * behind it wait their turn), into consecutive ranges of a buffer, and
 * checks every byte once the epoch (or the flush) has completed them.  The
 * first round's first GET is of 8 bytes: on one node it goes to the
 * target's mailbox, and the GETs behind it may pass it.  In odd rounds of
 * a lock_all epoch, every GET may be packed (packets of the last round are
 * still unacknowledged after MPI_Win_flush_local): no op element makes the
 * flush wait, only the count of answers owed.
 *
 *   get_stream FLAVOR SYNC [packed|any] [flush|local]
 *     SYNC: fence, pscw, lock (one shared lock epoch per round), lockall
 *     (one epoch; each round ends with MPI_Win_flush, or with
 *     MPI_Win_flush_local: "local"); packed: MPI_Get must have packed some.
 */
#include <stdbool.h>

#include "mtest.h"

#define ROUNDS 6
#define STREAM 40
/* bytes a round's GETs cover at the target (vectors span three sizes) */
#define REGION 4096

static const int sizes[] = {8, 1, 2, 3, 16, 24, 64, 100, 5, 8};

/* Offset and size of GET @p i of a round, at the target and in the buffer. */
static bool get_vector(int round, int i)
{
    return 0 == round % 2 && i % 7 == 6;
}

static size_t get_at(int round, int i, int *size)
{
    size_t at = 0;

    for (int k = 0; k < i; ++k) {
        at += (size_t) sizes[k % 10] * (get_vector(round, k) ? 3 : 1);
    }
    *size = sizes[i % 10];
    return at;
}

static unsigned char byte_of(int owner, int round, size_t at)
{
    return mtest_pattern((uint32_t) (owner * 131 + round + 7), at);
}

static void stream(MPI_Win win, int round, int right, MPI_Aint d0, unsigned char *got)
{
    for (int i = 0; i < STREAM; ++i) {
        int size;
        size_t at = get_at(round, i, &size);

        if (get_vector(round, i)) { /* two blocks of size bytes, a gap of size between */
            MPI_Datatype vec;

            MPI_CHECK(MPI_Type_vector(2, size, 2 * size, MPI_BYTE, &vec));
            MPI_CHECK(MPI_Type_commit(&vec));
            MPI_CHECK(MPI_Get(got + at, 1, vec, right, d0 + (MPI_Aint) at, 1, vec, win));
            MPI_CHECK(MPI_Type_free(&vec));
        } else {
            MPI_CHECK(
                MPI_Get(got + at, size, MPI_BYTE, right, d0 + (MPI_Aint) at, size, MPI_BYTE, win));
        }
    }
}

/* Every byte a round's GETs read from @p right; 0xEE left in the gaps. */
static void check_got(const unsigned char *got, int right, int round)
{
    for (int i = 0; i < STREAM; ++i) {
        int size;
        size_t at = get_at(round, i, &size);
        int span = (get_vector(round, i) ? 3 : 1) * size;

        for (int k = 0; k < span; ++k) {
            bool gap = get_vector(round, i) && k >= size && k < 2 * size;
            unsigned char want = gap ? 0xEE : byte_of(right, round, at + (size_t) k);

            if (got[at + (size_t) k] != want) {
                MTEST_CHECK(0, "round %d GET %d byte %d: %u, expected %u", round, i, k,
                            got[at + (size_t) k], want);
                return;
            }
        }
    }
}

int main(int argc, char **argv)
{
    mtest_stream_t s;

    if (argc < 3) {
        fprintf(stderr, "usage: get_stream FLAVOR SYNC [packed|any] [flush|local]\n");
        return 2;
    }
    mtest_stream_init(&s, &argc, &argv, "packed", "osc_newrma_win_packed_at_call", REGION);
    for (int r = 0; r < ROUNDS; ++r) {
        for (size_t x = 0; x < REGION; ++x) {
            s.mine[x] = byte_of(mtest_rank, r, x);
        }
        mtest_stream_open(&s);
        stream(s.w.win, r, s.right, s.w.disp0[s.right], s.got);
        mtest_stream_close(&s, check_got, r);
    }
    return mtest_stream_fini(&s, "no GET was packed by the call itself");
}
