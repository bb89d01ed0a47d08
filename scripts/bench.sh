#!/bin/bash
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# The main job: install what is missing, build osc/newrma and the benchmark
# program, and compare osc/newrma with osc/rdma, osc/ucx and osc/pt2pt
# (bench/run.py), on the benchmark program's rows and on application rows
# (NWChem, Global Arrays kernels, halo exchange) and on NetPIPE's PUT and
# GET ping-pongs (an independent harness).  Arguments go to
# bench/run.py; without any, the quick comparison in both modes (node-local,
# then network over TCP).
set -e
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# NWChem for the application rows (Debian's build: Global Arrays on ARMCI-MPI)
if ! command -v nwchem.openmpi >/dev/null; then
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nwchem-openmpi >/dev/null
fi
make -s -C tests BUILDDIR="$PWD" MPICC=mpicc "$PWD/tests-out/bench/osc_newrma_bench" \
    "$PWD/tests-out/bench/osc_newrma_apps" "$PWD/tests-out/bench/netpipe_info.so" >/dev/null
[ $# -gt 0 ] || set -- --quick --mode both
exec python3 bench/run.py "$@"
