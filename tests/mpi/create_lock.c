/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * A LOCK (and its PUT) may reach a target that is still inside window
 * creation: the origin can leave the creation's allgather before the target
 * does.  Each rank creates a window and at once locks its right neighbour,
 * puts its rank there and unlocks; after a barrier every rank checks what its
 * left neighbour put.  Repeated with fresh windows to hit the window of time.
 *
 * usage: create_lock FLAVOR [ROUNDS]   (create, allocate, dynamic)
 */
#include "mtest.h"

static void one_round(const char *flavor, int round, int rank, int nprocs)
{
    int right = (rank + 1) % nprocs, left = (rank + nprocs - 1) % nprocs;
    int value = rank * 1000 + round, *base = NULL;
    MPI_Aint disp = 0, left_disp;
    MPI_Win win;

    if (0 == strcmp(flavor, "create")) {
        base = calloc(1, sizeof(int));
        MPI_CHECK(
            MPI_Win_create(base, sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    } else if (0 == strcmp(flavor, "allocate")) {
        MPI_CHECK(
            MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
        /* no initialization: the neighbour's PUT may already be here */
    } else {
        /* dynamic: the neighbour's address must be known first, so the
         * exchange runs before creation, and the lock follows it at once */
        base = calloc(1, sizeof(int));
        MPI_Get_address(base, &left_disp);
        MPI_CHECK(MPI_Sendrecv(&left_disp, 1, MPI_AINT, left, 0, &disp, 1, MPI_AINT, right, 0,
                               MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        MPI_CHECK(MPI_Win_attach(win, base, sizeof(int)));
        /* attach is local: the neighbour must have attached before we access it */
        MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    }
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
    MPI_CHECK(MPI_Put(&value, 1, MPI_INT, right, disp, 1, MPI_INT, win));
    MPI_CHECK(MPI_Win_unlock(right, win));
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    MTEST_CHECK(*base == left * 1000 + round, "round %d: window holds %d, expected %d", round,
                *base, left * 1000 + round);
    MPI_CHECK(MPI_Win_unlock(rank, win));
    if (0 == strcmp(flavor, "dynamic")) {
        MPI_CHECK(MPI_Win_detach(win, base));
    }
    MPI_CHECK(MPI_Win_free(&win));
    if (0 != strcmp(flavor, "allocate")) {
        free(base);
    }
}

int main(int argc, char **argv)
{
    int rank, nprocs, rounds;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2) {
        fprintf(stderr, "usage: create_lock FLAVOR [ROUNDS]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    rounds = argc > 2 ? atoi(argv[2]) : 200;
    for (int r = 0; r < rounds; ++r) {
        one_round(argv[1], r, rank, nprocs);
    }
    return mtest_finalize();
}
