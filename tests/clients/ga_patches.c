/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Global Arrays on ARMCI-MPI on osc/newrma: regular and irregular 2-D
 * distributions, NGA_Put / NGA_Get / NGA_Acc of patches that cross owners
 * (from origin buffers with a leading dimension wider than the patch),
 * NGA_Strided_put / NGA_Strided_acc with skips, GA_Sync between phases.
 * Every rank checks the whole array after each phase.
 *
 * usage: ga_patches [rows cols]
 */
#include "client.h"

#include <ga.h>
#include <macdecls.h>

static int rows = 67, cols = 45, nprocs;

static double pattern(int i, int j)
{
    return (double) (i * 1000 + j);
}

static double addend(int i, int j)
{
    return (double) ((i + 2 * j) % 7);
}

/* Fetch the whole array and compare it with expect(i, j). */
static double check_array(int g, const char *phase, double (*expect)(int, int, int))
{
    int lo[2] = {0, 0}, hi[2] = {rows - 1, cols - 1}, ld[1] = {cols};
    double *all = malloc(sizeof(double) * rows * cols), sum = 0.0;

    NGA_Get(g, lo, hi, all, ld);
    for (int i = 0; i < rows; ++i) {
        for (int j = 0; j < cols; ++j) {
            double want = client_expect(expect(i, j, nprocs)), got = all[i * cols + j];
            MTEST_CHECK(got == want, "%s: a[%d][%d] = %g, expected %g", phase, i, j, got, want);
            sum += got * (double) ((i + j) % 5 + 1);
        }
    }
    free(all);
    return sum;
}

/* Phase 1: rank r writes row block (r + 1) % nprocs of the array, from a
 * buffer whose rows are 3 elements longer than the patch. */
static void put_blocks(int g)
{
    int me = GA_Nodeid(), block = (me + 1) % nprocs;
    int lo[2] = {block * rows / nprocs, 0}, hi[2] = {(block + 1) * rows / nprocs - 1, cols - 1};
    int ld[1] = {cols + 3};
    double *buf = malloc(sizeof(double) * rows * (cols + 3));

    for (int i = lo[0]; i <= hi[0]; ++i) {
        for (int j = 0; j < cols; ++j) {
            buf[(i - lo[0]) * ld[0] + j] = pattern(i, j);
        }
    }
    if (hi[0] >= lo[0]) {
        NGA_Put(g, lo, hi, buf, ld);
    }
    free(buf);
}

static double expect_pattern(int i, int j, int n)
{
    (void) n;
    return pattern(i, j);
}

/* Phase 2: every rank accumulates alpha = rank + 1 times addend over the
 * interior [1, rows-2] x [2, cols-3]. */
static void acc_interior(int g)
{
    int lo[2] = {1, 2}, hi[2] = {rows - 2, cols - 3}, ld[1] = {cols};
    double alpha = (double) (GA_Nodeid() + 1), *buf = malloc(sizeof(double) * rows * cols);

    for (int i = lo[0]; i <= hi[0]; ++i) {
        for (int j = lo[1]; j <= hi[1]; ++j) {
            buf[(i - lo[0]) * ld[0] + (j - lo[1])] = addend(i, j);
        }
    }
    NGA_Acc(g, lo, hi, buf, ld, &alpha);
    free(buf);
}

static double expect_acc(int i, int j, int n)
{
    int inside = i >= 1 && i <= rows - 2 && j >= 2 && j <= cols - 3;

    return pattern(i, j) + (inside ? addend(i, j) * n * (n + 1) / 2 : 0.0);
}

/* Phase 3: rank 0 zeroes every second row and every third column with
 * NGA_Strided_put; every rank then adds 1 to the same elements with
 * NGA_Strided_acc. */
static void strided_phase(int g)
{
    int lo[2] = {0, 0}, hi[2] = {rows - 1, cols - 1}, skip[2] = {2, 3};
    int n0 = (rows + 1) / 2, n1 = (cols + 2) / 3, ld[1] = {n1};
    double one = 1.0, *buf = calloc((size_t) n0 * n1, sizeof(double));

    if (0 == GA_Nodeid()) {
        NGA_Strided_put(g, lo, hi, skip, buf, ld);
    }
    GA_Sync();
    for (int k = 0; k < n0 * n1; ++k) {
        buf[k] = 1.0;
    }
    NGA_Strided_acc(g, lo, hi, skip, buf, ld, &one);
    free(buf);
}

static double expect_strided(int i, int j, int n)
{
    return (0 == i % 2 && 0 == j % 3) ? (double) n : expect_acc(i, j, n);
}

static double run_phases(int g, const char *name)
{
    char phase[64];
    double sum;

    GA_Zero(g);
    put_blocks(g);
    GA_Sync();
    snprintf(phase, sizeof(phase), "%s put", name);
    check_array(g, phase, expect_pattern);
    GA_Sync();
    acc_interior(g);
    GA_Sync();
    snprintf(phase, sizeof(phase), "%s acc", name);
    check_array(g, phase, expect_acc);
    GA_Sync();
    strided_phase(g);
    GA_Sync();
    snprintf(phase, sizeof(phase), "%s strided", name);
    sum = check_array(g, phase, expect_strided);
    GA_Sync();
    return sum;
}

/* Rows split unevenly over half of the ranks (the first block holds a
 * third of them), columns over the rest (the first block a quarter). */
static int create_irregular(void)
{
    int prow = nprocs > 1 ? nprocs / 2 : 1, pcol = nprocs / prow, block[2] = {prow, pcol};
    int dims[2] = {rows, cols}, map[64], k = 0;

    map[k++] = 0;
    for (int p = 1; p < prow; ++p) {
        map[k++] = rows / 3 + (p - 1) * (rows - rows / 3) / prow;
    }
    map[k++] = 0;
    for (int q = 1; q < pcol; ++q) {
        map[k++] = cols / 4 + (q - 1) * (cols - cols / 4) / pcol;
    }
    return NGA_Create_irreg(C_DBL, 2, dims, "irregular", block, map);
}

int main(int argc, char **argv)
{
    int dims[2], g_reg, g_irr;

    mtest_init(&argc, &argv);
    GA_Initialize();
    if (!MA_init(C_DBL, 1 << 20, 1 << 20)) {
        GA_Error("MA_init failed", 0);
    }
    if (argc > 2) {
        rows = atoi(argv[1]);
        cols = atoi(argv[2]);
    }
    nprocs = GA_Nnodes();
    dims[0] = rows;
    dims[1] = cols;
    g_reg = NGA_Create(C_DBL, 2, dims, "regular", NULL);
    g_irr = create_irregular();
    MTEST_CHECK(0 != g_reg && 0 != g_irr, "NGA_Create failed");
    client_result("regular", run_phases(g_reg, "regular"));
    client_result("irregular", run_phases(g_irr, "irregular"));
    GA_Destroy(g_irr);
    GA_Destroy(g_reg);
    GA_Terminate();
    return mtest_finalize();
}
