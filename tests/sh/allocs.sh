#!/bin/bash
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# No malloc on the fast path: alloc_count at 2 ranks on the UCX path (extra
# mpirun arguments, e.g. -x UCX_TLS=tcp,self, follow), under valgrind at
# two iteration counts; each rank's heap allocations per iteration (a PUT,
# an accumulate and a GET, each flushed) must stay under 0.25 (UCX's own
# buffers add a few).  Before the send buffers, operation descriptors and
# RMA_DONEs came from free lists, the origin made 3 and the target 6.
# usage: allocs.sh BINDIR [MPIRUN ARGS...]
bindir=$1
shift
command -v valgrind >/dev/null || { echo "valgrind is not installed"; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
lo=100 hi=500
for n in $lo $hi; do
    mpirun -np 2 --oversubscribe --bind-to none --mca osc newrma --mca osc_newrma_shm 0 "$@" \
        valgrind --log-file="$dir/vg.$n.%q{OMPI_COMM_WORLD_RANK}" \
        "$bindir/mpi/alloc_count" $n < /dev/null || exit 1
done
allocs() { sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' "$1" | tr -d ,; }
fail=0
for r in 0 1; do
    a=$(allocs "$dir/vg.$lo.$r") b=$(allocs "$dir/vg.$hi.$r")
    [ -n "$a" ] && [ -n "$b" ] || { echo "rank $r: no valgrind summary"; exit 1; }
    per=$(awk -v a="$a" -v b="$b" -v n=$((hi - lo)) 'BEGIN { printf "%.3f", (b - a) / n }')
    echo "rank $r: $a -> $b heap allocations, $per per iteration"
    awk -v p="$per" 'BEGIN { exit !(p < 0.25) }' || fail=1
done
[ $fail = 0 ] || { echo "allocations on the fast path"; exit 1; }
echo " No Errors"
