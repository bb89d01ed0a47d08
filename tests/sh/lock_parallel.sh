#!/bin/bash
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Lock requests to several targets travel at once: rank 0 of the
# benchmark's multi:put:lock row (4 ranks, UCX path) locks ranks 1-3,
# PUTs to each, flushes all and unlocks each, once.  Rank 0's packet trace,
# in the order it sent them, must begin LOCK 1, LOCK 2, LOCK 3 before any
# PUT (a PUT or PUTS packet); with osc_newrma_lock_parallel 0 the LOCK to rank 3 waits for the
# grant of rank 2's lock, so a PUT comes before it (each PUT a packet, even
# alone at its target: osc_newrma_lone_rdma 0).  The benchmark checks
# the data (and reports "wrong" under its test hook --break-verify).
# usage: lock_parallel.sh BINDIR
bindir=$1 errors=0
trace() {
    mpirun -np 4 --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 --mca osc newrma \
        --mca osc_newrma_shm 0 --mca osc_newrma_lone_rdma 0 --mca osc_newrma_verbose 40 \
        --mca osc_newrma_lock_parallel "$1" \
        "$bindir/bench/osc_newrma_bench" --iters 1 --reps 1 multi:put:lock:allocate:8 \
        < /dev/null 2>&1
}
for parallel in 1 0; do
    out=$(trace $parallel)
    rc=$?
    echo "$out" | grep -E "RESULT|rank 0 window"
    if [ $rc != 0 ] || ! echo "$out" | grep -qE "^RESULT multi:put:lock:allocate:8 [0-9.]+(e[+-]?[0-9]+)? us"; then
        echo "lock_parallel=$parallel: the row did not run or its data was wrong"
        errors=$((errors + 1))
        continue
    fi
    seq=$(echo "$out" | grep "rank 0 window" | grep -oE "packet LOCK to rank [0-9]|PUTS? for rank [0-9]" |
          sed 's/packet //; s/PUTS/PUT/; s/ to rank / /; s/ for rank / /' | head -4 | tr '\n' ' ')
    echo "lock_parallel=$parallel: rank 0 sent first: $seq"
    if [ $parallel = 1 ] && [ "$seq" != "LOCK 1 LOCK 2 LOCK 3 PUT 1 " ]; then
        echo "expected the three LOCK requests before any PUT"
        errors=$((errors + 1))
    elif [ $parallel = 0 ] && [ "${seq%% PUT*}" = "LOCK 1 LOCK 2 LOCK 3" ]; then
        echo "expected one queued request at a time"
        errors=$((errors + 1))
    fi
done
out=$(mpirun -np 4 --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 --mca osc newrma \
      --mca osc_newrma_shm 0 "$bindir/bench/osc_newrma_bench" --iters 1 --reps 1 --break-verify \
      multi:put:lock:allocate:8 < /dev/null 2>&1)
echo "$out" | grep -qx "RESULT multi:put:lock:allocate:8 wrong -" ||
    { echo "--break-verify: the row was not reported wrong"; errors=$((errors + 1)); }
[ $errors = 0 ] && echo " No Errors"
exit $errors
