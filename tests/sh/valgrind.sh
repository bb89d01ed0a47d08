#!/bin/bash
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# A 2-rank run on the UCX path under valgrind (by default FENCE PUT/GET):
# no invalid access and no leak whose stack passes through osc/newrma.
# usage: valgrind.sh BINDIR FLAVOR [PROGRAM ARGS...]
bindir=$1 flavor=$2
shift 2
[ $# -gt 0 ] || set -- putget_fence "$flavor" 4104
prog=$1; shift
. "$(dirname "$0")/valgrind_lib.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mpirun -np 2 --oversubscribe --bind-to none \
    --mca osc newrma --mca osc_newrma_shm 0 \
    $(valgrind_cmd "$dir") "$bindir/mpi/$prog" "$@" < /dev/null || exit 1
valgrind_ours "$dir"
