/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Global Arrays on ARMCI-MPI on osc/newrma, as applications use it:
 * - a task queue: every rank takes tasks from one NGA_Read_inc counter,
 *   NGA_Get's the task's tile of A, computes, and NGA_Acc's into C and into
 *   a row every task hits; each task is taken exactly once;
 * - GA_Dgemm of integer-valued matrices against the product computed here;
 * - GA_Transpose of the product.
 *
 * usage: ga_tasks [m n k tasks]
 */
#include "client.h"

#include <ga.h>
#include <macdecls.h>

static int m = 60, n = 44, k = 36, ntasks = 97, tile = 4;

static double a_val(int i, int j)
{
    return (double) ((i + 3 * j) % 5 - 2);
}

static double b_val(int i, int j)
{
    return (double) ((2 * i + j) % 7 - 3);
}

static int create2(int type, int d0, int d1, const char *name)
{
    int dims[2] = {d0, d1};

    return NGA_Create(type, 2, dims, (char *) name, NULL);
}

/* Rank 0 writes A (m x k) and B (k x n) whole. */
static void fill_inputs(int g_a, int g_b)
{
    if (0 == GA_Nodeid()) {
        double *a = malloc(sizeof(double) * m * k), *b = malloc(sizeof(double) * k * n);
        int lo[2] = {0, 0}, hi_a[2] = {m - 1, k - 1}, hi_b[2] = {k - 1, n - 1};
        int ld_a[1] = {k}, ld_b[1] = {n};

        for (int i = 0; i < m; ++i)
            for (int j = 0; j < k; ++j)
                a[i * k + j] = a_val(i, j);
        for (int i = 0; i < k; ++i)
            for (int j = 0; j < n; ++j)
                b[i * n + j] = b_val(i, j);
        NGA_Put(g_a, lo, hi_a, a, ld_a);
        NGA_Put(g_b, lo, hi_b, b, ld_b);
        free(a);
        free(b);
    }
    GA_Sync();
}

/* Task t covers rows [t * tile, t * tile + tile) of A, wrapped to m; it
 * adds 2 * A's tile to C's tile, row sums to "total", and 1 to seen[t]. */
static void do_task(int t, int g_a, int g_c, int g_total, int g_seen)
{
    int r0 = (t * tile) % (m - tile + 1), lo[2] = {r0, 0}, hi[2] = {r0 + tile - 1, k - 1};
    int ld[1] = {k}, tlo[1] = {0}, thi[1] = {tile - 1}, slo[1] = {t};
    double buf[tile * k], sums[tile], two = 2.0, one = 1.0;
    long mark = 1, lone = 1;

    NGA_Get(g_a, lo, hi, buf, ld);
    for (int i = 0; i < tile; ++i) {
        sums[i] = 0.0;
        for (int j = 0; j < k; ++j) {
            sums[i] += buf[i * k + j];
        }
    }
    NGA_Acc(g_c, lo, hi, buf, ld, &two);
    NGA_Acc(g_total, tlo, thi, sums, NULL, &one);
    NGA_Acc(g_seen, slo, slo, &mark, NULL, &lone);
}

static double task_queue(int g_a)
{
    int one_dim[1] = {1}, tdim[1] = {tile}, sdim[1] = {ntasks}, zero[1] = {0};
    int g_cnt = NGA_Create(C_LONG, 1, one_dim, "counter", NULL);
    int g_total = NGA_Create(C_DBL, 1, tdim, "total", NULL);
    int g_seen = NGA_Create(C_LONG, 1, sdim, "seen", NULL);
    int g_c = create2(C_DBL, m, k, "tiles");
    double total[tile], want_total[tile], sum = 0.0, *c = malloc(sizeof(double) * m * k);
    long seen[ntasks], t, mine = 0;
    int lo[2] = {0, 0}, hi[2] = {m - 1, k - 1}, ld[1] = {k}, thi[1] = {tile - 1}, shi[1] = {ntasks - 1};

    GA_Zero(g_cnt);
    GA_Zero(g_total);
    GA_Zero(g_seen);
    GA_Zero(g_c);
    while ((t = NGA_Read_inc(g_cnt, zero, 1)) < ntasks) {
        do_task((int) t, g_a, g_c, g_total, g_seen);
        ++mine;
    }
    GA_Sync();
    NGA_Get(g_seen, zero, shi, seen, NULL);
    for (int i = 0; i < ntasks; ++i) {
        MTEST_CHECK(seen[i] == (long) client_expect(1.0), "task %d taken %ld times", i, seen[i]);
    }
    NGA_Get(g_total, zero, thi, total, NULL);
    NGA_Get(g_c, lo, hi, c, ld);
    for (int i = 0; i < tile; ++i) {
        want_total[i] = 0.0;
    }
    for (int x = 0; x < m * k; ++x) {
        c[x] = 0.0 - c[x];
    }
    for (int task = 0; task < ntasks; ++task) {
        int r0 = (task * tile) % (m - tile + 1);
        for (int i = 0; i < tile; ++i)
            for (int j = 0; j < k; ++j) {
                want_total[i] += a_val(r0 + i, j);
                c[(r0 + i) * k + j] += 2.0 * a_val(r0 + i, j);
            }
    }
    for (int i = 0; i < tile; ++i) {
        MTEST_CHECK(total[i] == client_expect(want_total[i]), "total[%d] = %g, expected %g", i,
                    total[i], want_total[i]);
        sum += total[i];
    }
    for (int x = 0; x < m * k; ++x) {
        MTEST_CHECK(c[x] == 0.0, "tiles[%d][%d] off by %g", x / k, x % k, c[x]);
    }
    MPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MTEST_CHECK(mine == ntasks, "%ld tasks done, expected %d", mine, ntasks);
    GA_Destroy(g_c);
    GA_Destroy(g_seen);
    GA_Destroy(g_total);
    GA_Destroy(g_cnt);
    free(c);
    return sum;
}

static double product(int i, int j)
{
    double s = 0.0;

    for (int x = 0; x < k; ++x) {
        s += a_val(i, x) * b_val(x, j);
    }
    return s;
}

/* C = A * B with GA_Dgemm, then T = C^T with GA_Transpose; both checked
 * element by element. */
static double dgemm_transpose(int g_a, int g_b)
{
    int g_c = create2(C_DBL, m, n, "C"), g_t = create2(C_DBL, n, m, "T");
    int lo[2] = {0, 0}, hi_c[2] = {m - 1, n - 1}, hi_t[2] = {n - 1, m - 1};
    int ld_c[1] = {n}, ld_t[1] = {m};
    double *c = malloc(sizeof(double) * m * n), *t = malloc(sizeof(double) * m * n), sum = 0.0;

    GA_Zero(g_c);
    GA_Dgemm('N', 'N', m, n, k, 1.0, g_a, g_b, 0.0, g_c);
    GA_Transpose(g_c, g_t);
    GA_Sync();
    NGA_Get(g_c, lo, hi_c, c, ld_c);
    NGA_Get(g_t, lo, hi_t, t, ld_t);
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
            double want = client_expect(product(i, j));
            MTEST_CHECK(c[i * n + j] == want, "C[%d][%d] = %g, expected %g", i, j, c[i * n + j],
                        want);
            MTEST_CHECK(t[j * m + i] == want, "T[%d][%d] = %g, expected %g", j, i, t[j * m + i],
                        want);
            sum += c[i * n + j] * (double) (i + 2 * j + 1);
        }
    }
    free(c);
    free(t);
    GA_Destroy(g_t);
    GA_Destroy(g_c);
    return sum;
}

int main(int argc, char **argv)
{
    int g_a, g_b;

    mtest_init(&argc, &argv);
    GA_Initialize();
    if (!MA_init(C_DBL, 1 << 20, 1 << 20)) {
        GA_Error("MA_init failed", 0);
    }
    if (argc > 4) {
        m = atoi(argv[1]);
        n = atoi(argv[2]);
        k = atoi(argv[3]);
        ntasks = atoi(argv[4]);
    }
    g_a = create2(C_DBL, m, k, "A");
    g_b = create2(C_DBL, k, n, "B");
    fill_inputs(g_a, g_b);
    client_result("task_queue", task_queue(g_a));
    client_result("dgemm", dgemm_transpose(g_a, g_b));
    GA_Destroy(g_b);
    GA_Destroy(g_a);
    GA_Terminate();
    return mtest_finalize();
}
