/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Lock epochs to several targets at once (issue 13's parallel lock
 * requests): in each round every rank locks a random set of targets, all
 * ranks in ascending rank order (the order in which blocking locks cannot
 * deadlock), reads each target's counter pair, and writes it back
 * incremented; then unlocks them, forwards or backwards.  Exclusive rounds
 * increment, shared rounds only read.  Half the rounds read with one
 * MPI_Win_flush_all (every lock wanted at once), half with a flush per
 * target (locks wanted one after another).  A lock used before it is held,
 * or held by two writers, loses increments or shows a torn pair; a lock
 * request that waits while its origin holds a later lock may deadlock (the
 * test's time limit).
 *
 * usage: lock_multi FLAVOR [ROUNDS [serial]]
 *   serial: info key lock_parallel=false, one lock request at a time
 */
#include "mtest.h"

static unsigned next_rand(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return *state >> 16;
}

/* The targets of one round: a random non-empty subset, ascending. */
static int pick_targets(unsigned *state, int nprocs, int *targets)
{
    int n = 0;

    while (0 == n) {
        for (int t = 0; t < nprocs; ++t) {
            if (next_rand(state) % 3 != 0) {
                targets[n++] = t;
            }
        }
    }
    return n;
}

static void round_rmw(mtest_win_t *w, const int *targets, int n, int lock_type, int flush_all,
                      long (*pairs)[2], long *mine)
{
    for (int i = 0; i < n; ++i) {
        MPI_CHECK(MPI_Win_lock(lock_type, targets[i], 0, w->win));
    }
    for (int i = 0; i < n; ++i) {
        int t = targets[i];

        MPI_CHECK(MPI_Get(pairs[t], 2, MPI_LONG, t, w->disp0[t], 2, MPI_LONG, w->win));
        if (!flush_all) {
            MPI_CHECK(MPI_Win_flush(t, w->win));
        }
    }
    if (flush_all) {
        MPI_CHECK(MPI_Win_flush_all(w->win));
    }
    for (int i = 0; i < n; ++i) {
        int t = targets[i];

        MTEST_CHECK(pairs[t][0] == pairs[t][1], "torn pair %ld/%ld at rank %d", pairs[t][0],
                    pairs[t][1], t);
        if (MPI_LOCK_EXCLUSIVE == lock_type) {
            pairs[t][0]++;
            pairs[t][1]++;
            mine[t]++;
            MPI_CHECK(MPI_Put(pairs[t], 2, MPI_LONG, t, w->disp0[t], 2, MPI_LONG, w->win));
        }
    }
}

int main(int argc, char **argv)
{
    int rounds = argc > 2 ? atoi(argv[2]) : 100;
    int me, nprocs, n, *targets;
    long(*pairs)[2], *mine, *total, got[2];
    unsigned state;
    mtest_win_t w;
    MPI_Info info;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    state = 7919u * (unsigned) (me + 1);
    targets = malloc(sizeof(int) * (size_t) nprocs);
    pairs = malloc(sizeof(*pairs) * (size_t) nprocs);
    mine = calloc((size_t) nprocs, sizeof(long));
    total = calloc((size_t) nprocs, sizeof(long));
    MPI_Info_create(&info);
    if (argc > 3 && 0 == strcmp(argv[3], "serial")) {
        MPI_Info_set(info, "lock_parallel", "false");
    }
    mtest_win_create(&w, argc > 1 ? argv[1] : "allocate", 2 * sizeof(long), info, MPI_COMM_WORLD);
    MPI_Info_free(&info);
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w.win));
    memset(w.base, 0, 2 * sizeof(long));
    MPI_CHECK(MPI_Win_unlock(me, w.win));
    MPI_Barrier(MPI_COMM_WORLD);

    for (int r = 0; r < rounds; ++r) {
        int lock_type = 0 == next_rand(&state) % 4 ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE;

        n = pick_targets(&state, nprocs, targets);
        round_rmw(&w, targets, n, lock_type, r % 2, pairs, mine);
        for (int i = 0; i < n; ++i) {
            int t = targets[r % 3 ? i : n - 1 - i];

            MPI_CHECK(MPI_Win_unlock(t, w.win));
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(mine, total, nprocs, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w.win));
    memcpy(got, w.base, sizeof(got));
    MPI_CHECK(MPI_Win_unlock(me, w.win));
    MTEST_CHECK(got[0] == total[me] && got[1] == total[me], "counter %ld/%ld, expected %ld", got[0],
                got[1], total[me]);
    mtest_win_free(&w);
    free(targets);
    free(pairs);
    free(mine);
    free(total);
    return mtest_finalize();
}
