/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: the lock word, a FIFO-fair ticket reader-writer lock.
 *
 * A requester draws a ticket, and tickets are served in order, so a waiting
 * exclusive request is never overtaken by later shared ones.  The word knows
 * nothing of windows or messages: in the shared segment node-local origins
 * take a peer's word with CPU atomics; the target's agent takes its own for
 * origins that send LOCK packets (osc_newrma_target_lock.h).
 */
#ifndef OMPI_OSC_NEWRMA_BASE_LOCKWORD_H
#define OMPI_OSC_NEWRMA_BASE_LOCKWORD_H

#include "ompi_config.h"

#include <stdbool.h>
#include <stdint.h>

/** One process's lock word and accumulate lock, a cache line each in the
 * shared segment: the target's agent takes the accumulate lock for every
 * accumulate it applies, and while both shared one line, an origin's lock
 * and unlock around such an accumulate fetched it back from the agent's
 * core twice an epoch (8-byte SUM + lock/unlock on a create window 0.35
 * us so, 0.29-0.31 now; + flush 0.24). */
typedef struct {
    /** next ticket to hand out */
    volatile int32_t users;
    /** shared requests up to this ticket may enter */
    volatile int32_t read;
    /** tickets before this one have released the lock */
    volatile int32_t write;
    /** tickets drawn by the owner's agent for remote origins, not yet served;
     * an origin releasing directly then wakes the agent with a packet */
    volatile int32_t agent_waiting;
    char pad[48];
    /** the accumulate lock: taken, by anyone applying accumulates to this
     * process's memory, only for elements CPU atomics cannot update */
    volatile int32_t acc_lock;
    char acc_pad[60];
} ompi_osc_newrma_lockword_t;

_Static_assert(sizeof(ompi_osc_newrma_lockword_t) == 128, "a lock word is two cache lines");

/** Draw a ticket. */
int32_t ompi_osc_newrma_lockword_ticket(ompi_osc_newrma_lockword_t *word);

/** True when @p ticket of a @p lock_type request is served (the lock is
 * then held; call once per ticket until it returns true). */
bool ompi_osc_newrma_lockword_try_enter(ompi_osc_newrma_lockword_t *word, int lock_type,
                                        int32_t ticket);

/** Take the lock now if no ticket is waiting and it is free for
 * @p lock_type; never waits and never leaves a ticket behind. */
bool ompi_osc_newrma_lockword_try_lock(ompi_osc_newrma_lockword_t *word, int lock_type);

/** Release a held lock of @p lock_type. */
void ompi_osc_newrma_lockword_release(ompi_osc_newrma_lockword_t *word, int lock_type);

/** True when nobody holds or waits for the lock (window free). */
bool ompi_osc_newrma_lockword_idle(ompi_osc_newrma_lockword_t *word);

#endif /* OMPI_OSC_NEWRMA_BASE_LOCKWORD_H */
