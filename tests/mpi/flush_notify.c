/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * MPI_Win_flush completes at the target under every lock type (unified
 * memory model): the origin PUTs (and ACCUMULATEs) under an exclusive or a
 * shared lock, flushes, and tells the target with a message; the target,
 * after MPI_Win_sync, must read the new data before the origin unlocks.
 *
 * usage: flush_notify FLAVOR [ROUNDS] [COUNT]
 */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, nprocs, rounds, count, lock_types[2] = {MPI_LOCK_EXCLUSIVE, MPI_LOCK_SHARED};
    long *buf, *mine;
    size_t bytes;
    mtest_win_t w;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2) {
        fprintf(stderr, "usage: flush_notify FLAVOR [ROUNDS] [COUNT]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    rounds = argc > 2 ? atoi(argv[2]) : 100;
    count = argc > 3 ? atoi(argv[3]) : 1024;
    bytes = (size_t) count * sizeof(long);
    buf = malloc(bytes);
    mtest_win_create(&w, argv[1], bytes, MPI_INFO_NULL, MPI_COMM_WORLD);
    mine = (long *) w.base;
    /* rank 0 writes into every other rank, one at a time */
    for (int r = 0; r < rounds; ++r) {
        int lock_type = lock_types[r % 2], peer = 1 + r % (nprocs - 1);
        if (0 == rank) {
            for (int i = 0; i < count; ++i) {
                buf[i] = (long) r * 7919 + i;
            }
            MPI_CHECK(MPI_Win_lock(lock_type, peer, 0, w.win));
            MPI_CHECK(
                MPI_Put(buf, count / 2, MPI_LONG, peer, w.disp0[peer], count / 2, MPI_LONG, w.win));
            MPI_CHECK(
                MPI_Accumulate(buf + count / 2, count - count / 2, MPI_LONG, peer,
                               w.disp0[peer] + (MPI_Aint) (count / 2) * (MPI_Aint) sizeof(long),
                               count - count / 2, MPI_LONG, MPI_REPLACE, w.win));
            MPI_CHECK(MPI_Win_flush(peer, w.win));
            MPI_CHECK(MPI_Send(&r, 1, MPI_INT, peer, 0, MPI_COMM_WORLD));
            MPI_CHECK(MPI_Recv(&r, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_CHECK(MPI_Win_unlock(peer, w.win));
        } else if (rank == peer) {
            int got;
            MPI_CHECK(MPI_Recv(&got, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_CHECK(MPI_Win_sync(w.win));
            for (int i = 0; i < count; ++i) {
                MTEST_CHECK(mine[i] == (long) r * 7919 + i,
                            "round %d (%s lock): element %d is %ld after the flush, expected %ld",
                            r, MPI_LOCK_EXCLUSIVE == lock_type ? "exclusive" : "shared", i, mine[i],
                            (long) r * 7919 + i);
            }
            MPI_CHECK(MPI_Send(&got, 1, MPI_INT, 0, 1, MPI_COMM_WORLD));
        }
    }
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    mtest_win_free(&w);
    free(buf);
    return mtest_finalize();
}
