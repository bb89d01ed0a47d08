#!/bin/bash
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Build osc/newrma with --enable-sanitizers (AddressSanitizer and
# UndefinedBehaviorSanitizer) and --enable-debug (the mutex order checked
# at run time) in a scratch copy of the source tree and run
# test-list entries with it: libasan is preloaded into every MPI process
# (the test programs and Open MPI are not instrumented, the component is),
# any ASan or UBSan report fails the run.  Leaks are valgrind's job
# (tests/sh/valgrind.sh), so LeakSanitizer is off; an allocation too large
# fails as it would without ASan (tests/mpi/create_fail.c asks for 1 PiB).
# usage: sanitizers.sh BINDIR [run.sh arguments, e.g. --filter REGEX]
#        (no arguments after BINDIR: every MPI entry at every rank count)
set -u
bindir=$(cd "$1" && pwd); shift
src=$(cd "$(dirname "$0")/../.." && pwd)
asan=$(gcc -print-file-name=libasan.so)
[ -e "$asan" ] || { echo "libasan is not installed (gcc's libasan8)"; exit 1; }
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
# the sources: git's list in a checkout, everything but tests and build
# products in a release tarball's tree (make distcheck)
if git -C "$src" rev-parse --git-dir > /dev/null 2>&1; then
    (cd "$src" && git ls-files -co --exclude-standard | grep -v '^tests/' | tar -cf - -T -)
else
    (cd "$src" && tar -cf - --exclude=./tests --exclude=./tests-out --exclude=./_build \
        --exclude=./.libs --exclude='*.o' --exclude='*.lo' .)
fi | tar -C "$build" -xf - || exit 1
(cd "$build" && ./autogen.sh && ./configure --enable-sanitizers --enable-debug && make -j2) \
    > "$build/build.log" 2>&1 || { tail -20 "$build/build.log"; echo "sanitizer build failed"; exit 1; }
export NEWRMA_TEST_MPIRUN_ARGS="-x LD_PRELOAD=$asan \
-x ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1 \
-x UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
# the programs in a bin directory of their own: its logs are this run's
mkdir -p "$build/bin" && cp -r "$bindir/mpi" "$build/bin/" || exit 1
# the Global Arrays / ARMCI-MPI clients, where they were built
if [ -d "$bindir/clients" ]; then
    cp -r "$bindir/clients" "$build/bin/" || exit 1
fi
# no arguments: every MPI entry of the list at each of its rank counts (the
# unit tests and shell checks, rank count 0, are not MPI programs here)
[ $# -gt 0 ] || set -- --np 2,3,4
# several runs to a job where they can (run.sh --batch), as make check does
bash "$src/tests/run.sh" --batch --bindir "$build/bin" --dsodir "$build/.libs" "$@"
rc=$?
# a report in a run that still printed " No Errors" fails too
if grep -A12 "ERROR: AddressSanitizer\|runtime error:" "$build/bin/logs"/* 2>/dev/null; then
    echo "sanitizer reports above"; rc=1
fi
[ $rc = 0 ] && echo " No Errors"
exit $rc
