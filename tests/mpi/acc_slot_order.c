/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Accumulates packed behind an access in the target's mailbox.  On one node
 * the first small accumulate of a stream to a create or dynamic window goes
 * to the target's mailbox slot from the call, and the ones after it are
 * packed into the stream's message by the call: the target must apply the
 * slot first (accumulate_ordering's waw: a later MPI_REPLACE of the same
 * origin wins).  Every rank, round by round, MPI_REPLACEs one location of
 * its slice of its right neighbour's window with a first value (the slot),
 * then REPLACEs the slice's other locations and the first one again with a
 * second value (packets), then flushes.  Odd ranks sleep in some rounds
 * before they enter MPI again, so that the message may be there before
 * their agent polls the slot.  The window's packed_at_call counter
 * must count the packed ones ("packed").
 *
 *   acc_slot_order FLAVOR [packed|any]
 */
#include <unistd.h>

#include "mtest.h"

#define ROUNDS 60
#define ELEMS  16 /* int64 locations of a slice */

static int64_t value(int origin, int round, int e, int second)
{
    return ((int64_t) origin << 40) | ((int64_t) round << 20) | (int64_t) (e << 1) | second;
}

int main(int argc, char **argv)
{
    const char *name = "osc_newrma_win_packed_at_call";
    int64_t ops[ELEMS + 1], got[ELEMS];
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle;
    int nprocs, right, left, provided, want_packed;
    mtest_win_t w;

    if (argc < 2) {
        fprintf(stderr, "usage: acc_slot_order FLAVOR [packed|any]\n");
        return 2;
    }
    mtest_init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    want_packed = argc > 2 && 0 == strcmp(argv[2], "packed");
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    right = (mtest_rank + 1) % nprocs;
    left = (mtest_rank + nprocs - 1) % nprocs;
    mtest_win_counted(&w, argv[1], sizeof(got), name, &session, &handle);
    MPI_CHECK(MPI_Win_lock_all(0, w.win));
    for (int r = 0; r < ROUNDS; ++r) {
        MPI_Aint d0 = w.disp0[right];

        ops[0] = value(mtest_rank, r, 0, 0);
        MPI_CHECK(
            MPI_Accumulate(&ops[0], 1, MPI_INT64_T, right, d0, 1, MPI_INT64_T, MPI_REPLACE, w.win));
        for (int e = 1; e <= ELEMS; ++e) {
            int at = e % ELEMS; /* the last rewrites location 0 */

            ops[e] = value(mtest_rank, r, at, 1);
            MPI_CHECK(MPI_Accumulate(&ops[e], 1, MPI_INT64_T, right,
                                     d0 + (MPI_Aint) (at * (int) sizeof(int64_t)), 1, MPI_INT64_T,
                                     MPI_REPLACE, w.win));
        }
        if (1 == mtest_rank % 2 && 1 == r % 3) {
            usleep(2000); /* my left neighbour's message and slot wait for me */
        }
        MPI_CHECK(MPI_Win_flush(right, w.win));
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_CHECK(MPI_Win_sync(w.win)); /* in my lock_all epoch: read it in place */
        memcpy(got, w.base, sizeof(got));
        for (int e = 0; e < ELEMS; ++e) {
            MTEST_CHECK(got[e] == value(left, r, e, 1),
                        "round %d: location %d holds %#llx, expected %#llx", r, e,
                        (unsigned long long) got[e], (unsigned long long) value(left, r, e, 1));
        }
        MPI_Barrier(MPI_COMM_WORLD); /* checked before the next round writes */
    }
    MPI_CHECK(MPI_Win_unlock_all(w.win));
    if (want_packed) {
        unsigned long long packed = mtest_pvar_read(session, handle);

        MTEST_CHECK(packed >= (unsigned long long) ROUNDS * ELEMS / 2,
                    "%llu accumulates packed by the call itself", packed);
    }
    mtest_win_counted_free(&w, &session, &handle);
    MPI_T_finalize();
    return mtest_finalize();
}
