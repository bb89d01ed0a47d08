/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: requests of MPI_Rput / MPI_Rget.  A request completes at
 * local completion of its operation, when CLEANUP retires the op element.
 *
 * Two references keep a request: the user's (dropped by MPI_Wait, MPI_Test
 * or MPI_Request_free, which is legal before completion) and the
 * operation's (dropped when it completes).  Whoever drops the last frees it.
 */
#ifndef OMPI_OSC_NEWRMA_ORIGIN_REQUEST_H
#define OMPI_OSC_NEWRMA_ORIGIN_REQUEST_H

#include "ompi_config.h"

#include "ompi/request/request.h"

/** A new active request of window @p win holding the user's and the
 * operation's references, or NULL when out of memory. */
struct ompi_request_t *ompi_osc_newrma_request_alloc(struct ompi_win_t *win);

/** Complete @p request with @p status (an OMPI_* code) and drop the
 * operation's reference. */
void ompi_osc_newrma_request_complete(struct ompi_request_t *request, int status);

/** Drop the user's reference of a request never handed to the user. */
void ompi_osc_newrma_request_discard(struct ompi_request_t *request);

#endif /* OMPI_OSC_NEWRMA_ORIGIN_REQUEST_H */
