#!/bin/bash
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# A 2-rank run on the UCX path under valgrind (by default FENCE PUT/GET):
# no invalid access and no leak whose stack passes through osc/newrma.
# --tls LIST: UCX's transports (UCX_TLS); over TCP every message passes
# through a system call, where valgrind sees an uninitialised byte the
# component sends (UCX's shared memory it cannot see: a store, not a call).
# Several programs, "PROGRAM ARGS... + PROGRAM ARGS...", run in one job
# under tests/batch/runner.c (valgrind's start-up is most of a short run's
# time), each program's status checked apart; one that sets MCA variables
# of its own runs alone after it.
# usage: valgrind.sh BINDIR FLAVOR [--tls LIST] [PROGRAM ARGS... [+ PROGRAM ARGS...]...]
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
. "$(dirname "$0")/../batch/split.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
vg_run() { # program [args...]: a job of its own
    mpirun -np 2 --oversubscribe --bind-to none \
        --mca osc newrma --mca osc_newrma_shm 0 "${tls[@]}" \
        $(valgrind_cmd "$dir") "$bindir/mpi/$1" "${@:2}" < /dev/null
}

vg_batch() { # the list's runs in one job
    local n k end noerr rc=0 runs=() run=() ends=() noerrs=()
    for a in "$prog" "$@" +; do
        if [ "$a" = + ]; then
            runs+=("${run[*]}"); echo "600 $bindir/mpi/batch/${run[0]}.so ${run[*]}" >> "$dir/list"; run=()
        else
            run+=("$a")
        fi
    done
    mpirun -np 2 --oversubscribe --bind-to none \
        --mca osc newrma --mca osc_newrma_shm 0 "${tls[@]}" \
        $(valgrind_cmd "$dir") "$bindir/mpi/batch/runner" "$dir/list" < /dev/null > "$dir/out" 2>&1
    cat "$dir/out"
    mkdir -p "$dir/runs" && batch_split "$dir/out" "$dir/runs"
    [ ! -e "$dir/runs/summary" ] || while read -r k end _ noerr; do
        ends[k]=$end; noerrs[k]=$noerr
    done < "$dir/runs/summary"
    n=${#runs[@]}
    for ((k = 0; k < n; k++)); do
        end=${ends[k]:-}
        case "$end" in
            own) echo "${runs[k]}: a job of its own"; vg_run ${runs[k]} || rc=1 ;;
            0) [ "${noerrs[k]}" = 1 ] || { echo "${runs[k]}: no \" No Errors\""; rc=1; } ;;
            -|"") echo "${runs[k]}: the job ended in or before it"; rc=1 ;;
            *) echo "${runs[k]}: failed ($end)"; rc=1 ;;
        esac
    done
    return $rc
}

if [[ " $* " == *" + "* ]]; then
    vg_batch "$@" || exit 1
else
    vg_run "$prog" "$@" || exit 1
fi
valgrind_ours "$dir"
