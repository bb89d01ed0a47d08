/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * A process that only locks, reads and unlocks still moves its
 * point-to-point messages: the waits of passive-target epochs run Open
 * MPI's whole progress now and then (osc_newrma_wait_opal_every_agent),
 * not only newrma's agent, and so do node-local unlocks, which never wait
 * (OMPI_OSC_NEWRMA_OPAL_TURN_EVERY).  Pairs of ranks (2k, 2k+1): the even
 * rank posts a receive of a message large enough to need its PML's
 * progress after the match (a rendezvous), then polls a flag in its partner's window with
 * lock, GET, unlock and nothing else; the odd rank sends the message,
 * which completes only when the even rank's PML progressed, and raises the
 * flag.  The poll gives up after 60 s (an error, not a hang); the message
 * is checked whole.
 *
 * usage: pml_progress FLAVOR [BYTES]
 */
#include "mtest.h"

#define TAG             7
#define SEED            29u
#define GIVE_UP_SECONDS 60.0

/* Lock, GET of @p partner's flag, unlock until it is raised (1) or the
 * time is up (0). */
static int poll_flag(mtest_win_t *w, int partner)
{
    double t0 = MPI_Wtime();
    int flag = 0;

    while (0 == flag) {
        if (MPI_Wtime() - t0 > GIVE_UP_SECONDS) {
            return 0;
        }
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, partner, 0, w->win));
        MPI_CHECK(MPI_Get(&flag, 1, MPI_INT, partner, w->disp0[partner], 1, MPI_INT, w->win));
        MPI_CHECK(MPI_Win_unlock(partner, w->win));
    }
    return 1;
}

static void raise_flag(mtest_win_t *w, int rank)
{
    int one = 1;

    MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w->win));
    MPI_CHECK(MPI_Put(&one, 1, MPI_INT, rank, w->disp0[rank], 1, MPI_INT, w->win));
    MPI_CHECK(MPI_Win_unlock(rank, w->win));
}

int main(int argc, char **argv)
{
    int rank, nprocs, partner;
    size_t bytes, first_wrong;
    unsigned char *msg;
    MPI_Request req;
    mtest_win_t w;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2) {
        fprintf(stderr, "usage: pml_progress FLAVOR [BYTES]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    bytes = argc > 2 ? (size_t) atol(argv[2]) : 4 << 20;
    msg = malloc(bytes);
    mtest_win_create(&w, argv[1], sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD);
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w.win));
    *(int *) w.base = 0;
    MPI_CHECK(MPI_Win_unlock(rank, w.win));
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    partner = rank ^ 1;
    if (partner < nprocs && 0 == rank % 2) {
        memset(msg, 0, bytes);
        MPI_CHECK(MPI_Irecv(msg, (int) bytes, MPI_BYTE, partner, TAG, MPI_COMM_WORLD, &req));
        MTEST_CHECK(poll_flag(&w, partner),
                    "rank %d's flag not raised in %.0f s: its send to me did not progress", partner,
                    GIVE_UP_SECONDS);
        MPI_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        first_wrong = mtest_pattern_mismatch(msg, bytes, SEED);
        MTEST_CHECK(first_wrong == bytes, "the message is wrong from byte %zu of %zu", first_wrong,
                    bytes);
    } else if (partner < nprocs) {
        mtest_fill(msg, bytes, SEED);
        MPI_CHECK(MPI_Send(msg, (int) bytes, MPI_BYTE, partner, TAG, MPI_COMM_WORLD));
        raise_flag(&w, rank);
    }
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    mtest_win_free(&w);
    free(msg);
    return mtest_finalize();
}
