/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * MPI_THREAD_MULTIPLE stress: THREADS threads per rank mix PUT, GET,
 * ACCUMULATE, GET_ACCUMULATE, FETCH_AND_OP and request-based GETs with
 * flush, flush_local and flush_all on several windows at once (one per
 * flavor given), all inside LOCK_ALL epochs.  Every thread checks what it
 * reads back; at the end each target checks its counter and accumulate
 * sums against the number of operations the schedule sent to it, and each
 * thread checks that the values its FETCH_AND_OPs fetched from one counter
 * only grow.
 *
 * usage: thread_stress FLAVOR[,FLAVOR...] [THREADS] [ROUNDS]
 */

#include "mtest.h"

#define MAX_WINS   4
#define MAX_THREAD 16
#define SLICE      1024 /* PUT/GET bytes per (origin, thread) */
#define ACC_N      64   /* int64 elements every ACCUMULATE adds 1 to */

/* window layout (bytes): counter | pad | acc[ACC_N] | slices */
#define OFF_COUNTER 0
#define OFF_ACC     64
#define OFF_SLICES  (OFF_ACC + ACC_N * 8)

static mtest_win_t wins[MAX_WINS];
static int nwins, me, nprocs, nthreads, rounds;
static int thread_errors[MAX_THREAD];

/* The schedule: which window and target round r of thread id of rank o uses. */
static int pick_win(int o, int id, int r)
{
    return (o + id + r) % nwins;
}

static int pick_target(int o, int id, int r)
{
    return (o + id * 3 + r / nwins) % nprocs;
}

static MPI_Aint at(int w, int t, MPI_Aint off)
{
    return wins[w].disp0[t] + off;
}

static void put_get(int id, int r, int w, int t)
{
    unsigned char out[SLICE], in[SLICE];
    MPI_Aint disp = at(w, t, OFF_SLICES + (MPI_Aint) ((me * nthreads + id) * SLICE));
    uint32_t seed = (uint32_t) (r * 4096 + me * 64 + id);
    MPI_Request req;

    mtest_fill(out, SLICE, seed);
    MPI_CHECK(MPI_Put(out, SLICE, MPI_BYTE, t, disp, SLICE, MPI_BYTE, wins[w].win));
    if (r % 3 == 0) {
        MPI_CHECK(MPI_Win_flush_all(wins[w].win));
    } else {
        MPI_CHECK(MPI_Win_flush(t, wins[w].win));
    }
    if (r % 2 == 0) {
        MPI_CHECK(MPI_Get(in, SLICE, MPI_BYTE, t, disp, SLICE, MPI_BYTE, wins[w].win));
        MPI_CHECK(MPI_Win_flush_local(t, wins[w].win));
    } else {
        MPI_CHECK(MPI_Rget(in, SLICE, MPI_BYTE, t, disp, SLICE, MPI_BYTE, wins[w].win, &req));
        MPI_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    if (0 != memcmp(in, out, SLICE)) {
        thread_errors[id]++;
    }
}

static void accumulate(int id, int w, int t, int64_t *last)
{
    int64_t ones[ACC_N], got[ACC_N], one = 1, fetched = -1;

    for (int i = 0; i < ACC_N; ++i) {
        ones[i] = 1;
    }
    MPI_CHECK(MPI_Accumulate(ones, ACC_N, MPI_INT64_T, t, at(w, t, OFF_ACC), ACC_N, MPI_INT64_T,
                             MPI_SUM, wins[w].win));
    MPI_CHECK(MPI_Fetch_and_op(&one, &fetched, MPI_INT64_T, t, at(w, t, OFF_COUNTER), MPI_SUM,
                               wins[w].win));
    MPI_CHECK(MPI_Win_flush(t, wins[w].win));
    /* this thread's own FOPs to one counter complete in turn: they only grow */
    if (fetched <= *last) {
        thread_errors[id]++;
    }
    *last = fetched;
    /* the accumulate above is complete at the target: its sums are >= 1 */
    MPI_CHECK(MPI_Get_accumulate(NULL, 0, MPI_INT64_T, got, ACC_N, MPI_INT64_T, t,
                                 at(w, t, OFF_ACC), ACC_N, MPI_INT64_T, MPI_NO_OP, wins[w].win));
    MPI_CHECK(MPI_Win_flush_local(t, wins[w].win));
    for (int i = 0; i < ACC_N; ++i) {
        /* elements may differ while others add, but none is below 1 */
        if (got[i] < 1) {
            thread_errors[id]++;
            break;
        }
    }
}

static void *worker(void *arg)
{
    int id = (int) (intptr_t) arg;
    int64_t last[MAX_WINS][64];

    for (int w = 0; w < MAX_WINS; ++w) {
        for (int t = 0; t < 64; ++t) {
            last[w][t] = -1;
        }
    }
    for (int r = 0; r < rounds; ++r) {
        int w = pick_win(me, id, r), t = pick_target(me, id, r);

        put_get(id, r, w, t);
        accumulate(id, w, t, &last[w][t % 64]);
    }
    return NULL;
}

static void check_target(void)
{
    for (int w = 0; w < nwins; ++w) {
        int64_t want = 0, *acc = (int64_t *) (wins[w].base + OFF_ACC);
        int64_t counter = *(int64_t *) (wins[w].base + OFF_COUNTER);

        for (int o = 0; o < nprocs; ++o) {
            for (int id = 0; id < nthreads; ++id) {
                for (int r = 0; r < rounds; ++r) {
                    want += pick_win(o, id, r) == w && pick_target(o, id, r) == me;
                }
            }
        }
        MTEST_CHECK(counter == want, "window %d: counter %lld, expected %lld", w,
                    (long long) counter, (long long) want);
        for (int i = 0; i < ACC_N; ++i) {
            MTEST_CHECK(acc[i] == want, "window %d: acc[%d] = %lld, expected %lld", w, i,
                        (long long) acc[i], (long long) want);
        }
    }
}

int main(int argc, char **argv)
{
    char flavors[256], *save = NULL;
    size_t size;

    mtest_init_multiple(&argc, &argv);
    me = mtest_rank;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    nthreads = argc > 2 ? atoi(argv[2]) : 4;
    rounds = argc > 3 ? atoi(argv[3]) : 200;
    if (nthreads < 1 || nthreads > MAX_THREAD || rounds < 1) {
        fprintf(stderr, "usage: thread_stress FLAVOR[,FLAVOR...] [THREADS<=16] [ROUNDS]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    snprintf(flavors, sizeof(flavors), "%s", argc > 1 ? argv[1] : "allocate,create,dynamic");
    size = OFF_SLICES + (size_t) SLICE * (size_t) (nthreads * nprocs);
    for (char *f = strtok_r(flavors, ",", &save); f && nwins < MAX_WINS;
         f = strtok_r(NULL, ",", &save)) {
        mtest_win_create(&wins[nwins], f, size, MPI_INFO_NULL, MPI_COMM_WORLD);
        memset(wins[nwins].base, 0, size);
        ++nwins;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int w = 0; w < nwins; ++w) {
        MPI_CHECK(MPI_Win_lock_all(0, wins[w].win));
    }
    mtest_threads_run(nthreads, worker, thread_errors);
    for (int w = 0; w < nwins; ++w) {
        MPI_CHECK(MPI_Win_unlock_all(wins[w].win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int w = 0; w < nwins; ++w) {
        MPI_CHECK(MPI_Win_sync(wins[w].win));
    }
    check_target();
    for (int w = 0; w < nwins; ++w) {
        mtest_win_free(&wins[w]);
    }
    return mtest_finalize();
}
