#!/bin/bash
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# UCX 1.13 crashed in uct_tcp_iface_progress (segfault at address -8) in 1
# of 3 to 4 runs of PSCW epochs at 4 ranks with UCX atomics over TCP on
# the machine's default interfaces (lo and eth0): its endpoints spread over
# both devices as two rendezvous rails.  newrma now asks for one rail where
# TCP devices are the only network: eight runs in a row must pass (with
# two rails 6 of 15 runs crashed: eight in a row pass about 1 time in 60),
# and the choice must follow the devices and leave a user's
# UCX_MAX_RNDV_RAILS alone.
# usage: tcp_rails.sh BINDIR
bindir=$1
common=(--oversubscribe --bind-to none --mca mpi_yield_when_idle 1 --mca osc newrma
        --mca osc_newrma_shm 0 -x UCX_TLS=tcp,self)

rails_line() { # the context line osc_newrma_verbose 10 prints, for extra mpirun args
    mpirun -np 2 "${common[@]}" --mca osc_newrma_verbose 10 "$@" "$bindir/mpi/pscw" create \
        < /dev/null 2>&1 | grep -m1 "UCX context:"
}

for i in 1 2 3 4 5 6 7 8; do
    out=$(timeout 120 mpirun -np 4 "${common[@]}" --mca osc_newrma_acc_atomics 1 \
          "$bindir/mpi/pscw" create < /dev/null 2>&1)
    rc=$?
    if [ $rc != 0 ] || ! echo "$out" | grep -q "No Errors"; then
        echo "$out" | tail -30
        echo "run $i of 8 failed (exit $rc)"
        exit 1
    fi
done
echo "8 runs of pscw at 4 ranks with atomics over TCP passed"

line=$(rails_line)
echo "default interfaces: $line"
echo "$line" | grep -q "one rendezvous rail set" || { echo "expected one rail"; exit 1; }
line=$(rails_line -x UCX_MAX_RNDV_RAILS=2)
echo "UCX_MAX_RNDV_RAILS=2: $line"
echo "$line" | grep -q "one rendezvous rail left alone" || { echo "the user's choice was overridden"; exit 1; }
line=$(rails_line -x UCX_NET_DEVICES=lo)
echo "one TCP device: $line"
echo "$line" | grep -q "one rendezvous rail left alone" || { echo "one device needs no rail limit"; exit 1; }
echo " No Errors"
