/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * MPI_NO_OP reads over TCP of window memory the kernel would copy slowly
 * into the socket (10-24 bytes into a page; glibc's large malloc'd blocks
 * start 16 bytes in): the target answers from its window without the lock
 * and sends the bytes up to the next cache line with its second answer
 * (counter reads_split).
 *
 * usage: gacc_read_split [READS] [busy]
 * Rank 0 reads READ bytes of rank 1's window at displacements 0..DISPS-1
 * (page offsets 16..16+DISPS-1 of rank 1's memory: some split, some not)
 * into a buffer of guard bytes, and checks every byte against the window's
 * pattern, which repeats every 251 bytes (never in step with a cache line),
 * and the guards behind it.  With "busy", rank 1 meanwhile rewrites its
 * window with the same pattern (MPI_REPLACE to itself), which moves its
 * lock word: reads are then read again whole under the lock (counter
 * reads_again) and must still see the pattern.  Other ranks only take part
 * in the synchronization.
 */
#include "mtest.h"

#define READ  (512 * 1024) /* above osc_newrma_rndv_threshold */
#define DISPS 12
#define GUARD 64
#define FILL  0xee

static MPI_T_pvar_session session;
static MPI_T_pvar_handle h[2]; /* reads_split, reads_again */
static const char *const names[2] = {"osc_newrma_win_reads_split", "osc_newrma_win_reads_again"};
static int me, nprocs, reads = 48;
static MPI_Win win;

static uint8_t pattern(size_t at)
{
    return (uint8_t) (at % 251 + 1);
}

static void reader(uint8_t *got)
{
    for (int r = 0; r < reads && mtest_errors < 5; ++r) {
        int d = r % DISPS;

        memset(got, FILL, READ + GUARD);
        MPI_CHECK(MPI_Get_accumulate(NULL, 0, MPI_UINT8_T, got, READ, MPI_UINT8_T, 1, d, READ,
                                     MPI_UINT8_T, MPI_NO_OP, win));
        MPI_CHECK(MPI_Win_flush(1, win));
        for (size_t i = 0; i < READ + GUARD; ++i) {
            uint8_t want = i < READ ? pattern((size_t) d + i) : FILL;

            if (got[i] != want) {
                MTEST_CHECK(0, "read %d at displacement %d: byte %zu is %d, not %d", r, d, i,
                            got[i], want);
                break;
            }
        }
    }
}

/* The same pattern over my window until the reader is through. */
static void rewriter(const uint8_t *mine, size_t size)
{
    MPI_Request done;
    int flag = 0;

    MPI_CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &done));
    while (!flag) {
        MPI_CHECK(MPI_Accumulate(mine, (int) size, MPI_UINT8_T, 1, 0, (int) size, MPI_UINT8_T,
                                 MPI_REPLACE, win));
        MPI_CHECK(MPI_Win_flush(1, win));
        MPI_CHECK(MPI_Test(&done, &flag, MPI_STATUS_IGNORE));
    }
}

int main(int argc, char **argv)
{
    size_t size = READ + DISPS;
    int provided, busy = argc > 2 && 0 == strcmp(argv[2], "busy");
    uint8_t *got = malloc(READ + GUARD), *mine = malloc(size);
    unsigned long long counted[2], all[2];
    uint8_t *mem = NULL, *base;
    MPI_Request done;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    reads = argc > 1 ? atoi(argv[1]) : reads;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_T_pvar_session_create(&session);
    /* 16 bytes into a page whatever the allocator (ASan's is another) */
    if (0 != posix_memalign((void **) &mem, 4096, size + 16) || NULL == got || NULL == mine) {
        mtest_error("out of memory");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    base = mem + 16;
    for (size_t i = 0; i < size; ++i) {
        mine[i] = base[i] = pattern(i);
    }
    MPI_CHECK(MPI_Win_create(base, (MPI_Aint) size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    mtest_pvars_bind(session, names, 2, &win, h);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHECK(MPI_Win_lock_all(0, win));
    if (0 == me) {
        reader(got);
        MPI_CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &done));
        MPI_CHECK(MPI_Wait(&done, MPI_STATUS_IGNORE));
    } else if (1 == me && busy) {
        rewriter(mine, size);
    } else {
        MPI_CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &done));
        MPI_CHECK(MPI_Wait(&done, MPI_STATUS_IGNORE));
    }
    MPI_CHECK(MPI_Win_unlock_all(win));
    counted[0] = mtest_pvar_read(session, h[0]);
    counted[1] = mtest_pvar_read(session, h[1]);
    MPI_CHECK(MPI_Reduce(counted, all, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
    MTEST_CHECK(0 != me || all[0] > 0, "no read split");
    MTEST_CHECK(0 != me || !busy || all[1] > 0, "no read read again (busy)");
    MTEST_CHECK(0 != me || busy || 0 == all[1], "%llu reads read again with nobody writing",
                all[1]);
    MPI_T_pvar_handle_free(session, &h[0]);
    MPI_T_pvar_handle_free(session, &h[1]);
    MPI_T_pvar_session_free(&session);
    MPI_CHECK(MPI_Win_free(&win));
    free(mem);
    MPI_T_finalize();
    free(got);
    free(mine);
    return mtest_finalize();
}
