#!/bin/bash
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# The UCX settings newrma makes on its own context follow the resources and
# leave the user's alone: where TCP is the only network the rendezvous
# scheme is put_zcopy (without TCP it is left alone) unless
# UCX_RNDV_SCHEME or OSC_NEWRMA_UCX_RNDV_SCHEME (the name UCX reads for a
# context with the prefix OSC_NEWRMA) is set, and the latter form is
# honoured for the rail limit too.  Large PUTs and GETs by rendezvous move
# the right data under either scheme.
# usage: ucx_settings.sh BINDIR
bindir=$1
common=(--oversubscribe --bind-to none --mca osc newrma --mca osc_newrma_shm 0)

context_line() { # the line osc_newrma_verbose 10 prints, for extra mpirun args
    mpirun -np 2 "${common[@]}" --mca osc_newrma_verbose 10 "$@" "$bindir/mpi/pscw" create \
        < /dev/null 2>&1 | grep -m1 "UCX context:"
}

expect() { # description pattern line
    echo "$1: $3"
    echo "$3" | grep -q "$2" || { echo "expected '$2'"; exit 1; }
}

expect "TCP" "rendezvous scheme put_zcopy" "$(context_line -x UCX_TLS=tcp,self)"
expect "no TCP (UCX_TLS=sm,self)" "rendezvous scheme left alone" \
    "$(context_line -x UCX_TLS=sm,self)"
expect "UCX_RNDV_SCHEME=get_zcopy" "rendezvous scheme left alone" \
    "$(context_line -x UCX_TLS=tcp,self -x UCX_RNDV_SCHEME=get_zcopy)"
expect "OSC_NEWRMA_UCX_RNDV_SCHEME=get_zcopy" "rendezvous scheme left alone" \
    "$(context_line -x UCX_TLS=tcp,self -x OSC_NEWRMA_UCX_RNDV_SCHEME=get_zcopy)"
expect "OSC_NEWRMA_UCX_MAX_RNDV_RAILS=2" "one rendezvous rail left alone" \
    "$(context_line -x UCX_TLS=tcp,self -x OSC_NEWRMA_UCX_MAX_RNDV_RAILS=2)"
# the prefixed name reaches UCX (a bad value fails the creation there)
out=$(mpirun -np 2 "${common[@]}" -x UCX_TLS=tcp,self -x OSC_NEWRMA_UCX_RNDV_SCHEME=bogus \
      "$bindir/mpi/pscw" create < /dev/null 2>&1)
echo "$out" | grep -q "Invalid value for RNDV_SCHEME" ||
    { echo "$out" | tail -5; echo "OSC_NEWRMA_UCX_RNDV_SCHEME did not reach UCX"; exit 1; }

# every contiguous PUT and GET of 2 bytes or more by rendezvous, 8 B to 512 KiB
for scheme in "" get_zcopy; do
    env=(); [ -n "$scheme" ] && env=(-x OSC_NEWRMA_UCX_RNDV_SCHEME=$scheme)
    out=$(timeout 240 mpirun -np 2 "${common[@]}" -x UCX_TLS=tcp,self "${env[@]}" \
          --mca osc_newrma_bulk_packets 1 --mca osc_newrma_aggregate_threshold 1 \
          --mca osc_newrma_rndv_threshold 2 --mca osc_newrma_rndv_puts 1 \
          "$bindir/mpi/putget_fence" allocate 524288 \
          < /dev/null 2>&1)
    rc=$?
    if [ $rc != 0 ] || ! echo "$out" | grep -q "No Errors"; then
        echo "$out" | tail -20
        echo "putget_fence by rendezvous, scheme ${scheme:-put_zcopy}: failed (exit $rc)"
        exit 1
    fi
    echo "putget_fence by rendezvous over TCP, scheme ${scheme:-put_zcopy}: passed"
done
echo " No Errors"
