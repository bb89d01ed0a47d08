/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: the window's own communicator, a duplicate of the user's,
 * kept for the next window on that communicator.
 *
 * Every window needs a communicator of its own (its collectives must not
 * meet the user's on the same communicator), and ompi_comm_dup with its
 * ompi_comm_free took 15 of the 25 us of an MPI_Win_allocate + MPI_Win_free
 * on one node (two agreements on a context id, the collective components'
 * selection).  So a window freed gives its duplicate back to the user's
 * communicator, where it waits, as an attribute, for the next window made on
 * it; freeing the user's communicator frees it.  Every rank of the
 * communicator makes and frees its windows on it in the same order (they are
 * collective), so all of them find the same duplicate idle or busy; a window
 * made while another one on the same communicator is alive gets one of its
 * own.  Not under MPI_THREAD_MULTIPLE, where two threads could make and free
 * windows on one communicator at once and ranks would disagree.  The
 * duplicate is idle only once the freed window's collectives are complete
 * (MPI_Win_free's barrier), so nothing of it remains in flight.
 */
#ifndef OMPI_OSC_NEWRMA_BASE_COMM_H
#define OMPI_OSC_NEWRMA_BASE_COMM_H

#include "ompi_config.h"

#include <stdbool.h>

struct ompi_communicator_t;

/** Component init: the attribute key; @p enabled false never keeps one. */
int ompi_osc_newrma_comm_init(bool enabled);

/** Component finalize: the idle duplicates freed, the key too. */
void ompi_osc_newrma_comm_fini(void);

/**
 * A communicator for a new window on @p parent (collective over it): its
 * idle kept duplicate, or a new one, kept for the next window when @p parent
 * has none yet.  An error with *@p comm_p set (keeping failed on this rank)
 * must fail the creation on every rank through its collectives, which then
 * run on *@p comm_p; with *@p comm_p NULL the duplicate itself failed.
 */
int ompi_osc_newrma_comm_get(struct ompi_communicator_t *parent,
                             struct ompi_communicator_t **comm_p);

/**
 * The window's communicator back (*@p comm_p NULL after): kept for the next
 * window when @p keep (the window was made on every rank) and it is its
 * parent's kept duplicate, else freed (a creation that failed anywhere:
 * every rank drops it, so all agree there is none).
 */
void ompi_osc_newrma_comm_put(struct ompi_communicator_t **comm_p, bool keep);

#endif
