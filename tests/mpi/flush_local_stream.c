/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * MPI_Win_flush_local after each small PUT and accumulate of a lock_all
 * stream: the origin's buffer (one variable, rewritten after every
 * flush_local) must be free again when it returns, and the ops, packed into
 * the target's aggregated message, need not travel one message per flush.
 * Every rank sends its right neighbour NOPS PUTs of 8 bytes to consecutive
 * slots and, every eighth, an MPI_SUM accumulate to a counter, each followed
 * by MPI_Win_flush_local; then checks that its window's messages counter
 * (osc_newrma_win_messages) grew by less than one per flush_local, and that
 * a progressing MPI call (MPI_Iprobe) sends the message left open; then
 * MPI_Win_flush and MPI_Win_unlock_all, and the target checks every slot
 * and the counter.
 *
 *   flush_local_stream FLAVOR [held|any]
 *     held: the messages counter must show the stream aggregated (windows
 *     whose PUTs travel as packets: create and dynamic); any: no count is
 *     asserted (loads and stores of an allocated window send none).
 */
#include <stdbool.h>

#include "mtest.h"

#define NOPS      512
#define ACC_EVERY 8
/* the counter after the PUT slots */
#define COUNTER NOPS

static uint64_t value_of(int origin, int i)
{
    return ((uint64_t) (origin + 1) << 32) | (uint64_t) (i * 2654435761u % 1000003u);
}

/* The stream to @p right; @return the messages it took (the counter's growth). */
static unsigned long long stream(mtest_win_t *w, int right, MPI_T_pvar_session session,
                                 MPI_T_pvar_handle messages)
{
    unsigned long long before = mtest_pvar_read(session, messages);
    uint64_t buf, one;

    for (int i = 0; i < NOPS; ++i) {
        buf = value_of(mtest_rank, i);
        MPI_CHECK(MPI_Put(&buf, 1, MPI_UINT64_T, right,
                          w->disp0[right] + (MPI_Aint) (i * sizeof(uint64_t)), 1, MPI_UINT64_T,
                          w->win));
        MPI_CHECK(MPI_Win_flush_local(right, w->win));
        buf = ~(uint64_t) 0; /* the PUT must have taken its value already */
        if (ACC_EVERY - 1 == i % ACC_EVERY) {
            one = 1;
            MPI_CHECK(MPI_Accumulate(&one, 1, MPI_UINT64_T, right,
                                     w->disp0[right] + (MPI_Aint) (COUNTER * sizeof(uint64_t)), 1,
                                     MPI_UINT64_T, MPI_SUM, w->win));
            MPI_CHECK(MPI_Win_flush_local(right, w->win));
            one = 1000;
        }
    }
    return mtest_pvar_read(session, messages) - before;
}

int main(int argc, char **argv)
{
    const char *const names[] = {"osc_newrma_win_messages"};
    MPI_T_pvar_session session;
    MPI_T_pvar_handle messages;
    bool held;
    mtest_win_t w;
    int nprocs, right, left, provided, flag;
    unsigned long long sent, before;
    uint64_t got[NOPS + 1], zero[NOPS + 1] = {0};

    mtest_init(&argc, &argv);
    if (argc < 2) {
        mtest_error("usage: flush_local_stream FLAVOR [held|any]");
        return mtest_finalize();
    }
    held = argc > 2 && 0 == strcmp(argv[2], "held");
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    right = (mtest_rank + 1) % nprocs;
    left = (mtest_rank + nprocs - 1) % nprocs;
    mtest_win_create(&w, argv[1], sizeof(zero), MPI_INFO_NULL, MPI_COMM_WORLD);
    mtest_local_store(&w, 0, zero, sizeof(zero));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHECK(MPI_T_pvar_session_create(&session));
    mtest_pvars_bind(session, names, 1, &w.win, &messages);

    MPI_CHECK(MPI_Win_lock_all(0, w.win));
    sent = stream(&w, right, session, messages);
    if (held) {
        /* a message per flush_local would be NOPS + NOPS / ACC_EVERY */
        MTEST_CHECK(sent < NOPS / 4, "%llu messages for %d PUTs, each with flush_local", sent,
                    NOPS);
        /* what the flush_locals left open goes with the next progress */
        before = mtest_pvar_read(session, messages);
        MPI_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        MTEST_CHECK(mtest_pvar_read(session, messages) > before,
                    "the open message did not go with MPI_Iprobe's progress");
    }
    MPI_CHECK(MPI_Win_flush(right, w.win));
    MPI_CHECK(MPI_Win_unlock_all(w.win));
    MPI_Barrier(MPI_COMM_WORLD);

    mtest_local_load(&w, 0, got, sizeof(got));
    for (int i = 0; i < NOPS; ++i) {
        MTEST_CHECK(got[i] == value_of(left, i), "slot %d: %llx, expected %llx", i,
                    (unsigned long long) got[i], (unsigned long long) value_of(left, i));
    }
    MTEST_CHECK(got[COUNTER] == NOPS / ACC_EVERY, "counter %llu, expected %d",
                (unsigned long long) got[COUNTER], NOPS / ACC_EVERY);
    MPI_CHECK(MPI_T_pvar_handle_free(session, &messages));
    MPI_CHECK(MPI_T_pvar_session_free(&session));
    MPI_T_finalize();
    mtest_win_free(&w);
    return mtest_finalize();
}
