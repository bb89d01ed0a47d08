/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: the design's basic routines ("Basic routines").
 *
 *   ISSUE_OPS_{TARGET,WIN,GLOBAL}          issue pending operations
 *   CLEANUP_{TARGET,WIN,GLOBAL}            retire completed operations/targets
 *   MAKE_RMA_PROGRESS_{TARGET,WIN,GLOBAL}  both, until nothing changes
 *   PROGRESS_WAIT                          block until a condition holds
 *                                          (osc_newrma_base_wait.h)
 *   CLEANUP_WIN_AGGRESSIVE                 block until an element is free
 *
 * Counting functions return the number of operations/targets they handled
 * (>= 0) or a negative OMPI_ERR_* code.  Unless stated otherwise the caller
 * holds the window lock.
 */
#ifndef OMPI_OSC_NEWRMA_PROGRESS_H
#define OMPI_OSC_NEWRMA_PROGRESS_H

#include "osc_newrma_base_types.h"
#include "osc_newrma_base_wait.h"

/** ISSUE_OPS_TARGET: issue up to @p max pending ops of @p target (max < 0: all). */
int ompi_osc_newrma_issue_ops_target(ompi_osc_newrma_module_t *module,
                                     ompi_osc_newrma_target_t *target, int max);
/** ISSUE_OPS_WIN: issue pending ops of every target, one op per target per round. */
int ompi_osc_newrma_issue_ops_win(ompi_osc_newrma_module_t *module);

/** CLEANUP_TARGET: retire @p target's completed ops, oldest first. */
int ompi_osc_newrma_cleanup_target(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_target_t *target);
/** CLEANUP_WIN: retire completed ops; in active target also empty target elements. */
int ompi_osc_newrma_cleanup_win(ompi_osc_newrma_module_t *module);

/** MAKE_RMA_PROGRESS_TARGET */
int ompi_osc_newrma_make_rma_progress_target(ompi_osc_newrma_module_t *module,
                                             ompi_osc_newrma_target_t *target);
/** MAKE_RMA_PROGRESS_WIN (also notices a completed FENCE IBARRIER) */
int ompi_osc_newrma_make_rma_progress_win(ompi_osc_newrma_module_t *module);
/** MAKE_RMA_PROGRESS_GLOBAL: every window whose lock is free (no lock held by caller). */
int ompi_osc_newrma_make_rma_progress_global(void);

/** CLEANUP_WIN_AGGRESSIVE: block until an element of @p resource can be had. */
int ompi_osc_newrma_cleanup_win_aggressive(ompi_osc_newrma_module_t *module,
                                           ompi_osc_newrma_resource_t resource);

/** True when the operation table holds no target element. */
bool ompi_osc_newrma_table_empty(ompi_osc_newrma_module_t *module, void *arg);

/** Register MAKE_RMA_PROGRESS_WIN, the agent's turn, ISSUE_OPS_TARGET and
 * CLEANUP_WIN_AGGRESSIVE with the wait service (osc_newrma_base_wait.h), once at
 * component init: the layers below reach them only through it. */
void ompi_osc_newrma_progress_register(void);

/** Become the agent (wait until no other thread is), so that no packet
 * handler runs until ompi_osc_newrma_agent_release. */
void ompi_osc_newrma_agent_acquire(void);
void ompi_osc_newrma_agent_release(void);

/** The agent polls @p module's mailbox slots from now on (osc_newrma_mailbox;
 * not with a progress thread, nor past OMPI_OSC_NEWRMA_MBOX_WINDOWS windows),
 * or no longer: caller holds the agent (ompi_osc_newrma_agent_acquire). */
void ompi_osc_newrma_agent_mbox_open(ompi_osc_newrma_module_t *module);
void ompi_osc_newrma_agent_mbox_close(ompi_osc_newrma_module_t *module);

/** The agent's progress: UCX worker, packet inbox, lock queues; skipped
 * (returns -1) while another thread runs it.  No window lock needed. */
int ompi_osc_newrma_agent_progress(void);

/** The opal_progress callback: UCX worker, inbox, MAKE_RMA_PROGRESS_GLOBAL. */
int ompi_osc_newrma_progress_cb(void);

/** Start the async progress thread (osc_newrma_async_progress); component
 * lock held.  It blocks on the UCX worker's event descriptor and serves
 * packets and lock requests while the application computes. */
int ompi_osc_newrma_progress_thread_start(void);

/** Stop and join the async progress thread, if it runs. */
void ompi_osc_newrma_progress_thread_stop(void);

#endif /* OMPI_OSC_NEWRMA_PROGRESS_H */
