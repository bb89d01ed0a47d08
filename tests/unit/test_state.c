/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/* Unit test of the window and per-target state machines. */
#include "ompi_config.h"

#include <string.h>

#include "ompi/constants.h"

#include "osc_newrma_base_state.h"
#include "unit.h"

#define S(x) OMPI_OSC_NEWRMA_WIN_##x
#define E(x) OMPI_OSC_NEWRMA_EV_##x

static void expect(ompi_osc_newrma_win_state_t from, ompi_osc_newrma_win_event_t ev,
                   ompi_osc_newrma_win_state_t to)
{
    ompi_osc_newrma_win_state_t next = S(STATE_COUNT);
    int ret = ompi_osc_newrma_win_state_next(from, ev, &next);

    CHECK(OMPI_SUCCESS == ret);
    if (OMPI_SUCCESS != ret || next != to) {
        fprintf(stderr, "  %s --%d--> %s, expected %s\n", ompi_osc_newrma_win_state_name(from), ev,
                ompi_osc_newrma_win_state_name(next), ompi_osc_newrma_win_state_name(to));
        unit_failures += (OMPI_SUCCESS == ret);
    }
}

static void refuse(ompi_osc_newrma_win_state_t from, ompi_osc_newrma_win_event_t ev)
{
    ompi_osc_newrma_win_state_t next = S(STATE_COUNT);

    CHECK(OMPI_ERR_RMA_SYNC == ompi_osc_newrma_win_state_next(from, ev, &next));
    CHECK(S(STATE_COUNT) == next);
}

int main(void)
{
    ompi_osc_newrma_lock_state_t ls;

    /* FENCE: NONE -> ISSUED -> GRANTED, NOSUCCEED back to NONE */
    expect(S(NONE), E(FENCE_IBARRIER), S(FENCE_ISSUED));
    expect(S(NONE), E(FENCE_NOPRECEDE), S(FENCE_ISSUED));
    expect(S(FENCE_ISSUED), E(FENCE_IBARRIER_DONE), S(FENCE_GRANTED));
    expect(S(FENCE_GRANTED), E(FENCE_IBARRIER), S(FENCE_ISSUED));
    expect(S(FENCE_GRANTED), E(FENCE_NOSUCCEED), S(NONE));
    expect(S(FENCE_ISSUED), E(FENCE_NOSUCCEED), S(NONE));
    refuse(S(NONE), E(FENCE_IBARRIER_DONE));
    refuse(S(FENCE_GRANTED), E(FENCE_IBARRIER_DONE));
    /* no FENCE inside passive or PSCW epochs */
    refuse(S(PER_TARGET), E(FENCE_IBARRIER));
    refuse(S(LOCK_ALL_CALLED), E(FENCE_NOPRECEDE));
    refuse(S(PSCW_GRANTED), E(FENCE_IBARRIER));

    /* other synchronizations may follow a FENCE without NOSUCCEED */
    expect(S(FENCE_GRANTED), E(LOCK), S(PER_TARGET));
    expect(S(FENCE_ISSUED), E(LOCK_ALL), S(LOCK_ALL_CALLED));
    expect(S(FENCE_GRANTED), E(PSCW_START), S(PSCW_ISSUED));

    /* LOCK / UNLOCK */
    expect(S(NONE), E(LOCK), S(PER_TARGET));
    expect(S(PER_TARGET), E(LOCK), S(PER_TARGET));
    expect(S(PER_TARGET), E(UNLOCK_LAST), S(NONE));
    refuse(S(NONE), E(UNLOCK_LAST));
    refuse(S(LOCK_ALL_GRANTED), E(LOCK));

    /* LOCK_ALL: per-target protocol, fallback to window protocol, NOCHECK */
    expect(S(NONE), E(LOCK_ALL), S(LOCK_ALL_CALLED));
    expect(S(LOCK_ALL_CALLED), E(LOCK_ALL_FALLBACK), S(LOCK_ALL_ISSUED));
    expect(S(LOCK_ALL_ISSUED), E(LOCK_ALL_GRANTED), S(LOCK_ALL_GRANTED));
    expect(S(NONE), E(LOCK_ALL_NOCHECK), S(LOCK_ALL_GRANTED));
    expect(S(LOCK_ALL_CALLED), E(UNLOCK_ALL), S(NONE));
    expect(S(LOCK_ALL_GRANTED), E(UNLOCK_ALL), S(NONE));
    refuse(S(PER_TARGET), E(LOCK_ALL));
    refuse(S(LOCK_ALL_CALLED), E(LOCK_ALL));
    refuse(S(NONE), E(UNLOCK_ALL));
    refuse(S(LOCK_ALL_GRANTED), E(LOCK_ALL_FALLBACK));

    /* PSCW */
    expect(S(NONE), E(PSCW_START), S(PSCW_ISSUED));
    expect(S(PSCW_ISSUED), E(PSCW_POSTS_DONE), S(PSCW_GRANTED));
    expect(S(PSCW_GRANTED), E(PSCW_COMPLETE), S(NONE));
    refuse(S(NONE), E(PSCW_COMPLETE));
    refuse(S(PSCW_ISSUED), E(PSCW_START));

    /* predicates */
    CHECK(!ompi_osc_newrma_win_state_is_access(S(NONE)));
    for (int s = S(FENCE_ISSUED); s < S(STATE_COUNT); ++s) {
        CHECK(ompi_osc_newrma_win_state_is_access((ompi_osc_newrma_win_state_t) s));
    }
    CHECK(ompi_osc_newrma_win_state_is_per_target(S(PER_TARGET)));
    CHECK(ompi_osc_newrma_win_state_is_per_target(S(LOCK_ALL_CALLED)));
    CHECK(!ompi_osc_newrma_win_state_is_per_target(S(LOCK_ALL_GRANTED)));
    CHECK(ompi_osc_newrma_win_state_is_fence(S(FENCE_GRANTED)));
    CHECK(!ompi_osc_newrma_win_state_is_fence(S(NONE)));
    CHECK(OMPI_ERR_BAD_PARAM == ompi_osc_newrma_win_state_next(S(STATE_COUNT), E(LOCK),
                                                               &(ompi_osc_newrma_win_state_t){0}));

    /* per-target: CALLED -> ISSUED -> GRANTED, NOCHECK jumps, never backwards */
    CHECK(OMPI_SUCCESS == ompi_osc_newrma_lock_state_next(OMPI_OSC_NEWRMA_LOCK_CALLED,
                                                          OMPI_OSC_NEWRMA_LOCK_ISSUED, &ls) &&
          OMPI_OSC_NEWRMA_LOCK_ISSUED == ls);
    CHECK(OMPI_SUCCESS == ompi_osc_newrma_lock_state_next(OMPI_OSC_NEWRMA_LOCK_ISSUED,
                                                          OMPI_OSC_NEWRMA_LOCK_GRANTED, &ls) &&
          OMPI_OSC_NEWRMA_LOCK_GRANTED == ls);
    CHECK(OMPI_SUCCESS == ompi_osc_newrma_lock_state_next(OMPI_OSC_NEWRMA_LOCK_CALLED,
                                                          OMPI_OSC_NEWRMA_LOCK_GRANTED, &ls));
    CHECK(OMPI_ERR_RMA_SYNC == ompi_osc_newrma_lock_state_next(OMPI_OSC_NEWRMA_LOCK_GRANTED,
                                                               OMPI_OSC_NEWRMA_LOCK_ISSUED, &ls));

    CHECK(0 == strcmp("FENCE_GRANTED", ompi_osc_newrma_win_state_name(S(FENCE_GRANTED))));
    return unit_finish("test_state");
}
