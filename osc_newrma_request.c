/*
 * osc/newrma: requests of MPI_Rput / MPI_Rget (see osc_newrma_request.h).
 */
#include "ompi_config.h"

#include "ompi/errhandler/errcode-internal.h"
#include "ompi/win/win.h"

#include "osc_newrma_request.h"

static int request_free(struct ompi_request_t **request)
{
    if (!REQUEST_COMPLETE(*request)) {
        /* the op element still points at it; MPI_Request_free before
         * completion is not supported for RMA requests */
        return MPI_ERR_REQUEST;
    }
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
    return request;
}

void ompi_osc_newrma_request_complete(struct ompi_request_t *request, int status)
{
    request->req_status.MPI_ERROR =
        OMPI_SUCCESS == status ? MPI_SUCCESS : ompi_errcode_get_mpi_code(status);
    ompi_request_complete(request, true);
}

void ompi_osc_newrma_request_discard(struct ompi_request_t *request)
{
    OMPI_REQUEST_FINI(request);
    OBJ_RELEASE(request);
}
