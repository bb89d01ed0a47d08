#!/bin/bash
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# An outside program's own data check: Debian's NetPIPE (netpipe-openmpi,
# NPopenmpi2 -i) under osc/newrma at 2 ranks.  Each rank in turn PUTs a
# buffer of consecutive ints into the other's MPI_Win_create window and
# closes the epoch with MPI_Win_fence; the receiver checks every int after
# its fence and NetPIPE prints "Integrity check failed" on the first wrong
# one (and exits non-zero).  Ten round trips per size, 44 sizes from 1 byte
# to UPPER (default 4 MiB) at 1, 1.5, 2, 3, 4, 6, ... bytes, so the
# component's size thresholds (records, packets, rendezvous, copies) are all
# crossed.  A put that drops every buffer over 1000 bytes fails here at
# 1024 bytes on every path (checked by hand, 2026-12-02).  The
# extra mpirun arguments pick the path (--mca osc_newrma_shm 0,
# -x UCX_TLS=tcp,self).
# bench/netpipe_info.c is preloaded: NetPIPE passes NULL as MPI_Win_create's
# info, which Open MPI rejects.
# usage: netpipe.sh BINDIR [--upper BYTES] [MPIRUN ARGS...]
bindir=$1
shift
upper=4194304
[ "$1" = --upper ] && { upper=$2; shift 2; }
command -v NPopenmpi2 >/dev/null || { echo "NPopenmpi2 not found: apt-get install netpipe-openmpi"; exit 1; }
shim="$bindir/bench/netpipe_info.so"
[ -e "$shim" ] || { echo "$shim not built"; exit 1; }
# the ranks start in a scratch directory: ld.so needs the full path
shim=$(realpath "$shim")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
mpirun -np 2 --oversubscribe --bind-to none --mca osc newrma -x LD_PRELOAD="$shim" "$@" \
    NPopenmpi2 -i -n 10 -l 1 -u "$upper" -o np.out < /dev/null > out 2> err
rc=$?
cat out err
[ $rc = 0 ] || { echo "NetPIPE exited with $rc"; exit 1; }
! grep -q "Integrity check failed" err || { echo "NetPIPE found wrong data"; exit 1; }
# the last size measured: NetPIPE stops early only if it failed or was cut short
last=$(awk 'END { print $1 }' np.out)
[ -n "$last" ] && [ "$last" -ge "$upper" ] || {
    echo "NetPIPE stopped at ${last:-no} bytes, before $upper"; exit 1
}
echo "NetPIPE checked $(wc -l < np.out) sizes up to $last bytes"
echo " No Errors"
