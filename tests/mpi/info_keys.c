/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Window info keys of the same name override osc/newrma's MCA variables for
 * that window only: a window with slots=1, op_win_pool_size=1,
 * target_win_pool_size=1, piggyback_threshold=0 and shm=false must still
 * move every PUT/GET right, next to a default window.  (tests/sh/info_keys.sh
 * checks in the verbose output that the settings took effect.)
 */
#include "mtest.h"

static void exercise(mtest_win_t *w, int nprocs, int tag)
{
    int n = 64, *src = malloc(sizeof(int) * n * nprocs), *got = malloc(sizeof(int) * n * nprocs);

    for (int i = 0; i < n * nprocs; ++i)
        src[i] = tag * 1000000 + mtest_rank * 1000 + i;
    MPI_CHECK(MPI_Win_fence(0, w->win));
    for (int t = 0; t < nprocs; ++t) {
        MPI_CHECK(MPI_Put(src + t * n, n, MPI_INT, t, w->disp0[t] + mtest_rank * n * 4, n, MPI_INT,
                          w->win));
    }
    MPI_CHECK(MPI_Win_fence(0, w->win));
    for (int t = 0; t < nprocs; ++t) {
        MPI_CHECK(MPI_Get(got + t * n, n, MPI_INT, t, w->disp0[t] + mtest_rank * n * 4, n, MPI_INT,
                          w->win));
    }
    MPI_CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w->win));
    for (int o = 0; o < nprocs; ++o) {
        for (int i = 0; i < n; ++i) {
            int *mine = (int *) w->base;
            MTEST_CHECK(mine[o * n + i] == tag * 1000000 + o * 1000 + mtest_rank * n + i,
                        "window %d: slot of %d [%d] = %d", tag, o, i, mine[o * n + i]);
            MTEST_CHECK(got[o * n + i] == src[o * n + i], "window %d: get from %d [%d] = %d", tag,
                        o, i, got[o * n + i]);
        }
    }
    free(src);
    free(got);
}

int main(int argc, char **argv)
{
    int nprocs;
    MPI_Info info;
    mtest_win_t tuned, plain;

    mtest_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Info_create(&info);
    MPI_Info_set(info, "slots", "1");
    MPI_Info_set(info, "op_win_pool_size", "1");
    MPI_Info_set(info, "target_win_pool_size", "1");
    MPI_Info_set(info, "piggyback_threshold", "0");
    MPI_Info_set(info, "shm", "false");
    mtest_win_create(&tuned, "allocate", (size_t) nprocs * 64 * 4, info, MPI_COMM_WORLD);
    MPI_Info_free(&info);
    mtest_win_create(&plain, "allocate", (size_t) nprocs * 64 * 4, MPI_INFO_NULL, MPI_COMM_WORLD);
    exercise(&tuned, nprocs, 1);
    exercise(&plain, nprocs, 2);
    mtest_win_free(&tuned);
    mtest_win_free(&plain);
    return mtest_finalize();
}
