#!/bin/bash
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# same_size / same_disp_unit: what the window's info promised is neither
# exchanged at creation nor stored per peer (the verbose creation message
# says which tables exist); windows without the hints keep both.
# usage: info_hints.sh BINDIR NP FLAVOR
bindir=$1 np=$2 flavor=$3
out=$(mpirun -np "$np" --oversubscribe --bind-to none --mca osc newrma --mca osc_newrma_verbose 10 \
      "$bindir/mpi/info_hints" "$flavor" < /dev/null 2>&1)
rc=$?
echo "$out"
[ $rc = 0 ] || exit 1
for want in "peer sizes promised, disp units promised" "peer sizes exchanged, disp units promised" \
            "peer sizes exchanged, disp units exchanged"; do
    echo "$out" | grep -q "created: .*$want" || { echo "no window with $want"; exit 1; }
done
