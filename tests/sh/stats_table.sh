#!/bin/bash
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# --mca osc_newrma_stats 1 prints, from rank 0 at MPI_Win_free, each
# window's counters summed over its ranks: each of the 2 ranks of
# mpit_stats puts 50 + 5 + 1 times in its first window: that table says 112.
# usage: stats_table.sh BINDIR
bindir=$1
out=$(mpirun -np 2 --oversubscribe --bind-to none --mca osc newrma --mca osc_newrma_stats 1 \
      --mca osc_newrma_shm 0 "$bindir/mpi/mpit_stats" < /dev/null 2>&1)
rc=$?
echo "$out"
[ $rc = 0 ] || exit 1
tables=$(echo "$out" | grep -c "osc/newrma: window [0-9]* statistics, summed over its 2 ranks")
puts=$(echo "$out" | sed -n 's/.*osc\/newrma:   ops_put  *\([0-9]*\)$/\1/p' | tr '\n' ' ')
echo "tables: $tables; ops_put per table: $puts"
[ "$tables" -ge 2 ] || { echo "expected a table per window"; exit 1; }
echo " $puts" | grep -q " 112 " || { echo "no table shows the 112 PUTs of the first window"; exit 1; }
