/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: window and per-target state transitions (see
 * osc_newrma_base_state.h).  Pure functions: no locks, no MPI.
 */
#include "ompi_config.h"

#include "ompi/constants.h"

#include "osc_newrma_base_state.h"

/* Where a new synchronization may begin: no epoch, or after a FENCE that was
 * not closed with MPI_MODE_NOSUCCEED (the design lets other synchronizations
 * move straight from FENCE_ISSUED / FENCE_GRANTED). */
static bool win_state_can_open(ompi_osc_newrma_win_state_t state)
{
    switch (state) {
        case OMPI_OSC_NEWRMA_WIN_NONE:
        case OMPI_OSC_NEWRMA_WIN_FENCE_ISSUED:
        case OMPI_OSC_NEWRMA_WIN_FENCE_GRANTED:
            return true;
        default:
            return false;
    }
}

static int win_state_after_fence(ompi_osc_newrma_win_state_t state,
                                 ompi_osc_newrma_win_event_t event,
                                 ompi_osc_newrma_win_state_t *next_p)
{
    if (!win_state_can_open(state)) {
        return OMPI_ERR_RMA_SYNC;
    }
    switch (event) {
        case OMPI_OSC_NEWRMA_EV_FENCE_NOPRECEDE:
        case OMPI_OSC_NEWRMA_EV_FENCE_IBARRIER:
            *next_p = OMPI_OSC_NEWRMA_WIN_FENCE_ISSUED;
            return OMPI_SUCCESS;
        case OMPI_OSC_NEWRMA_EV_FENCE_IBARRIER_DONE:
            if (OMPI_OSC_NEWRMA_WIN_FENCE_ISSUED != state) {
                return OMPI_ERR_RMA_SYNC;
            }
            *next_p = OMPI_OSC_NEWRMA_WIN_FENCE_GRANTED;
            return OMPI_SUCCESS;
        default: /* OMPI_OSC_NEWRMA_EV_FENCE_NOSUCCEED */
            *next_p = OMPI_OSC_NEWRMA_WIN_NONE;
            return OMPI_SUCCESS;
    }
}

static int win_state_after_pscw(ompi_osc_newrma_win_state_t state,
                                ompi_osc_newrma_win_event_t event,
                                ompi_osc_newrma_win_state_t *next_p)
{
    switch (event) {
        case OMPI_OSC_NEWRMA_EV_PSCW_START:
            if (!win_state_can_open(state)) {
                return OMPI_ERR_RMA_SYNC;
            }
            *next_p = OMPI_OSC_NEWRMA_WIN_PSCW_ISSUED;
            return OMPI_SUCCESS;
        case OMPI_OSC_NEWRMA_EV_PSCW_POSTS_DONE:
            if (OMPI_OSC_NEWRMA_WIN_PSCW_ISSUED != state) {
                return OMPI_ERR_RMA_SYNC;
            }
            *next_p = OMPI_OSC_NEWRMA_WIN_PSCW_GRANTED;
            return OMPI_SUCCESS;
        default: /* OMPI_OSC_NEWRMA_EV_PSCW_COMPLETE */
            if (OMPI_OSC_NEWRMA_WIN_PSCW_ISSUED != state &&
                OMPI_OSC_NEWRMA_WIN_PSCW_GRANTED != state) {
                return OMPI_ERR_RMA_SYNC;
            }
            *next_p = OMPI_OSC_NEWRMA_WIN_NONE;
            return OMPI_SUCCESS;
    }
}

static int win_state_after_lock(ompi_osc_newrma_win_state_t state,
                                ompi_osc_newrma_win_event_t event,
                                ompi_osc_newrma_win_state_t *next_p)
{
    if (OMPI_OSC_NEWRMA_EV_LOCK == event) {
        if (!win_state_can_open(state) && OMPI_OSC_NEWRMA_WIN_PER_TARGET != state) {
            return OMPI_ERR_RMA_SYNC;
        }
        *next_p = OMPI_OSC_NEWRMA_WIN_PER_TARGET;
        return OMPI_SUCCESS;
    }
    /* OMPI_OSC_NEWRMA_EV_UNLOCK_LAST */
    if (OMPI_OSC_NEWRMA_WIN_PER_TARGET != state) {
        return OMPI_ERR_RMA_SYNC;
    }
    *next_p = OMPI_OSC_NEWRMA_WIN_NONE;
    return OMPI_SUCCESS;
}

static int win_state_after_lock_all(ompi_osc_newrma_win_state_t state,
                                    ompi_osc_newrma_win_event_t event,
                                    ompi_osc_newrma_win_state_t *next_p)
{
    switch (event) {
        case OMPI_OSC_NEWRMA_EV_LOCK_ALL:
        case OMPI_OSC_NEWRMA_EV_LOCK_ALL_NOCHECK:
            if (!win_state_can_open(state)) {
                return OMPI_ERR_RMA_SYNC;
            }
            *next_p = (OMPI_OSC_NEWRMA_EV_LOCK_ALL == event) ? OMPI_OSC_NEWRMA_WIN_LOCK_ALL_CALLED
                                                             : OMPI_OSC_NEWRMA_WIN_LOCK_ALL_GRANTED;
            return OMPI_SUCCESS;
        case OMPI_OSC_NEWRMA_EV_LOCK_ALL_FALLBACK:
            if (OMPI_OSC_NEWRMA_WIN_LOCK_ALL_CALLED != state) {
                return OMPI_ERR_RMA_SYNC;
            }
            *next_p = OMPI_OSC_NEWRMA_WIN_LOCK_ALL_ISSUED;
            return OMPI_SUCCESS;
        case OMPI_OSC_NEWRMA_EV_LOCK_ALL_GRANTED:
            if (OMPI_OSC_NEWRMA_WIN_LOCK_ALL_ISSUED != state) {
                return OMPI_ERR_RMA_SYNC;
            }
            *next_p = OMPI_OSC_NEWRMA_WIN_LOCK_ALL_GRANTED;
            return OMPI_SUCCESS;
        default: /* OMPI_OSC_NEWRMA_EV_UNLOCK_ALL */
            if (OMPI_OSC_NEWRMA_WIN_LOCK_ALL_CALLED != state &&
                OMPI_OSC_NEWRMA_WIN_LOCK_ALL_ISSUED != state &&
                OMPI_OSC_NEWRMA_WIN_LOCK_ALL_GRANTED != state) {
                return OMPI_ERR_RMA_SYNC;
            }
            *next_p = OMPI_OSC_NEWRMA_WIN_NONE;
            return OMPI_SUCCESS;
    }
}

int ompi_osc_newrma_win_state_next(ompi_osc_newrma_win_state_t state,
                                   ompi_osc_newrma_win_event_t event,
                                   ompi_osc_newrma_win_state_t *next_p)
{
    if ((unsigned) state >= OMPI_OSC_NEWRMA_WIN_STATE_COUNT) {
        return OMPI_ERR_BAD_PARAM;
    }
    switch (event) {
        case OMPI_OSC_NEWRMA_EV_FENCE_NOPRECEDE:
        case OMPI_OSC_NEWRMA_EV_FENCE_IBARRIER:
        case OMPI_OSC_NEWRMA_EV_FENCE_IBARRIER_DONE:
        case OMPI_OSC_NEWRMA_EV_FENCE_NOSUCCEED:
            return win_state_after_fence(state, event, next_p);
        case OMPI_OSC_NEWRMA_EV_PSCW_START:
        case OMPI_OSC_NEWRMA_EV_PSCW_POSTS_DONE:
        case OMPI_OSC_NEWRMA_EV_PSCW_COMPLETE:
            return win_state_after_pscw(state, event, next_p);
        case OMPI_OSC_NEWRMA_EV_LOCK:
        case OMPI_OSC_NEWRMA_EV_UNLOCK_LAST:
            return win_state_after_lock(state, event, next_p);
        case OMPI_OSC_NEWRMA_EV_LOCK_ALL:
        case OMPI_OSC_NEWRMA_EV_LOCK_ALL_NOCHECK:
        case OMPI_OSC_NEWRMA_EV_LOCK_ALL_FALLBACK:
        case OMPI_OSC_NEWRMA_EV_LOCK_ALL_GRANTED:
        case OMPI_OSC_NEWRMA_EV_UNLOCK_ALL:
            return win_state_after_lock_all(state, event, next_p);
        default:
            return OMPI_ERR_BAD_PARAM;
    }
}

bool ompi_osc_newrma_win_state_is_access(ompi_osc_newrma_win_state_t state)
{
    switch (state) {
        case OMPI_OSC_NEWRMA_WIN_NONE:
            return false;
        default:
            return state < OMPI_OSC_NEWRMA_WIN_STATE_COUNT;
    }
}

bool ompi_osc_newrma_win_state_is_per_target(ompi_osc_newrma_win_state_t state)
{
    return OMPI_OSC_NEWRMA_WIN_PER_TARGET == state || OMPI_OSC_NEWRMA_WIN_LOCK_ALL_CALLED == state;
}

bool ompi_osc_newrma_win_state_is_passive(ompi_osc_newrma_win_state_t state)
{
    switch (state) {
        case OMPI_OSC_NEWRMA_WIN_PER_TARGET:
        case OMPI_OSC_NEWRMA_WIN_LOCK_ALL_CALLED:
        case OMPI_OSC_NEWRMA_WIN_LOCK_ALL_ISSUED:
        case OMPI_OSC_NEWRMA_WIN_LOCK_ALL_GRANTED:
            return true;
        default:
            return false;
    }
}

bool ompi_osc_newrma_win_state_is_fence(ompi_osc_newrma_win_state_t state)
{
    return OMPI_OSC_NEWRMA_WIN_FENCE_ISSUED == state || OMPI_OSC_NEWRMA_WIN_FENCE_GRANTED == state;
}

const char *ompi_osc_newrma_win_state_name(ompi_osc_newrma_win_state_t state)
{
    static const char *const names[OMPI_OSC_NEWRMA_WIN_STATE_COUNT] = {
        [OMPI_OSC_NEWRMA_WIN_NONE] = "NONE",
        [OMPI_OSC_NEWRMA_WIN_FENCE_ISSUED] = "FENCE_ISSUED",
        [OMPI_OSC_NEWRMA_WIN_FENCE_GRANTED] = "FENCE_GRANTED",
        [OMPI_OSC_NEWRMA_WIN_PSCW_ISSUED] = "PSCW_ISSUED",
        [OMPI_OSC_NEWRMA_WIN_PSCW_GRANTED] = "PSCW_GRANTED",
        [OMPI_OSC_NEWRMA_WIN_LOCK_ALL_CALLED] = "LOCK_ALL_CALLED",
        [OMPI_OSC_NEWRMA_WIN_LOCK_ALL_ISSUED] = "LOCK_ALL_ISSUED",
        [OMPI_OSC_NEWRMA_WIN_LOCK_ALL_GRANTED] = "LOCK_ALL_GRANTED",
        [OMPI_OSC_NEWRMA_WIN_PER_TARGET] = "PER_TARGET",
    };
    if ((unsigned) state >= OMPI_OSC_NEWRMA_WIN_STATE_COUNT) {
        return "INVALID";
    }
    return names[state];
}

int ompi_osc_newrma_lock_state_next(ompi_osc_newrma_lock_state_t state,
                                    ompi_osc_newrma_lock_state_t wanted,
                                    ompi_osc_newrma_lock_state_t *next_p)
{
    if ((unsigned) wanted >= OMPI_OSC_NEWRMA_LOCK_STATE_COUNT || wanted < state) {
        return OMPI_ERR_RMA_SYNC;
    }
    *next_p = wanted;
    return OMPI_SUCCESS;
}
