/*
 * osc/newrma: requests of MPI_Rput / MPI_Rget.  A request completes at
 * local completion of its operation, when CLEANUP retires the op element.
 */
#ifndef OMPI_OSC_NEWRMA_REQUEST_H
#define OMPI_OSC_NEWRMA_REQUEST_H

#include "ompi_config.h"

#include "ompi/request/request.h"

/** A new active request of window @p win, or NULL when out of memory. */
struct ompi_request_t *ompi_osc_newrma_request_alloc(struct ompi_win_t *win);

/** Complete @p request with @p status (an OMPI_* code). */
void ompi_osc_newrma_request_complete(struct ompi_request_t *request, int status);

/** Release a request that was never handed to the user. */
void ompi_osc_newrma_request_discard(struct ompi_request_t *request);

#endif /* OMPI_OSC_NEWRMA_REQUEST_H */
