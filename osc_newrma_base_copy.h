/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: the copy of contiguous data between user and window memory.
 *
 * glibc's memcpy moves 2112 bytes and more (x86_rep_movsb_threshold) with
 * `rep movsb`, which on AMD Zen runs at a tenth of its speed or less when
 * the destination is 1 to 31 bytes ahead of the source modulo 4 KiB: 1.7
 * against 24-34 GB/s for 8 KiB blocks here.  A page-aligned window and a
 * buffer of glibc's heap (16 bytes into its page) are exactly that far
 * apart, so a GET from an MPI_Win_allocate window into a malloc'd buffer
 * hit it on every call (a stream of 32 KiB GETs moved 1.7 GB/s where PUTs
 * moved 20).  Such copies take a loop of 64-byte moves instead (23-26
 * GB/s at that distance); every other copy stays memcpy's.
 */
#ifndef OMPI_OSC_NEWRMA_BASE_COPY_H
#define OMPI_OSC_NEWRMA_BASE_COPY_H

#include "ompi_config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/** Below this, memcpy does not use `rep movsb` (glibc's threshold, rounded down). */
#define OMPI_OSC_NEWRMA_COPY_ALIAS_MIN 2048
/** Destinations this many bytes or fewer ahead of the source, modulo 4 KiB,
 * take the loop (31 measured; a cache line to be safe). */
#define OMPI_OSC_NEWRMA_COPY_ALIAS_SPAN 64

/** The loop of 64-byte moves, out of line. */
void ompi_osc_newrma_copy_blocks(void *dst, const void *src, size_t len);

/** memcpy(@p dst, @p src, @p len), past glibc's slow case above. */
static inline void ompi_osc_newrma_copy(void *dst, const void *src, size_t len)
{
    size_t ahead = ((uintptr_t) dst - (uintptr_t) src) & 4095;

    if (len >= OMPI_OSC_NEWRMA_COPY_ALIAS_MIN && ahead - 1 < OMPI_OSC_NEWRMA_COPY_ALIAS_SPAN) {
        ompi_osc_newrma_copy_blocks(dst, src, len);
        return;
    }
    memcpy(dst, src, len);
}

#endif /* OMPI_OSC_NEWRMA_BASE_COPY_H */
