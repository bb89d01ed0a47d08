/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: the window and per-target epoch state machines.
 *
 * Every synchronization call moves the window state only through
 * ompi_osc_newrma_win_state_next(), so the legal transitions are written in
 * one place (a switch over the design's named states) and unit-tested
 * without MPI.
 */
#ifndef OMPI_OSC_NEWRMA_BASE_STATE_H
#define OMPI_OSC_NEWRMA_BASE_STATE_H

#include <stdbool.h>
#include "osc_newrma_base_types.h"

/** Events that move the window state. */
typedef enum {
    /** FENCE with MPI_MODE_NOPRECEDE: IBARRIER issued, not waited for */
    OMPI_OSC_NEWRMA_EV_FENCE_NOPRECEDE = 0,
    /** FENCE completed its operations and issued the IBARRIER */
    OMPI_OSC_NEWRMA_EV_FENCE_IBARRIER,
    /** the IBARRIER kept in fence_req completed */
    OMPI_OSC_NEWRMA_EV_FENCE_IBARRIER_DONE,
    /** FENCE with MPI_MODE_NOSUCCEED finished */
    OMPI_OSC_NEWRMA_EV_FENCE_NOSUCCEED,
    /** WIN_START issued its IRECVs */
    OMPI_OSC_NEWRMA_EV_PSCW_START,
    /** all POST messages of the access group arrived */
    OMPI_OSC_NEWRMA_EV_PSCW_POSTS_DONE,
    /** WIN_COMPLETE finished */
    OMPI_OSC_NEWRMA_EV_PSCW_COMPLETE,
    /** WIN_LOCK on some target */
    OMPI_OSC_NEWRMA_EV_LOCK,
    /** WIN_UNLOCK released the last locked target */
    OMPI_OSC_NEWRMA_EV_UNLOCK_LAST,
    /** WIN_LOCK_ALL without MPI_MODE_NOCHECK */
    OMPI_OSC_NEWRMA_EV_LOCK_ALL,
    /** WIN_LOCK_ALL with MPI_MODE_NOCHECK */
    OMPI_OSC_NEWRMA_EV_LOCK_ALL_NOCHECK,
    /** per-target protocol ran out of target elements: window protocol */
    OMPI_OSC_NEWRMA_EV_LOCK_ALL_FALLBACK,
    /** every lock of the window protocol was granted */
    OMPI_OSC_NEWRMA_EV_LOCK_ALL_GRANTED,
    /** WIN_UNLOCK_ALL finished */
    OMPI_OSC_NEWRMA_EV_UNLOCK_ALL,
    OMPI_OSC_NEWRMA_EV_COUNT
} ompi_osc_newrma_win_event_t;

/**
 * Compute the window state that @p event leads to from @p state.
 *
 * @return OMPI_SUCCESS and *next_p set, or OMPI_ERR_RMA_SYNC when the
 *         event is not legal in @p state (next_p untouched).
 */
int ompi_osc_newrma_win_state_next(ompi_osc_newrma_win_state_t state,
                                   ompi_osc_newrma_win_event_t event,
                                   ompi_osc_newrma_win_state_t *next_p);

/** True when the window state is inside an access epoch (RMA ops legal). */
bool ompi_osc_newrma_win_state_is_access(ompi_osc_newrma_win_state_t state);

/** True when per-target states are in use (PER_TARGET, LOCK_ALL_CALLED). */
bool ompi_osc_newrma_win_state_is_per_target(ompi_osc_newrma_win_state_t state);

/** True in a passive target epoch (LOCK or LOCK_ALL). */
bool ompi_osc_newrma_win_state_is_passive(ompi_osc_newrma_win_state_t state);

/** True when a fence-type IBARRIER may still be outstanding. */
bool ompi_osc_newrma_win_state_is_fence(ompi_osc_newrma_win_state_t state);

/** Printable name of a window state (for verbose output and tests). */
const char *ompi_osc_newrma_win_state_name(ompi_osc_newrma_win_state_t state);

/**
 * Next per-target state: CALLED -> ISSUED -> GRANTED; NOCHECK jumps to
 * GRANTED.  @return OMPI_ERR_RMA_SYNC for a backwards move.
 */
int ompi_osc_newrma_lock_state_next(ompi_osc_newrma_lock_state_t state,
                                    ompi_osc_newrma_lock_state_t wanted,
                                    ompi_osc_newrma_lock_state_t *next_p);

#endif /* OMPI_OSC_NEWRMA_BASE_STATE_H */
