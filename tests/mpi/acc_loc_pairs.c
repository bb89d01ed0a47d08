/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * MPI_MAXLOC and MPI_MINLOC of every pair type: those stored without
 * padding (MPI_2INT, MPI_FLOAT_INT, MPI_2REAL, MPI_2DOUBLE_PRECISION,
 * MPI_2INTEGER), which the component reduces with loops of its own, and
 * those with padding (MPI_SHORT_INT, MPI_LONG_INT, MPI_DOUBLE_INT,
 * MPI_LONG_DOUBLE_INT), whose padding no one may write: from every rank to
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
#include <stddef.h>

#include "mtest.h"
#include "pair_types.h"

/* How a pair type's value and index are stored. */
typedef enum { V_INT, V_SHORT, V_LONG, V_FLOAT, V_DOUBLE, V_LDOUBLE } vkind_t;

typedef struct {
    const char *name;
    MPI_Datatype dt;
    vkind_t v, k;  /* the index of an int (V_INT) or of the value's type */
    size_t koff;   /* where the index starts */
    size_t stride; /* the C struct's size: the type's extent */
    size_t size;   /* its data bytes: 0 where the type differs here */
} pair_t;

#define NPAIRS 9
static pair_t pairs[NPAIRS];

static size_t vsize(vkind_t v)
{
    static const size_t sizes[] = {sizeof(int),   sizeof(short),  sizeof(long),
                                   sizeof(float), sizeof(double), sizeof(long double)};
    return sizes[v];
}

/* The unpadded pairs (the component's own loops: value and index of one
 * width, or float and int), then those with padding (MPI_SHORT_INT's
 * between its members, the others' at the end); a Fortran type whose
 * widths differ from these is left out (size 0). */
static void pairs_init(void)
{
    const pair_t all[NPAIRS] = {
        {"MPI_2INT", MPI_2INT, V_INT, V_INT, 4, 8, 8},
        {"MPI_FLOAT_INT", MPI_FLOAT_INT, V_FLOAT, V_INT, 4, 8, 8},
        {"MPI_2REAL", MPI_2REAL, V_FLOAT, V_FLOAT, 4, 8, 8},
        {"MPI_2DOUBLE_PRECISION", MPI_2DOUBLE_PRECISION, V_DOUBLE, V_DOUBLE, 8, 16, 16},
        {"MPI_2INTEGER", MPI_2INTEGER, V_INT, V_INT, 4, 8, 8},
        {"MPI_SHORT_INT", MPI_SHORT_INT, V_SHORT, V_INT, offsetof(short_int_t, k),
         sizeof(short_int_t), sizeof(short) + sizeof(int)},
        {"MPI_LONG_INT", MPI_LONG_INT, V_LONG, V_INT, offsetof(long_int_t, k), sizeof(long_int_t),
         sizeof(long) + sizeof(int)},
        {"MPI_DOUBLE_INT", MPI_DOUBLE_INT, V_DOUBLE, V_INT, offsetof(double_int_t, k),
         sizeof(double_int_t), sizeof(double) + sizeof(int)},
        {"MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE_INT, V_LDOUBLE, V_INT,
         offsetof(long_double_int_t, k), sizeof(long_double_int_t), 0},
    };

    for (int p = 0; p < NPAIRS; ++p) {
        MPI_Aint lb, extent;
        int size = 0;

        pairs[p] = all[p];
        if (MPI_DATATYPE_NULL == pairs[p].dt) {
            pairs[p].size = 0;
            continue;
        }
        MPI_Type_size(pairs[p].dt, &size);
        MPI_Type_get_extent(pairs[p].dt, &lb, &extent);
        if (0 == pairs[p].size) { /* long double: as wide as Open MPI counts it */
            pairs[p].size = (size_t) size;
        }
        if ((size_t) size != pairs[p].size || (size_t) extent != pairs[p].stride) {
            pairs[p].size = 0;
        }
    }
}

static void scalar_set(vkind_t kind, char *at, double x)
{
    int i = (int) x;
    short h = (short) x;
    long l = (long) x;
    float f = (float) x;
    /* its bytes zeroed first, through volatile so that the zeroing stays:
     * an x87 long double's store writes 10 of its 16 bytes, and all 16
     * travel (valgrind reports the other 6 in the component's sends) */
    volatile union {
        long double v;
        unsigned char b[sizeof(long double)];
    } ld;

    for (size_t b = 0; b < sizeof(ld.b); ++b) {
        ld.b[b] = 0;
    }
    ld.v = x;

    switch (kind) {
        case V_INT:
            memcpy(at, &i, sizeof(i));
            break;
        case V_SHORT:
            memcpy(at, &h, sizeof(h));
            break;
        case V_LONG:
            memcpy(at, &l, sizeof(l));
            break;
        case V_FLOAT:
            memcpy(at, &f, sizeof(f));
            break;
        case V_DOUBLE:
            memcpy(at, &x, sizeof(x));
            break;
        default:
            memcpy(at, (const void *) &ld, sizeof(ld));
    }
}

static double scalar_get(vkind_t kind, const char *at)
{
    int i;
    short h;
    long l;
    float f;
    double x;
    long double ld;

    switch (kind) {
        case V_INT:
            memcpy(&i, at, sizeof(i));
            return i;
        case V_SHORT:
            memcpy(&h, at, sizeof(h));
            return h;
        case V_LONG:
            memcpy(&l, at, sizeof(l));
            return (double) l;
        case V_FLOAT:
            memcpy(&f, at, sizeof(f));
            return f;
        case V_DOUBLE:
            memcpy(&x, at, sizeof(x));
            return x;
        default:
            memcpy(&ld, at, sizeof(ld));
            return (double) ld;
    }
}

static void pair_set(const pair_t *p, char *at, double v, int k)
{
    scalar_set(p->v, at, v);
    scalar_set(p->k, at + p->koff, k);
}

static void pair_get(const pair_t *p, const char *at, double *v, double *k)
{
    *v = scalar_get(p->v, at);
    *k = scalar_get(p->k, at + p->koff);
}

/* The padding bytes of an element: neither the value's nor the index's. */
static bool is_padding(const pair_t *p, size_t b)
{
    return !(b < vsize(p->v) || (b >= p->koff && b < p->koff + vsize(p->k)));
}

/* what the padding holds in a result buffer, the target, an origin: a
 * byte copied from one to another shows */
#define PAD_RESULT 0xA5
#define PAD_TARGET 0x5A
#define PAD_ORIGIN 0x3C

/* Every padding byte of @p n elements still @p pad. */
static int padding_kept(const pair_t *p, const char *buf, int n, unsigned char pad)
{
    for (size_t b = 0; b < (size_t) n * p->stride; ++b) {
        if (is_padding(p, b % p->stride) && pad != (unsigned char) buf[b]) {
            return 0;
        }
    }
    return 1;
}

/* Rank @p r's operand @p i for target @p t: values -2..2, the same for
 * ranks 2j and 2j+1 (a zero of a floating type negative every other time),
 * indexes 0..16, different for those two. */
static void operand(const pair_t *p, int r, int t, int i, char *at)
{
    double v = (double) ((t * 3 + i * 5 + (r & ~1) * 7) % 5 - 2);

    if (0.0 == v && p->v >= V_FLOAT && (i & 1)) {
        v = -0.0;
    }
    pair_set(p, at, v, (r * 13 + i) % 17);
}

/* The target's pairs before the epoch: a value some operands equal. */
static void initial(const pair_t *p, MPI_Op op, int i, char *at)
{
    pair_set(p, at, MPI_MAXLOC == op ? -1.0 : 1.0, 8 + i % 3);
}

#define MAXN 3001
/* a cache line and 8 bytes into the window: the loops' head and body */
#define OFFSET 72

static void run_case(mtest_win_t *w, int sync, bool gacc, const pair_t *p, MPI_Op op, int n, int me,
                     int nprocs)
{
    size_t bytes = p->stride * (size_t) n;
    /* an origin and a result buffer per target: in an active epoch they
     * are in use until it ends; padding of its own in each, so that
     * padding written shows */
    char *origins = malloc(bytes * (size_t) nprocs), *results = malloc(bytes * (size_t) nprocs),
         *mine = malloc(bytes), *want = malloc(bytes), *theirs = malloc(bytes);
    const char *opname = MPI_MAXLOC == op ? "MAXLOC" : "MINLOC";

    memset(origins, PAD_ORIGIN, bytes * (size_t) nprocs);
    memset(results, PAD_RESULT, bytes * (size_t) nprocs);
    memset(mine, PAD_TARGET, bytes);
    memset(want, PAD_TARGET, bytes);
    memset(theirs, PAD_ORIGIN, bytes);
    for (int i = 0; i < n; ++i) {
        initial(p, op, i, mine + (size_t) i * p->stride);
    }
    mtest_local_store(w, OFFSET, mine, bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    mtest_epoch_begin(w->win, sync);
    for (int k = 0; k < nprocs; ++k) {
        int t = (me + k) % nprocs;
        MPI_Aint disp = w->disp0[t] + OFFSET;
        char *origin = origins + bytes * (size_t) t, *result = results + bytes * (size_t) t;

        for (int i = 0; i < n; ++i) {
            operand(p, me, t, i, origin + (size_t) i * p->stride);
        }
        mtest_op_begin(w->win, sync, t);
        if (gacc) {
            MPI_CHECK(MPI_Get_accumulate(origin, n, p->dt, result, n, p->dt, t, disp, n, p->dt, op,
                                         w->win));
        } else {
            MPI_CHECK(MPI_Accumulate(origin, n, p->dt, t, disp, n, p->dt, op, w->win));
        }
        mtest_op_end(w->win, sync, t);
    }
    mtest_epoch_end(w->win, sync);
    mtest_local_load(w, OFFSET, mine, bytes);
    for (int i = 0; i < n; ++i) {
        initial(p, op, i, want + (size_t) i * p->stride);
    }
    for (int r = 0; r < nprocs; ++r) {
        for (int i = 0; i < n; ++i) {
            operand(p, r, me, i, theirs + (size_t) i * p->stride);
        }
        MPI_CHECK(MPI_Reduce_local(theirs, want, n, p->dt, op));
    }
    for (int i = 0; i < n; ++i) {
        double gv, gk, wv, wk;

        pair_get(p, mine + (size_t) i * p->stride, &gv, &gk);
        pair_get(p, want + (size_t) i * p->stride, &wv, &wk);
        MTEST_CHECK(gv == wv && gk == wk, "%s %s n=%d pair %d: (%g, %g), expected (%g, %g)",
                    p->name, opname, n, i, gv, gk, wv, wk);
    }
    MTEST_CHECK(padding_kept(p, mine, n, PAD_TARGET), "%s %s n=%d: the target's padding written",
                p->name, opname, n);
    MTEST_CHECK(!gacc || padding_kept(p, results, n * nprocs, PAD_RESULT),
                "%s %s n=%d: padding of a result written", p->name, opname, n);
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
    pairs_init();
    mtest_win_create(&w, argc > 1 ? argv[1] : "allocate", OFFSET + sizeof(long_double_int_t) * MAXN,
                     MPI_INFO_NULL, MPI_COMM_WORLD);
    for (int p = 0; p < NPAIRS; ++p) {
        if (0 == pairs[p].size) {
            continue; /* not this layout here */
        }
        for (int o = 0; o < 2; ++o) {
            for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); ++c) {
                run_case(&w, sync, gacc, &pairs[p], o ? MPI_MINLOC : MPI_MAXLOC, counts[c], me,
                         nprocs);
            }
        }
        tested++;
    }
    MTEST_CHECK(tested >= 6, "only %d pair types tested", tested);
    mtest_win_free(&w);
    return mtest_finalize();
}
