/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma benchmark program: one-sided latency, bandwidth, message rate,
 * empty-epoch cost and window creation, for whichever OSC component mpirun
 * selected.  The driver (bench/run.py) runs each row in its own mpirun.
 *
 * A row is KIND:OP:SYNC:FLAVOR:SIZE, for instance lat:put:lock:allocate:8.
 *   lat    OP put|get|acc|gacc|fop|cas, SYNC lock|flush|flush_local|fence|pscw:
 *          microseconds per operation (lock: lock + op + unlock; flush and
 *          flush_local: op + flush in one lock_all epoch; fence and pscw: the
 *          OSU ping-pong of two epochs per iteration, halved); acc and gacc
 *          are MPI_SUM of int64 elements.  The other accumulates, with the
 *          same SYNCs (SIZE a multiple of the element):
 *          accr   MPI_Accumulate MPI_REPLACE of int64 (ARMCI-MPI's put)
 *          gaccn  MPI_Get_accumulate MPI_NO_OP of int64 with no origin
 *                 buffer (NULL, 0): ARMCI-MPI's get
 *          accld  MPI_Accumulate MPI_SUM of long double
 *          accb   MPI_Accumulate MPI_SUM of int8, +1 and -1 in turn (no
 *                 overflow: Open MPI 4.1's own reduction saturates 8- and
 *                 16-bit sums in its vector loop and wraps them elsewhere)
 *          accml  MPI_Accumulate MPI_MAXLOC of MPI_2INT pairs
 *          accdi  MPI_Accumulate MPI_MAXLOC of MPI_DOUBLE_INT pairs (16
 *                 bytes each, 4 of them padding)
 *   bw     OP put|get, SYNC flush|fence: MB/s of windows of 64 operations,
 *          each window closed by one flush (or fence); OP putv|getv: the
 *          same with a strided target layout (8-byte blocks every 16 bytes,
 *          a vector datatype; SIZE bytes of payload, a multiple of 8);
 *          OP accr: the same of MPI_REPLACE (a stream of ARMCI-MPI's puts),
 *          gaccn of MPI_NO_OP reads (its gets)
 *   rate   OP put, SYNC flush|fence: million 8-byte operations per second
 *   empty  SYNC fence|lock|lockall|pscw: microseconds per empty epoch
 *   multi  OP put, SYNC lock: microseconds per lock epoch of rank 0 to every
 *          other rank: MPI_Win_lock (exclusive) each in rank order, one
 *          SIZE-byte PUT to each, MPI_Win_flush_all, MPI_Win_unlock each
 *          (3 ranks or more)
 *   win    FLAVOR: microseconds per window creation + free (OP, SYNC, SIZE -)
 *   mem    FLAVOR: KiB of memory (proportional set size) per open window of
 *          4 KiB, each used once toward every rank (OP, SYNC, SIZE -)
 * Methodology as OSU's: warm-up iterations, fewer iterations for large
 * sizes, rank 0 reports; plus the median of --reps repetitions, and fewer
 * iterations still where the warm-up shows that a repetition would last
 * more than --rep-seconds (default 0.25).  Every row
 * verifies the data it moved at the end and reports "wrong" instead of a
 * number when it is not right.
 *
 * Output, from rank 0, one line per row:
 *   RESULT <row> <value> <unit>     value: a number, wrong, unsupported or error
 * and after a number the spread of the repetitions, in the same unit:
 *   SPREAD <row> <min> <max>
 *
 * usage: osc_newrma_bench [--iters N] [--reps R] [--rep-seconds S] [--break-verify] ROW...
 *   --break-verify  test hook: verification expects other data, so every
 *                   data-moving row must report "wrong"
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BW_WINDOW     64
#define MAX_WIN_BYTES (16u << 20)

typedef enum { K_LAT, K_BW, K_RATE, K_EMPTY, K_WIN, K_MEM, K_MULTI } kind_t;
typedef enum {
    O_PUT,
    O_GET,
    O_ACC,
    O_GACC,
    O_FOP,
    O_CAS,
    O_PUTV,
    O_GETV,
    O_ACCR,
    O_GACCN,
    O_ACCLD,
    O_ACCB,
    O_ACCML,
    O_ACCDI,
    O_NONE
} op_t;
typedef enum { S_LOCK, S_FLUSH, S_FLUSH_LOCAL, S_FENCE, S_PSCW, S_LOCKALL, S_NONE } sync_t;
typedef enum { F_CREATE, F_ALLOCATE, F_SHARED, F_DYNAMIC } flavor_t;

typedef struct {
    char name[128];
    kind_t kind;
    op_t op;
    sync_t sync;
    flavor_t flavor;
    size_t size;
} row_t;

typedef struct {
    MPI_Win win;
    char *base;     /* my window memory (attached memory for dynamic) */
    MPI_Aint disp0; /* displacement of the peer's window start */
    size_t bytes;
} bwin_t;

static int me, nprocs, peer, base_iters = 1000, reps = 5, break_verify;
/* a repetition's length, beyond which a row runs fewer iterations */
static double rep_seconds = 0.25;
#define MIN_REP_ITERS 1

static int lookup(const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; ++i) {
        if (0 == strcmp(s, names[i])) {
            return i;
        }
    }
    return -1;
}

static const char *const kind_names[] = {"lat", "bw", "rate", "empty", "win", "mem", "multi"};
static const char *const op_names[] = {"put",   "get",  "acc",   "gacc",  "fop",
                                       "cas",   "putv", "getv",  "accr",  "gaccn",
                                       "accld", "accb", "accml", "accdi", "-"};
#define N_OPS ((int) (sizeof(op_names) / sizeof(op_names[0])))
static const char *const sync_names[] = {"lock",    "flush", "flush_local", "fence", "pscw",
                                         "lockall", "-"};
static const char *const flavor_names[] = {"create", "allocate", "shared", "dynamic"};

/* Parse KIND:OP:SYNC:FLAVOR:SIZE; 0 on success. */
static int row_parse(const char *text, row_t *row)
{
    char buf[128], *f[5], *save = NULL;
    int n = 0, v[4];

    snprintf(row->name, sizeof(row->name), "%s", text);
    snprintf(buf, sizeof(buf), "%s", text);
    for (char *t = strtok_r(buf, ":", &save); NULL != t && n < 5; t = strtok_r(NULL, ":", &save)) {
        f[n++] = t;
    }
    if (5 != n) {
        return -1;
    }
    v[0] = lookup(f[0], kind_names, 7);
    v[1] = lookup(f[1], op_names, N_OPS);
    v[2] = lookup(f[2], sync_names, 7);
    v[3] = lookup(f[3], flavor_names, 4);
    if (v[0] < 0 || v[1] < 0 || v[2] < 0 || v[3] < 0) {
        return -1;
    }
    row->kind = (kind_t) v[0];
    row->op = (op_t) v[1];
    row->sync = (sync_t) v[2];
    row->flavor = (flavor_t) v[3];
    row->size = 0 == strcmp(f[4], "-") ? 0 : strtoull(f[4], NULL, 0);
    return 0;
}

/* ---- errors: a failing MPI call ends the run, reported by row ---- */

static const char *current_row = "";

static void fail(int rc, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;

    MPI_Error_string(rc, msg, &len);
    printf("RESULT %s error %s\n", current_row, what);
    fprintf(stderr, "rank %d: %s: %s\n", me, what, msg);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (MPI_SUCCESS != rc_) {                                                                  \
            fail(rc_, #call);                                                                      \
        }                                                                                          \
    } while (0)

/* ---- windows ---- */

/* Create a window of @p bytes; false (collectively) when the component
 * cannot create this flavor. */
static int win_open(bwin_t *w, flavor_t flavor, size_t bytes)
{
    MPI_Aint mine = 0;
    int rc = MPI_SUCCESS, ok, all;

    memset(w, 0, sizeof(*w));
    w->bytes = bytes;
    switch (flavor) {
        case F_CREATE:
            w->base = malloc(bytes);
            rc = MPI_Win_create(w->base, (MPI_Aint) bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                                &w->win);
            break;
        case F_ALLOCATE:
            rc = MPI_Win_allocate((MPI_Aint) bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->base,
                                  &w->win);
            break;
        case F_SHARED:
            rc = MPI_Win_allocate_shared((MPI_Aint) bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                                         &w->base, &w->win);
            break;
        case F_DYNAMIC:
            rc = MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
            if (MPI_SUCCESS == rc) {
                w->base = malloc(bytes);
                rc = MPI_Win_attach(w->win, w->base, (MPI_Aint) bytes);
                MPI_Get_address(w->base, &mine);
            }
            break;
    }
    ok = MPI_SUCCESS == rc;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        return 0;
    }
    MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN);
    if (F_DYNAMIC == flavor) {
        MPI_Aint *all_disp = malloc(sizeof(MPI_Aint) * (size_t) nprocs);
        MPI_Allgather(&mine, 1, MPI_AINT, all_disp, 1, MPI_AINT, MPI_COMM_WORLD);
        w->disp0 = all_disp[peer];
        free(all_disp);
    }
    return 1;
}

static void win_close(bwin_t *w, flavor_t flavor)
{
    if (F_DYNAMIC == flavor) {
        CHECK(MPI_Win_detach(w->win, w->base));
    }
    CHECK(MPI_Win_free(&w->win));
    if (F_CREATE == flavor || F_DYNAMIC == flavor) {
        free(w->base);
    }
}

/* Store into my own window memory outside any epoch. */
static void win_local_fill(bwin_t *w, int byte)
{
    CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w->win));
    memset(w->base, byte, w->bytes);
    CHECK(MPI_Win_unlock(me, w->win));
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Read my own window memory after every epoch is closed. */
static void win_local_read(bwin_t *w, void *dst, size_t offset, size_t len)
{
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w->win));
    memcpy(dst, w->base + offset, len);
    CHECK(MPI_Win_unlock(me, w->win));
}

static MPI_Group peer_group(MPI_Win win)
{
    MPI_Group all, g;

    MPI_Win_get_group(win, &all);
    MPI_Group_incl(all, 1, &peer, &g);
    MPI_Group_free(&all);
    return g;
}

/* ---- one operation ---- */

typedef struct {
    bwin_t *w;
    row_t *row;
    char *origin;  /* size bytes (per op slot for bw) */
    char *result;  /* gacc / fop / cas results */
    int64_t one;   /* acc / fop operand */
    int64_t count; /* operations issued so far */
    /* CAS buffers: untouched until the next op, which follows the sync
     * that completed this one */
    int64_t cas_compare, cas_new;
    MPI_Datatype strided; /* putv / getv: the target layout of one op */
} ctx_t;

/* accdi's element, as MPI_DOUBLE_INT lays it out */
typedef struct {
    double v;
    int k;
} double_int_t;

/* Bytes of one element of an accumulate row's datatype (8 for the others). */
static size_t op_elem(op_t op)
{
    switch (op) {
        case O_ACCLD:
            return sizeof(long double);
        case O_ACCB:
            return 1;
        case O_ACCDI:
            return sizeof(double_int_t);
        default:
            return 8; /* int64, MPI_2INT */
    }
}

/* Whether an op is one of the accumulate variants (accr ... accdi). */
static int op_acc_variant(op_t op)
{
    return op >= O_ACCR && op <= O_ACCDI;
}

/* The values of the accumulate variants, element @p e: what an origin's
 * REPLACE writes, what a NO_OP read finds, a MAXLOC pair's value. */
#define ACCR_VALUE(e)  (0x1000 + (int64_t) (e))
#define GACCN_VALUE(e) (0x2000 + (int64_t) (e))
/* the index a MAXLOC pair holds before any origin's: above every rank's,
 * so that each pair an origin's equal value reached holds its rank */
#define ACCML_NOBODY 1000000000

/* putv / getv: the target layout of an op spans twice its payload. */
static int op_strided(op_t op)
{
    return O_PUTV == op || O_GETV == op;
}

/* Byte @p p of an op's payload lies at this offset of its target slot. */
static size_t strided_offset(const row_t *row, size_t p)
{
    return op_strided(row->op) ? p / 8 * 16 + p % 8 : p;
}

static void op_issue(ctx_t *c, size_t offset, char *origin, char *result)
{
    MPI_Win win = c->w->win;
    MPI_Aint disp = c->w->disp0 + (MPI_Aint) offset;
    int n = (int) c->row->size, n64 = (int) (c->row->size / 8);

    switch (c->row->op) {
        case O_PUT:
            CHECK(MPI_Put(origin, n, MPI_BYTE, peer, disp, n, MPI_BYTE, win));
            break;
        case O_GET:
            CHECK(MPI_Get(result, n, MPI_BYTE, peer, disp, n, MPI_BYTE, win));
            break;
        case O_PUTV:
            CHECK(MPI_Put(origin, n, MPI_BYTE, peer, disp, 1, c->strided, win));
            break;
        case O_GETV:
            CHECK(MPI_Get(result, n, MPI_BYTE, peer, disp, 1, c->strided, win));
            break;
        case O_ACC:
            CHECK(MPI_Accumulate(origin, n64, MPI_INT64_T, peer, disp, n64, MPI_INT64_T, MPI_SUM,
                                 win));
            break;
        case O_GACC:
            CHECK(MPI_Get_accumulate(origin, n64, MPI_INT64_T, result, n64, MPI_INT64_T, peer, disp,
                                     n64, MPI_INT64_T, MPI_SUM, win));
            break;
        case O_FOP:
            CHECK(MPI_Fetch_and_op(&c->one, result, MPI_INT64_T, peer, disp, MPI_SUM, win));
            break;
        case O_ACCR:
            CHECK(MPI_Accumulate(origin, n64, MPI_INT64_T, peer, disp, n64, MPI_INT64_T,
                                 MPI_REPLACE, win));
            break;
        case O_GACCN:
            CHECK(MPI_Get_accumulate(NULL, 0, MPI_INT64_T, result, n64, MPI_INT64_T, peer, disp,
                                     n64, MPI_INT64_T, MPI_NO_OP, win));
            break;
        case O_ACCLD: {
            int nld = (int) (c->row->size / sizeof(long double));
            CHECK(MPI_Accumulate(origin, nld, MPI_LONG_DOUBLE, peer, disp, nld, MPI_LONG_DOUBLE,
                                 MPI_SUM, win));
            break;
        }
        case O_ACCB: /* the buffer of +1s, then that of -1s */
            CHECK(MPI_Accumulate(origin + (c->count & 1) * (size_t) n, n, MPI_INT8_T, peer, disp, n,
                                 MPI_INT8_T, MPI_SUM, win));
            break;
        case O_ACCML:
            CHECK(
                MPI_Accumulate(origin, n64, MPI_2INT, peer, disp, n64, MPI_2INT, MPI_MAXLOC, win));
            break;
        case O_ACCDI: {
            int ndi = (int) (c->row->size / sizeof(double_int_t));
            CHECK(MPI_Accumulate(origin, ndi, MPI_DOUBLE_INT, peer, disp, ndi, MPI_DOUBLE_INT,
                                 MPI_MAXLOC, win));
            break;
        }
        case O_CAS:
            /* count -> count + 1: succeeds every time when ops apply in order */
            c->cas_compare = c->count;
            c->cas_new = c->count + 1;
            CHECK(MPI_Compare_and_swap(&c->cas_new, &c->cas_compare, result, MPI_INT64_T, peer,
                                       disp, win));
            break;
        default:
            break;
    }
    c->count++;
}

/* ---- latency ---- */

static void epoch_open_fence_or_pscw(ctx_t *c, MPI_Group g, int origin_side)
{
    if (S_FENCE == c->row->sync) {
        CHECK(MPI_Win_fence(0, c->w->win));
    } else if (origin_side) {
        CHECK(MPI_Win_start(g, 0, c->w->win));
    } else {
        CHECK(MPI_Win_post(g, 0, c->w->win));
    }
}

static void epoch_close_fence_or_pscw(ctx_t *c, int origin_side)
{
    if (S_FENCE == c->row->sync) {
        CHECK(MPI_Win_fence(0, c->w->win));
    } else if (origin_side) {
        CHECK(MPI_Win_complete(c->w->win));
    } else {
        CHECK(MPI_Win_wait(c->w->win));
    }
}

/* One half of the OSU active-target ping-pong: @p active issues one op in
 * an epoch the other side exposes. */
static void pingpong_half(ctx_t *c, MPI_Group g, int active)
{
    epoch_open_fence_or_pscw(c, g, active);
    if (active) {
        op_issue(c, 0, c->origin, c->result);
    }
    epoch_close_fence_or_pscw(c, active);
}

/* @p iters timed iterations of a latency row; rank 0's seconds. */
static double lat_loop(ctx_t *c, int iters)
{
    MPI_Win win = c->w->win;
    MPI_Group g = peer_group(win);
    double t0;

    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    switch (c->row->sync) {
        case S_LOCK:
            for (int i = 0; 0 == me && i < iters; ++i) {
                CHECK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
                op_issue(c, 0, c->origin, c->result);
                CHECK(MPI_Win_unlock(peer, win));
            }
            break;
        case S_FLUSH:
        case S_FLUSH_LOCAL:
            if (0 == me) {
                CHECK(MPI_Win_lock_all(0, win));
                for (int i = 0; i < iters; ++i) {
                    op_issue(c, 0, c->origin, c->result);
                    CHECK(S_FLUSH == c->row->sync ? MPI_Win_flush(peer, win)
                                                  : MPI_Win_flush_local(peer, win));
                }
                CHECK(MPI_Win_unlock_all(win));
            }
            break;
        default: /* fence, pscw: rank 0 then rank 1 issue; the target exposes */
            for (int i = 0; i < iters; ++i) {
                pingpong_half(c, g, 0 == me);
                pingpong_half(c, g, 1 == me);
            }
            break;
    }
    double t = MPI_Wtime() - t0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Group_free(&g);
    return S_FENCE == c->row->sync || S_PSCW == c->row->sync ? t / 2 : t;
}

/* ---- bandwidth and message rate: windows of BW_WINDOW ops ---- */

/* Bytes of target memory one op covers. */
static size_t op_span(const row_t *row)
{
    return op_strided(row->op) ? 2 * row->size : row->size;
}

static size_t bw_slots(ctx_t *c)
{
    size_t slots = c->w->bytes / op_span(c->row);
    return slots < BW_WINDOW ? slots : BW_WINDOW;
}

static double bw_loop(ctx_t *c, int iters)
{
    MPI_Win win = c->w->win;
    size_t slots = bw_slots(c), size = c->row->size, span = op_span(c->row);
    double t0;

    MPI_Barrier(MPI_COMM_WORLD);
    if (S_FLUSH == c->row->sync && 0 == me) {
        CHECK(MPI_Win_lock_all(0, win));
    }
    t0 = MPI_Wtime();
    for (int i = 0; i < iters; ++i) {
        if (S_FENCE == c->row->sync) {
            CHECK(MPI_Win_fence(0, win));
        }
        /* the slot advances by a compare, not a division: OSU's loop has
         * none, and two divisions were a sixth of an 8-byte PUT's time
         * (perf) for every component alike */
        for (size_t j = 0, slot = 0; 0 == me && j < BW_WINDOW; ++j) {
            size_t off = slot * size;
            op_issue(c, slot * span, c->origin + off, c->result + off);
            slot = slot + 1 == slots ? 0 : slot + 1;
        }
        if (S_FENCE == c->row->sync) {
            CHECK(MPI_Win_fence(0, win));
        } else if (0 == me) {
            CHECK(MPI_Win_flush(peer, win));
        }
    }
    double t = MPI_Wtime() - t0;
    if (S_FLUSH == c->row->sync && 0 == me) {
        CHECK(MPI_Win_unlock_all(win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return t;
}

/* ---- verification ---- */

/* The byte every PUT carries and every GET must find. */
static unsigned char pattern(size_t i)
{
    return (unsigned char) (0x5A ^ (i * 131) ^ (i >> 7));
}

/* @p len bytes of slots of @p size bytes, each holding the pattern. */
static int verify_bytes(const unsigned char *got, size_t len, size_t size, int shift)
{
    for (size_t i = 0; i < len; ++i) {
        if (got[i] != (unsigned char) (pattern(i % size) + shift)) {
            return 0;
        }
    }
    return 1;
}

/* putv / getv: every payload byte at its place in the strided layout of
 * my window memory @p mem (the target's memory holds the pattern of its own
 * offsets for getv); @p from_peer: the peer's operations that reached me. */
static int verify_strided(ctx_t *c, const unsigned char *mem, int64_t from_peer, int shift)
{
    size_t size = c->row->size, slots = bw_slots(c), span = op_span(c->row);
    int ok = 1;

    for (size_t s = 0; s < slots; ++s) {
        for (size_t p = 0; p < size; ++p) {
            size_t at = s * span + strided_offset(c->row, p);
            if (O_PUTV == c->row->op && from_peer > 0) {
                ok &= mem[at] == (unsigned char) (pattern(p) + shift);
            } else if (O_GETV == c->row->op && c->count > 0) {
                ok &= (unsigned char) c->result[s * size + p] ==
                      (unsigned char) (pattern(at % size) + shift);
            }
        }
    }
    return ok;
}

/* The accumulate variants, at offset 0 of my window memory @p mem (the
 * peer's @p from_peer operations reached it) or in my result buffer. */
static int verify_acc_variant(ctx_t *c, const unsigned char *mem, int64_t from_peer, int shift)
{
    /* a bw row's REPLACEs cover every slot, each with its elements' values */
    size_t n = (K_BW == c->row->kind ? bw_slots(c) : 1) * c->row->size / op_elem(c->row->op);
    int ok = 1;

    for (size_t e = 0; e < n; ++e) {
        switch (c->row->op) {
            case O_ACCR: {
                int64_t v;
                memcpy(&v, mem + e * 8, 8);
                ok &= v == (from_peer > 0 ? ACCR_VALUE(e) : 0) + shift;
                break;
            }
            case O_GACCN: {
                int64_t v;
                memcpy(&v, c->result + e * 8, 8);
                ok &= 0 == c->count || v == GACCN_VALUE(e) + shift;
                break;
            }
            case O_ACCLD: {
                long double v;
                memcpy(&v, mem + e * sizeof(v), sizeof(v));
                ok &= v == (long double) (from_peer + shift);
                break;
            }
            case O_ACCB:
                ok &= mem[e] == (unsigned char) ((from_peer & 1) + shift);
                break;
            case O_ACCDI: {
                double_int_t pair;
                memcpy(&pair, mem + e * sizeof(pair), sizeof(pair));
                ok &= pair.v == (double) e + 1 + shift &&
                      pair.k == (from_peer > 0 ? peer : ACCML_NOBODY);
                break;
            }
            default: { /* O_ACCML */
                int pair[2];
                memcpy(pair, mem + e * 8, 8);
                ok &= pair[0] == (int) e + 1 + shift &&
                      pair[1] == (from_peer > 0 ? peer : ACCML_NOBODY);
                break;
            }
        }
    }
    return ok;
}

/* Each origin counted its operations in c->count; the target's int64
 * elements hold the sum of all operations that reached it. */
static int verify_row(ctx_t *c)
{
    size_t size = c->row->size, span = (K_LAT == c->row->kind) ? size : bw_slots(c) * size;
    /* the window memory the ops covered (a strided op spans twice its payload) */
    size_t covered = (K_LAT == c->row->kind) ? size : bw_slots(c) * op_span(c->row);
    size_t read = covered > 8 ? covered : 8;
    int shift = break_verify ? 1 : 0, ok = 1, all;
    int64_t origin_count = c->count, from_peer = 0, expect;
    unsigned char *mem = malloc(read);

    /* the peer's count of operations that reached me */
    MPI_Sendrecv(&origin_count, 1, MPI_INT64_T, peer, 0, &from_peer, 1, MPI_INT64_T, peer, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    win_local_read(c->w, mem, 0, read);
    expect = from_peer + shift;
    switch (c->row->op) {
        case O_PUT:
            if (from_peer > 0) {
                ok = verify_bytes(mem, span, size, shift);
            }
            break;
        case O_GET:
            if (origin_count > 0) {
                ok = verify_bytes((unsigned char *) c->result, span, size, shift);
            }
            break;
        case O_PUTV:
        case O_GETV:
            ok = verify_strided(c, mem, from_peer, shift);
            break;
        case O_ACC:
        case O_GACC:
            /* every op added 1 to each element at offset 0 (latency) or in
             * its slot (bw rows do not accumulate) */
            for (size_t e = 0; e < size / 8; ++e) {
                int64_t v;
                memcpy(&v, mem + e * 8, 8);
                ok &= v == expect;
            }
            break;
        case O_ACCR:
        case O_GACCN:
        case O_ACCLD:
        case O_ACCB:
        case O_ACCML:
        case O_ACCDI:
            ok = verify_acc_variant(c, mem, from_peer, shift);
            break;
        case O_FOP:
        case O_CAS: {
            int64_t v;
            memcpy(&v, mem, 8);
            ok = v == expect;
            if (origin_count > 0) { /* the last fetch saw the count before it */
                int64_t last;
                memcpy(&last, c->result, 8);
                ok &= last == origin_count - 1 + shift;
            }
            break;
        }
        default:
            break;
    }
    free(mem);
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

/* ---- rows ---- */

static int iters_for(size_t size, int base)
{
    if (size <= 8192) {
        return base;
    }
    long n = (long) base * 8192 / (long) size;
    return n < 10 ? 10 : (int) n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t) n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void report(row_t *row, const char *value, double number, const char *unit)
{
    if (0 != me) {
        return;
    }
    if (NULL != value) {
        printf("RESULT %s %s %s\n", row->name, value, unit);
    } else {
        printf("RESULT %s %.4g %s\n", row->name, number, unit);
    }
    fflush(stdout);
}

/* The repetitions' spread: @p t sorted (median() sorts), each converted by
 * @p conv (a time to the row's unit; for rates the order flips). */
static void report_spread(row_t *row, const double *t, int n, double (*conv)(double, double),
                          double arg)
{
    double a = conv(t[0], arg), b = conv(t[n - 1], arg);

    if (0 == me) {
        printf("SPREAD %s %.4g %.4g\n", row->name, a < b ? a : b, a < b ? b : a);
        fflush(stdout);
    }
}

static double per_iter_us(double sec, double iters)
{
    return sec * 1e6 / iters;
}

static double per_sec_1e6(double sec, double amount)
{
    return amount / sec / 1e6;
}

static size_t row_win_bytes(row_t *row)
{
    size_t bytes = row->size < 8 ? 8 : row->size;

    if (K_BW == row->kind || K_RATE == row->kind) {
        bytes = op_span(row) * BW_WINDOW;
        if (bytes > MAX_WIN_BYTES) {
            bytes = row->size > MAX_WIN_BYTES ? row->size : MAX_WIN_BYTES;
        }
    }
    return bytes;
}

static int row_valid(row_t *row)
{
    switch (row->kind) {
        case K_LAT:
            if (O_NONE == row->op || row->sync > S_PSCW || row->size < 8) {
                return 0;
            }
            if ((O_ACC == row->op || O_GACC == row->op || op_acc_variant(row->op)) &&
                row->size % op_elem(row->op)) {
                return 0;
            }
            return (O_FOP != row->op && O_CAS != row->op) || 8 == row->size;
        case K_BW:
            if (op_strided(row->op) && (0 == row->size % 8) &&
                (S_FLUSH == row->sync || S_FENCE == row->sync)) {
                return row->size <= MAX_WIN_BYTES / 2;
            }
            /* a stream of MPI_REPLACE, as ARMCI-MPI turns every put, or of
             * MPI_Get_accumulate(MPI_NO_OP), as it turns every get */
            if (O_ACCR == row->op || O_GACCN == row->op) {
                return 0 == row->size % 8 && (S_FLUSH == row->sync || S_FENCE == row->sync);
            }
            /* fall through */
        case K_RATE:
            return (O_PUT == row->op || O_GET == row->op) &&
                   (S_FLUSH == row->sync || S_FENCE == row->sync) && row->size > 0;
        case K_EMPTY:
            return S_FENCE == row->sync || S_LOCK == row->sync || S_LOCKALL == row->sync ||
                   S_PSCW == row->sync;
        case K_MULTI:
            return O_PUT == row->op && S_LOCK == row->sync && row->size > 0 &&
                   row->size <= MAX_WIN_BYTES;
        default:
            return 1;
    }
}

/* Fewer iterations where a repetition would last longer than rep_seconds
 * (a slow component's largest rows: a strided 4 MiB window of 64 PUTs at
 * 14 MB/s takes 37 s an iteration): the same rate from less data, at
 * least @p least iterations.  Rank 0's warm-up (@p per_iter seconds an
 * iteration) decides for both ranks. */
static int rep_iters(int iters, double per_iter, int least)
{
    if (0 == me && per_iter * iters > rep_seconds) {
        int n = (int) (rep_seconds / per_iter);
        iters = n < least ? least : n;
    }
    CHECK(MPI_Bcast(&iters, 1, MPI_INT, 0, MPI_COMM_WORLD));
    return iters;
}

static double row_loop(ctx_t *c, int iters)
{
    return K_LAT == c->row->kind ? lat_loop(c, iters) : bw_loop(c, iters);
}

/* One warm-up iteration, then as many of the other @p warmup - 1 as fit
 * in rep_seconds; seconds per iteration. */
static double warm_up(ctx_t *c, int warmup)
{
    double t = row_loop(c, 1);
    int more = rep_iters(warmup - 1, t, 0);

    return more > 0 ? row_loop(c, more) / more : t;
}

/* The origin buffer of an accumulate variant (@p bytes): REPLACE's
 * values, 1 for the sums (and -1 in accb's second buffer), MAXLOC pairs
 * (e + 1, my rank). */
static void acc_variant_origin(ctx_t *c, size_t bytes)
{
    size_t elem = op_elem(c->row->op);

    for (size_t e = 0; e < bytes / elem; ++e) {
        char *at = c->origin + e * elem;
        if (O_ACCR == c->row->op) {
            int64_t v = ACCR_VALUE(e);
            memcpy(at, &v, 8);
        } else if (O_ACCLD == c->row->op) {
            long double one = 1.0L;
            memset(at, 0, elem);
            memcpy(at, &one, sizeof(one));
        } else if (O_ACCB == c->row->op) {
            at[0] = 1;
            at[bytes] = -1; /* the second buffer */
        } else if (O_ACCML == c->row->op) {
            int pair[2] = {(int) e + 1, me};
            memcpy(at, pair, 8);
        } else if (O_ACCDI == c->row->op) {
            double_int_t pair = {(double) e + 1, me};
            memset(at, 0, elem);
            memcpy(at, &pair, sizeof(pair));
        }
    }
}

/* My window memory before a NO_OP read (the values it must find) or a
 * MAXLOC row (the origins' values, with an index above every rank). */
static void acc_variant_target(bwin_t *w, op_t op)
{
    size_t elem = op_elem(op);

    CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w->win));
    for (size_t e = 0; e < w->bytes / elem; ++e) {
        if (O_GACCN == op) {
            int64_t v = GACCN_VALUE(e);
            memcpy(w->base + e * 8, &v, 8);
        } else if (O_ACCDI == op) {
            double_int_t pair = {(double) e + 1, ACCML_NOBODY};
            memcpy(w->base + e * elem, &pair, sizeof(pair));
        } else {
            int pair[2] = {(int) e + 1, ACCML_NOBODY};
            memcpy(w->base + e * 8, pair, 8);
        }
    }
    CHECK(MPI_Win_unlock(me, w->win));
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Latency, bandwidth or message rate. */
static void run_data_row(row_t *row)
{
    bwin_t w;
    ctx_t c = {.w = &w, .row = row, .one = 1};
    size_t bytes = row_win_bytes(row);
    int iters = iters_for(row->size, K_LAT == row->kind ? base_iters : base_iters / 10 + 1);
    int warmup = iters / 10 + 1;
    double *t = malloc(sizeof(double) * (size_t) reps);

    if (!win_open(&w, row->flavor, bytes)) {
        report(row, "unsupported", 0, "-");
        free(t);
        return;
    }
    c.origin = malloc(O_ACCB == row->op ? 2 * bytes : bytes);
    c.result = malloc(bytes);
    for (size_t i = 0; i < bytes; ++i) {
        c.origin[i] = (char) pattern(i % (row->size ? row->size : 1));
    }
    if (O_ACC == row->op || O_GACC == row->op) {
        for (size_t e = 0; e < bytes / 8; ++e) {
            memcpy(c.origin + e * 8, &c.one, 8);
        }
    } else if (op_acc_variant(row->op)) {
        acc_variant_origin(&c, bytes);
    }
    if (op_strided(row->op)) {
        CHECK(MPI_Type_vector((int) (row->size / 8), 8, 16, MPI_BYTE, &c.strided));
        CHECK(MPI_Type_commit(&c.strided));
    }
    /* the target's memory: the pattern for GET, zeros for the counters */
    if (O_GACCN == row->op || O_ACCML == row->op || O_ACCDI == row->op) {
        acc_variant_target(&w, row->op);
    } else if (O_GET == row->op || O_GETV == row->op) {
        CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w.win));
        for (size_t i = 0; i < bytes; ++i) {
            w.base[i] = (char) pattern(i % row->size);
        }
        CHECK(MPI_Win_unlock(me, w.win));
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        win_local_fill(&w, 0);
    }
    memset(c.result, 0, bytes);
    iters = rep_iters(iters, warm_up(&c, warmup), MIN_REP_ITERS);
    for (int r = 0; r < reps; ++r) {
        t[r] = row_loop(&c, iters);
    }
    double sec = median(t, reps);
    int ok = verify_row(&c);
    double ops = (double) iters * BW_WINDOW;
    if (!ok) {
        report(row, "wrong", 0, "-");
    } else if (K_LAT == row->kind) {
        report(row, NULL, sec * 1e6 / iters, "us");
        report_spread(row, t, reps, per_iter_us, iters);
    } else if (K_BW == row->kind) {
        report(row, NULL, ops * (double) row->size / sec / 1e6, "MB/s");
        report_spread(row, t, reps, per_sec_1e6, ops * (double) row->size);
    } else {
        report(row, NULL, ops / sec / 1e6, "Mmsg/s");
        report_spread(row, t, reps, per_sec_1e6, ops);
    }
    win_close(&w, row->flavor);
    if (op_strided(row->op)) {
        MPI_Type_free(&c.strided);
    }
    free(c.origin);
    free(c.result);
    free(t);
}

static double empty_loop(bwin_t *w, sync_t sync, int iters)
{
    MPI_Group g = peer_group(w->win);
    double t0;

    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int i = 0; i < iters; ++i) {
        switch (sync) {
            case S_FENCE:
                CHECK(MPI_Win_fence(0, w->win));
                break;
            case S_LOCK:
                CHECK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, w->win));
                CHECK(MPI_Win_unlock(peer, w->win));
                break;
            case S_LOCKALL:
                CHECK(MPI_Win_lock_all(0, w->win));
                CHECK(MPI_Win_flush_all(w->win));
                CHECK(MPI_Win_unlock_all(w->win));
                break;
            default: /* pscw: each rank exposes to and accesses its peer */
                CHECK(MPI_Win_post(g, 0, w->win));
                CHECK(MPI_Win_start(g, 0, w->win));
                CHECK(MPI_Win_complete(w->win));
                CHECK(MPI_Win_wait(w->win));
                break;
        }
    }
    double t = MPI_Wtime() - t0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Group_free(&g);
    return t;
}

/* Microseconds per iteration of a row of epochs, or "wrong" if any rank's
 * check failed (@p ok: mine). */
static void report_epochs(row_t *row, double *t, int iters, int ok)
{
    int all;

    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all) {
        report(row, NULL, median(t, reps) * 1e6 / iters, "us");
        report_spread(row, t, reps, per_iter_us, iters);
    } else {
        report(row, "wrong", 0, "-");
    }
}

/* Empty epochs move no data; the window must still hold what was stored. */
static void run_empty_row(row_t *row)
{
    bwin_t w;
    int iters = base_iters, ok;
    double *t = malloc(sizeof(double) * (size_t) reps);
    unsigned char got[64];

    if (!win_open(&w, row->flavor, 64)) {
        report(row, "unsupported", 0, "-");
        free(t);
        return;
    }
    win_local_fill(&w, 0x33);
    (void) empty_loop(&w, row->sync, iters / 10 + 1);
    for (int r = 0; r < reps; ++r) {
        t[r] = empty_loop(&w, row->sync, iters);
    }
    win_local_read(&w, got, 0, sizeof(got));
    ok = 1;
    for (size_t i = 0; i < sizeof(got); ++i) {
        ok &= got[i] == 0x33 + (break_verify ? 1 : 0);
    }
    report_epochs(row, t, iters, ok);
    win_close(&w, row->flavor);
    free(t);
}

static double multi_loop(bwin_t *w, const char *data, size_t size, int iters)
{
    double t0;

    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int i = 0; 0 == me && i < iters; ++i) {
        for (int t = 1; t < nprocs; ++t) {
            CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w->win));
        }
        for (int t = 1; t < nprocs; ++t) {
            CHECK(MPI_Put(data, (int) size, MPI_BYTE, t, w->disp0, (int) size, MPI_BYTE, w->win));
        }
        CHECK(MPI_Win_flush_all(w->win));
        for (int t = 1; t < nprocs; ++t) {
            CHECK(MPI_Win_unlock(t, w->win));
        }
    }
    double t = MPI_Wtime() - t0;
    MPI_Barrier(MPI_COMM_WORLD);
    return t;
}

/* Lock epochs to several targets at once (rank 0 to every other rank);
 * each target must hold the data at the end. */
static void run_multi_row(row_t *row)
{
    bwin_t w;
    int iters = iters_for(row->size, base_iters), ok = 1;
    double *t = malloc(sizeof(double) * (size_t) reps);
    char *data = malloc(row->size), *got = malloc(row->size);

    if (nprocs < 3 || F_DYNAMIC == row->flavor || !win_open(&w, row->flavor, row->size)) {
        report(row, "unsupported", 0, "-");
        free(t);
        free(data);
        free(got);
        return;
    }
    for (size_t i = 0; i < row->size; ++i) {
        data[i] = (char) pattern(i);
    }
    win_local_fill(&w, 0);
    (void) multi_loop(&w, data, row->size, iters / 10 + 1);
    for (int r = 0; r < reps; ++r) {
        t[r] = multi_loop(&w, data, row->size, iters);
    }
    win_local_read(&w, got, 0, row->size); /* collective */
    if (0 != me) {
        ok = verify_bytes((unsigned char *) got, row->size, row->size, break_verify ? 1 : 0);
    }
    report_epochs(row, t, iters, ok);
    win_close(&w, row->flavor);
    free(t);
    free(data);
    free(got);
}

/* Window creation + free; each new window must work: rank 0 PUTs its
 * iteration number to rank 1's window inside a fence epoch. */
static void run_win_row(row_t *row)
{
    int iters = base_iters / 20 + 2, ok = 1;
    double *t = malloc(sizeof(double) * (size_t) reps), t0;
    bwin_t w;

    /* the first window of a process pays one-time set-up (transport
     * workers, shared segments): not what a repetition measures */
    if (!win_open(&w, row->flavor, 4096)) {
        report(row, "unsupported", 0, "-");
        free(t);
        return;
    }
    win_close(&w, row->flavor);
    for (int r = 0; r < reps; ++r) {
        t[r] = 0;
        for (int i = 0; i < iters; ++i) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            if (!win_open(&w, row->flavor, 4096)) {
                report(row, "error", 0, "-");
                free(t);
                return;
            }
            win_close(&w, row->flavor);
            t[r] += MPI_Wtime() - t0;
        }
    }
    /* one more, checked */
    if (win_open(&w, row->flavor, 4096)) {
        int value = 1234, got = 0;
        win_local_fill(&w, 0);
        CHECK(MPI_Win_fence(0, w.win));
        if (0 == me) {
            CHECK(MPI_Put(&value, 1, MPI_INT, peer, w.disp0, 1, MPI_INT, w.win));
        }
        CHECK(MPI_Win_fence(0, w.win));
        win_local_read(&w, &got, 0, sizeof(got));
        ok = 1 != me || got == value + (break_verify ? 1 : 0);
        win_close(&w, row->flavor);
    }
    report_epochs(row, t, iters, ok);
    free(t);
}

/* The value of the line @p key of a /proc file, in KiB; -1 without it. */
static long proc_kib(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    size_t len = strlen(key);
    char line[256];
    long kib = -1;

    if (NULL == f) {
        return -1;
    }
    while (NULL != fgets(line, sizeof(line), f)) {
        if (0 == strncmp(line, key, len)) {
            kib = atol(line + len);
        }
    }
    fclose(f);
    return kib;
}

/* Memory this process holds: its proportional set size, where a page
 * mapped by n processes counts 1/n in each (a shared window's page, written
 * by every rank, is one page of the node, not one per rank as the resident
 * set size would count it); the resident set size where the kernel has no
 * smaps_rollup (before Linux 4.14). */
static long mem_kib(void)
{
    long kib = proc_kib("/proc/self/smaps_rollup", "Pss:");

    return kib >= 0 ? kib : proc_kib("/proc/self/status", "VmRSS:");
}

/* One 8-byte PUT from every rank to every rank (the peer only on dynamic
 * windows, whose addresses travel per peer), so whatever a component keeps
 * per peer touched is counted. */
static void mem_touch(bwin_t *w, flavor_t flavor)
{
    int64_t value = me + 1;

    CHECK(MPI_Win_lock_all(0, w->win));
    for (int t = 0; t < nprocs; ++t) {
        if (F_DYNAMIC == flavor && t != peer) {
            continue;
        }
        CHECK(MPI_Put(&value, 1, MPI_INT64_T, t,
                      (F_DYNAMIC == flavor ? w->disp0 : 0) + 8 * (MPI_Aint) me, 1, MPI_INT64_T,
                      w->win));
    }
    CHECK(MPI_Win_unlock_all(w->win));
}

/* Every rank's value arrived in my window. */
static int mem_check(bwin_t *w, flavor_t flavor)
{
    int64_t got;
    int ok = 1;

    MPI_Barrier(MPI_COMM_WORLD);
    for (int t = 0; t < nprocs; ++t) {
        if (F_DYNAMIC == flavor && (t + 1) % nprocs != me) {
            continue;
        }
        win_local_read(w, &got, 8 * (size_t) t, sizeof(got));
        ok &= got == t + 1 + (break_verify ? 1 : 0);
    }
    return ok;
}

/* Memory per window: how much the resident set grows, per window, while
 * MEM_WINDOWS windows of 4 KiB (the window memory itself included) are
 * open at once and used; the largest growth of any rank.  One
 * measurement (freed memory is reused, so a repetition would see none). */
#define MEM_WINDOWS 64

static void run_mem_row(row_t *row)
{
    bwin_t *w = calloc(MEM_WINDOWS, sizeof(*w));
    long before, grown, most;
    int ok = 1, all, n = 0;
    double kib;

    if (!win_open(&w[0], row->flavor, 4096)) { /* the one-time set-up */
        report(row, "unsupported", 0, "-");
        free(w);
        return;
    }
    mem_touch(&w[0], row->flavor);
    /* every origin is done before a target detaches its memory (dynamic) */
    MPI_Barrier(MPI_COMM_WORLD);
    win_close(&w[0], row->flavor);
    MPI_Barrier(MPI_COMM_WORLD);
    before = mem_kib();
    for (; n < MEM_WINDOWS && win_open(&w[n], row->flavor, 4096); ++n) {
        win_local_fill(&w[n], 0);
        MPI_Barrier(MPI_COMM_WORLD);
        mem_touch(&w[n], row->flavor);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    grown = mem_kib() - before;
    ok = n == MEM_WINDOWS && before >= 0 && mem_check(&w[n - 1], row->flavor);
    MPI_Reduce(&grown, &most, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    while (n > 0) {
        win_close(&w[--n], row->flavor);
    }
    kib = (double) most / MEM_WINDOWS;
    if (all) {
        report(row, NULL, kib, "KiB");
        if (0 == me) {
            printf("SPREAD %s %.4g %.4g\n", row->name, kib, kib);
        }
    } else {
        report(row, "wrong", 0, "-");
    }
    free(w);
}

static void usage(void)
{
    if (0 == me) {
        fprintf(stderr,
                "usage: osc_newrma_bench [--iters N] [--reps R] [--rep-seconds S] [--break-verify] "
                "KIND:OP:SYNC:FLAVOR:SIZE...\n");
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    peer = (me + 1) % nprocs;
    for (int i = 1; i < argc; ++i) {
        row_t row;
        if (0 == strcmp(argv[i], "--iters") && i + 1 < argc) {
            base_iters = atoi(argv[++i]);
            continue;
        }
        if (0 == strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
            continue;
        }
        if (0 == strcmp(argv[i], "--rep-seconds") && i + 1 < argc) {
            rep_seconds = atof(argv[++i]);
            continue;
        }
        if (0 == strcmp(argv[i], "--break-verify")) {
            break_verify = 1;
            continue;
        }
        if (0 != row_parse(argv[i], &row) || !row_valid(&row) || base_iters < 1 || reps < 1) {
            usage();
            if (0 == me) {
                printf("RESULT %s error bad-row\n", argv[i]);
            }
            MPI_Finalize();
            return 2;
        }
        current_row = row.name;
        if (K_WIN != row.kind && K_MEM != row.kind && K_MULTI != row.kind && 2 != nprocs &&
            !(K_EMPTY == row.kind && S_LOCKALL == row.sync)) {
            /* one origin, one target: the OSU setting; empty lock_all epochs
             * and window creation also scale with the rank count */
            report(&row, "unsupported", 0, "-");
        } else if (K_WIN == row.kind) {
            run_win_row(&row);
        } else if (K_MEM == row.kind) {
            run_mem_row(&row);
        } else if (K_EMPTY == row.kind) {
            run_empty_row(&row);
        } else if (K_MULTI == row.kind) {
            run_multi_row(&row);
        } else {
            run_data_row(&row);
        }
    }
    MPI_Finalize();
    return 0;
}
