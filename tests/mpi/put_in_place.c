/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Large packets handled where UCX received them.  Over TCP the target
 * applies a message of 4 KiB or more inside UCX's receive callback when
 * nothing waits ahead of it (the packets_in_place counter), reading PUT
 * data, a described PUT's layout and a GET's answer at whatever byte UCX's
 * segment put them.  Every rank, in each of ROUNDS rounds, to its right
 * neighbour: a contiguous PUT of BIG bytes (pipelined packets), a PUT of
 * a vector type with odd blocks (described packets), an MPI_SUM of INTS
 * ints on a counter range (its operands read as elements: in place only
 * when aligned), then, after the round's epoch, a GET of the PUT's first
 * GET_BYTES bytes into a strided buffer (answer packets).  Each round's
 * bytes differ, so a packet applied from a stale or reused buffer shows.
 *
 *   put_in_place FLAVOR SYNC [inplace]
 *     SYNC: fence, lock, lockall, pscw; inplace: some rank must have
 *     handled packets in place (the tcp variants, where UCX takes its
 *     buffer back; on other paths nothing goes that way).
 */
#include "mtest.h"

#define ROUNDS     4
#define MAX_ROUNDS 64 /* with "inplace", until some packet was handled in place */
#define BIG        (1 << 20)
#define VEC_BLOCKS 300
#define VEC_BLOCK  1001 /* odd: the blocks start at any byte */
#define VEC_STRIDE 1500
#define VEC_SPAN   ((size_t) (VEC_BLOCKS - 1) * VEC_STRIDE + VEC_BLOCK)
#define INTS       20000
#define GET_BYTES  (200 * 1024) /* under rndv_threshold: answer packets */
#define GET_STRIDE 3

/* window layout: the contiguous range, the vector's span, the counters */
#define AT_VEC    ((size_t) BIG)
#define AT_INTS   (AT_VEC + VEC_SPAN + 64)
#define WIN_BYTES (AT_INTS + INTS * sizeof(int))

static unsigned char round_byte(int origin, int round, size_t i)
{
    return mtest_pattern((uint32_t) (origin * 131 + round * 7 + 1), i);
}

static void check_round(const mtest_win_t *w, int left, int r)
{
    const unsigned char *mem = (const unsigned char *) w->base;
    const int *ints = (const int *) (w->base + AT_INTS);
    size_t bad = 0, first = 0;

    for (size_t i = 0; i < BIG; ++i) {
        if (mem[i] != round_byte(left, r, i) && 0 == bad++) {
            first = i;
        }
    }
    MTEST_CHECK(0 == bad, "round %d: %zu contiguous bytes wrong, first at %zu", r, bad, first);
    bad = 0;
    for (size_t b = 0; b < VEC_BLOCKS; ++b) {
        for (size_t k = 0; k < VEC_BLOCK; ++k) {
            size_t at = b * VEC_STRIDE + k;
            bad += mem[AT_VEC + at] != round_byte(left, r + ROUNDS, b * VEC_BLOCK + k);
        }
    }
    MTEST_CHECK(0 == bad, "round %d: %zu vector bytes wrong", r, bad);
    bad = 0;
    for (int i = 0; i < INTS; ++i) {
        bad += ints[i] != (r + 1) * (i + left);
    }
    MTEST_CHECK(0 == bad, "round %d: %zu counters wrong", r, bad);
}

static void one_round(mtest_win_t *w, int sync, int right, int me, int r, unsigned char *src,
                      MPI_Datatype vec, int *ops, unsigned char *got, MPI_Datatype strided)
{
    MPI_Aint d0 = w->disp0[right];

    for (size_t i = 0; i < BIG; ++i) {
        src[i] = round_byte(me, r, i);
    }
    for (size_t i = 0; i < (size_t) VEC_BLOCKS * VEC_BLOCK; ++i) {
        src[BIG + i] = round_byte(me, r + ROUNDS, i);
    }
    for (int i = 0; i < INTS; ++i) {
        ops[i] = i + me;
    }
    mtest_round_open(w->win, sync, MPI_LOCK_EXCLUSIVE, right);
    MPI_CHECK(MPI_Put(src, BIG, MPI_BYTE, right, d0, BIG, MPI_BYTE, w->win));
    MPI_CHECK(MPI_Put(src + BIG, VEC_BLOCKS * VEC_BLOCK, MPI_BYTE, right, d0 + (MPI_Aint) AT_VEC, 1,
                      vec, w->win));
    MPI_CHECK(MPI_Accumulate(ops, INTS, MPI_INT, right, d0 + (MPI_Aint) AT_INTS, INTS, MPI_INT,
                             MPI_SUM, w->win));
    mtest_round_close(w->win, sync, right);

    /* everyone's round landed: read the right neighbour's PUT back */
    mtest_round_open(w->win, sync, MPI_LOCK_SHARED, right);
    memset(got, 0, (size_t) GET_BYTES * GET_STRIDE);
    MPI_CHECK(MPI_Get(got, 1, strided, right, d0, GET_BYTES, MPI_BYTE, w->win));
    mtest_round_close(w->win, sync, right);
    size_t bad = 0;
    for (size_t i = 0; i < GET_BYTES; ++i) {
        bad += got[i * GET_STRIDE] != round_byte(me, r, i);
    }
    MTEST_CHECK(0 == bad, "round %d: %zu bytes read back wrong", r, bad);
}

int main(int argc, char **argv)
{
    const char *name = "osc_newrma_win_packets_in_place";
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle;
    MPI_Datatype vec, strided;
    int me, nprocs, sync, provided, n1 = 0, n2 = 0;
    int want_in_place = argc > 3 && 0 == strcmp(argv[3], "inplace");
    unsigned char *src, *got;
    int *ops;
    mtest_win_t w;

    if (argc < 3) {
        fprintf(stderr, "usage: put_in_place FLAVOR SYNC [inplace]\n");
        return 2;
    }
    mtest_start(&argc, &argv, &me, &nprocs, &sync, &n1, &n2);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    int right = (me + 1) % nprocs, left = (me + nprocs - 1) % nprocs;

    MPI_Type_vector(VEC_BLOCKS, VEC_BLOCK, VEC_STRIDE, MPI_BYTE, &vec);
    MPI_Type_commit(&vec);
    MPI_Type_vector(GET_BYTES, 1, GET_STRIDE, MPI_BYTE, &strided);
    MPI_Type_commit(&strided);
    src = malloc((size_t) BIG + (size_t) VEC_BLOCKS * VEC_BLOCK);
    got = malloc((size_t) GET_BYTES * GET_STRIDE);
    ops = malloc(INTS * sizeof(int));
    mtest_win_counted(&w, argv[1], WIN_BYTES, name, &session, &handle);

    /* some rank's packets in place: which find the inbox empty is a matter
     * of timing, and under load none of ROUNDS rounds' may (1 of 2916 CI
     * runs), so with "inplace" more rounds follow until one did */
    unsigned long long mine, in_place = 0;

    mtest_rounds_begin(w.win, sync);
    for (int r = 0; r < ROUNDS || (want_in_place && 0 == in_place && r < MAX_ROUNDS); ++r) {
        one_round(&w, sync, right, me, r, src, vec, ops, got, strided);
        MPI_Barrier(MPI_COMM_WORLD);
        if (MTEST_SYNC_LOCKALL == sync) {
            MPI_CHECK(MPI_Win_sync(w.win));
        }
        check_round(&w, left, r);
        mine = mtest_pvar_read(session, handle);
        MPI_Allreduce(&mine, &in_place, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    }
    mtest_rounds_end(w.win, sync);
    MTEST_CHECK(!want_in_place || in_place > 0, "no packet was handled in place");
    if (0 == me) {
        printf("%llu packets handled in place\n", in_place);
    }
    mtest_win_counted_free(&w, &session, &handle);
    MPI_Type_free(&vec);
    MPI_Type_free(&strided);
    free(src);
    free(got);
    free(ops);
    MPI_T_finalize();
    return mtest_finalize();
}
