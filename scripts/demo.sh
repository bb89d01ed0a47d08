#!/bin/bash
# Install, build, and run the main job: until the benchmark lands, a
# demonstration of osc/newrma FENCE PUT/GET on every window flavor, over
# node-local shared memory and over UCX, at 2 ranks.
set -e
cd "$(dirname "$0")/.."
bash scripts/setup.sh
make -s -C tests BUILDDIR="$PWD" MPICC=mpicc "$PWD/tests-out/mpi/putget_fence" >/dev/null
sysdir=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
export OMPI_MCA_mca_base_component_path="$PWD/.libs:$sysdir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for path in "shm 1" "ucx 0"; do
    set -- $path
    for flavor in create allocate shared dynamic; do
        start=$(date +%s.%N)
        result=$(mpirun -np 2 --oversubscribe --mca osc newrma --mca osc_newrma_shm "$2" \
                 tests-out/mpi/putget_fence "$flavor" < /dev/null 2>&1 | tail -n 1)
        printf "osc/newrma  %-4s path  %-9s FENCE PUT/GET, 8 B..4 MiB, 6 datatype kinds: %s (%.1f s)\n" \
               "$1" "$flavor" "$result" "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')"
    done
done
