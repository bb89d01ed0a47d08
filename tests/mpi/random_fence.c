/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Seeded randomized tester: epochs of random, non-conflicting PUT/GET
 * programs (contiguous and strided datatypes on either side, random targets
 * including self, random FENCE asserts).  Every rank derives the whole
 * program from the seed, so conflicts are avoided globally.  Each rank
 * writes its window after every epoch and all its GET buffers to
 * <prefix>.<rank>; the runner runs the same seed under osc/newrma and
 * osc/pt2pt and compares the files byte for byte.
 *
 * SYNC picks the epochs: fence (random FENCE asserts), lock (each origin
 * locks every target it accesses, shared when several, exclusive when one,
 * MPI_MODE_NOCHECK at random, flushes at random points) or lockall
 * (LOCK_ALL with or without NOCHECK, random flush / flush_local / flush_all
 * / flush_local_all) or pscw (each rank posts to the origins that access
 * it and starts the targets it accesses, either group possibly empty, and
 * ends with MPI_Win_wait or an MPI_Win_test loop).
 *
 * With "acc", programs also hold MPI_Accumulate(MPI_SUM) (which may
 * overlap other SUMs: commutative, so the result is order-independent) and
 * MPI_Get_accumulate with SUM, BXOR, REPLACE or NO_OP on regions nobody
 * else touches in the epoch; their fetched results are compared as well.
 * Every other NO_OP leaves its origin empty (NULL, 0, MPI_BYTE).  One in
 * five of their PUTs, GETs and GET_ACCUMULATEs (REPLACE or NO_OP) then
 * moves MPI_SHORT_INT pairs on both sides (a short, two bytes of padding
 * and an int, over two ints of the window): a type with gaps, which no
 * access may write.
 *
 * With "tight", epochs follow each other as in an application: no barrier
 * between them, no refill (each epoch starts from what the last left), a
 * fence that closes an epoch without NOSUCCEED opens the next one, and the
 * results go to memory until the end.  A rank may then start epoch e+1
 * while a peer still closes epoch e, so what the fence and PSCW promise
 * across epochs is tested: a GET reads what the epoch before wrote, a PUT
 * of e+1 lands after every access of e.  The window is written out only
 * where nobody can access it: after a fence with NOSUCCEED (PSCW, the same
 * epochs) and at the end.  Passive epochs order nothing between origins,
 * so there each origin's PUTs, GETs and GET_ACCUMULATEs go to its own
 * slice of every target's window and the SUMs to a part they share
 * (op_range): the results are the program's whatever the interleaving,
 * and what an origin's lock, flush and unlock promise across its own
 * epochs is tested (a GET sees what the origin's PUTs and GET_ACCUMULATEs
 * of earlier epochs left there, an unlock waits for its epoch's GETs and
 * accumulates, the SUMs all land);
 * the window is written out at the end only.
 *
 * usage: random_fence SEED EPOCHS FLAVOR PREFIX [fence|lock|lockall|pscw] [acc] [tight]
 */
#include "mtest.h"

#define WIN_BYTES 16384

static uint64_t rng_state;

static uint32_t rng(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t) (rng_state >> 33);
}

enum { K_GET, K_PUT, K_ACC, K_GACC };

typedef struct {
    int origin, target, kind, gop; /* gop: GET_ACCUMULATE's op */
    int tkind, okind;              /* 0 contiguous ints, 1 vector of ints, 2 MPI_SHORT_INT pairs */
    int count;                     /* ints moved */
    int tblk, tstride;             /* target vector block length and stride (ints) */
    int oblk, ostride;
    MPI_Aint toff; /* target byte offset */
} rop_t;

enum { T_CONTIG, T_VECTOR, T_PAIRS };

static MPI_Datatype make_type(int kind, int count, int blk, int stride, int *dcount)
{
    MPI_Datatype dt;

    if (T_CONTIG == kind) {
        *dcount = count;
        return MPI_INT;
    }
    if (T_PAIRS == kind) { /* 8 bytes each: two of the count's ints */
        *dcount = count / 2;
        return MPI_SHORT_INT;
    }
    MPI_Type_vector(count / blk, blk, stride, MPI_INT, &dt);
    MPI_Type_commit(&dt);
    *dcount = 1;
    return dt;
}

static int footprint_ints(int kind, int count, int blk, int stride)
{
    return T_VECTOR != kind ? count : (count / blk - 1) * stride + blk;
}

/* byte owner map per target: 0 free, 1 read by GETs, 2 owned by one PUT or
 * GET_ACCUMULATE, 3 summed by ACCUMULATEs */
static int claim(unsigned char *map, const rop_t *op)
{
    int nblk = T_VECTOR != op->tkind ? 1 : op->count / op->tblk;
    int blk = T_VECTOR != op->tkind ? op->count : op->tblk;
    int stride = T_VECTOR != op->tkind ? 0 : op->tstride;
    unsigned char mark = K_GET == op->kind ? 1 : K_ACC == op->kind ? 3 : 2;

    for (int pass = 0; pass < 2; ++pass) {
        for (int b = 0; b < nblk; ++b) {
            for (int i = 0; i < blk * 4; ++i) {
                unsigned char *m = &map[op->toff + (MPI_Aint) b * stride * 4 + i];
                if (0 == pass && 0 != *m && (*m != mark || 2 == mark)) {
                    return 0; /* would conflict */
                }
                if (1 == pass) {
                    *m = mark;
                }
            }
        }
    }
    return 1;
}

enum { SYNC_FENCE, SYNC_LOCK, SYNC_LOCKALL, SYNC_PSCW };

/* Open a passive epoch on the targets my ops touch (targets ascending). */
static void passive_open(int sync, MPI_Win win, const rop_t *ops, int nops, int me, int nprocs,
                         char *locked)
{
    int ntargets = 0, nocheck = (rng() % 4 == 0) ? MPI_MODE_NOCHECK : 0;

    if (SYNC_LOCKALL == sync) {
        MPI_CHECK(MPI_Win_lock_all(nocheck, win));
        return;
    }
    memset(locked, 0, (size_t) nprocs);
    for (int i = 0; i < nops; ++i) {
        if (ops[i].origin == me && !locked[ops[i].target]) {
            locked[ops[i].target] = 1;
            ntargets++;
        }
    }
    for (int t = 0; t < nprocs; ++t) {
        if (locked[t]) {
            MPI_CHECK(MPI_Win_lock(1 == ntargets ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, t, nocheck,
                                   win));
        }
    }
}

/* The group of ranks r with mark[r] set. */
static MPI_Group marked_group(MPI_Win win, const char *mark, int nprocs)
{
    MPI_Group all, g;
    int *ranks = malloc(sizeof(int) * (size_t) nprocs), n = 0;

    for (int r = 0; r < nprocs; ++r) {
        if (mark[r]) {
            ranks[n++] = r;
        }
    }
    MPI_Win_get_group(win, &all);
    MPI_Group_incl(all, n, ranks, &g);
    MPI_Group_free(&all);
    free(ranks);
    return g;
}

/* WIN_POST to my origins, WIN_START on my targets. */
static void pscw_open(MPI_Win win, const rop_t *ops, int nops, int me, int nprocs, char *mark)
{
    MPI_Group origins, targets;

    memset(mark, 0, (size_t) nprocs);
    for (int i = 0; i < nops; ++i) {
        if (ops[i].target == me) {
            mark[ops[i].origin] = 1;
        }
    }
    origins = marked_group(win, mark, nprocs);
    memset(mark, 0, (size_t) nprocs);
    for (int i = 0; i < nops; ++i) {
        if (ops[i].origin == me) {
            mark[ops[i].target] = 1;
        }
    }
    targets = marked_group(win, mark, nprocs);
    MPI_CHECK(MPI_Win_post(origins, 0, win));
    MPI_CHECK(MPI_Win_start(targets, 0, win));
    MPI_Group_free(&origins);
    MPI_Group_free(&targets);
}

static void pscw_close(MPI_Win win)
{
    int flag = 0;

    MPI_CHECK(MPI_Win_complete(win));
    if (rng() % 2) {
        MPI_CHECK(MPI_Win_wait(win));
        return;
    }
    while (!flag) {
        MPI_CHECK(MPI_Win_test(win, &flag));
    }
}

static void passive_flush(int sync, MPI_Win win, int target)
{
    switch (rng() % (SYNC_LOCKALL == sync ? 8 : 6)) {
        case 0:
            MPI_CHECK(MPI_Win_flush(target, win));
            break;
        case 1:
            MPI_CHECK(MPI_Win_flush_local(target, win));
            break;
        case 2:
            MPI_CHECK(MPI_Win_flush_all(win));
            break;
        case 3:
            MPI_CHECK(MPI_Win_flush_local_all(win));
            break;
        default:
            break;
    }
}

static void passive_close(int sync, MPI_Win win, int nprocs, const char *locked)
{
    if (SYNC_LOCKALL == sync) {
        MPI_CHECK(MPI_Win_unlock_all(win));
        return;
    }
    for (int t = 0; t < nprocs; ++t) {
        if (locked[t]) {
            MPI_CHECK(MPI_Win_unlock(t, win));
        }
    }
}

/* The bytes [*@p lo, + *@p len) of its target's window @p op may touch:
 * all of it, or in tight passive epochs (@p sliced, see the top) the SUMs'
 * part (the first half, with acc) or its origin's slice of the rest. */
static void op_range(int nprocs, int acc, int sliced, const rop_t *op, int *lo, int *len)
{
    int shared = acc ? WIN_BYTES / 2 : 0;
    int slice = (WIN_BYTES - shared) / nprocs / 8 * 8;

    if (!sliced) {
        *lo = 0;
        *len = WIN_BYTES;
    } else {
        *lo = K_ACC == op->kind ? 0 : shared + op->origin * slice;
        *len = K_ACC == op->kind ? shared : slice;
    }
}

static int gen_op(int nprocs, unsigned char *maps, rop_t *op, int acc, int sliced)
{
    op->origin = (int) (rng() % nprocs);
    op->target = (int) (rng() % nprocs);
    op->kind = (int) (rng() % (acc ? 4 : 2));
    op->gop = (int) (rng() % 4);
    op->tkind = (int) (rng() % 2);
    op->okind = (int) (rng() % 2);
    op->tblk = 1 + (int) (rng() % 4);
    op->oblk = 1 + (int) (rng() % 4);
    op->tstride = op->tblk + 1 + (int) (rng() % 3);
    op->ostride = op->oblk + (int) (rng() % 3);
    op->count = op->tblk * op->oblk * (1 + (int) (rng() % (rng() % 4 == 0 ? 200 : 12)));
    if (acc && K_ACC != op->kind && 0 == rng() % 5) {
        op->tkind = op->okind = T_PAIRS;
        op->count += op->count & 1;
        op->gop = 2 + op->gop % 2; /* REPLACE or NO_OP: no arithmetic on pairs */
    }
    int span = footprint_ints(op->tkind, op->count, op->tblk, op->tstride) * 4, lo, len;
    op_range(nprocs, acc, sliced, op, &lo, &len);
    if (span + 4 > len) { /* spans are whole ints */
        return 0;
    }
    op->toff = lo + 4 * (MPI_Aint) (rng() % ((len - span) / 4));
    return claim(&maps[(size_t) op->target * WIN_BYTES], op);
}

int main(int argc, char **argv)
{
    int nprocs, me, epochs;
    unsigned long seed;
    mtest_win_t w;
    FILE *out;
    char path[4096];

    mtest_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    me = mtest_rank;
    if (argc < 5) {
        fprintf(stderr, "usage: %s SEED EPOCHS FLAVOR PREFIX\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    seed = strtoul(argv[1], NULL, 0);
    epochs = atoi(argv[2]);
    int sync = SYNC_FENCE;
    if (argc > 5) {
        sync = 0 == strcmp(argv[5], "lock")      ? SYNC_LOCK
               : 0 == strcmp(argv[5], "lockall") ? SYNC_LOCKALL
               : 0 == strcmp(argv[5], "pscw")    ? SYNC_PSCW
                                                 : SYNC_FENCE;
    }
    int acc = 0, tight = 0;
    for (int a = 6; a < argc; ++a) {
        acc |= 0 == strcmp(argv[a], "acc");
        tight |= 0 == strcmp(argv[a], "tight");
    }
    int passive = SYNC_LOCK == sync || SYNC_LOCKALL == sync, sliced = tight && passive;
    char *locked = malloc((size_t) nprocs);
    snprintf(path, sizeof(path), "%s.%d", argv[4], me);
    out = fopen(path, "wb");
    if (NULL == out) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* tight: the results go to memory, written out at the end (a file
     * write between epochs would give the peers time) */
    FILE *file = out;
    char *mem = NULL;
    size_t mem_len = 0;
    if (tight && NULL == (out = open_memstream(&mem, &mem_len))) {
        perror("open_memstream");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    mtest_win_create(&w, argv[3], WIN_BYTES, MPI_INFO_NULL, MPI_COMM_WORLD);
    unsigned char *maps = malloc((size_t) nprocs * WIN_BYTES);
    int nops_max = 6 * nprocs + 8;
    rop_t *ops = malloc(sizeof(rop_t) * nops_max);
    char **bufs = calloc(nops_max, sizeof(char *));
    int **res = calloc(nops_max, sizeof(int *));
    const MPI_Op gops[4] = {MPI_SUM, MPI_BXOR, MPI_REPLACE, MPI_NO_OP};
    int closed = 1;

    for (int e = 0; e < epochs; ++e) {
        rng_state = seed * 1000003ull + (uint64_t) e;
        memset(maps, 0, (size_t) nprocs * WIN_BYTES);
        if (!tight || 0 == e) {
            mtest_fill(w.base, WIN_BYTES, (uint32_t) (seed + e * 17 + me * 7919));
        }
        int nops = 0, tries = (int) (rng() % nops_max);
        for (int i = 0; i < tries; ++i) {
            nops += gen_op(nprocs, maps, &ops[nops], acc, sliced);
        }
        int open_assert = (closed || rng() % 2) ? MPI_MODE_NOPRECEDE : 0;
        if (SYNC_FENCE == sync) {
            if (!tight || closed) { /* tight: the last fence opened this epoch */
                MPI_CHECK(MPI_Win_fence(open_assert, w.win));
            }
        } else if (SYNC_PSCW == sync) {
            /* WIN_POST's MEM_SYNC and POST order the fill before access */
            pscw_open(w.win, ops, nops, me, nprocs, locked);
        } else {
            if (!tight || 0 == e) {
                MPI_Barrier(MPI_COMM_WORLD); /* every window is filled */
            }
            passive_open(sync, w.win, ops, nops, me, nprocs, locked);
        }
        for (int i = 0; i < nops; ++i) {
            rop_t *op = &ops[i];
            int ocount, tcount;
            if (op->origin != me)
                continue;
            MPI_Datatype odt = make_type(op->okind, op->count, op->oblk, op->ostride, &ocount);
            MPI_Datatype tdt = make_type(op->tkind, op->count, op->tblk, op->tstride, &tcount);
            size_t olen = (size_t) footprint_ints(op->okind, op->count, op->oblk, op->ostride) * 4;
            bufs[i] = malloc(olen);
            MPI_Aint disp = w.disp0[op->target] + op->toff;
            if (K_ACC == op->kind || K_GACC == op->kind) {
                mtest_fill(bufs[i], olen, (uint32_t) (seed * 31 + e * 1009 + i));
            }
            if (K_ACC == op->kind) {
                MPI_CHECK(MPI_Accumulate(bufs[i], ocount, odt, op->target, disp, tcount, tdt,
                                         MPI_SUM, w.win));
            } else if (K_GACC == op->kind) {
                res[i] = malloc(sizeof(int) * op->count);
                memset(res[i], 0xCD, sizeof(int) * op->count);
                /* every other MPI_NO_OP without an origin, as ARMCI-MPI reads */
                int bare = MPI_NO_OP == gops[op->gop] && (i & 1), rcount;
                MPI_Datatype rdt =
                    make_type(T_PAIRS == op->tkind ? T_PAIRS : T_CONTIG, op->count, 1, 1, &rcount);
                MPI_CHECK(MPI_Get_accumulate(bare ? NULL : bufs[i], bare ? 0 : ocount,
                                             bare ? MPI_BYTE : odt, res[i], rcount, rdt, op->target,
                                             disp, tcount, tdt, gops[op->gop], w.win));
            } else if (K_PUT == op->kind) {
                mtest_fill(bufs[i], olen, (uint32_t) (seed * 31 + e * 1009 + i));
                MPI_CHECK(MPI_Put(bufs[i], ocount, odt, op->target, w.disp0[op->target] + op->toff,
                                  tcount, tdt, w.win));
            } else {
                memset(bufs[i], 0xAB, olen);
                MPI_CHECK(MPI_Get(bufs[i], ocount, odt, op->target, w.disp0[op->target] + op->toff,
                                  tcount, tdt, w.win));
            }
            if (T_VECTOR == op->okind)
                MPI_Type_free(&odt);
            if (T_VECTOR == op->tkind)
                MPI_Type_free(&tdt);
            if (passive) {
                passive_flush(sync, w.win, op->target);
            }
        }
        closed = (int) (rng() % 3 == 0);
        if (SYNC_FENCE == sync) {
            MPI_CHECK(MPI_Win_fence(closed ? MPI_MODE_NOSUCCEED : 0, w.win));
        } else if (SYNC_PSCW == sync) {
            pscw_close(w.win); /* my window is final once WIN_WAIT returns */
        } else {
            passive_close(sync, w.win, nprocs, locked);
            if (!tight || epochs - 1 == e) {
                MPI_Barrier(MPI_COMM_WORLD); /* every origin is done with my window */
            }
        }
        /* tight: a fence without NOSUCCEED opened the next epoch, whose
         * accesses may already reach my window; the epochs after read it
         * (PSCW writes out the same epochs: its reference runs in fence
         * epochs; passive ones only after the last epoch's barrier) */
        if (!tight || (closed && !passive) || epochs - 1 == e) {
            fwrite(w.base, 1, WIN_BYTES, out);
        }
        for (int i = 0; i < nops; ++i) {
            if (NULL != bufs[i]) {
                fwrite(bufs[i], 1,
                       (size_t) footprint_ints(ops[i].okind, ops[i].count, ops[i].oblk,
                                               ops[i].ostride) *
                           4,
                       out);
                free(bufs[i]);
                bufs[i] = NULL;
            }
            if (NULL != res[i]) {
                fwrite(res[i], sizeof(int), (size_t) ops[i].count, out);
                free(res[i]);
                res[i] = NULL;
            }
        }
        /* nobody refills its window before everyone has written theirs */
        if (!tight) {
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    if (tight) {
        fclose(out);
        if (mem_len != fwrite(mem, 1, mem_len, file)) {
            perror(path);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        free(mem);
    }
    fclose(file);
    mtest_win_free(&w);
    free(maps);
    free(locked);
    free(ops);
    free(bufs);
    free(res);
    return mtest_finalize();
}
