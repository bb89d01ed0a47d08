/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma's MPI_T performance variables count what was done: a lock_all
 * epoch of PUT, GET, ACCUMULATE, FETCH_AND_OP and COMPARE_AND_SWAP to the
 * next rank, then single-op lock epochs, read through handles bound to the
 * window (osc_newrma_win_*) and process-wide (osc_newrma_*); the process
 * counters keep a freed window's counts; a PUT and a GET of 32 bytes in a
 * strided target layout go as packets where they do not go direct.  The
 * data is checked.
 */
#include "mtest.h"

#define NPUT     50
#define NGET     20
#define NACC     10
#define NFOP     5
#define NCAS     3
#define NSINGLE  5
#define NLATER   7
#define NSTRIDED 4
#define PUT_AT   400
#define GET_AT   420

enum { DIRECT, RDMA, PACKET, ATOMIC, PUT, GET, ACC, GACC, CAS, BYTES, SINGLE, MESSAGES, NSTAT };
static const char *const names[NSTAT] = {
    "ops_direct", "ops_rdma",    "ops_packet", "ops_atomic", "ops_put",          "ops_get",
    "ops_acc",    "ops_get_acc", "ops_cas",    "bytes",      "single_op_epochs", "messages"};

static MPI_T_pvar_session session;
static MPI_T_pvar_handle win_h[NSTAT], proc_h[NSTAT];

static int find_pvar(const char *name, int want_bind)
{
    int num, bind, verbosity, cls, readonly, continuous, atomic, name_len, desc_len;
    char found[256], desc[1024];
    MPI_Datatype dt;
    MPI_T_enum et;

    MPI_T_pvar_get_num(&num);
    for (int i = 0; i < num; ++i) {
        name_len = sizeof(found);
        desc_len = sizeof(desc);
        if (MPI_SUCCESS != MPI_T_pvar_get_info(i, found, &name_len, &verbosity, &cls, &dt, &et,
                                               desc, &desc_len, &bind, &readonly, &continuous,
                                               &atomic)) {
            continue;
        }
        if (0 == strcmp(found, name)) {
            MTEST_CHECK(bind == want_bind, "%s: bind %d, expected %d", name, bind, want_bind);
            MTEST_CHECK(dt == MPI_UNSIGNED_LONG_LONG, "%s: not unsigned long long", name);
            return i;
        }
    }
    mtest_error("performance variable %s not found", name);
    return -1;
}

static void alloc_handles(MPI_Win *win)
{
    char name[128];
    int count;

    for (int s = 0; s < NSTAT; ++s) {
        int wi, pi;
        snprintf(name, sizeof(name), "osc_newrma_win_%s", names[s]);
        wi = find_pvar(name, MPI_T_BIND_MPI_WIN);
        snprintf(name, sizeof(name), "osc_newrma_%s", names[s]);
        pi = find_pvar(name, MPI_T_BIND_NO_OBJECT);
        if (wi < 0 || pi < 0) {
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_CHECK(MPI_T_pvar_handle_alloc(session, wi, win, &win_h[s], &count));
        MTEST_CHECK(1 == count, "%s: count %d", names[s], count);
        MPI_CHECK(MPI_T_pvar_handle_alloc(session, pi, NULL, &proc_h[s], &count));
    }
}

static void read_all(MPI_T_pvar_handle *h, unsigned long long *v)
{
    for (int s = 0; s < NSTAT; ++s) {
        MPI_CHECK(MPI_T_pvar_read(session, h[s], &v[s]));
    }
}

/* The lock_all epoch: counted by kind, paths adding up to the total. */
static void epoch_ops(MPI_Win win, int64_t *base, int next, int nprocs)
{
    unsigned long long v[NSTAT], paths;
    int64_t one = 1, vals[NPUT], got[NGET], old[NFOP], cmp = -1, res[NCAS];

    MPI_CHECK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < NPUT; ++i) { /* origin buffers stay untouched until the flush */
        vals[i] = 1000 * mtest_rank + i;
        MPI_CHECK(MPI_Put(&vals[i], 1, MPI_INT64_T, next, i, 1, MPI_INT64_T, win));
    }
    MPI_CHECK(MPI_Win_flush(next, win));
    for (int i = 0; i < NGET; ++i) {
        MPI_CHECK(MPI_Get(&got[i], 1, MPI_INT64_T, next, 100 + i, 1, MPI_INT64_T, win));
    }
    for (int i = 0; i < NACC; ++i) {
        MPI_CHECK(MPI_Accumulate(&one, 1, MPI_INT64_T, next, 200, 1, MPI_INT64_T, MPI_SUM, win));
    }
    for (int i = 0; i < NFOP; ++i) {
        MPI_CHECK(MPI_Fetch_and_op(&one, &old[i], MPI_INT64_T, next, 201, MPI_SUM, win));
    }
    for (int i = 0; i < NCAS; ++i) {
        MPI_CHECK(MPI_Compare_and_swap(&one, &cmp, &res[i], MPI_INT64_T, next, 202, win));
    }
    MPI_CHECK(MPI_Win_flush_all(win));
    MPI_CHECK(MPI_Win_unlock_all(win));
    read_all(win_h, v);
    MTEST_CHECK(NPUT == v[PUT] && NGET == v[GET] && NACC == v[ACC] && NFOP == v[GACC] &&
                    NCAS == v[CAS],
                "by kind: put %llu get %llu acc %llu get_acc %llu cas %llu", v[PUT], v[GET], v[ACC],
                v[GACC], v[CAS]);
    paths = v[DIRECT] + v[RDMA] + v[PACKET] + v[ATOMIC];
    MTEST_CHECK(paths == NPUT + NGET + NACC + NFOP + NCAS,
                "by path: direct %llu rdma %llu packet %llu atomic %llu", v[DIRECT], v[RDMA],
                v[PACKET], v[ATOMIC]);
    MTEST_CHECK(v[BYTES] == 8ull * (NPUT + NGET + NACC + NFOP + NCAS), "bytes %llu", v[BYTES]);
    MTEST_CHECK(v[PACKET] == 0 || v[MESSAGES] > 0, "%llu packet ops in %llu messages", v[PACKET],
                v[MESSAGES]);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < NPUT; ++i) {
        int64_t want = 1000 * ((mtest_rank + nprocs - 1) % nprocs) + i;
        MTEST_CHECK(base[i] == want, "PUT %d: %lld, expected %lld", i, (long long) base[i],
                    (long long) want);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Lock epochs of one short PUT: single-op epochs where the peer is
 * reached through UCX, loads and stores where it is node-local. */
static void single_ops(MPI_Win win, const int64_t *base, int next)
{
    unsigned long long before[NSTAT], after[NSTAT], d_direct, d_single;
    int64_t val = 7;

    read_all(win_h, before);
    for (int i = 0; i < NSINGLE; ++i) {
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win));
        MPI_CHECK(MPI_Put(&val, 1, MPI_INT64_T, next, 300, 1, MPI_INT64_T, win));
        MPI_CHECK(MPI_Win_unlock(next, win));
    }
    read_all(win_h, after);
    MPI_Barrier(MPI_COMM_WORLD);
    MTEST_CHECK(7 == base[300], "single-op PUT: %lld, expected 7", (long long) base[300]);
    d_direct = after[DIRECT] - before[DIRECT];
    d_single = after[SINGLE] - before[SINGLE];
    MTEST_CHECK((NSINGLE == d_direct && 0 == d_single) || (0 == d_direct && NSINGLE == d_single),
                "%d lock epochs of one PUT: %llu direct, %llu single-op epochs", NSINGLE, d_direct,
                d_single);
}

/* A PUT and a GET whose target layout is 4 blocks of 8 bytes (32 bytes in
 * all): where the peer is not node-local, each goes as one packet that
 * carries the layout, not one RDMA transfer per block. */
static void strided_ops(MPI_Win win, int64_t *base, int next, int nprocs)
{
    unsigned long long before[NSTAT], after[NSTAT], d_direct, d_packet, d_rdma;
    int64_t vals[NSTRIDED], got[NSTRIDED];
    MPI_Datatype strided;

    MPI_CHECK(MPI_Type_vector(NSTRIDED, 1, 2, MPI_INT64_T, &strided));
    MPI_CHECK(MPI_Type_commit(&strided));
    for (int k = 0; k < NSTRIDED; ++k) {
        base[GET_AT + 2 * k] = 5000 + 10 * mtest_rank + k;
        vals[k] = 6000 + 10 * mtest_rank + k;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    read_all(win_h, before);
    MPI_CHECK(MPI_Win_lock_all(0, win));
    MPI_CHECK(MPI_Put(vals, NSTRIDED, MPI_INT64_T, next, PUT_AT, 1, strided, win));
    MPI_CHECK(MPI_Get(got, NSTRIDED, MPI_INT64_T, next, GET_AT, 1, strided, win));
    MPI_CHECK(MPI_Win_unlock_all(win));
    read_all(win_h, after);
    d_direct = after[DIRECT] - before[DIRECT];
    d_packet = after[PACKET] - before[PACKET];
    d_rdma = after[RDMA] - before[RDMA];
    MTEST_CHECK(0 == d_rdma &&
                    ((2 == d_direct && 0 == d_packet) || (0 == d_direct && 2 == d_packet)),
                "a strided PUT and GET of 32 bytes: %llu direct, %llu packet, %llu rdma ops",
                d_direct, d_packet, d_rdma);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < NSTRIDED; ++k) {
        int prev = (mtest_rank + nprocs - 1) % nprocs;
        MTEST_CHECK(got[k] == 5000 + 10 * next + k, "strided GET block %d: %lld", k,
                    (long long) got[k]);
        MTEST_CHECK(base[PUT_AT + 2 * k] == 6000 + 10 * prev + k, "strided PUT block %d: %lld", k,
                    (long long) base[PUT_AT + 2 * k]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHECK(MPI_Type_free(&strided));
}

int main(int argc, char **argv)
{
    int nprocs, provided, next;
    unsigned long long w[NSTAT], p[NSTAT];
    int64_t *base, vals[NLATER] = {0};
    MPI_Win win;

    mtest_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    next = (mtest_rank + 1) % nprocs;
    MPI_CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    MPI_CHECK(MPI_T_pvar_session_create(&session));
    MPI_CHECK(MPI_Win_allocate(4096, sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    memset(base, 0, 4096);
    MPI_Barrier(MPI_COMM_WORLD);
    alloc_handles(&win);
    epoch_ops(win, base, next, nprocs);
    single_ops(win, base, next);
    strided_ops(win, base, next, nprocs);
    read_all(win_h, w);
    read_all(proc_h, p);
    MTEST_CHECK(p[PUT] == w[PUT] && p[BYTES] == w[BYTES],
                "process counters (put %llu, bytes %llu) differ from the only window's "
                "(%llu, %llu)",
                p[PUT], p[BYTES], w[PUT], w[BYTES]);
    for (int s = 0; s < NSTAT; ++s) {
        MPI_CHECK(MPI_T_pvar_handle_free(session, &win_h[s]));
    }
    MPI_CHECK(MPI_Win_free(&win));
    /* a second window: the process counters keep the first one's counts */
    MPI_CHECK(MPI_Win_allocate(4096, sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    MPI_CHECK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < NLATER; ++i) {
        MPI_CHECK(MPI_Put(&vals[i], 1, MPI_INT64_T, next, i, 1, MPI_INT64_T, win));
    }
    MPI_CHECK(MPI_Win_unlock_all(win));
    read_all(proc_h, p);
    MTEST_CHECK(p[PUT] == NPUT + NSINGLE + 1 + NLATER, "process ops_put %llu, expected %d", p[PUT],
                NPUT + NSINGLE + 1 + NLATER);
    MPI_CHECK(MPI_Win_free(&win));
    for (int s = 0; s < NSTAT; ++s) {
        MPI_CHECK(MPI_T_pvar_handle_free(session, &proc_h[s]));
    }
    MPI_CHECK(MPI_T_pvar_session_free(&session));
    MPI_CHECK(MPI_T_finalize());
    return mtest_finalize();
}
