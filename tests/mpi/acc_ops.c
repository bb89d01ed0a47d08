/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Every predefined reduction on every predefined type the standard allows
 * for it (integers of each width, floating incl. long double, complex,
 * logical, byte, the pair types for MAXLOC/MINLOC, REPLACE on all), from all
 * ranks to all ranks, with contiguous and strided (vector) layouts.  The
 * reductions are commutative, so the result does not depend on the order
 * the updates arrive in; REPLACE must leave one origin's element, whole.
 *
 * usage: acc_ops FLAVOR SYNC [acc|gacc|racc] [N]
 *   acc: MPI_Accumulate; gacc: MPI_Get_accumulate; racc: MPI_Raccumulate
 *   (passive SYNC only) + MPI_Wait.
 */
#include <complex.h>
#include <stdbool.h>

#include "mtest.h"

typedef enum { C_INT, C_FLOAT, C_COMPLEX, C_BOOL, C_BYTE, C_PAIR } cat_t;

typedef struct {
    const char *name;
    MPI_Datatype dt;
    cat_t cat;
    int id; /* what set/get switch on */
    size_t extent;
} type_t;

enum {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    LNG,
    ULNG,
    FLT,
    DBL,
    LDBL,
    CFLT,
    CDBL,
    CLDBL,
    BOOL,
    BYTE,
    P2INT,
    PFLTINT,
    PDBLINT,
    PLNGINT,
    PSHRTINT,
    PLDBLINT,
    NTYPES
};

typedef struct {
    int v, k;
} p2int_t;
typedef struct {
    float v;
    int k;
} pfltint_t;
typedef struct {
    double v;
    int k;
} pdblint_t;
typedef struct {
    long v;
    int k;
} plngint_t;
typedef struct {
    short v;
    int k;
} pshrtint_t;
typedef struct {
    long double v;
    int k;
} pldblint_t;

static type_t types[NTYPES];

static void types_init(void)
{
#define T(ID, NAME, DT, CAT, CTYPE) types[ID] = (type_t){NAME, DT, CAT, ID, sizeof(CTYPE)}
    T(I8, "int8", MPI_INT8_T, C_INT, int8_t);
    T(U8, "uint8", MPI_UINT8_T, C_INT, uint8_t);
    T(I16, "int16", MPI_INT16_T, C_INT, int16_t);
    T(U16, "uint16", MPI_UINT16_T, C_INT, uint16_t);
    T(I32, "int32", MPI_INT32_T, C_INT, int32_t);
    T(U32, "uint32", MPI_UINT32_T, C_INT, uint32_t);
    T(I64, "int64", MPI_INT64_T, C_INT, int64_t);
    T(U64, "uint64", MPI_UINT64_T, C_INT, uint64_t);
    T(LNG, "long", MPI_LONG, C_INT, long);
    T(ULNG, "unsigned long", MPI_UNSIGNED_LONG, C_INT, unsigned long);
    T(FLT, "float", MPI_FLOAT, C_FLOAT, float);
    T(DBL, "double", MPI_DOUBLE, C_FLOAT, double);
    T(LDBL, "long double", MPI_LONG_DOUBLE, C_FLOAT, long double);
    T(CFLT, "float complex", MPI_C_FLOAT_COMPLEX, C_COMPLEX, float complex);
    T(CDBL, "double complex", MPI_C_DOUBLE_COMPLEX, C_COMPLEX, double complex);
    T(CLDBL, "long double complex", MPI_C_LONG_DOUBLE_COMPLEX, C_COMPLEX, long double complex);
    T(BOOL, "bool", MPI_C_BOOL, C_BOOL, bool);
    T(BYTE, "byte", MPI_BYTE, C_BYTE, unsigned char);
    T(P2INT, "2int", MPI_2INT, C_PAIR, p2int_t);
    T(PFLTINT, "float_int", MPI_FLOAT_INT, C_PAIR, pfltint_t);
    T(PDBLINT, "double_int", MPI_DOUBLE_INT, C_PAIR, pdblint_t);
    T(PLNGINT, "long_int", MPI_LONG_INT, C_PAIR, plngint_t);
    T(PSHRTINT, "short_int", MPI_SHORT_INT, C_PAIR, pshrtint_t);
    T(PLDBLINT, "long_double_int", MPI_LONG_DOUBLE_INT, C_PAIR, pldblint_t);
#undef T
}

/* An element as two integers: value and (complex) imaginary part or (pair) index. */
static void set(const type_t *t, void *p, long a, long b)
{
    switch (t->id) {
#define S(ID, CTYPE)                                                                               \
    case ID:                                                                                       \
        *(CTYPE *) p = (CTYPE) a;                                                                  \
        break
        S(I8, int8_t);
        S(U8, uint8_t);
        S(I16, int16_t);
        S(U16, uint16_t);
        S(I32, int32_t);
        S(U32, uint32_t);
        S(I64, int64_t);
        S(U64, uint64_t);
        S(LNG, long);
        S(ULNG, unsigned long);
        S(FLT, float);
        S(DBL, double);
        S(LDBL, long double);
        S(BYTE, unsigned char);
#undef S
        case BOOL:
            *(bool *) p = 0 != a;
            break;
        case CFLT:
            *(float complex *) p = (float) a + (float) b * I;
            break;
        case CDBL:
            *(double complex *) p = (double) a + (double) b * I;
            break;
        case CLDBL:
            *(long double complex *) p = (long double) a + (long double) b * I;
            break;
#define P(ID, PT)                                                                                  \
    case ID:                                                                                       \
        ((PT *) p)->v = a;                                                                         \
        ((PT *) p)->k = (int) b;                                                                   \
        break
            P(P2INT, p2int_t);
            P(PFLTINT, pfltint_t);
            P(PDBLINT, pdblint_t);
            P(PLNGINT, plngint_t);
            P(PSHRTINT, pshrtint_t);
            P(PLDBLINT, pldblint_t);
#undef P
    }
}

static void get(const type_t *t, const void *p, long *a, long *b)
{
    *a = *b = 0;
    switch (t->id) {
#define G(ID, CTYPE)                                                                               \
    case ID:                                                                                       \
        *a = (long) *(const CTYPE *) p;                                                            \
        break
        G(I8, int8_t);
        G(U8, uint8_t);
        G(I16, int16_t);
        G(U16, uint16_t);
        G(I32, int32_t);
        G(U32, uint32_t);
        G(I64, int64_t);
        G(U64, uint64_t);
        G(LNG, long);
        G(ULNG, unsigned long);
        G(FLT, float);
        G(DBL, double);
        G(LDBL, long double);
        G(BYTE, unsigned char);
        G(BOOL, bool);
#undef G
        case CFLT:
            *a = (long) crealf(*(const float complex *) p);
            *b = (long) cimagf(*(const float complex *) p);
            break;
        case CDBL:
            *a = (long) creal(*(const double complex *) p);
            *b = (long) cimag(*(const double complex *) p);
            break;
        case CLDBL:
            *a = (long) creall(*(const long double complex *) p);
            *b = (long) cimagl(*(const long double complex *) p);
            break;
#define P(ID, PT)                                                                                  \
    case ID:                                                                                       \
        *a = (long) ((const PT *) p)->v;                                                           \
        *b = ((const PT *) p)->k;                                                                  \
        break
            P(P2INT, p2int_t);
            P(PFLTINT, pfltint_t);
            P(PDBLINT, pdblint_t);
            P(PLNGINT, plngint_t);
            P(PSHRTINT, pshrtint_t);
            P(PLDBLINT, pldblint_t);
#undef P
    }
}

typedef struct {
    const char *name;
    MPI_Op op;
    unsigned cats; /* bit per cat_t */
} op_t;

#define BIT(c) (1u << (c))
static op_t ops[] = {
    {"MAX", MPI_MAX, BIT(C_INT) | BIT(C_FLOAT)},
    {"MIN", MPI_MIN, BIT(C_INT) | BIT(C_FLOAT)},
    {"SUM", MPI_SUM, BIT(C_INT) | BIT(C_FLOAT) | BIT(C_COMPLEX)},
    {"PROD", MPI_PROD, BIT(C_INT) | BIT(C_FLOAT) | BIT(C_COMPLEX)},
    {"LAND", MPI_LAND, BIT(C_INT) | BIT(C_BOOL)},
    {"LOR", MPI_LOR, BIT(C_INT) | BIT(C_BOOL)},
    {"LXOR", MPI_LXOR, BIT(C_INT) | BIT(C_BOOL)},
    {"BAND", MPI_BAND, BIT(C_INT) | BIT(C_BYTE)},
    {"BOR", MPI_BOR, BIT(C_INT) | BIT(C_BYTE)},
    {"BXOR", MPI_BXOR, BIT(C_INT) | BIT(C_BYTE)},
    {"MAXLOC", MPI_MAXLOC, BIT(C_PAIR)},
    {"MINLOC", MPI_MINLOC, BIT(C_PAIR)},
    {"REPLACE", MPI_REPLACE, ~0u},
};
#define NOPS ((int) (sizeof(ops) / sizeof(ops[0])))

/* Origin value of rank r for element i at target t, and the initial value. */
static void operand(const op_t *o, int r, int t, int i, long *a, long *b)
{
    long c = r * 7 + t * 3 + i;

    *b = 0;
    if (MPI_SUM == o->op) {
        *a = c % 4;
        *b = (c / 4) % 3;
    } else if (MPI_PROD == o->op) {
        *a = 1 + c % 2;
    } else if (MPI_MAX == o->op || MPI_MIN == o->op) {
        *a = c % 50;
    } else if (MPI_LAND == o->op || MPI_LOR == o->op || MPI_LXOR == o->op) {
        *a = c % 3 ? 1 : 0;
    } else if (MPI_BAND == o->op || MPI_BOR == o->op || MPI_BXOR == o->op) {
        *a = (1L << (c % 7)) | (1L << ((c / 7) % 7)) | (MPI_BAND == o->op ? 0x40 : 0);
    } else if (MPI_MAXLOC == o->op || MPI_MINLOC == o->op) {
        *a = c % 5;
        *b = r;
    } else { /* REPLACE: a whole element names its origin */
        *a = 1 + r + 10 * (i % 3);
        *b = *a + 1;
    }
}

static void initial(const op_t *o, long *a, long *b)
{
    *b = 0;
    *a = MPI_PROD == o->op   ? 1
         : MPI_MAX == o->op  ? 10
         : MPI_MIN == o->op  ? 30
         : MPI_LAND == o->op ? 1
         : MPI_BAND == o->op ? 0x7f
                             : 0;
    if (MPI_MAXLOC == o->op || MPI_MINLOC == o->op) {
        *a = MPI_MAXLOC == o->op ? -1 : 100;
        *b = 99;
    }
}

static void fold(const op_t *o, long *a, long *b, long x, long y)
{
    if (MPI_SUM == o->op) {
        *a += x;
        *b += y;
    } else if (MPI_PROD == o->op) {
        *a *= x;
    } else if (MPI_MAX == o->op) {
        *a = x > *a ? x : *a;
    } else if (MPI_MIN == o->op) {
        *a = x < *a ? x : *a;
    } else if (MPI_LAND == o->op) {
        *a = *a && x;
    } else if (MPI_LOR == o->op) {
        *a = *a || x;
    } else if (MPI_LXOR == o->op) {
        *a = !*a != !x;
    } else if (MPI_BAND == o->op) {
        *a &= x;
    } else if (MPI_BOR == o->op) {
        *a |= x;
    } else if (MPI_BXOR == o->op) {
        *a ^= x;
    } else if (MPI_MAXLOC == o->op) {
        if (x > *a || (x == *a && y < *b)) {
            *a = x;
            *b = y;
        }
    } else if (MPI_MINLOC == o->op) {
        if (x < *a || (x == *a && y < *b)) {
            *a = x;
            *b = y;
        }
    }
}

enum { L_CONTIG, L_TSTRIDED, L_STRIDED, NLAYOUTS };
static const char *const layout_names[] = {"contig", "target strided", "both strided"};

int main(int argc, char **argv)
{
    int me, nprocs, sync, mode, n;
    mtest_win_t w;
    const char *how;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    types_init();
    sync = mtest_sync(argc > 2 ? argv[2] : "lockall");
    how = argc > 3 ? argv[3] : "acc";
    mode = 0 == strcmp(how, "gacc") ? 1 : 0 == strcmp(how, "racc") ? 2 : 0;
    n = argc > 4 ? atoi(argv[4]) : 5;
    if (2 == mode && mtest_sync_is_active(sync)) {
        mode = 0; /* request-based operations need a passive target epoch */
    }
    /* n elements at stride 2 of the largest type */
    size_t slot = 2 * sizeof(long double complex);
    mtest_win_create(&w, argc > 1 ? argv[1] : "allocate", 2 * n * slot, MPI_INFO_NULL,
                     MPI_COMM_WORLD);
    /* one origin and result buffer per target: the buffers belong to MPI
     * until the epoch (or flush) completes the operation */
    char *local = malloc(2 * n * slot), *origins = malloc(nprocs * 2 * n * slot),
         *results = malloc(nprocs * 2 * n * slot);

    for (int oi = 0; oi < NOPS; ++oi) {
        for (int ti = 0; ti < NTYPES; ++ti) {
            const op_t *o = &ops[oi];
            const type_t *t = &types[ti];
            if (!(o->cats & BIT(t->cat))) {
                continue;
            }
            for (int layout = 0; layout < NLAYOUTS; ++layout) {
                MPI_Datatype strided, odt = t->dt, tdt = t->dt;
                int ocount = n, tcount = n;
                long a, b;
                size_t ostride = L_STRIDED == layout ? 2 : 1, tstride = L_CONTIG == layout ? 1 : 2;

                MPI_CHECK(MPI_Type_vector(n, 1, 2, t->dt, &strided));
                MPI_CHECK(MPI_Type_commit(&strided));
                if (L_CONTIG != layout) {
                    tdt = strided;
                    tcount = 1;
                }
                if (L_STRIDED == layout) {
                    odt = strided;
                    ocount = 1;
                }
                memset(local, 0, 2 * n * slot);
                initial(o, &a, &b);
                for (int i = 0; i < 2 * n; ++i) {
                    set(t, local + i * t->extent, a, b);
                }
                mtest_local_store(&w, 0, local, 2 * n * t->extent);
                MPI_Barrier(MPI_COMM_WORLD);

                mtest_epoch_begin(w.win, sync);
                for (int k = 0; k < nprocs; ++k) {
                    int target = (me + k) % nprocs;
                    MPI_Request req;
                    char *origin = origins + target * 2 * n * slot;
                    char *result = results + target * 2 * n * slot;
                    memset(origin, 0, 2 * n * slot);
                    for (int i = 0; i < n; ++i) {
                        operand(o, me, target, i, &a, &b);
                        set(t, origin + i * ostride * t->extent, a, b);
                    }
                    mtest_op_begin(w.win, sync, target);
                    if (1 == mode) {
                        MPI_CHECK(MPI_Get_accumulate(origin, ocount, odt, result, n, t->dt, target,
                                                     w.disp0[target], tcount, tdt, o->op, w.win));
                    } else if (2 == mode) {
                        MPI_CHECK(MPI_Raccumulate(origin, ocount, odt, target, w.disp0[target],
                                                  tcount, tdt, o->op, w.win, &req));
                        MPI_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
                    } else {
                        MPI_CHECK(MPI_Accumulate(origin, ocount, odt, target, w.disp0[target],
                                                 tcount, tdt, o->op, w.win));
                    }
                    mtest_op_end(w.win, sync, target);
                }
                mtest_epoch_end(w.win, sync);

                mtest_local_load(&w, 0, local, 2 * n * t->extent);
                for (size_t i = 0; i < 2 * (size_t) n; ++i) {
                    long ga, gb, ea, eb;
                    get(t, local + i * t->extent, &ga, &gb);
                    initial(o, &ea, &eb);
                    if (i % tstride || i / tstride >= (size_t) n) {
                        /* untouched by the strided layout */
                    } else if (MPI_REPLACE == o->op) {
                        long x, y;
                        bool found = false;
                        for (int r = 0; r < nprocs; ++r) {
                            operand(o, r, me, i / tstride, &x, &y);
                            x = C_BOOL == t->cat ? 0 != x : x;
                            found = found ||
                                    (ga == x &&
                                     (t->cat != C_COMPLEX && t->cat != C_PAIR ? true : gb == y));
                        }
                        MTEST_CHECK(found, "%s %s %s: element %zu is %ld/%ld, no origin's value",
                                    o->name, t->name, layout_names[layout], i, ga, gb);
                        continue;
                    } else {
                        for (int r = 0; r < nprocs; ++r) {
                            long x, y;
                            operand(o, r, me, i / tstride, &x, &y);
                            fold(o, &ea, &eb, x, y);
                        }
                    }
                    if (t->cat == C_BOOL || (t->cat != C_COMPLEX && t->cat != C_PAIR)) {
                        eb = gb = 0;
                    }
                    if (t->cat == C_BOOL) {
                        ea = 0 != ea;
                    }
                    MTEST_CHECK(ga == ea && gb == eb,
                                "%s %s %s: element %zu is %ld/%ld, expected %ld/%ld", o->name,
                                t->name, layout_names[layout], i, ga, gb, ea, eb);
                }
                MPI_CHECK(MPI_Type_free(&strided));
            }
        }
    }
    free(local);
    free(origins);
    free(results);
    mtest_win_free(&w);
    return mtest_finalize();
}
