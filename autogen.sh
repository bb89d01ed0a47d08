#!/bin/sh
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Regenerate the out-of-tree build system (configure, Makefile.in).
set -e
cd "$(dirname "$0")"
mkdir -p config
autoreconf -fi
