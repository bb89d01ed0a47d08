/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * UNLOCK must not overtake a GET.  Rank 1's window holds pattern A.  Rank 0
 * reads it whole under an exclusive lock in an epoch of GETs only; the other
 * ranks write pattern B (their own) under an exclusive lock at the same time.
 * Exclusive locks make each access atomic: what rank 0 reads is one pattern
 * whole, never a mix.  With the packet trace (osc_newrma_verbose 40) the
 * order is shown too: tests/sh/get_unlock.sh checks that rank 0 logs the
 * completion of its GETs before it sends UNLOCK.
 *
 * usage: lock_get_unlock FLAVOR [BYTES] [ROUNDS]
 */
#include "mtest.h"

#define SEED_A 11u

static int which_pattern(const unsigned char *buf, size_t len, int nprocs)
{
    for (int p = 0; p <= nprocs; ++p) {
        uint32_t seed = 0 == p ? SEED_A : 100u + (uint32_t) p;
        size_t i = 0;
        while (i < len && buf[i] == mtest_pattern(seed, i)) {
            ++i;
        }
        if (i == len) {
            return p;
        }
    }
    return -1;
}

int main(int argc, char **argv)
{
    int rank, nprocs, rounds, found;
    size_t bytes;
    unsigned char *buf;
    mtest_win_t w;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2 || nprocs < 3) {
        fprintf(stderr, "usage: lock_get_unlock FLAVOR [BYTES] [ROUNDS], 3 ranks or more\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    bytes = argc > 2 ? (size_t) atol(argv[2]) : 1 << 20;
    rounds = argc > 3 ? atoi(argv[3]) : 10;
    buf = malloc(bytes);
    mtest_win_create(&w, argv[1], bytes, MPI_INFO_NULL, MPI_COMM_WORLD);
    for (int r = 0; r < rounds; ++r) {
        if (1 == rank) {
            MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, w.win));
            mtest_fill(w.base, bytes, SEED_A);
            MPI_CHECK(MPI_Win_unlock(1, w.win));
        }
        MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        if (0 == rank) {
            memset(buf, 0, bytes);
            MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, w.win));
            MPI_CHECK(
                MPI_Get(buf, (int) bytes, MPI_BYTE, 1, w.disp0[1], (int) bytes, MPI_BYTE, w.win));
            MPI_CHECK(MPI_Win_unlock(1, w.win));
            found = which_pattern(buf, bytes, nprocs);
            MTEST_CHECK(found >= 0, "round %d: the GET read a mix of patterns", r);
        } else if (rank >= 2) {
            mtest_fill(buf, bytes, 100u + (uint32_t) rank);
            MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, w.win));
            MPI_CHECK(
                MPI_Put(buf, (int) bytes, MPI_BYTE, 1, w.disp0[1], (int) bytes, MPI_BYTE, w.win));
            MPI_CHECK(MPI_Win_unlock(1, w.win));
        }
        MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    }
    mtest_win_free(&w);
    free(buf);
    return mtest_finalize();
}
