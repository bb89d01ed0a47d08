#!/bin/bash
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# The file-level call graph of the built component (scripts/callgraph.py)
# is layered: no dependency from a lower layer to a higher one and no cycle
# among files.  The test fails when a change adds either.
# usage: callgraph.sh BINDIR (the build's tests-out; its objects are in
# BINDIR/../.libs, else in the source tree's .libs)
top=$(cd "$(dirname "$0")/../.." && pwd)
objdir=${1:?usage: callgraph.sh BINDIR}/../.libs
# a copied test tree (tests/run.sh --bindir elsewhere): the source tree's build
ls "$objdir"/osc_newrma_*.o >/dev/null 2>&1 || objdir=$top/.libs
python3 "$top/scripts/callgraph.py" --objdir "$objdir" --quiet
rc=$?
[ $rc = 0 ] && echo " No Errors"
exit $rc
