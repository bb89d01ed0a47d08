# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Sourced by valgrind.sh and valgrind_list.sh: how a program runs under
# valgrind, and which of its reports are ours.
# Open MPI 4.1 dlcloses components at MPI_Finalize, before valgrind reports
# leaks: --keep-debuginfo names our frames anyway.

command -v valgrind >/dev/null || { echo "valgrind is not installed"; exit 1; }

# valgrind_cmd LOGDIR: the command line; one log per process in LOGDIR
valgrind_cmd() {
    echo "valgrind -q --keep-debuginfo=yes --leak-check=full --show-leak-kinds=definite,indirect" \
         "--num-callers=40 --suppressions=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/valgrind.supp" \
         "--log-file=$1/vg.%p"
}

# valgrind_ours LOGDIR: print every record whose stack passes through
# osc/newrma (an invalid access, an uninitialised value, a leak); Open MPI's
# and UCX's own are left out.  Fails if there was one.
valgrind_ours() {
    local f bad=0
    for f in "$1"/vg.*; do
        [ -e "$f" ] || continue
        # records are blank-line separated
        if awk 'BEGIN{RS=""} /osc_newrma/ && /(Invalid|uninitialised|definitely lost|indirectly lost)/' "$f" | grep .; then
            bad=1
        fi
    done
    [ $bad = 0 ] || { echo "valgrind found problems in osc/newrma"; return 1; }
}
