/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * MPI_Request_free on an active RMA request is legal (MPI-3.1 3.7.3): the
 * operation still completes, at the latest at the next flush, and nothing
 * leaks.  Every rank issues MPI_Rput, MPI_Raccumulate and MPI_Rget to its
 * right neighbour and frees each request at once (some still in flight:
 * large transfers, packets queued behind a lock), then flushes and checks
 * the data.  Run under valgrind it also shows that the requests are freed.
 *
 * usage: request_free FLAVOR [ITERS] [BYTES]
 */
#include "mtest.h"

int main(int argc, char **argv)
{
    int me, nprocs, iters = argc > 2 ? atoi(argv[2]) : 20;
    size_t bytes = argc > 3 ? (size_t) atol(argv[3]) : 1 << 20, n = bytes / sizeof(int);
    int *src, *got, *sum;
    mtest_win_t w;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    mtest_win_create(&w, argc > 1 ? argv[1] : "allocate", 2 * n * sizeof(int), MPI_INFO_NULL,
                     MPI_COMM_WORLD);
    src = malloc(n * sizeof(int));
    got = malloc(n * sizeof(int));
    sum = calloc(n, sizeof(int));
    mtest_local_store(&w, n * sizeof(int), sum, n * sizeof(int)); /* the ACC half: 0 */
    MPI_Barrier(MPI_COMM_WORLD);

    int right = (me + 1) % nprocs, left = (me + nprocs - 1) % nprocs;
    MPI_Aint put_at = w.disp0[right], acc_at = w.disp0[right] + (MPI_Aint) (n * sizeof(int));
    MPI_CHECK(MPI_Win_lock_all(0, w.win));
    for (int it = 0; it < iters; ++it) {
        MPI_Request req;

        for (size_t i = 0; i < n; ++i) {
            src[i] = (int) (it * 1000003 + me * 7919 + (int) i);
        }
        MPI_CHECK(MPI_Rput(src, (int) n, MPI_INT, right, put_at, (int) n, MPI_INT, w.win, &req));
        MPI_CHECK(MPI_Request_free(&req));
        MTEST_CHECK(MPI_REQUEST_NULL == req, "MPI_Request_free left the handle");
        MPI_CHECK(
            MPI_Raccumulate(src, 4, MPI_INT, right, acc_at, 4, MPI_INT, MPI_SUM, w.win, &req));
        MPI_CHECK(MPI_Request_free(&req));
        MPI_CHECK(MPI_Win_flush(right, w.win));
        MPI_CHECK(MPI_Rget(got, (int) n, MPI_INT, right, put_at, (int) n, MPI_INT, w.win, &req));
        MPI_CHECK(MPI_Request_free(&req));
        MPI_CHECK(MPI_Win_flush(right, w.win));
        for (size_t i = 0; i < n; ++i) {
            if (got[i] != src[i]) {
                mtest_error("iteration %d: element %zu is %d, put %d", it, i, got[i], src[i]);
                break;
            }
        }
        /* the source may be reused only after the flush, which it was */
    }
    MPI_CHECK(MPI_Win_unlock_all(w.win));
    MPI_Barrier(MPI_COMM_WORLD);

    int want[4] = {0, 0, 0, 0}, acc[4];
    for (int it = 0; it < iters; ++it) {
        for (int i = 0; i < 4; ++i) {
            want[i] += it * 1000003 + left * 7919 + i;
        }
    }
    mtest_local_load(&w, n * sizeof(int), acc, sizeof(acc));
    MTEST_CHECK(0 == memcmp(acc, want, sizeof(acc)),
                "accumulated %d %d %d %d, expected %d %d %d %d", acc[0], acc[1], acc[2], acc[3],
                want[0], want[1], want[2], want[3]);
    free(src);
    free(got);
    free(sum);
    mtest_win_free(&w);
    return mtest_finalize();
}
