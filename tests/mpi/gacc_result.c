/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/* MPI_Get_accumulate's old values land in result buffers of every layout:
 * contiguous (received in place), contiguous behind a lower bound (an
 * hindexed block at a byte offset: received in place, at that offset),
 * and strided (received in a staging buffer, then unpacked), for sizes from
 * one element to several packet chunks (and, with MAX, up to MAX ints:
 * above osc_newrma_rndv_threshold a fetching accumulate to a peer over TCP
 * travels by rendezvous in 256 KiB chunks, each chunk's old values coming
 * back while the next one's operands travel).  Each rank adds into its
 * right neighbour's window under a lock and checks the old values it
 * fetched, the bytes of its result buffer outside the layout, and, after a
 * barrier, its own window.
 * Usage: gacc_result FLAVOR [MAX] */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define MAX_N  (48 * 1024) /* 192 KiB of ints: three 64 KiB chunks */
#define SIZES  6
#define GUARD  0x5a5a5a5a
#define OFFSET 16 /* bytes before the hindexed layout's block */

enum { L_CONTIG, L_OFFSET, L_STRIDED, L_COUNT };
static const char *const layout_names[] = {"contiguous", "offset", "strided"};

static int32_t initial(int owner, int i)
{
    return owner * 1000003 + i;
}

static int32_t operand(int origin, int i)
{
    return (origin + 1) * 7 + i % 13;
}

/* The result datatype of @p n ints in @p layout, and how many ints the
 * buffer spans. */
static MPI_Datatype result_type(int layout, int n, int *span)
{
    MPI_Datatype dt = MPI_INT;
    MPI_Aint disp = OFFSET;
    int len = n;

    if (L_OFFSET == layout) {
        MPI_CHECK(MPI_Type_create_hindexed(1, &len, &disp, MPI_INT, &dt));
        *span = OFFSET / 4 + n;
    } else if (L_STRIDED == layout) {
        MPI_CHECK(MPI_Type_vector(n, 1, 2, MPI_INT, &dt));
        *span = 2 * n;
    } else {
        *span = n;
    }
    if (MPI_INT != dt) {
        MPI_CHECK(MPI_Type_commit(&dt));
    }
    return dt;
}

/* The index in the result buffer of element @p i, or -1 if no element of
 * the layout is at index @p at. */
static int result_at(int layout, int n, int at)
{
    if (L_OFFSET == layout) {
        return at >= OFFSET / 4 && at < OFFSET / 4 + n ? at - OFFSET / 4 : -1;
    }
    if (L_STRIDED == layout) {
        return 0 == at % 2 ? at / 2 : -1;
    }
    return at;
}

static void check_result(int layout, int n, int span, const int32_t *result, int target)
{
    for (int at = 0, bad = 0; at < span && bad < 3; ++at) {
        int i = result_at(layout, n, at);
        int32_t want = i < 0 ? GUARD : initial(target, i);

        if (result[at] != want) {
            mtest_error("%s layout, %d ints: result[%d] = %d, expected %d", layout_names[layout], n,
                        at, result[at], want);
            bad++;
        }
    }
}

static void check_window(const int32_t *mem, int n, int left, int layout)
{
    for (int i = 0, bad = 0; i < n && bad < 3; ++i) {
        int32_t want = initial(mtest_rank, i) + operand(left, i);

        if (mem[i] != want) {
            mtest_error("%s layout, %d ints: window[%d] = %d, expected %d", layout_names[layout], n,
                        i, mem[i], want);
            bad++;
        }
    }
}

int main(int argc, char **argv)
{
    int sizes[SIZES] = {1, 7, 1000, 16 * 1024, MAX_N, 0};
    const char *flavor = argc > 1 ? argv[1] : "create";
    int max_n = argc > 2 ? atoi(argv[2]) : MAX_N, nprocs, right, left;
    int32_t *origin, *result, *local;
    mtest_win_t w;

    mtest_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    right = (mtest_rank + 1) % nprocs;
    left = (mtest_rank + nprocs - 1) % nprocs;
    if (max_n < MAX_N) {
        mtest_error("MAX %d is below %d", max_n, MAX_N);
        return mtest_finalize();
    }
    sizes[SIZES - 1] = max_n > MAX_N ? max_n : 0; /* 0: no sixth size */
    origin = malloc((size_t) max_n * sizeof(int32_t));
    result = malloc((2 * (size_t) max_n + OFFSET / 4) * sizeof(int32_t));
    local = malloc((size_t) max_n * sizeof(int32_t));
    mtest_win_create(&w, flavor, (size_t) max_n * sizeof(int32_t), MPI_INFO_NULL, MPI_COMM_WORLD);

    for (int s = 0; s < SIZES && sizes[s] > 0; ++s) {
        for (int layout = 0; layout < L_COUNT; ++layout) {
            int n = sizes[s], span;
            MPI_Datatype dt = result_type(layout, n, &span);

            for (int i = 0; i < n; ++i) {
                local[i] = initial(mtest_rank, i);
                origin[i] = operand(mtest_rank, i);
            }
            for (int at = 0; at < span; ++at) {
                result[at] = GUARD;
            }
            mtest_local_store(&w, 0, local, (size_t) n * sizeof(int32_t));
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w.win));
            MPI_CHECK(MPI_Get_accumulate(origin, n, MPI_INT, result, L_CONTIG == layout ? n : 1, dt,
                                         right, w.disp0[right], n, MPI_INT, MPI_SUM, w.win));
            MPI_CHECK(MPI_Win_unlock(right, w.win));
            check_result(layout, n, span, result, right);
            MPI_Barrier(MPI_COMM_WORLD);
            mtest_local_load(&w, 0, local, (size_t) n * sizeof(int32_t));
            check_window(local, n, left, layout);
            if (MPI_INT != dt) {
                MPI_CHECK(MPI_Type_free(&dt));
            }
        }
    }

    mtest_win_free(&w);
    free(origin);
    free(result);
    free(local);
    return mtest_finalize();
}
