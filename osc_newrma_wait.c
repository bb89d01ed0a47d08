/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: PROGRESS_WAIT and the agent's turn (see osc_newrma_wait.h).
 */
#include "ompi_config.h"

#include "opal/runtime/opal_progress.h"

#include "osc_newrma.h"
#include "osc_newrma_wait.h"

/* set once, before any window exists, and only read afterwards */
static ompi_osc_newrma_win_progress_fn_t wait_win_progress;
static ompi_osc_newrma_agent_turn_fn_t wait_agent_turn;

void ompi_osc_newrma_wait_register(ompi_osc_newrma_win_progress_fn_t win_progress,
                                   ompi_osc_newrma_agent_turn_fn_t agent_turn)
{
    wait_win_progress = win_progress;
    wait_agent_turn = agent_turn;
}

int ompi_osc_newrma_win_progress(ompi_osc_newrma_module_t *module)
{
    return wait_win_progress(module);
}

int ompi_osc_newrma_progress_wait(ompi_osc_newrma_module_t *module, ompi_osc_newrma_cond_fn_t cond,
                                  void *arg)
{
    int ret;

    for (;;) {
        ret = wait_win_progress(module);
        if (ret < 0) {
            return ret;
        }
        if (cond(module, arg)) {
            return OMPI_SUCCESS;
        }
        ompi_osc_newrma_module_unlock(module);
        opal_progress();
        ompi_osc_newrma_module_lock(module);
    }
}

void ompi_osc_newrma_agent_turn(ompi_osc_newrma_module_t *module)
{
    wait_agent_turn(module);
}
