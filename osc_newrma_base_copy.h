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
 * GB/s at that distance); every other copy stays memcpy's.  Other CPUs
 * (AMD EPYC with FSRM here) run `rep movsb` at that distance as fast as
 * elsewhere, and the loop at half its speed (a 128 KiB GET from a shared
 * window 1.95 against 1.0 us): a probe at the component's start
 * (ompi_osc_newrma_copy_probe) times both and keeps the loop only where
 * memcpy is the slower one by far.
 *
 * Copies of OMPI_OSC_NEWRMA_COPY_PIECES_MIN bytes and more go to memcpy in
 * pieces of OMPI_OSC_NEWRMA_COPY_PIECE, as Open MPI's datatype engine
 * copies (opal_datatype_memcpy_block_size).  glibc takes its vector loop
 * from x86_rep_movsb_stop_threshold on (the L2 size on AMD, 1 MiB here):
 * 2 MiB in one call moved 36 GB/s, in pieces of 128 KiB by `rep movsb`
 * 39-47 GB/s (a window's worth of 16 MiB, past the caches) and 55 against
 * 61-67 (in cache).  Above OMPI_OSC_NEWRMA_COPY_PIECES_MAX glibc may pick
 * non-temporal stores, which pieces would forgo; such copies stay whole.
 */
#ifndef OMPI_OSC_NEWRMA_BASE_COPY_H
#define OMPI_OSC_NEWRMA_BASE_COPY_H

#include "ompi_config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/** Below this, memcpy does not use `rep movsb` (glibc's threshold, rounded down). */
#define OMPI_OSC_NEWRMA_COPY_ALIAS_MIN 2048
/** Destinations this many bytes or fewer ahead of the source, modulo 4 KiB,
 * take the loop (31 measured; a cache line to be safe). */
#define OMPI_OSC_NEWRMA_COPY_ALIAS_SPAN 64
/** Copies this long and longer, up to OMPI_OSC_NEWRMA_COPY_PIECES_MAX, go
 * in pieces (see above). */
#define OMPI_OSC_NEWRMA_COPY_PIECES_MIN (512u << 10)
#define OMPI_OSC_NEWRMA_COPY_PIECES_MAX (64u << 20)
#define OMPI_OSC_NEWRMA_COPY_PIECE      (128u << 10)

/** Destinations 1 to this many bytes ahead of the source, modulo 4 KiB,
 * take the loop: OMPI_OSC_NEWRMA_COPY_ALIAS_SPAN where memcpy is slow
 * there, else 0 (none).  Set before any window exists. */
extern size_t ompi_osc_newrma_copy_alias_span;

/** The loop of 64-byte moves, out of line. */
void ompi_osc_newrma_copy_blocks(void *dst, const void *src, size_t len);

/** memcpy in pieces of OMPI_OSC_NEWRMA_COPY_PIECE, out of line. */
void ompi_osc_newrma_copy_pieces(void *dst, const void *src, size_t len);

/** Whether memcpy of a few KiB at OMPI_OSC_NEWRMA_COPY_ALIAS_SPAN's
 * distance takes more than twice as long as the loop on this CPU (the
 * shortest of a few timings of each, some microseconds in all); false if
 * the probe cannot allocate its buffers. */
bool ompi_osc_newrma_copy_probe(void);

/** memcpy(@p dst, @p src, @p len), past glibc's slow case above. */
static inline void ompi_osc_newrma_copy(void *dst, const void *src, size_t len)
{
    size_t ahead = ((uintptr_t) dst - (uintptr_t) src) & 4095;

    if (len >= OMPI_OSC_NEWRMA_COPY_ALIAS_MIN && ahead - 1 < ompi_osc_newrma_copy_alias_span) {
        ompi_osc_newrma_copy_blocks(dst, src, len);
        return;
    }
    if (len - OMPI_OSC_NEWRMA_COPY_PIECES_MIN <=
        OMPI_OSC_NEWRMA_COPY_PIECES_MAX - OMPI_OSC_NEWRMA_COPY_PIECES_MIN) {
        ompi_osc_newrma_copy_pieces(dst, src, len);
        return;
    }
    memcpy(dst, src, len);
}

/** The fast paths' copy: a single element of the usual sizes as moves
 * the compiler emits in place (a call into glibc's memcpy was a tenth of
 * a node-local 8-byte PUT's or MPI_REPLACE's instructions), anything
 * else by ompi_osc_newrma_copy. */
static inline __opal_attribute_always_inline__ void
ompi_osc_newrma_copy_elem(void *dst, const void *src, size_t len)
{
    switch (len) {
        case 4:
            memcpy(dst, src, 4);
            break;
        case 8:
            memcpy(dst, src, 8);
            break;
        default:
            ompi_osc_newrma_copy(dst, src, len);
    }
}

#endif /* OMPI_OSC_NEWRMA_BASE_COPY_H */
