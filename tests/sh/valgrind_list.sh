#!/bin/bash
# Test-list entries under valgrind memcheck: every MPI program the list runs
# (and the osc/newrma half of each randomized comparison) runs under
# valgrind, time limits scaled by NEWRMA_TEST_TIME_SCALE (default 20); an
# invalid access, a use of an uninitialised value or a leak whose stack
# passes through osc/newrma fails the run, as in valgrind.sh.  Open MPI's
# and UCX's own reports are not ours and are left out the same way.
# usage: valgrind_list.sh BINDIR DSODIR [run.sh arguments, e.g. --filter REGEX]
#        (no arguments after DSODIR: the whole list)
set -u
bindir=$1 dsodir=$2; shift 2
here=$(cd "$(dirname "$0")/.." && pwd)
command -v valgrind >/dev/null || { echo "valgrind is not installed"; exit 1; }
vglogs=$(mktemp -d)
trap 'rm -rf "$vglogs"' EXIT
export NEWRMA_TEST_WRAP="valgrind -q --keep-debuginfo=yes --leak-check=full \
--show-leak-kinds=definite,indirect --num-callers=40 --log-file=$vglogs/vg.%p"
export NEWRMA_TEST_TIME_SCALE=${NEWRMA_TEST_TIME_SCALE:-20}
bash "$here/run.sh" --bindir "$bindir" --dsodir "$dsodir" "$@"
rc=$?
bad=0
for f in "$vglogs"/vg.*; do
    [ -e "$f" ] || continue
    # records are blank-line separated; keep those in our code
    if awk 'BEGIN{RS=""} /osc_newrma/ && /(Invalid|uninitialised|definitely lost|indirectly lost)/' "$f" | grep .; then
        bad=1
    fi
done
[ $bad = 0 ] || { echo "valgrind found problems in osc/newrma (records above)"; rc=1; }
[ $rc = 0 ] && echo " No Errors"
exit $rc
