#!/bin/bash
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Info keys override the MCA variables per window: the tuned window reports
# 1 slot and shm off, the default one in the same run the defaults.
# usage: info_keys.sh BINDIR NP
bindir=$1 np=$2
out=$(mpirun -np "$np" --oversubscribe --bind-to none --mca osc newrma --mca osc_newrma_verbose 10 \
      "$bindir/mpi/info_keys" < /dev/null 2>&1)
rc=$?
echo "$out"
[ $rc = 0 ] || exit 1
echo "$out" | grep -q "created: flavor 2, .* bytes, at most 1 slots, shm off" || { echo "info keys not applied"; exit 1; }
echo "$out" | grep -q "created: flavor 2, .* bytes, at most $np slots, shm direct" || { echo "default window changed"; exit 1; }
