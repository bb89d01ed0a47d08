/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Dynamic windows stay right in passive epochs, where no FENCE refreshes
 * what an origin knows of a target's attached memory:
 * - after the target detaches a region and attaches the same memory again,
 *   larger, accesses to the old and the new part land;
 * - after the target detaches memory, an access to it in a later lock
 *   epoch (exclusive, shared, lock_all with MPI_MODE_NOCHECK) fails with
 *   MPI_ERR_RMA_RANGE and the memory is not written;
 * - an origin that touches more regions of a target than it keeps cached
 *   (argv[1] sets osc_newrma_dynamic_regions) still moves every byte right.
 */
#include <stdint.h>

#include "mtest.h"

#define BIG    8192
#define NSMALL 12
#define SMALL  256
#define ROUNDS 3

static int nprocs, me, right, left;

/* Everyone's address of @p buf (absolute displacements of a dynamic window). */
static void addresses(void *buf, MPI_Aint *all)
{
    MPI_Aint mine;

    MPI_Get_address(buf, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
}

/* Origin buffers live until the epoch ends: a ring that outlasts any epoch here. */
static long origin_vals[256];
static unsigned origin_next;

static void put_long(MPI_Win win, long val, int target, MPI_Aint disp)
{
    long *slot = &origin_vals[origin_next++ % 256];

    *slot = val;
    MPI_CHECK(MPI_Put(slot, 1, MPI_LONG, target, disp, 1, MPI_LONG, win));
}

static long get_long(const char *buf, size_t off)
{
    long v;

    memcpy(&v, buf + off, sizeof v);
    return v;
}

/* Re-attach the same memory, larger: old and new parts are reachable. */
static void reattach_larger(MPI_Win win, char *big, const MPI_Aint *addr)
{
    MPI_CHECK(MPI_Win_attach(win, big, 1024));
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    put_long(win, 1, right, addr[right]); /* the origin caches [0, 1024) */
    MPI_CHECK(MPI_Win_unlock(right, win));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHECK(MPI_Win_detach(win, big));
    MPI_CHECK(MPI_Win_attach(win, big, 4096));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
    put_long(win, 100 + me, right, addr[right] + 8);
    put_long(win, 200 + me, right, addr[right] + 2048);
    MPI_CHECK(MPI_Win_unlock(right, win));
    MPI_Barrier(MPI_COMM_WORLD);
    MTEST_CHECK(get_long(big, 8) == 100 + left && get_long(big, 2048) == 200 + left,
                "re-attached region: %ld %ld, expected %d %d", get_long(big, 8),
                get_long(big, 2048), 100 + left, 200 + left);
    MPI_CHECK(MPI_Win_detach(win, big));
}

static void epoch_begin(MPI_Win win, int kind)
{
    if (2 == kind) {
        MPI_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    } else {
        MPI_CHECK(MPI_Win_lock(0 == kind ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, right, 0, win));
    }
}

static void epoch_end(MPI_Win win, int kind)
{
    if (2 == kind) {
        MPI_CHECK(MPI_Win_unlock_all(win));
    } else {
        MPI_CHECK(MPI_Win_unlock(right, win));
    }
}

/* Detached memory is out of reach, whatever the origin saw before. */
static void detached_unreachable(MPI_Win win, char *big, const MPI_Aint *addr, int kind)
{
    long val = 7, got = -1;
    int rc;

    memset(big, 0, BIG);
    MPI_CHECK(MPI_Win_attach(win, big, BIG));
    MPI_Barrier(MPI_COMM_WORLD);
    epoch_begin(win, kind);
    put_long(win, 5, right, addr[right] + 64); /* cached from here on */
    epoch_end(win, kind);
    MPI_Barrier(MPI_COMM_WORLD);
    MTEST_CHECK(5 == get_long(big, 64), "epoch %d: attached memory holds %ld", kind,
                get_long(big, 64));
    MPI_CHECK(MPI_Win_detach(win, big));
    MPI_Barrier(MPI_COMM_WORLD);
    epoch_begin(win, kind);
    rc = MPI_Put(&val, 1, MPI_LONG, right, addr[right] + 128, 1, MPI_LONG, win);
    mtest_expect_class(rc, MPI_ERR_RMA_RANGE, MPI_ERR_RMA_RANGE, "put to detached memory");
    rc = MPI_Get(&got, 1, MPI_LONG, right, addr[right] + 64, 1, MPI_LONG, win);
    mtest_expect_class(rc, MPI_ERR_RMA_RANGE, MPI_ERR_RMA_RANGE, "get from detached memory");
    epoch_end(win, kind);
    MPI_Barrier(MPI_COMM_WORLD);
    MTEST_CHECK(0 == get_long(big, 128), "epoch %d: detached memory was written: %ld", kind,
                get_long(big, 128));
}

/* More regions than the cache keeps, visited round robin. */
static void many_regions(MPI_Win win)
{
    char *small[NSMALL];
    MPI_Aint addr[NSMALL][64];

    for (int i = 0; i < NSMALL; ++i) {
        small[i] = calloc(SMALL, 1);
        MPI_CHECK(MPI_Win_attach(win, small[i], SMALL));
        addresses(small[i], addr[i]);
    }
    MPI_CHECK(MPI_Win_lock_all(0, win));
    for (int r = 0; r < ROUNDS; ++r) {
        for (int i = 0; i < NSMALL; ++i) {
            put_long(win, 1000 * r + 10 * i + me, right, addr[i][right] + 8 * r);
        }
        MPI_CHECK(MPI_Win_flush(right, win));
    }
    MPI_CHECK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < NSMALL; ++i) {
        for (int r = 0; r < ROUNDS; ++r) {
            long want = 1000 * r + 10 * i + left, got = get_long(small[i], 8 * (size_t) r);
            MTEST_CHECK(got == want, "region %d round %d: %ld, expected %ld", i, r, got, want);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < NSMALL; ++i) {
        MPI_CHECK(MPI_Win_detach(win, small[i]));
        free(small[i]);
    }
}

int main(int argc, char **argv)
{
    MPI_Aint addr[64];
    char *big;
    MPI_Win win;

    if (argc > 1) {
        setenv("OMPI_MCA_osc_newrma_dynamic_regions", argv[1], 1);
    }
    mtest_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (nprocs > 64) {
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    me = mtest_rank;
    right = (me + 1) % nprocs;
    left = (me + nprocs - 1) % nprocs;
    big = calloc(BIG, 1);
    addresses(big, addr);
    MPI_CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);

    reattach_larger(win, big, addr);
    for (int kind = 0; kind < 3; ++kind) {
        detached_unreachable(win, big, addr, kind);
    }
    many_regions(win);

    MPI_CHECK(MPI_Win_free(&win));
    free(big);
    return mtest_finalize();
}
