/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * MPI_MAXLOC and MPI_MINLOC of the pair types stored without padding
 * (MPI_2INT, MPI_FLOAT_INT, MPI_2REAL, MPI_2DOUBLE_PRECISION, MPI_2INTEGER),
 * which the component reduces with loops of its own: from every rank to
 * every rank, 1 to 3001 pairs at a target address 8 bytes past a cache
 * line, values with ties between ranks and with the target's (and -0.0
 * beside 0.0), so that every branch
 * of the rule is taken: the greater (lesser) value wins, equal values keep
 * the lesser index.  Each target's pairs must equal what Open MPI's own
 * reduction (MPI_Reduce_local) makes of the same operands; the rule is
 * commutative and associative, so the arrival order does not matter
 * (values compared as numbers: which zero stays depends on it).
 *
 * usage: acc_loc_pairs FLAVOR SYNC [acc|gacc]
 */
#include <stdbool.h>

#include "mtest.h"

typedef enum { P_2INT, P_FLOAT_INT, P_2REAL, P_2DOUBLE, P_2INTEGER, NPAIRS } pair_t;

static const char *const pair_names[NPAIRS] = {"MPI_2INT", "MPI_FLOAT_INT", "MPI_2REAL",
                                               "MPI_2DOUBLE_PRECISION", "MPI_2INTEGER"};

static MPI_Datatype pair_type(pair_t p)
{
    switch (p) {
        case P_2INT:
            return MPI_2INT;
        case P_FLOAT_INT:
            return MPI_FLOAT_INT;
        case P_2REAL:
            return MPI_2REAL;
        case P_2DOUBLE:
            return MPI_2DOUBLE_PRECISION;
        default:
            return MPI_2INTEGER;
    }
}

/* The pair's bytes: the size the layout below assumes (Fortran's INTEGER
 * and REAL of 4 bytes, DOUBLE PRECISION of 8); 0 where it differs. */
static size_t pair_size(pair_t p)
{
    MPI_Datatype dt = pair_type(p);
    size_t want = P_2DOUBLE == p ? 16 : 8;
    int size = 0;

    if (MPI_DATATYPE_NULL == dt) {
        return 0;
    }
    MPI_Type_size(dt, &size);
    return (size_t) size == want ? want : 0;
}

static void pair_set(pair_t p, char *at, double v, int k)
{
    int iv[2] = {(int) v, k};
    float fv[2] = {(float) v, (float) k};
    double dv[2] = {v, k};

    switch (p) {
        case P_2INT:
        case P_2INTEGER:
            memcpy(at, iv, 8);
            break;
        case P_FLOAT_INT:
            memcpy(at, &fv[0], 4);
            memcpy(at + 4, &k, 4);
            break;
        case P_2REAL:
            memcpy(at, fv, 8);
            break;
        default:
            memcpy(at, dv, 16);
    }
}

static void pair_get(pair_t p, const char *at, double *v, double *k)
{
    int iv[2];
    float fv[2];
    double dv[2];

    switch (p) {
        case P_2INT:
        case P_2INTEGER:
            memcpy(iv, at, 8);
            *v = iv[0];
            *k = iv[1];
            break;
        case P_FLOAT_INT:
            memcpy(&fv[0], at, 4);
            memcpy(&iv[1], at + 4, 4);
            *v = fv[0];
            *k = iv[1];
            break;
        case P_2REAL:
            memcpy(fv, at, 8);
            *v = fv[0];
            *k = fv[1];
            break;
        default:
            memcpy(dv, at, 16);
            *v = dv[0];
            *k = dv[1];
    }
}

/* Rank @p r's operand @p i for target @p t: values -2..2, the same for
 * ranks 2j and 2j+1 (a zero of a float type negative every other time),
 * indexes 0..16, different for those two. */
static void operand(pair_t p, int r, int t, int i, char *at)
{
    double v = (double) ((t * 3 + i * 5 + (r & ~1) * 7) % 5 - 2);

    if (0.0 == v && P_2INT != p && P_2INTEGER != p && (i & 1)) {
        v = -0.0;
    }
    pair_set(p, at, v, (r * 13 + i) % 17);
}

/* The target's pairs before the epoch: a value some operands equal. */
static void initial(pair_t p, MPI_Op op, int i, char *at)
{
    pair_set(p, at, MPI_MAXLOC == op ? -1.0 : 1.0, 8 + i % 3);
}

#define MAXN 3001
/* a cache line and 8 bytes into the window: the loops' head and body */
#define OFFSET 72

static void run_case(mtest_win_t *w, int sync, bool gacc, pair_t p, MPI_Op op, int n, int me,
                     int nprocs)
{
    size_t size = pair_size(p), bytes = size * (size_t) n;
    MPI_Datatype dt = pair_type(p);
    /* an origin and a result buffer per target: in an active epoch they
     * are in use until it ends */
    char *origins = malloc(bytes * (size_t) nprocs), *results = malloc(bytes * (size_t) nprocs),
         *mine = malloc(bytes), *want = malloc(bytes), *theirs = malloc(bytes);

    for (int i = 0; i < n; ++i) {
        initial(p, op, i, mine + (size_t) i * size);
    }
    mtest_local_store(w, OFFSET, mine, bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    mtest_epoch_begin(w->win, sync);
    for (int k = 0; k < nprocs; ++k) {
        int t = (me + k) % nprocs;
        MPI_Aint disp = w->disp0[t] + OFFSET;
        char *origin = origins + bytes * (size_t) t, *result = results + bytes * (size_t) t;

        for (int i = 0; i < n; ++i) {
            operand(p, me, t, i, origin + (size_t) i * size);
        }
        mtest_op_begin(w->win, sync, t);
        if (gacc) {
            MPI_CHECK(MPI_Get_accumulate(origin, n, dt, result, n, dt, t, disp, n, dt, op, w->win));
        } else {
            MPI_CHECK(MPI_Accumulate(origin, n, dt, t, disp, n, dt, op, w->win));
        }
        mtest_op_end(w->win, sync, t);
    }
    mtest_epoch_end(w->win, sync);
    mtest_local_load(w, OFFSET, mine, bytes);
    for (int i = 0; i < n; ++i) {
        initial(p, op, i, want + (size_t) i * size);
    }
    for (int r = 0; r < nprocs; ++r) {
        for (int i = 0; i < n; ++i) {
            operand(p, r, me, i, theirs + (size_t) i * size);
        }
        MPI_CHECK(MPI_Reduce_local(theirs, want, n, dt, op));
    }
    for (int i = 0; i < n; ++i) {
        double gv, gk, wv, wk;

        pair_get(p, mine + (size_t) i * size, &gv, &gk);
        pair_get(p, want + (size_t) i * size, &wv, &wk);
        MTEST_CHECK(gv == wv && gk == wk, "%s %s n=%d pair %d: (%g, %g), expected (%g, %g)",
                    pair_names[p], MPI_MAXLOC == op ? "MAXLOC" : "MINLOC", n, i, gv, gk, wv, wk);
    }
    free(origins);
    free(results);
    free(mine);
    free(want);
    free(theirs);
}

int main(int argc, char **argv)
{
    static const int counts[] = {1, 7, 600, MAXN};
    int me, nprocs, sync, unused = 0, tested = 0;
    bool gacc;
    mtest_win_t w;

    mtest_start(&argc, &argv, &me, &nprocs, &sync, &unused, &unused);
    gacc = argc > 3 && 0 == strcmp(argv[3], "gacc");
    mtest_win_create(&w, argc > 1 ? argv[1] : "allocate", OFFSET + 16 * MAXN, MPI_INFO_NULL,
                     MPI_COMM_WORLD);
    for (int p = 0; p < NPAIRS; ++p) {
        if (0 == pair_size((pair_t) p)) {
            continue; /* not this layout here */
        }
        for (int o = 0; o < 2; ++o) {
            for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); ++c) {
                run_case(&w, sync, gacc, (pair_t) p, o ? MPI_MINLOC : MPI_MAXLOC, counts[c], me,
                         nprocs);
            }
        }
        tested++;
    }
    MTEST_CHECK(tested >= 2, "only %d pair types tested", tested);
    mtest_win_free(&w);
    return mtest_finalize();
}
