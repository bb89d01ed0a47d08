/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: requests of MPI_Rput / MPI_Rget (see osc_newrma_origin_request.h).
 */
#include "ompi_config.h"

#include "ompi/errhandler/errcode-internal.h"
#include "ompi/win/win.h"

#include "osc_newrma_origin_request.h"

/* The user's reference: before completion the operation still holds its
 * own, and completes and frees the request later. */
static int request_free(struct ompi_request_t **request)
{
    OMPI_REQUEST_FINI(*request);
    OBJ_RELEASE(*request);
    *request = MPI_REQUEST_NULL;
    return OMPI_SUCCESS;
}

static int request_cancel(struct ompi_request_t *request, int complete)
{
    (void) request, (void) complete;
    return MPI_ERR_REQUEST; /* RMA operations cannot be cancelled */
}

struct ompi_request_t *ompi_osc_newrma_request_alloc(struct ompi_win_t *win)
{
    ompi_request_t *request = OBJ_NEW(ompi_request_t);

    if (NULL == request) {
        return NULL;
    }
    OMPI_REQUEST_INIT(request, false);
    request->req_type = OMPI_REQUEST_WIN;
    request->req_mpi_object.win = win;
    request->req_free = request_free;
    request->req_cancel = request_cancel;
    request->req_status._cancelled = 0;
    request->req_state = OMPI_REQUEST_ACTIVE;
    OBJ_RETAIN(request); /* the operation's reference */
    return request;
}

void ompi_osc_newrma_request_complete(struct ompi_request_t *request, int status)
{
    request->req_status.MPI_ERROR =
        OMPI_SUCCESS == status ? MPI_SUCCESS : ompi_errcode_get_mpi_code(status);
    ompi_request_complete(request, true);
    OBJ_RELEASE(request);
}

void ompi_osc_newrma_request_discard(struct ompi_request_t *request)
{
    struct ompi_request_t *user = request;

    (void) request_free(&user);
}
