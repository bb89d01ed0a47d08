#!/bin/bash
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Install what is missing (Debian bookworm packages) and build osc/newrma.
# Run by scripts/test.sh and scripts/bench.sh; usable on its own.
set -e
cd "$(dirname "${BASH_SOURCE[0]}")/.."
pkgs="openmpi-bin libopenmpi-dev libucx-dev ucx-utils libhwloc-dev autoconf automake libtool pkg-config make gcc valgrind gnuplot-nox python3 libglobalarrays-dev libarmci-mpi-dev libscalapack-openmpi-dev libblas-dev liblapack-dev gfortran netpipe-openmpi"
missing=""
for p in $pkgs; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "== installing:$missing"
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
echo "== building osc/newrma"
[ -x configure ] || ./autogen.sh >/dev/null
[ -f Makefile ] || ./configure -q
make -s -j2 >/dev/null
echo "== built .libs/mca_osc_newrma.so"
