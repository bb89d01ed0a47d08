/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/* Unit test of the data copy (osc_newrma_base_copy.h): every length up to
 * past the loop's threshold, at destinations on both sides of the range
 * the loop takes (1-64 bytes ahead of the source modulo 4 KiB), copies
 * exactly the bytes asked for: each of them, and none around them; with
 * the loop taken at those distances, without it, and as the CPU's probe
 * chooses.  Long copies, whole and in pieces, at the lengths where pieces
 * start and stop and at lengths not a whole number of pieces. */
#include "ompi_config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "osc_newrma_base_copy.h"
#include "unit.h"

#define MAX_LEN (OMPI_OSC_NEWRMA_COPY_ALIAS_MIN + 300)
#define GUARD   64
#define AREA    (2 * 4096 + MAX_LEN + 2 * GUARD)

static unsigned char src_area[AREA] __attribute__((aligned(4096)));
static unsigned char dst_area[AREA] __attribute__((aligned(4096)));

/* Copies @p len bytes from @p src to @p dst, whose GUARD bytes each side
 * must stay as they are, and checks every byte. */
static void copy_checked(unsigned char *dst, const unsigned char *src, size_t len, size_t ahead)
{
    size_t wrong = 0;

    memset(dst - GUARD, 0xEE, len + 2 * GUARD);
    ompi_osc_newrma_copy(dst, src, len);
    for (size_t i = 0; i < len; ++i) {
        wrong += dst[i] != src[i];
    }
    for (size_t i = 1; i <= GUARD; ++i) {
        wrong += dst[-(ptrdiff_t) i] != 0xEE || dst[len + i - 1] != 0xEE;
    }
    if (wrong) {
        fprintf(stderr, "copy of %zu bytes, destination %zu ahead: %zu bytes wrong\n", len, ahead,
                wrong);
    }
    CHECK(0 == wrong);
}

static void copy_at(size_t ahead, size_t len)
{
    copy_checked(dst_area + 4096 + ahead, src_area + 4096, len, ahead);
}

/* A copy of @p len bytes between heap buffers, @p ahead bytes apart modulo
 * 4 KiB. */
static void copy_long(size_t len, size_t ahead)
{
    unsigned char *src = malloc(len + 4096), *dst = malloc(len + 2 * GUARD + 8192), *at;

    CHECK(NULL != src && NULL != dst);
    if (NULL != src && NULL != dst) {
        at = dst + GUARD;
        at += (((uintptr_t) src & 4095) + ahead - ((uintptr_t) at & 4095)) & 4095;
        for (size_t i = 0; i < len; ++i) {
            src[i] = (unsigned char) (i * 7 + (i >> 12) + (i >> 20));
        }
        copy_checked(at, src, len, ahead);
    }
    free(src);
    free(dst);
}

int main(void)
{
    static const size_t aheads[] = {0, 1, 7, 16, 31, 32, 63, 64, 65, 100, 2048, 4031, 4095};
    static const size_t lens[] = {0,
                                  1,
                                  63,
                                  64,
                                  65,
                                  1000,
                                  OMPI_OSC_NEWRMA_COPY_ALIAS_MIN - 1,
                                  OMPI_OSC_NEWRMA_COPY_ALIAS_MIN,
                                  OMPI_OSC_NEWRMA_COPY_ALIAS_MIN + 1,
                                  OMPI_OSC_NEWRMA_COPY_ALIAS_MIN + 63,
                                  MAX_LEN};

    for (size_t i = 0; i < sizeof(src_area); ++i) {
        src_area[i] = (unsigned char) (i * 131 + (i >> 8));
    }
    /* the loop where memcpy is slow at short distances, then memcpy for all,
     * then whichever this CPU's probe picks */
    for (int regime = 0; regime < 3; ++regime) {
        ompi_osc_newrma_copy_alias_span = 0 == regime   ? OMPI_OSC_NEWRMA_COPY_ALIAS_SPAN
                                          : 1 == regime ? 0
                                          : ompi_osc_newrma_copy_probe()
                                              ? OMPI_OSC_NEWRMA_COPY_ALIAS_SPAN
                                              : 0;
        for (size_t a = 0; a < sizeof(aheads) / sizeof(aheads[0]); ++a) {
            for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); ++l) {
                copy_at(aheads[a], lens[l]);
            }
        }
        /* every tail length past the loop's threshold */
        for (size_t len = OMPI_OSC_NEWRMA_COPY_ALIAS_MIN; len < MAX_LEN; len += 37) {
            copy_at(17, len);
        }
    }
    {
        static const size_t longs[] = {OMPI_OSC_NEWRMA_COPY_PIECES_MIN - 1,
                                       OMPI_OSC_NEWRMA_COPY_PIECES_MIN,
                                       OMPI_OSC_NEWRMA_COPY_PIECES_MIN + 1,
                                       3 * OMPI_OSC_NEWRMA_COPY_PIECE + 777,
                                       OMPI_OSC_NEWRMA_COPY_PIECES_MIN + OMPI_OSC_NEWRMA_COPY_PIECE,
                                       (2u << 20) + 16,
                                       OMPI_OSC_NEWRMA_COPY_PIECES_MAX,
                                       OMPI_OSC_NEWRMA_COPY_PIECES_MAX + 1};

        for (size_t l = 0; l < sizeof(longs) / sizeof(longs[0]); ++l) {
            copy_long(longs[l], 0);
            copy_long(longs[l], 16);
            copy_long(longs[l], 4080);
        }
    }
    return unit_finish("test_copy");
}
