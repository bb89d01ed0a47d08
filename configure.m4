# -*- shell-script -*-
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
#
# Open MPI in-tree configuration for osc/newrma: the component builds when
# UCX is found (Open MPI's own UCX check, shared with pml/ucx and osc/ucx).
#
# MCA_ompi_osc_newrma_CONFIG([action-if-can-compile], [action-if-cant-compile])
AC_DEFUN([MCA_ompi_osc_newrma_CONFIG],[
    AC_CONFIG_FILES([ompi/mca/osc/newrma/Makefile])

    OMPI_CHECK_UCX([osc_newrma],
                   [osc_newrma_happy="yes"],
                   [osc_newrma_happy="no"])

    AS_IF([test "$osc_newrma_happy" = "yes"],
          [$1],
          [$2])

    # The same Makefile.am serves the out-of-tree build; these variables
    # point it at the in-tree libmpi and switch off the out-of-tree test hook.
    OSC_NEWRMA_MPI_LIBADD='$(top_builddir)/ompi/lib$(OMPI_LIBMPI_NAME).la'
    OSC_NEWRMA_OUT_OF_TREE=no
    # the out-of-tree build's warnings; OSC_NEWRMA_WERROR=no at configure
    # time drops -Werror (another compiler, other warnings)
    OSC_NEWRMA_WARN_CFLAGS="-Wall -Wextra"
    AS_IF([test "$OSC_NEWRMA_WERROR" != "no"],
          [OSC_NEWRMA_WARN_CFLAGS="$OSC_NEWRMA_WARN_CFLAGS -Werror"])
    AC_SUBST([OSC_NEWRMA_MPI_LIBADD])
    AC_SUBST([OSC_NEWRMA_OUT_OF_TREE])
    AC_SUBST([OSC_NEWRMA_WARN_CFLAGS])
    AC_SUBST([osc_newrma_CPPFLAGS])
    AC_SUBST([osc_newrma_LDFLAGS])
    AC_SUBST([osc_newrma_LIBS])
])dnl
