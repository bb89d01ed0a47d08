/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: a choice between two ways of doing the same transfer by the
 * time each took lately.
 *
 * Which of two ways moves a large block faster can change with the machine
 * and its state, not only with the size: on the development VM a 2 MiB
 * cross-memory copy took 84 us one day and 220 the next, while UCX's
 * pipelined transfer through shared memory took 220 and then 125.  So each
 * way is measured as it is used, in turns: each is tried for
 * OMPI_OSC_NEWRMA_PICK_TRIAL transfers, then the faster one (in ns per KiB,
 * a running average) is taken for OMPI_OSC_NEWRMA_PICK_STAY (the first
 * time for OMPI_OSC_NEWRMA_PICK_FIRST_STAY), then the other tried again,
 * so that a change is noticed; each time it loses again
 * the stay doubles, up to OMPI_OSC_NEWRMA_PICK_STAY_MAX (a way that waits
 * for a busy peer's progress is tried rarely).  The first transfer after
 * a change of way is not counted: it pays for the other's set-up or cold
 * buffers (UCX's took 2-8 times as long as the next ones here).  Made and
 * read by its owner under its lock; a new window starts from what the
 * last freed one learned (ompi_osc_newrma_pick_seed).
 */
#ifndef OMPI_OSC_NEWRMA_BASE_PICK_H
#define OMPI_OSC_NEWRMA_BASE_PICK_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/** transfers a way is tried for (the first not counted) */
#define OMPI_OSC_NEWRMA_PICK_TRIAL 3
/** transfers the faster way is taken for before the other is tried again */
#define OMPI_OSC_NEWRMA_PICK_STAY 32
/** the first such stay: the first trials meet cold pages and buffers (a
 * window's first 2 MiB cross-memory copies took 320-420 us, the later ones
 * 160, so the slower mailbox won the first trials and kept a benchmark's
 * MPI_REPLACE rows of 2 MiB for 32 of their 52 operations: 204-212 us
 * each, against 171-183 by the copy alone) */
#define OMPI_OSC_NEWRMA_PICK_FIRST_STAY 4
#define OMPI_OSC_NEWRMA_PICK_STAY_MAX   1024

typedef struct {
    /** the way the picks take, and how many more before the next turn */
    int way;
    uint32_t left;
    /** the length of the current stay (0: none yet) */
    uint32_t stay;
    /** 0: way 0 not tried yet; 1: way 1 not yet; 2: a trial; 3: a stay */
    int turn;
    /** the way of the last transfer measured (-1: none yet) */
    int measured;
    /** per way: ns per KiB lately: a faster sample weighs three quarters,
     * a slower one a quarter */
    uint64_t ns_per_kib[2];
} ompi_osc_newrma_pick_t;

/** Before the first pick. */
static inline void ompi_osc_newrma_pick_init(ompi_osc_newrma_pick_t *p)
{
    p->way = 0;
    p->left = 0;
    p->stay = 0;
    p->turn = 0;
    p->measured = -1;
    p->ns_per_kib[0] = p->ns_per_kib[1] = 0;
}

/** Monotonic nanoseconds, what the samples are measured in. */
static inline uint64_t ompi_osc_newrma_pick_now_ns(void)
{
    struct timespec ts;

    (void) clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

/** The way (0 or 1) the next transfer takes. */
/** The way that moved a KiB faster lately (0 on a tie). */
static inline int ompi_osc_newrma_pick_faster(const ompi_osc_newrma_pick_t *p)
{
    return p->ns_per_kib[1] < p->ns_per_kib[0] ? 1 : 0;
}

static inline int ompi_osc_newrma_pick(ompi_osc_newrma_pick_t *p)
{
    int faster = ompi_osc_newrma_pick_faster(p);

    if (0 == p->left) {
        switch (p->turn) {
            case 0:
            case 1: /* the first trials */
                p->way = p->turn++;
                p->left = OMPI_OSC_NEWRMA_PICK_TRIAL;
                break;
            case 2: /* a trial ended: the faster way, briefly after the first
                     * trials, for longer when the way tried lost again */
                if (0 == p->stay) {
                    p->stay = OMPI_OSC_NEWRMA_PICK_FIRST_STAY;
                } else if (faster != p->way && p->stay >= OMPI_OSC_NEWRMA_PICK_STAY) {
                    p->stay = p->stay < OMPI_OSC_NEWRMA_PICK_STAY_MAX / 2
                                  ? 2 * p->stay
                                  : OMPI_OSC_NEWRMA_PICK_STAY_MAX;
                } else {
                    p->stay = OMPI_OSC_NEWRMA_PICK_STAY;
                }
                p->way = faster;
                p->left = p->stay;
                p->turn = 3;
                break;
            default: /* a stay ended: the other way again */
                p->way = 1 - faster;
                p->left = OMPI_OSC_NEWRMA_PICK_TRIAL;
                p->turn = 2;
        }
    }
    p->left--;
    return p->way;
}

/** A new window's pick (@p p) from what an earlier window of the process
 * learned (@p learned): the machine's speeds are not the window's, and a
 * window that starts over spends its first transfers trying both ways
 * (a benchmark's 2 MiB PUT + fence row, 52 PUTs on one window, took 1.2-1.4
 * times osc/rdma's time so, its trials of the slower way a quarter of
 * them).  The faster way is taken for a usual stay, not the longer one the
 * earlier window may have reached, since the new window's memory and peers
 * may differ, then the other tried as usual; the first transfer of the
 * way is not counted (new memory).  Without both ways measured, a fresh
 * start. */
static inline void ompi_osc_newrma_pick_seed(ompi_osc_newrma_pick_t *p,
                                             const ompi_osc_newrma_pick_t *learned)
{
    ompi_osc_newrma_pick_init(p);
    if (0 == learned->ns_per_kib[0] || 0 == learned->ns_per_kib[1]) {
        return;
    }
    p->ns_per_kib[0] = learned->ns_per_kib[0];
    p->ns_per_kib[1] = learned->ns_per_kib[1];
    p->way = ompi_osc_newrma_pick_faster(p);
    p->stay = OMPI_OSC_NEWRMA_PICK_STAY;
    p->left = p->stay;
    p->turn = 3;
}

/** @p p for a later window's ompi_osc_newrma_pick_seed, into @p learned,
 * where it measured both ways. */
static inline void ompi_osc_newrma_pick_learn(ompi_osc_newrma_pick_t *learned,
                                              const ompi_osc_newrma_pick_t *p)
{
    if (0 != p->ns_per_kib[0] && 0 != p->ns_per_kib[1]) {
        *learned = *p;
    }
}

/** Way @p way moved @p bytes in @p ns nanoseconds. */
static inline void ompi_osc_newrma_pick_record(ompi_osc_newrma_pick_t *p, int way, size_t bytes,
                                               uint64_t ns)
{
    uint64_t sample = ns * 1024 / (bytes > 0 ? bytes : 1);
    uint64_t was = p->ns_per_kib[way];

    if (way != p->measured) { /* the first after a change of way */
        p->measured = way;
        return;
    }
    p->ns_per_kib[way] = 0 == was       ? sample
                         : sample < was ? (was + 3 * sample) / 4
                                        : (3 * was + sample) / 4;
}

#endif /* OMPI_OSC_NEWRMA_BASE_PICK_H */
