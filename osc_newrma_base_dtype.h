/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: datatype handling for RMA (design: "Datatype In RMA").
 *
 * Contiguous layouts are recognized once per operation and moved as one
 * block; a non-contiguous origin is packed into (or unpacked from) a staging
 * buffer; a non-contiguous target is walked as its list of contiguous
 * segments, each moved by one RDMA transfer or memcpy.
 */
#ifndef OMPI_OSC_NEWRMA_BASE_DTYPE_H
#define OMPI_OSC_NEWRMA_BASE_DTYPE_H

#include "ompi_config.h"

#include <stddef.h>
#include <stdint.h>

#include "ompi/datatype/ompi_datatype.h"

/* Inline: every RMA call asks both on its origin and target types. */

/**
 * @return true when @p count elements of @p dt form one contiguous block;
 *         *offset_p is then the block's offset from the buffer address.
 */
static inline bool ompi_osc_newrma_dtype_contig(struct ompi_datatype_t *dt, int count,
                                                ptrdiff_t *offset_p)
{
    ptrdiff_t true_lb, true_extent;

    if (!ompi_datatype_is_contiguous_memory_layout(dt, count)) {
        return false;
    }
    ompi_datatype_get_true_extent(dt, &true_lb, &true_extent);
    *offset_p = true_lb;
    return true;
}

/** Bytes of data (type size times count). */
static inline size_t ompi_osc_newrma_dtype_bytes(struct ompi_datatype_t *dt, int count)
{
    size_t size;

    ompi_datatype_type_size(dt, &size);
    return size * (size_t) count;
}

/**
 * Byte range [*lo_p, *hi_p) that @p count elements of @p dt touch, relative
 * to the buffer address.  (0, 0) for an empty access.
 */
void ompi_osc_newrma_dtype_span(struct ompi_datatype_t *dt, int count, ptrdiff_t *lo_p,
                                ptrdiff_t *hi_p);

/** Pack @p count elements of @p dt at @p src into @p bytes contiguous bytes at @p dst. */
int ompi_osc_newrma_dtype_pack(void *dst, const void *src, struct ompi_datatype_t *dt, int count,
                               size_t bytes);

/** Unpack @p bytes contiguous bytes at @p src into @p count elements of @p dt at @p dst. */
int ompi_osc_newrma_dtype_unpack(void *dst, struct ompi_datatype_t *dt, int count, const void *src,
                                 size_t bytes);

/** Pack bytes [@p offset, @p offset + @p len) of the data stream of @p count
 * elements of @p dt at @p src into @p dst. */
int ompi_osc_newrma_dtype_pack_at(void *dst, const void *src, struct ompi_datatype_t *dt, int count,
                                  size_t offset, size_t len);

/** Unpack @p len bytes at @p src into stream position @p offset of @p count
 * elements of @p dt at @p dst. */
int ompi_osc_newrma_dtype_unpack_at(void *dst, struct ompi_datatype_t *dt, int count, size_t offset,
                                    const void *src, size_t len);

/**
 * Where a predefined pair of a value and an int index with padding
 * (MPI_SHORT_INT, MPI_LONG_INT, MPI_DOUBLE_INT, MPI_LONG_DOUBLE_INT) keeps
 * its data: the value's @p vsize bytes first, the index at @p koff (after
 * a gap in MPI_SHORT_INT), padding up to the @p extent; packed (@p size
 * bytes), the index follows the value.
 */
typedef struct {
    size_t size;
    ptrdiff_t extent;
    size_t vsize;
    size_t koff;
} ompi_osc_newrma_dtype_pair_t;

/** True, with *@p l, when @p dt is one of those pair types. */
bool ompi_osc_newrma_dtype_pair(struct ompi_datatype_t *dt, ompi_osc_newrma_dtype_pair_t *l);

/** @p n of @p l's pairs from @p src to @p dst, each side packed or laid
 * out at the extent (@p dst_packed, @p src_packed): the value and the
 * index only, never the padding (not the caller's to write: a result
 * buffer may end at the last pair's index). */
void ompi_osc_newrma_dtype_pair_copy(const ompi_osc_newrma_dtype_pair_t *l, char *dst,
                                     bool dst_packed, const char *src, bool src_packed, size_t n);

/** Drop a reference to a derived datatype (predefined ones and NULL are left alone). */
void ompi_osc_newrma_dtype_release(struct ompi_datatype_t *dt);

/**
 * Called for each contiguous segment: @p addr is the segment address
 * (relative to the base given to foreach), @p offset its position in the
 * packed data stream.
 */
typedef int (*ompi_osc_newrma_segment_fn_t)(uint64_t addr, size_t len, size_t offset, void *ctx);

/**
 * Walk the contiguous segments of @p count elements of @p dt laid out at
 * @p base (an address in any process: only arithmetic is done on it).
 * Stops at the first error @p fn returns.
 */
int ompi_osc_newrma_dtype_foreach_segment(struct ompi_datatype_t *dt, int count, uint64_t base,
                                          ompi_osc_newrma_segment_fn_t fn, void *ctx);

/**
 * As ompi_osc_newrma_dtype_foreach_segment, for the segments (clipped) that
 * hold stream bytes [@p offset, @p offset + @p len) only.
 */
int ompi_osc_newrma_dtype_foreach_segment_range(struct ompi_datatype_t *dt, int count,
                                                uint64_t base, size_t offset, size_t len,
                                                ompi_osc_newrma_segment_fn_t fn, void *ctx);

/** @p count elements of a vector (or hvector) of contiguous blocks: the
 * layout a copy loop moves without the datatype engine. */
typedef struct {
    size_t count, blocks, block_bytes;
    ptrdiff_t stride, extent;
} ompi_osc_newrma_dtype_vector_t;

/** True when @p count elements of @p dt are such a vector, described in
 * @p v: blocks of a contiguous type at lower bound 0, ascending without
 * overlap. */
bool ompi_osc_newrma_dtype_vector(struct ompi_datatype_t *dt, int count,
                                  ompi_osc_newrma_dtype_vector_t *v);

/** Copy the packed @p stream into the layout @p v at @p mem (@p unpack),
 * or the layout into @p stream. */
void ompi_osc_newrma_dtype_vector_copy(const ompi_osc_newrma_dtype_vector_t *v, char *mem,
                                       char *stream, bool unpack);

/** Copy the layout @p v at @p src to the same layout at @p dst, block by
 * block (a PUT or GET whose sides are the same vector). */
void ompi_osc_newrma_dtype_vector_same(const ompi_osc_newrma_dtype_vector_t *v, char *dst,
                                       const char *src);

#endif /* OMPI_OSC_NEWRMA_BASE_DTYPE_H */
