#!/bin/bash
# A 2-rank run on the UCX path under valgrind (by default FENCE PUT/GET):
# no invalid access and no leak whose stack passes through osc/newrma.
# Components are not dlclosed so valgrind can name our frames.
# usage: valgrind.sh BINDIR FLAVOR [PROGRAM ARGS...]
bindir=$1 flavor=$2
shift 2
[ $# -gt 0 ] || set -- putget_fence "$flavor" 4104
prog=$1; shift
command -v valgrind >/dev/null || { echo "valgrind is not installed"; exit 1; }
dir=$(mktemp -d)
mpirun -np 2 --oversubscribe --bind-to none --mca mca_base_component_disable_dlclose 1 \
    --mca osc newrma --mca osc_newrma_shm 0 \
    valgrind -q --leak-check=full --show-leak-kinds=definite,indirect --num-callers=40 \
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
