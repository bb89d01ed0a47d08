#!/bin/bash
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# A 2-rank run on the UCX path under valgrind (by default FENCE PUT/GET):
# no invalid access and no leak whose stack passes through osc/newrma.
# --tls LIST: UCX's transports (UCX_TLS); over TCP every message passes
# through a system call, where valgrind sees an uninitialised byte the
# component sends (UCX's shared memory it cannot see: a store, not a call).
# usage: valgrind.sh BINDIR FLAVOR [--tls LIST] [PROGRAM ARGS...]
bindir=$1 flavor=$2
shift 2
tls=()
if [ "${1:-}" = --tls ]; then
    tls=(-x "UCX_TLS=$2")
    shift 2
fi
[ $# -gt 0 ] || set -- putget_fence "$flavor" 4104
prog=$1; shift
. "$(dirname "$0")/valgrind_lib.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mpirun -np 2 --oversubscribe --bind-to none \
    --mca osc newrma --mca osc_newrma_shm 0 "${tls[@]}" \
    $(valgrind_cmd "$dir") "$bindir/mpi/$prog" "$@" < /dev/null || exit 1
valgrind_ours "$dir"
