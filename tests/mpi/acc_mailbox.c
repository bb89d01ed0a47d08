/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/* Small accumulates, PUTs and GETs on windows of user memory (create,
 * dynamic): one alone at a node-local target goes through the target's
 * mailbox in the window's segment (osc_newrma_mailbox), which its agent
 * polls; anything else by RDMA or as packets.  Usage: acc_mailbox FLAVOR MODE, MODE one of
 *   mailbox  every lone op that fits a slot (32 bytes) or its area (2048,
 *            a reduction 32768)
 *            goes by the mailbox (the
 *            shm path): the window's MPI_T counters say so;
 *   packet   none does (the UCX path, no segment);
 *   off      none does, with osc_newrma_mailbox 0 (set here);
 *   offinfo  none does, the window made with the info key mailbox=false;
 *   fail     rank 1's agent fails the first op it applies
 *            (osc_newrma_test_fail_packet 1), an ACCUMULATE: the origin's
 *            flush_local (if the answer is in by then) or flush returns
 *            MPI_ERR_OTHER through the window's handler, once, the window
 *            stays usable and the op after it is right;
 *   failfetch  the same with a FETCH_AND_OP.
 * Each rank runs every case to its right neighbour, alone, under lock_all
 * + flush, fence and PSCW, checking old values and the target's memory: a
 * SUM of int64, REPLACE of int8, NO_OP of int16 (GET_ACCUMULATE), FETCH_AND_OP
 * of double, COMPARE_AND_SWAP of int32, MAXLOC of MPI_DOUBLE_INT, SUM of long
 * double, SUM of 4 int64 (in the slot), of 5 and of 4096 (40 and 32768
 * bytes: in the slot's area), GET_ACCUMULATE SUM of 4096, SUM of 4097 (too
 * large for the area: packets), a PUT of 8 bytes, a GET of 32, a PUT of 40
 * (area), a GET of 512 (area), a PUT of 2048 (area), a GET of 2048 (area,
 * though from osc_newrma_get_rdma_bytes on a GET of a stream goes by RDMA),
 * a PUT of 2056 and a GET of 2056 (more than a PUT or GET carries in the
 * area: RDMA).  Then,
 * all ranks at once on rank 0: FETCH_AND_OPs and CAS increments (more
 * origins than slots: the rest go as packets) with exact totals, and an
 * MPI_Rget_accumulate followed at once by an MPI_Accumulate (REPLACE) to the
 * same element, which must land after it.  Last, each rank's ops behind one
 * posted by the call itself (the mailbox_at_call counter: a lone op to an
 * idle target whose lock is held goes to the mailbox without an op
 * element): a FETCH_AND_OP, then at once a REPLACE and two NO_OP fetches
 * of the same element, flushed together, in order; then a FETCH_AND_OP
 * alone, whose MPI_Win_flush_local must bring its answer. */
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define SLOT      65536 /* bytes of window per case */
#define NCASE     20
#define NI64      (SLOT / 8)
#define CONTEND   (NCASE * SLOT)
#define WIN_BYTES (CONTEND + 4 * SLOT)
#define ROUNDS    200

enum { MAILBOX, PACKET, AT_CALL, NPATH };
static const char *const path_names[NPATH] = {
    "osc_newrma_win_ops_mailbox", "osc_newrma_win_ops_packet", "osc_newrma_win_mailbox_at_call"};
static MPI_T_pvar_session session;
static MPI_T_pvar_handle path_h[NPATH];
static int nprocs, right, left;
static mtest_win_t w;

typedef struct {
    double v;
    int i;
} dint_t;

static unsigned long long path_count(int p)
{
    unsigned long long v;

    MPI_CHECK(MPI_T_pvar_read(session, path_h[p], &v));
    return v;
}

static MPI_Aint disp(int rank, size_t offset)
{
    return w.disp0[rank] + (MPI_Aint) offset;
}

/* What case @c leaves in the target's slot (as initialized by init_slot)
 * and what it fetches; each case's slot starts as init_slot wrote it. */
static void init_slot(int c, unsigned char *slot, int owner)
{
    memset(slot, 0, SLOT);
    switch (c) {
        case 0:
            *(int64_t *) slot = 1000 + owner;
            break;
        case 1:
            *(int8_t *) slot = (int8_t) (-3 - owner);
            break;
        case 2:
            *(int16_t *) slot = (int16_t) (7000 + owner);
            break;
        case 3:
            *(double *) slot = 0.5 + owner;
            break;
        case 4:
            *(int32_t *) slot = 42 + owner;
            break;
        case 5:
            ((dint_t *) slot)->v = 2.0, ((dint_t *) slot)->i = owner;
            break;
        case 6:
            *(long double *) slot = 1.25L + owner;
            break;
        case 7:
        case 8:
        case 12:
        case 13:
        case 14:
            for (int i = 0; i < NI64; ++i) {
                ((int64_t *) slot)[i] = 10 * i + owner;
            }
            break;
        default: /* PUT and GET: bytes of the owner's pattern */
            mtest_fill(slot, SLOT, 0x100u + (uint32_t) owner);
    }
}

/* int64 elements a SUM case adds (0: not such a case). */
static int case_i64s(int c)
{
    switch (c) {
        case 7:
            return 4;
        case 8:
            return 5;
        case 12:
        case 13:
            return 4096;
        case 14:
            return 4097;
        default:
            return 0;
    }
}

/* Bytes a PUT (or GET) case moves (0: not such a case). */
static size_t case_put(int c)
{
    return 9 == c ? 8 : 11 == c ? 40 : 16 == c ? 2048 : 18 == c ? 2056 : 0;
}

static size_t case_get(int c)
{
    return 10 == c ? 32 : 15 == c ? 512 : 17 == c ? 2048 : 19 == c ? 2056 : 0;
}

/* Cases the mailbox carries: 32 bytes or less in the slot, up to 2048 in
 * its area (a GET too, from osc_newrma_get_rdma_bytes on), a SUM up to
 * 32768; not a SUM of more, nor a PUT or GET of 2056 (cases 14, 18, 19). */
static bool case_lone(int c)
{
    return 14 != c && 18 != c && 19 != c;
}

/* Origin buffers: they must stay valid until the op completes. */
static int64_t i64[NI64];
static unsigned char bytes[SLOT];
static int8_t i8;
static double d;
static int32_t cas_new, cas_cmp;
static dint_t di;
static long double ld;

/* Issue case @c to @target (origin data from rank @me); @result gets old values. */
static int issue_case(int c, int target, int me, unsigned char *result)
{
    MPI_Win win = w.win;
    size_t at = (size_t) c * SLOT;

    for (int i = 0; i < NI64; ++i) {
        i64[i] = i + 1;
    }
    i8 = (int8_t) (me + 1);
    d = 1.5;
    cas_new = 100 + me;
    cas_cmp = 42 + target;
    di.v = 3.0;
    di.i = me;
    ld = 0.75L;
    switch (c) {
        case 0:
            return MPI_Accumulate(i64, 1, MPI_INT64_T, target, disp(target, at), 1, MPI_INT64_T,
                                  MPI_SUM, win);
        case 1:
            return MPI_Accumulate(&i8, 1, MPI_INT8_T, target, disp(target, at), 1, MPI_INT8_T,
                                  MPI_REPLACE, win);
        case 2:
            return MPI_Get_accumulate(NULL, 0, MPI_INT16_T, result, 1, MPI_INT16_T, target,
                                      disp(target, at), 1, MPI_INT16_T, MPI_NO_OP, win);
        case 3:
            return MPI_Fetch_and_op(&d, result, MPI_DOUBLE, target, disp(target, at), MPI_SUM, win);
        case 4:
            return MPI_Compare_and_swap(&cas_new, &cas_cmp, result, MPI_INT32_T, target,
                                        disp(target, at), win);
        case 5:
            return MPI_Get_accumulate(&di, 1, MPI_DOUBLE_INT, result, 1, MPI_DOUBLE_INT, target,
                                      disp(target, at), 1, MPI_DOUBLE_INT, MPI_MAXLOC, win);
        case 6:
            return MPI_Accumulate(&ld, 1, MPI_LONG_DOUBLE, target, disp(target, at), 1,
                                  MPI_LONG_DOUBLE, MPI_SUM, win);
        case 13:
            return MPI_Get_accumulate(i64, case_i64s(c), MPI_INT64_T, result, case_i64s(c),
                                      MPI_INT64_T, target, disp(target, at), case_i64s(c),
                                      MPI_INT64_T, MPI_SUM, win);
        case 7:
        case 8:
        case 12:
        case 14:
            return MPI_Accumulate(i64, case_i64s(c), MPI_INT64_T, target, disp(target, at),
                                  case_i64s(c), MPI_INT64_T, MPI_SUM, win);
        case 10:
        case 15:
        case 17:
        case 19:
            return MPI_Get(result, (int) case_get(c), MPI_BYTE, target, disp(target, at),
                           (int) case_get(c), MPI_BYTE, win);
        default:
            mtest_fill(bytes, SLOT, 0x200u + (uint32_t) me);
            return MPI_Put(bytes, (int) case_put(c), MPI_BYTE, target, disp(target, at),
                           (int) case_put(c), MPI_BYTE, win);
    }
}

/* The fetched old values of case @c (issued by @origin to @target). */
static void check_result(int c, const unsigned char *result, int target, const char *sync)
{
    switch (c) {
        case 2:
            MTEST_CHECK(*(const int16_t *) result == 7000 + target, "%s: NO_OP fetched %d", sync,
                        *(const int16_t *) result);
            break;
        case 3:
            MTEST_CHECK(*(const double *) result == 0.5 + target, "%s: FOP fetched %g", sync,
                        *(const double *) result);
            break;
        case 4:
            MTEST_CHECK(*(const int32_t *) result == 42 + target, "%s: CAS fetched %d", sync,
                        *(const int32_t *) result);
            break;
        case 5:
            MTEST_CHECK(((const dint_t *) result)->v == 2.0 &&
                            ((const dint_t *) result)->i == target,
                        "%s: MAXLOC fetched (%g, %d)", sync, ((const dint_t *) result)->v,
                        ((const dint_t *) result)->i);
            break;
        case 10:
        case 15:
        case 17:
        case 19: {
            unsigned char want[SLOT];

            mtest_fill(want, SLOT, 0x100u + (uint32_t) target);
            MTEST_CHECK(0 == memcmp(result, want, case_get(c)), "%s: GET of %zu bytes wrong", sync,
                        case_get(c));
            break;
        }
        case 13: {
            int bad = -1;

            for (int i = 0; i < case_i64s(c) && bad < 0; ++i) {
                bad = ((const int64_t *) result)[i] == 10 * i + target ? -1 : i;
            }
            MTEST_CHECK(bad < 0, "%s: GET_ACCUMULATE of %d fetched %lld at %d", sync, case_i64s(c),
                        bad < 0 ? 0LL : (long long) ((const int64_t *) result)[bad], bad);
            break;
        }
        default:
            break;
    }
}

/* My slot of case @c after my left neighbour's op. */
static void check_slot(int c, const unsigned char *slot, const char *sync)
{
    int me = mtest_rank;
    bool ok;

    switch (c) {
        case 0:
            ok = *(const int64_t *) slot == 1000 + me + 1;
            break;
        case 1:
            ok = *(const int8_t *) slot == (int8_t) (left + 1);
            break;
        case 2:
            ok = *(const int16_t *) slot == 7000 + me;
            break;
        case 3:
            ok = *(const double *) slot == 2.0 + me;
            break;
        case 4:
            ok = *(const int32_t *) slot == 100 + left;
            break;
        case 5:
            ok = ((const dint_t *) slot)->v == 3.0 && ((const dint_t *) slot)->i == left;
            break;
        case 6:
            ok = *(const long double *) slot == 2.0L + me;
            break;
        case 9:
        case 10:
        case 11:
        case 15:
        case 16:
        case 17:
        case 18:
        case 19: {
            unsigned char want[SLOT];
            size_t put = case_put(c);

            mtest_fill(want, SLOT, 0x100u + (uint32_t) me);
            if (put > 0) {
                unsigned char from[SLOT];

                mtest_fill(from, SLOT, 0x200u + (uint32_t) left);
                memcpy(want, from, put);
            }
            ok = 0 == memcmp(slot, want, SLOT);
            break;
        }
        default:
            ok = true;
            for (int i = 0; i < case_i64s(c); ++i) {
                ok &= ((const int64_t *) slot)[i] == 10 * i + me + i + 1;
            }
            /* the element after the last added is untouched */
            ok &= ((const int64_t *) slot)[case_i64s(c)] == 10 * case_i64s(c) + me;
    }
    MTEST_CHECK(ok, "%s: case %d left a wrong value in rank %d's window (first bytes %016llx)",
                sync, c, me, *(const unsigned long long *) slot);
}

static void slots_reset(void)
{
    unsigned char slot[SLOT];

    MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, mtest_rank, 0, w.win));
    for (int c = 0; c < NCASE; ++c) {
        init_slot(c, slot, mtest_rank);
        memcpy(w.base + c * SLOT, slot, SLOT);
    }
    memset(w.base + CONTEND, 0, 4 * SLOT);
    MPI_CHECK(MPI_Win_unlock(mtest_rank, w.win));
    MPI_Barrier(MPI_COMM_WORLD);
}

static void slots_check(const char *sync)
{
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, mtest_rank, 0, w.win));
    for (int c = 0; c < NCASE; ++c) {
        check_slot(c, (const unsigned char *) w.base + c * SLOT, sync);
    }
    MPI_CHECK(MPI_Win_unlock(mtest_rank, w.win));
}

/* Every case alone to my right neighbour in @sync epochs ("lockall",
 * "fence", "pscw"); @return how many should use the mailbox. */
static int run_cases(const char *sync)
{
    unsigned char result[SLOT];
    MPI_Group group, peers;
    int lone = 0;

    slots_reset();
    MPI_Win_get_group(w.win, &group);
    for (int c = 0; c < NCASE; ++c) {
        memset(result, 0xAB, sizeof(result));
        if (0 == strcmp(sync, "lockall")) {
            MPI_CHECK(MPI_Win_lock_all(0, w.win));
            MPI_CHECK(issue_case(c, right, mtest_rank, result));
            MPI_CHECK(MPI_Win_flush(right, w.win));
            MPI_CHECK(MPI_Win_unlock_all(w.win));
        } else if (0 == strcmp(sync, "fence")) {
            MPI_CHECK(MPI_Win_fence(0, w.win));
            MPI_CHECK(issue_case(c, right, mtest_rank, result));
            MPI_CHECK(MPI_Win_fence(0, w.win));
        } else {
            /* my left neighbour accesses me, I access my right one */
            MPI_Group_incl(group, 1, &left, &peers);
            MPI_CHECK(MPI_Win_post(peers, 0, w.win));
            MPI_Group_free(&peers);
            MPI_Group_incl(group, 1, &right, &peers);
            MPI_CHECK(MPI_Win_start(peers, 0, w.win));
            MPI_Group_free(&peers);
            MPI_CHECK(issue_case(c, right, mtest_rank, result));
            MPI_CHECK(MPI_Win_complete(w.win));
            MPI_CHECK(MPI_Win_wait(w.win));
        }
        check_result(c, result, right, sync);
        lone += case_lone(c);
    }
    MPI_Group_free(&group);
    slots_check(sync);
    return lone;
}

/* 2048 bytes of ones added to rank 0's (@p to_zero) or my right
 * neighbour's half of the fourth contended slot, then flushed: from several
 * origins at once to one target and to others, in slot areas. */
static void add_ones(bool to_zero)
{
    static int64_t ones[256];
    int target = to_zero ? 0 : right;

    for (int i = 0; i < 256; ++i) {
        ones[i] = 1;
    }
    MPI_CHECK(MPI_Accumulate(ones, 256, MPI_INT64_T, target,
                             disp(target, CONTEND + 3 * SLOT + (to_zero ? 0 : SLOT / 2)), 256,
                             MPI_INT64_T, MPI_SUM, w.win));
    MPI_CHECK(MPI_Win_flush(target, w.win));
}

/* Each of the 256 int64 at @p offset of my window is @p want. */
static void check_ones(size_t offset, int64_t want, const char *what)
{
    int64_t got[256];

    mtest_local_load(&w, offset, got, sizeof(got));
    for (int i = 0; i < 256; ++i) {
        MTEST_CHECK(got[i] == want, "%s: element %d is %lld, expected %lld", what, i,
                    (long long) got[i], (long long) want);
    }
}

/* Every rank at once on rank 0: FOP increments, CAS increments, and a
 * fetching request then a REPLACE to the same element; 2 KiB SUMs to rank
 * 0 and to the right neighbour. */
static void run_contended(void)
{
    int64_t one = 1, old, seen, want, next, last = -1;
    MPI_Request req;

    slots_reset();
    MPI_CHECK(MPI_Win_lock_all(0, w.win));
    for (int i = 0; i < ROUNDS; ++i) {
        add_ones(true);
        add_ones(false);
        MPI_CHECK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, disp(0, CONTEND), MPI_SUM, w.win));
        MPI_CHECK(MPI_Win_flush(0, w.win));
        MTEST_CHECK(old >= 0 && old < (int64_t) nprocs * ROUNDS, "FOP fetched %lld",
                    (long long) old);
        seen = 0;
        do { /* increment by CAS, retrying on another origin's change */
            want = seen;
            next = want + 1;
            MPI_CHECK(MPI_Compare_and_swap(&next, &want, &seen, MPI_INT64_T, 0,
                                           disp(0, CONTEND + SLOT), w.win));
            MPI_CHECK(MPI_Win_flush(0, w.win));
        } while (seen != want);
        /* ordered after the request's op, which is in a mailbox or a packet */
        next = 1000000 * (mtest_rank + 1) + i;
        MPI_CHECK(MPI_Rget_accumulate(&one, 1, MPI_INT64_T, &old, 1, MPI_INT64_T, 0,
                                      disp(0, CONTEND + 2 * SLOT + 8 * mtest_rank % SLOT), 1,
                                      MPI_INT64_T, MPI_SUM, w.win, &req));
        MPI_CHECK(MPI_Accumulate(&next, 1, MPI_INT64_T, 0,
                                 disp(0, CONTEND + 2 * SLOT + 8 * mtest_rank % SLOT), 1,
                                 MPI_INT64_T, MPI_REPLACE, w.win));
        MPI_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        MPI_CHECK(MPI_Win_flush(0, w.win));
        MTEST_CHECK(old == last + (i > 0 ? 0 : 1) || (0 == i && 0 == old),
                    "round %d: the fetching op saw %lld after the REPLACE of %lld", i,
                    (long long) old, (long long) last);
        last = next;
    }
    MPI_CHECK(MPI_Win_unlock_all(w.win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (0 == mtest_rank) {
        int64_t fops, cas, mine[8];

        mtest_local_load(&w, CONTEND, &fops, sizeof(fops));
        mtest_local_load(&w, CONTEND + SLOT, &cas, sizeof(cas));
        mtest_local_load(&w, CONTEND + 2 * SLOT, mine, sizeof(mine));
        MTEST_CHECK(fops == (int64_t) nprocs * ROUNDS, "FOP total %lld, expected %lld",
                    (long long) fops, (long long) nprocs * ROUNDS);
        MTEST_CHECK(cas == (int64_t) nprocs * ROUNDS, "CAS total %lld, expected %lld",
                    (long long) cas, (long long) nprocs * ROUNDS);
        for (int r = 0; r < nprocs && r < 8; ++r) {
            MTEST_CHECK(mine[r] == 1000000 * (r + 1) + ROUNDS - 1, "rank %d's REPLACE left %lld", r,
                        (long long) mine[r]);
        }
        check_ones(CONTEND + 3 * SLOT, (int64_t) nprocs * ROUNDS, "2 KiB SUMs of every rank");
    }
    check_ones(CONTEND + 3 * SLOT + SLOT / 2, ROUNDS, "2 KiB SUMs of my left neighbour");
}

/* Under one lock_all epoch, ROUNDS times to my right neighbour's element:
 * FETCH_AND_OP (SUM 1), then before any flush a REPLACE and two NO_OP
 * fetches of the same element, queued behind the first; then the flush.  From
 * the second round on the target element is idle with its lock held, so
 * the first op goes to the mailbox from the call (in mailbox mode), and so
 * does a FETCH_AND_OP alone after the flush, completed by flush_local.
 * @return how many ops went so. */
static unsigned long long run_behind(void)
{
    unsigned long long before = path_count(AT_CALL);
    int64_t one = 1, old, seen, got, put, expect;
    MPI_Aint at = disp(right, CONTEND + 3 * SLOT);

    slots_reset();
    expect = 0; /* slots_reset zeroes the contended slots */
    MPI_CHECK(MPI_Win_lock_all(0, w.win));
    for (int i = 0; i < ROUNDS; ++i) {
        put = 1000 * (mtest_rank + 1) + i;
        old = seen = got = -1;
        MPI_CHECK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, right, at, MPI_SUM, w.win));
        MPI_CHECK(
            MPI_Accumulate(&put, 1, MPI_INT64_T, right, at, 1, MPI_INT64_T, MPI_REPLACE, w.win));
        MPI_CHECK(MPI_Fetch_and_op(NULL, &seen, MPI_INT64_T, right, at, MPI_NO_OP, w.win));
        MPI_CHECK(MPI_Get_accumulate(NULL, 0, MPI_INT64_T, &got, 1, MPI_INT64_T, right, at, 1,
                                     MPI_INT64_T, MPI_NO_OP, w.win));
        MPI_CHECK(MPI_Win_flush(right, w.win));
        MTEST_CHECK(old == expect && seen == put && got == put,
                    "round %d: FOP fetched %lld (expected %lld), the NO_OPs behind the REPLACE "
                    "of %lld saw %lld and %lld",
                    i, (long long) old, (long long) expect, (long long) put, (long long) seen,
                    (long long) got);
        /* alone again: a fetch completes locally only with its answer */
        old = -1;
        MPI_CHECK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, right, at, MPI_SUM, w.win));
        MPI_CHECK(MPI_Win_flush_local(right, w.win));
        MTEST_CHECK(old == put, "round %d: FOP + flush_local fetched %lld, expected %lld", i,
                    (long long) old, (long long) put);
        expect = put + 1;
    }
    MPI_CHECK(MPI_Win_unlock_all(w.win));
    MPI_Barrier(MPI_COMM_WORLD);
    return path_count(AT_CALL) - before;
}

/* Rank 1 fails the first op its agent applies (@p fetch: a FETCH_AND_OP,
 * whose request fails; else an ACCUMULATE, complete locally at once, whose
 * failure the window keeps): rank 0's flush says so. */
static void run_fail(bool fetch)
{
    int64_t one = 1, old = -1;
    int rc = MPI_SUCCESS;

    slots_reset();
    MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN);
    if (0 == mtest_rank) {
        MPI_CHECK(MPI_Win_lock_all(0, w.win));
        if (fetch) {
            MPI_CHECK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 1, disp(1, 0), MPI_SUM, w.win));
        } else {
            MPI_CHECK(MPI_Accumulate(&one, 1, MPI_INT64_T, 1, disp(1, 0), 1, MPI_INT64_T, MPI_SUM,
                                     w.win));
            /* complete locally; posted by the call, its failure may be in
             * already, and a flush_local reports it as the next flush does */
            rc = MPI_Win_flush_local(1, w.win);
        }
        if (fetch || MPI_SUCCESS == rc) {
            rc = MPI_Win_flush(1, w.win);
        } else {
            MPI_CHECK(MPI_Win_flush(1, w.win)); /* reported once */
        }
        mtest_expect_class(rc, MPI_ERR_OTHER, MPI_ERR_OTHER, "flush of a failed mailbox op");
        MPI_CHECK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 1, disp(1, 0), MPI_SUM, w.win));
        MPI_CHECK(MPI_Win_flush(1, w.win));
        MTEST_CHECK(old == 1001, "after the failure: fetched %lld, expected 1001", (long long) old);
        MPI_CHECK(MPI_Win_unlock_all(w.win));
        MTEST_CHECK(path_count(MAILBOX) == 2, "%llu ops by the mailbox, expected 2",
                    path_count(MAILBOX));
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 2 ? argv[2] : "mailbox";
    const char *rank_env = getenv("OMPI_COMM_WORLD_RANK");
    const char *syncs[] = {"lockall", "fence", "pscw"};
    unsigned long long at_call;
    MPI_Info info;
    int provided;

    if (0 == strcmp(mode, "off")) {
        setenv("OMPI_MCA_osc_newrma_mailbox", "0", 1);
    }
    /* the sizes above as the mailbox's, whatever the probe finds the
     * cross-memory copy to cost (where it is cheap, PUTs and GETs from 1 KiB
     * take it: cma_putget small) */
    setenv("OMPI_MCA_osc_newrma_cma_bytes", "131072", 0);
    setenv("OMPI_MCA_osc_newrma_cma_small_bytes", "0", 0);
    setenv("OMPI_MCA_osc_newrma_acc_cma_bytes", "2048", 0);
    /* reductions of 8 KiB or more would be read from the origin by the
     * target (acc_by_ref), fetching ones from 1 KiB read, reduced and
     * written back by the origin (acc_fetch_copy): here they fill the
     * slot's area */
    setenv("OMPI_MCA_osc_newrma_acc_stream_bytes", "0", 0);
    setenv("OMPI_MCA_osc_newrma_acc_fetch_copy_bytes", "0", 0);
    if (0 == strncmp(mode, "fail", 4) && NULL != rank_env && 0 == strcmp(rank_env, "1")) {
        setenv("OMPI_MCA_osc_newrma_test_fail_packet", "1", 1);
    }
    mtest_init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_T_pvar_session_create(&session);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    right = (mtest_rank + 1) % nprocs;
    left = (mtest_rank + nprocs - 1) % nprocs;
    MPI_CHECK(MPI_Info_create(&info));
    if (0 == strcmp(mode, "offinfo")) {
        MPI_CHECK(MPI_Info_set(info, "mailbox", "false"));
    }
    mtest_win_create(&w, argc > 1 ? argv[1] : "create", WIN_BYTES, info, MPI_COMM_WORLD);
    MPI_CHECK(MPI_Info_free(&info));
    mtest_pvars_bind(session, path_names, NPATH, &w.win, path_h);
    if (0 == strncmp(mode, "fail", 4)) {
        run_fail(0 == strcmp(mode, "failfetch"));
    } else {
        for (int s = 0; s < 3; ++s) {
            unsigned long long before = path_count(MAILBOX), by_mailbox;
            int lone = run_cases(syncs[s]);

            by_mailbox = path_count(MAILBOX) - before;
            MTEST_CHECK(by_mailbox ==
                            (0 == strcmp(mode, "mailbox") ? (unsigned long long) lone : 0),
                        "%s: %llu ops by the mailbox, expected %d", syncs[s], by_mailbox,
                        0 == strcmp(mode, "mailbox") ? lone : 0);
        }
        run_contended();
        MTEST_CHECK(0 != strcmp(mode, "mailbox") || path_count(MAILBOX) > 0,
                    "no op went by the mailbox");
        at_call = run_behind();
        MTEST_CHECK(0 == strcmp(mode, "mailbox") ? at_call >= 2 * ROUNDS - 1 : 0 == at_call,
                    "%llu of %d rounds posted their first op at the call", at_call, ROUNDS);
    }
    for (int p = 0; p < NPATH; ++p) {
        MPI_T_pvar_handle_free(session, &path_h[p]);
    }
    MPI_T_pvar_session_free(&session);
    mtest_win_free(&w);
    MPI_T_finalize();
    return mtest_finalize();
}
