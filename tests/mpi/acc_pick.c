/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * A lone MPI_REPLACE or MPI_NO_OP read of 2-32 KiB on a window of user
 * memory (create, dynamic) to a node-local target: the cross-memory copy
 * under the target's accumulate lock or the target's mailbox (its slot's
 * area), whichever took less time lately (osc_newrma_cma_pick).  An
 * MPI_REPLACE of more than 32 KiB (COUNT above 4096): the copy, or a
 * stream of 32 KiB parts through the target's mailbox slots.  (The test
 * sets osc_newrma_cma_stream_bytes 0: else, where the copy is cheap, an
 * MPI_REPLACE of 4 KiB or more is always the copy, by its call.)
 *
 * usage: acc_pick FLAVOR SYNC MODE [ITERS] [COUNT]
 *   SYNC   lockall (a flush after each op), lock or fence
 *   MODE   pick    both ways are taken (the window's MPI_T counters
 *                  ops_mailbox and ops_rdma: the copy counts as RDMA);
 *          copy    osc_newrma_cma_pick 0 (set here): the copy only;
 *          packet  the UCX path (no segment): neither;
 *          busy    as pick, but each rank computes for 0.2-1 ms outside
 *                  MPI after each of its epochs: a stream to it stops
 *                  when its agent leaves a part untaken for 50 us, and
 *                  the copy moves the rest (the data is checked; the
 *                  ways are not).
 * Phase 1: each rank writes COUNT doubles of its right neighbour (a block
 * of its own there) by MPI_REPLACE, alone in its epoch, and reads them
 * back by MPI_NO_OP, alone in the next: the read returns what it wrote;
 * ITERS times, stamps changing each time.
 * Phase 2: every rank writes and reads rank 0's first block in turn, all
 * at once: every element read is some rank's stamp of that element (no
 * torn element), and the block at the end holds whole stamps.
 */
#include "mtest.h"

enum { MAILBOX, COPY, NPATH };
static const char *const path_names[NPATH] = {"osc_newrma_win_ops_mailbox",
                                              "osc_newrma_win_ops_rdma"};
static MPI_T_pvar_session session;
static MPI_T_pvar_handle path_h[NPATH];
static int me, nprocs, iters = 100, count = 1024, sync_mode, busy;
static mtest_win_t w;

static unsigned long long path_count(int p)
{
    unsigned long long v;

    MPI_CHECK(MPI_T_pvar_read(session, path_h[p], &v));
    return v;
}

/* Element @p i of rank @p r's write @p it: whole in a double, unique. */
static double stamp(int r, int it, int i)
{
    return (double) (r + 1) * 1e9 + (double) it * 1e5 + (double) i;
}

static int is_stamp_of(double v, int i)
{
    long long s = (long long) v, r = s / 1000000000 - 1, it = s % 1000000000 / 100000;

    return (double) s == v && r >= 0 && r < nprocs && it < iters && s % 100000 == i;
}

static void round_open(int t)
{
    mtest_round_open(w.win, sync_mode, MPI_LOCK_SHARED, t);
}

/* Every rank calls it under fence (which is collective). */
static void round_close(int t)
{
    mtest_round_close(w.win, sync_mode, t);
    if (busy) {
        /* outside MPI, different lengths on each rank and iteration */
        double until = MPI_Wtime() + 1e-4 * (double) (2 + (me + t + rand()) % 9);
        while (MPI_Wtime() < until) {
        }
    }
}

static void phase_own(double *mine, double *got)
{
    int right = (me + 1) % nprocs;
    MPI_Aint disp = w.disp0[right] + (MPI_Aint) (sizeof(double) * (size_t) count * (size_t) me);

    mtest_rounds_begin(w.win, sync_mode);
    for (int it = 0; it < iters; ++it) {
        for (int i = 0; i < count; ++i) {
            mine[i] = stamp(me, it, i);
            got[i] = -1.0;
        }
        round_open(right);
        MPI_CHECK(MPI_Accumulate(mine, count, MPI_DOUBLE, right, disp, count, MPI_DOUBLE,
                                 MPI_REPLACE, w.win));
        round_close(right);
        round_open(right);
        MPI_CHECK(MPI_Get_accumulate(NULL, 0, MPI_DOUBLE, got, count, MPI_DOUBLE, right, disp,
                                     count, MPI_DOUBLE, MPI_NO_OP, w.win));
        round_close(right);
        for (int i = 0; i < count; ++i) {
            MTEST_CHECK(got[i] == mine[i], "iteration %d: element %d read %.17g, wrote %.17g", it,
                        i, got[i], mine[i]);
        }
    }
    mtest_rounds_end(w.win, sync_mode);
}

static void phase_shared(double *mine, double *got)
{
    mtest_rounds_begin(w.win, sync_mode);
    for (int it = 0; it < iters; ++it) {
        for (int i = 0; i < count; ++i) {
            mine[i] = stamp(me, it, i);
        }
        round_open(0);
        MPI_CHECK(MPI_Accumulate(mine, count, MPI_DOUBLE, 0, w.disp0[0], count, MPI_DOUBLE,
                                 MPI_REPLACE, w.win));
        round_close(0);
        round_open(0);
        MPI_CHECK(MPI_Get_accumulate(NULL, 0, MPI_DOUBLE, got, count, MPI_DOUBLE, 0, w.disp0[0],
                                     count, MPI_DOUBLE, MPI_NO_OP, w.win));
        round_close(0);
        for (int i = 0; i < count; ++i) {
            MTEST_CHECK(is_stamp_of(got[i], i), "shared: element %d read %.17g, no stamp of it", i,
                        got[i]);
        }
    }
    mtest_rounds_end(w.win, sync_mode);
    MPI_Barrier(MPI_COMM_WORLD);
    if (0 == me) {
        mtest_local_load(&w, 0, got, sizeof(double) * (size_t) count);
        for (int i = 0; i < count; ++i) {
            MTEST_CHECK(is_stamp_of(got[i], i), "shared: element %d holds %.17g at the end", i,
                        got[i]);
        }
    }
}

static void check_ways(const char *mode, unsigned long long by_mailbox, unsigned long long by_copy)
{
    if (0 == strcmp(mode, "busy")) {
        return; /* any way, on any path: the data is checked */
    }
    if (0 == strcmp(mode, "pick")) {
        MTEST_CHECK(by_mailbox > 0 && by_copy > 0,
                    "picked: %llu ops by the mailbox, %llu by the copy; both expected", by_mailbox,
                    by_copy);
    } else if (0 == strcmp(mode, "copy")) {
        MTEST_CHECK(0 == by_mailbox && by_copy > 0,
                    "copy only: %llu ops by the mailbox, %llu by the copy", by_mailbox, by_copy);
    } else {
        MTEST_CHECK(0 == by_mailbox && 0 == by_copy,
                    "packets: %llu ops by the mailbox, %llu by the copy", by_mailbox, by_copy);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 3 ? argv[3] : "pick";
    double *mine, *got;
    int provided;

    if (0 == strcmp(mode, "copy")) {
        setenv("OMPI_MCA_osc_newrma_cma_pick", "0", 1);
    }
    /* where the copy is cheap, an MPI_REPLACE of cma_stream_bytes (4 KiB)
     * or more goes by its call, every one, as a PUT of a stream does: no
     * pick to test; from cma_share_bytes (256 KiB) as well */
    setenv("OMPI_MCA_osc_newrma_cma_stream_bytes", "0", 0);
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 4 || (0 != strcmp(mode, "pick") && 0 != strcmp(mode, "copy") &&
                     0 != strcmp(mode, "packet") && 0 != strcmp(mode, "busy"))) {
        fprintf(stderr, "usage: acc_pick FLAVOR SYNC pick|copy|packet|busy [ITERS] [COUNT]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    sync_mode = mtest_sync(argv[2]);
    busy = 0 == strcmp(mode, "busy");
    srand((unsigned) me + 1);
    iters = argc > 4 ? atoi(argv[4]) : iters;
    count = argc > 5 ? atoi(argv[5]) : count;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_T_pvar_session_create(&session);
    mine = malloc(sizeof(double) * (size_t) count);
    got = malloc(sizeof(double) * (size_t) count);
    mtest_win_create(&w, argv[1], sizeof(double) * (size_t) count * (size_t) nprocs, MPI_INFO_NULL,
                     MPI_COMM_WORLD);
    mtest_pvars_bind(session, path_names, NPATH, &w.win, path_h);
    phase_own(mine, got);
    if (nprocs > 1) {
        check_ways(mode, path_count(MAILBOX), path_count(COPY));
    }
    phase_shared(mine, got);
    for (int p = 0; p < NPATH; ++p) {
        MPI_T_pvar_handle_free(session, &path_h[p]);
    }
    MPI_T_pvar_session_free(&session);
    free(mine);
    free(got);
    mtest_win_free(&w);
    MPI_T_finalize();
    return mtest_finalize();
}
