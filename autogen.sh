#!/bin/sh
# Regenerate the out-of-tree build system (configure, Makefile.in).
set -e
cd "$(dirname "$0")"
mkdir -p config
autoreconf -fi
