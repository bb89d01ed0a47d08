/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/* Unit test of the datatype layer's pairs with padding
 * (osc_newrma_base_dtype.h): MPI_SHORT_INT, MPI_LONG_INT, MPI_DOUBLE_INT
 * and MPI_LONG_DOUBLE_INT are recognized with the C compiler's layout and
 * nothing else is; their copies between the packed form and memory move
 * each pair's value and index and never a byte of padding; packing and
 * unpacking any range of the stream, of whole pairs (the pair-by-pair
 * way) or cutting pairs (Open MPI's convertor), give the stream of
 * values and indexes in order and leave the padding alone. */
#include "ompi_config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ompi/constants.h"
#include "ompi/datatype/ompi_datatype.h"
#include "opal/datatype/opal_datatype.h"
#include "opal/runtime/opal.h"

#include "osc_newrma_base_dtype.h"
#include "../mpi/pair_types.h"
#include "unit.h"

#define PAIRS 37
#define GUARD 0xEE

typedef struct {
    const char *name;
    struct ompi_datatype_t *dt;
    size_t vsize, koff, extent;
} pair_case_t;

/* Memory of @p n pairs: each value's bytes and index set from the pair's
 * number, the padding GUARD. */
static void fill_pairs(const pair_case_t *c, unsigned char *mem, size_t n)
{
    memset(mem, GUARD, n * c->extent);
    for (size_t i = 0; i < n; ++i) {
        int k = (int) (1000 + i);

        for (size_t b = 0; b < c->vsize; ++b) {
            mem[i * c->extent + b] = (unsigned char) (i * 7 + b + 1);
        }
        memcpy(mem + i * c->extent + c->koff, &k, sizeof(k));
    }
}

/* The packed stream of fill_pairs' pairs: value, then index. */
static void expected_stream(const pair_case_t *c, const unsigned char *mem, unsigned char *out,
                            size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        memcpy(out + i * (c->vsize + sizeof(int)), mem + i * c->extent, c->vsize);
        memcpy(out + i * (c->vsize + sizeof(int)) + c->vsize, mem + i * c->extent + c->koff,
               sizeof(int));
    }
}

/* Bytes of @p mem that are padding (neither a value nor an index). */
static bool is_padding(const pair_case_t *c, size_t at)
{
    size_t in = at % c->extent;

    return in >= c->vsize && (in < c->koff || in >= c->koff + sizeof(int));
}

static void report(const pair_case_t *c, const char *what, size_t bad)
{
    if (0 != bad) {
        fprintf(stderr, "%s: %zu bytes wrong in %s\n", c->name, bad, what);
    }
    CHECK(0 == bad);
}

static void check_layout(const pair_case_t *c)
{
    ompi_osc_newrma_dtype_pair_t l;

    CHECK(ompi_osc_newrma_dtype_pair(c->dt, &l));
    CHECK(l.vsize == c->vsize && l.koff == c->koff && (size_t) l.extent == c->extent &&
          l.size == c->vsize + sizeof(int));
    /* asked again: the cached answer is the same */
    memset(&l, 0, sizeof(l));
    CHECK(ompi_osc_newrma_dtype_pair(c->dt, &l) && l.koff == c->koff);
}

/* Packed <-> memory copies of every count up to PAIRS: the values and
 * indexes move, the padding of the memory side stays GUARD. */
static void check_copies(const pair_case_t *c)
{
    size_t size = c->vsize + sizeof(int), bad = 0;
    unsigned char *mem = malloc(PAIRS * c->extent), *packed = malloc(PAIRS * size);
    unsigned char *want = malloc(PAIRS * size), *back = malloc(PAIRS * c->extent);
    ompi_osc_newrma_dtype_pair_t l;

    CHECK(NULL != mem && NULL != packed && NULL != want && NULL != back);
    CHECK(ompi_osc_newrma_dtype_pair(c->dt, &l));
    fill_pairs(c, mem, PAIRS);
    expected_stream(c, mem, want, PAIRS);
    for (size_t n = 0; n <= PAIRS; ++n) {
        memset(packed, 0, PAIRS * size);
        ompi_osc_newrma_dtype_pair_copy(&l, (char *) packed, true, (const char *) mem, false, n);
        bad += 0 != memcmp(packed, want, n * size);
        memset(back, GUARD, PAIRS * c->extent);
        ompi_osc_newrma_dtype_pair_copy(&l, (char *) back, false, (const char *) packed, true, n);
        for (size_t b = 0; b < PAIRS * c->extent; ++b) {
            bad += b < n * c->extent ? back[b] != (is_padding(c, b) ? GUARD : mem[b])
                                     : back[b] != GUARD;
        }
    }
    report(c, "the copies", bad);
    free(mem);
    free(packed);
    free(want);
    free(back);
}

/* pack_at / unpack_at of every range [off, off + len) of the stream of
 * PAIRS pairs at a few offsets and lengths, whole pairs and cut ones. */
static void check_ranges(const pair_case_t *c)
{
    size_t size = c->vsize + sizeof(int), total = PAIRS * size, bad = 0;
    size_t offs[] = {0, 1, size - 1, size, 3 * size, 5 * size + 2, total - size};
    size_t lens[] = {1, size, 2 * size, size + 3, 7 * size, total};
    unsigned char *mem = malloc(PAIRS * c->extent), *want = malloc(total);
    unsigned char *got = malloc(total), *back = malloc(PAIRS * c->extent);

    CHECK(NULL != mem && NULL != want && NULL != got && NULL != back);
    fill_pairs(c, mem, PAIRS);
    expected_stream(c, mem, want, PAIRS);
    for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); ++i) {
        for (size_t j = 0; j < sizeof(lens) / sizeof(lens[0]); ++j) {
            size_t off = offs[i], len = lens[j];

            if (off + len > total) {
                continue;
            }
            memset(got, 0, total);
            CHECK(OMPI_SUCCESS == ompi_osc_newrma_dtype_pack_at(got, mem, c->dt, PAIRS, off, len));
            bad += 0 != memcmp(got, want + off, len);
            /* back into memory that holds GUARD everywhere: exactly the
             * range's value and index bytes change */
            memset(back, GUARD, PAIRS * c->extent);
            CHECK(OMPI_SUCCESS ==
                  ompi_osc_newrma_dtype_unpack_at(back, c->dt, PAIRS, off, want + off, len));
            for (size_t p = 0; p < PAIRS; ++p) {
                for (size_t b = 0; b < c->extent; ++b) {
                    size_t at = p * c->extent + b, s;
                    bool data = !is_padding(c, at);

                    s = p * size + (b < c->vsize ? b : c->vsize + (b - c->koff));
                    bad += back[at] != (data && s >= off && s < off + len ? mem[at] : GUARD);
                }
            }
        }
    }
    report(c, "pack_at / unpack_at", bad);
    free(mem);
    free(want);
    free(got);
    free(back);
}

int main(int argc, char **argv)
{
    pair_case_t cases[] = {
        {"MPI_SHORT_INT", &ompi_mpi_short_int.dt, sizeof(short), offsetof(short_int_t, k),
         sizeof(short_int_t)},
        {"MPI_LONG_INT", &ompi_mpi_long_int.dt, sizeof(long), offsetof(long_int_t, k),
         sizeof(long_int_t)},
        {"MPI_DOUBLE_INT", &ompi_mpi_double_int.dt, sizeof(double), offsetof(double_int_t, k),
         sizeof(double_int_t)},
        {"MPI_LONG_DOUBLE_INT", &ompi_mpi_longdbl_int.dt, sizeof(long double),
         offsetof(long_double_int_t, k), sizeof(long_double_int_t)},
    };
    struct ompi_datatype_t *others[] = {&ompi_mpi_2int.dt, &ompi_mpi_double.dt,
                                        &ompi_mpi_float_int.dt, &ompi_mpi_byte.dt};
    ompi_osc_newrma_dtype_pair_t l;

    opal_init_util(&argc, &argv);
    CHECK(OMPI_SUCCESS == ompi_datatype_init());
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); ++i) {
        CHECK(!ompi_osc_newrma_dtype_pair(others[i], &l));
    }
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
        check_layout(&cases[i]);
        check_copies(&cases[i]);
        check_ranges(&cases[i]);
    }
    return unit_finish("test_dtype_pairs");
}
