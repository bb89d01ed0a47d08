/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma out-of-tree build: ompi/op/op.h includes this header, but
 * Debian's libopenmpi-dev does not ship it.  configure adds this directory
 * to the include path only when the installed headers lack the file; inside
 * an Open MPI source tree the real one is used.
 *
 * op.h needs only the int <-> MPI_Fint conversions, which are plain casts
 * when a Fortran INTEGER is a C int.
 */
#ifndef OMPI_FORTRAN_BASE_FINT_2_INT_H
#define OMPI_FORTRAN_BASE_FINT_2_INT_H

#include "ompi_config.h"

#if OMPI_SIZEOF_FORTRAN_INTEGER != SIZEOF_INT
#error "osc/newrma compat: Fortran INTEGER is not a C int; build inside the Open MPI tree"
#endif

#define OMPI_INT_2_FINT(a) ((MPI_Fint) (a))
#define OMPI_FINT_2_INT(a) ((int) (a))

#endif /* OMPI_FORTRAN_BASE_FINT_2_INT_H */
