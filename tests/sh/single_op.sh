#!/bin/bash
# The single-op optimization sends one message per epoch: a lock epoch with
# one short PUT, and one with one short GET, from rank 0 to rank 1 over the
# UCX path.  With packet tracing on, rank 0 must have sent exactly two
# packets (SINGLE, SINGLE) and rank 1 exactly two answers (SINGLE_ACK).
# usage: single_op.sh BINDIR FLAVOR
bindir=$1 flavor=$2
out=$(mpirun -np 2 --oversubscribe --bind-to none --mca osc newrma --mca osc_newrma_shm 0 \
      --mca osc_newrma_verbose 40 "$bindir/mpi/lock_single" "$flavor" < /dev/null 2>&1)
rc=$?
echo "$out"
[ $rc = 0 ] || exit 1
from0=$(echo "$out" | grep -o "rank 0 window [0-9]*: packet [A-Z_]* to rank 1" | awk '{print $6}' | tr '\n' ' ')
from1=$(echo "$out" | grep -o "rank 1 window [0-9]*: packet [A-Z_]* to rank 0" | awk '{print $6}' | tr '\n' ' ')
echo "rank 0 sent: $from0"
echo "rank 1 sent: $from1"
[ "$from0" = "SINGLE SINGLE " ] || { echo "expected exactly two SINGLE packets from rank 0"; exit 1; }
[ "$from1" = "SINGLE_ACK SINGLE_ACK " ] || { echo "expected exactly two SINGLE_ACK answers"; exit 1; }
