/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/* Small lone operations posted to a node-local target's mailbox, ended by
 * MPI_Win_fence or MPI_Win_complete / MPI_Win_wait.  An origin may reach the
 * fence's barrier (or raise its COMPLETE flag) before the target answered its
 * slot; the target must still have applied every slot posted to it when its
 * own fence or MPI_Win_wait returns, and before any rank's next epoch reaches
 * it.  Usage: mbox_epoch_end FLAVOR SYNC [mailbox|any]; SYNC fence, pscw,
 * or pscwtest (MPI_Win_test until the exposure epoch ends).
 *
 * Each round every rank does one 8-byte operation to its right neighbour,
 * into a cell of its own there (two cells per origin, by the round's parity):
 * a PUT, an MPI_Accumulate SUM or an MPI_Fetch_and_op SUM, in turn; and, at
 * three ranks or more, an 8-byte MPI_Get of the cell its right neighbour
 * wrote in the round before, from the rank after that (a third party, whose
 * reads of the round before's data the fence or PSCW epoch must order).
 * Under fence, two ranks in turn also PUT k + 1 into one cell of rank 0 in
 * two rounds out of three (k % 3 of 0 and 1: rank k / 3, then the rank
 * before it, so that on simulated nodes a remote write comes before a
 * node-local one), and
 * rank 0 loads it after the second, when no one writes it: the second's
 * value.  After the epoch's end each rank loads the cell its left neighbour
 * wrote from its own memory at once, and checks the fetched old value and
 * the GET.
 *
 * Over UCX (no segment, "any") the same catches a peer whose fence is done
 * starting the next epoch while another's still waits: its packets must not
 * be applied before the ending epoch's packets of other origins, nor before
 * their GETs read.
 * "mailbox": the window's mailbox_at_call counter must have counted the
 * operations (the shm path). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define ROUNDS 3000

static int nprocs, me, right, left, third;
static mtest_win_t w;
static int pscw, test;
static MPI_Group world_group, access_group, exposure_group;

/* the cell of origin @p x for rounds of parity @p p, at x's right */
static size_t cell(int p, int x)
{
    return ((size_t) p * (size_t) nprocs + (size_t) x) * sizeof(int64_t);
}

/* rank 0's cell that the ranks write in turn (fence) */
static size_t shared_cell(void)
{
    return cell(2, 0);
}

static int64_t local_cell(int p, int x)
{
    int64_t v;

    memcpy(&v, w.base + cell(p, x), sizeof(v));
    return v;
}

/* the group of the ranks at @p a and @p b from me (one if they meet, none
 * of them me) */
static MPI_Group neighbours(int a, int b)
{
    int ranks[2], n = 0;
    MPI_Group g;

    if (a != me) {
        ranks[n++] = a;
    }
    if (b != me && b != a) {
        ranks[n++] = b;
    }
    MPI_CHECK(MPI_Group_incl(world_group, n, ranks, &g));
    return g;
}

static void epoch_begin(void)
{
    if (pscw) {
        MPI_CHECK(MPI_Win_post(exposure_group, 0, w.win));
        MPI_CHECK(MPI_Win_start(access_group, 0, w.win));
    }
}

static void epoch_end(void)
{
    if (pscw) {
        int flag = 0;

        MPI_CHECK(MPI_Win_complete(w.win));
        if (test) {
            while (!flag) {
                MPI_CHECK(MPI_Win_test(w.win, &flag));
            }
        } else {
            MPI_CHECK(MPI_Win_wait(w.win));
        }
    } else {
        MPI_CHECK(MPI_Win_fence(0, w.win));
    }
}

/* What round @p k does: 0 PUT, 1 ACC SUM, 2 FETCH_AND_OP SUM; both parities
 * see each kind. */
static int round_kind(int k)
{
    return (k / 2) % 3;
}

/* expected[p][x]: the cell of origin x of parity p, after the rounds so far */
static void expect_round(int k, int64_t (*expected)[64])
{
    int p = k & 1;

    for (int x = 0; x < nprocs; ++x) {
        switch (round_kind(k)) {
            case 0:
                expected[p][x] = 1000 * (int64_t) k + x + 1;
                break;
            case 1:
                expected[p][x] += x + 1;
                break;
            default:
                expected[p][x] += 1;
                break;
        }
    }
}

static void run_rounds(void)
{
    static int64_t expected[2][64];
    int64_t value, turn, one = 1, old = 0, got = 0, before;

    for (int k = 0; k < ROUNDS; ++k) {
        int p = k & 1;

        before = expected[p][me];
        epoch_begin();
        switch (round_kind(k)) {
            case 0:
                value = 1000 * (int64_t) k + me + 1;
                MPI_CHECK(MPI_Put(&value, 1, MPI_INT64_T, right, w.disp0[right] + cell(p, me), 1,
                                  MPI_INT64_T, w.win));
                break;
            case 1:
                value = me + 1;
                MPI_CHECK(MPI_Accumulate(&value, 1, MPI_INT64_T, right,
                                         w.disp0[right] + cell(p, me), 1, MPI_INT64_T, MPI_SUM,
                                         w.win));
                break;
            default:
                MPI_CHECK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, right,
                                           w.disp0[right] + cell(p, me), MPI_SUM, w.win));
                break;
        }
        if (!pscw && k % 3 < 2 && (k / 3 + (nprocs - 1) * (k % 3)) % nprocs == me) {
            turn = k + 1; /* (value is the other op's origin buffer) */
            MPI_CHECK(MPI_Put(&turn, 1, MPI_INT64_T, 0, w.disp0[0] + shared_cell(), 1, MPI_INT64_T,
                              w.win));
        }
        if (third != me && k > 0) {
            /* right's cell of the round before, at the rank after it */
            MPI_CHECK(MPI_Get(&got, 1, MPI_INT64_T, third, w.disp0[third] + cell(1 - p, right), 1,
                              MPI_INT64_T, w.win));
        }
        epoch_end();
        if (third != me && k > 0) {
            MTEST_CHECK(got == expected[1 - p][right],
                        "round %d: got %lld at rank %d, expected %lld", k, (long long) got, third,
                        (long long) expected[1 - p][right]);
        }
        expect_round(k, expected);
        MTEST_CHECK(local_cell(p, left) == expected[p][left],
                    "round %d: my cell of rank %d holds %lld right after the epoch, expected %lld",
                    k, left, (long long) local_cell(p, left), (long long) expected[p][left]);
        if (!pscw && 0 == me && 1 == k % 3) {
            memcpy(&turn, w.base + shared_cell(), sizeof(turn));
            MTEST_CHECK(turn == k + 1, "round %d: the shared cell holds %lld, expected %d", k,
                        (long long) turn, k + 1);
        }
        if (2 == round_kind(k)) {
            MTEST_CHECK(old == before, "round %d: fetched %lld, expected %lld", k, (long long) old,
                        (long long) before);
        }
    }
}

int main(int argc, char **argv)
{
    const char *flavor = argc > 1 ? argv[1] : "create";
    const char *sync = argc > 2 ? argv[2] : "fence";
    int want = argc > 3 && 0 == strcmp(argv[3], "mailbox");
    const char *name = "osc_newrma_win_mailbox_at_call";
    MPI_T_pvar_session session;
    MPI_T_pvar_handle at_call;
    unsigned long long mine, total;
    int provided;

    mtest_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (nprocs > 64) {
        mtest_error("at most 64 ranks");
        return mtest_finalize();
    }
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_CHECK(MPI_T_pvar_session_create(&session));
    test = 0 == strcmp(sync, "pscwtest");
    pscw = test || 0 == strcmp(sync, "pscw");
    me = mtest_rank;
    right = (me + 1) % nprocs;
    left = (me + nprocs - 1) % nprocs;
    third = (me + 2) % nprocs;
    mtest_win_create(&w, flavor, (2 * (size_t) nprocs + 1) * sizeof(int64_t), MPI_INFO_NULL,
                     MPI_COMM_WORLD);
    mtest_pvars_bind(session, &name, 1, &w.win, &at_call);
    mtest_win_zero(&w, w.size);
    MPI_CHECK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
    access_group = neighbours(right, third);
    exposure_group = neighbours(left, (me + nprocs - 2) % nprocs);
    if (!pscw) {
        MPI_CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, w.win));
    }
    run_rounds();
    if (!pscw) {
        MPI_CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
    }
    mine = mtest_pvar_read(session, at_call);
    MPI_Allreduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MTEST_CHECK(!want || total >= (unsigned long long) nprocs * ROUNDS / 2,
                "%llu operations posted to a mailbox by the call, expected at least %d", total,
                nprocs * ROUNDS / 2);
    MPI_Group_free(&access_group);
    MPI_Group_free(&exposure_group);
    MPI_Group_free(&world_group);
    MPI_T_pvar_handle_free(session, &at_call);
    MPI_T_pvar_session_free(&session);
    mtest_win_free(&w);
    MPI_T_finalize();
    return mtest_finalize();
}
