#!/bin/bash
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# The single-op optimization sends one message per epoch: a lock epoch with
# one short PUT, and one with one short GET, from rank 0 to rank 1 over the
# UCX path.  With packet tracing on, rank 0 must have sent exactly one
# window query (REGION_QUERY: the first access to a peer asks it for its
# window, once per window) and two packets (SINGLE, SINGLE), and rank 1
# exactly the query's answer and two SINGLE_ACKs.
# With "acc": FETCH_AND_OP, CAS, PUT, ACCUMULATE, FETCH_AND_OP(double) epochs,
# five SINGLE packets and five answers, after the one query.
# usage: single_op.sh BINDIR FLAVOR [acc]
bindir=$1 flavor=$2 mode=$3
expect0="REGION_QUERY SINGLE SINGLE " expect1="REGION_REPLY SINGLE_ACK SINGLE_ACK "
if [ "$mode" = acc ]; then
    expect0="REGION_QUERY SINGLE SINGLE SINGLE SINGLE SINGLE "
    expect1="REGION_REPLY SINGLE_ACK SINGLE_ACK SINGLE_ACK SINGLE_ACK SINGLE_ACK "
fi
out=$(mpirun -np 2 --oversubscribe --bind-to none --mca osc newrma --mca osc_newrma_shm 0 \
      --mca osc_newrma_verbose 40 "$bindir/mpi/lock_single" "$flavor" $mode < /dev/null 2>&1)
rc=$?
echo "$out"
[ $rc = 0 ] || exit 1
from0=$(echo "$out" | grep -o "rank 0 window [0-9]*: packet [A-Z_]* to rank 1" | awk '{print $6}' | tr '\n' ' ')
from1=$(echo "$out" | grep -o "rank 1 window [0-9]*: packet [A-Z_]* to rank 0" | awk '{print $6}' | tr '\n' ' ')
echo "rank 0 sent: $from0"
echo "rank 1 sent: $from1"
[ "$from0" = "$expect0" ] || { echo "expected exactly: $expect0"; exit 1; }
[ "$from1" = "$expect1" ] || { echo "expected exactly: $expect1"; exit 1; }
