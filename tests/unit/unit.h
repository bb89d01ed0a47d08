/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/* Minimal assertion helpers for the unit tests (no MPI, no mpirun). */
#ifndef OSC_NEWRMA_UNIT_H
#define OSC_NEWRMA_UNIT_H

#include <stdio.h>

static int unit_failures = 0;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            unit_failures++;                                                                       \
        }                                                                                          \
    } while (0)

static inline int unit_finish(const char *name)
{
    if (0 == unit_failures) {
        printf(" No Errors\n");
        return 0;
    }
    printf("%s: %d check(s) failed\n", name, unit_failures);
    return 1;
}

#endif
