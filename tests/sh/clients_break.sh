#!/bin/bash
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# The client programs can fail: with NEWRMA_CLIENT_BREAK=1 every value they
# check against is off by one, so each must report errors and exit non-zero.
# usage: clients_break.sh BINDIR
bindir=$1 bad=0
for prog in ga_patches ga_tasks armci_ops; do
    out=$(NEWRMA_CLIENT_BREAK=1 mpirun -np 2 --oversubscribe --bind-to none --mca osc newrma \
          -x NEWRMA_CLIENT_BREAK "$bindir/clients/$prog" < /dev/null 2>&1)
    rc=$?
    if [ $rc = 0 ] || echo "$out" | grep -q "^ No Errors"; then
        echo "$prog passed with NEWRMA_CLIENT_BREAK=1 (exit $rc)"; bad=1
    else
        echo "$prog failed with NEWRMA_CLIENT_BREAK=1, as it must: $(echo "$out" | grep -m1 '^\[rank')"
    fi
done
[ $bad = 0 ] && echo " No Errors"
exit $bad
