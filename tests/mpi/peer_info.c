/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Window creation exchanges nothing per peer: the first access to a peer
 * asks it for its window (base, size, displacement unit, rkey), once per
 * peer touched (MPI_T: osc_newrma_win_peer_queries), and the origin checks
 * ranges against what the peer answered.  Every rank's window has its own
 * size and displacement unit; each rank accesses its right-hand neighbour:
 * the last element in range lands, the first past it fails with
 * MPI_ERR_RMA_RANGE, later epochs and accesses to myself ask nobody, and a
 * peer reached with loads and stores is never asked.  A second window's very
 * first access is out of range and fails too.  argv[1]: create or allocate.
 */
#include <inttypes.h>

#include "mtest.h"

static MPI_T_pvar_session session;

static int pvar_index(const char *name)
{
    int num, idx = -1;

    MPI_T_pvar_get_num(&num);
    for (int i = 0; i < num && idx < 0; ++i) {
        int name_len = 128, desc_len = 0, verbosity, cls, bind, readonly, continuous, atomic;
        char found[128];
        MPI_Datatype dt;
        MPI_T_enum et;

        if (MPI_SUCCESS == MPI_T_pvar_get_info(i, found, &name_len, &verbosity, &cls, &dt, &et,
                                               NULL, &desc_len, &bind, &readonly, &continuous,
                                               &atomic) &&
            0 == strcmp(found, name)) {
            idx = i;
        }
    }
    MTEST_CHECK(idx >= 0, "performance variable %s not found", name);
    return idx;
}

typedef struct {
    MPI_Win win;
    int64_t *base;
    MPI_T_pvar_handle queries, direct;
} pwin_t;

/* Elements and displacement unit of rank @p r's window: all different. */
static int elems_of(int r)
{
    return 10 + 3 * r;
}

static int unit_of(int r)
{
    return 8 * (r % 3 + 1);
}

static void pwin_open(pwin_t *w, const char *flavor)
{
    MPI_Aint bytes = (MPI_Aint) elems_of(mtest_rank) * unit_of(mtest_rank);
    int count;

    if (0 == strcmp(flavor, "create")) {
        w->base = calloc(1, (size_t) bytes);
        MPI_CHECK(MPI_Win_create(w->base, bytes, unit_of(mtest_rank), MPI_INFO_NULL, MPI_COMM_WORLD,
                                 &w->win));
    } else {
        MPI_CHECK(MPI_Win_allocate(bytes, unit_of(mtest_rank), MPI_INFO_NULL, MPI_COMM_WORLD,
                                   &w->base, &w->win));
        memset(w->base, 0, (size_t) bytes);
    }
    MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN);
    MPI_CHECK(MPI_T_pvar_handle_alloc(session, pvar_index("osc_newrma_win_peer_queries"), &w->win,
                                      &w->queries, &count));
    MPI_CHECK(MPI_T_pvar_handle_alloc(session, pvar_index("osc_newrma_win_ops_direct"), &w->win,
                                      &w->direct, &count));
    MPI_Barrier(MPI_COMM_WORLD); /* zeroed everywhere before any access */
}

static void pwin_close(pwin_t *w, const char *flavor)
{
    MPI_CHECK(MPI_T_pvar_handle_free(session, &w->queries));
    MPI_CHECK(MPI_T_pvar_handle_free(session, &w->direct));
    MPI_CHECK(MPI_Win_free(&w->win));
    if (0 == strcmp(flavor, "create")) {
        free(w->base);
    }
}

static unsigned long long pvar(MPI_T_pvar_handle h)
{
    unsigned long long v = 0;

    MPI_CHECK(MPI_T_pvar_read(session, h, &v));
    return v;
}

/* Rank @p r's last displacement, as bytes from its window's start. */
static int64_t *last_of(pwin_t *w, int r)
{
    return (int64_t *) ((char *) w->base + (size_t) (elems_of(r) - 1) * (size_t) unit_of(r));
}

/* One epoch toward @p right: its last displacement, then one past it. */
static void epoch_right(pwin_t *w, int right, int64_t value)
{
    MPI_CHECK(MPI_Win_lock_all(0, w->win));
    MPI_CHECK(MPI_Put(&value, 1, MPI_INT64_T, right, elems_of(right) - 1, 1, MPI_INT64_T, w->win));
    mtest_expect_class(
        MPI_Put(&value, 1, MPI_INT64_T, right, elems_of(right), 1, MPI_INT64_T, w->win),
        MPI_ERR_RMA_RANGE, MPI_ERR_RMA_RANGE, "put one unit past the window");
    MPI_CHECK(MPI_Win_unlock_all(w->win));
}

int main(int argc, char **argv)
{
    const char *flavor = argc > 1 ? argv[1] : "create";
    int nprocs, right, left, provided;
    unsigned long long q0, d0, q1, d1, expect;
    pwin_t w, w2;

    mtest_init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_CHECK(MPI_T_pvar_session_create(&session));
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    right = (mtest_rank + 1) % nprocs;
    left = (mtest_rank + nprocs - 1) % nprocs;

    pwin_open(&w, flavor);
    q0 = pvar(w.queries);
    d0 = pvar(w.direct);
    MTEST_CHECK(0 == q0, "%llu peer queries at creation", q0);
    epoch_right(&w, right, 1000 + mtest_rank);
    q1 = pvar(w.queries);
    d1 = pvar(w.direct);
    /* a peer reached with loads and stores (or myself, at one rank) is never asked */
    expect = (d1 > d0 || right == mtest_rank) ? 0 : 1;
    MTEST_CHECK(q1 - q0 == expect, "first epoch toward %d: %llu peer queries, expected %llu", right,
                q1 - q0, expect);
    epoch_right(&w, right, 1000 + mtest_rank);
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, mtest_rank, 0, w.win));
    int64_t mine = -1;
    MPI_CHECK(MPI_Put(&mine, 1, MPI_INT64_T, mtest_rank, 0, 1, MPI_INT64_T, w.win));
    MPI_CHECK(MPI_Win_unlock(mtest_rank, w.win));
    MTEST_CHECK(pvar(w.queries) == q1, "later epochs asked again: %llu peer queries",
                pvar(w.queries));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, mtest_rank, 0, w.win));
    MTEST_CHECK(*last_of(&w, mtest_rank) == 1000 + left, "last element %" PRId64 ", expected %d",
                *last_of(&w, mtest_rank), 1000 + left);
    MTEST_CHECK(w.base[0] == -1, "my own element %" PRId64, w.base[0]);
    MPI_CHECK(MPI_Win_unlock(mtest_rank, w.win));

    /* a new window: its first access to the peer is out of range */
    pwin_open(&w2, flavor);
    MPI_CHECK(MPI_Win_lock_all(0, w2.win));
    int64_t value = 7;
    mtest_expect_class(
        MPI_Put(&value, 1, MPI_INT64_T, right, elems_of(right) + 5, 1, MPI_INT64_T, w2.win),
        MPI_ERR_RMA_RANGE, MPI_ERR_RMA_RANGE, "first access past the window");
    MPI_CHECK(MPI_Put(&value, 1, MPI_INT64_T, right, 0, 1, MPI_INT64_T, w2.win));
    MPI_CHECK(MPI_Win_unlock_all(w2.win));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, mtest_rank, 0, w2.win));
    MTEST_CHECK(w2.base[0] == 7, "second window: element 0 is %" PRId64, w2.base[0]);
    MPI_CHECK(MPI_Win_unlock(mtest_rank, w2.win));

    pwin_close(&w2, flavor);
    pwin_close(&w, flavor);
    MPI_CHECK(MPI_T_pvar_session_free(&session));
    MPI_T_finalize();
    return mtest_finalize();
}
