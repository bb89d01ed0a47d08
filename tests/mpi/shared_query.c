/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * MPI_Win_allocate_shared (argv[1]: "contig" or "noncontig" for the
 * alloc_shared_noncontig info key) and MPI_Win_shared_query: every rank's
 * segment is reachable with plain loads and stores, contiguous segments
 * follow each other, sizes may differ (rank 1 exposes nothing), and
 * MPI_PROC_NULL names the first rank with memory, a rank without memory
 * answers size 0 and a NULL base (noncontiguous layout too).  Data written with stores
 * and read back with MPI_Get in a FENCE epoch must agree.
 */
#include "mtest.h"

int main(int argc, char **argv)
{
    int nprocs, me, noncontig = argc > 1 && 0 == strcmp(argv[1], "noncontig");
    MPI_Info info = MPI_INFO_NULL;
    MPI_Win win;
    int *mine;
    MPI_Aint my_size;

    mtest_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    me = mtest_rank;
    if (noncontig) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_shared_noncontig", "true");
    }
    my_size = (1 == me) ? 0 : (MPI_Aint) (100 + me) * sizeof(int);
    MPI_CHECK(MPI_Win_allocate_shared(my_size, sizeof(int), info, MPI_COMM_WORLD, &mine, &win));
    if (MPI_INFO_NULL != info) {
        MPI_Info_free(&info);
    }
    MPI_CHECK(MPI_Win_fence(0, win));
    for (int i = 0; i < (int) (my_size / sizeof(int)); ++i) {
        mine[i] = me * 10000 + i;
    }
    MPI_CHECK(MPI_Win_fence(0, win));

    char *prev_end = NULL;
    for (int r = 0; r < nprocs; ++r) {
        MPI_Aint size;
        int disp_unit;
        int *base;
        MPI_CHECK(MPI_Win_shared_query(win, r, &size, &disp_unit, &base));
        MPI_Aint expect = (1 == r) ? 0 : (MPI_Aint) (100 + r) * sizeof(int);
        MTEST_CHECK(size == expect, "rank %d size %ld, expected %ld", r, (long) size,
                    (long) expect);
        MTEST_CHECK(disp_unit == sizeof(int), "rank %d disp_unit %d", r, disp_unit);
        MTEST_CHECK(size > 0 || NULL == base, "rank %d exposes nothing, base %p", r, (void *) base);
        if (size > 0) {
            if (!noncontig && NULL != prev_end) {
                MTEST_CHECK((char *) base == prev_end, "rank %d segment not contiguous", r);
            }
            for (int i = 0; i < (int) (size / sizeof(int)); ++i) {
                if (base[i] != r * 10000 + i) {
                    mtest_error("load from rank %d [%d] = %d", r, i, base[i]);
                    break;
                }
            }
            prev_end = (char *) base + size;
        }
    }
    MPI_Aint size;
    int disp_unit, *first, *zero;
    MPI_CHECK(MPI_Win_shared_query(win, MPI_PROC_NULL, &size, &disp_unit, &first));
    MPI_CHECK(MPI_Win_shared_query(win, 0, &size, &disp_unit, &zero));
    MTEST_CHECK(first == zero && size == 100 * sizeof(int), "MPI_PROC_NULL query");

    /* stores by one rank into another's segment, then MPI_Get of them;
     * everyone has finished reading above first */
    MPI_CHECK(MPI_Win_fence(0, win));
    int target = (me + 2) % nprocs, got[4];
    if (1 != target) {
        int *tbase;
        MPI_CHECK(MPI_Win_shared_query(win, target, &size, &disp_unit, &tbase));
        tbase[50 + me] = -me - 1;
    }
    MPI_CHECK(MPI_Win_fence(0, win));
    if (1 != target) {
        MPI_CHECK(MPI_Get(got, 1, MPI_INT, target, 50 + me, 1, MPI_INT, win));
    }
    MPI_CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    if (1 != target) {
        MTEST_CHECK(got[0] == -me - 1, "get of a stored value: %d", got[0]);
    }
    MPI_CHECK(MPI_Win_free(&win));
    return mtest_finalize();
}
