/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/* PUT, GET, MPI_REPLACE and MPI_NO_OP reads of types whose elements have
 * gaps, so long that their packed stream goes in pieces (packets, chunks,
 * bounce buffers) whose boundaries cut elements: MPI_SHORT_INT (6 bytes
 * of data in 8) and a struct of a char, a double and a short (11 in 24).
 * Open MPI's convertor packs whole elements only; a GET of 100000
 * MPI_SHORT_INT over UCX used to fail at the first cut.  Each rank moves
 * its data into its right neighbour's window under a lock, reads it back
 * with GET and with MPI_Get_accumulate(MPI_NO_OP), and checks every data
 * byte and that no padding byte of the window changed.
 * Usage: dtype_cut FLAVOR */
#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"
#include "pair_types.h"

#define GUARD 0xee

typedef struct {
    char c;
    double d;
    short s;
} cds_t;

typedef struct {
    const char *name;
    MPI_Datatype dt;
    size_t extent;
    int count;
    /* data bytes of an element: [start, end) pairs, the rest is padding */
    size_t parts[3][2];
} kind_t;

static unsigned char pattern(int origin, size_t i)
{
    return (unsigned char) (origin * 41 + i * 13 + (i >> 11));
}

static bool is_data(const kind_t *k, size_t at)
{
    size_t in = at % k->extent;

    for (int p = 0; p < 3; ++p) {
        if (in >= k->parts[p][0] && in < k->parts[p][1]) {
            return true;
        }
    }
    return false;
}

/* @p mem: @p count elements whose data bytes hold @p origin's pattern and
 * whose padding holds @p pad. */
static void fill(const kind_t *k, unsigned char *mem, int origin, unsigned char pad)
{
    for (size_t at = 0; at < k->extent * (size_t) k->count; ++at) {
        mem[at] = is_data(k, at) ? pattern(origin, at) : pad;
    }
}

/* Every data byte of @p mem is @p origin's and every padding byte @p pad:
 * no access writes padding. */
static void check(const kind_t *k, const unsigned char *mem, int origin, unsigned char pad,
                  const char *what)
{
    int bad = 0;

    for (size_t at = 0; at < k->extent * (size_t) k->count && bad < 5; ++at) {
        bool data = is_data(k, at);
        unsigned char want = data ? pattern(origin, at) : pad;

        if (mem[at] != want) {
            mtest_error("%s, %s of %d: byte %zu (%s) = %#x, expected %#x", what, k->name, k->count,
                        at, data ? "data" : "padding", mem[at], want);
            bad++;
        }
    }
}

static MPI_Datatype cds_type(void)
{
    int lens[3] = {1, 1, 1};
    MPI_Aint disps[3] = {offsetof(cds_t, c), offsetof(cds_t, d), offsetof(cds_t, s)};
    MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_SHORT}, dt, resized;

    MPI_CHECK(MPI_Type_create_struct(3, lens, disps, types, &dt));
    MPI_CHECK(MPI_Type_create_resized(dt, 0, sizeof(cds_t), &resized));
    MPI_CHECK(MPI_Type_commit(&resized));
    MPI_CHECK(MPI_Type_free(&dt));
    return resized;
}

/* One kind: PUT (or REPLACE) into the right neighbour, then a GET and
 * (@p accumulates) a NO_OP read of it. */
static void run(const kind_t *k, mtest_win_t *w, int right, int left, bool replace,
                bool accumulates)
{
    size_t bytes = k->extent * (size_t) k->count;
    unsigned char *origin = malloc(bytes), *got = malloc(bytes), *local = malloc(bytes);
    const char *how = replace ? "MPI_REPLACE" : "MPI_Put";

    fill(k, origin, mtest_rank, 0x11);
    memset(local, GUARD, bytes);
    mtest_local_store(w, 0, local, bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w->win));
    if (replace) {
        MPI_CHECK(MPI_Accumulate(origin, k->count, k->dt, right, w->disp0[right], k->count, k->dt,
                                 MPI_REPLACE, w->win));
    } else {
        MPI_CHECK(
            MPI_Put(origin, k->count, k->dt, right, w->disp0[right], k->count, k->dt, w->win));
    }
    MPI_CHECK(MPI_Win_unlock(right, w->win));
    MPI_Barrier(MPI_COMM_WORLD);
    mtest_local_load(w, 0, local, bytes);
    check(k, local, left, GUARD, how);
    MPI_Barrier(MPI_COMM_WORLD);

    memset(got, 0, bytes);
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w->win));
    MPI_CHECK(MPI_Get(got, k->count, k->dt, right, w->disp0[right], k->count, k->dt, w->win));
    MPI_CHECK(MPI_Win_unlock(right, w->win));
    check(k, got, mtest_rank, 0, "MPI_Get");

    if (accumulates) { /* one predefined type: accumulate-class calls take it */
        memset(got, 0, bytes);
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w->win));
        MPI_CHECK(MPI_Get_accumulate(NULL, 0, k->dt, got, k->count, k->dt, right, w->disp0[right],
                                     k->count, k->dt, MPI_NO_OP, w->win));
        MPI_CHECK(MPI_Win_unlock(right, w->win));
        check(k, got, mtest_rank, 0, "MPI_NO_OP read");
    }
    MPI_Barrier(MPI_COMM_WORLD); /* before the next kind rewrites the windows */
    free(origin);
    free(got);
    free(local);
}

int main(int argc, char **argv)
{
    const char *flavor = argc > 1 ? argv[1] : "allocate";
    static const int counts[] = {1, 11, 10923, 100003};
    MPI_Datatype cds = MPI_DATATYPE_NULL;
    int nprocs, right, left;
    mtest_win_t w;

    mtest_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    right = (mtest_rank + 1) % nprocs;
    left = (mtest_rank + nprocs - 1) % nprocs;
    cds = cds_type();
    mtest_win_create(&w, flavor, sizeof(cds_t) * 100003, MPI_INFO_NULL, MPI_COMM_WORLD);
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); ++c) {
        kind_t si = {"MPI_SHORT_INT",
                     MPI_SHORT_INT,
                     sizeof(short_int_t),
                     counts[c],
                     {{0, sizeof(short)},
                      {offsetof(short_int_t, k), offsetof(short_int_t, k) + sizeof(int)},
                      {0, 0}}};
        kind_t st = {"struct of char, double, short",
                     cds,
                     sizeof(cds_t),
                     counts[c],
                     {{offsetof(cds_t, c), offsetof(cds_t, c) + 1},
                      {offsetof(cds_t, d), offsetof(cds_t, d) + sizeof(double)},
                      {offsetof(cds_t, s), offsetof(cds_t, s) + sizeof(short)}}};

        run(&si, &w, right, left, false, true);
        run(&si, &w, right, left, true, true);
        run(&st, &w, right, left, false, false);
    }
    mtest_win_free(&w);
    MPI_CHECK(MPI_Type_free(&cds));
    return mtest_finalize();
}
