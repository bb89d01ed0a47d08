/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * PSCW on a window all on one node: the PUTs and GETs still queued when
 * MPI_Win_complete comes go by RDMA (a cross-memory copy) when the
 * target's COMPLETE can be the segment's flag (no packet sent to it this
 * epoch), as packets riding with a COMPLETE packet otherwise.
 *
 * usage: pscw_rdma FLAVOR rdma|any [ROUNDS]
 *   rdma: some operations must have gone by RDMA (the window's MPI_T
 *   counter ops_rdma, summed over the ranks); any: no check of the way.
 * Ranks pair up (0 and 1, 2 and 3; an odd one out idles) and play an
 * OSU-style ping-pong of access epochs, one side exposing while the other
 * accesses, then the other way round, with no other synchronization: an
 * origin's accesses mostly find its epoch not yet granted and wait in its
 * queue until MPI_Win_complete issues them.  The target fills blocks B
 * and C of its window before it posts.  Rounds cycle through three
 * epochs: a lone GET of BLOCK bytes of block B; a lone PUT of BLOCK bytes
 * into block A; a few 8-byte PUTs into block C (packets: then the
 * COMPLETE goes as a packet too) and a GET of all of block C after them,
 * which must see them (its own origin's earlier PUTs).  After
 * MPI_Win_wait the target checks block A; after MPI_Win_complete the
 * origin checks what it read.
 */
#include <stdbool.h>

#include "mtest.h"

#define BLOCK 32768
#define SMALL 4

/* The window's blocks: B (the target's own bytes), A (the origin's PUT),
 * C (its small PUTs). */
enum { BLOCK_B, BLOCK_A, BLOCK_C, NBLOCK };

static const char *const rdma_name[] = {"osc_newrma_win_ops_rdma"};
static int me, nprocs;

/* Byte @p i of what rank @p r stores in round @p round. */
static unsigned char fill(int r, int round, size_t i)
{
    return (unsigned char) (r * 31 + round * 7 + i * 13 + (i >> 9));
}

/* Byte @p i of block C after the origin's small PUTs of @p round. */
static unsigned char small_value(int round, size_t i)
{
    return (unsigned char) (0xA0 + i / 4096 + round);
}

static MPI_Group group_of(MPI_Win win, int rank)
{
    MPI_Group all, one;

    MPI_CHECK(MPI_Win_get_group(win, &all));
    MPI_CHECK(MPI_Group_incl(all, 1, &rank, &one));
    MPI_CHECK(MPI_Group_free(&all));
    return one;
}

/* The target's half: fill B and C, expose, check what the origin PUT. */
static void serve(mtest_win_t *w, MPI_Group g, int origin, int round, unsigned char *block)
{
    for (size_t i = 0; i < BLOCK; ++i) {
        block[i] = fill(me, round, i);
    }
    mtest_local_store(w, (size_t) BLOCK_B * BLOCK, block, BLOCK);
    mtest_local_store(w, (size_t) BLOCK_C * BLOCK, block, BLOCK);
    MPI_CHECK(MPI_Win_post(g, 0, w->win));
    MPI_CHECK(MPI_Win_wait(w->win));
    mtest_local_load(w, (size_t) BLOCK_A * BLOCK, block, BLOCK);
    for (size_t i = 0; 1 == round % 3 && i < BLOCK; ++i) {
        MTEST_CHECK(block[i] == fill(origin, round + 1000, i),
                    "round %d: byte %zu of block A is %u, rank %d PUT %u", round, i, block[i],
                    origin, fill(origin, round + 1000, i));
    }
}

/* The origin's half: one access epoch, checked after it.  @p put and
 * @p got were made ready before: the epoch starts at once, as the
 * target's post is on its way (its fill comes first). */
static void access(mtest_win_t *w, MPI_Group g, int target, int round, unsigned char *put,
                   unsigned char *got)
{
    MPI_Aint base = w->disp0[target];
    int kind = round % 3; /* a lone GET, a lone PUT, small PUTs and a GET */
    unsigned char small[SMALL][8];

    MPI_CHECK(MPI_Win_start(g, 0, w->win));
    for (int k = 0; 2 == kind && k < SMALL; ++k) {
        memset(small[k], small_value(round, (size_t) k * 4096), 8);
        MPI_CHECK(MPI_Put(small[k], 8, MPI_BYTE, target,
                          base + (MPI_Aint) (BLOCK_C * BLOCK + k * 4096), 8, MPI_BYTE, w->win));
    }
    if (1 == kind) {
        MPI_CHECK(MPI_Put(put, BLOCK, MPI_BYTE, target, base + (MPI_Aint) (BLOCK_A * BLOCK), BLOCK,
                          MPI_BYTE, w->win));
    } else {
        MPI_CHECK(MPI_Get(got, BLOCK, MPI_BYTE, target,
                          base + (MPI_Aint) ((kind ? BLOCK_C : BLOCK_B) * BLOCK), BLOCK, MPI_BYTE,
                          w->win));
    }
    MPI_CHECK(MPI_Win_complete(w->win));
    for (size_t i = 0; 1 != kind && i < BLOCK; ++i) {
        unsigned char want = fill(target, round, i);

        if (2 == kind && i % 4096 < 8 && i / 4096 < SMALL) {
            want = small_value(round, i);
        }
        MTEST_CHECK(got[i] == want, "round %d: GET byte %zu is %u, want %u", round, i, got[i],
                    want);
    }
}

int main(int argc, char **argv)
{
    int rounds, provided, partner;
    unsigned char *put, *got, *block;
    unsigned long long rdma = 0;
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle;
    mtest_win_t w;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 3 || (0 != strcmp(argv[2], "rdma") && 0 != strcmp(argv[2], "any"))) {
        fprintf(stderr, "usage: pscw_rdma FLAVOR rdma|any [ROUNDS]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    rounds = argc > 3 ? atoi(argv[3]) : 20;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_T_pvar_session_create(&session);
    put = malloc(BLOCK);
    got = malloc(BLOCK);
    block = malloc(BLOCK);
    mtest_win_create(&w, argv[1], (size_t) NBLOCK * BLOCK, MPI_INFO_NULL, MPI_COMM_WORLD);
    mtest_pvars_bind(session, rdma_name, 1, &w.win, &handle);
    partner = me ^ 1;
    if (partner < nprocs) {
        MPI_Group g = group_of(w.win, partner);

        for (int round = 0; round < rounds; ++round) {
            for (size_t i = 0; i < BLOCK; ++i) {
                put[i] = fill(me, round + 1000, i);
                got[i] = 0;
            }
            for (int side = 0; side < 2; ++side) {
                if ((me & 1) == side) {
                    access(&w, g, partner, round, put, got);
                } else {
                    serve(&w, g, partner, round, block);
                }
            }
        }
        MPI_Group_free(&g);
    }
    MPI_CHECK(MPI_T_pvar_read(session, handle, &rdma));
    MPI_CHECK(
        MPI_Allreduce(MPI_IN_PLACE, &rdma, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    if (0 == strcmp(argv[2], "rdma") && nprocs > 1) {
        MTEST_CHECK(rdma > 0, "no operation went by RDMA");
    }
    MPI_T_pvar_handle_free(session, &handle);
    MPI_T_pvar_session_free(&session);
    free(put);
    free(got);
    free(block);
    mtest_win_free(&w);
    MPI_T_finalize();
    return mtest_finalize();
}
