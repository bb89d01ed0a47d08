/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Application kernels for the benchmark's "app" rows, timed as a whole
 * and checked (a wrong result prints "wrong" instead of a time):
 *   tasks N   Global Arrays task queue: NGA_Read_inc of a shared counter,
 *             NGA_Get of an N x N tile, a small multiply, NGA_Acc of the
 *             result into C; seconds for all tasks
 *   dgemm N   GA_Dgemm of N x N matrices; seconds
 *   halo SYNC N ITERS
 *             2-D halo exchange on a process grid: each rank PUTs the four
 *             edges of its N x N block into its neighbours' halos, in fence
 *             or PSCW epochs (SYNC); microseconds per exchange
 * Output: "RESULT app:KIND:NAME:-:- VALUE UNIT" from rank 0, the benchmark
 * program's format (bench/run.py).
 */
#include <ga.h>
#include <macdecls.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TILE  48
#define TASKS 256

static int me, nprocs;

static void report(const char *row, int ok, double value, const char *unit)
{
    int all_ok;

    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (0 == me) {
        if (all_ok) {
            printf("RESULT %s %.6g %s\n", row, value, unit);
        } else {
            printf("RESULT %s wrong %s\n", row, unit);
        }
        fflush(stdout);
    }
}

static double a_val(int i, int j)
{
    return (double) ((i + 2 * j) % 5 - 2);
}

static int create2(int d0, int d1, const char *name)
{
    int dims[2] = {d0, d1};

    return NGA_Create(C_DBL, 2, dims, (char *) name, NULL);
}

static void fill(int g, int n)
{
    int lo[2], hi[2], ld[1];

    NGA_Distribution(g, me, lo, hi);
    if (lo[0] < 0) {
        return;
    }
    ld[0] = hi[1] - lo[1] + 1;
    double *buf = malloc(sizeof(double) * (hi[0] - lo[0] + 1) * ld[0]);
    for (int i = lo[0]; i <= hi[0]; ++i)
        for (int j = lo[1]; j <= hi[1]; ++j)
            buf[(i - lo[0]) * ld[0] + j - lo[1]] = a_val(i, j);
    NGA_Put(g, lo, hi, buf, ld);
    free(buf);
    (void) n;
}

/* Task t: tile (t % nt, (t / nt) % nt) of A squared (tile times tile) and
 * added to the same tile of C. */
static void tasks(int n)
{
    int nt = n / TILE, g_a = create2(n, n, "A"), g_c = create2(n, n, "C"), one[1] = {1};
    int g_cnt = NGA_Create(C_LONG, 1, one, "counter", NULL), zero[1] = {0}, ok = 1;
    double t0, *tile = malloc(sizeof(double) * TILE * TILE),
               *sq = malloc(sizeof(double) * TILE * TILE);
    double alpha = 1.0;
    long t;

    GA_Zero(g_c);
    GA_Zero(g_cnt);
    fill(g_a, n);
    GA_Sync();
    t0 = MPI_Wtime();
    while ((t = NGA_Read_inc(g_cnt, zero, 1)) < TASKS) {
        int ti = (int) (t % nt), tj = (int) ((t / nt) % nt), ld[1] = {TILE};
        int lo[2] = {ti * TILE, tj * TILE}, hi[2] = {ti * TILE + TILE - 1, tj * TILE + TILE - 1};
        NGA_Get(g_a, lo, hi, tile, ld);
        for (int i = 0; i < TILE; ++i)
            for (int j = 0; j < TILE; ++j) {
                double s = 0.0;
                for (int x = 0; x < TILE; ++x)
                    s += tile[i * TILE + x] * tile[x * TILE + j];
                sq[i * TILE + j] = s;
            }
        NGA_Acc(g_c, lo, hi, sq, ld, &alpha);
    }
    GA_Sync();
    t0 = MPI_Wtime() - t0;
    if (0 == me) { /* tile (0, 0) was hit TASKS / (nt * nt) times at least */
        int lo[2] = {0, 0}, hi[2] = {TILE - 1, TILE - 1}, ld[1] = {TILE}, hits = 0;
        for (int x = 0; x < TASKS; ++x)
            hits += (x % nt == 0 && (x / nt) % nt == 0);
        NGA_Get(g_a, lo, hi, tile, ld);
        NGA_Get(g_c, lo, hi, sq, ld);
        for (int i = 0; i < TILE && ok; ++i)
            for (int j = 0; j < TILE; ++j) {
                double s = 0.0;
                for (int x = 0; x < TILE; ++x)
                    s += tile[i * TILE + x] * tile[x * TILE + j];
                if (sq[i * TILE + j] != s * hits) {
                    ok = 0;
                    break;
                }
            }
    }
    report("app:ga:tasks:-:-", ok, t0, "s");
    free(sq);
    free(tile);
    GA_Destroy(g_cnt);
    GA_Destroy(g_c);
    GA_Destroy(g_a);
}

/* C = A * A; checked through row sums: C 1 = A (A 1). */
static void dgemm(int n)
{
    int g_a = create2(n, n, "A"), g_c = create2(n, n, "C"), ok = 1;
    double t0;

    fill(g_a, n);
    GA_Zero(g_c);
    GA_Sync();
    t0 = MPI_Wtime();
    GA_Dgemm('N', 'N', n, n, n, 1.0, g_a, g_a, 0.0, g_c);
    GA_Sync();
    t0 = MPI_Wtime() - t0;
    if (0 == me) {
        int lo[2] = {0, 0}, hi[2] = {n - 1, n - 1}, ld[1] = {n};
        double *c = malloc(sizeof(double) * n * n), *rs = malloc(sizeof(double) * n);
        NGA_Get(g_c, lo, hi, c, ld);
        for (int i = 0; i < n; ++i) {
            rs[i] = 0.0;
            for (int j = 0; j < n; ++j)
                rs[i] += a_val(i, j);
        }
        for (int i = 0; i < n && ok; ++i) {
            double want = 0.0, got = 0.0;
            for (int x = 0; x < n; ++x)
                want += a_val(i, x) * rs[x];
            for (int j = 0; j < n; ++j)
                got += c[i * n + j];
            ok = (want == got);
        }
        free(rs);
        free(c);
    }
    report("app:ga:dgemm:-:-", ok, t0, "s");
    GA_Destroy(g_c);
    GA_Destroy(g_a);
}

/* ---- halo exchange ---- */

static int n_halo, dims[2], coords[2], nbr[4]; /* up, down, left, right */
static MPI_Comm grid;

static double edge_val(int rank, int iter, int side, int k)
{
    return (double) (rank * 1000000 + iter * 1000 + side * 200 + k);
}

/* My block is (n + 2) x (n + 2) with a halo ring.  My four edges (side 0
 * top, 1 bottom, 2 left, 3 right), from a send buffer, land in the
 * neighbours' halos: top -> up's bottom halo row, bottom -> down's top halo
 * row, left -> left's right halo column, right -> right's left halo column.
 * Even and odd iterations use two blocks: in fence epochs a neighbour may
 * put the next iteration's edges while this rank still reads its halo. */
static void halo_put(MPI_Win win, double *send, int iter, MPI_Datatype col)
{
    int n = n_halo, w = n + 2;
    MPI_Aint par = (MPI_Aint) (iter % 2) * w * w;
    MPI_Aint dst[4] = {par + (n + 1) * w + 1, par + 1, par + w + n + 1, par + w};

    for (int s = 0; s < 4; ++s) {
        for (int k = 0; k < n; ++k) {
            send[s * n + k] = edge_val(me, iter, s, k);
        }
        if (MPI_PROC_NULL != nbr[s]) {
            if (s < 2)
                MPI_Put(&send[s * n], n, MPI_DOUBLE, nbr[s], dst[s], n, MPI_DOUBLE, win);
            else
                MPI_Put(&send[s * n], n, MPI_DOUBLE, nbr[s], dst[s], 1, col, win);
        }
    }
}

static int halo_check(const double *block, int iter)
{
    int n = n_halo, w = n + 2, ok = 1;
    const double *base = block + (iter % 2) * w * w;

    for (int k = 0; k < n; ++k) {
        if (MPI_PROC_NULL != nbr[0])
            ok &= base[1 + k] == edge_val(nbr[0], iter, 1, k);
        if (MPI_PROC_NULL != nbr[1])
            ok &= base[(n + 1) * w + 1 + k] == edge_val(nbr[1], iter, 0, k);
        if (MPI_PROC_NULL != nbr[2])
            ok &= base[(1 + k) * w] == edge_val(nbr[2], iter, 3, k);
        if (MPI_PROC_NULL != nbr[3])
            ok &= base[(1 + k) * w + n + 1] == edge_val(nbr[3], iter, 2, k);
    }
    return ok;
}

static void halo(const char *sync, int n, int iters)
{
    int periods[2] = {0, 0}, pscw = (0 == strcmp(sync, "pscw")), ok = 1, w = n + 2, nn = 0;
    int ranks[4];
    MPI_Group world_group, nbr_group;
    MPI_Datatype col;
    MPI_Win win;
    double *base, *send = malloc(sizeof(double) * 4 * n), t0;
    char row[64];

    n_halo = n;
    MPI_Dims_create(nprocs, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Cart_coords(grid, me, 2, coords);
    MPI_Cart_shift(grid, 0, 1, &nbr[0], &nbr[1]);
    MPI_Cart_shift(grid, 1, 1, &nbr[2], &nbr[3]);
    for (int s = 0; s < 4; ++s)
        if (MPI_PROC_NULL != nbr[s])
            ranks[nn++] = nbr[s];
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Group_incl(world_group, nn, ranks, &nbr_group);
    MPI_Type_vector(n, 1, w, MPI_DOUBLE, &col);
    MPI_Type_commit(&col);
    MPI_Win_allocate((MPI_Aint) (sizeof(double) * 2 * w * w), sizeof(double), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &base, &win);
    memset(base, 0, sizeof(double) * 2 * w * w);
    if (!pscw)
        MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int it = 0; it < iters; ++it) {
        if (pscw) {
            MPI_Win_post(nbr_group, 0, win);
            MPI_Win_start(nbr_group, 0, win);
        }
        halo_put(win, send, it, col);
        if (pscw) {
            MPI_Win_complete(win);
            MPI_Win_wait(win);
        } else {
            MPI_Win_fence(0, win);
        }
        ok &= halo_check(base, it);
    }
    t0 = MPI_Wtime() - t0;
    if (!pscw)
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    snprintf(row, sizeof(row), "app:halo:%s:-:-", sync);
    report(row, ok, t0 / iters * 1e6, "us");
    MPI_Win_free(&win);
    MPI_Type_free(&col);
    MPI_Group_free(&nbr_group);
    MPI_Group_free(&world_group);
    MPI_Comm_free(&grid);
    free(send);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s tasks N | dgemm N | halo fence|pscw N ITERS\n", argv[0]);
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (0 == strcmp(argv[1], "halo") && argc > 4) {
        halo(argv[2], atoi(argv[3]), atoi(argv[4]));
    } else {
        GA_Initialize();
        if (!MA_init(C_DBL, 1 << 22, 1 << 22)) {
            GA_Error("MA_init failed", 0);
        }
        if (0 == strcmp(argv[1], "tasks")) {
            tasks(atoi(argv[2]));
        } else if (0 == strcmp(argv[1], "dgemm")) {
            dgemm(atoi(argv[2]));
        }
        GA_Terminate();
    }
    MPI_Finalize();
    return 0;
}
