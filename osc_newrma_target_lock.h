/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: the target side of passive target synchronization.
 *
 * Every window process owns one lock word.  It is a FIFO-fair ticket
 * reader-writer lock: a requester draws a ticket, and tickets are served in
 * order, so a waiting exclusive request is never overtaken by later shared
 * ones.  On a node with a shared segment the lock word lives in the segment
 * and node-local origins take it with CPU atomics, without any message.
 * Otherwise it lives in the module, and only its owner takes it directly.
 *
 * Origins that cannot reach the word send LOCK requests.  The owner's agent
 * (the progress engine or the async progress thread) draws a ticket for them
 * and keeps a waiter in the window's lock queue until the ticket is served;
 * then it answers LOCK_GRANTED.  A single-operation epoch (LOCK + op +
 * UNLOCK in one packet) that cannot be granted at once keeps its data in the
 * waiter while the window's buffered bytes stay within lock_data_bytes;
 * otherwise the data is discarded, and the grant tells the origin to send it
 * again.  The queue holds at most one waiter per origin.
 */
#ifndef OMPI_OSC_NEWRMA_TARGET_LOCK_H
#define OMPI_OSC_NEWRMA_TARGET_LOCK_H

#include "ompi_config.h"

#include <stdint.h>

#include "opal/class/opal_list.h"

#include "osc_newrma_base_lockword.h"
#include "osc_newrma_base_types.h"

struct ompi_osc_newrma_pkt_t;

/**
 * Origin side, direct: take @p rank's lock word (self or a node-local peer
 * through the segment), making progress while waiting.  Window lock held.
 */
int ompi_osc_newrma_lock_direct_acquire(ompi_osc_newrma_module_t *module, int rank, int lock_type);

/**
 * Origin side, direct: wait, making progress, until @p ticket of @p word
 * (drawn for a @p lock_type request that did not enter at once) enters.
 * Window lock held.
 */
int ompi_osc_newrma_lock_direct_wait(ompi_osc_newrma_module_t *module,
                                     ompi_osc_newrma_lockword_t *word, int lock_type,
                                     int32_t ticket);

/** Origin side, direct: release @p rank's lock word and wake its agent if it
 * has waiters.  Window lock held. */
int ompi_osc_newrma_lock_direct_release(ompi_osc_newrma_module_t *module, int rank, int lock_type);

/* ---- the agent (packet handlers; no window lock needed) ---- */

/** Register the lock queue's packet handlers (LOCK, SINGLE, WAKE) and its
 * UNLOCK release with the packet layer (component init). */
void ompi_osc_newrma_lock_register_handlers(void);

/** Grant every queued waiter whose ticket is served. @return grants made */
int ompi_osc_newrma_lock_queue_progress(ompi_osc_newrma_module_t *module);

/** Drop queued waiters (window destruction). */
void ompi_osc_newrma_lock_queue_fini(ompi_osc_newrma_module_t *module);

#endif /* OMPI_OSC_NEWRMA_TARGET_LOCK_H */
