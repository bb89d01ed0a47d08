/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/* PUT into and GET from a strided target layout several packet chunks
 * long, where the chunks' cuts fall inside blocks and inside elements:
 * blocks of 4, 8, 12, 24 and 1000 bytes at a stride of twice the block
 * plus 4 bytes, as one hvector element and as many elements of a
 * three-block vector.  Each rank PUTs into its right neighbour's window
 * under a lock; after a barrier it checks that every block of its own
 * window holds its left neighbour's bytes and every gap is untouched; then
 * it GETs the layout back from its right neighbour and checks it.
 * Usage: vector_chunks FLAVOR */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define DATA_BYTES (600 * 1024)      /* about three 256 KiB packet chunks */
#define WIN_BYTES  (2 * 1024 * 1024) /* the widest layout: 4-byte blocks 12 apart */
#define GUARD      0xee

enum { L_ONE, L_MANY, L_COUNT };
static const char *const layout_names[] = {"one hvector", "many vectors"};

static unsigned char pattern(int origin, size_t i)
{
    return (unsigned char) (origin * 37 + i * 7 + (i >> 9));
}

/* The target layout of @p blocks blocks of @p block bytes, @p stride apart:
 * *count elements of the returned type. */
static MPI_Datatype target_type(int layout, int block, MPI_Aint stride, int blocks, int *count)
{
    MPI_Datatype bytes, dt;

    MPI_CHECK(MPI_Type_contiguous(block, MPI_BYTE, &bytes));
    if (L_ONE == layout) {
        MPI_CHECK(MPI_Type_create_hvector(blocks, 1, stride, bytes, &dt));
        *count = 1;
    } else {
        /* three blocks an element, the elements one after the other */
        MPI_CHECK(MPI_Type_vector(3, 1, (int) (stride / block), bytes, &dt));
        *count = blocks / 3;
    }
    MPI_CHECK(MPI_Type_commit(&dt));
    MPI_CHECK(MPI_Type_free(&bytes));
    return dt;
}

/* Where stream byte @p i of the layout is in the window. */
static size_t place(int layout, int block, size_t stride, size_t i)
{
    size_t b = i / (size_t) block, in = i % (size_t) block;

    if (L_ONE == layout) {
        return b * stride + in;
    }
    /* a vector's extent ends after its last block */
    return b / 3 * (2 * stride + (size_t) block) + b % 3 * stride + in;
}

static void check_window(const unsigned char *mem, size_t total, int layout, int block,
                         size_t stride, size_t span, int left)
{
    unsigned char *want = malloc(span);
    int bad = 0;

    memset(want, GUARD, span);
    for (size_t i = 0; i < total; ++i) {
        want[place(layout, block, stride, i)] = pattern(left, i);
    }
    for (size_t at = 0; at < span && bad < 5; ++at) {
        if (mem[at] != want[at]) {
            mtest_error("%s of %d-byte blocks: window byte %zu = %#x, expected %#x",
                        layout_names[layout], block, at, mem[at], want[at]);
            bad++;
        }
    }
    free(want);
}

static void check_get(const unsigned char *got, size_t total, int layout, int block)
{
    int bad = 0;

    for (size_t i = 0; i < total && bad < 5; ++i) {
        if (got[i] != pattern(mtest_rank, i)) {
            mtest_error("%s of %d-byte blocks: GET byte %zu = %#x, expected %#x",
                        layout_names[layout], block, i, got[i], pattern(mtest_rank, i));
            bad++;
        }
    }
}

int main(int argc, char **argv)
{
    static const int block_sizes[] = {4, 8, 12, 24, 1000};
    const char *flavor = argc > 1 ? argv[1] : "create";
    unsigned char *origin, *got, *local;
    int nprocs, right, left;
    mtest_win_t w;

    mtest_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    right = (mtest_rank + 1) % nprocs;
    left = (mtest_rank + nprocs - 1) % nprocs;
    origin = malloc(DATA_BYTES);
    got = malloc(DATA_BYTES);
    local = malloc(WIN_BYTES);
    mtest_win_create(&w, flavor, WIN_BYTES, MPI_INFO_NULL, MPI_COMM_WORLD);

    for (size_t s = 0; s < sizeof(block_sizes) / sizeof(block_sizes[0]); ++s) {
        for (int layout = 0; layout < L_COUNT; ++layout) {
            int block = block_sizes[s], blocks = DATA_BYTES / block / 3 * 3, count;
            size_t stride = 2 * (size_t) block + 4, total = (size_t) blocks * (size_t) block;
            size_t span = place(layout, block, stride, total - 1) + 1;
            MPI_Datatype dt;

            /* a stride that is a multiple of the block, for MPI_Type_vector */
            if (L_MANY == layout) {
                stride = 3 * (size_t) block;
                span = place(layout, block, stride, total - 1) + 1;
            }
            dt = target_type(layout, block, (MPI_Aint) stride, blocks, &count);
            for (size_t i = 0; i < total; ++i) {
                origin[i] = pattern(mtest_rank, i);
            }
            memset(local, GUARD, span);
            mtest_local_store(&w, 0, local, span);
            memset(got, 0, total);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w.win));
            MPI_CHECK(
                MPI_Put(origin, (int) total, MPI_BYTE, right, w.disp0[right], count, dt, w.win));
            MPI_CHECK(MPI_Win_unlock(right, w.win));
            MPI_Barrier(MPI_COMM_WORLD);
            mtest_local_load(&w, 0, local, span);
            check_window(local, total, layout, block, stride, span, left);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w.win));
            MPI_CHECK(MPI_Get(got, (int) total, MPI_BYTE, right, w.disp0[right], count, dt, w.win));
            MPI_CHECK(MPI_Win_unlock(right, w.win));
            check_get(got, total, layout, block);
            MPI_Barrier(MPI_COMM_WORLD); /* before the next round rewrites the windows */
            MPI_CHECK(MPI_Type_free(&dt));
        }
    }

    mtest_win_free(&w);
    free(origin);
    free(got);
    free(local);
    return mtest_finalize();
}
