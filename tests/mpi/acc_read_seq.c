/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * MPI_NO_OP reads of a large block racing accumulates on it: a read that
 * UCX's transfer makes without the target's accumulate lock is checked
 * against the lock word's sequence and read again under the lock when an
 * accumulate took it meanwhile (osc_newrma_cma_pick; counter reads_again).
 *
 * usage: acc_read_seq FLAVOR [READS] [MODE] [counted|unlocked]
 *   MODE race (default): rank 1 adds 1 to every element of its block
 *        again and again (MPI_Accumulate SUM to itself, flushed, then as
 *        long again without the lock),
 *        while rank 0 reads the whole block READS times (MPI_Get_accumulate
 *        MPI_NO_OP + flush).  Every read sees the elements equal (an
 *        accumulate is applied whole under the lock, and a read either
 *        takes the lock or saw no one take it), never fewer than the
 *        read before; at the end they hold rank 1's count.  On the shm
 *        path (where node-local create and dynamic windows take the
 *        cross-memory copy or UCX's transfer), with "counted", the
 *        window's counter reads_again is above 0: the first reads try
 *        each way, UCX's among them, and the adds overlap them.
 *   MODE quiet: the same reads with nobody writing; with "counted",
 *        reads_again stays 0.
 * With "unlocked" (over TCP: the target answers a read from its window
 * without the lock, read_unlocked) the counters are summed over the ranks:
 * reads_unlocked above 0, reads_again above 0 (race: the target is the
 * writer, whose adds overlap the answers; after one read again the target
 * skips a few reads, so some go each way) or 0 (quiet).
 * Other ranks only take part in the synchronization.
 */
#include "mtest.h"

#define COUNT (256 * 1024) /* int64 elements: 2 MiB, from osc_newrma_cma_bytes */
#define HOT   COUNT        /* the whole block: an add holds the lock 100 us or more */

static MPI_T_pvar_session session;
static MPI_T_pvar_handle h[2]; /* reads_again, reads_unlocked */
static const char *const again_name[2] = {"osc_newrma_win_reads_again",
                                          "osc_newrma_win_reads_unlocked"};
static int me, nprocs, reads = 40;
static mtest_win_t w;

static unsigned long long pvar(MPI_T_pvar_handle h)
{
    unsigned long long v;

    MPI_CHECK(MPI_T_pvar_read(session, h, &v));
    return v;
}

static unsigned long long reads_again(void)
{
    return pvar(h[0]);
}

/* READS reads; when @p until_again, more until one was read again, for up
 * to 20 s: how the reads and the adds overlap depends on the machine's
 * speed (under the sanitizers an add takes far longer), and while the
 * copy is the faster way the pick tries UCX's transfer, the way that can
 * be read again, for 3 reads in up to 1024 (ten times READS, the bound
 * before, once saw no overlap at all). */
static void reader(int64_t *got, int race, int until_again)
{
    double t0 = MPI_Wtime();
    int64_t last = 0;

    for (int r = 0; r < reads || (until_again && 0 == reads_again() && MPI_Wtime() - t0 < 20.0);
         ++r) {
        MPI_CHECK(MPI_Get_accumulate(NULL, 0, MPI_INT64_T, got, COUNT, MPI_INT64_T, 1, w.disp0[1],
                                     COUNT, MPI_INT64_T, MPI_NO_OP, w.win));
        MPI_CHECK(MPI_Win_flush(1, w.win));
        for (int i = 1; i < HOT; ++i) {
            MTEST_CHECK(got[i] == got[0], "read %d: element %d is %lld, element 0 %lld", r, i,
                        (long long) got[i], (long long) got[0]);
        }
        MTEST_CHECK(got[0] >= last, "read %d: %lld after %lld", r, (long long) got[0],
                    (long long) last);
        MTEST_CHECK(race || 0 == got[0], "read %d: %lld with nobody writing", r,
                    (long long) got[0]);
        last = got[0];
    }
}

/* Adds until the reader's barrier completes; @return how many. */
static int64_t writer(const int64_t *one)
{
    MPI_Request done;
    int64_t adds = 0;
    int flag = 0;

    MPI_CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &done));
    while (!flag) {
        MPI_CHECK(
            MPI_Accumulate(one, HOT, MPI_INT64_T, 1, w.disp0[1], HOT, MPI_INT64_T, MPI_SUM, w.win));
        MPI_CHECK(MPI_Win_flush(1, w.win));
        adds++;
        /* as long again without the lock, progressing: reads begin
         * there and the next add comes in their midst */
        for (double t0 = MPI_Wtime(); !flag && MPI_Wtime() - t0 < 1e-4;) {
            MPI_CHECK(MPI_Test(&done, &flag, MPI_STATUS_IGNORE));
        }
    }
    return adds;
}

int main(int argc, char **argv)
{
    int provided, race = argc < 4 || 0 != strcmp(argv[3], "quiet");
    int64_t *got = calloc(COUNT, sizeof(int64_t)), *one = malloc(HOT * sizeof(int64_t));
    unsigned long long again = 0;
    int64_t adds = 0;
    MPI_Request done;

    /* the reads take turns with UCX's transfer only where the copy is dear */
    setenv("OMPI_MCA_osc_newrma_cma_cheap", "0", 0);
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    reads = argc > 2 ? atoi(argv[2]) : reads;
    for (int i = 0; i < HOT; ++i)
        one[i] = 1;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_T_pvar_session_create(&session);
    mtest_win_create(&w, argc > 1 ? argv[1] : "create", COUNT * sizeof(int64_t), MPI_INFO_NULL,
                     MPI_COMM_WORLD);
    mtest_win_zero(&w, COUNT * sizeof(int64_t));
    mtest_pvars_bind(session, again_name, 2, &w.win, h);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHECK(MPI_Win_lock_all(0, w.win));
    if (0 == me) {
        reader(got, race, race && argc > 4 && 0 == strcmp(argv[4], "counted"));
        again = reads_again();
        MPI_CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &done));
        MPI_CHECK(MPI_Wait(&done, MPI_STATUS_IGNORE));
    } else if (1 == me && race) {
        adds = writer(one);
    } else {
        MPI_CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &done));
        MPI_CHECK(MPI_Wait(&done, MPI_STATUS_IGNORE));
    }
    MPI_CHECK(MPI_Win_unlock_all(w.win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (1 == me) {
        mtest_local_load(&w, 0, got, HOT * sizeof(int64_t));
        for (int i = 0; i < HOT; ++i) {
            MTEST_CHECK(got[i] == adds, "element %d holds %lld after %lld adds", i,
                        (long long) got[i], (long long) adds);
        }
    }
    if (argc > 4 && 0 == strcmp(argv[4], "unlocked")) {
        unsigned long long mine[2] = {reads_again(), pvar(h[1])}, all[2];

        MPI_CHECK(MPI_Reduce(mine, all, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
        MTEST_CHECK(0 != me || all[1] > 0, "no read answered without the lock");
        MTEST_CHECK(0 != me || (race ? all[0] > 0 : 0 == all[0]),
                    "%llu of %llu reads without the lock read again (%s)", all[0], all[1],
                    race ? "race" : "quiet");
    }
    if (0 == me && argc > 4 && 0 == strcmp(argv[4], "counted")) {
        /* the shm path's entries: reads by UCX's transfer, which the
         * adds overlapped, were read again (quiet: none) */
        MTEST_CHECK(race ? again > 0 : 0 == again, "%llu reads read again (%s)", again,
                    race ? "race" : "quiet");
    }
    MPI_T_pvar_handle_free(session, &h[0]);
    MPI_T_pvar_handle_free(session, &h[1]);
    MPI_T_pvar_session_free(&session);
    mtest_win_free(&w);
    MPI_T_finalize();
    free(got);
    free(one);
    return mtest_finalize();
}
