/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * A fence orders a node-local origin's accesses of the next epoch after
 * another node's accesses of the epoch it ends (argv[1]: window flavor;
 * argv[2]: rounds, default 1000).  Run with simulated nodes of 2 ranks
 * (the mixed variants) at 3 or 4 ranks: rank 1 is the target, rank 0 its
 * node-local peer, the last rank on another node.  Each round the far rank
 * PUTs its round's value into a region of rank 1 (contiguous or strided
 * blocks), a fence ends that epoch and opens the next, in which rank 0
 * accesses the same region: a PUT or an MPI_REPLACE of its own value (the
 * region must hold it after the next fence) or a GET or an MPI_NO_OP read
 * (they must see the far rank's value).  Rank 0's accesses are of the size
 * the cross-memory copy takes (osc_newrma_cma_bytes 1 KiB here): a copy
 * made before rank 1 had applied the far rank's packets let the far PUT
 * land over rank 0's (seeded randomized tester, create window, 3 ranks
 * over TCP), or read what was there before it.
 */
#include "mtest.h"

#define INTS      2048 /* the region: 8 KiB */
#define REGION_AT 16   /* its first byte in rank 1's window */
#define WIN_INTS  (INTS + 64)
#define FAR(r)    (2000000 + (r)) /* the far rank's value of round r */
#define NEAR(r)   (1000000 + (r)) /* rank 0's */

enum { NEAR_PUT, NEAR_REPLACE, NEAR_GET, NEAR_NOOP, NEAR_KINDS };

static const char *const kind_names[] = {"PUT", "MPI_REPLACE", "GET", "MPI_NO_OP read"};

/* The far rank's access of round @p r: every int of the region, or 3 of
 * every 5 (rounds of odd number). */
static void far_put(mtest_win_t *w, MPI_Datatype strided, int32_t *src, int r)
{
    for (int i = 0; i < INTS; ++i) {
        src[i] = FAR(r);
    }
    if (r % 2) {
        MPI_CHECK(MPI_Put(src, INTS / 5 * 3, MPI_INT32_T, 1, w->disp0[1] + REGION_AT, 1, strided,
                          w->win));
    } else {
        MPI_CHECK(
            MPI_Put(src, INTS, MPI_INT32_T, 1, w->disp0[1] + REGION_AT, INTS, MPI_INT32_T, w->win));
    }
}

/* Rank 0's access of round @p r, over the whole region. */
static void near_access(mtest_win_t *w, int kind, int32_t *buf, int r)
{
    MPI_Aint disp = w->disp0[1] + REGION_AT;

    if (NEAR_PUT == kind || NEAR_REPLACE == kind) {
        for (int i = 0; i < INTS; ++i) {
            buf[i] = NEAR(r);
        }
    } else {
        memset(buf, 0xAB, INTS * sizeof(int32_t));
    }
    switch (kind) {
        case NEAR_PUT:
            MPI_CHECK(MPI_Put(buf, INTS, MPI_INT32_T, 1, disp, INTS, MPI_INT32_T, w->win));
            break;
        case NEAR_REPLACE:
            MPI_CHECK(MPI_Accumulate(buf, INTS, MPI_INT32_T, 1, disp, INTS, MPI_INT32_T,
                                     MPI_REPLACE, w->win));
            break;
        case NEAR_GET:
            MPI_CHECK(MPI_Get(buf, INTS, MPI_INT32_T, 1, disp, INTS, MPI_INT32_T, w->win));
            break;
        default:
            MPI_CHECK(MPI_Get_accumulate(NULL, 0, MPI_INT32_T, buf, INTS, MPI_INT32_T, 1, disp,
                                         INTS, MPI_INT32_T, MPI_NO_OP, w->win));
            break;
    }
}

/* Int @p i of the region as the far rank's PUT of round @p r left it:
 * its strided blocks leave rank 0's value of the round before (@p r odd)
 * in their gaps and after their last block. */
static int32_t far_value(int i, int r)
{
    if (r % 2 && (i % 5 >= 3 || i >= INTS / 5 * 5)) {
        return NEAR(r - 1);
    }
    return FAR(r);
}

int main(int argc, char **argv)
{
    int rounds = argc > 2 ? atoi(argv[2]) : 1000, n, me;
    MPI_Datatype strided;
    mtest_win_t w;
    int32_t *buf, *region;

    setenv("OMPI_MCA_osc_newrma_cma_bytes", "1024", 0);
    mtest_init(&argc, &argv);
    if (argc < 2) {
        fprintf(stderr, "usage: fence_cross_node FLAVOR [ROUNDS]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (n < 3) {
        fprintf(stderr, "fence_cross_node needs 3 ranks or more\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    mtest_win_create(&w, argv[1], WIN_INTS * sizeof(int32_t), MPI_INFO_NULL, MPI_COMM_WORLD);
    memset(w.base, 0, WIN_INTS * sizeof(int32_t));
    region = (int32_t *) ((char *) w.base + REGION_AT);
    MPI_CHECK(MPI_Type_vector(INTS / 5, 3, 5, MPI_INT32_T, &strided));
    MPI_CHECK(MPI_Type_commit(&strided));
    buf = malloc(INTS * sizeof(int32_t));
    MPI_CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, w.win));
    for (int r = 0; r < rounds; ++r) { /* every rank every round: fences are collective */
        int kind = (r / 2) % NEAR_KINDS, reads = NEAR_GET == kind || NEAR_NOOP == kind;

        if (n - 1 == me) {
            far_put(&w, strided, buf, r);
        }
        MPI_CHECK(MPI_Win_fence(0, w.win));
        if (0 == me) {
            near_access(&w, kind, buf, r);
        }
        MPI_CHECK(MPI_Win_fence(0, w.win));
        for (int i = 0; 0 == me && reads && i < INTS; ++i) {
            MTEST_CHECK(buf[i] == far_value(i, r), "round %d: %s of int %d saw %d, not %d", r,
                        kind_names[kind], i, buf[i], far_value(i, r));
        }
        if (!reads) {
            /* rank 1's region holds rank 0's value: the next round's far
             * PUT leaves it in the gaps of its strided blocks */
            for (int i = 0; 1 == me && i < INTS; ++i) {
                MTEST_CHECK(region[i] == NEAR(r), "round %d: after rank 0's %s int %d is %d", r,
                            kind_names[kind], i, region[i]);
            }
        } else if (1 == me) {
            /* rank 0 read: leave its value there as a PUT would have */
            for (int i = 0; i < INTS; ++i) {
                region[i] = NEAR(r);
            }
        }
        MPI_CHECK(MPI_Win_fence(0, w.win));
    }
    MPI_CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
    MPI_Type_free(&strided);
    free(buf);
    mtest_win_free(&w);
    return mtest_finalize();
}
