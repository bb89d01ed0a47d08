/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Bad input gets a clear error class through the window's error handler and
 * leaves the window usable: RMA outside an epoch (MPI_ERR_RMA_SYNC), an
 * access past the target window (MPI_ERR_RMA_RANGE), mismatched type
 * signatures, MPI_Win_shared_query on a non-shared window (MPI-4: size 0 and
 * NULL, no error), detach of memory
 * never attached, and an access to unattached memory of a dynamic window.
 * argv[1]: window flavor.
 */
#include "mtest.h"

/* one acceptable class */
#define expect_class(rc, cls, what) mtest_expect_class(rc, cls, cls, what)

int main(int argc, char **argv)
{
    int nprocs, me, right, val = 7, got = -1;
    mtest_win_t w;
    size_t size = 64;

    mtest_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    me = mtest_rank;
    right = (me + 1) % nprocs;
    mtest_win_create(&w, argc > 1 ? argv[1] : "allocate", size, MPI_INFO_NULL, MPI_COMM_WORLD);
    MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN);
    memset(w.base, 0, size);
    MPI_Barrier(MPI_COMM_WORLD);

    /* no epoch yet */
    expect_class(MPI_Put(&val, 1, MPI_INT, right, w.disp0[right], 1, MPI_INT, w.win),
                 MPI_ERR_RMA_SYNC, "put before the first fence");
    expect_class(MPI_Get(&got, 1, MPI_INT, right, w.disp0[right], 1, MPI_INT, w.win),
                 MPI_ERR_RMA_SYNC, "get before the first fence");

    MPI_CHECK(MPI_Win_fence(0, w.win));
    if (MPI_WIN_FLAVOR_DYNAMIC != w.flavor) {
        /* past the end, and straddling the end */
        expect_class(MPI_Put(&val, 1, MPI_INT, right, (MPI_Aint) size, 1, MPI_INT, w.win),
                     MPI_ERR_RMA_RANGE, "put past the window");
        expect_class(MPI_Get(&got, 2, MPI_INT, right, (MPI_Aint) size - 4, 2, MPI_INT, w.win),
                     MPI_ERR_RMA_RANGE, "get straddling the window end");
    } else {
        char elsewhere[16];
        MPI_Aint addr;
        MPI_Get_address(elsewhere, &addr); /* my stack: attached nowhere */
        expect_class(MPI_Put(&val, 1, MPI_INT, right, addr, 1, MPI_INT, w.win), MPI_ERR_RMA_RANGE,
                     "put to unattached memory");
        expect_class(MPI_Get(&got, 1, MPI_INT, me, addr, 1, MPI_INT, w.win), MPI_ERR_RMA_RANGE,
                     "get from my own unattached memory");
        expect_class(MPI_Put(&val, 1, MPI_INT, right, w.disp0[right] + (MPI_Aint) size - 2, 1,
                             MPI_INT, w.win),
                     MPI_ERR_RMA_RANGE, "put straddling an attached region's end");
        expect_class(MPI_Win_detach(w.win, elsewhere), MPI_ERR_RMA_ATTACH,
                     "detach of memory never attached");
    }
    /* type signatures of different sizes */
    expect_class(MPI_Put(&val, 1, MPI_INT, right, w.disp0[right], 1, MPI_DOUBLE, w.win),
                 MPI_ERR_TYPE, "put with mismatched type sizes");
    if (MPI_WIN_FLAVOR_CREATE == w.flavor || MPI_WIN_FLAVOR_DYNAMIC == w.flavor) {
        /* MPI-4: every flavor answers; memory not in a shared segment is
         * size 0 and NULL, my own window memory is mine */
        MPI_Aint qsize;
        int qdisp;
        void *qbase;
        MPI_CHECK(MPI_Win_shared_query(w.win, right, &qsize, &qdisp, &qbase));
        MTEST_CHECK(right == me || (0 == qsize && NULL == qbase),
                    "shared_query of a peer without shared memory: %ld bytes at %p", (long) qsize,
                    qbase);
        MPI_CHECK(MPI_Win_shared_query(w.win, me, &qsize, &qdisp, &qbase));
        if (MPI_WIN_FLAVOR_CREATE == w.flavor) {
            MTEST_CHECK(qbase == (void *) w.base && qsize == (MPI_Aint) size,
                        "shared_query of my own memory: %ld bytes at %p", (long) qsize, qbase);
        } else {
            MTEST_CHECK(0 == qsize && NULL == qbase, "shared_query on a dynamic window");
        }
    }

    /* the window still works: a valid put lands */
    val = 1000 + me;
    MPI_CHECK(MPI_Put(&val, 1, MPI_INT, right, w.disp0[right] + 8, 1, MPI_INT, w.win));
    MPI_CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
    int left = (me + nprocs - 1) % nprocs, landed;
    memcpy(&landed, w.base + 8, sizeof(int));
    MTEST_CHECK(landed == 1000 + left, "valid put after errors: %d, expected %d", landed,
                1000 + left);

    /* NOSUCCEED closed the epoch */
    expect_class(MPI_Put(&val, 1, MPI_INT, right, w.disp0[right], 1, MPI_INT, w.win),
                 MPI_ERR_RMA_SYNC, "put after fence(MPI_MODE_NOSUCCEED)");
    MPI_CHECK(MPI_Win_fence(0, w.win));
    MPI_CHECK(MPI_Get(&got, 1, MPI_INT, left, w.disp0[left] + 8, 1, MPI_INT, w.win));
    MPI_CHECK(MPI_Win_fence(0, w.win));
    MTEST_CHECK(got == 1000 + (left + nprocs - 1) % nprocs, "get after reopening: %d", got);
    mtest_win_free(&w);
    return mtest_finalize();
}
