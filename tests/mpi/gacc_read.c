/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Reads as ARMCI-MPI makes them: MPI_Get_accumulate(NULL, 0, MPI_BYTE,
 * result, n, type, ..., MPI_NO_OP), the origin left empty (and of another
 * type), racing multi-element accumulates on the same elements from every
 * rank.
 *
 * Phase 1, int64: every rank adds 1 to each element of every rank's
 * block (MPI_Accumulate SUM) and reads the block back the ARMCI way after
 * each add; a read never sees an element smaller than its own previous
 * read of it plus its own add, nor larger than all adds; at the end every
 * element holds the number of adds exactly.
 * Phase 2, double: every rank writes every block whole (MPI_REPLACE) with
 * its stamp (rank + 1) * 1e6 + iteration in each element, and reads blocks
 * back the ARMCI way: every element read is some rank's stamp of some
 * iteration, and a reader's own write shows until someone else's lands;
 * at the end each element holds some rank's last stamp.
 * Reads of a block shifted by one element (not aligned with the writes)
 * check that the read covers the range it asked for.
 *
 * usage: gacc_read FLAVOR SYNC [ITERS] [COUNT] [dear]   (SYNC: lock | lockall)
 * With "dear", the cross-memory copy is taken as dear (osc_newrma_cma_cheap
 * 0), so that large reads take turns between the copy under the lock and
 * UCX's transfer without it (read again where an accumulate overlapped).
 */
#include "mtest.h"

static int me, nprocs, iters = 200, count = 48, sync_mode;
static mtest_win_t w;

static void read_block(void *result, int n, MPI_Datatype type, int target, MPI_Aint disp)
{
    MPI_CHECK(MPI_Get_accumulate(NULL, 0, MPI_BYTE, result, n, type, target, w.disp0[target] + disp,
                                 n, type, MPI_NO_OP, w.win));
}

/* One write of @p src to @p t's block by @p op, then the block read back
 * into @p got; both complete at return. */
static void write_then_read(int t, const void *src, MPI_Datatype type, MPI_Op op, void *got)
{
    mtest_round_open(w.win, sync_mode, MPI_LOCK_SHARED, t);
    MPI_CHECK(MPI_Accumulate(src, count, type, t, w.disp0[t], count, type, op, w.win));
    read_block(got, count, type, t, 0);
    mtest_round_close(w.win, sync_mode, t);
}

static void phase_sum(void)
{
    int64_t *one = malloc(sizeof(int64_t) * (size_t) count);
    int64_t *got = malloc(sizeof(int64_t) * (size_t) count);
    int64_t *seen = calloc((size_t) nprocs * (size_t) count, sizeof(int64_t));
    int64_t total = (int64_t) iters * nprocs;

    for (int i = 0; i < count; ++i)
        one[i] = 1;
    mtest_win_zero(&w, sizeof(int64_t) * (size_t) count);
    mtest_rounds_begin(w.win, sync_mode);
    for (int it = 0; it < iters; ++it) {
        for (int k = 0; k < nprocs; ++k) {
            int t = (me + k) % nprocs;
            int64_t *last = seen + (size_t) t * (size_t) count;

            write_then_read(t, one, MPI_INT64_T, MPI_SUM, got);
            for (int i = 0; i < count; ++i) {
                MTEST_CHECK(
                    got[i] >= last[i] + 1 && got[i] <= total,
                    "sum: rank %d element %d read %lld after %lld and an add (at most %lld)", t, i,
                    (long long) got[i], (long long) last[i], (long long) total);
                last[i] = got[i];
            }
        }
    }
    mtest_rounds_end(w.win, sync_mode);
    MPI_Barrier(MPI_COMM_WORLD);
    mtest_local_load(&w, 0, got, sizeof(int64_t) * (size_t) count);
    for (int i = 0; i < count; ++i) {
        MTEST_CHECK(got[i] == total, "sum: element %d of my block holds %lld, expected %lld", i,
                    (long long) got[i], (long long) total);
    }
    free(one);
    free(got);
    free(seen);
}

/* Whether @p v is the stamp of some rank's write of some iteration (the
 * rank in *@p rank_p). */
static int is_stamp(double v, int *rank_p)
{
    long long s = (long long) v, r = s / 1000000 - 1, it = s % 1000000;

    *rank_p = (int) r;
    return (double) s == v && r >= 0 && r < nprocs && it < iters;
}

static void phase_replace(void)
{
    double *mine = malloc(sizeof(double) * (size_t) count);
    double *got = malloc(sizeof(double) * (size_t) (count + 1));
    double *init = malloc(sizeof(double) * (size_t) (count + 1));
    int n = count + 1, rank;

    /* one element past the block, which nobody writes in this phase */
    for (int i = 0; i < n; ++i)
        init[i] = 1000000.0 * (me + 1);
    mtest_local_store(&w, 0, init, sizeof(double) * (size_t) n);
    MPI_Barrier(MPI_COMM_WORLD);
    mtest_rounds_begin(w.win, sync_mode);
    for (int it = 0; it < iters; ++it) {
        for (int i = 0; i < count; ++i)
            mine[i] = 1000000.0 * (me + 1) + it;
        for (int k = 0; k < nprocs; ++k) {
            int t = (me + k) % nprocs;

            write_then_read(t, mine, MPI_DOUBLE, MPI_REPLACE, got);
            for (int i = 0; i < count; ++i) {
                MTEST_CHECK(is_stamp(got[i], &rank),
                            "replace: rank %d element %d read %.17g, no rank's stamp", t, i,
                            got[i]);
                MTEST_CHECK(rank != me || got[i] == mine[i],
                            "replace: rank %d element %d read my stamp %.17g, I wrote %.17g", t, i,
                            got[i], mine[i]);
            }
            /* shifted by one element: elements 1..count, the last never written */
            mtest_round_open(w.win, sync_mode, MPI_LOCK_SHARED, t);
            read_block(got, count, MPI_DOUBLE, t, (MPI_Aint) sizeof(double));
            mtest_round_close(w.win, sync_mode, t);
            for (int i = 0; i < count; ++i) {
                MTEST_CHECK(is_stamp(got[i], &rank),
                            "replace: shifted read of rank %d element %d "
                            "read %.17g",
                            t, i + 1, got[i]);
            }
            MTEST_CHECK(got[count - 1] == 1000000.0 * (t + 1),
                        "replace: rank %d element %d (never written) read %.17g", t, count,
                        got[count - 1]);
        }
    }
    mtest_rounds_end(w.win, sync_mode);
    MPI_Barrier(MPI_COMM_WORLD);
    mtest_local_load(&w, 0, got, sizeof(double) * (size_t) n);
    for (int i = 0; i < count; ++i) {
        MTEST_CHECK(is_stamp(got[i], &rank) && (long long) got[i] % 1000000 == iters - 1,
                    "replace: element %d of my block holds %.17g, no rank's last stamp", i, got[i]);
    }
    free(mine);
    free(got);
    free(init);
}

int main(int argc, char **argv)
{
    if (argc > 5 && 0 == strcmp(argv[5], "dear")) {
        setenv("OMPI_MCA_osc_newrma_cma_cheap", "0", 0);
    }
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 3) {
        fprintf(stderr, "usage: gacc_read FLAVOR SYNC [ITERS] [COUNT]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    sync_mode = mtest_sync(argv[2]);
    if (MTEST_SYNC_LOCK != sync_mode && MTEST_SYNC_LOCKALL != sync_mode) {
        fprintf(stderr, "gacc_read: SYNC is lock or lockall\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (argc > 3)
        iters = atoi(argv[3]);
    if (argc > 4)
        count = atoi(argv[4]);
    mtest_win_create(&w, argv[1], sizeof(double) * (size_t) (count + 1), MPI_INFO_NULL,
                     MPI_COMM_WORLD);
    phase_sum();
    phase_replace();
    mtest_win_free(&w);
    return mtest_finalize();
}
