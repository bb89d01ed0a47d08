/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * ARMCI-MPI on osc/newrma: the calls Global Arrays and NWChem make.
 * - ARMCI_PutS / ARMCI_GetS / ARMCI_AccS of a 2-D patch (one stride level)
 *   to the next rank, and ARMCI_AccS from every rank to every rank;
 * - ARMCI_PutV / ARMCI_GetV / ARMCI_AccV of scattered elements;
 * - ARMCI_Rmw fetch-and-add (int and long) on one counter from every rank:
 *   the values returned are a permutation; ARMCI_SWAP_LONG chains;
 * - ARMCI_Lock / ARMCI_Unlock around a non-atomic read-modify-write.
 *
 * usage: armci_ops [iterations]
 */
#include "client.h"

#include <armci.h>

#define ROWS 24
#define COLS 40 /* doubles per row of a rank's matrix */

static int me, nprocs, iters = 50;

/* The patch rank r writes: rows [2, 2 + 9), columns [3, 3 + 17). */
#define PR0 2
#define PC0 3
#define PROWS 9
#define PCOLS 17

static double put_val(int from, int i, int j)
{
    return (double) (from * 10000 + i * 100 + j);
}

static void strided_args(int src_stride[1], int dst_stride[1], int count[2])
{
    src_stride[0] = PCOLS * (int) sizeof(double);
    dst_stride[0] = COLS * (int) sizeof(double);
    count[0] = PCOLS * (int) sizeof(double);
    count[1] = PROWS;
}

static int in_patch(int i, int j)
{
    return i >= PR0 && i < PR0 + PROWS && j >= PC0 && j < PC0 + PCOLS;
}

/* PutS to the next rank, Barrier, check my matrix; GetS back, check. */
static double strided_put_get(double **mat)
{
    int next = (me + 1) % nprocs, prev = (me + nprocs - 1) % nprocs;
    int src_stride[1], dst_stride[1], count[2];
    double patch[PROWS * PCOLS], back[PROWS * PCOLS], sum = 0.0;

    for (int i = 0; i < PROWS; ++i)
        for (int j = 0; j < PCOLS; ++j)
            patch[i * PCOLS + j] = put_val(me, PR0 + i, PC0 + j);
    strided_args(src_stride, dst_stride, count);
    ARMCI_PutS(patch, src_stride, &mat[next][PR0 * COLS + PC0], dst_stride, count, 1, next);
    ARMCI_Barrier();
    ARMCI_Access_begin(mat[me]);
    for (int i = 0; i < ROWS; ++i) {
        for (int j = 0; j < COLS; ++j) {
            double want = client_expect(in_patch(i, j) ? put_val(prev, i, j) : -1.0);
            double got = mat[me][i * COLS + j];
            MTEST_CHECK(got == want, "PutS: m[%d][%d] = %g, expected %g", i, j, got, want);
            sum += got;
        }
    }
    ARMCI_Access_end(mat[me]);
    ARMCI_GetS(&mat[next][PR0 * COLS + PC0], dst_stride, back, src_stride, count, 1, next);
    for (int x = 0; x < PROWS * PCOLS; ++x) {
        MTEST_CHECK(back[x] == client_expect(patch[x]), "GetS: [%d] = %g, expected %g", x, back[x],
                    patch[x]);
    }
    ARMCI_Barrier();
    return sum;
}

/* Every rank adds scale (me + 1) * 1.0 to the patch of every rank. */
static double strided_acc(double **mat)
{
    int src_stride[1], dst_stride[1], count[2];
    double ones[PROWS * PCOLS], scale = (double) (me + 1), sum = 0.0;
    int prev = (me + nprocs - 1) % nprocs;

    for (int x = 0; x < PROWS * PCOLS; ++x) {
        ones[x] = 1.0;
    }
    strided_args(src_stride, dst_stride, count);
    for (int p = 0; p < nprocs; ++p) {
        int t = (me + p) % nprocs;
        ARMCI_AccS(ARMCI_ACC_DBL, &scale, ones, src_stride, &mat[t][PR0 * COLS + PC0], dst_stride,
                   count, 1, t);
    }
    ARMCI_Barrier();
    ARMCI_Access_begin(mat[me]);
    for (int i = 0; i < ROWS; ++i) {
        for (int j = 0; j < COLS; ++j) {
            double want = in_patch(i, j) ? put_val(prev, i, j) + nprocs * (nprocs + 1) / 2 : -1.0;
            double got = mat[me][i * COLS + j];
            want = client_expect(want);
            MTEST_CHECK(got == want, "AccS: m[%d][%d] = %g, expected %g", i, j, got, want);
            sum += got;
        }
    }
    ARMCI_Access_end(mat[me]);
    ARMCI_Barrier();
    return sum;
}

/* Column 0 of every row of the next rank, as 8-byte segments: PutV writes
 * them, GetV reads them back, AccV adds 0.5 * 4 to each from every rank. */
static double vector_ops(double **mat)
{
    int next = (me + 1) % nprocs, prev = (me + nprocs - 1) % nprocs;
    double vals[ROWS], back[ROWS], fours[ROWS], scale = 0.5, sum = 0.0;
    void *src[ROWS], *dst[ROWS];
    armci_giov_t iov = {src, dst, (int) sizeof(double), ROWS};

    for (int i = 0; i < ROWS; ++i) {
        vals[i] = (double) (me * 100 + i);
        fours[i] = 4.0;
        src[i] = &vals[i];
        dst[i] = &mat[next][i * COLS];
    }
    ARMCI_PutV(&iov, 1, next);
    ARMCI_Fence(next);
    for (int i = 0; i < ROWS; ++i) {
        src[i] = &mat[next][i * COLS];
        dst[i] = &back[i];
    }
    ARMCI_GetV(&iov, 1, next);
    for (int i = 0; i < ROWS; ++i) {
        MTEST_CHECK(back[i] == client_expect(vals[i]), "GetV: [%d] = %g", i, back[i]);
    }
    ARMCI_Barrier();
    for (int p = 0; p < nprocs; ++p) {
        for (int i = 0; i < ROWS; ++i) {
            src[i] = &fours[i];
            dst[i] = &mat[p][i * COLS];
        }
        ARMCI_AccV(ARMCI_ACC_DBL, &scale, &iov, 1, p);
    }
    ARMCI_Barrier();
    ARMCI_Access_begin(mat[me]);
    for (int i = 0; i < ROWS; ++i) {
        double want = client_expect((double) (prev * 100 + i) + 2.0 * nprocs);
        MTEST_CHECK(mat[me][i * COLS] == want, "AccV: m[%d][0] = %g, expected %g", i,
                    mat[me][i * COLS], want);
        sum += mat[me][i * COLS];
    }
    ARMCI_Access_end(mat[me]);
    MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    ARMCI_Barrier();
    return sum;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *) a, y = *(const long *) b;

    return (x > y) - (x < y);
}

/* Fetch-and-add of 1 (int) and of 3 (long) on rank nprocs - 1's counters
 * from every rank: all fetched values together are 0, 1, ... and 0, 3, ... */
static double rmw_counters(long **ctr)
{
    int owner = nprocs - 1, total = iters * nprocs;
    long *mine = malloc(sizeof(long) * 2 * iters), *all = malloc(sizeof(long) * 2 * total);

    for (int i = 0; i < iters; ++i) {
        int fetched;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &fetched, (int *) &ctr[owner][0], 1, owner);
        mine[i] = fetched;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &mine[iters + i], &ctr[owner][1], 3, owner);
    }
    MPI_Allgather(mine, 2 * iters, MPI_LONG, all, 2 * iters, MPI_LONG, MPI_COMM_WORLD);
    for (int kind = 0; kind < 2; ++kind) {
        long *v = malloc(sizeof(long) * total);
        for (int r = 0; r < nprocs; ++r)
            for (int i = 0; i < iters; ++i)
                v[r * iters + i] = all[r * 2 * iters + kind * iters + i];
        qsort(v, (size_t) total, sizeof(long), cmp_long);
        for (int x = 0; x < total; ++x) {
            long want = (long) client_expect((double) x * (kind ? 3 : 1));
            MTEST_CHECK(v[x] == want, "Rmw %s: fetched value %d of the sorted set is %ld, not %ld",
                        kind ? "long" : "int", x, v[x], want);
        }
        free(v);
    }
    free(all);
    free(mine);
    ARMCI_Barrier();
    return (double) total;
}

/* Every rank swaps its id + 1 into rank 0's slot iters times; the values
 * fetched plus the final one are each id + 1 exactly iters times plus the
 * initial 0. */
static double rmw_swap(long **ctr)
{
    long *got = malloc(sizeof(long) * iters), final, counts[64] = {0};
    long *all = malloc(sizeof(long) * iters * nprocs);

    for (int i = 0; i < iters; ++i) {
        got[i] = me + 1;
        ARMCI_Rmw(ARMCI_SWAP_LONG, &got[i], &ctr[0][2], 0, 0);
    }
    MPI_Allgather(got, iters, MPI_LONG, all, iters, MPI_LONG, MPI_COMM_WORLD);
    ARMCI_Barrier();
    final = ARMCI_GetValueLong(&ctr[0][2], 0);
    for (int x = 0; x < iters * nprocs; ++x) {
        MTEST_CHECK(all[x] >= 0 && all[x] <= nprocs, "swap fetched %ld", all[x]);
        if (all[x] >= 0 && all[x] <= nprocs)
            counts[all[x]]++;
    }
    if (final >= 0 && final <= nprocs)
        counts[final]++;
    MTEST_CHECK(counts[0] == (long) client_expect(1.0), "initial value seen %ld times", counts[0]);
    for (int r = 1; r <= nprocs; ++r) {
        MTEST_CHECK(counts[r] == iters, "rank %d's value seen %ld times, expected %d", r - 1,
                    counts[r], iters);
    }
    free(all);
    free(got);
    ARMCI_Barrier();
    return (double) (iters * nprocs);
}

/* Under ARMCI mutex 0 of rank 0: get, add 1, put rank 0's ctr[3]. */
static double mutex_increment(long **ctr)
{
    long v;

    for (int i = 0; i < iters; ++i) {
        ARMCI_Lock(0, 0);
        ARMCI_Get(&ctr[0][3], &v, sizeof(long), 0);
        v += 1;
        ARMCI_Put(&v, &ctr[0][3], sizeof(long), 0);
        ARMCI_Fence(0);
        ARMCI_Unlock(0, 0);
    }
    ARMCI_Barrier();
    v = ARMCI_GetValueLong(&ctr[0][3], 0);
    MTEST_CHECK(v == (long) client_expect((double) iters * nprocs), "mutex counter %ld, expected %d",
                v, iters * nprocs);
    ARMCI_Barrier();
    return (double) v;
}

int main(int argc, char **argv)
{
    double **mat;
    long **ctr;

    mtest_init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    me = mtest_rank;
    if (argc > 1) {
        iters = atoi(argv[1]);
    }
    if (nprocs > 63) {
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    mat = malloc(sizeof(double *) * nprocs);
    ctr = malloc(sizeof(long *) * nprocs);
    ARMCI_Malloc((void **) mat, sizeof(double) * ROWS * COLS);
    ARMCI_Malloc((void **) ctr, sizeof(long) * 4);
    ARMCI_Create_mutexes(1);
    ARMCI_Access_begin(mat[me]);
    for (int x = 0; x < ROWS * COLS; ++x) {
        mat[me][x] = -1.0;
    }
    ARMCI_Access_end(mat[me]);
    ARMCI_Access_begin(ctr[me]);
    memset(ctr[me], 0, sizeof(long) * 4);
    ARMCI_Access_end(ctr[me]);
    ARMCI_Barrier();
    client_result("strided_put_get", strided_put_get(mat));
    client_result("strided_acc", strided_acc(mat));
    client_result("vector", vector_ops(mat));
    client_result("rmw_counters", rmw_counters(ctr));
    client_result("rmw_swap", rmw_swap(ctr));
    client_result("mutex", mutex_increment(ctr));
    ARMCI_Destroy_mutexes();
    ARMCI_Free(ctr[me]);
    ARMCI_Free(mat[me]);
    free(ctr);
    free(mat);
    ARMCI_Finalize();
    return mtest_finalize();
}
