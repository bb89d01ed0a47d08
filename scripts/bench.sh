#!/bin/bash
# The main job: install what is missing, build osc/newrma and the benchmark
# program, and compare osc/newrma with osc/rdma, osc/ucx and osc/pt2pt
# (bench/run.py).  Arguments go to bench/run.py; without any, the quick
# comparison in both modes (node-local, then network over TCP).
set -e
cd "$(dirname "$0")/.."
bash scripts/setup.sh
make -s -C tests BUILDDIR="$PWD" MPICC=mpicc "$PWD/tests-out/bench/osc_newrma_bench" >/dev/null
[ $# -gt 0 ] || set -- --quick --mode both
exec python3 bench/run.py "$@"
