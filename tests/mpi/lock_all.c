/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * MPI_Win_lock_all epochs: request-based MPI_Rput / MPI_Rget of multi-MiB
 * blocks with the origin buffer reused right after MPI_Wait (local
 * completion), every flush variant, and MPI_MODE_NOCHECK.
 *
 * usage: lock_all FLAVOR [BYTES]
 */
#include "mtest.h"

static void check(const unsigned char *got, uint32_t seed, size_t len, const char *what, int t)
{
    size_t i = mtest_pattern_mismatch(got, len, seed);

    if (i < len) {
        mtest_error("%s, target %d: byte %zu is %u, expected %u", what, t, i, got[i],
                    mtest_pattern(seed, i));
    }
}

int main(int argc, char **argv)
{
    size_t bytes = argc > 2 ? (size_t) atol(argv[2]) : (size_t) 2 << 20;
    unsigned char *src, *got;
    MPI_Request req;
    mtest_win_t w;
    int me, nprocs;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    mtest_win_create(&w, argc > 1 ? argv[1] : "allocate", bytes * (size_t) nprocs, MPI_INFO_NULL,
                     MPI_COMM_WORLD);
    src = malloc(bytes);
    got = malloc(bytes);

    for (int mode = 0; mode < 2; ++mode) {
        int assert = mode ? MPI_MODE_NOCHECK : 0;

        MPI_CHECK(MPI_Win_lock_all(assert, w.win));
        for (int k = 0; k < nprocs; ++k) {
            int t = (me + k) % nprocs;
            MPI_Aint disp = w.disp0[t] + (MPI_Aint) (me * bytes);
            uint32_t seed = 100u * (uint32_t) mode + (uint32_t) (me * 16 + t);

            /* Rput, then reuse the buffer at once after local completion */
            mtest_fill(src, bytes, seed);
            MPI_CHECK(
                MPI_Rput(src, (int) bytes, MPI_BYTE, t, disp, (int) bytes, MPI_BYTE, w.win, &req));
            MPI_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            memset(src, 0xee, bytes);
            MPI_CHECK(MPI_Win_flush(t, w.win));

            memset(got, 0, bytes);
            MPI_CHECK(
                MPI_Rget(got, (int) bytes, MPI_BYTE, t, disp, (int) bytes, MPI_BYTE, w.win, &req));
            MPI_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            check(got, seed, bytes, "rput/rget", t);

            /* flush_local: the origin buffer is free, the data lands by flush */
            mtest_fill(src, 4096, seed + 7);
            MPI_CHECK(MPI_Put(src, 4096, MPI_BYTE, t, disp, 4096, MPI_BYTE, w.win));
            MPI_CHECK(MPI_Win_flush_local(t, w.win));
            memset(src, 0, 4096);
            MPI_CHECK(MPI_Win_flush(t, w.win));
            MPI_CHECK(MPI_Get(got, 4096, MPI_BYTE, t, disp, 4096, MPI_BYTE, w.win));
            MPI_CHECK(MPI_Win_flush_local_all(w.win));
            check(got, seed + 7, 4096, "put/flush_local/get", t);
        }
        /* flush_all covers puts to everybody */
        for (int t = 0; t < nprocs; ++t) {
            mtest_fill(src + 64 * t, 64, 900u + (uint32_t) (me * 16 + t));
            MPI_CHECK(MPI_Put(src + 64 * t, 64, MPI_BYTE, t, w.disp0[t] + (MPI_Aint) (me * bytes),
                              64, MPI_BYTE, w.win));
        }
        MPI_CHECK(MPI_Win_flush_all(w.win));
        for (int t = 0; t < nprocs; ++t) {
            MPI_CHECK(MPI_Get(got + 64 * t, 64, MPI_BYTE, t, w.disp0[t] + (MPI_Aint) (me * bytes),
                              64, MPI_BYTE, w.win));
        }
        MPI_CHECK(MPI_Win_unlock_all(w.win));
        for (int t = 0; t < nprocs; ++t) {
            check(got + 64 * t, 900u + (uint32_t) (me * 16 + t), 64, "flush_all", t);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    /* an empty LOCK_ALL epoch */
    MPI_CHECK(MPI_Win_lock_all(0, w.win));
    MPI_CHECK(MPI_Win_flush_all(w.win));
    MPI_CHECK(MPI_Win_unlock_all(w.win));
    free(src);
    free(got);
    mtest_win_free(&w);
    return mtest_finalize();
}
