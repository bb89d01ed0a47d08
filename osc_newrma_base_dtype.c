/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: datatype handling (see osc_newrma_base_dtype.h).
 */
#include "ompi_config.h"

#include <string.h>
#include <sys/uio.h>

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/datatype/ompi_datatype_internal.h"
#include "opal/datatype/opal_convertor.h"

#include "osc_newrma_base_dtype.h"
#include "osc_newrma_base_copy.h"

#define OSC_NEWRMA_IOV_BATCH 64

void ompi_osc_newrma_dtype_span(struct ompi_datatype_t *dt, int count, ptrdiff_t *lo_p,
                                ptrdiff_t *hi_p)
{
    ptrdiff_t lb, extent, true_lb, true_extent, last;

    if (count <= 0 || 0 == ompi_osc_newrma_dtype_bytes(dt, 1)) {
        *lo_p = *hi_p = 0;
        return;
    }
    ompi_datatype_get_extent(dt, &lb, &extent);
    ompi_datatype_get_true_extent(dt, &true_lb, &true_extent);
    last = (ptrdiff_t) (count - 1) * extent;
    *lo_p = true_lb + (last < 0 ? last : 0);
    *hi_p = true_lb + true_extent + (last > 0 ? last : 0);
}

int ompi_osc_newrma_dtype_foreach_segment(struct ompi_datatype_t *dt, int count, uint64_t base,
                                          ompi_osc_newrma_segment_fn_t fn, void *ctx)
{
    struct iovec iov[OSC_NEWRMA_IOV_BATCH];
    opal_convertor_t conv;
    size_t offset = 0, length;
    uint32_t iov_count;
    int done = 0, ret;

    OBJ_CONSTRUCT(&conv, opal_convertor_t);
    ret = opal_convertor_copy_and_prepare_for_send(ompi_mpi_local_convertor, &dt->super, count,
                                                   (void *) (uintptr_t) base, 0, &conv);
    while (OPAL_SUCCESS == ret && !done) {
        iov_count = OSC_NEWRMA_IOV_BATCH;
        done = opal_convertor_raw(&conv, iov, &iov_count, &length);
        for (uint32_t i = 0; i < iov_count && OMPI_SUCCESS == ret; ++i) {
            if (0 == iov[i].iov_len) {
                continue;
            }
            ret = fn((uint64_t) (uintptr_t) iov[i].iov_base, iov[i].iov_len, offset, ctx);
            offset += iov[i].iov_len;
        }
    }
    OBJ_DESTRUCT(&conv);
    return ret;
}

static bool vector_copy_range(const ompi_osc_newrma_dtype_vector_t *v, char *mem, size_t offset,
                              char *stream, size_t len, bool unpack);

/* A convertor over @p count elements of @p dt at @p buf, positioned at
 * stream byte @p offset. */
static int dtype_convertor_at(opal_convertor_t *conv, bool send, struct ompi_datatype_t *dt,
                              int count, const void *buf, size_t offset)
{
    size_t position = offset;
    int ret;

    OBJ_CONSTRUCT(conv, opal_convertor_t);
    ret = send ? opal_convertor_copy_and_prepare_for_send(ompi_mpi_local_convertor, &dt->super,
                                                          count, buf, 0, conv)
               : opal_convertor_copy_and_prepare_for_recv(ompi_mpi_local_convertor, &dt->super,
                                                          count, buf, 0, conv);
    if (OPAL_SUCCESS == ret && 0 != offset) {
        ret = opal_convertor_set_position(conv, &position);
    }
    return ret;
}

/* Room for one predefined element at least (the largest, a long double
 * complex, has 32 bytes). */
#define DTYPE_ELEMENT_ROOM 64

/* Up to @p want bytes of @p conv's stream packed to @p out; *@p got_p
 * those it packed. */
static int dtype_pack_step(opal_convertor_t *conv, char *out, size_t want, size_t *got_p)
{
    struct iovec iov = {.iov_base = out, .iov_len = want};
    uint32_t iov_count = 1;

    *got_p = want;
    return opal_convertor_pack(conv, &iov, &iov_count, got_p) < 0 ? OMPI_ERROR : OMPI_SUCCESS;
}

/* The part of the elements @p conv packs next (up to DTYPE_ELEMENT_ROOM
 * bytes of them) from byte @p skip on, at most @p room bytes of it, to
 * @p dst; *@p got_p those bytes.  An error when nothing lies past @p skip
 * (past the data). */
static int dtype_pack_part(opal_convertor_t *conv, size_t skip, char *dst, size_t room,
                           size_t *got_p)
{
    char element[DTYPE_ELEMENT_ROOM];
    size_t got;
    int ret = dtype_pack_step(conv, element, sizeof(element), &got);

    if (OMPI_SUCCESS != ret || got <= skip) {
        return OMPI_SUCCESS != ret ? ret : OMPI_ERROR;
    }
    *got_p = got - skip < room ? got - skip : room;
    memcpy(dst, element + skip, *got_p);
    return OMPI_SUCCESS;
}

/* Stream bytes [@p offset, @p offset + @p len) packed to @p dst by @p conv,
 * set to @p offset (dtype_convertor_at).  Open MPI's convertor packs whole
 * predefined elements only: set inside one, it stands at the element's
 * start (its position, below @p offset), and it stops before one that
 * does not fit.  So a range that cuts elements (a piece boundary inside a
 * 6-byte MPI_SHORT_INT) packs its first and last elements whole into a
 * small buffer and takes their part (dtype_pack_part); a GET of 100000
 * MPI_SHORT_INT over UCX, unpacked from its bounce buffer in pieces,
 * failed at the first cut. */
static int dtype_pack_cut(opal_convertor_t *conv, size_t offset, char *dst, size_t len)
{
    size_t skip = offset - conv->bConverted, done = 0, got; /* where set_position left it */
    int ret = OMPI_SUCCESS;

    if (0 != skip) { /* the head: the element that holds @p offset */
        ret = dtype_pack_part(conv, skip, dst, len, &done);
    }
    while (OMPI_SUCCESS == ret && done < len) {
        ret = dtype_pack_step(conv, dst + done, len - done, &got);
        if (OMPI_SUCCESS == ret && 0 == got) {
            /* the tail: an element that does not fit whole */
            ret = dtype_pack_part(conv, 0, dst + done, len - done, &got);
        }
        done += OMPI_SUCCESS == ret ? got : 0;
    }
    return ret;
}

/* Bytes [@p offset, @p offset + @p len) of @p count @p dt lie in one
 * block, starting @p *lb_p bytes from the buffer: copied by
 * ompi_osc_newrma_copy, not by the datatype engine's memcpy, which met
 * glibc's slow case of a destination 16 bytes ahead of its source modulo 4
 * KiB (osc_newrma_base_copy.h): an MPI_NO_OP read of 128 KiB from an
 * MPI_Win_allocate window into a malloc'd buffer took 70 us, not 4. */
static bool dtype_contig_range(struct ompi_datatype_t *dt, int count, size_t offset, size_t len,
                               ptrdiff_t *lb_p)
{
    return ompi_osc_newrma_dtype_contig(dt, count, lb_p) &&
           offset + len <= ompi_osc_newrma_dtype_bytes(dt, count);
}

/* ---- pairs with padding ---- */

static bool dtype_pair_make(struct ompi_datatype_t *dt, ompi_osc_newrma_dtype_pair_t *l)
{
    ptrdiff_t lb, true_lb, true_extent;

    if (OMPI_DATATYPE_MPI_SHORT_INT != dt->id && OMPI_DATATYPE_MPI_LONG_INT != dt->id &&
        OMPI_DATATYPE_MPI_DOUBLE_INT != dt->id && OMPI_DATATYPE_MPI_LONG_DOUBLE_INT != dt->id) {
        return false;
    }
    ompi_datatype_type_size(dt, &l->size);
    ompi_datatype_get_extent(dt, &lb, &l->extent);
    ompi_datatype_get_true_extent(dt, &true_lb, &true_extent);
    if (0 != lb || 0 != true_lb || l->size <= sizeof(int) || (size_t) l->extent <= l->size ||
        (size_t) true_extent < l->size || l->extent > UINT8_MAX) {
        return false;
    }
    l->vsize = l->size - sizeof(int);
    l->koff = (size_t) true_extent - sizeof(int);
    return true;
}

/* dtype_pair_make's answer per predefined type, made on first use: its
 * three datatype queries were 30 of the 540 instructions of a 16-byte
 * MPI_DOUBLE_INT MAXLOC on a shared window (osc/sm 194).  One 32-bit word
 * per type, written whole: threads that race to make one write the same
 * value. */
typedef union {
    uint32_t word;
    struct {
        uint8_t state; /* DTYPE_PAIR_UNMADE, _NONE or _SOME */
        uint8_t vsize;
        uint8_t koff;
        uint8_t extent;
    } p;
} dtype_pair_word_t;

enum { DTYPE_PAIR_UNMADE = 0, DTYPE_PAIR_NONE, DTYPE_PAIR_SOME };

static volatile uint32_t dtype_pair_words[OMPI_DATATYPE_MAX_PREDEFINED];

bool ompi_osc_newrma_dtype_pair(struct ompi_datatype_t *dt, ompi_osc_newrma_dtype_pair_t *l)
{
    dtype_pair_word_t w;

    if (!ompi_datatype_is_predefined(dt) || dt->id >= OMPI_DATATYPE_MAX_PREDEFINED) {
        return false;
    }
    w.word = dtype_pair_words[dt->id];
    if (DTYPE_PAIR_UNMADE == w.p.state) {
        w.word = 0;
        w.p.state = DTYPE_PAIR_NONE;
        if (dtype_pair_make(dt, l)) {
            w.p.state = DTYPE_PAIR_SOME;
            w.p.vsize = (uint8_t) l->vsize;
            w.p.koff = (uint8_t) l->koff;
            w.p.extent = (uint8_t) l->extent;
        }
        dtype_pair_words[dt->id] = w.word;
    }
    if (DTYPE_PAIR_SOME != w.p.state) {
        return false;
    }
    l->vsize = w.p.vsize;
    l->size = l->vsize + sizeof(int);
    l->koff = w.p.koff;
    l->extent = w.p.extent;
    return true;
}

/* @p n pairs' value and index, from one every @p src_stride bytes (index
 * at @p src_koff) to one every @p dst_stride (at @p dst_koff); in line
 * with a constant @p vsize, so the copies are moves. */
static inline __opal_attribute_always_inline__ void
dtype_pair_copy_of(char *dst, size_t dst_stride, size_t dst_koff, const char *src,
                   size_t src_stride, size_t src_koff, size_t n, size_t vsize)
{
    for (size_t i = 0; i < n; ++i) {
        memcpy(dst + i * dst_stride, src + i * src_stride, vsize);
        memcpy(dst + i * dst_stride + dst_koff, src + i * src_stride + src_koff, sizeof(int));
    }
}

/* A memcpy of a size not known at compile time took the copy of 16384
 * MPI_DOUBLE_INT 28 us against osc/rdma's 24. */
void ompi_osc_newrma_dtype_pair_copy(const ompi_osc_newrma_dtype_pair_t *l, char *dst,
                                     bool dst_packed, const char *src, bool src_packed, size_t n)
{
    size_t ds = dst_packed ? l->size : (size_t) l->extent, dk = dst_packed ? l->vsize : l->koff;
    size_t ss = src_packed ? l->size : (size_t) l->extent, sk = src_packed ? l->vsize : l->koff;

    switch (l->vsize) { /* short, long or double, long double */
        case 2:
            dtype_pair_copy_of(dst, ds, dk, src, ss, sk, n, 2);
            break;
        case 8:
            dtype_pair_copy_of(dst, ds, dk, src, ss, sk, n, 8);
            break;
        case 16:
            dtype_pair_copy_of(dst, ds, dk, src, ss, sk, n, 16);
            break;
        default:
            dtype_pair_copy_of(dst, ds, dk, src, ss, sk, n, l->vsize);
    }
}

/* Pack (@p pack) or unpack bytes [@p offset, @p offset + @p len) of the
 * stream of @p count pairs of @p dt at @p mem, whole pairs: pair by pair
 * where Open MPI's convertor took half of an origin's time on a REPLACE
 * of 512 MPI_SHORT_INT through a mailbox.  False, having done nothing,
 * for any other type or a part of a pair. */
static bool dtype_pairs_range(struct ompi_datatype_t *dt, int count, char *mem, size_t offset,
                              char *stream, size_t len, bool pack)
{
    ompi_osc_newrma_dtype_pair_t l;

    if (!ompi_osc_newrma_dtype_pair(dt, &l) || 0 != offset % l.size || 0 != len % l.size ||
        offset + len > l.size * (size_t) count) {
        return false;
    }
    mem += offset / l.size * (size_t) l.extent;
    if (pack) {
        ompi_osc_newrma_dtype_pair_copy(&l, stream, true, mem, false, len / l.size);
    } else {
        ompi_osc_newrma_dtype_pair_copy(&l, mem, false, stream, true, len / l.size);
    }
    return true;
}

int ompi_osc_newrma_dtype_pack_at(void *dst, const void *src, struct ompi_datatype_t *dt, int count,
                                  size_t offset, size_t len)
{
    opal_convertor_t conv;
    ompi_osc_newrma_dtype_vector_t v;
    ptrdiff_t lb;
    int ret;

    if (dtype_contig_range(dt, count, offset, len, &lb)) {
        ompi_osc_newrma_copy(dst, (const char *) src + lb + offset, len);
        return OMPI_SUCCESS;
    }
    if (ompi_osc_newrma_dtype_vector(dt, count, &v)) {
        return vector_copy_range(&v, (char *) src, offset, dst, len, false) ? OMPI_SUCCESS
                                                                            : OMPI_ERROR;
    }
    if (dtype_pairs_range(dt, count, (char *) src, offset, dst, len, true)) {
        return OMPI_SUCCESS;
    }
    ret = dtype_convertor_at(&conv, true, dt, count, src, offset);
    if (OPAL_SUCCESS == ret) {
        ret = dtype_pack_cut(&conv, offset, (char *) dst, len);
    }
    OBJ_DESTRUCT(&conv);
    return ret;
}

int ompi_osc_newrma_dtype_unpack_at(void *dst, struct ompi_datatype_t *dt, int count, size_t offset,
                                    const void *src, size_t len)
{
    struct iovec iov = {.iov_base = (void *) src, .iov_len = len};
    uint32_t iov_count = 1;
    size_t max_data = len;
    opal_convertor_t conv;
    ompi_osc_newrma_dtype_vector_t v;
    ptrdiff_t lb;
    int ret;

    if (dtype_contig_range(dt, count, offset, len, &lb)) {
        ompi_osc_newrma_copy((char *) dst + lb + offset, src, len);
        return OMPI_SUCCESS;
    }
    if (ompi_osc_newrma_dtype_vector(dt, count, &v)) {
        return vector_copy_range(&v, dst, offset, (char *) src, len, true) ? OMPI_SUCCESS
                                                                           : OMPI_ERROR;
    }
    if (dtype_pairs_range(dt, count, dst, offset, (char *) src, len, false)) {
        return OMPI_SUCCESS;
    }
    ret = dtype_convertor_at(&conv, false, dt, count, dst, offset);
    if (OPAL_SUCCESS == ret && opal_convertor_unpack(&conv, &iov, &iov_count, &max_data) < 0) {
        ret = OMPI_ERROR;
    }
    OBJ_DESTRUCT(&conv);
    return (OMPI_SUCCESS == ret && max_data != len) ? OMPI_ERROR : ret;
}

typedef struct {
    size_t lo, hi;
    ompi_osc_newrma_segment_fn_t fn;
    void *ctx;
} segment_range_t;

/* Clip a segment to the range; stop the walk once past it. */
static int segment_clip(uint64_t addr, size_t len, size_t offset, void *ctx)
{
    segment_range_t *r = ctx;
    size_t lo = offset > r->lo ? offset : r->lo;
    size_t hi = offset + len < r->hi ? offset + len : r->hi;

    if (offset >= r->hi) {
        return OMPI_EXISTS;
    }
    if (lo >= hi) {
        return OMPI_SUCCESS;
    }
    return r->fn(addr + (lo - offset), hi - lo, lo, r->ctx);
}

int ompi_osc_newrma_dtype_foreach_segment_range(struct ompi_datatype_t *dt, int count,
                                                uint64_t base, size_t offset, size_t len,
                                                ompi_osc_newrma_segment_fn_t fn, void *ctx)
{
    segment_range_t r = {offset, offset + len, fn, ctx};
    int ret = ompi_osc_newrma_dtype_foreach_segment(dt, count, base, segment_clip, &r);

    return OMPI_EXISTS == ret ? OMPI_SUCCESS : ret;
}

int ompi_osc_newrma_dtype_pack(void *dst, const void *src, struct ompi_datatype_t *dt, int count,
                               size_t bytes)
{
    return ompi_osc_newrma_dtype_pack_at(dst, src, dt, count, 0, bytes);
}

int ompi_osc_newrma_dtype_unpack(void *dst, struct ompi_datatype_t *dt, int count, const void *src,
                                 size_t bytes)
{
    return ompi_osc_newrma_dtype_unpack_at(dst, dt, count, 0, src, bytes);
}

void ompi_osc_newrma_dtype_release(struct ompi_datatype_t *dt)
{
    if (NULL != dt && !ompi_datatype_is_predefined(dt)) {
        OBJ_RELEASE(dt);
    }
}

/* The old type of a vector: contiguous, no gaps, starting at its lower bound 0. */
static bool dtype_vector_block(struct ompi_datatype_t *old, int blocklen, size_t *size)
{
    ptrdiff_t lb, extent, true_lb, true_extent;

    ompi_datatype_type_size(old, size);
    ompi_datatype_get_extent(old, &lb, &extent);
    ompi_datatype_get_true_extent(old, &true_lb, &true_extent);
    return blocklen > 0 && *size > 0 && 0 == lb && 0 == true_lb && (ptrdiff_t) *size == extent &&
           (ptrdiff_t) *size == true_extent &&
           ompi_datatype_is_contiguous_memory_layout(old, blocklen);
}

bool ompi_osc_newrma_dtype_vector(struct ompi_datatype_t *dt, int count,
                                  ompi_osc_newrma_dtype_vector_t *v)
{
    int32_t ci, ca, cd, type, ints[3];
    ptrdiff_t addr = 0, lb, extent;
    struct ompi_datatype_t *old;
    size_t old_size;

    if (count <= 0 || ompi_datatype_is_predefined(dt) ||
        OMPI_SUCCESS != ompi_datatype_get_args(dt, 0, &ci, NULL, &ca, NULL, &cd, NULL, &type) ||
        (MPI_COMBINER_VECTOR != type && MPI_COMBINER_HVECTOR != type) || 1 != cd || ci > 3 ||
        ca > 1 ||
        OMPI_SUCCESS != ompi_datatype_get_args(dt, 1, &ci, ints, &ca, &addr, &cd, &old, &type) ||
        ints[0] <= 0 || !dtype_vector_block(old, ints[1], &old_size)) {
        return false;
    }
    ompi_datatype_get_extent(dt, &lb, &extent);
    v->count = (size_t) count;
    v->blocks = (size_t) ints[0];
    v->block_bytes = (size_t) ints[1] * old_size;
    v->stride = MPI_COMBINER_VECTOR == type ? (ptrdiff_t) ints[2] * (ptrdiff_t) old_size : addr;
    v->extent = extent;
    /* ascending, no block over another, elements one after the other */
    return 0 == lb && v->stride >= (ptrdiff_t) v->block_bytes &&
           (1 == count ||
            extent >= (ptrdiff_t) (v->blocks - 1) * v->stride + (ptrdiff_t) v->block_bytes);
}

/* One element's blocks.  Inlined with a constant @p n below, each block's
 * copy becomes a move or two instead of a call to memcpy (the call was
 * most of the cost of a layout of 8-byte blocks); blocks of other sizes go
 * through ompi_osc_newrma_copy, as a large one may meet glibc's slow case. */
static inline __opal_attribute_always_inline__ char *
vector_blocks(char *at, ptrdiff_t stride, size_t blocks, size_t n, char *stream, bool unpack)
{
    for (size_t b = 0; b < blocks; ++b, at += stride, stream += n) {
        if (unpack) {
            ompi_osc_newrma_copy(at, stream, n);
        } else {
            ompi_osc_newrma_copy(stream, at, n);
        }
    }
    return stream;
}

/* @p n whole blocks from the one at @p at. */
static char *vector_run(const ompi_osc_newrma_dtype_vector_t *v, char *at, size_t n, char *stream,
                        bool unpack)
{
    switch (v->block_bytes) {
        case 4:
            return vector_blocks(at, v->stride, n, 4, stream, unpack);
        case 8:
            return vector_blocks(at, v->stride, n, 8, stream, unpack);
        case 16:
            return vector_blocks(at, v->stride, n, 16, stream, unpack);
        default:
            return vector_blocks(at, v->stride, n, v->block_bytes, stream, unpack);
    }
}

static char *vector_element(const ompi_osc_newrma_dtype_vector_t *v, char *at, char *stream,
                            bool unpack)
{
    return vector_run(v, at, v->blocks, stream, unpack);
}

/* Part of one byte range of a block: @p n bytes from @p at. */
static char *vector_bytes(char *at, size_t n, char *stream, bool unpack)
{
    ompi_osc_newrma_copy(unpack ? at : stream, unpack ? stream : at, n);
    return stream + n;
}

/* A range's head or tail within element @p e: from byte @p skip of block
 * @p b, @p len bytes: a partial block, whole blocks, a partial block. */
static char *vector_piece(const ompi_osc_newrma_dtype_vector_t *v, char *mem, size_t e, size_t b,
                          size_t skip, char *stream, size_t len, bool unpack)
{
    char *at = mem + (ptrdiff_t) e * v->extent + (ptrdiff_t) b * v->stride;
    size_t n, whole;

    if (0 != skip && len > 0) {
        n = v->block_bytes - skip < len ? v->block_bytes - skip : len;
        stream = vector_bytes(at + skip, n, stream, unpack);
        len -= n;
        at += v->stride;
    }
    whole = len / v->block_bytes;
    stream = vector_run(v, at, whole, stream, unpack);
    len -= whole * v->block_bytes;
    return len > 0 ? vector_bytes(at + (ptrdiff_t) whole * v->stride, len, stream, unpack) : stream;
}

/* Stream bytes [@p offset, @p offset + @p len) of the layout @p v at @p mem:
 * whole elements by vector_element, the partial ones around them by
 * vector_piece.  @return false when the range is beyond the layout. */
static bool vector_copy_range(const ompi_osc_newrma_dtype_vector_t *v, char *mem, size_t offset,
                              char *stream, size_t len, bool unpack)
{
    size_t elem = v->blocks * v->block_bytes, e = offset / elem, in = offset % elem, n;

    if (offset + len < offset || offset + len > v->count * elem) {
        return false;
    }
    if (0 != in) {
        n = elem - in < len ? elem - in : len;
        stream =
            vector_piece(v, mem, e++, in / v->block_bytes, in % v->block_bytes, stream, n, unpack);
        len -= n;
    }
    for (; len >= elem; ++e, len -= elem) {
        stream = vector_element(v, mem + (ptrdiff_t) e * v->extent, stream, unpack);
    }
    (void) vector_piece(v, mem, e, 0, 0, stream, len, unpack);
    return true;
}

void ompi_osc_newrma_dtype_vector_copy(const ompi_osc_newrma_dtype_vector_t *v, char *mem,
                                       char *stream, bool unpack)
{
    (void) vector_copy_range(v, mem, 0, stream, v->count * v->blocks * v->block_bytes, unpack);
}

/* One element's blocks from @p src to the same offsets at @p dst; in line
 * with a constant @p n, as vector_blocks. */
static inline __opal_attribute_always_inline__ void
vector_same_blocks(char *dst, const char *src, ptrdiff_t stride, size_t blocks, size_t n)
{
    for (size_t b = 0; b < blocks; ++b) {
        ompi_osc_newrma_copy(dst + (ptrdiff_t) b * stride, src + (ptrdiff_t) b * stride, n);
    }
}

void ompi_osc_newrma_dtype_vector_same(const ompi_osc_newrma_dtype_vector_t *v, char *dst,
                                       const char *src)
{
    for (size_t e = 0; e < v->count; ++e) {
        char *d = dst + (ptrdiff_t) e * v->extent;
        const char *s = src + (ptrdiff_t) e * v->extent;

        switch (v->block_bytes) {
            case 4:
                vector_same_blocks(d, s, v->stride, v->blocks, 4);
                break;
            case 8:
                vector_same_blocks(d, s, v->stride, v->blocks, 8);
                break;
            case 16:
                vector_same_blocks(d, s, v->stride, v->blocks, 16);
                break;
            default:
                vector_same_blocks(d, s, v->stride, v->blocks, v->block_bytes);
        }
    }
}
