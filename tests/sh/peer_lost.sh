#!/bin/bash
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# A peer dies while others wait for it (mpi/peer_lost): their call must fail
# with MPI_ERR_OTHER, not wait for ever.  mpirun --enable-recovery keeps the
# survivors running when the victim exits without MPI_Finalize; they leave
# the same way (MPI_Finalize would wait for the dead), so mpirun's exit
# status says nothing: the verdict is rank 0's " No Errors" and no
# "Found"/error line, within this script's time limit.
# usage: peer_lost.sh BINDIR lock|pscw|wait|fetch FLAVOR NP shm|ucx|tcp|remote
bindir=$1 what=$2 flavor=$3 np=$4 path=$5
case "$path" in
    shm) args="" ;;
    ucx) args="--mca osc_newrma_shm 0" ;;
    tcp) args="--mca osc_newrma_shm 0 -x UCX_TLS=tcp,self" ;;
    # every rank a simulated node of its own: peers are "remote", watched
    # by UCX's peer error handling, not by process id
    remote) args="--mca osc_newrma_test_node_size 1 -x UCX_TLS=tcp,self" ;;
    *) echo "peer_lost.sh: unknown path $path" >&2; exit 2 ;;
esac
yield=""
[ "$np" -gt 2 ] && yield="--mca mpi_yield_when_idle 1"
out=$(timeout -k 5 100 mpirun -np "$np" --oversubscribe --bind-to none --enable-recovery $yield \
      --mca osc newrma $args "$bindir/mpi/peer_lost" "$flavor" "$what" < /dev/null 2>&1)
echo "$out"
if echo "$out" | grep -q "^\[rank [0-9]*\]\|Found [0-9]* errors"; then
    exit 1
fi
echo "$out" | grep -q "^ No Errors$" || { echo "peer_lost.sh: no verdict from rank 0"; exit 1; }
