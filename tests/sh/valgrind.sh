#!/bin/bash
# A 2-rank run on the UCX path under valgrind (by default FENCE PUT/GET):
# no invalid access and no leak whose stack passes through osc/newrma.
# Open MPI 4.1 dlcloses components at MPI_Finalize, before valgrind reports
# leaks: --keep-debuginfo names our frames anyway.
# usage: valgrind.sh BINDIR FLAVOR [PROGRAM ARGS...]
bindir=$1 flavor=$2
shift 2
[ $# -gt 0 ] || set -- putget_fence "$flavor" 4104
prog=$1; shift
command -v valgrind >/dev/null || { echo "valgrind is not installed"; exit 1; }
dir=$(mktemp -d)
mpirun -np 2 --oversubscribe --bind-to none \
    --mca osc newrma --mca osc_newrma_shm 0 \
    valgrind -q --keep-debuginfo=yes --leak-check=full --show-leak-kinds=definite,indirect --num-callers=40 \
    --log-file="$dir/vg.%p" "$bindir/mpi/$prog" "$@" < /dev/null || exit 1
bad=0
for f in "$dir"/vg.*; do
    # split the log into records (blank-line separated) and keep those in our code
    if awk 'BEGIN{RS=""} /osc_newrma/ && /(Invalid|uninitialised|definitely lost|indirectly lost)/' "$f" | grep .; then
        bad=1
    fi
done
rm -rf "$dir"
[ $bad = 0 ] || { echo "valgrind found problems in osc/newrma"; exit 1; }
