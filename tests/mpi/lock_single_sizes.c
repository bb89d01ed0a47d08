/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Lock epochs of one operation each, of sizes on both sides of the
 * single-op thresholds (osc_newrma_single_op_threshold, 8 KiB; over TCP
 * osc_newrma_single_op_emulated_threshold, 128 KiB): every rank, at once,
 * locks every other rank in turn (exclusive and shared alternately, so
 * origins queue behind each other) for one PUT, GET, MPI_Accumulate SUM,
 * MPI_Get_accumulate SUM, MPI_NO_OP read or MPI_REPLACE of int64 on its
 * own region of the target's window, and checks every value fetched
 * against a mirror of what its region must hold; each target checks the
 * regions at the end.
 *
 * Then the queued case: rank 0 holds its own exclusive lock until every
 * other rank's single op waits in its queue (its counter lock_waits), then
 * releases it.  With "resent" the window's info lock_data_bytes is 0, so
 * the target keeps no queued operand and every such epoch's data goes again
 * after the grant (counter single_op_resent); otherwise the 4 KiB PUTs stay
 * queued with their data.
 *
 * usage: lock_single_sizes FLAVOR [tcp|ucx|-] [resent]
 * tcp: every epoch of up to 128 KiB must have been one message (counter
 * single_op_epochs), ucx: of up to 8 KiB (UCX on a node: RDMA by the
 * transport); - (the default): no count (the shared-memory path takes the
 * lock word itself).
 */
#include "mtest.h"

#define EMULATED_MAX ((size_t) 131072) /* single_op_emulated_threshold's default */
#define NATIVE_MAX   ((size_t) 8192)   /* single_op_threshold's default */
#define REGION       ((size_t) 262144) /* bytes of a target's window per origin */
#define QUEUED_BYTES ((size_t) 4096)   /* the queued case's PUT */
#define NAMES        3

enum { K_PUT, K_GET, K_ACC, K_GACC, K_READ, K_REPLACE, KINDS };

static const size_t sizes[] = {8, 4096, 8192, 8200, 32768, 131072, 131080, 262144};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static const char *const names[NAMES] = {"osc_newrma_win_single_op_epochs",
                                         "osc_newrma_win_single_op_resent",
                                         "osc_newrma_win_lock_waits"};
static MPI_T_pvar_session session;
static MPI_T_pvar_handle h[NAMES];
static int me, nprocs;

/* What element @p i of origin @p o's region of target @p t holds first. */
static int64_t initial(int t, int o, size_t i)
{
    return (int64_t) t * 1000003 + (int64_t) o * 7919 + (int64_t) i;
}

/* The operand or PUT value of element @p i in epoch @p e. */
static int64_t operand(int e, size_t i)
{
    return (int64_t) e * 131 + (int64_t) (i % 977) - 400;
}

/* One epoch: op @p kind of @p n elements on my region of @p t, whose
 * contents @p mirror follows; old values checked against it. */
static void epoch(mtest_win_t *w, int t, int kind, size_t n, int e, int64_t *mirror, int64_t *src,
                  int64_t *got)
{
    MPI_Aint at = w->disp0[t] + (MPI_Aint) ((size_t) me * REGION);
    int cnt = (int) n;

    for (size_t i = 0; i < n; ++i) {
        src[i] = operand(e, i);
        got[i] = INT64_MIN;
    }
    MPI_CHECK(MPI_Win_lock(e % 2 ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE, t, 0, w->win));
    switch (kind) {
        case K_PUT:
            MPI_CHECK(MPI_Put(src, cnt, MPI_INT64_T, t, at, cnt, MPI_INT64_T, w->win));
            break;
        case K_GET:
            MPI_CHECK(MPI_Get(got, cnt, MPI_INT64_T, t, at, cnt, MPI_INT64_T, w->win));
            break;
        case K_ACC:
            MPI_CHECK(
                MPI_Accumulate(src, cnt, MPI_INT64_T, t, at, cnt, MPI_INT64_T, MPI_SUM, w->win));
            break;
        case K_GACC:
            MPI_CHECK(MPI_Get_accumulate(src, cnt, MPI_INT64_T, got, cnt, MPI_INT64_T, t, at, cnt,
                                         MPI_INT64_T, MPI_SUM, w->win));
            break;
        case K_READ:
            MPI_CHECK(MPI_Get_accumulate(NULL, 0, MPI_INT64_T, got, cnt, MPI_INT64_T, t, at, cnt,
                                         MPI_INT64_T, MPI_NO_OP, w->win));
            break;
        default:
            MPI_CHECK(MPI_Accumulate(src, cnt, MPI_INT64_T, t, at, cnt, MPI_INT64_T, MPI_REPLACE,
                                     w->win));
    }
    MPI_CHECK(MPI_Win_unlock(t, w->win));
    for (size_t i = 0; i < n; ++i) {
        if ((K_GET == kind || K_GACC == kind || K_READ == kind) && got[i] != mirror[i]) {
            MTEST_CHECK(0, "kind %d of %zu bytes on rank %d: element %zu is %lld, not %lld", kind,
                        8 * n, t, i, (long long) got[i], (long long) mirror[i]);
            break;
        }
        if (K_PUT == kind || K_REPLACE == kind) {
            mirror[i] = src[i];
        } else if (K_ACC == kind || K_GACC == kind) {
            mirror[i] += src[i];
        }
    }
}

/* My region of every target through every kind and size; @return the
 * epochs whose op the threshold @p single_max admits. */
static unsigned long long all_epochs(mtest_win_t *w, int64_t **mirror, int64_t *src, int64_t *got,
                                     size_t single_max)
{
    unsigned long long eligible = 0;
    int e = 0;

    for (size_t s = 0; s < NSIZES && mtest_errors < 5; ++s) {
        for (int kind = 0; kind < KINDS; ++kind) {
            for (int k = 1; k < nprocs; ++k) {
                int t = (me + k) % nprocs;

                epoch(w, t, kind, sizes[s] / 8, ++e, mirror[t], src, got);
                eligible += sizes[s] <= single_max;
            }
        }
    }
    return eligible;
}

/* Each target's regions hold what their origins' mirrors say. */
static void check_regions(mtest_win_t *w, int64_t **mirror)
{
    int64_t *region = malloc(REGION);

    for (int o = 0; o < nprocs && NULL != region; ++o) {
        MPI_Request reqs[2];
        int nreq = 0;

        /* each origin sends me its mirror of my region */
        if (o != me) {
            MPI_CHECK(MPI_Irecv(region, (int) (REGION / 8), MPI_INT64_T, o, 7, MPI_COMM_WORLD,
                                &reqs[nreq++]));
        }
        for (int t = 0; t < nprocs; ++t) {
            if (t != me && o == me) {
                MPI_CHECK(
                    MPI_Send(mirror[t], (int) (REGION / 8), MPI_INT64_T, t, 7, MPI_COMM_WORLD));
            }
        }
        if (o == me) {
            continue;
        }
        MPI_CHECK(MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE));
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w->win));
        for (size_t i = 0; i < REGION / 8; ++i) {
            int64_t v;

            memcpy(&v, w->base + (size_t) o * REGION + 8 * i, 8);
            if (v != region[i]) {
                MTEST_CHECK(0, "region of rank %d: element %zu is %lld, not %lld", o, i,
                            (long long) v, (long long) region[i]);
                break;
            }
        }
        MPI_CHECK(MPI_Win_unlock(me, w->win));
    }
    free(region);
}

/* Rank 0 holds its own lock until the others' single ops wait for it. */
static void queued(mtest_win_t *w)
{
    int64_t *src = malloc(QUEUED_BYTES);
    int cnt = (int) (QUEUED_BYTES / 8);

    for (int i = 0; i < cnt; ++i) {
        src[i] = 5 * (int64_t) i + me;
    }
    if (0 == me) {
        unsigned long long start;
        int flag;

        MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w->win));
        start = mtest_pvar_read(session, h[2]);
        MPI_Barrier(MPI_COMM_WORLD);
        while (mtest_pvar_read(session, h[2]) - start < (unsigned long long) (nprocs - 1)) {
            MPI_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        }
        MPI_CHECK(MPI_Win_unlock(0, w->win));
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w->win));
        MPI_CHECK(MPI_Put(src, cnt, MPI_INT64_T, 0,
                          w->disp0[0] + (MPI_Aint) ((size_t) me * REGION + REGION - QUEUED_BYTES),
                          cnt, MPI_INT64_T, w->win));
        MPI_CHECK(MPI_Win_unlock(0, w->win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int o = 1; 0 == me && o < nprocs; ++o) {
        int64_t *at = (int64_t *) (w->base + (size_t) o * REGION + REGION - QUEUED_BYTES);

        for (int i = 0; i < cnt; ++i) {
            if (at[i] != 5 * (int64_t) i + o) {
                MTEST_CHECK(0, "queued PUT of rank %d: element %d is %lld", o, i,
                            (long long) at[i]);
                break;
            }
        }
    }
    free(src);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 2 ? argv[2] : "-";
    int resent = argc > 3 && 0 == strcmp(argv[3], "resent"), provided;
    size_t single_max = 0 == strcmp(mode, "tcp")   ? EMULATED_MAX
                        : 0 == strcmp(mode, "ucx") ? NATIVE_MAX
                                                   : 0;
    unsigned long long eligible, counted[2], all[2], mine[2];
    int64_t **mirror, *src, *got;
    mtest_win_t w;
    MPI_Info info = MPI_INFO_NULL;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_T_pvar_session_create(&session);
    if (resent) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "lock_data_bytes", "0");
    }
    mtest_win_create(&w, argc > 1 ? argv[1] : "allocate", (size_t) nprocs * REGION, info,
                     MPI_COMM_WORLD);
    mtest_pvars_bind(session, names, NAMES, &w.win, h);
    mirror = calloc((size_t) nprocs, sizeof(*mirror));
    src = malloc(REGION);
    got = malloc(REGION);
    for (int t = 0; t < nprocs; ++t) {
        mirror[t] = malloc(REGION);
        for (size_t i = 0; i < REGION / 8; ++i) {
            int64_t mine_v = initial(me, t, i);

            mirror[t][i] = initial(t, me, i);
            memcpy(w.base + (size_t) t * REGION + 8 * i, &mine_v, 8);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    eligible = all_epochs(&w, mirror, src, got, single_max);
    MPI_Barrier(MPI_COMM_WORLD);
    check_regions(&w, mirror);
    counted[0] = mtest_pvar_read(session, h[0]);
    counted[1] = mtest_pvar_read(session, h[1]);
    MTEST_CHECK(0 == single_max || counted[0] == eligible,
                "%llu lock epochs were one message, expected %llu", counted[0], eligible);
    MPI_Barrier(MPI_COMM_WORLD);
    /* where the single op is a packet: on the shared-memory path origins
     * wait on the lock word itself and the target counts no waiter */
    if (0 != single_max) {
        queued(&w);
        mine[0] = mtest_pvar_read(session, h[0]) - counted[0];
        mine[1] = mtest_pvar_read(session, h[1]) - counted[1];
        MPI_CHECK(MPI_Reduce(mine, all, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
        MTEST_CHECK(0 != me || all[0] == (unsigned long long) (nprocs - 1),
                    "%llu queued epochs were one message, expected %d", all[0], nprocs - 1);
        MTEST_CHECK(0 != me || all[1] == (resent ? (unsigned long long) (nprocs - 1) : 0),
                    "%llu queued epochs sent their data again, expected %d", all[1],
                    resent ? nprocs - 1 : 0);
    }
    for (int i = 0; i < NAMES; ++i) {
        MPI_T_pvar_handle_free(session, &h[i]);
    }
    MPI_T_pvar_session_free(&session);
    mtest_win_free(&w);
    if (MPI_INFO_NULL != info) {
        MPI_Info_free(&info);
    }
    for (int t = 0; t < nprocs; ++t) {
        free(mirror[t]);
    }
    free(mirror);
    free(src);
    free(got);
    MPI_T_finalize();
    return mtest_finalize();
}
