/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: waiting (the design's PROGRESS_WAIT) as a service every layer
 * may use without calling up.  The progress engine above
 * (osc_newrma_progress.c) registers, once at component init, what makes a
 * window's RMA progress, what gives the target's agent a turn, what issues
 * one target's operations and what frees an element when the pools are
 * empty, as the transport delivers packets to the handler the packet layer
 * registers.
 */
#ifndef OMPI_OSC_NEWRMA_BASE_WAIT_H
#define OMPI_OSC_NEWRMA_BASE_WAIT_H

#include "osc_newrma_base_types.h"

/** Condition polled by PROGRESS_WAIT (window lock held). */
typedef bool (*ompi_osc_newrma_cond_fn_t)(ompi_osc_newrma_module_t *module, void *arg);

/** MAKE_RMA_PROGRESS_WIN: operations issued and retired, >= 0, or an error. */
typedef int (*ompi_osc_newrma_win_progress_fn_t)(ompi_osc_newrma_module_t *module);

/** A turn of the target's agent for a process that polls @p module: its
 * mailbox, and a round of the agent when packets wait or @p due. */
typedef void (*ompi_osc_newrma_agent_turn_fn_t)(ompi_osc_newrma_module_t *module, bool due);

/** One round of the target's agent (worker, inbox, lock queues): events, or
 * -1 when another thread, or this one further up its stack, is at it. */
typedef int (*ompi_osc_newrma_agent_round_fn_t)(void);

/** ISSUE_OPS_TARGET: up to @p max ops of @p target (max < 0: all); the
 * number issued, or an error. */
typedef int (*ompi_osc_newrma_issue_target_fn_t)(ompi_osc_newrma_module_t *module,
                                                 ompi_osc_newrma_target_t *target, int max);

/** CLEANUP_WIN_AGGRESSIVE: block until an element of @p resource is free. */
typedef int (*ompi_osc_newrma_reclaim_fn_t)(ompi_osc_newrma_module_t *module,
                                            ompi_osc_newrma_resource_t resource);

/** True once a peer of @p module has died (asked by a wait whose
 * condition does not hold yet). */
typedef bool (*ompi_osc_newrma_peer_lost_fn_t)(ompi_osc_newrma_module_t *module);

/** What the progress engine lends the layers below it. */
typedef struct {
    ompi_osc_newrma_win_progress_fn_t win_progress;
    /** the same round leaving the aggregated messages open */
    ompi_osc_newrma_win_progress_fn_t win_progress_held;
    ompi_osc_newrma_agent_turn_fn_t agent_turn;
    ompi_osc_newrma_agent_round_fn_t agent_round;
    ompi_osc_newrma_issue_target_fn_t issue_target;
    ompi_osc_newrma_reclaim_fn_t reclaim;
    ompi_osc_newrma_peer_lost_fn_t peer_lost;
    /** packets waiting for the agent (its inbox's length, read without a
     * lock: a turn is given when it is not 0) */
    const volatile size_t *agent_backlog;
    /** a wait's rounds call opal_progress once in this many (at least 1)
     * while its window has PML or collective requests in flight
     * (ompi_osc_newrma_pml_pending) ... */
    unsigned opal_every;
    /** ... and once in this many otherwise (at least 1) */
    unsigned opal_every_agent;
} ompi_osc_newrma_engine_t;

/** The progress engine's functions (component init, before any window). */
void ompi_osc_newrma_wait_register(const ompi_osc_newrma_engine_t *engine);

/** MAKE_RMA_PROGRESS_WIN through the registered engine (window lock held). */
int ompi_osc_newrma_win_progress(ompi_osc_newrma_module_t *module);

/** ISSUE_OPS_TARGET through the registered engine (window lock held): an
 * operation just queued goes out at once when its epoch allows. */
int ompi_osc_newrma_issue_target(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                                 int max);

/** CLEANUP_WIN_AGGRESSIVE through the registered engine (window lock held). */
int ompi_osc_newrma_reclaim(ompi_osc_newrma_module_t *module, ompi_osc_newrma_resource_t resource);

/**
 * PROGRESS_WAIT: make progress until @p cond holds.  The window lock is
 * released while Open MPI's progress (and so the agent) runs.  Fails with
 * MPI_ERR_OTHER instead once a peer of the window has died: what it waits
 * for may never come.
 */
int ompi_osc_newrma_progress_wait(ompi_osc_newrma_module_t *module, ompi_osc_newrma_cond_fn_t cond,
                                  void *arg);

/**
 * PROGRESS_WAIT unless @p cond holds already, for a condition that peers
 * make true (their POSTs and COMPLETEs, a granted epoch): a progress round
 * of this window's own operations would change nothing, and on one node
 * it cost a quarter of an empty PSCW epoch's instructions.
 */
int ompi_osc_newrma_progress_wait_unless(ompi_osc_newrma_module_t *module,
                                         ompi_osc_newrma_cond_fn_t cond, void *arg);

/**
 * PROGRESS_WAIT for local completion (FLUSH_LOCAL): first a progress round
 * that issues and retires the window's operations but leaves its
 * aggregated messages open, since a packet copied into one is complete
 * locally; the whole loop only when @p cond does not hold after it.  A
 * stream of small operations, each followed by MPI_Win_flush_local, so
 * fills messages instead of sending one per flush.
 */
int ompi_osc_newrma_progress_wait_local(ompi_osc_newrma_module_t *module,
                                        ompi_osc_newrma_cond_fn_t cond, void *arg);

/**
 * PROGRESS_WAIT for what only a peer does (a mailbox slot's answer): the
 * same loop without the window's progress rounds, which issue and retire
 * this process's own operations and cost more than the wait's poll.
 */
int ompi_osc_newrma_progress_wait_peer(ompi_osc_newrma_module_t *module,
                                       ompi_osc_newrma_cond_fn_t cond, void *arg);

/**
 * A direct flush, unlock or MPI_Win_sync completes without waiting, so a
 * process spinning on them (a CAS mutex in its own window) would never
 * serve the packets and UCX atomics other origins send it: give the
 * target's agent a turn (when its mailbox is open or packets wait in the
 * inbox, and otherwise on every OMPI_OSC_NEWRMA_AGENT_TURN_EVERY-th call;
 * the other calls look at two words and return, where the engine's call
 * made every node-local flush 14 instructions dearer).
 */
#define OMPI_OSC_NEWRMA_AGENT_TURN_EVERY 16
void ompi_osc_newrma_agent_turn(ompi_osc_newrma_module_t *module);

/**
 * A flush, unlock or MPI_Win_sync that returns without waiting (the
 * window lock not held): the agent's turn, and once in
 * OMPI_OSC_NEWRMA_OPAL_TURN_EVERY calls Open MPI's whole progress.  A
 * process that polls a flag with node-local lock, GET and unlock and no
 * other MPI call never moved its point-to-point messages otherwise: a
 * rendezvous it received never completed (tests/mpi/pml_progress; osc/rdma's
 * unlock runs opal_progress every time).  Over TCP an opal_progress costs a
 * system call, so not on every call.
 */
#define OMPI_OSC_NEWRMA_OPAL_TURN_EVERY 256
void ompi_osc_newrma_call_turn(ompi_osc_newrma_module_t *module);

/** One round of the agent through the registered engine, whatever the
 * inbox holds (a window lock may be held: the agent takes none). */
int ompi_osc_newrma_agent_round(void);

#endif /* OMPI_OSC_NEWRMA_BASE_WAIT_H */
