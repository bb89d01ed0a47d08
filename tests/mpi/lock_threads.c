/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * MPI_THREAD_MULTIPLE: several threads of each rank issue PUT, GET and
 * FLUSH concurrently on one window inside one LOCK_ALL epoch (the design's
 * "RMA + Threads" interleavings), each on its own slice of every target.
 *
 * usage: lock_threads FLAVOR [THREADS]
 */

#include "mtest.h"

#define SLICE  4096
#define ROUNDS 50

static mtest_win_t w;
static int me, nprocs, nthreads;
static int thread_errors[MTEST_MAX_THREADS];

static void *worker(void *arg)
{
    int id = (int) (intptr_t) arg;
    unsigned char out[SLICE], in[SLICE];

    for (int r = 0; r < ROUNDS; ++r) {
        int t = (me + id + r) % nprocs;
        MPI_Aint disp = w.disp0[t] + (MPI_Aint) ((me * nthreads + id) * SLICE);
        uint32_t seed = (uint32_t) (r * 1000 + me * 64 + id);

        mtest_fill(out, SLICE, seed);
        MPI_CHECK(MPI_Put(out, SLICE, MPI_BYTE, t, disp, SLICE, MPI_BYTE, w.win));
        MPI_CHECK(MPI_Win_flush(t, w.win));
        MPI_CHECK(MPI_Get(in, SLICE, MPI_BYTE, t, disp, SLICE, MPI_BYTE, w.win));
        MPI_CHECK(MPI_Win_flush_local(t, w.win));
        if (0 != memcmp(in, out, SLICE)) {
            thread_errors[id]++;
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{

    mtest_init_multiple(&argc, &argv);
    me = mtest_rank;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    nthreads = argc > 2 ? atoi(argv[2]) : 4;
    mtest_win_create(&w, argc > 1 ? argv[1] : "allocate",
                     (size_t) SLICE * (size_t) (nthreads * nprocs), MPI_INFO_NULL, MPI_COMM_WORLD);
    MPI_CHECK(MPI_Win_lock_all(0, w.win));
    mtest_threads_run(nthreads, worker, thread_errors);
    MPI_CHECK(MPI_Win_unlock_all(w.win));
    mtest_win_free(&w);
    return mtest_finalize();
}
