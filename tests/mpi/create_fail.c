/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * A window creation that fails on one rank fails on every rank, from the
 * same call, and nobody hangs: the last rank asks MPI_Win_allocate for more
 * memory than the machine has (1 PiB: the shared segment or the private
 * allocation fails) or passes an info value the component rejects.  Open
 * MPI reports a failed creation as MPI_ERR_WIN.  Afterwards every rank
 * creates a working window with the same communicator and moves data
 * through it.
 *
 * Modes module and address inject, on the last rank only, a failure the
 * machine cannot be made to produce on demand (osc_newrma_test_fail_create):
 * the component cannot allocate its module, or cannot record a peer's UCX
 * worker address (the first creation of a process that sends addresses:
 * not a window wholly in a shared segment).  Injected once, so one round.
 *
 * usage: create_fail FLAVOR MODE   (FLAVOR: allocate | create | dynamic;
 *                                   MODE: huge (allocate only) | info |
 *                                   module | address)
 */
#include "mtest.h"

static int try_create(const char *flavor, MPI_Aint size, MPI_Info info, char *mem, MPI_Win *win)
{
    void *base = NULL;

    if (0 == strcmp(flavor, "allocate")) {
        return MPI_Win_allocate(size, 1, info, MPI_COMM_WORLD, &base, win);
    }
    if (0 == strcmp(flavor, "dynamic")) {
        return MPI_Win_create_dynamic(info, MPI_COMM_WORLD, win);
    }
    return MPI_Win_create(mem, size, 1, info, MPI_COMM_WORLD, win);
}

static void check_working_window(int me, int nprocs)
{
    MPI_Win win;
    int *base, got = -1;

    MPI_CHECK(
        MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    *base = -1;
    MPI_CHECK(MPI_Win_fence(0, win));
    MPI_CHECK(MPI_Put(&me, 1, MPI_INT, (me + 1) % nprocs, 0, 1, MPI_INT, win));
    MPI_CHECK(MPI_Win_fence(0, win));
    got = *base;
    MTEST_CHECK(got == (me + nprocs - 1) % nprocs, "working window holds %d", got);
    MPI_CHECK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    const char *flavor = argc > 1 ? argv[1] : "allocate", *mode = argc > 2 ? argv[2] : "huge";
    int me, nprocs, rc, failed, all_failed = 0, cls;
    char mem[4096];
    MPI_Info info = MPI_INFO_NULL;
    MPI_Aint size = sizeof(mem);
    MPI_Win win = MPI_WIN_NULL;

    int rounds = 3;
    const char *world_rank = getenv("OMPI_COMM_WORLD_RANK");
    const char *world_size = getenv("OMPI_COMM_WORLD_SIZE");

    /* before MPI_Init, which reads the component's variables */
    if (0 == strcmp(mode, "module") || 0 == strcmp(mode, "address")) {
        rounds = 1;
        if (NULL != world_rank && NULL != world_size && atoi(world_rank) == atoi(world_size) - 1) {
            setenv("OMPI_MCA_osc_newrma_test_fail_create", 'm' == mode[0] ? "1" : "2", 1);
        }
    }
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (me == nprocs - 1 && 0 == strcmp(mode, "huge")) {
        size = (MPI_Aint) 1 << 50;
    } else if (me == nprocs - 1 && 0 == strcmp(mode, "info")) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "op_win_pool_size", "many");
    }
    for (int round = 0; round < rounds; ++round) {
        rc = try_create(flavor, size, info, mem, &win);
        failed = MPI_SUCCESS != rc;
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(failed, "round %d: creation succeeded", round);
        MTEST_CHECK(!failed || MPI_WIN_NULL == win, "round %d: a failed creation left a window",
                    round);
        MTEST_CHECK(!failed || MPI_ERR_WIN == cls, "round %d: error class %d", round, cls);
        if (!failed) {
            MPI_Win_free(&win);
        }
        /* a rank still inside the creation would hang this */
        MPI_Allreduce(&failed, &all_failed, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        MTEST_CHECK(all_failed, "round %d: not every rank saw the failure", round);
    }
    if (MPI_INFO_NULL != info) {
        MPI_Info_free(&info);
    }
    check_working_window(me, nprocs);
    return mtest_finalize();
}
