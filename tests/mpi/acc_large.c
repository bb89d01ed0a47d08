/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * MPI_Accumulate of more than osc_newrma_rndv_threshold bytes (256 KiB by
 * default): over UCX its operands travel by rendezvous and the target
 * applies them from the buffer they land in.  In each round every rank,
 * to every rank (itself too):
 *   A: MPI_SUM of COUNT int64 (its rank + 1 in each) over block A, with a
 *      FETCH_AND_OP and a 3-element MPI_SUM (packets, UCX atomics with
 *      acc_atomics) on elements the large one covers;
 *   B: MPI_SUM of COUNT int64 into every other element of block B (a
 *      vector target layout: the datatype's description travels with the
 *      operands);
 * and to its right neighbour, without a flush in between (MPI's default
 * accumulate_ordering: each must see the one before it):
 *   C: MPI_REPLACE of COUNT int64, MPI_SUM of 1 over them,
 *      MPI_Get_accumulate(MPI_NO_OP) of them, which must read the stamp of
 *      the REPLACE plus 1 in every element, and MPI_SUM of 1 again, which
 *      it must not (over TCP the target answers that read from its window
 *      without the accumulate lock, read_unlocked, and holds the SUM
 *      behind it until the answer has been read).
 * At the end block A holds the sum of every rank's adds, B the same in
 * its even elements and 0 in the odd ones, C the last stamp plus 2.
 *
 * usage: acc_large FLAVOR SYNC [ROUNDS] [COUNT]   (SYNC: fence | lock | lockall | pscw)
 */
#include "mtest.h"

static int me, nprocs, sync_mode, rounds = 4, count = 40000;
static mtest_win_t w;
static MPI_Datatype every_other;
/* fop_old: one result per target, all outstanding in an active epoch */
static int64_t *mine, *ones, *stamp, *got, *fop_old, small[3] = {1, 1, 1}, fop_one = 1;

/* byte offsets of the blocks in every window */
#define AT_A 0
#define AT_B ((size_t) count * 8)
#define AT_C ((size_t) count * 24)

static MPI_Aint disp(int t, size_t at)
{
    return w.disp0[t] + (MPI_Aint) at;
}

static int64_t stamp_of(int rank, int round)
{
    return (int64_t) (rank + 1) * 1000 + round;
}

/* The round's operations to @p t. */
static void ops_to(int t, int round)
{
    int right = (me + 1) % nprocs;

    MPI_CHECK(MPI_Accumulate(mine, count, MPI_INT64_T, t, disp(t, AT_A), count, MPI_INT64_T,
                             MPI_SUM, w.win));
    MPI_CHECK(MPI_Fetch_and_op(&fop_one, &fop_old[t], MPI_INT64_T, t,
                               disp(t, AT_A + (size_t) (round % count) * 8), MPI_SUM, w.win));
    MPI_CHECK(MPI_Accumulate(small, 3, MPI_INT64_T, t, disp(t, AT_A + (size_t) count / 2 * 8), 3,
                             MPI_INT64_T, MPI_SUM, w.win));
    MPI_CHECK(
        MPI_Accumulate(mine, count, MPI_INT64_T, t, disp(t, AT_B), 1, every_other, MPI_SUM, w.win));
    if (t == right) {
        for (int i = 0; i < count; ++i)
            stamp[i] = stamp_of(me, round);
        MPI_CHECK(MPI_Accumulate(stamp, count, MPI_INT64_T, t, disp(t, AT_C), count, MPI_INT64_T,
                                 MPI_REPLACE, w.win));
        MPI_CHECK(MPI_Accumulate(ones, count, MPI_INT64_T, t, disp(t, AT_C), count, MPI_INT64_T,
                                 MPI_SUM, w.win));
        MPI_CHECK(MPI_Get_accumulate(NULL, 0, MPI_INT64_T, got, count, MPI_INT64_T, t,
                                     disp(t, AT_C), count, MPI_INT64_T, MPI_NO_OP, w.win));
        MPI_CHECK(MPI_Accumulate(ones, count, MPI_INT64_T, t, disp(t, AT_C), count, MPI_INT64_T,
                                 MPI_SUM, w.win));
    }
}

static void check_read(int round)
{
    int64_t want = stamp_of(me, round) + 1;

    for (int i = 0; i < count; ++i) {
        if (got[i] != want) {
            MTEST_CHECK(0, "round %d: element %d of my right neighbour read %lld, expected %lld",
                        round, i, (long long) got[i], (long long) want);
            break;
        }
    }
}

static void round_run(int round)
{
    int active = mtest_sync_is_active(sync_mode);

    if (active) {
        mtest_epoch_begin(w.win, sync_mode);
    }
    for (int k = 0; k < nprocs; ++k) {
        int t = (me + k) % nprocs;

        if (MTEST_SYNC_LOCK == sync_mode) {
            MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w.win));
        }
        ops_to(t, round);
        if (MTEST_SYNC_LOCK == sync_mode) {
            MPI_CHECK(MPI_Win_unlock(t, w.win));
        } else if (MTEST_SYNC_LOCKALL == sync_mode) {
            MPI_CHECK(MPI_Win_flush(t, w.win));
        }
    }
    if (active) {
        mtest_epoch_end(w.win, sync_mode);
    }
    check_read(round);
}

static void check_blocks(void)
{
    size_t bytes = (size_t) count * 32;
    int64_t *mem = malloc(bytes), *a = mem, *b = mem + count, *c = mem + 3 * (size_t) count;
    int64_t all = (int64_t) nprocs * (nprocs + 1) / 2 * rounds;
    int left = (me + nprocs - 1) % nprocs, bad = 0;

    mtest_local_load(&w, 0, mem, bytes);
    for (int i = 0; i < count && bad < 3; ++i) {
        int64_t want = all;
        for (int r = 1; r <= rounds; ++r)
            want += r % count == i ? nprocs : 0; /* the FETCH_AND_OPs */
        want += i >= count / 2 && i < count / 2 + 3 ? (int64_t) nprocs * rounds : 0;
        bad += a[i] != want;
        MTEST_CHECK(a[i] == want, "A[%d] holds %lld, expected %lld", i, (long long) a[i],
                    (long long) want);
        bad += b[2 * i] != all || b[2 * i + 1] != 0;
        MTEST_CHECK(b[2 * i] == all && b[2 * i + 1] == 0, "B[%d], B[%d] hold %lld, %lld", 2 * i,
                    2 * i + 1, (long long) b[2 * i], (long long) b[2 * i + 1]);
        bad += c[i] != stamp_of(left, rounds) + 2;
        MTEST_CHECK(c[i] == stamp_of(left, rounds) + 2, "C[%d] holds %lld, expected %lld", i,
                    (long long) c[i], (long long) stamp_of(left, rounds) + 2);
    }
    free(mem);
}

int main(int argc, char **argv)
{
    mtest_start(&argc, &argv, &me, &nprocs, &sync_mode, &rounds, &count);
    MPI_CHECK(MPI_Type_vector(count, 1, 2, MPI_INT64_T, &every_other));
    MPI_CHECK(MPI_Type_commit(&every_other));
    mtest_win_create(&w, argc > 1 ? argv[1] : "allocate", (size_t) count * 32, MPI_INFO_NULL,
                     MPI_COMM_WORLD);
    mtest_win_zero(&w, (size_t) count * 32);
    mine = malloc(sizeof(int64_t) * (size_t) count);
    ones = malloc(sizeof(int64_t) * (size_t) count);
    stamp = malloc(sizeof(int64_t) * (size_t) count);
    got = malloc(sizeof(int64_t) * (size_t) count);
    fop_old = malloc(sizeof(int64_t) * (size_t) nprocs);
    for (int i = 0; i < count; ++i) {
        mine[i] = me + 1;
        ones[i] = 1;
    }
    if (MTEST_SYNC_LOCKALL == sync_mode) {
        MPI_CHECK(MPI_Win_lock_all(0, w.win));
    }
    for (int round = 1; round <= rounds; ++round) {
        round_run(round);
    }
    if (MTEST_SYNC_LOCKALL == sync_mode) {
        MPI_CHECK(MPI_Win_unlock_all(w.win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    check_blocks();
    MPI_Barrier(MPI_COMM_WORLD);
    mtest_win_free(&w);
    MPI_Type_free(&every_other);
    free(mine);
    free(ones);
    free(stamp);
    free(got);
    free(fop_old);
    return mtest_finalize();
}
