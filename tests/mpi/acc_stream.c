/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Streams of small accumulates to one target, as ARMCI-MPI sends them
 * (every put an MPI_Accumulate(MPI_REPLACE)), most of which
 * MPI_Accumulate copies into the target's open aggregated message itself
 * (the packed_at_call counter).  Every rank sends its right neighbour, in
 * each of ROUNDS epochs, STREAM accumulates that rewrite each of SLOTS
 * locations several times: MPI_REPLACE of char, short, int, double and
 * long double elements (1 to 3 of them), every seventh with a target type
 * that is not the origin's (an operation element, queued: the later ones
 * to the same location must not overtake it, as MPI's default
 * accumulate_ordering asks), MPI_SUM on a counter, and MPI_MAXLOC on a
 * double-int pair (not contiguous: the full way).  In lock and lock_all
 * epochs a GET after MPI_Win_flush_local must see the last value of a
 * location.  The target checks every location after every round.
 *
 *   acc_stream FLAVOR SYNC [packed|any]
 *     packed: a quarter of the accumulates at least must have been
 *     packed by the call (windows reached over UCX, osc_newrma_shm 0,
 *     any flavor; not in PSCW epochs).  On one node a stream's first
 *     accumulate takes the mailbox and the next ones are packed behind
 *     it, but the ones after its first queued accumulate (i = 3) queue
 *     behind that, so few are packed there.
 */
#include "mtest.h"

#define ROUNDS 5
#define STREAM 60
#define SLOTS  7
#define TYPES  5
/* bytes of one slot: room for 3 long doubles */
#define SLOT_BYTES 48
#define COUNTER_AT (TYPES * SLOTS * SLOT_BYTES)
#define MAXLOC_AT  (COUNTER_AT + 8)
#define WIN_BYTES  (MAXLOC_AT + 16)

typedef struct {
    double value;
    int index;
} double_int_t;

static MPI_Datatype type_of(int t)
{
    static MPI_Datatype types[TYPES];

    types[0] = MPI_CHAR;
    types[1] = MPI_SHORT;
    types[2] = MPI_INT;
    types[3] = MPI_DOUBLE;
    types[4] = MPI_LONG_DOUBLE;
    return types[t];
}

/* Accumulate @p i of a round: its type, slot, element count. */
static void acc_at(int i, int *t, int *slot, int *count)
{
    *t = i % TYPES;
    *slot = (i / TYPES) % SLOTS;
    *count = 1 + i % 3;
}

/* The @p len bytes accumulate @p i of @p round of @p origin writes:
 * floating-point elements as values (a NaN's bits may not survive a copy
 * through the FPU), a long double's padding zero. */
static void acc_bytes(int origin, int round, int i, unsigned char *buf, size_t len)
{
    int t = i % TYPES;
    double value = origin * 100000.0 + round * 1000.0 + i * 10.0;

    if (3 == t) {
        for (size_t k = 0; k < len / 8; ++k) {
            double d = value + (double) k;

            memcpy(buf + 8 * k, &d, 8);
        }
    } else if (4 == t) {
        memset(buf, 0, len);
        for (size_t k = 0; k < len / sizeof(long double); ++k) {
            long double v = (long double) value + (long double) k;

            memcpy(buf + sizeof(long double) * k, &v, 10);
        }
    } else {
        for (size_t k = 0; k < len; ++k) {
            buf[k] = mtest_pattern((uint32_t) (origin * 977 + round * 61 + i), k);
        }
    }
}

static size_t slot_offset(int t, int slot)
{
    return (size_t) (t * SLOTS + slot) * SLOT_BYTES;
}

/* The expected window of the target of @p origin after @p round. */
static void expect_round(int origin, int round, unsigned char *want)
{
    memset(want, 0, WIN_BYTES);
    for (int r = 0; r <= round; ++r) {
        for (int i = 0; i < STREAM; ++i) {
            int t, slot, count, size;

            acc_at(i, &t, &slot, &count);
            MPI_Type_size(type_of(t), &size);
            acc_bytes(origin, r, i, want + slot_offset(t, slot), (size_t) (size * count));
        }
    }
}

static void stream(MPI_Win win, int sync, int right, MPI_Aint d0, int round, int nprocs)
{
    static const long one = 1; /* read until the epoch ends */
    static double_int_t pair;  /* likewise */
    /* likewise: under fence and PSCW nothing completes before the caller
     * closes the epoch, in a frame that reused this one's stack */
    static unsigned char buf[STREAM][SLOT_BYTES];
    unsigned char got[SLOT_BYTES];
    int t = 0, slot = 0, count = 0, size = 0;

    for (int i = 0; i < STREAM; ++i) {
        MPI_Aint disp;

        acc_at(i, &t, &slot, &count);
        MPI_Type_size(type_of(t), &size);
        acc_bytes(mtest_rank, round, i, buf[i], (size_t) (size * count));
        disp = d0 + (MPI_Aint) slot_offset(t, slot);
        if (3 == i % 7) {
            MPI_Datatype same;

            MPI_CHECK(MPI_Type_contiguous(count, type_of(t), &same));
            MPI_CHECK(MPI_Type_commit(&same));
            MPI_CHECK(
                MPI_Accumulate(buf[i], count, type_of(t), right, disp, 1, same, MPI_REPLACE, win));
            MPI_CHECK(MPI_Type_free(&same));
        } else {
            MPI_CHECK(MPI_Accumulate(buf[i], count, type_of(t), right, disp, count, type_of(t),
                                     MPI_REPLACE, win));
        }
        if (0 == i % 8) {
            MPI_CHECK(MPI_Accumulate(&one, 1, MPI_LONG, right, d0 + COUNTER_AT, 1, MPI_LONG,
                                     MPI_SUM, win));
        }
        if (STREAM / 2 == i) {
            pair.value = (double) (round * nprocs + mtest_rank);
            pair.index = mtest_rank;
            MPI_CHECK(MPI_Accumulate(&pair, 1, MPI_DOUBLE_INT, right, d0 + MAXLOC_AT, 1,
                                     MPI_DOUBLE_INT, MPI_MAXLOC, win));
        }
    }
    if (MTEST_SYNC_LOCK == sync || MTEST_SYNC_LOCKALL == sync) {
        /* the last accumulate of the stream, read back behind it */
        MPI_CHECK(MPI_Win_flush_local(right, win));
        MPI_CHECK(MPI_Get(got, size * count, MPI_BYTE, right, d0 + (MPI_Aint) slot_offset(t, slot),
                          size * count, MPI_BYTE, win));
        MPI_CHECK(MPI_Win_flush_local(right, win));
        MTEST_CHECK(0 == memcmp(got, buf[STREAM - 1], (size_t) (size * count)),
                    "round %d: the GET behind the accumulates did not see the last one", round);
    }
}

static void check_round(mtest_win_t *w, int sync, int left, int round, int nprocs)
{
    unsigned char *mine = malloc(WIN_BYTES), *want = malloc(WIN_BYTES);
    long counter;
    double_int_t pair;

    if (MTEST_SYNC_LOCKALL == sync) {
        /* inside my lock_all epoch: no lock of my own window, a sync */
        MPI_CHECK(MPI_Win_sync(w->win));
        memcpy(mine, w->base, WIN_BYTES);
    } else {
        mtest_local_load(w, 0, mine, WIN_BYTES);
    }
    expect_round(left, round, want);
    for (int i = 0; i < COUNTER_AT; ++i) {
        if (mine[i] != want[i]) {
            MTEST_CHECK(0, "round %d: byte %d of the slots is %u, expected %u", round, i, mine[i],
                        want[i]);
            break;
        }
    }
    memcpy(&counter, mine + COUNTER_AT, sizeof(counter));
    MTEST_CHECK((round + 1) * ((STREAM + 7) / 8) == counter, "round %d: counter %ld, expected %d",
                round, counter, (round + 1) * ((STREAM + 7) / 8));
    memcpy(&pair, mine + MAXLOC_AT, sizeof(pair));
    MTEST_CHECK(pair.value == (double) (round * nprocs + left) && pair.index == left,
                "round %d: MAXLOC pair (%g, %d), expected (%d, %d)", round, pair.value, pair.index,
                round * nprocs + left, left);
    free(mine);
    free(want);
}

int main(int argc, char **argv)
{
    const char *name = "osc_newrma_win_packed_at_call";
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle;
    int nprocs, right, left, sync, provided, want_packed;
    mtest_win_t w;

    if (argc < 3) {
        fprintf(stderr, "usage: acc_stream FLAVOR SYNC [packed|any]\n");
        return 2;
    }
    mtest_init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    sync = mtest_sync(argv[2]);
    want_packed = argc > 3 && 0 == strcmp(argv[3], "packed");
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    right = (mtest_rank + 1) % nprocs;
    left = (mtest_rank + nprocs - 1) % nprocs;
    mtest_win_counted(&w, argv[1], WIN_BYTES, name, &session, &handle);
    /* lock_all: one epoch, a flush per round (once granted, the round's
     * accumulates need not wait for the lock) */
    mtest_rounds_begin(w.win, sync);
    for (int r = 0; r < ROUNDS; ++r) {
        mtest_round_open(w.win, sync, MPI_LOCK_SHARED, right);
        stream(w.win, sync, right, w.disp0[right], r, nprocs);
        mtest_round_close(w.win, sync, right);
        MPI_Barrier(MPI_COMM_WORLD); /* every stream of the round has landed */
        check_round(&w, sync, left, r, nprocs);
        MPI_Barrier(MPI_COMM_WORLD); /* nobody writes the next round before it is checked */
    }
    mtest_rounds_end(w.win, sync);
    if (want_packed) {
        /* the round's GET may be packed too: one per round */
        unsigned long long packed = mtest_pvar_read(session, handle);

        MTEST_CHECK(packed > ROUNDS * STREAM / 4, "%llu accesses packed by the call itself",
                    packed);
    }
    mtest_win_counted_free(&w, &session, &handle);
    MPI_T_finalize();
    return mtest_finalize();
}
