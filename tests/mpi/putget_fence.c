/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * PUT and GET in FENCE epochs on one window flavor (argv[1]: create,
 * allocate, shared, dynamic), every rank to every rank (self, node-local and
 * remote), over datatype kinds (contiguous, strided and indexed on either
 * side, struct) and sizes from 8 bytes to argv[2] bytes (default 4 MiB),
 * cycling through the FENCE asserts.  At the largest size only layouts with
 * a contiguous target run: a target strided in 4-byte blocks is one transfer
 * per block on the RDMA path, already covered at 1 MiB.  The expected bytes are computed with
 * MPI_Pack / MPI_Unpack, so any layout the datatype engine supports is
 * checked byte for byte, including the gaps that must stay untouched.
 */
#include "mtest.h"

#define FILLER 0xEE

enum { K_CONTIG, K_TVECTOR, K_OVECTOR, K_INDEXED, K_STRUCT, K_RESIZED, K_COUNT };
static const char *kind_names[K_COUNT] = {"contig",       "target-vector", "origin-vector",
                                          "indexed-both", "struct",        "resized"};

typedef struct {
    MPI_Datatype odt, tdt;
    int ocount, tcount;
    MPI_Aint ospan, tspan; /* bytes the origin / target layout covers */
} dcase_t;

static MPI_Aint span_of(MPI_Datatype dt, int count)
{
    MPI_Aint lb, extent, tlb, textent;

    MPI_Type_get_extent(dt, &lb, &extent);
    MPI_Type_get_true_extent(dt, &tlb, &textent);
    return tlb + (count - 1) * extent + textent;
}

static MPI_Datatype commit(MPI_Datatype dt)
{
    MPI_Type_commit(&dt);
    return dt;
}

/* Build the datatypes of one case for n ints; false when n does not fit. */
static int build_case(int kind, int n, dcase_t *c)
{
    MPI_Datatype tmp;

    c->odt = c->tdt = MPI_INT;
    c->ocount = c->tcount = n;
    switch (kind) {
        case K_CONTIG:
            break;
        case K_TVECTOR:
            c->tdt = commit(({
                MPI_Type_vector(n, 1, 2, MPI_INT, &tmp);
                tmp;
            }));
            c->tcount = 1;
            break;
        case K_OVECTOR:
            c->odt = commit(({
                MPI_Type_vector(n, 1, 3, MPI_INT, &tmp);
                tmp;
            }));
            c->ocount = 1;
            break;
        case K_INDEXED: {
            if (n % 6)
                return 0;
            int nb = n / 2, *bl = malloc(sizeof(int) * nb), *dp = malloc(sizeof(int) * nb);
            int k = 0, pos = 0, used = 0;
            while (used < n) { /* blocks of 1, 2, 3 ints separated by one-int gaps */
                bl[k] = 1 + k % 3;
                if (used + bl[k] > n)
                    bl[k] = n - used;
                dp[k] = pos;
                pos += bl[k] + 1;
                used += bl[k++];
            }
            MPI_Type_indexed(k, bl, dp, MPI_INT, &tmp);
            c->odt = commit(tmp);
            c->ocount = 1;
            MPI_Type_create_hvector(n / 2, 2, 12, MPI_INT, &tmp);
            c->tdt = commit(tmp);
            c->tcount = 1;
            free(bl);
            free(dp);
            break;
        }
        case K_STRUCT: {
            if (n % 3)
                return 0;
            int bl[2] = {2, 1};
            MPI_Aint dp[2] = {0, 16};
            MPI_Datatype ty[2] = {MPI_INT, MPI_INT}, st;
            MPI_Type_create_struct(2, bl, dp, ty, &st);
            MPI_Type_create_resized(st, 0, 24, &tmp);
            MPI_Type_free(&st);
            c->tdt = commit(tmp);
            c->tcount = n / 3;
            break;
        }
        default: { /* K_RESIZED: 3-int blocks every 16 bytes, lb shifted by 4 */
            if (n % 3)
                return 0;
            MPI_Datatype blk;
            MPI_Type_contiguous(3, MPI_INT, &blk);
            MPI_Type_create_resized(blk, -4, 16, &tmp);
            MPI_Type_free(&blk);
            c->tdt = commit(tmp);
            c->tcount = n / 3;
            break;
        }
    }
    c->ospan = span_of(c->odt, c->ocount);
    c->tspan = span_of(c->tdt, c->tcount);
    return 1;
}

static void free_case(dcase_t *c)
{
    if (MPI_INT != c->odt)
        MPI_Type_free(&c->odt);
    if (MPI_INT != c->tdt)
        MPI_Type_free(&c->tdt);
}

/* Where a layout with true lower bound tlb must start so it begins at byte 0. */
static MPI_Aint layout_shift(MPI_Datatype dt)
{
    MPI_Aint tlb, textent;

    MPI_Type_get_true_extent(dt, &tlb, &textent);
    return -tlb;
}

/* expected = FILLER everywhere, then src (in sdt layout) unpacked into ddt layout */
static void expect_copy(const char *src, MPI_Datatype sdt, int scount, char *expected,
                        MPI_Aint elen, MPI_Datatype ddt, int dcount)
{
    int psize, pos = 0;
    char *packed;

    MPI_Pack_size(scount, sdt, MPI_COMM_SELF, &psize);
    packed = malloc(psize);
    MPI_Pack(src, scount, sdt, packed, psize, &pos, MPI_COMM_SELF);
    memset(expected, FILLER, elen);
    pos = 0;
    MPI_Unpack(packed, psize, &pos, expected + layout_shift(ddt), dcount, ddt, MPI_COMM_SELF);
    free(packed);
}

static int run_case(mtest_win_t *w, int nprocs, MPI_Aint slot, dcase_t *c, int mode, uint32_t tag,
                    const char *label)
{
    int me = mtest_rank, errs_before = mtest_errors;
    MPI_Aint oshift = layout_shift(c->odt), tshift = layout_shift(c->tdt);
    char **obuf = calloc(nprocs, sizeof(char *)), **gbuf = calloc(nprocs, sizeof(char *));
    char *expected = malloc(c->tspan > c->ospan ? c->tspan : c->ospan), *image;
    int do_puts = (3 != mode);
    int open_assert[4] = {0, MPI_MODE_NOPRECEDE, MPI_MODE_NOPRECEDE | MPI_MODE_NOSTORE,
                          MPI_MODE_NOPRECEDE | MPI_MODE_NOPUT};
    int close_assert[4] = {0, MPI_MODE_NOSUCCEED, MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED,
                           MPI_MODE_NOSUCCEED};

    /* my window: put slots filled with FILLER, get area with my pattern */
    memset(w->base, FILLER, (size_t) (nprocs * slot));
    mtest_fill(w->base + nprocs * slot, (size_t) c->tspan, tag * 131 + me);
    for (int t = 0; t < nprocs; ++t) {
        obuf[t] = malloc(c->ospan);
        mtest_fill(obuf[t], (size_t) c->ospan, tag * 977 + me * 31 + t);
        gbuf[t] = malloc(c->ospan);
        memset(gbuf[t], FILLER, c->ospan);
    }
    MPI_CHECK(MPI_Win_fence(open_assert[mode], w->win));
    for (int i = 0; i < nprocs; ++i) {
        int t = (me + i) % nprocs; /* everyone starts with a different target */
        MPI_Aint disp = w->disp0[t];
        if (do_puts) {
            MPI_CHECK(MPI_Put(obuf[t] + oshift, c->ocount, c->odt, t, disp + me * slot + tshift,
                              c->tcount, c->tdt, w->win));
        }
        MPI_CHECK(MPI_Get(gbuf[t] + oshift, c->ocount, c->odt, t, disp + nprocs * slot + tshift,
                          c->tcount, c->tdt, w->win));
    }
    MPI_CHECK(MPI_Win_fence(close_assert[mode], w->win));

    /* what each origin put into my slot for it */
    image = malloc(c->ospan);
    for (int o = 0; o < nprocs && do_puts; ++o) {
        mtest_fill(image, (size_t) c->ospan, tag * 977 + o * 31 + me);
        expect_copy(image + oshift, c->odt, c->ocount, expected, c->tspan, c->tdt, c->tcount);
        char *got = w->base + o * slot;
        for (MPI_Aint b = 0; b < c->tspan; ++b) {
            if (got[b] != expected[b]) {
                mtest_error("%s: put from %d: byte %ld is %02x, expected %02x", label, o, (long) b,
                            (unsigned char) got[b], (unsigned char) expected[b]);
                break;
            }
        }
        if ((unsigned char) got[c->tspan] != FILLER && o * slot + c->tspan < nprocs * slot) {
            mtest_error("%s: put from %d wrote past its layout", label, o);
        }
    }
    free(image);
    /* what I got from each target's get area */
    image = malloc(c->tspan);
    for (int t = 0; t < nprocs; ++t) {
        mtest_fill(image, (size_t) c->tspan, tag * 131 + t);
        expect_copy(image + tshift, c->tdt, c->tcount, expected, c->ospan, c->odt, c->ocount);
        if (0 != memcmp(gbuf[t], expected, c->ospan)) {
            for (MPI_Aint b = 0; b < c->ospan; ++b) {
                if (gbuf[t][b] != expected[b]) {
                    mtest_error("%s: get from %d: byte %ld is %02x, expected %02x", label, t,
                                (long) b, (unsigned char) gbuf[t][b], (unsigned char) expected[b]);
                    break;
                }
            }
        }
        free(obuf[t]);
        free(gbuf[t]);
    }
    free(image);
    free(expected);
    free(obuf);
    free(gbuf);
    return mtest_errors - errs_before;
}

int main(int argc, char **argv)
{
    int nprocs, ncase = 0;
    long max_bytes;
    mtest_win_t w;

    mtest_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2) {
        fprintf(stderr, "usage: %s create|allocate|shared|dynamic [max-bytes]\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    max_bytes = argc > 2 ? atol(argv[2]) : 4L << 20;
    int sizes[4] = {2, 1026, 262146, (int) (max_bytes / 4 / 6 * 6)}; /* ints */
    MPI_Aint slot = 2 * (MPI_Aint) sizes[3] * 4 + 64;
    mtest_win_create(&w, argv[1], (size_t) ((nprocs + 1) * slot), MPI_INFO_NULL, MPI_COMM_WORLD);

    for (int s = 0; s < 4; ++s) {
        if (s > 0 && sizes[s] <= sizes[s - 1])
            continue;
        for (int k = 0; k < K_COUNT; ++k) {
            dcase_t c;
            char label[128];
            if (3 == s && K_CONTIG != k && K_OVECTOR != k)
                continue;
            if (!build_case(k, sizes[s], &c))
                continue;
            int mode = ncase % 4;
            snprintf(label, sizeof(label), "%s %s %d bytes mode %d", argv[1], kind_names[k],
                     sizes[s] * 4, mode);
            if (c.tspan + 8 > slot) {
                free_case(&c);
                continue;
            }
            run_case(&w, nprocs, slot, &c, mode, (uint32_t) ++ncase, label);
            free_case(&c);
        }
    }
    mtest_win_free(&w);
    return mtest_finalize();
}
