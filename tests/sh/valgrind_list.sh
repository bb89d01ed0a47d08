#!/bin/bash
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Test-list entries under valgrind memcheck: every MPI program the list runs
# (and the osc/newrma half of each randomized comparison) runs under
# valgrind, time limits scaled by NEWRMA_TEST_TIME_SCALE (default 20); a
# report whose stack passes through osc/newrma fails the run, as in
# valgrind.sh.
# usage: valgrind_list.sh BINDIR DSODIR [run.sh arguments, e.g. --filter REGEX]
#        (no arguments after DSODIR: the whole list)
set -u
bindir=$1 dsodir=$2; shift 2
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/sh/valgrind_lib.sh"
vglogs=$(mktemp -d)
trap 'rm -rf "$vglogs"' EXIT
export NEWRMA_TEST_WRAP="$(valgrind_cmd "$vglogs")"
export NEWRMA_TEST_TIME_SCALE=${NEWRMA_TEST_TIME_SCALE:-20}
bash "$here/run.sh" --bindir "$bindir" --dsodir "$dsodir" "$@"
rc=$?
valgrind_ours "$vglogs" || rc=1
[ $rc = 0 ] && echo " No Errors"
exit $rc
