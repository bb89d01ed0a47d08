/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * MPI_SUM of unsigned 8- and 16-bit elements wraps around, as C's
 * unsigned arithmetic does, on every path and in every layout: Open MPI
 * 4.1's own reduction (op/avx) saturates such sums in its vector loop and
 * wraps them in its scalar one, so a component that hands it some blocks
 * and not others answers differently by layout and path.  Every rank adds
 * 200 (uint8) and 60000 (uint16) to each element of its right neighbour's
 * blocks, ITERS times, by MPI_Accumulate into a contiguous block and into
 * every other element of another (a vector layout), and by
 * MPI_Get_accumulate into a third; every element must end at the total
 * modulo 2^8 or 2^16.  With a COUNT of 8192 (blocks of 16 KiB) on a window
 * of user memory the reductions take the node-local ways of 8 KiB and
 * more: operands read by the target's agent, fetching ones read, reduced
 * and written back by the origin (*Reductions read where they lie*).
 *
 * usage: acc_wrap FLAVOR SYNC [ITERS] [COUNT]   (SYNC: fence | lock | lockall | pscw)
 */
#include "mtest.h"

static int me, nprocs, sync_mode, iters = 40, count = 200;
static mtest_win_t w;

/* one block per (type, layout): contiguous, vector (2 * count elements),
 * fetched; each of 2 * count elements of 2 bytes */
#define BLOCK ((size_t) count * 4)

static void adds(int t, MPI_Datatype type, MPI_Datatype every_other, const void *one, void *old,
                 size_t at)
{
    MPI_Aint base = w.disp0[t] + (MPI_Aint) at;

    MPI_CHECK(MPI_Accumulate(one, count, type, t, base, count, type, MPI_SUM, w.win));
    MPI_CHECK(MPI_Accumulate(one, count, type, t, base + (MPI_Aint) BLOCK, 1, every_other, MPI_SUM,
                             w.win));
    MPI_CHECK(MPI_Get_accumulate(one, count, type, old, count, type, t, base + 2 * (MPI_Aint) BLOCK,
                                 count, type, MPI_SUM, w.win));
}

static void check(const unsigned char *mem, size_t at, size_t elem, unsigned long want,
                  const char *what)
{
    for (int layout = 0; layout < 3; ++layout) {
        const unsigned char *b = mem + at + (size_t) layout * BLOCK;
        for (int i = 0; i < count * (1 == layout ? 2 : 1); ++i) {
            unsigned long v = 1 == elem ? b[i] : ((const uint16_t *) (const void *) b)[i];
            unsigned long expect = 1 == layout && i % 2 ? 0 : want;
            if (v != expect) {
                MTEST_CHECK(0, "%s, layout %d, element %d: %lu, expected %lu", what, layout, i, v,
                            expect);
                return;
            }
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Datatype v8, v16;
    uint8_t *one8, *old8;
    uint16_t *one16, *old16;
    unsigned long total8, total16;
    int right;

    mtest_start(&argc, &argv, &me, &nprocs, &sync_mode, &iters, &count);
    right = (me + 1) % nprocs;
    MPI_CHECK(MPI_Type_vector(count, 1, 2, MPI_UINT8_T, &v8));
    MPI_CHECK(MPI_Type_commit(&v8));
    MPI_CHECK(MPI_Type_vector(count, 1, 2, MPI_UINT16_T, &v16));
    MPI_CHECK(MPI_Type_commit(&v16));
    mtest_win_create(&w, argc > 1 ? argv[1] : "allocate", 6 * BLOCK, MPI_INFO_NULL, MPI_COMM_WORLD);
    mtest_win_zero(&w, 6 * BLOCK);
    one8 = malloc((size_t) count);
    old8 = malloc((size_t) count);
    one16 = malloc(sizeof(uint16_t) * (size_t) count);
    old16 = malloc(sizeof(uint16_t) * (size_t) count);
    for (int i = 0; i < count; ++i) {
        one8[i] = 200;
        one16[i] = 60000;
    }
    mtest_rounds_begin(w.win, sync_mode);
    for (int it = 0; it < iters; ++it) {
        mtest_round_open(w.win, sync_mode, MPI_LOCK_SHARED, right);
        adds(right, MPI_UINT8_T, v8, one8, old8, 0);
        adds(right, MPI_UINT16_T, v16, one16, old16, 3 * BLOCK);
        mtest_round_close(w.win, sync_mode, right);
    }
    mtest_rounds_end(w.win, sync_mode);
    MPI_Barrier(MPI_COMM_WORLD);
    unsigned char *mem = malloc(6 * BLOCK);
    mtest_local_load(&w, 0, mem, 6 * BLOCK);
    total8 = (200ul * (unsigned long) iters) % 256;
    total16 = (60000ul * (unsigned long) iters) % 65536;
    check(mem, 0, 1, total8, "uint8");
    check(mem, 3 * BLOCK, 2, total16, "uint16");
    MPI_Barrier(MPI_COMM_WORLD);
    mtest_win_free(&w);
    MPI_Type_free(&v8);
    MPI_Type_free(&v16);
    free(mem);
    free(one8);
    free(old8);
    free(one16);
    free(old16);
    return mtest_finalize();
}
