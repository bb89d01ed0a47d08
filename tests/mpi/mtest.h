/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Helpers shared by the osc/newrma MPI tests: one behaviour per program,
 * rank 0 prints " No Errors", exit status non-zero on any error.
 */
#ifndef OSC_NEWRMA_MTEST_H
#define OSC_NEWRMA_MTEST_H

#include <mpi.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int mtest_errors = 0;
static int mtest_rank = 0;

static void mtest_error(const char *fmt, ...);

/* MPI_Init_thread for a test that needs MPI_THREAD_MULTIPLE: an error if
 * the library does not provide it. */
static void mtest_init_multiple(int *argc, char ***argv)
{
    int provided;

    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &mtest_rank);
    if (MPI_THREAD_MULTIPLE != provided) {
        mtest_error("MPI_THREAD_MULTIPLE not provided (%d)", provided);
    }
}

/* MTEST_THREAD_MULTIPLE=1 (run.sh's mt variants) runs every test under
 * MPI_THREAD_MULTIPLE, so the component's mutexes are real and, in a
 * --enable-debug build, their order is checked on every path. */
static void mtest_init(int *argc, char ***argv)
{
    const char *mt = getenv("MTEST_THREAD_MULTIPLE");

    if (NULL != mt && 0 == strcmp(mt, "1")) {
        mtest_init_multiple(argc, argv);
        return;
    }
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &mtest_rank);
}

/* My neighbours on a ring of MPI_COMM_WORLD's @p *nprocs ranks. */
static void mtest_ring(int *nprocs, int *right, int *left)
{
    MPI_Comm_size(MPI_COMM_WORLD, nprocs);
    *right = (mtest_rank + 1) % *nprocs;
    *left = (mtest_rank + *nprocs - 1) % *nprocs;
}

static void mtest_error(const char *fmt, ...)
{
    va_list ap;

    if (mtest_errors++ < 20) {
        fprintf(stderr, "[rank %d] ", mtest_rank);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
    }
}

#define MTEST_MAX_THREADS 64

/* Run @p fn in @p n threads (its argument: the thread's index, as an
 * intptr_t), join them, and check that none counted an error in
 * @p errors[index]. */
static void mtest_threads_run(int n, void *(*fn)(void *), const int *errors)
{
    pthread_t threads[MTEST_MAX_THREADS];

    if (n < 1 || n > MTEST_MAX_THREADS) {
        mtest_error("%d threads: 1 to %d allowed", n, MTEST_MAX_THREADS);
        return;
    }
    for (int i = 0; i < n; ++i) {
        pthread_create(&threads[i], NULL, fn, (void *) (intptr_t) i);
    }
    for (int i = 0; i < n; ++i) {
        pthread_join(threads[i], NULL);
        if (0 != errors[i]) {
            mtest_error("thread %d saw wrong data %d times", i, errors[i]);
        }
    }
}

#define MTEST_CHECK(cond, ...)                                                                     \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            mtest_error(__VA_ARGS__);                                                              \
        }                                                                                          \
    } while (0)

/* Abort on an unexpected MPI error (tests that do not expect errors). */
#define MPI_CHECK(call)                                                                            \
    do {                                                                                           \
        int mpi_check_rc_ = (call);                                                                \
        if (MPI_SUCCESS != mpi_check_rc_) {                                                        \
            char msg_[MPI_MAX_ERROR_STRING];                                                       \
            int len_;                                                                              \
            MPI_Error_string(mpi_check_rc_, msg_, &len_);                                          \
            fprintf(stderr, "[rank %d] %s:%d: %s failed: %s\n", mtest_rank, __FILE__, __LINE__,    \
                    #call, msg_);                                                                  \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                          \
        }                                                                                          \
    } while (0)

/* Before MPI_Init: rank 1 fails the Nth packet it applies (argv[1],
 * default 1: the component's test hook osc_newrma_test_fail_packet);
 * returns N.  Every small PUT, GET and accumulate is a packet, even one
 * alone at its target (osc_newrma_lone_rdma, osc_newrma_get_rdma_bytes,
 * osc_newrma_mailbox), so that the packets keep their numbers. */
static int mtest_fail_packet_hook(int argc, char **argv)
{
    const char *rank_env = getenv("OMPI_COMM_WORLD_RANK");
    const char *fail_at = argc > 1 ? argv[1] : "1";

    setenv("OMPI_MCA_osc_newrma_lone_rdma", "0", 0);
    setenv("OMPI_MCA_osc_newrma_get_rdma_bytes", "0", 0);
    setenv("OMPI_MCA_osc_newrma_mailbox", "0", 0);
    /* the Nth PUT the target applies is the origin's Nth: a record each */
    setenv("OMPI_MCA_osc_newrma_puts_join", "0", 0);

    if (NULL != rank_env && 0 == strcmp(rank_env, "1")) {
        setenv("OMPI_MCA_osc_newrma_test_fail_packet", fail_at, 1);
    }
    return atoi(fail_at);
}

/* packet_error and fence_error: rank 1 fails the argv[1]-th packet it
 * applies (mtest_fail_packet_hook); a window of three longs, -1 0 0, whose
 * errors are returned: allocated, or the process's own memory when argv[2]
 * is "create" (node-local packets with osc_newrma_shm on).  @return the
 * failing packet's number. */
static int mtest_init_fail_packet(int *argc, char ***argv, long **base, MPI_Win *win)
{
    static long own[3];
    int fail_at = mtest_fail_packet_hook(*argc, *argv);
    int create = *argc > 2 && 0 == strcmp((*argv)[2], "create");

    mtest_init(argc, argv);
    if (create) {
        *base = own;
        MPI_CHECK(
            MPI_Win_create(own, sizeof(own), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, win));
    } else {
        MPI_CHECK(MPI_Win_allocate(3 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD,
                                   base, win));
    }
    MPI_Win_set_errhandler(*win, MPI_ERRORS_RETURN);
    (*base)[0] = -1, (*base)[1] = (*base)[2] = 0;
    return fail_at;
}

/* Bind the performance variables @p names (@p n of them) to @p win in
 * @p session; aborts when one does not exist. */
static void mtest_pvars_bind(MPI_T_pvar_session session, const char *const *names, int n,
                             MPI_Win *win, MPI_T_pvar_handle *handles)
{
    int num, count, bind, verbosity, cls, readonly, continuous, atomic, name_len, desc_len;
    char name[256], desc[1024];
    MPI_Datatype dt;
    MPI_T_enum et;

    MPI_T_pvar_get_num(&num);
    for (int p = 0; p < n; ++p) {
        int found = -1;

        for (int i = 0; i < num && found < 0; ++i) {
            name_len = sizeof(name);
            desc_len = sizeof(desc);
            if (MPI_SUCCESS == MPI_T_pvar_get_info(i, name, &name_len, &verbosity, &cls, &dt, &et,
                                                   desc, &desc_len, &bind, &readonly, &continuous,
                                                   &atomic) &&
                0 == strcmp(name, names[p])) {
                found = i;
            }
        }
        if (found < 0) {
            mtest_error("performance variable %s not found", names[p]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_CHECK(MPI_T_pvar_handle_alloc(session, found, win, &handles[p], &count));
    }
}

/* The value of a bound unsigned long long performance variable. */
static unsigned long long mtest_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    unsigned long long n = 0;

    MPI_CHECK(MPI_T_pvar_read(session, handle, &n));
    return n;
}

static int mtest_finalize(void)
{
    int total = 0;

    MPI_Allreduce(&mtest_errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (0 == mtest_rank) {
        if (0 == total) {
            printf(" No Errors\n");
        } else {
            printf(" Found %d errors\n", total);
        }
        fflush(stdout);
    }
    MPI_Finalize();
    return 0 != total;
}

/* A call returned error class @want (or @also, where two classes are
 * acceptable); MPI_SUCCESS counts as class MPI_SUCCESS. */
static void mtest_expect_class(int rc, int want, int also, const char *what)
{
    int cls = MPI_SUCCESS;

    if (MPI_SUCCESS != rc) {
        MPI_Error_class(rc, &cls);
    }
    MTEST_CHECK(cls == want || cls == also, "%s: error class %d, expected %d", what, cls, want);
}

/* ---- windows of every flavor ---- */

typedef struct {
    MPI_Win win;
    int flavor;
    char *base; /* my window memory */
    size_t size;
    MPI_Aint *disp0; /* per rank: target_disp of byte 0 (dynamic: absolute address) */
    void *dyn_mem;
} mtest_win_t;

static int mtest_flavor(const char *name)
{
    if (0 == strcmp(name, "create"))
        return MPI_WIN_FLAVOR_CREATE;
    if (0 == strcmp(name, "allocate"))
        return MPI_WIN_FLAVOR_ALLOCATE;
    if (0 == strcmp(name, "shared"))
        return MPI_WIN_FLAVOR_SHARED;
    if (0 == strcmp(name, "dynamic"))
        return MPI_WIN_FLAVOR_DYNAMIC;
    fprintf(stderr, "unknown window flavor %s\n", name);
    MPI_Abort(MPI_COMM_WORLD, 2);
    return -1;
}

/* Create a window of @size bytes per rank, disp_unit 1, of the given flavor. */
static void mtest_win_create(mtest_win_t *w, const char *flavor, size_t size, MPI_Info info,
                             MPI_Comm comm)
{
    int nprocs, flag, *actual;
    MPI_Aint mine = 0;

    MPI_Comm_size(comm, &nprocs);
    memset(w, 0, sizeof(*w));
    w->flavor = mtest_flavor(flavor);
    w->size = size;
    w->disp0 = calloc((size_t) nprocs, sizeof(MPI_Aint));
    switch (w->flavor) {
        case MPI_WIN_FLAVOR_CREATE:
            w->base = malloc(size > 0 ? size : 1);
            MPI_CHECK(MPI_Win_create(w->base, (MPI_Aint) size, 1, info, comm, &w->win));
            break;
        case MPI_WIN_FLAVOR_ALLOCATE:
            MPI_CHECK(MPI_Win_allocate((MPI_Aint) size, 1, info, comm, &w->base, &w->win));
            break;
        case MPI_WIN_FLAVOR_SHARED:
            MPI_CHECK(MPI_Win_allocate_shared((MPI_Aint) size, 1, info, comm, &w->base, &w->win));
            break;
        default:
            MPI_CHECK(MPI_Win_create_dynamic(info, comm, &w->win));
            w->dyn_mem = malloc(size > 0 ? size : 1);
            w->base = w->dyn_mem;
            MPI_CHECK(MPI_Win_attach(w->win, w->base, (MPI_Aint) size));
            MPI_Get_address(w->base, &mine);
            break;
    }
    MPI_Allgather(&mine, 1, MPI_AINT, w->disp0, 1, MPI_AINT, comm);
    MPI_Win_get_attr(w->win, MPI_WIN_CREATE_FLAVOR, &actual, &flag);
    MTEST_CHECK(flag && *actual == w->flavor, "window flavor attribute %d, expected %d",
                flag ? *actual : -1, w->flavor);
    MPI_Win_get_attr(w->win, MPI_WIN_MODEL, &actual, &flag);
    MTEST_CHECK(flag && *actual == MPI_WIN_UNIFIED, "memory model is not MPI_WIN_UNIFIED");
}

static void mtest_win_free(mtest_win_t *w)
{
    if (MPI_WIN_FLAVOR_DYNAMIC == w->flavor) {
        MPI_CHECK(MPI_Win_detach(w->win, w->dyn_mem));
    }
    MPI_CHECK(MPI_Win_free(&w->win));
    if (MPI_WIN_FLAVOR_CREATE == w->flavor || MPI_WIN_FLAVOR_DYNAMIC == w->flavor) {
        free(w->base);
    }
    free(w->disp0);
}

/* Deterministic byte pattern: what byte @i of a buffer seeded by @seed holds. */
static inline unsigned char mtest_pattern(uint32_t seed, size_t i)
{
    uint32_t x = seed * 2654435761u + (uint32_t) i * 40503u + (uint32_t) (i >> 16);
    return (unsigned char) (x ^ (x >> 13) ^ (x >> 24));
}

static void mtest_fill(void *buf, size_t len, uint32_t seed)
{
    for (size_t i = 0; i < len; ++i) {
        ((unsigned char *) buf)[i] = mtest_pattern(seed, i);
    }
}

/* The index of the first byte of @p buf (@p len bytes) that differs from
 * the pattern of @p seed, or @p len when none does. */
static size_t mtest_pattern_mismatch(const void *buf, size_t len, uint32_t seed)
{
    size_t i = 0;

    while (i < len && ((const unsigned char *) buf)[i] == mtest_pattern(seed, i)) {
        ++i;
    }
    return i;
}

/* ---- epochs: the same program under fence, lock and lock_all ---- */

enum { MTEST_SYNC_FENCE, MTEST_SYNC_LOCK, MTEST_SYNC_LOCKALL, MTEST_SYNC_PSCW };

static int mtest_sync(const char *name)
{
    if (0 == strcmp(name, "fence"))
        return MTEST_SYNC_FENCE;
    if (0 == strcmp(name, "lock"))
        return MTEST_SYNC_LOCK;
    if (0 == strcmp(name, "lockall"))
        return MTEST_SYNC_LOCKALL;
    if (0 == strcmp(name, "pscw"))
        return MTEST_SYNC_PSCW;
    fprintf(stderr, "unknown synchronization %s\n", name);
    MPI_Abort(MPI_COMM_WORLD, 2);
    return -1;
}

/* The start of a test run as "PROG FLAVOR SYNC [N1] [N2]": MPI up, my rank
 * and the size, SYNC (lockall when absent), and N1, N2 when given (each
 * keeps its default otherwise). */
static void mtest_start(int *argc, char ***argv, int *me, int *nprocs, int *sync, int *n1, int *n2)
{
    mtest_init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, me);
    MPI_Comm_size(MPI_COMM_WORLD, nprocs);
    *sync = mtest_sync(*argc > 2 ? (*argv)[2] : "lockall");
    *n1 = *argc > 3 ? atoi((*argv)[3]) : *n1;
    *n2 = *argc > 4 ? atoi((*argv)[4]) : *n2;
}

/* A seeded generator (PCG's LCG step): every rank derives the same program. */
typedef struct {
    uint64_t state;
} mtest_rng_t;

static uint32_t mtest_rng_next(mtest_rng_t *r)
{
    r->state = r->state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t) (r->state >> 33);
}

/* Active target: no flushes, no request-based operations. */
static int mtest_sync_is_active(int sync)
{
    return MTEST_SYNC_FENCE == sync || MTEST_SYNC_PSCW == sync;
}

/* Open the access epoch of a phase (collective for fence and pscw, where
 * every rank exposes its window to, and accesses, the whole group). */
static void mtest_epoch_begin(MPI_Win win, int sync)
{
    MPI_Group group;

    if (MTEST_SYNC_FENCE == sync) {
        MPI_CHECK(MPI_Win_fence(0, win));
    } else if (MTEST_SYNC_LOCKALL == sync) {
        MPI_CHECK(MPI_Win_lock_all(0, win));
    } else if (MTEST_SYNC_PSCW == sync) {
        MPI_CHECK(MPI_Win_get_group(win, &group));
        MPI_CHECK(MPI_Win_post(group, 0, win));
        MPI_CHECK(MPI_Win_start(group, 0, win));
        MPI_Group_free(&group);
    }
}

/* Before one operation to @target: lock mode opens a shared lock. */
static void mtest_op_begin(MPI_Win win, int sync, int target)
{
    if (MTEST_SYNC_LOCK == sync) {
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
    }
}

/* After one operation: lock mode unlocks, lock_all flushes, fence waits. */
static void mtest_op_end(MPI_Win win, int sync, int target)
{
    if (MTEST_SYNC_LOCK == sync) {
        MPI_CHECK(MPI_Win_unlock(target, win));
    } else if (MTEST_SYNC_LOCKALL == sync) {
        MPI_CHECK(MPI_Win_flush(target, win));
    }
}

/* Close the phase; every operation is complete everywhere on return. */
static void mtest_epoch_end(MPI_Win win, int sync)
{
    if (MTEST_SYNC_FENCE == sync) {
        MPI_CHECK(MPI_Win_fence(0, win));
    } else if (MTEST_SYNC_LOCKALL == sync) {
        MPI_CHECK(MPI_Win_unlock_all(win));
    } else if (MTEST_SYNC_PSCW == sync) {
        MPI_CHECK(MPI_Win_complete(win));
        MPI_CHECK(MPI_Win_wait(win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ---- rounds of accesses to one target (put_stream, acc_stream) ----
 * lock: a @p lock_type lock of @p target per round; lockall: one epoch
 * over the rounds (mtest_rounds_begin / _end), a flush per round;
 * fence, pscw: an active epoch per round. */

static void mtest_rounds_begin(MPI_Win win, int sync)
{
    if (MTEST_SYNC_LOCKALL == sync) {
        MPI_CHECK(MPI_Win_lock_all(0, win));
    }
}

static void mtest_rounds_end(MPI_Win win, int sync)
{
    if (MTEST_SYNC_LOCKALL == sync) {
        MPI_CHECK(MPI_Win_unlock_all(win));
    }
}

static void mtest_round_open(MPI_Win win, int sync, int lock_type, int target)
{
    if (MTEST_SYNC_LOCK == sync) {
        MPI_CHECK(MPI_Win_lock(lock_type, target, 0, win));
    } else if (MTEST_SYNC_LOCKALL != sync) {
        mtest_epoch_begin(win, sync);
    }
}

/* The round's accesses are complete at @p target (active epochs end with
 * a barrier as well). */
static void mtest_round_close(MPI_Win win, int sync, int target)
{
    if (MTEST_SYNC_LOCK == sync) {
        MPI_CHECK(MPI_Win_unlock(target, win));
    } else if (MTEST_SYNC_LOCKALL == sync) {
        MPI_CHECK(MPI_Win_flush(target, win));
    } else {
        mtest_epoch_end(win, sync);
    }
}

/* Store @len bytes into my own window memory, outside any epoch. */
static void mtest_local_store(mtest_win_t *w, size_t offset, const void *src, size_t len)
{
    int me;

    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w->win));
    memcpy(w->base + offset, src, len);
    MPI_CHECK(MPI_Win_unlock(me, w->win));
}

/* Load @len bytes from my own window memory, outside any epoch. */
static void mtest_local_load(mtest_win_t *w, size_t offset, void *dst, size_t len)
{
    int me;

    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w->win));
    memcpy(dst, w->base + offset, len);
    MPI_CHECK(MPI_Win_unlock(me, w->win));
}

/* My window's first @p len bytes zeroed, and everyone waits for that. */
static void mtest_win_zero(mtest_win_t *w, size_t len)
{
    unsigned char *zero = calloc(1, len);

    mtest_local_store(w, 0, zero, len);
    free(zero);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Spin @p seconds outside MPI: nothing of this process progresses meanwhile
 * (its agent does not poll). */
static void mtest_busy_outside_mpi(double seconds)
{
    struct timespec t0, t;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((double) (t.tv_sec - t0.tv_sec) + 1e-9 * (double) (t.tv_nsec - t0.tv_nsec) < seconds);
}

/* ---- copies shared with the target's agent (cma_share, share_acc): the
 * window's counters osc_newrma_win_copies_shared and _chunks_by_target ---- */

/* Their rounds: sizes of 128 KiB to 2 MiB in turn, some not a multiple of
 * a chunk; in rounds of the first kind (MTEST_SHARE_SIZES of them, then
 * as many of the other) only rank 0 accesses, in the others every rank. */
#define MTEST_SHARE_SIZES 4

static size_t mtest_share_size(int r)
{
    static const size_t sizes[MTEST_SHARE_SIZES] = {131072, 131072 + 24, 524288 + 8, 2097152 + 40};

    return sizes[r % MTEST_SHARE_SIZES];
}

static bool mtest_share_accesses(int rank, int r)
{
    return 1 == (r / MTEST_SHARE_SIZES) % 2 || 0 == rank;
}

/* The pattern's seed of what rank @p rank offers (a read's source) or
 * writes (@p put) in round @p r. */
static uint32_t mtest_share_seed(int rank, int r, bool put)
{
    return (uint32_t) (rank * 100003 + r * 7 + (put ? 3 : 0));
}

typedef struct {
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handles[2];
} mtest_shares_t;

static void mtest_shares_bind(mtest_shares_t *c, MPI_Win *win)
{
    static const char *const names[] = {"osc_newrma_win_copies_shared",
                                        "osc_newrma_win_chunks_by_target"};
    int provided;

    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_CHECK(MPI_T_pvar_session_create(&c->session));
    mtest_pvars_bind(c->session, names, 2, win, c->handles);
}

/* The counters summed over the ranks, printed by rank 0; at 2 ranks (not
 * oversubscribed), where osc/newrma's shared memory path is on, the agents
 * must have copied chunks, when @p expect_some.  Collective; ends MPI_T. */
static void mtest_shares_check(mtest_shares_t *c, bool expect_some)
{
    unsigned long long mine[2], total[2];
    const char *shm = getenv("OMPI_MCA_osc_newrma_shm");
    int me, nprocs;

    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    for (int i = 0; i < 2; ++i) {
        mine[i] = mtest_pvar_read(c->session, c->handles[i]);
        MPI_CHECK(MPI_T_pvar_handle_free(c->session, &c->handles[i]));
    }
    MPI_CHECK(MPI_Allreduce(mine, total, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    MPI_CHECK(MPI_T_pvar_session_free(&c->session));
    MPI_T_finalize();
    if (0 == me && expect_some && 2 == nprocs && (NULL == shm || 0 != strcmp(shm, "0"))) {
        MTEST_CHECK(total[0] > 0 && total[1] >= total[0],
                    "the targets' agents shared %llu copies, %llu chunks: expected some", total[0],
                    total[1]);
    }
    if (0 == me) {
        printf("copies shared %llu, chunks by the targets %llu\n", total[0], total[1]);
    }
}

/* A window of @p bytes per rank of @p flavor on MPI_COMM_WORLD, zeroed,
 * and its performance variable @p name bound in a new @p session. */
static void mtest_win_counted(mtest_win_t *w, const char *flavor, size_t bytes, const char *name,
                              MPI_T_pvar_session *session, MPI_T_pvar_handle *handle)
{
    mtest_win_create(w, flavor, bytes, MPI_INFO_NULL, MPI_COMM_WORLD);
    mtest_win_zero(w, bytes);
    MPI_CHECK(MPI_T_pvar_session_create(session));
    mtest_pvars_bind(*session, &name, 1, &w->win, handle);
}

/* What mtest_win_counted made freed: the counter's handle, its session
 * and the window (MPI_T stays the caller's, as its initialization). */
static void mtest_win_counted_free(mtest_win_t *w, MPI_T_pvar_session *session,
                                   MPI_T_pvar_handle *handle)
{
    MPI_CHECK(MPI_T_pvar_handle_free(*session, handle));
    MPI_CHECK(MPI_T_pvar_session_free(session));
    mtest_win_free(w);
}

/* @p rounds rounds in which every rank accesses every rank, itself first,
 * by @p issue(@p ctx, target, round): fence, pscw: an epoch per round;
 * lock: a lock epoch per target and round, exclusive and shared in turn;
 * lockall: one epoch, a flush per target and round.  Ends with a barrier. */
static void mtest_rounds_all(MPI_Win win, int sync, int rounds,
                             void (*issue)(void *ctx, int target, int round), void *ctx)
{
    int nprocs, me;

    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    mtest_rounds_begin(win, sync);
    for (int round = 0; round < rounds; ++round) {
        if (mtest_sync_is_active(sync)) {
            mtest_epoch_begin(win, sync);
        }
        for (int k = 0; k < nprocs; ++k) {
            int target = (me + k) % nprocs;

            if (MTEST_SYNC_LOCK == sync) {
                MPI_CHECK(
                    MPI_Win_lock(round % 2 ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE, target, 0, win));
            }
            issue(ctx, target, round);
            if (MTEST_SYNC_LOCK == sync) {
                MPI_CHECK(MPI_Win_unlock(target, win));
            } else if (MTEST_SYNC_LOCKALL == sync) {
                MPI_CHECK(MPI_Win_flush(target, win));
            }
        }
        if (mtest_sync_is_active(sync)) {
            mtest_epoch_end(win, sync);
        }
    }
    mtest_rounds_end(win, sync);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* The bound variable's count summed over the ranks; the handle, the
 * session and MPI_T closed. */
static unsigned long long mtest_pvar_total_end(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    unsigned long long mine = mtest_pvar_read(session, handle), total = 0;

    MPI_CHECK(MPI_Allreduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    MPI_CHECK(MPI_T_pvar_handle_free(session, &handle));
    MPI_CHECK(MPI_T_pvar_session_free(&session));
    MPI_T_finalize();
    return total;
}

/* MPI and MPI_T up for a test whose window of @p bytes (argv[1]'s flavor,
 * zeroed) holds a slice per rank, at most 4, and counts @p pvar
 * (mtest_win_counted).  @return the number of ranks. */
static int mtest_slices_init(int *argc, char ***argv, mtest_win_t *w, size_t bytes,
                             const char *pvar, MPI_T_pvar_session *session,
                             MPI_T_pvar_handle *handle)
{
    int nprocs, provided;

    mtest_init(argc, argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (nprocs > 4) {
        mtest_error("at most 4 ranks (the window holds 4 slices)");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    mtest_win_counted(w, (*argv)[1], bytes, pvar, session, handle);
    return nprocs;
}

/* ---- streams of accesses to the right neighbour, round by round ----
 * (get_stream, get_rdma).  argv: FLAVOR SYNC [WANT|any] [flush|local];
 * SYNC: fence, pscw, lock (a shared lock epoch per round), lockall (one
 * epoch; rounds end with MPI_Win_flush, or MPI_Win_flush_local: "local").
 * With WANT, the bound performance variable must have counted some, on
 * some rank. */

typedef struct {
    mtest_win_t w;
    int sync, right, want, local;
    /* the window's contents for the next round; what the round read */
    unsigned char *mine, *got;
    size_t len;
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle;
} mtest_stream_t;

static void mtest_stream_init(mtest_stream_t *s, int *argc, char ***argv, const char *want,
                              const char *pvar, size_t len)
{
    const char *names[] = {pvar};
    int provided, nprocs;

    mtest_init(argc, argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    s->sync = mtest_sync((*argv)[2]);
    s->want = *argc > 3 && 0 == strcmp((*argv)[3], want);
    s->local = *argc > 4 && 0 == strcmp((*argv)[4], "local");
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    s->right = (mtest_rank + 1) % nprocs;
    s->len = len;
    s->mine = malloc(len);
    s->got = malloc(len);
    mtest_win_create(&s->w, (*argv)[1], len, MPI_INFO_NULL, MPI_COMM_WORLD);
    MPI_CHECK(MPI_T_pvar_session_create(&s->session));
    mtest_pvars_bind(s->session, names, 1, &s->w.win, &s->handle);
    /* lock_all: one epoch (its per-target locks, once granted, stay), the
     * window rewritten in it by its owner: stores, MPI_Win_sync, barrier */
    if (MTEST_SYNC_LOCKALL == s->sync) {
        MPI_CHECK(MPI_Win_lock_all(0, s->w.win));
    }
}

/* A round begins: my window takes s->mine, s->got is 0xEE, everyone waits
 * for that, and the access epoch to the right neighbour opens. */
static void mtest_stream_open(mtest_stream_t *s)
{
    if (MTEST_SYNC_LOCKALL == s->sync) {
        memcpy(s->w.base, s->mine, s->len);
        MPI_CHECK(MPI_Win_sync(s->w.win));
    } else {
        mtest_local_store(&s->w, 0, s->mine, s->len);
    }
    memset(s->got, 0xEE, s->len);
    MPI_Barrier(MPI_COMM_WORLD);
    if (MTEST_SYNC_LOCK == s->sync) {
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, s->right, 0, s->w.win));
    } else if (MTEST_SYNC_LOCKALL != s->sync) {
        mtest_epoch_begin(s->w.win, s->sync);
    }
}

/* The round ends: its accesses complete, then @p check(s->got, right,
 * @p round) (in lock_all, right after the flush or flush_local, which
 * completes GETs at the origin), and everyone waits before the owners
 * rewrite their windows. */
static void mtest_stream_close(mtest_stream_t *s, void (*check)(const unsigned char *, int, int),
                               int round)
{
    if (MTEST_SYNC_LOCK == s->sync) {
        MPI_CHECK(MPI_Win_unlock(s->right, s->w.win));
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (MTEST_SYNC_LOCKALL == s->sync) {
        MPI_CHECK(s->local ? MPI_Win_flush_local(s->right, s->w.win)
                           : MPI_Win_flush(s->right, s->w.win));
        check(s->got, s->right, round);
        if (s->local) { /* what the round wrote lands before the owner rewrites */
            MPI_CHECK(MPI_Win_flush(s->right, s->w.win));
        }
        MPI_Barrier(MPI_COMM_WORLD);
        return;
    } else {
        mtest_epoch_end(s->w.win, s->sync); /* ends with a barrier */
    }
    check(s->got, s->right, round);
}

static int mtest_stream_fini(mtest_stream_t *s, const char *none_msg)
{
    if (MTEST_SYNC_LOCKALL == s->sync) {
        MPI_CHECK(MPI_Win_unlock_all(s->w.win));
    }
    if (s->want) {
        /* some rank, not each: an access that finds its target's lock or
         * the last fence's packets still pending takes the full way */
        unsigned long long mine_n = mtest_pvar_read(s->session, s->handle), all_n = 0;

        MPI_CHECK(
            MPI_Allreduce(&mine_n, &all_n, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
        MTEST_CHECK(all_n > 0, "%s", none_msg);
    }
    MPI_CHECK(MPI_T_pvar_handle_free(s->session, &s->handle));
    MPI_CHECK(MPI_T_pvar_session_free(&s->session));
    MPI_T_finalize();
    mtest_win_free(&s->w);
    free(s->mine);
    free(s->got);
    return mtest_finalize();
}

#endif
