/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Small MPI_Accumulates aggregated as the records of ACCS packets
 * (osc_newrma_acc_records), a record for the bytes right after the last
 * one's joining it (osc_newrma_puts_join).  Every rank runs, round by
 * round, a seeded program of accumulates on its own slice of every rank's
 * window (its own too): runs of adjacent ones of one op and type (they
 * join), changes of op or type (a new ACCS packet), six types (int64_t,
 * int32_t, double, uint8_t, MPI_2INT pairs, long double) and their ops
 * (SUM, REPLACE, BXOR, MAX, MIN, BOR, BAND, MAXLOC, MINLOC), some of more
 * than 256 bytes (an ACC packet of their own), PUTs to another part of the
 * slice between them (a PUTS packet), and MPI_Get_accumulate(MPI_NO_OP)
 * reads of cells the program just reduced: a read must see every
 * accumulate before it (the window's default accumulate_ordering).  Every
 * rank derives every origin's program from the seed: it checks its window
 * for every origin, and its reads, against a model of the program.  With
 * "records", some accumulate must have been a record on some rank
 * (osc_newrma_win_acc_records); with "off" none.
 *
 *   acc_records FLAVOR SYNC [records|any] [nojoin|off]
 *     nojoin: osc_newrma_puts_join 0 (a record per accumulate)
 *     off: osc_newrma_acc_records 0 (an ACC packet per accumulate)
 */
#include "mtest.h"

#define ROUNDS 6
#define STEPS  64
#define READS  (STEPS / 4)
/* one origin's slice of a window: six areas of cells, then the PUT area */
#define AREAS    6
#define PUT_AT   1536
#define PUT_SIZE 512
#define SLICE    (PUT_AT + PUT_SIZE)

/* An area: its cells' type and the ops the program applies to them. */
typedef struct {
    size_t at, cell, cells;
    int nops;
    MPI_Op ops[4];
} area_t;

typedef struct {
    int32_t v, i;
} pair_t;

static area_t areas[AREAS];
static MPI_Datatype area_type[AREAS];

static void areas_init(void)
{
    area_t a[AREAS] = {
        {0, 8, 64, 4, {MPI_SUM, MPI_REPLACE, MPI_BXOR, MPI_MAX}},
        {512, 4, 64, 3, {MPI_SUM, MPI_MIN, MPI_BOR}},
        {768, 8, 32, 2, {MPI_SUM, MPI_MAX}},
        {1024, 1, 64, 3, {MPI_BXOR, MPI_SUM, MPI_BAND}},
        {1088, 8, 32, 2, {MPI_MAXLOC, MPI_MINLOC}},
        {1344, sizeof(long double), 12, 2, {MPI_SUM, MPI_REPLACE}},
    };
    MPI_Datatype t[AREAS] = {MPI_INT64_T, MPI_INT32_T, MPI_DOUBLE,
                             MPI_UINT8_T, MPI_2INT,    MPI_LONG_DOUBLE};

    memcpy(areas, a, sizeof(a));
    memcpy(area_type, t, sizeof(t));
}

/* One step of a program: an accumulate of count cells of area from cell,
 * a PUT of count bytes at put, or (area < 0, put < 0) an MPI_NO_OP read
 * of cell 'cell' of area 0. */
typedef struct {
    int kind; /* 0 accumulate, 1 PUT, 2 read */
    int area, op, cell, count, put;
    uint32_t seed;
} step_t;

static int program(int origin, int target, int round, step_t *steps)
{
    mtest_rng_t r = {(uint64_t) (origin * 1000003 + target * 1009 + round) * 2654435761u + 7};
    int n = 0, area = 0, op = 0, next = 0, put = 0;

    for (int i = 0; i < STEPS; ++i) {
        uint32_t pick = mtest_rng_next(&r) % 32;
        step_t s = {0, 0, 0, 0, 0, 0, mtest_rng_next(&r)};

        if (pick < 3 && put + 16 <= PUT_SIZE) { /* PUTs of a round never overlap */
            s.kind = 1;
            s.count = 1 + (int) (mtest_rng_next(&r) % 16);
            s.put = put;
            put += s.count;
        } else if (pick < 5) {
            s.kind = 2;
            s.cell = (int) (mtest_rng_next(&r) % areas[0].cells);
        } else {
            if (pick < 9) { /* another area, op or place: the last run ends */
                area = (int) (mtest_rng_next(&r) % AREAS);
                op = (int) (mtest_rng_next(&r) % (uint32_t) areas[area].nops);
                next = (int) (mtest_rng_next(&r) % areas[area].cells);
            }
            s.area = area;
            s.op = op;
            s.count = 1 + (int) (mtest_rng_next(&r) % 4);
            if (0 == area && 0 == mtest_rng_next(&r) % 8) {
                s.count = 33 + (int) (mtest_rng_next(&r) % 16); /* beyond 256 bytes */
            }
            if (next + s.count > (int) areas[area].cells) {
                next = 0;
            }
            s.cell = next;
            next += s.count;
        }
        steps[n++] = s;
    }
    return n;
}

/* The origin buffer of an accumulate step: small values, so that every
 * sum is exact in every type. */
static void operands(const step_t *s, void *buf)
{
    memset(buf, 0, (size_t) s->count * areas[s->area].cell); /* a long double's padding */
    for (int e = 0; e < s->count; ++e) {
        int8_t v = (int8_t) mtest_pattern(s->seed, (size_t) e);
        unsigned char b = mtest_pattern(s->seed + 1, (size_t) e);

        switch (s->area) {
            case 0:
                ((int64_t *) buf)[e] = v;
                break;
            case 1:
                ((int32_t *) buf)[e] = v;
                break;
            case 2:
                ((double *) buf)[e] = v;
                break;
            case 3:
                ((uint8_t *) buf)[e] = b;
                break;
            case 4:
                ((pair_t *) buf)[e] = (pair_t){v % 8, b};
                break;
            default:
                ((long double *) buf)[e] = v;
                break;
        }
    }
}

#define REDUCE(T, expr, t, o)                                                                      \
    do {                                                                                           \
        T x_, y_;                                                                                  \
        memcpy(&x_, t, sizeof(T));                                                                 \
        memcpy(&y_, o, sizeof(T));                                                                 \
        x_ = expr;                                                                                 \
        memcpy(t, &x_, sizeof(T));                                                                 \
    } while (0)

static void model_pair(MPI_Op op, unsigned char *t, const unsigned char *o)
{
    pair_t x, y;
    int take;

    memcpy(&x, t, sizeof(x));
    memcpy(&y, o, sizeof(y));
    take = MPI_MAXLOC == op ? y.v > x.v : y.v < x.v;
    if (take || (y.v == x.v && y.i < x.i)) {
        memcpy(t, &y, sizeof(y));
    }
}

/* One cell of area @p a reduced by @p op with the origin's @p o. */
static void model_cell(int a, MPI_Op op, unsigned char *t, const unsigned char *o)
{
    if (MPI_REPLACE == op) {
        memcpy(t, o, areas[a].cell);
    } else if (4 == a) {
        model_pair(op, t, o);
    } else if (0 == a) {
        REDUCE(int64_t,
               MPI_SUM == op    ? x_ + y_
               : MPI_BXOR == op ? x_ ^ y_
                                : (x_ > y_ ? x_ : y_),
               t, o);
    } else if (1 == a) {
        REDUCE(int32_t,
               MPI_SUM == op   ? x_ + y_
               : MPI_MIN == op ? (x_ < y_ ? x_ : y_)
                               : x_ | y_,
               t, o);
    } else if (2 == a) {
        REDUCE(double, MPI_SUM == op ? x_ + y_ : (x_ > y_ ? x_ : y_), t, o);
    } else if (3 == a) {
        REDUCE(uint8_t,
               MPI_BXOR == op  ? (uint8_t) (x_ ^ y_)
               : MPI_SUM == op ? (uint8_t) (x_ + y_)
                               : (uint8_t) (x_ & y_),
               t, o);
    } else {
        REDUCE(long double, x_ + y_, t, o);
    }
}

static void model_step(unsigned char *slice, const step_t *s)
{
    const area_t *a = &areas[s->area];
    unsigned char buf[64 * 16];

    if (1 == s->kind) {
        mtest_fill(slice + PUT_AT + s->put, (size_t) s->count, s->seed);
        return;
    }
    operands(s, buf);
    for (int e = 0; e < s->count; ++e) {
        model_cell(s->area, a->ops[s->op], slice + a->at + (size_t) (s->cell + e) * a->cell,
                   buf + (size_t) e * a->cell);
    }
}

typedef struct {
    mtest_win_t *w;
    unsigned char *src; /* per target and step: in use until the epoch ends */
    int64_t *reads;     /* per target, round and read */
} issue_ctx_t;

static void issue_round(void *ctx, int target, int round)
{
    issue_ctx_t *c = ctx;
    step_t steps[STEPS];
    int n = program(mtest_rank, target, round, steps), r = 0;
    MPI_Aint slice = c->w->disp0[target] + (MPI_Aint) mtest_rank * SLICE;
    unsigned char *src = c->src + (size_t) target * STEPS * 64 * 16;
    int64_t *reads = c->reads + ((size_t) target * ROUNDS + (size_t) round) * READS;

    for (int i = 0; i < n; ++i) {
        const step_t *s = &steps[i];
        unsigned char *buf = src + (size_t) i * 64 * 16;

        if (1 == s->kind) {
            mtest_fill(buf, (size_t) s->count, s->seed);
            MPI_CHECK(MPI_Put(buf, s->count, MPI_BYTE, target, slice + PUT_AT + s->put, s->count,
                              MPI_BYTE, c->w->win));
        } else if (2 == s->kind && r < READS) {
            MPI_CHECK(MPI_Get_accumulate(NULL, 0, MPI_INT64_T, &reads[r++], 1, MPI_INT64_T, target,
                                         slice + (MPI_Aint) s->cell * 8, 1, MPI_INT64_T, MPI_NO_OP,
                                         c->w->win));
        } else if (0 == s->kind) {
            const area_t *a = &areas[s->area];

            operands(s, buf);
            MPI_CHECK(MPI_Accumulate(buf, s->count, area_type[s->area], target,
                                     slice + (MPI_Aint) (a->at + (size_t) s->cell * a->cell),
                                     s->count, area_type[s->area], a->ops[s->op], c->w->win));
        }
    }
}

/* A slice against its model: byte for byte, but a long double by value
 * (its padding bytes are not its value). */
static void check_slice(const unsigned char *got, const unsigned char *model, int origin)
{
    const area_t *ld = &areas[AREAS - 1];

    for (size_t b = 0; b < SLICE; ++b) {
        if (b >= ld->at && b < ld->at + ld->cells * ld->cell) {
            long double x, y;

            if (0 != (b - ld->at) % ld->cell) {
                continue;
            }
            memcpy(&x, got + b, sizeof(x));
            memcpy(&y, model + b, sizeof(y));
            MTEST_CHECK(x == y, "origin %d long double at %zu: %Lg, expected %Lg", origin, b, x, y);
        } else if (got[b] != model[b]) {
            MTEST_CHECK(0, "origin %d byte %zu: %d, expected %d", origin, b, got[b], model[b]);
            return;
        }
    }
}

/* Every origin's program run on a model of its slice: my window's slices
 * at the end, and the reads of mine (as origin) at each target. */
static void check(const unsigned char *mine, const int64_t *reads, int nprocs)
{
    unsigned char model[SLICE];
    step_t steps[STEPS];

    for (int origin = 0; origin < nprocs; ++origin) {
        memset(model, 0, sizeof(model));
        for (int round = 0; round < ROUNDS; ++round) {
            int n = program(origin, mtest_rank, round, steps);

            for (int i = 0; i < n; ++i) {
                if (2 != steps[i].kind) {
                    model_step(model, &steps[i]);
                }
            }
        }
        check_slice(mine + (size_t) origin * SLICE, model, origin);
    }
    for (int target = 0; target < nprocs; ++target) {
        memset(model, 0, sizeof(model));
        for (int round = 0; round < ROUNDS; ++round) {
            int n = program(mtest_rank, target, round, steps), r = 0;
            const int64_t *got = reads + ((size_t) target * ROUNDS + (size_t) round) * READS;

            for (int i = 0; i < n; ++i) {
                int64_t want;

                if (2 != steps[i].kind) {
                    model_step(model, &steps[i]);
                } else if (r < READS) {
                    memcpy(&want, model + (size_t) steps[i].cell * 8, sizeof(want));
                    MTEST_CHECK(got[r] == want, "target %d round %d read %d: %lld, expected %lld",
                                target, round, r, (long long) got[r], (long long) want);
                    r++;
                }
            }
        }
    }
}

int main(int argc, char **argv)
{
    const char *name = "osc_newrma_win_acc_records";
    size_t bytes = SLICE * 4;
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle;
    unsigned long long records;
    int nprocs, sync, want, off;
    unsigned char *src, *mine;
    int64_t *reads;
    mtest_win_t w;

    if (argc < 3) {
        fprintf(stderr, "usage: acc_records FLAVOR SYNC [records|any] [nojoin|off]\n");
        return 2;
    }
    off = argc > 4 && 0 == strcmp(argv[4], "off");
    if (argc > 4 && 0 == strcmp(argv[4], "nojoin")) {
        setenv("OMPI_MCA_osc_newrma_puts_join", "0", 1);
    }
    if (off) {
        setenv("OMPI_MCA_osc_newrma_acc_records", "0", 1);
    }
    areas_init();
    nprocs = mtest_slices_init(&argc, &argv, &w, bytes, name, &session, &handle);
    sync = mtest_sync(argv[2]);
    want = argc > 3 && 0 == strcmp(argv[3], "records");
    src = malloc((size_t) nprocs * STEPS * 64 * 16);
    reads = calloc((size_t) nprocs * ROUNDS * READS, sizeof(*reads));
    mine = malloc(bytes);

    mtest_rounds_all(w.win, sync, ROUNDS, issue_round, &(issue_ctx_t){&w, src, reads});
    records = mtest_pvar_total_end(session, handle);
    MTEST_CHECK(!want || records > 0, "no accumulate travelled as a record");
    MTEST_CHECK(!off || 0 == records, "%llu records with osc_newrma_acc_records 0", records);

    mtest_local_load(&w, 0, mine, bytes);
    check(mine, reads, nprocs);
    mtest_win_free(&w);
    free(src);
    free(reads);
    free(mine);
    return mtest_finalize();
}
