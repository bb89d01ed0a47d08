/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: the copy loop (see osc_newrma_base_copy.h).
 */
#include "ompi_config.h"

#include "osc_newrma_base_copy.h"

/* gcc would turn the loop back into a call to memcpy, the very call it
 * stands in for */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-loop-distribute-patterns")))
#endif
void ompi_osc_newrma_copy_blocks(void *dst, const void *src, size_t len)
{
    char *d = dst;
    const char *s = src;
    size_t i = 0;

    for (; i + 64 <= len; i += 64) {
        __builtin_memcpy(d + i, s + i, 64); /* moves the compiler emits in place */
    }
    if (i < len) {
        memcpy(d + i, s + i, len - i); /* under 64 bytes: no `rep movsb` */
    }
}
