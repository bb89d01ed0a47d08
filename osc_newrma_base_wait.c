/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: PROGRESS_WAIT and the other services the progress engine
 * lends the layers below it (see osc_newrma_base_wait.h).
 */
#include "ompi_config.h"

#include <sched.h>

#include "opal/runtime/opal_progress.h"

#include "osc_newrma.h"
#include "osc_newrma_base_wait.h"

/* set once, before any window exists, and only read afterwards */
static ompi_osc_newrma_engine_t wait_engine;

/* One round's progress while the window's lock is released: Open MPI's
 * when @p opal, else the agent alone (mailboxes, UCX's worker, the inbox,
 * where the answers a wait needs arrive).  A whole opal_progress polls
 * every BTL and, over TCP, libevent's sockets: a system call per round. */
static void wait_round_progress(bool opal)
{
    if (opal) {
        opal_progress();
    } else if (wait_engine.agent_round() < 0) {
        /* another thread has the agent (the async progress thread): it
         * may have been preempted on this core, holding what this wait
         * needs; spinning until the scheduler's next tick cost TCP round
         * trips 2-7 times their time and a fence 1-2 ms */
        sched_yield();
    }
}

/* Whether this round of a wait on @p module runs opal_progress (window
 * lock held).  A wait for what only the agent brings runs it seldom (it
 * still runs: other components and the user's requests progress), one
 * with a collective or PML request of the window in flight often: over
 * TCP each opal_progress is a poll of libevent's sockets, about 1 us
 * here, which delayed a round trip's answer, while a fence of 6 ranks
 * through the collective took 1.6 times its time at one round in 16.
 * The rounds since the last one are counted across waits, so a run of
 * short waits (the fence's, a mailbox answer's on one node) runs it once
 * in so many rounds, not once per wait (fence rows over TCP 13.9 -> 12.5
 * us, where every wait began with it). */
static bool wait_round_opal(ompi_osc_newrma_module_t *module)
{
    unsigned every =
        ompi_osc_newrma_pml_pending(module) ? wait_engine.opal_every : wait_engine.opal_every_agent;

    if (module->wait_rounds + 1 >= every) {
        module->wait_rounds = 0;
        return true;
    }
    module->wait_rounds++;
    return false;
}

void ompi_osc_newrma_wait_register(const ompi_osc_newrma_engine_t *engine)
{
    wait_engine = *engine;
}

int ompi_osc_newrma_win_progress(ompi_osc_newrma_module_t *module)
{
    return wait_engine.win_progress(module);
}

int ompi_osc_newrma_issue_target(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                                 int max)
{
    return wait_engine.issue_target(module, target, max);
}

int ompi_osc_newrma_reclaim(ompi_osc_newrma_module_t *module, ompi_osc_newrma_resource_t resource)
{
    return wait_engine.reclaim(module, resource);
}

/* PROGRESS_WAIT's loop, with (@p win_rounds) or without the window's own
 * progress round before each look at @p cond. */
static int wait_loop(ompi_osc_newrma_module_t *module, ompi_osc_newrma_cond_fn_t cond, void *arg,
                     bool win_rounds)
{
    bool opal;
    int ret;

    for (;;) {
        ret = win_rounds ? wait_engine.win_progress(module) : OMPI_SUCCESS;
        if (ret < 0) {
            return ret;
        }
        if (cond(module, arg)) {
            return OMPI_SUCCESS;
        }
        if (wait_engine.peer_lost(module)) {
            return MPI_ERR_OTHER;
        }
        opal = wait_round_opal(module);
        ompi_osc_newrma_module_unlock(module);
        wait_round_progress(opal);
        ompi_osc_newrma_module_lock(module);
    }
}

int ompi_osc_newrma_progress_wait(ompi_osc_newrma_module_t *module, ompi_osc_newrma_cond_fn_t cond,
                                  void *arg)
{
    return wait_loop(module, cond, arg, true);
}

int ompi_osc_newrma_progress_wait_unless(ompi_osc_newrma_module_t *module,
                                         ompi_osc_newrma_cond_fn_t cond, void *arg)
{
    return cond(module, arg) ? OMPI_SUCCESS : ompi_osc_newrma_progress_wait(module, cond, arg);
}

int ompi_osc_newrma_progress_wait_local(ompi_osc_newrma_module_t *module,
                                        ompi_osc_newrma_cond_fn_t cond, void *arg)
{
    int ret = wait_engine.win_progress_held(module);

    if (ret < 0) {
        return ret;
    }
    return cond(module, arg) ? OMPI_SUCCESS : ompi_osc_newrma_progress_wait(module, cond, arg);
}

int ompi_osc_newrma_progress_wait_peer(ompi_osc_newrma_module_t *module,
                                       ompi_osc_newrma_cond_fn_t cond, void *arg)
{
    return wait_loop(module, cond, arg, false);
}

void ompi_osc_newrma_agent_turn(ompi_osc_newrma_module_t *module)
{
    bool due = 0 == (++module->flush_turns % OMPI_OSC_NEWRMA_AGENT_TURN_EVERY);

    /* a segment's mailbox (seg_share_from, not mbox_ok) needs no turn from the
     * calls: its origin copies every chunk the agent has not taken, and
     * waits only for a chunk the agent is copying */
    if (due || (module->mbox_ok && module->mbox_polled) || 0 != *wait_engine.agent_backlog) {
        wait_engine.agent_turn(module, due);
    }
}

void ompi_osc_newrma_call_turn(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_agent_turn(module);
    if (0 == module->flush_turns % OMPI_OSC_NEWRMA_OPAL_TURN_EVERY) {
        opal_progress();
    }
}

int ompi_osc_newrma_agent_round(void)
{
    return wait_engine.agent_round();
}
