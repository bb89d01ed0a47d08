#!/bin/bash
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Install, build and run the whole osc/newrma test suite (make check).
# The last line printed is the summary "N passed, N failed".
cd "$(dirname "$0")/.." || exit 1
bash scripts/setup.sh || { echo "0 passed, 1 failed"; exit 1; }
log=$(mktemp)
make -s check 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
rm -f "$log"
[ -n "$summary" ] || { summary="0 passed, 1 failed"; rc=1; }
echo "$summary"
exit $rc
