/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 *
 * Preloaded into Debian's NetPIPE (netpipe-openmpi, NPopenmpi2: PUT or GET
 * ping-pongs in fence epochs) so that it runs under Open MPI at all.
 * NetPIPE 3.7.2 passes NULL, not MPI_INFO_NULL, as MPI_Win_create's info;
 * Open MPI rejects that with MPI_ERR_INFO (and with its argument checks off
 * every component crashes on it).  This changes that one argument and
 * nothing NetPIPE times: its windows, transfers and fences are its own.
 */
#include <mpi.h>

int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                   MPI_Win *win)
{
    return PMPI_Win_create(base, size, disp_unit, NULL == info ? MPI_INFO_NULL : info, comm, win);
}
