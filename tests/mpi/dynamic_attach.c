/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * MPI_Win_create_dynamic with many attached regions (far more than any
 * fixed table would hold), PUT/GET into each in FENCE epochs, then detach
 * half of them and re-attach new memory: accesses go to the right place and
 * a detached region is no longer reachable (MPI_ERR_RMA_RANGE).
 */
#include "mtest.h"

#define NREGIONS    300
#define REGION_INTS 16

int main(int argc, char **argv)
{
    int nprocs, me, right, left;
    MPI_Win win;
    int *regions[NREGIONS];
    MPI_Aint mine[NREGIONS], *theirs;

    mtest_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    me = mtest_rank;
    right = (me + 1) % nprocs;
    left = (me + nprocs - 1) % nprocs;
    theirs = malloc(sizeof(MPI_Aint) * NREGIONS * nprocs);
    MPI_CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (int i = 0; i < NREGIONS; ++i) {
        regions[i] = malloc(REGION_INTS * sizeof(int));
        for (int j = 0; j < REGION_INTS; ++j)
            regions[i][j] = -1;
        MPI_CHECK(MPI_Win_attach(win, regions[i], REGION_INTS * sizeof(int)));
        MPI_Get_address(regions[i], &mine[i]);
    }
    MPI_Allgather(mine, NREGIONS, MPI_AINT, theirs, NREGIONS, MPI_AINT, MPI_COMM_WORLD);

    int *vals = malloc(sizeof(int) * NREGIONS), *got = malloc(sizeof(int) * NREGIONS);
    MPI_CHECK(MPI_Win_fence(0, win));
    for (int i = 0; i < NREGIONS; ++i) {
        vals[i] = me * 100000 + i;
        MPI_CHECK(MPI_Put(&vals[i], 1, MPI_INT, right,
                          theirs[right * NREGIONS + i] + 4 * (i % REGION_INTS), 1, MPI_INT, win));
    }
    MPI_CHECK(MPI_Win_fence(0, win));
    for (int i = 0; i < NREGIONS; ++i) {
        MTEST_CHECK(regions[i][i % REGION_INTS] == left * 100000 + i, "region %d holds %d", i,
                    regions[i][i % REGION_INTS]);
        MPI_CHECK(MPI_Get(&got[i], 1, MPI_INT, left,
                          theirs[left * NREGIONS + i] + 4 * (i % REGION_INTS), 1, MPI_INT, win));
    }
    MPI_CHECK(MPI_Win_fence(0, win));
    for (int i = 0; i < NREGIONS; ++i) {
        int expect = ((left + nprocs - 1) % nprocs) * 100000 + i;
        MTEST_CHECK(got[i] == expect, "get from region %d: %d, expected %d", i, got[i], expect);
    }

    /* detach the even regions; attach fresh memory in their place */
    int *fresh[NREGIONS / 2];
    MPI_Aint fresh_mine[NREGIONS / 2],
        *fresh_theirs = malloc(sizeof(MPI_Aint) * NREGIONS / 2 * nprocs);
    for (int i = 0; i < NREGIONS; i += 2) {
        MPI_CHECK(MPI_Win_detach(win, regions[i]));
    }
    for (int i = 0; i < NREGIONS / 2; ++i) {
        fresh[i] = calloc(REGION_INTS, sizeof(int));
        MPI_CHECK(MPI_Win_attach(win, fresh[i], REGION_INTS * sizeof(int)));
        MPI_Get_address(fresh[i], &fresh_mine[i]);
    }
    MPI_Allgather(fresh_mine, NREGIONS / 2, MPI_AINT, fresh_theirs, NREGIONS / 2, MPI_AINT,
                  MPI_COMM_WORLD);
    MPI_CHECK(MPI_Win_fence(0, win));
    for (int i = 0; i < NREGIONS / 2; ++i) {
        MPI_CHECK(MPI_Put(&vals[i], 1, MPI_INT, right, fresh_theirs[right * NREGIONS / 2 + i], 1,
                          MPI_INT, win));
    }
    /* a detached region (not overlapped by fresh memory) is out of range */
    int bad = MPI_SUCCESS, cls = MPI_SUCCESS;
    for (int i = 0; i < NREGIONS && MPI_SUCCESS == bad; i += 2) {
        MPI_Aint a = theirs[right * NREGIONS + i];
        int overlaps = 0;
        for (int j = 0; j < NREGIONS / 2; ++j) {
            MPI_Aint f = fresh_theirs[right * NREGIONS / 2 + j];
            overlaps |= (a < f + REGION_INTS * 4 && f < a + REGION_INTS * 4);
        }
        if (!overlaps) {
            bad = MPI_Put(&vals[0], 1, MPI_INT, right, a, 1, MPI_INT, win);
            if (MPI_SUCCESS == bad) {
                bad = -1; /* report below */
                break;
            }
        }
    }
    if (MPI_SUCCESS != bad && -1 != bad)
        MPI_Error_class(bad, &cls);
    MTEST_CHECK(MPI_ERR_RMA_RANGE == cls || MPI_SUCCESS == bad,
                "put to a detached region: class %d", cls);
    MTEST_CHECK(-1 != bad, "put to a detached region succeeded");
    MPI_CHECK(MPI_Win_fence(0, win));
    for (int i = 0; i < NREGIONS / 2; ++i) {
        MTEST_CHECK(fresh[i][0] == left * 100000 + i, "fresh region %d holds %d", i, fresh[i][0]);
    }

    for (int i = 1; i < NREGIONS; i += 2)
        MPI_CHECK(MPI_Win_detach(win, regions[i]));
    for (int i = 0; i < NREGIONS / 2; ++i)
        MPI_CHECK(MPI_Win_detach(win, fresh[i]));
    MPI_CHECK(MPI_Win_free(&win));
    for (int i = 0; i < NREGIONS; ++i)
        free(regions[i]);
    for (int i = 0; i < NREGIONS / 2; ++i)
        free(fresh[i]);
    free(theirs);
    free(fresh_theirs);
    free(vals);
    free(got);
    return mtest_finalize();
}
