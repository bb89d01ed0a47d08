/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: the copy loop (see osc_newrma_base_copy.h).
 */
#include "ompi_config.h"

#include <stdlib.h>

#include "osc_newrma_base_copy.h"
#include "osc_newrma_base_pick.h"

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

void ompi_osc_newrma_copy_pieces(void *dst, const void *src, size_t len)
{
    char *d = dst;
    const char *s = src;

    for (; len > OMPI_OSC_NEWRMA_COPY_PIECE; len -= OMPI_OSC_NEWRMA_COPY_PIECE) {
        memcpy(d, s, OMPI_OSC_NEWRMA_COPY_PIECE);
        d += OMPI_OSC_NEWRMA_COPY_PIECE;
        s += OMPI_OSC_NEWRMA_COPY_PIECE;
    }
    memcpy(d, s, len);
}

size_t ompi_osc_newrma_copy_alias_span = OMPI_OSC_NEWRMA_COPY_ALIAS_SPAN;

#define PROBE_LEN    8192
#define PROBE_AHEAD  16 /* glibc's malloc'd buffers against a page-aligned one */
#define PROBE_ROUNDS 8

/* The time of one copy of PROBE_LEN bytes by memcpy (@p loop false) or the
 * loop. */
static uint64_t probe_one(char *dst, const char *src, bool loop)
{
    uint64_t t0 = ompi_osc_newrma_pick_now_ns();

    if (loop) {
        ompi_osc_newrma_copy_blocks(dst, src, PROBE_LEN);
    } else {
        memcpy(dst, src, PROBE_LEN);
    }
    __asm__ __volatile__("" ::: "memory"); /* the copy is done before the clock is read */
    return ompi_osc_newrma_pick_now_ns() - t0;
}

bool ompi_osc_newrma_copy_probe(void)
{
    uint64_t best[2] = {UINT64_MAX, UINT64_MAX};
    char *src = NULL, *dst = NULL;

    if (0 != posix_memalign((void **) &src, 4096, PROBE_LEN) ||
        0 != posix_memalign((void **) &dst, 4096, PROBE_LEN + 4096)) {
        free(src);
        return false;
    }
    memset(src, 1, PROBE_LEN);
    memset(dst, 2, PROBE_LEN + 4096);
    /* alternating, so that a preemption or a frequency change hits both */
    for (int round = 0; round < PROBE_ROUNDS; ++round) {
        for (int loop = 0; loop < 2; ++loop) {
            uint64_t t = probe_one(dst + PROBE_AHEAD, src, loop);

            best[loop] = t < best[loop] ? t : best[loop];
        }
    }
    free(src);
    free(dst);
    return best[0] > 2 * best[1];
}
