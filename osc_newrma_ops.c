/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: communication calls (design: RMA_OP) and operation elements.
 *
 * A node-local target reached through shared memory, and the calling
 * process itself, are served at once with loads and stores.  Everything
 * else becomes an operation element queued on its target element and
 * issued by ISSUE_OPS_TARGET as UCX RDMA.
 */
#include "ompi_config.h"

#include <stdint.h>
#include <string.h>

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/proc/proc.h"

#include "osc_newrma.h"
#include "osc_newrma_base_acc.h"
#include "osc_newrma_base_copy.h"
#include "osc_newrma_origin_acc.h"
#include "osc_newrma_base_dtype.h"
#include "osc_newrma_base_element.h"
#include "osc_newrma_base_mutex.h"
#include "osc_newrma_origin_mbox.h"
#include "osc_newrma_ops.h"
#include "osc_newrma_origin_passive.h"
#include "osc_newrma_am_pkt.h"
#include "osc_newrma_am_data.h"
#include "osc_newrma_am_region.h"
#include "osc_newrma_origin_request.h"
#include "osc_newrma_base_state.h"
#include "osc_newrma_transport_shm.h"
#include "osc_newrma_transport_ucx.h"
#include "osc_newrma_base_wait.h"

#define component mca_osc_newrma_component

/** Where the target bytes of one access live. */
typedef struct {
    /** direct load/store address of target displacement 0 of the access, or NULL */
    char *direct;
    ucp_ep_h ep;
    ucp_rkey_h rkey;
    /** dynamic window: the cached region rkey belongs to, with a reference
     * that passes to the operation (released by whoever keeps it last) */
    ompi_osc_newrma_region_t *region;
    /** remote address of the access's displacement */
    uint64_t addr;
    /** the target's element, looked up once for the ways served at the
     * call (NULL: none yet; one of them may make it) */
    ompi_osc_newrma_target_t *target;
    /** whether the target is open, asked once per call (0: not yet) */
    int8_t open;
} rma_target_mem_t;

/** One RMA call as the user made it. */
typedef struct {
    ompi_osc_newrma_op_kind_t kind;
    void *origin_addr;
    int origin_count;
    struct ompi_datatype_t *origin_dt;
    int target;
    ptrdiff_t target_disp;
    int target_count;
    struct ompi_datatype_t *target_dt;
    /** MPI_Rput / MPI_Rget / MPI_Raccumulate / MPI_Rget_accumulate, or NULL */
    struct ompi_request_t *request;
    /** accumulate family: reduction (NULL for CAS), its element type */
    struct ompi_op_t *op;
    struct ompi_datatype_t *basic;
    /** fetched old values (GET_ACCUMULATE, FETCH_AND_OP, CAS) */
    void *result_addr;
    int result_count;
    struct ompi_datatype_t *result_dt;
    /** CAS compare value */
    const void *compare_addr;
} rma_args_t;

static int rma_peer_ep(ompi_osc_newrma_module_t *module, int rank, ucp_ep_h *ep_p)
{
    ompi_osc_newrma_peer_t *peer = ompi_osc_newrma_peer(module, rank);
    int ret;

    if (NULL == peer->ep) {
        bool emulated;

        ret =
            ompi_osc_newrma_ucx_ep(ompi_comm_peer_lookup(module->comm, rank), &peer->ep, &emulated);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
        peer->bulk_packets = component.bulk_packets < 0 ? emulated : component.bulk_packets > 0;
        peer->rdma_native = !emulated;
    }
    *ep_p = peer->ep;
    return OMPI_SUCCESS;
}

/* A peer's window (base, size, displacement unit, rkey), asked of the peer
 * on the first access to it: creation exchanges nothing per peer, and a
 * window keeps what it learnt only for the peers it touches. */
static int rma_peer_info(ompi_osc_newrma_module_t *module, int rank, ucp_ep_h ep)
{
    ompi_osc_newrma_peer_t *peer = ompi_osc_newrma_peer(module, rank);
    ompi_osc_newrma_region_query_t query;
    ucp_rkey_h rkey = NULL;
    int ret;

    if (OPAL_LIKELY(peer->info_known)) {
        return OMPI_SUCCESS;
    }
    OMPI_OSC_NEWRMA_STAT_ADD(module, PEER_QUERIES, 1);
    ret = ompi_osc_newrma_pkt_region_query(module, rank, 0, 0, &query);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    if (NULL != query.rkey_packed) {
        ret = ompi_osc_newrma_ucx_rkey_unpack(ep, query.rkey_packed, &rkey);
        free(query.rkey_packed);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
    }
    if (peer->info_known) { /* another thread asked too, and was first */
        if (NULL != rkey) {
            ucp_rkey_destroy(rkey);
        }
        return OMPI_SUCCESS;
    }
    peer->base = query.base;
    peer->rkey = rkey;
    peer->size = query.len;
    peer->disp_unit = query.disp_unit;
    peer->layout_known = true;
    opal_atomic_wmb();
    peer->info_known = true;
    return OMPI_SUCCESS;
}

/* Dynamic window, my own memory: the range must lie in attached memory (one
 * region, or adjacent ones). */
static bool rma_local_attached(ompi_osc_newrma_module_t *module, uint64_t lo, uint64_t hi)
{
    uint64_t run_lo, run_hi;
    bool found;

    ompi_osc_newrma_mutex_lock(&module->attached_lock, OMPI_OSC_NEWRMA_MUTEX_ATTACHED);
    found = ompi_osc_newrma_region_run(&module->attached, lo, hi, &run_lo, &run_hi);
    ompi_osc_newrma_mutex_unlock(&module->attached_lock, OMPI_OSC_NEWRMA_MUTEX_ATTACHED);
    return found;
}

/* Ask @p rank for the region holding [lo, hi): a new region object (one
 * reference, the caller's). */
static int rma_region_query(ompi_osc_newrma_module_t *module, int rank, uint64_t lo, uint64_t hi,
                            ucp_ep_h ep, ompi_osc_newrma_region_t **region_p)
{
    ompi_osc_newrma_region_query_t query;
    ompi_osc_newrma_region_t *region;
    int ret = ompi_osc_newrma_pkt_region_query(module, rank, lo, hi - lo, &query);

    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    region = OBJ_NEW(ompi_osc_newrma_region_t);
    if (NULL == region) {
        free(query.rkey_packed);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    region->base = query.base;
    region->len = query.len;
    ret = ompi_osc_newrma_ucx_rkey_unpack(ep, query.rkey_packed, &region->rkey);
    free(query.rkey_packed);
    if (OMPI_SUCCESS != ret) {
        OBJ_RELEASE(region);
        return ret;
    }
    *region_p = region;
    return OMPI_SUCCESS;
}

/* Dynamic window, remote memory: the cached region, or ask the target.
 * *@p region_p comes with a reference for the caller (an operation keeps
 * it while it uses the rkey).  An answer overtaken by a REGION_FORGET of
 * the same target may describe detached memory: it is not used, the target
 * is asked again. */
static int rma_remote_region(ompi_osc_newrma_module_t *module, int rank, uint64_t lo, uint64_t hi,
                             ucp_ep_h ep, ompi_osc_newrma_region_t **region_p)
{
    ompi_osc_newrma_peer_t *peer = ompi_osc_newrma_peer(module, rank);
    ompi_osc_newrma_region_t *region;
    uint32_t forgotten;
    bool cached;
    int ret;

    for (;;) {
        ompi_osc_newrma_mutex_lock(&module->attached_lock, OMPI_OSC_NEWRMA_MUTEX_ATTACHED);
        region = ompi_osc_newrma_region_cache_find(peer->regions, lo, hi);
        if (NULL != region) {
            OBJ_RETAIN(region);
        }
        forgotten = peer->regions_forgotten;
        ompi_osc_newrma_mutex_unlock(&module->attached_lock, OMPI_OSC_NEWRMA_MUTEX_ATTACHED);
        if (NULL != region) {
            *region_p = region;
            return OMPI_SUCCESS;
        }
        ret = rma_region_query(module, rank, lo, hi, ep, &region);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
        ompi_osc_newrma_mutex_lock(&module->attached_lock, OMPI_OSC_NEWRMA_MUTEX_ATTACHED);
        cached = (forgotten == peer->regions_forgotten);
        if (cached) {
            OBJ_RETAIN(region);
            if (OMPI_SUCCESS != ompi_osc_newrma_region_cache_add(&peer->regions, region,
                                                                 component.dynamic_regions)) {
                OBJ_RELEASE(region); /* used this once, asked again next time */
            }
        }
        ompi_osc_newrma_mutex_unlock(&module->attached_lock, OMPI_OSC_NEWRMA_MUTEX_ATTACHED);
        if (cached) {
            *region_p = region;
            return OMPI_SUCCESS;
        }
        OBJ_RELEASE(region);
    }
}

static int rma_resolve_dynamic(ompi_osc_newrma_module_t *module, const rma_args_t *a, ptrdiff_t lo,
                               ptrdiff_t hi, rma_target_mem_t *mem)
{
    uint64_t addr = (uint64_t) a->target_disp;
    ompi_osc_newrma_region_t *region;
    int ret;

    if (a->target == module->my_rank) {
        if (!rma_local_attached(module, addr + lo, addr + hi)) {
            return OMPI_ERR_RMA_RANGE;
        }
        mem->direct = (char *) (uintptr_t) addr;
        return OMPI_SUCCESS;
    }
    ret = rma_peer_ep(module, a->target, &mem->ep);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    ret = rma_remote_region(module, a->target, addr + lo, addr + hi, mem->ep, &region);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    mem->rkey = region->rkey;
    mem->region = region;
    mem->addr = addr;
    return OMPI_SUCCESS;
}

/* The target is reached with loads and stores: myself, or a node-local peer
 * in the shared segment when the window uses it directly. */
static inline bool rma_peer_direct(const ompi_osc_newrma_module_t *module,
                                   const ompi_osc_newrma_peer_t *peer, int rank)
{
    return NULL != peer->shm_base && (rank == module->my_rank || module->shm.direct);
}

/* Byte offset of @p disp in @p rank's window, when bytes [lo, hi) relative
 * to it lie inside the window; no overflow anywhere (a wrapped offset could
 * land inside the window). */
static inline __opal_attribute_always_inline__ bool
rma_window_offset(const ompi_osc_newrma_module_t *module, const ompi_osc_newrma_peer_t *peer,
                  ptrdiff_t disp, ptrdiff_t lo, ptrdiff_t hi, ptrdiff_t *offset_p)
{
    /* a layout not known yet: nothing is in range (size 0) */
    ptrdiff_t disp_unit = peer->layout_known ? peer->disp_unit : module->disp_unit;
    ptrdiff_t size = peer->layout_known ? (ptrdiff_t) peer->size : 0;

    return !__builtin_mul_overflow(disp, disp_unit, offset_p) &&
           !__builtin_add_overflow(*offset_p, lo, &lo) &&
           !__builtin_add_overflow(*offset_p, hi, &hi) && lo >= 0 && hi <= size;
}

/* Find the target bytes and check the access lies inside the target window. */
static int rma_resolve(ompi_osc_newrma_module_t *module, const rma_args_t *a, rma_target_mem_t *mem)
{
    ompi_osc_newrma_peer_t *peer = ompi_osc_newrma_peer(module, a->target);
    ptrdiff_t lo, hi, offset;
    int ret;

    memset(mem, 0, sizeof(*mem));
    if (NULL == peer) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    ompi_osc_newrma_dtype_span(a->target_dt, a->target_count, &lo, &hi);
    if (MPI_WIN_FLAVOR_DYNAMIC == module->flavor) {
        return rma_resolve_dynamic(module, a, lo, hi, mem);
    }
    if (rma_peer_direct(module, peer, a->target)) {
        if (!rma_window_offset(module, peer, a->target_disp, lo, hi, &offset)) {
            return OMPI_ERR_RMA_RANGE;
        }
        mem->direct = peer->shm_base + offset;
        return OMPI_SUCCESS;
    }
    ret = rma_peer_ep(module, a->target, &mem->ep);
    if (OMPI_SUCCESS == ret) {
        ret = rma_peer_info(module, a->target, mem->ep);
    }
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    if (!rma_window_offset(module, peer, a->target_disp, lo, hi, &offset) || NULL == peer->rkey) {
        return OMPI_ERR_RMA_RANGE; /* outside, or the target exposed no memory */
    }
    mem->rkey = peer->rkey;
    mem->addr = peer->base + (uint64_t) offset;
    return OMPI_SUCCESS;
}

/* ---- direct load/store (self, and node-local peers through shm) ---- */

/* One side of a copy between layouts: @p count elements of @p dt at
 * @p mem. */
typedef struct {
    struct ompi_datatype_t *dt;
    int count;
    char *mem;
} layout_t;

/* The layout @p l and the contiguous @p stream of its @p bytes: the
 * stream into the layout (@p unpack) or the layout into the stream; a
 * vector by a copy loop (a tenth of the datatype engine's instructions per
 * block), anything else by the engine in one pass. */
static int layout_stream(const layout_t *l, char *stream, size_t bytes, bool unpack)
{
    ompi_osc_newrma_dtype_vector_t v;

    if (ompi_osc_newrma_dtype_vector(l->dt, l->count, &v) &&
        v.count * v.blocks * v.block_bytes == bytes) {
        ompi_osc_newrma_dtype_vector_copy(&v, l->mem, stream, unpack);
        return OMPI_SUCCESS;
    }
    return unpack ? ompi_osc_newrma_dtype_unpack(l->mem, l->dt, l->count, stream, bytes)
                  : ompi_osc_newrma_dtype_pack(stream, l->mem, l->dt, l->count, bytes);
}

/* The same layout both sides: a vector by its own loop (opal's took a GET
 * of 65536 doubles at stride 2 four times as long), any other block to
 * block by Open MPI's copy between equal layouts. */
static int layout_same(const layout_t *dst, const layout_t *src)
{
    ompi_osc_newrma_dtype_vector_t v;

    if (ompi_osc_newrma_dtype_vector(dst->dt, dst->count, &v)) {
        ompi_osc_newrma_dtype_vector_same(&v, dst->mem, src->mem);
        return OMPI_SUCCESS;
    }
    return 0 == ompi_datatype_copy_content_same_ddt(dst->dt, (size_t) dst->count, dst->mem,
                                                    src->mem)
               ? OMPI_SUCCESS
               : OMPI_ERROR;
}

/* Two strided layouts that differ, through a packed piece of at most
 * LAYOUT_PIECE bytes at a time, which stays in the cache (as Open MPI's
 * own copy between two layouts does). */
#define LAYOUT_PIECE (64u << 10)
static int layout_pieces(const layout_t *dst, const layout_t *src, size_t bytes)
{
    char *piece = malloc(bytes < LAYOUT_PIECE ? bytes : LAYOUT_PIECE);
    int ret = NULL == piece ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;

    for (size_t off = 0, len; OMPI_SUCCESS == ret && off < bytes; off += len) {
        len = bytes - off < LAYOUT_PIECE ? bytes - off : LAYOUT_PIECE;
        ret = ompi_osc_newrma_dtype_pack_at(piece, src->mem, src->dt, src->count, off, len);
        if (OMPI_SUCCESS == ret) {
            ret = ompi_osc_newrma_dtype_unpack_at(dst->mem, dst->dt, dst->count, off, piece, len);
        }
    }
    free(piece);
    return ret;
}

/* @p bytes of data from layout @p src to layout @p dst (same type
 * signature), in one pass wherever a side is contiguous or both are the
 * same layout.  Copying both strided sides through a packed copy of the
 * whole access took a GET of a vector of 65536 doubles (8 of every 16)
 * 39 us, osc/rdma's 19; an MPI_NO_OP read of it 39 against 19 too. */
static int layout_copy(const layout_t *dst, const layout_t *src, size_t bytes)
{
    ptrdiff_t doff, soff;
    bool dcontig = ompi_osc_newrma_dtype_contig(dst->dt, dst->count, &doff),
         scontig = ompi_osc_newrma_dtype_contig(src->dt, src->count, &soff);

    if (dcontig && scontig) { /* the common case: one block each side */
        ompi_osc_newrma_copy(dst->mem + doff, src->mem + soff, bytes);
        return OMPI_SUCCESS;
    }
    if (dcontig) {
        return layout_stream(src, dst->mem + doff, bytes, false);
    }
    if (scontig) {
        return layout_stream(dst, src->mem + soff, bytes, true);
    }
    if (dst->dt == src->dt && dst->count == src->count) {
        return layout_same(dst, src);
    }
    return layout_pieces(dst, src, bytes);
}

/* A move between @p local and @p t (into @p t when @p put) of one block
 * each side, of segment_share_bytes or more, to window rank @p rank, a
 * node-local peer whose part of the node's segment @p t lies in: copied
 * with its agent (ompi_osc_newrma_mbox_share_segment), two processes
 * copying halves of 2 MiB beat one (the fast paths leave such blocks to
 * this way: rma_fast).  @return OMPI_ERR_NOT_AVAILABLE when not so moved
 * (nothing moved), else the move's status. */
static int direct_shared(ompi_osc_newrma_module_t *module, int rank, bool put,
                         const layout_t *local, const layout_t *t, size_t bytes)
{
    ompi_osc_newrma_peer_t *peer;
    ptrdiff_t loff, toff;

    if (bytes < module->seg_share_from || rank == module->my_rank ||
        NULL == (peer = ompi_osc_newrma_peer(module, rank)) ||
        !ompi_osc_newrma_dtype_contig(local->dt, local->count, &loff) ||
        !ompi_osc_newrma_dtype_contig(t->dt, t->count, &toff)) {
        return OMPI_ERR_NOT_AVAILABLE;
    }
    return ompi_osc_newrma_mbox_share_segment(module, rank, put, local->mem + loff, t->mem + toff,
                                              (size_t) (t->mem + toff - peer->shm_base), bytes);
}

static int rma_direct(ompi_osc_newrma_module_t *module, const rma_args_t *a, char *target,
                      size_t bytes)
{
    layout_t t = {a->target_dt, a->target_count, target},
             o = {a->origin_dt, a->origin_count, (char *) a->origin_addr};
    bool put = OMPI_OSC_NEWRMA_OP_PUT == a->kind;
    int ret = direct_shared(module, a->target, put, &o, &t, bytes);

    if (OMPI_ERR_NOT_AVAILABLE != ret) {
        return ret;
    }
    return put ? layout_copy(&t, &o, bytes) : layout_copy(&o, &t, bytes);
}

/* A node-local or own target's MPI_NO_OP read or MPI_REPLACE (fetching or
 * not) under the plain rule: layout_copy under the accumulate lock, every
 * side in its own layout, where the element walk packed the old values
 * and unpacked them again (ARMCI-MPI makes every get such a read, of a
 * subarray).  @return OMPI_ERR_NOT_AVAILABLE, having done nothing, for
 * any other access. */
static int direct_acc_move(ompi_osc_newrma_module_t *module, const rma_args_t *a, char *target,
                           size_t bytes, volatile int32_t *lock)
{
    bool fetch = ompi_osc_newrma_op_kind_fetches(a->kind), replace;
    layout_t t = {a->target_dt, a->target_count, target},
             o = {a->origin_dt, a->origin_count, (char *) a->origin_addr},
             r = {a->result_dt, a->result_count, a->result_addr};
    int ret = OMPI_SUCCESS;

    if (!ompi_osc_newrma_acc_plain(module) || NULL != a->compare_addr || NULL == a->op) {
        return OMPI_ERR_NOT_AVAILABLE;
    }
    replace = ompi_osc_newrma_acc_is_replace(a->op);
    if (!replace && !(fetch && ompi_osc_newrma_acc_is_no_op(a->op))) {
        return OMPI_ERR_NOT_AVAILABLE;
    }
    ompi_osc_newrma_acc_lock_take(lock);
    /* a move alone (no fetch beside a write) may share its copy, under the
     * lock for the whole of it as the memcpy: what the origin may wait for
     * meanwhile is the chunk the agent is copying, which takes no lock */
    ret = fetch != replace ? direct_shared(module, a->target, replace, replace ? &o : &r, &t, bytes)
                           : OMPI_ERR_NOT_AVAILABLE;
    if (OMPI_ERR_NOT_AVAILABLE == ret) {
        ret = fetch ? layout_copy(&r, &t, bytes) : OMPI_SUCCESS;
        if (OMPI_SUCCESS == ret && replace) {
            ret = layout_copy(&t, &o, bytes);
        }
    }
    ompi_osc_newrma_acc_lock_release(lock);
    return ret;
}

/* The bytes from which a reduction on elements wider than 8 bytes is
 * shared (OMPI_OSC_NEWRMA_SHARE_DEAR_DIVISOR): the least any is. */
static inline size_t acc_dear_from(const ompi_osc_newrma_module_t *module)
{
    return module->seg_share_from / OMPI_OSC_NEWRMA_SHARE_DEAR_DIVISOR;
}

/* The bytes from which a reduction on elements of @p basic is shared. */
static inline size_t acc_share_from(const ompi_osc_newrma_module_t *module,
                                    struct ompi_datatype_t *basic)
{
    size_t size;

    ompi_datatype_type_size(basic, &size);
    return size > 8 ? acc_dear_from(module) : module->seg_share_from;
}

/* An MPI_Accumulate's or MPI_Get_accumulate's reduction of one block each
 * side, of segment_share_bytes or more (acc_share_from), under the plain
 * rule, to a node-local peer whose part of the node's segment @p target
 * lies in: reduced with its agent (ompi_osc_newrma_mbox_share_reduce)
 * under the accumulate lock, held for the whole of it as by one process.
 * @return OMPI_ERR_NOT_AVAILABLE, having done nothing, for any other
 * access. */
static int direct_acc_shared(ompi_osc_newrma_module_t *module, const rma_args_t *a, char *target,
                             size_t bytes, volatile int32_t *lock)
{
    bool fetch = OMPI_OSC_NEWRMA_OP_GACC == a->kind;
    ompi_osc_newrma_peer_t *peer;
    ptrdiff_t ooff, toff, roff = 0;
    int ret;

    if (bytes < acc_share_from(module, a->basic) || a->target == module->my_rank ||
        (OMPI_OSC_NEWRMA_OP_ACC != a->kind && !fetch) || NULL != a->compare_addr || NULL == a->op ||
        !ompi_osc_newrma_acc_plain(module) || !ompi_osc_newrma_acc_reduces(a->op, a->basic) ||
        NULL == (peer = ompi_osc_newrma_peer(module, a->target)) ||
        !ompi_osc_newrma_dtype_contig(a->origin_dt, a->origin_count, &ooff) ||
        !ompi_osc_newrma_dtype_contig(a->target_dt, a->target_count, &toff) ||
        (fetch && !ompi_osc_newrma_dtype_contig(a->result_dt, a->result_count, &roff))) {
        return OMPI_ERR_NOT_AVAILABLE;
    }
    ompi_osc_newrma_acc_lock_take(lock);
    ret = ompi_osc_newrma_mbox_share_reduce(
        module, a->target, a->op, a->basic, (const char *) a->origin_addr + ooff,
        fetch ? (char *) a->result_addr + roff : NULL, target + toff,
        (size_t) (target + toff - peer->shm_base), bytes);
    ompi_osc_newrma_acc_lock_release(lock);
    return ret;
}

/* One side (origin or result) of rma_direct_acc: absent, contiguous and
 * used where it lies (@p at, its first byte), or strided and packed piece
 * by piece through @p piece. */
typedef struct {
    const layout_t *l;
    char *at;
    char *piece;
} acc_side_t;

/* @p s for layout @p l (@p present: the access has this side); @return
 * whether it is strided. */
static bool acc_side_open(acc_side_t *s, const layout_t *l, bool present)
{
    ptrdiff_t lb;

    s->l = l;
    s->at = NULL;
    s->piece = NULL;
    if (present && ompi_osc_newrma_dtype_contig(l->dt, l->count, &lb)) {
        s->at = l->mem + lb;
    }
    return present && NULL == s->at;
}

/* A strided side's piece buffer of @p piece bytes. */
static int acc_side_piece(acc_side_t *s, size_t piece)
{
    s->piece = malloc(piece);
    return NULL == s->piece ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

/* Bytes [@p off, + @p len) of side @p s in packed form, *@p packed_p (NULL
 * for an absent side); a strided side's packed from its layout when
 * @p pack. */
static int acc_side_part(const acc_side_t *s, size_t off, size_t len, bool pack, char **packed_p)
{
    if (NULL != s->at) {
        *packed_p = s->at + off;
        return OMPI_SUCCESS;
    }
    *packed_p = s->piece;
    return NULL != s->piece && pack
               ? ompi_osc_newrma_dtype_pack_at(s->piece, s->l->mem, s->l->dt, s->l->count, off, len)
               : OMPI_SUCCESS;
}

/* Whether ompi_osc_newrma_acc_apply can read @p a's strided origin where
 * it lies, in the target's layout (ompi_osc_newrma_acc_apply_t's
 * origin_in_layout): the same layout, a reduction, elements without
 * padding. */
static bool acc_origin_in_layout(const rma_args_t *a)
{
    return a->origin_dt == a->target_dt && a->origin_count == a->target_count &&
           NULL == a->compare_addr && NULL != a->op && !ompi_osc_newrma_acc_is_replace(a->op) &&
           !ompi_osc_newrma_acc_is_no_op(a->op) && ompi_osc_newrma_acc_in_place(a->basic);
}

/* The accumulate applied in place, atomically per element, with the
 * target's accumulate lock for what CPU atomics cannot do.  A strided
 * origin or result goes through packed pieces of at most LAYOUT_PIECE
 * bytes (whole elements), each applied in turn: a packed copy of the
 * whole access, in freshly mapped pages each time, took an MPI_SUM of a
 * 256x256 subarray of doubles, both sides strided, 20 us against
 * osc/rdma's 12. */
static int rma_direct_acc(ompi_osc_newrma_module_t *module, const rma_args_t *a, char *target,
                          size_t bytes, volatile int32_t *lock)
{
    ompi_osc_newrma_acc_apply_t ap = {0};
    bool fetch = ompi_osc_newrma_op_kind_fetches(a->kind), origin = NULL != a->origin_dt, ostrided;
    layout_t o = {a->origin_dt, a->origin_count, (char *) a->origin_addr},
             r = {a->result_dt, a->result_count, a->result_addr};
    acc_side_t os, rs;
    size_t size, piece;
    int ret = direct_acc_move(module, a, target, bytes, lock);

    if (OMPI_ERR_NOT_AVAILABLE == ret) {
        ret = direct_acc_shared(module, a, target, bytes, lock);
    }
    if (OMPI_ERR_NOT_AVAILABLE != ret) {
        return ret;
    }
    ap.plain = ompi_osc_newrma_acc_plain(module);
    /* pairs with padding, every side the predefined type itself (as
     * acc_fast_padded, for the epochs that queue their operations: a PSCW
     * epoch's MAXLOC of 128 KiB of MPI_DOUBLE_INT took 35 us packed, osc/sm
     * 6) */
    if (ap.plain && a->origin_dt == a->target_dt && a->origin_count == a->target_count &&
        (!fetch || (a->result_dt == a->target_dt && a->result_count == a->target_count)) &&
        ompi_datatype_is_predefined(a->target_dt) && a->target_count > 0 &&
        ompi_osc_newrma_acc_padded(a->kind, a->op, a->target_dt, target, a->origin_addr,
                                   fetch ? a->result_addr : NULL, (size_t) a->target_count, lock)) {
        return OMPI_SUCCESS;
    }
    ompi_datatype_type_size(a->basic, &size);
    piece = bytes > LAYOUT_PIECE && size <= LAYOUT_PIECE ? LAYOUT_PIECE / size * size : bytes;
    /* an origin in the target's own layout is read in place, unpacked */
    ostrided = acc_side_open(&os, &o, origin);
    ap.origin_in_layout = ostrided && ap.plain && acc_origin_in_layout(a);
    ret = ostrided && !ap.origin_in_layout ? acc_side_piece(&os, piece) : OMPI_SUCCESS;
    if (acc_side_open(&rs, &r, fetch) && OMPI_SUCCESS == ret) {
        ret = acc_side_piece(&rs, piece);
    }
    if (NULL == os.piece && NULL == rs.piece) {
        piece = bytes; /* no side packed: one application */
    }
    ap.base = target;
    ap.target_dt = a->target_dt;
    ap.target_count = a->target_count;
    ap.compare = a->compare_addr;
    ap.basic = a->basic;
    ap.op = a->op;
    ap.lock = lock;
    for (size_t off = 0, len; OMPI_SUCCESS == ret && off < bytes; off += len) {
        char *opacked = o.mem, *rpacked = NULL;

        len = bytes - off < piece ? bytes - off : piece;
        if (!ap.origin_in_layout) {
            ret = acc_side_part(&os, off, len, true, &opacked);
        }
        if (OMPI_SUCCESS == ret) {
            ret = acc_side_part(&rs, off, len, false, &rpacked);
        }
        ap.offset = off;
        ap.len = len;
        ap.origin = opacked;
        ap.result = rpacked;
        if (OMPI_SUCCESS == ret) {
            ret = ompi_osc_newrma_acc_apply(&ap);
        }
        if (OMPI_SUCCESS == ret && NULL != rs.piece) {
            ret = ompi_osc_newrma_dtype_unpack_at(r.mem, r.dt, r.count, off, rs.piece, len);
        }
    }
    free(os.piece);
    free(rs.piece);
    return ret;
}

/* ---- operation elements over UCX ---- */

typedef struct {
    ompi_osc_newrma_op_t *op;
    ucp_ep_h ep;
    ucp_rkey_h rkey;
    char *stream;
} rdma_segments_t;

static int rdma_segment(uint64_t addr, size_t len, size_t offset, void *ctx)
{
    rdma_segments_t *s = ctx;

    return ompi_osc_newrma_ucx_rdma(s->op, s->ep, s->stream + offset, len, addr, s->rkey);
}

typedef struct {
    size_t segments;
    /* more segments than this means blocks under PUT_SEGMENT_MIN on average */
    size_t limit;
} segment_count_t;

static int count_segment(uint64_t addr, size_t len, size_t offset, void *ctx)
{
    segment_count_t *count = ctx;

    (void) addr, (void) len, (void) offset;
    /* stop the walk as soon as the answer is known */
    return ++count->segments > count->limit ? OMPI_EXISTS : OMPI_SUCCESS;
}

/* A target layout of many small blocks costs one RDMA transfer per block;
 * sending the packed data with the layout's description lets the target
 * unpack it in one pass instead (design: "Datatype In RMA"). */
static bool op_target_fine_grained(const ompi_osc_newrma_op_t *op)
{
    /* at least 1: one block is never fine-grained, and the walk must go on
     * past the first block of an op under PUT_SEGMENT_MIN bytes */
    size_t limit = op->bytes / OMPI_OSC_NEWRMA_PUT_SEGMENT_MIN;
    segment_count_t count = {0, limit > 1 ? limit : 1};

    (void) ompi_osc_newrma_dtype_foreach_segment(op->target_dt, op->target_count, 0, count_segment,
                                                 &count);
    return count.segments > count.limit;
}

bool ompi_osc_newrma_target_complete_by_flag(const ompi_osc_newrma_module_t *module,
                                             const ompi_osc_newrma_target_t *target)
{
    return ompi_osc_newrma_shm_whole(&module->shm) && 0 == target->am_sent &&
           NULL == target->batch.buf;
}

/* A GET or PUT of a size that goes by RDMA in streams too
 * (osc_newrma_get_rdma_bytes, osc_newrma_put_rdma_bytes). */
static bool rdma_sized(ompi_osc_newrma_op_kind_t kind, size_t bytes)
{
    return (OMPI_OSC_NEWRMA_OP_GET == kind && component.get_rdma_bytes > 0 &&
            bytes >= component.get_rdma_bytes) ||
           (OMPI_OSC_NEWRMA_OP_PUT == kind && component.put_rdma_bytes > 0 &&
            bytes >= component.put_rdma_bytes);
}

/* A contiguous PUT or GET of this size to this peer goes as packets.  Up to
 * aggregate_threshold: by RDMA where the transport has it, when alone
 * (op_lone) or of rdma_sized; not when UNLOCK or COMPLETE closes the
 * epoch: the packets and the closing one go in one message, where RDMA
 * would first need an endpoint flush (a round trip more: a PUT under PSCW
 * took 1.9 us instead of 1.3).  But a COMPLETE that is the segment's flag
 * (ompi_osc_newrma_target_complete_by_flag) has no packet to carry them:
 * then ops of rdma_sized go by RDMA, sparing the target's agent the round
 * trip (a GET of 32 KiB under PSCW on a create window took 7.7-17 us as a
 * packet and its answer, osc/rdma 6.0-8.0).  @p op NULL: an access packed
 * by the call (rma_packed), never alone, a stream going. */
static inline __opal_attribute_always_inline__ bool
size_as_packets_to(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_peer_t *peer,
                   ompi_osc_newrma_target_t *target, ompi_osc_newrma_op_kind_t kind, size_t bytes,
                   const ompi_osc_newrma_op_t *op)
{
    size_t threshold = module->config.aggregate_threshold;

    if (!ompi_osc_newrma_peer_bypass_ok(module, peer)) {
        return true;
    }
    if (0 == threshold) {
        return false;
    }
    if (bytes > threshold) {
        return peer->bulk_packets;
    }
    /* (a lock word is released without a message: nothing to carry it) */
    if (!peer->rdma_native ||
        (OMPI_OSC_NEWRMA_SYNC_UNLOCK == target->sync_flag && NULL == peer->lock)) {
        return true;
    }
    if (OMPI_OSC_NEWRMA_SYNC_COMPLETE == target->sync_flag) {
        return !(rdma_sized(kind, bytes) &&
                 ompi_osc_newrma_target_complete_by_flag(module, target));
    }
    if (rdma_sized(kind, bytes)) {
        return false;
    }
    return !(component.lone_rdma && NULL != op && ompi_osc_newrma_op_lone(target, op));
}

/* size_as_packets_to, @p target's peer looked up */
static bool size_as_packets(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                            ompi_osc_newrma_op_kind_t kind, size_t bytes,
                            const ompi_osc_newrma_op_t *op)
{
    return size_as_packets_to(module, ompi_osc_newrma_peer(module, target->rank), target, kind,
                              bytes, op);
}

static bool op_size_as_packets(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                               const ompi_osc_newrma_op_t *op)
{
    return size_as_packets(module, target, op->kind, op->bytes, op);
}

bool ompi_osc_newrma_op_as_packets(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_target_t *target, const ompi_osc_newrma_op_t *op)
{
    ptrdiff_t toff;

    if (ompi_osc_newrma_dtype_contig(op->target_dt, op->target_count, &toff)) {
        return op_size_as_packets(module, target, op);
    }
    /* a layout of few, large blocks (one, say, of a vector of count 1) goes
     * as packets where a contiguous range of its size would: one packet
     * beats an RDMA transfer per block there.  The size first: it spares
     * small ops the walk over the layout's blocks. */
    return op_size_as_packets(module, target, op) || op_target_fine_grained(op);
}

/* A small PUT is copied into the target's aggregated message (its buffer
 * is free at once); a larger one goes as packets of one message's size each,
 * sent from its own buffer: the target applies each as it arrives (a
 * pipeline, no round trip per chunk), and the op completes once UCX has
 * sent them all.  By rendezvous only with rndv_puts: over TCP one such
 * transfer (its RTS and the target's RTR, one send of all its bytes, UCX's
 * acknowledgement) took a lone 2 MiB PUT 1.3 times, a 4 MiB one 1.45 times
 * the packets' time, at the same bandwidth in streams. */
static int op_put_packets(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                          ompi_osc_newrma_op_t *op, const char *stream, uint64_t taddr)
{
    size_t chunk = ompi_osc_newrma_pkt_chunk_max(module);
    int ret = OMPI_SUCCESS;

    if (op->bytes <= module->config.aggregate_threshold) {
        return ompi_osc_newrma_pkt_put_contig(module, target, stream, op->bytes, taddr);
    }
    if (component.rndv_puts && ompi_osc_newrma_pkt_rndv(module, op->bytes)) {
        OSC_NEWRMA_VERBOSE(30, "PUT of %zu bytes to rank %d by rendezvous", op->bytes,
                           target->rank);
        return ompi_osc_newrma_pkt_put_bulk(module, target, op, stream, op->bytes, taddr, true);
    }
    for (size_t offset = 0; OMPI_SUCCESS == ret && offset < op->bytes; offset += chunk) {
        size_t len = op->bytes - offset < chunk ? op->bytes - offset : chunk;

        ret = ompi_osc_newrma_pkt_put_bulk(module, target, op, stream + offset, len, taddr + offset,
                                           false);
    }
    return ret;
}

/* Whether the window's last synchronization that completed accesses
 * waited for its targets' answers, as the next one likely will: a flush or
 * an unlock (or none yet), for a read (@p write false) also a flush_local;
 * not a fence or MPI_Win_complete, which wait for all targets while their
 * agents answer, nor a write's flush_local, which waits for nothing. */
static bool last_sync_waits(const ompi_osc_newrma_module_t *module, bool write)
{
    switch (module->last_sync) {
        case OMPI_OSC_NEWRMA_SYNC_NONE:
        case OMPI_OSC_NEWRMA_SYNC_FLUSH:
        case OMPI_OSC_NEWRMA_SYNC_UNLOCK:
            return true;
        case OMPI_OSC_NEWRMA_SYNC_FLUSH_LOCAL:
            return !write;
        default:
            return false;
    }
}

/* The smallest access the copy takes, a write (PUT, MPI_REPLACE) or not
 * (@p write false: GET, MPI_NO_OP read): @p limit (cma_bytes or
 * acc_cma_bytes); but from cma_small_bytes after a synchronization that
 * waited for its targets (flush, unlock; for a read also flush_local), as
 * the next one likely will:
 * the mailbox's answer waits for the target's agent (a 128-byte GET +
 * flush 0.72 us so, 0.48 by the copy), but a fence or MPI_Win_complete
 * waits for all while the agent answers, and a PUT's flush_local waits for
 * nothing (a 128-byte GET under fence 1.01 us through the mailbox, 1.20 by
 * the copy; a PUT + flush_local 0.09 and 0.48).  A PUT the slot itself
 * carries (OMPI_OSC_NEWRMA_SHM_MBOX_BYTES) stays there (32 bytes + flush:
 * 0.38, by the copy 0.46). */
static size_t cma_min_bytes(const ompi_osc_newrma_module_t *module, bool write, size_t limit)
{
    size_t small = (size_t) component.cma_small_bytes;

    if (!last_sync_waits(module, write)) {
        return limit;
    }
    if (0 == small) {
        return limit;
    }
    if (write && small <= OMPI_OSC_NEWRMA_SHM_MBOX_BYTES) {
        small = OMPI_OSC_NEWRMA_SHM_MBOX_BYTES + 1;
    }
    return small < limit ? small : limit;
}

/* @p rank's peer when the cross-memory copy may reach its window now: on
 * this node (ompi_osc_newrma_shm_cma_peer) and known to be past the last
 * fence that ended an epoch (ompi_osc_newrma_peer_bypass_ok).  The copy
 * bypasses the peer's agent as RDMA does: right after such a fence another
 * origin's packets of the ending epoch may still be on their way to it (a
 * PUT from another node landed after this node's PUT of the next epoch),
 * where packets of mine wait behind them (pkt_epoch_hold). */
static ompi_osc_newrma_peer_t *cma_peer(ompi_osc_newrma_module_t *module, int rank)
{
    ompi_osc_newrma_peer_t *peer = ompi_osc_newrma_shm_cma_peer(module, rank);

    return NULL != peer && ompi_osc_newrma_peer_bypass_ok(module, peer) ? peer : NULL;
}

/* @p rank's peer when a contiguous access of @p bytes, a write or not (as
 * cma_min_bytes, from @p limit: osc_newrma_cma_bytes for PUTs and GETs,
 * osc_newrma_acc_cma_bytes for MPI_REPLACE and MPI_NO_OP reads), is of the
 * size the cross-memory copy takes, else NULL: the call moves it so
 * where nothing is in flight (cma_at_call), else leaves it to the queue,
 * where a lone one takes the copy (op_cma_picked).  Only a node-local
 * peer's: RDMA from the call serves the others. */
static ompi_osc_newrma_peer_t *cma_sized(ompi_osc_newrma_module_t *module, int rank, bool write,
                                         size_t limit, size_t bytes)
{
    return module->config.shm && limit > 0 && bytes >= cma_min_bytes(module, write, limit)
               ? cma_peer(module, rank)
               : NULL;
}

/* A copy of this size is shared with the target's agent
 * (osc_newrma_cma_share_bytes, cma_copy). */
static inline bool cma_share_sized(size_t bytes)
{
    return component.cma_share_bytes > 0 && bytes >= (size_t) component.cma_share_bytes;
}

/* A PUT of a stream of this size is copied too (osc_newrma_cma_stream_bytes),
 * and a GET of osc_newrma_cma_share_bytes or more, whose copy the target's
 * agent shares (cma_copy): smaller GETs of a stream move faster by UCX,
 * whose pipeline has both processes copying, but these did not (64 GETs
 * of 2 MiB + flush on a create window 11.4 GB/s by UCX, 19.3-20.1 by the
 * shared copies; of 512 KiB 9.1-9.5 and 17.5-18.1; osc/ucx 11.4-11.6). */
static inline bool cma_stream_sized(ompi_osc_newrma_op_kind_t kind, size_t bytes)
{
    if (OMPI_OSC_NEWRMA_OP_GET == kind) {
        return cma_share_sized(bytes);
    }
    return OMPI_OSC_NEWRMA_OP_PUT == kind && component.cma_stream_bytes > 0 &&
           bytes >= (size_t) component.cma_stream_bytes;
}

/* Whether a contiguous @p kind access (PUT or GET) of @p bytes to @p rank
 * is the copy now: cma_sized, and the first to the target since the last
 * synchronization (sync_seq) or a PUT of cma_stream_sized.  The later ones
 * of such a stream take the target's mailbox or UCX, which have both
 * processes copying: 64 PUTs of 2 KiB + flush moved 3.5 GB/s by the copy,
 * 7.1 through the mailbox; 64 GETs of 8 KiB 11.1 by the copy, 12.9 by
 * UCX.  Those later ones, most of the accesses that ask, are told first:
 * the size test was 77 of a stream GET's instructions.  (The peer lookup
 * makes no entry the access's own would not.) */
static bool cma_takes(ompi_osc_newrma_module_t *module, int rank, ompi_osc_newrma_op_kind_t kind,
                      size_t bytes)
{
    const ompi_osc_newrma_peer_t *peer = ompi_osc_newrma_peer(module, rank);

    if (NULL == peer || (peer->cma_seq == module->sync_seq && !cma_stream_sized(kind, bytes))) {
        return false;
    }
    return NULL !=
           cma_sized(module, rank, OMPI_OSC_NEWRMA_OP_PUT == kind, module->config.cma_bytes, bytes);
}

bool ompi_osc_newrma_op_by_cma(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                               const ompi_osc_newrma_op_t *op)
{
    ptrdiff_t off;

    /* Only a lone op: the only one in its target's list, nothing queued
     * behind it and nothing earlier unreaped.  A stream of them moves faster
     * by UCX, whose pipeline has both processes copying, where one process
     * would copy alone and the kernel pin the peer's pages call by call. */
    if ((OMPI_OSC_NEWRMA_OP_PUT != op->kind && OMPI_OSC_NEWRMA_OP_GET != op->kind) ||
        &op->super != opal_list_get_first(&target->ops) ||
        &op->super != opal_list_get_last(&target->ops) ||
        !ompi_osc_newrma_dtype_contig(op->target_dt, op->target_count, &off)) {
        return false;
    }
    return cma_takes(module, target->rank, op->kind, op->bytes);
}

/* A PUT's (@p put) or GET's cross-memory copy of @p bytes with window
 * rank @p rank (process @p pid): shared with the target's agent from
 * osc_newrma_cma_share_bytes (ompi_osc_newrma_mbox_share_copy), alone
 * where no mailbox slot is free. */
static int cma_copy(ompi_osc_newrma_module_t *module, int rank, int32_t pid, bool put, char *local,
                    uint64_t remote, size_t bytes)
{
    if (cma_share_sized(bytes)) {
        int ret = ompi_osc_newrma_mbox_share_copy(module, rank, pid, put, local, remote, bytes);

        if (OMPI_ERR_NOT_AVAILABLE != ret) {
            return ret;
        }
    }
    return ompi_osc_newrma_shm_cma(pid, put, local, remote, bytes);
}

/* A large contiguous PUT or GET to a node-local peer whose memory is not in
 * the shared segment, alone in its target's list: one cross-memory copy,
 * complete when it returns.  UCX's own took 220 us for 2 MiB here, the
 * system call 84.
 * @return OMPI_ERR_NOT_AVAILABLE when the kernel refuses: the op takes
 * UCX's path. */
static int op_cma(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                  ompi_osc_newrma_op_t *op, char *stream, ptrdiff_t toff)
{
    int ret = cma_copy(module, target->rank, ompi_osc_newrma_peer(module, target->rank)->cma_pid,
                       OMPI_OSC_NEWRMA_OP_PUT == op->kind, stream,
                       op->target_addr + (uint64_t) toff, op->bytes);
    if (OMPI_SUCCESS == ret) {
        OSC_NEWRMA_VERBOSE(30, "%s of %zu bytes to rank %d by cross-memory copy",
                           OMPI_OSC_NEWRMA_OP_PUT == op->kind ? "PUT" : "GET", op->bytes,
                           target->rank);
        ompi_osc_newrma_stat_op(&module->stats, op->kind, OMPI_OSC_NEWRMA_STAT_OPS_RDMA, op->bytes);
    }
    return ret;
}

void ompi_osc_newrma_op_cma_record(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_op_t *op,
                                   int way, uint64_t ns)
{
    /* reads (GETs, MPI_NO_OP reads) share a pick */
    ompi_osc_newrma_pick_t *pick = &module->cma_pick[OMPI_OSC_NEWRMA_OP_PUT != op->kind];

    ompi_osc_newrma_pick_record(pick, way, op->bytes, ns);
    OSC_NEWRMA_VERBOSE(30, "%s: %llu ns per KiB lately, the other way %llu",
                       OMPI_OSC_NEWRMA_CMA_WAY_COPY == way ? "cross-memory copy" : "UCX's transfer",
                       (unsigned long long) pick->ns_per_kib[way],
                       (unsigned long long) pick->ns_per_kib[1 - way]);
}

/* Such an op by the way that moved a KiB faster in this window lately
 * (osc_newrma_cma_pick), each measured as it is used: the copy's call, or
 * UCX's transfer from its issue to its last completion callback, for a PUT
 * an endpoint flush behind it (ompi_osc_newrma_ucx_rdma_flushed): UCX's
 * PUT completes locally first, its data still in the target's FIFO, and
 * timed so it looked twice as fast as it was (a 2 MiB PUT + fence 174-192
 * us picked, 133-148 by the copy, osc/rdma's 113-146).  Below
 * cma_pick_bytes always the copy (a 512-byte PUT + flush 1.07 us picked,
 * 0.59 by the copy).
 * @return OMPI_ERR_NOT_AVAILABLE when the op takes UCX's path. */
static int op_cma_picked(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                         ompi_osc_newrma_op_t *op, char *stream, ptrdiff_t toff)
{
    ompi_osc_newrma_pick_t *pick = &module->cma_pick[OMPI_OSC_NEWRMA_OP_GET == op->kind];
    uint64_t start;
    int ret;

    if (component.cma_pick && op->bytes >= component.cma_pick_bytes &&
        OMPI_OSC_NEWRMA_CMA_WAY_UCX == ompi_osc_newrma_pick(pick)) {
        op->timed_ns = ompi_osc_newrma_pick_now_ns();
        return OMPI_ERR_NOT_AVAILABLE;
    }
    start = ompi_osc_newrma_pick_now_ns();
    ret = op_cma(module, target, op, stream, toff);
    if (OMPI_SUCCESS == ret) {
        ompi_osc_newrma_op_cma_record(module, op, OMPI_OSC_NEWRMA_CMA_WAY_COPY,
                                      ompi_osc_newrma_pick_now_ns() - start);
    }
    return ret;
}

/* Before an RDMA transfer to @p target: a write needs an RMA_DONE (an
 * endpoint flush) before the target may count it done; a read is fenced
 * behind earlier writes of this process, which UCX orders on an endpoint
 * only across a fence (location consistency: a GET sees its origin's
 * earlier PUT by RDMA too). */
static int rdma_mark(ompi_osc_newrma_target_t *target, bool write)
{
    if (write) {
        target->needs_rma_done = true;
        target->rdma_writes_unfenced = true;
        return OMPI_SUCCESS;
    }
    target->rdma_reads = true;
    if (!target->rdma_writes_unfenced) {
        return OMPI_SUCCESS;
    }
    target->rdma_writes_unfenced = false;
    return ompi_osc_newrma_ucx_fence();
}

/* Whether accumulate @p op to a node-local target may be applied under
 * the target's accumulate lock by a way other than its packets or its
 * slot (the copy, a stream through the mailbox): a contiguous target range
 * (*@p toff_p) under the plain rule (no UCX atomic bypasses the lock),
 * alone at its target with nothing of this process before it unapplied
 * there (no packet without its acknowledgement, no mailbox access, no RDMA
 * write unflushed): it overtakes no earlier accumulate. */
static bool acc_alone(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                      const ompi_osc_newrma_op_t *op, ptrdiff_t *toff_p)
{
    return module->config.shm && ompi_osc_newrma_acc_plain(module) &&
           ompi_osc_newrma_op_lone(target, op) && !target->needs_rma_done &&
           NULL == target->mbox_slot && 0 == target->owed_at_call &&
           0 == *ompi_osc_newrma_ack_counter(module, target) &&
           ompi_osc_newrma_dtype_contig(op->target_dt, op->target_count, toff_p);
}

/* Whether @p op may move its data by a cross-memory copy under the
 * accumulate lock of its node-local target (acc_cma): MPI_REPLACE, or a
 * read (MPI_NO_OP), of at least acc_cma_bytes, acc_alone. */
static bool acc_cma_wanted(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                           const ompi_osc_newrma_op_t *op, ptrdiff_t *toff_p)
{
    bool replace = OMPI_OSC_NEWRMA_OP_ACC == op->kind && ompi_osc_newrma_acc_is_replace(op->acc_op);
    bool read = OMPI_OSC_NEWRMA_OP_GACC == op->kind && ompi_osc_newrma_acc_is_no_op(op->acc_op);

    return (replace || read) && 0 != module->config.acc_cma_bytes &&
           op->bytes >= module->config.acc_cma_bytes && acc_alone(module, target, op, toff_p);
}

/* An MPI_NO_OP read that acc_cma would copy under the target's
 * accumulate lock, of cma_bytes or more, when the window's pick for reads
 * (cma_pick[1], osc_newrma_cma_pick) takes UCX's transfer: read by that
 * transfer without the lock, between two looks at the lock word, a
 * sequence lock (odd while held, changed by every take and release).  An
 * even word unchanged across the transfer (ompi_osc_newrma_op_read_verify)
 * means no accumulate wrote the target meanwhile, so every element read is
 * whole; otherwise the op reads again by the copy under the lock.  A 2 MiB
 * process_vm_readv took 230 us here, UCX's pipelined transfer through
 * shared memory 140-150 (osc/ucx holds its lock across it; newrma's cannot
 * be held across a transfer that needs the target's progress).
 * Its result stream is set up (acc_cma).
 * @return OMPI_ERR_NOT_AVAILABLE when the op takes the copy. */
static int acc_read_unlocked(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                             ompi_osc_newrma_op_t *op, ompi_osc_newrma_peer_t *peer, ptrdiff_t toff)
{
    int32_t seq = ompi_osc_newrma_acc_lock_seq(&peer->lock->acc_lock);
    int ret;

    if (seq & 1) {
        return OMPI_ERR_NOT_AVAILABLE; /* held now: the copy waits for it */
    }
    ret = rdma_mark(target, false);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    op->read_seq_word = &peer->lock->acc_lock;
    op->read_seq = seq;
    op->read_pid = peer->cma_pid;
    op->read_addr = op->target_addr + (uint64_t) toff;
    op->timed_ns = ompi_osc_newrma_pick_now_ns();
    ompi_osc_newrma_stat_op(&module->stats, op->kind, OMPI_OSC_NEWRMA_STAT_OPS_RDMA, op->bytes);
    OSC_NEWRMA_VERBOSE(30, "MPI_NO_OP read of %zu bytes of rank %d by UCX without the lock",
                       op->bytes, target->rank);
    return ompi_osc_newrma_ucx_rdma(op, op->ep, op->result_stream, op->bytes, op->read_addr,
                                    op->rkey);
}

/* For acc_cma's MPI_NO_OP read of cma_bytes or more: the way the window's
 * pick for reads (cma_pick[1]) takes, or -1 when it has no choice. */
static int acc_read_way(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_op_t *op)
{
    if (!component.cma_pick || OMPI_OSC_NEWRMA_OP_GACC != op->kind ||
        0 == module->config.cma_bytes || op->bytes < module->config.cma_bytes ||
        op->bytes < component.cma_pick_bytes || NULL == op->ep || NULL == op->rkey) {
        return -1;
    }
    return ompi_osc_newrma_pick(&module->cma_pick[1]);
}

/* One cross-memory copy under @p peer's accumulate lock: with @p module,
 * shared with the target's agent as a PUT's or GET's (cma_copy; the agent
 * takes no lock, it copies chunks the lock holder handed out), else alone
 * (what a mailbox stream left, acc_rest_copy, copied alone as before). */
static int acc_copy_locked(ompi_osc_newrma_module_t *module, ompi_osc_newrma_peer_t *peer,
                           bool write, char *local, uint64_t remote, size_t len)
{
    int ret;

    ompi_osc_newrma_acc_lock_take(&peer->lock->acc_lock);
    ret = NULL != module ? cma_copy(module, peer->rank, peer->cma_pid, write, local, remote, len)
                         : ompi_osc_newrma_shm_cma(peer->cma_pid, write, local, remote, len);
    ompi_osc_newrma_acc_lock_release(&peer->lock->acc_lock);
    return ret;
}

/** What a stream's mailbox did not move goes by the copy (acc_stream,
 * acc_reduce_stream). */
typedef struct {
    ompi_osc_newrma_peer_t *peer;
    char *stream;
    uint64_t remote;
    ompi_osc_newrma_op_t *op;
    /** a fetching reduction's old values (acc_fetch_copy), else NULL */
    char *result;
} acc_rest_t;

static int acc_rest_copy(void *arg, size_t offset, size_t len)
{
    acc_rest_t *rest = arg;

    return acc_copy_locked(NULL, rest->peer, true, rest->stream + offset, rest->remote + offset,
                           len);
}

/* For acc_cma's MPI_REPLACE of more than a mailbox slot's area: the way
 * the window's pick for them (stream_pick) takes, or -1 when it has no
 * choice. */
static int acc_stream_way(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_op_t *op)
{
    if (!component.cma_pick || !module->mbox_ok || OMPI_OSC_NEWRMA_OP_ACC != op->kind ||
        op->bytes <= OMPI_OSC_NEWRMA_SHM_MBOX_AREA_BYTES) {
        return -1;
    }
    return ompi_osc_newrma_pick(&module->stream_pick);
}

/* Such an MPI_REPLACE through the target's mailbox
 * (ompi_osc_newrma_mbox_stream), timed for the pick: it needs the target's
 * agent, in MPI, and its core (the copy needs no one).
 * @return OMPI_ERR_NOT_AVAILABLE when it takes the copy. */
static int acc_stream(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                      ompi_osc_newrma_op_t *op, ompi_osc_newrma_peer_t *peer, char *stream,
                      uint64_t remote)
{
    ompi_osc_newrma_mbox_access_t access = {.kind = op->kind,
                                            .bytes = op->bytes,
                                            .addr = remote,
                                            .operands = stream,
                                            .acc_op = op->acc_op,
                                            .acc_basic = op->acc_basic};
    acc_rest_t rest = {peer, stream, remote, op, NULL};
    uint64_t start = ompi_osc_newrma_pick_now_ns();
    int ret = ompi_osc_newrma_mbox_stream(
        module, target, &access, OMPI_OSC_NEWRMA_SHM_MBOX_AREA_BYTES, acc_rest_copy, &rest);

    if (OMPI_SUCCESS == ret) {
        ompi_osc_newrma_pick_record(&module->stream_pick, OMPI_OSC_NEWRMA_ACC_WAY_MAILBOX,
                                    op->bytes, ompi_osc_newrma_pick_now_ns() - start);
    }
    return ret;
}

/* The peer of accumulate @p op, acc_alone at @p target, when the copies
 * of acc_reduce_locked reach it and its accumulate lock (*@p toff_p: where
 * the op starts in its target layout), else NULL.  Such a way starts only
 * once a copy with the job's processes has worked
 * (ompi_osc_newrma_shm_cma_works): a refusal half way would leave part of
 * a reduction applied. */
static ompi_osc_newrma_peer_t *acc_copy_peer(ompi_osc_newrma_module_t *module,
                                             ompi_osc_newrma_target_t *target,
                                             const ompi_osc_newrma_op_t *op, ptrdiff_t *toff_p)
{
    ompi_osc_newrma_peer_t *peer;

    if (!acc_alone(module, target, op, toff_p) || NULL == (peer = cma_peer(module, target->rank)) ||
        NULL == peer->lock ||
        !ompi_osc_newrma_shm_cma_works(peer->cma_pid, op->target_addr + (uint64_t) *toff_p)) {
        return NULL;
    }
    return peer;
}

/* Bytes of a reduction's rest (acc_rest_reduce) read, reduced and written
 * back at a time, under the lock for each. */
#define ACC_REST_BLOCK ((size_t) 131072)

/* A reduction (@p acc_op on elements of @p basic) of @p len bytes at
 * @p remote of @p peer's memory by this process, under the peer's
 * accumulate lock (as its agent applies a slot): read by the copy into
 * @p window, the old values copied to @p result (if not NULL), reduced
 * there with @p origin by the agent's loops, whose arithmetic the agent's
 * ways have (Open MPI's SUM of 8- and 16-bit integers saturates, op/avx),
 * and written back.  @return OMPI_ERR_NOT_AVAILABLE, having changed
 * nothing, when the kernel refuses the copy. */
static int acc_reduce_locked(ompi_osc_newrma_peer_t *peer, struct ompi_op_t *acc_op,
                             struct ompi_datatype_t *basic, const char *origin, char *result,
                             uint64_t remote, size_t len, char *window)
{
    volatile int32_t *lock = &peer->lock->acc_lock;
    int32_t mine = 0; /* @p window's lock word: no one else sees it */
    size_t size;
    int ret;

    ompi_osc_newrma_acc_lock_take(lock);
    ret = ompi_osc_newrma_shm_cma(peer->cma_pid, false, window, remote, len);
    if (OMPI_SUCCESS == ret) {
        if (NULL != result) {
            ompi_osc_newrma_copy(result, window, len);
        }
        if (!ompi_osc_newrma_acc_contig(OMPI_OSC_NEWRMA_OP_ACC, acc_op, basic, window, origin, NULL,
                                        len, &mine)) {
            ompi_datatype_type_size(basic, &size);
            ompi_op_reduce(acc_op, (void *) origin, window, len / size, basic);
        }
        ret = ompi_osc_newrma_shm_cma(peer->cma_pid, true, window, remote, len);
    }
    ompi_osc_newrma_acc_lock_release(lock);
    return ret;
}

/* Bytes [@p offset, @p offset + @p len) of a reduction by this process
 * (acc_reduce_locked), block by block: what a reduction's stream
 * (acc_reduce_stream) did not move, the way of a target busy outside MPI,
 * seldom taken; or a fetching reduction (acc_fetch_copy). */
static int acc_rest_reduce(void *arg, size_t offset, size_t len)
{
    acc_rest_t *rest = arg;
    size_t size, block;
    char *window;
    int ret = OMPI_SUCCESS;

    ompi_datatype_type_size(rest->op->acc_basic, &size);
    block = len < ACC_REST_BLOCK ? len : ACC_REST_BLOCK / size * size;
    window = malloc(block);
    if (NULL == window) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (size_t at = offset; OMPI_SUCCESS == ret && at < offset + len; at += block) {
        ret =
            acc_reduce_locked(rest->peer, rest->op->acc_op, rest->op->acc_basic, rest->stream + at,
                              NULL == rest->result ? NULL : rest->result + at, rest->remote + at,
                              offset + len - at < block ? offset + len - at : block, window);
    }
    free(window);
    /* the copies worked before (acc_copy_peer), and parts of the op may be
     * applied: a refusal now is a failure, never a reason to apply it
     * another way */
    return OMPI_ERR_NOT_AVAILABLE == ret ? OMPI_ERROR : ret;
}

/* A reduction (MPI_Accumulate, not MPI_REPLACE) of @p bytes of elements of
 * @p basic stored as they travel that acc_reduce_stream takes when it is
 * alone at its target: the call leaves it to its op element, whose issue
 * streams it. */
static inline bool acc_stream_sized(const ompi_osc_newrma_module_t *module,
                                    ompi_osc_newrma_op_kind_t kind, struct ompi_op_t *acc_op,
                                    struct ompi_datatype_t *basic, size_t bytes)
{
    return OMPI_OSC_NEWRMA_OP_ACC == kind && module->mbox_ok && component.acc_stream_bytes > 0 &&
           bytes >= component.acc_stream_bytes && bytes <= component.acc_stream_max_bytes &&
           !ompi_osc_newrma_acc_is_replace(acc_op) && !ompi_osc_newrma_acc_is_no_op(acc_op) &&
           ompi_osc_newrma_acc_in_place(basic);
}

/* A reduction (MPI_Accumulate, not MPI_REPLACE) of acc_stream_bytes up to
 * acc_stream_max_bytes (acc_stream_sized) to a node-local peer
 * whose memory is the user's, acc_alone: its operands stay here, the
 * target's two mailbox slots carry where they lie, acc_stream_part bytes
 * each, and the target's agent reads them by cross-memory copies and
 * reduces them into its window (ompi_osc_newrma_acc_apply_mbox_ref);
 * complete when it returns.  One copy, by the kernel, as osc/pt2pt's: in
 * the slot's area (up to 32 KiB) this process copied in and the agent
 * reduced out one after the other, through memory both cores wrote (SUM +
 * flush of 32 KiB 6.8 us, osc/pt2pt 5.0), as packets (more) UCX copied
 * twice.  A part the agent left 50 us (a target busy outside MPI) or may
 * not read goes by acc_rest_reduce, and so does the rest.
 * @return OMPI_ERR_NOT_AVAILABLE when the op takes another way. */
static int acc_reduce_stream(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                             ompi_osc_newrma_op_t *op, char *stream)
{
    ompi_osc_newrma_mbox_access_t access = {.kind = op->kind,
                                            .bytes = op->bytes,
                                            .operands = stream,
                                            .acc_op = op->acc_op,
                                            .acc_basic = op->acc_basic,
                                            .by_ref = true};
    ompi_osc_newrma_peer_t *peer;
    acc_rest_t rest;
    ptrdiff_t toff;

    if (!acc_stream_sized(module, op->kind, op->acc_op, op->acc_basic, op->bytes) ||
        NULL == (peer = acc_copy_peer(module, target, op, &toff))) {
        return OMPI_ERR_NOT_AVAILABLE;
    }
    access.addr = op->target_addr + (uint64_t) toff;
    rest = (acc_rest_t){peer, stream, access.addr, op, NULL};
    return ompi_osc_newrma_mbox_stream(module, target, &access, component.acc_stream_part,
                                       acc_rest_reduce, &rest);
}

/* A fetching reduction (MPI_Get_accumulate, not MPI_NO_OP) of
 * acc_fetch_copy_bytes or more of elements stored as they travel, to a
 * node-local peer whose memory is the user's: this process reads the
 * range, keeps the old values, reduces and writes it back by cross-memory
 * copies under the peer's accumulate lock (acc_reduce_locked), as osc/rdma
 * does with its GET, reduction and PUT under its lock.  Through the
 * target's mailbox the operands and the old values were copied twice
 * each, one after the other, by both processes (GET_ACCUMULATE SUM +
 * flush of 2 KiB 2.0-2.5 us so, 1.2 now; osc/rdma 1.5); as packets (above
 * 32 KiB) through UCX's FIFO (128 KiB 39 us, 18 now). */
static bool acc_fetch_copy_sized(const ompi_osc_newrma_module_t *module,
                                 ompi_osc_newrma_op_kind_t kind, struct ompi_op_t *op,
                                 struct ompi_datatype_t *basic, size_t bytes)
{
    return OMPI_OSC_NEWRMA_OP_GACC == kind && component.acc_fetch_copy_bytes > 0 &&
           bytes >= (size_t) component.acc_fetch_copy_bytes && module->config.shm &&
           !ompi_osc_newrma_acc_is_no_op(op) && ompi_osc_newrma_acc_in_place(basic);
}

/* Such an op (acc_fetch_copy_sized) from its op element, acc_alone.
 * @return OMPI_ERR_NOT_AVAILABLE when it takes another way. */
static int acc_fetch_copy(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                          ompi_osc_newrma_op_t *op, char *stream)
{
    ompi_osc_newrma_peer_t *peer;
    acc_rest_t rest;
    ptrdiff_t toff;

    if (!acc_fetch_copy_sized(module, op->kind, op->acc_op, op->acc_basic, op->bytes) ||
        NULL == (peer = acc_copy_peer(module, target, op, &toff)) ||
        OMPI_SUCCESS != ompi_osc_newrma_acc_result_stream(op)) {
        return OMPI_ERR_NOT_AVAILABLE;
    }
    rest = (acc_rest_t){peer, stream, op->target_addr + (uint64_t) toff, op, op->result_stream};
    ompi_osc_newrma_stat_op(&module->stats, op->kind, OMPI_OSC_NEWRMA_STAT_OPS_RDMA, op->bytes);
    return acc_rest_reduce(&rest, 0, op->bytes);
}

/* An MPI_REPLACE or MPI_NO_OP read of acc_cma_bytes or more that the
 * mailbox did not take (more than 2 KiB, or no slot free), to a node-local
 * peer whose memory is not in the shared segment (create and dynamic
 * windows): one cross-memory copy under the peer's accumulate lock, as
 * osc/ucx moves them (a PUT or GET under its accumulate lock), complete
 * when it returns.  As packets through the target's agent (a round trip
 * through UCX and the agent), 2.5 KiB took 2.5-4.9 us against the copy's
 * 2.0-3.2, 32 KiB 9.5-10.5 against 6.3-6.6, 2 MiB 263-490 against 210-223.
 * With @p unlocked, a read of cma_bytes or more may take UCX's transfer
 * without the lock instead (acc_read_unlocked, by the pick for reads).
 * @return OMPI_ERR_NOT_AVAILABLE when the op takes the packets' way. */
static int acc_cma(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                   ompi_osc_newrma_op_t *op, char *stream, bool unlocked)
{
    ompi_osc_newrma_peer_t *peer;
    bool write = OMPI_OSC_NEWRMA_OP_ACC == op->kind;
    uint64_t start;
    ptrdiff_t toff;
    int ret, way, stream_way;

    if (!acc_cma_wanted(module, target, op, &toff) ||
        NULL == (peer = cma_peer(module, target->rank)) || NULL == peer->lock ||
        (!write && OMPI_SUCCESS != ompi_osc_newrma_acc_result_stream(op))) {
        return OMPI_ERR_NOT_AVAILABLE;
    }
    way = unlocked ? acc_read_way(module, op) : -1;
    if (OMPI_OSC_NEWRMA_CMA_WAY_UCX == way &&
        OMPI_ERR_NOT_AVAILABLE != (ret = acc_read_unlocked(module, target, op, peer, toff))) {
        return ret;
    }
    stream_way = unlocked ? acc_stream_way(module, op) : -1;
    if (OMPI_OSC_NEWRMA_ACC_WAY_MAILBOX == stream_way &&
        OMPI_ERR_NOT_AVAILABLE != (ret = acc_stream(module, target, op, peer, stream,
                                                    op->target_addr + (uint64_t) toff))) {
        return ret;
    }
    start = ompi_osc_newrma_pick_now_ns();
    ret = acc_copy_locked(module, peer, write, write ? stream : op->result_stream,
                          op->target_addr + (uint64_t) toff, op->bytes);
    if (OMPI_SUCCESS == ret && OMPI_OSC_NEWRMA_CMA_WAY_COPY == way) {
        ompi_osc_newrma_op_cma_record(module, op, way, ompi_osc_newrma_pick_now_ns() - start);
    } else if (OMPI_SUCCESS == ret && stream_way >= 0) {
        ompi_osc_newrma_pick_record(&module->stream_pick, OMPI_OSC_NEWRMA_ACC_WAY_COPY, op->bytes,
                                    ompi_osc_newrma_pick_now_ns() - start);
    }
    if (OMPI_SUCCESS == ret) {
        OSC_NEWRMA_VERBOSE(30, "%s of %zu bytes to rank %d by cross-memory copy",
                           write ? "MPI_REPLACE" : "MPI_NO_OP read", op->bytes, target->rank);
        ompi_osc_newrma_stat_op(&module->stats, op->kind, OMPI_OSC_NEWRMA_STAT_OPS_RDMA, op->bytes);
    }
    return ret;
}

int ompi_osc_newrma_op_read_verify(ompi_osc_newrma_module_t *module, ompi_osc_newrma_op_t *op)
{
    volatile int32_t *word = op->read_seq_word;
    int ret;

    op->read_seq_word = NULL;
    if (NULL == word || OMPI_SUCCESS != op->status) {
        return OMPI_SUCCESS;
    }
    opal_atomic_rmb(); /* the data before the word */
    if (*word == op->read_seq) {
        return OMPI_SUCCESS;
    }
    OMPI_OSC_NEWRMA_STAT_ADD(module, READS_AGAIN, 1);
    ompi_osc_newrma_acc_lock_take(word);
    ret = ompi_osc_newrma_shm_cma(op->read_pid, false, op->result_stream, op->read_addr, op->bytes);
    ompi_osc_newrma_acc_lock_release(word);
    return ret;
}

/* Such an op (acc_cma) of more than the mailbox's 2 KiB up to its area's
 * 32 KiB: the copy or the target's mailbox, whichever took less time per
 * KiB in this window lately (osc_newrma_cma_pick).  The copy's system call
 * walks the peer's pages (5 us for 32 KiB here) and needs no one; the
 * slot needs the target's agent, 2-3 times as fast when the target is in
 * MPI and its core free (a 32 KiB NO_OP read under fence), 2-4 times as
 * slow when the VM is slow to switch to it.  The copy is timed around its
 * call, the slot from its post until its answer is taken.
 * @return OMPI_ERR_NOT_AVAILABLE when the op takes another way. */
static int acc_picked(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                      ompi_osc_newrma_op_t *op, char *stream)
{
    int pick = OMPI_OSC_NEWRMA_OP_GACC == op->kind;
    uint64_t start;
    ptrdiff_t toff;
    int ret;

    if (!component.cma_pick || !module->mbox_ok ||
        op->bytes <= OMPI_OSC_NEWRMA_SHM_MBOX_COPY_BYTES ||
        op->bytes > OMPI_OSC_NEWRMA_SHM_MBOX_AREA_BYTES ||
        !acc_cma_wanted(module, target, op, &toff)) {
        return OMPI_ERR_NOT_AVAILABLE;
    }
    if (OMPI_OSC_NEWRMA_ACC_WAY_MAILBOX == ompi_osc_newrma_pick(&module->acc_pick[pick])) {
        return ompi_osc_newrma_mbox_issue_timed(module, target, op, stream, &ret)
                   ? ret
                   : OMPI_ERR_NOT_AVAILABLE;
    }
    start = ompi_osc_newrma_pick_now_ns();
    ret = acc_cma(module, target, op, stream, false);
    if (OMPI_SUCCESS == ret) {
        ompi_osc_newrma_pick_record(&module->acc_pick[pick], OMPI_OSC_NEWRMA_ACC_WAY_COPY,
                                    op->bytes, ompi_osc_newrma_pick_now_ns() - start);
    }
    return ret;
}

/* An accumulate-class op's way: picked between the copy and the mailbox
 * (acc_picked), else the mailbox, the copy under the accumulate lock, or
 * packets. */
static int acc_op_issue(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                        ompi_osc_newrma_op_t *op, char *stream)
{
    int ret = acc_reduce_stream(module, target, op, stream);

    if (OMPI_ERR_NOT_AVAILABLE != ret) {
        return ret;
    }
    ret = acc_fetch_copy(module, target, op, stream);
    if (OMPI_ERR_NOT_AVAILABLE != ret) {
        return ret;
    }
    ret = acc_picked(module, target, op, stream);
    if (OMPI_ERR_NOT_AVAILABLE != ret) {
        return ret;
    }
    if (ompi_osc_newrma_mbox_issue(module, target, op, stream, &ret)) {
        return ret;
    }
    ret = acc_cma(module, target, op, stream, true);
    return OMPI_ERR_NOT_AVAILABLE != ret ? ret
                                         : ompi_osc_newrma_acc_issue(module, target, op, stream);
}

int ompi_osc_newrma_op_issue(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                             ompi_osc_newrma_op_t *op)
{
    rdma_segments_t s = {op, op->ep, op->rkey, NULL};
    ptrdiff_t ooff, toff;
    bool contig;
    int ret;

    if (NULL == op->origin_dt) {
        s.stream = NULL; /* NO_OP: no operands travel */
    } else if (ompi_osc_newrma_dtype_contig(op->origin_dt, op->origin_count, &ooff)) {
        s.stream = (char *) op->origin_addr + ooff;
    } else {
        op->bounce = malloc(op->bytes);
        if (NULL == op->bounce) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        s.stream = op->bounce;
        if (OMPI_OSC_NEWRMA_OP_GET != op->kind) {
            ret = ompi_osc_newrma_dtype_pack(op->bounce, op->origin_addr, op->origin_dt,
                                             op->origin_count, op->bytes);
            if (OMPI_SUCCESS != ret) {
                return ret;
            }
        }
    }
    if (ompi_osc_newrma_op_kind_is_acc(op->kind)) {
        return acc_op_issue(module, target, op, s.stream);
    }
    /* the copy before the mailbox, which takes the rest of a stream */
    contig = ompi_osc_newrma_dtype_contig(op->target_dt, op->target_count, &toff);
    if (contig && ompi_osc_newrma_op_by_cma(module, target, op)) {
        ret = op_cma_picked(module, target, op, s.stream, toff);
        if (OMPI_ERR_NOT_AVAILABLE != ret) {
            return ret;
        }
    }
    if (ompi_osc_newrma_mbox_issue(module, target, op, s.stream, &ret)) {
        return ret;
    }
    if (ompi_osc_newrma_op_as_packets(module, target, op)) {
        ompi_osc_newrma_stat_op(&module->stats, op->kind, OMPI_OSC_NEWRMA_STAT_OPS_PACKET,
                                op->bytes);
        if (OMPI_OSC_NEWRMA_OP_PUT == op->kind) {
            return contig ? op_put_packets(module, target, op, s.stream,
                                           op->target_addr + (uint64_t) toff)
                          : ompi_osc_newrma_pkt_put(module, target, op, s.stream);
        }
        return contig ? ompi_osc_newrma_pkt_get_contig(module, target, op, s.stream,
                                                       op->target_addr + (uint64_t) toff)
                      : ompi_osc_newrma_pkt_get(module, target, op, s.stream);
    }
    ompi_osc_newrma_stat_op(&module->stats, op->kind, OMPI_OSC_NEWRMA_STAT_OPS_RDMA, op->bytes);
    ret = rdma_mark(target, OMPI_OSC_NEWRMA_OP_PUT == op->kind);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    if (contig && 0 != op->timed_ns && OMPI_OSC_NEWRMA_OP_PUT == op->kind) {
        /* timed against the copy (op_cma_picked), complete at the target */
        return ompi_osc_newrma_ucx_rdma_flushed(op, op->ep, s.stream, op->bytes,
                                                op->target_addr + (uint64_t) toff, op->rkey);
    }
    if (contig) {
        return ompi_osc_newrma_ucx_rdma(op, op->ep, s.stream, op->bytes,
                                        op->target_addr + (uint64_t) toff, op->rkey);
    }
    return ompi_osc_newrma_dtype_foreach_segment(op->target_dt, op->target_count, op->target_addr,
                                                 rdma_segment, &s);
}

static void op_retain_datatype(struct ompi_datatype_t *dt)
{
    if (NULL != dt && !ompi_datatype_is_predefined(dt)) {
        OBJ_RETAIN(dt);
    }
}

static void op_release_datatypes(ompi_osc_newrma_op_t *op)
{
    ompi_osc_newrma_dtype_release(op->origin_dt);
    ompi_osc_newrma_dtype_release(op->target_dt);
    ompi_osc_newrma_dtype_release(op->result_dt);
}

/* Fetched old values of an accumulate: into the user's result buffer. */
static int op_deliver_result(ompi_osc_newrma_op_t *op)
{
    int ret = OMPI_SUCCESS;

    if (NULL == op->result_stream || op->result_direct) {
        op->result_stream = NULL;
        return OMPI_SUCCESS;
    }
    if (NULL != op->result_dt) {
        ret = ompi_osc_newrma_dtype_unpack(op->result_addr, op->result_dt, op->result_count,
                                           op->result_stream, op->bytes);
    }
    if (op->result_stream != op->result_inline) {
        free(op->result_stream);
    }
    op->result_stream = NULL;
    return ret;
}

int ompi_osc_newrma_op_finish(ompi_osc_newrma_module_t *module, ompi_osc_newrma_op_t *op)
{
    int ret = op->status, ret2;

    if (NULL != op->bounce) {
        if (OMPI_SUCCESS == ret && OMPI_OSC_NEWRMA_OP_GET == op->kind) {
            ret = ompi_osc_newrma_dtype_unpack(op->origin_addr, op->origin_dt, op->origin_count,
                                               op->bounce, op->bytes);
        }
        free(op->bounce);
        op->bounce = NULL;
    }
    ret2 = op_deliver_result(op); /* also frees the staging buffer */
    ret = OMPI_SUCCESS != ret ? ret : ret2;
    op_release_datatypes(op);
    if (NULL != op->rkey_owner) {
        OBJ_RELEASE(op->rkey_owner);
    }
    if (NULL != op->request) {
        ompi_osc_newrma_request_complete(op->request, ret);
        op->request = NULL;
    }
    ompi_osc_newrma_pool_put(&module->op_pool, &component.op_global_pool, &op->super);
    return ret;
}

int ompi_osc_newrma_op_flush_writes(ompi_osc_newrma_module_t *module,
                                    ompi_osc_newrma_target_t *target,
                                    ompi_osc_newrma_atomic_t *counter)
{
    ucp_ep_h ep;
    int ret;

    if (!target->needs_rma_done) {
        return OMPI_SUCCESS;
    }
    ret = rma_peer_ep(module, target->rank, &ep);
    if (OMPI_SUCCESS == ret) {
        target->needs_rma_done = false;
        ret = ompi_osc_newrma_ucx_rma_done(ep, counter);
    }
    return ret;
}

int ompi_osc_newrma_op_rma_done(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                                ompi_osc_newrma_atomic_t *counter)
{
    /* RDMA writes: endpoint flush; PUT packets: RMA_DONE packet */
    int ret = ompi_osc_newrma_op_flush_writes(module, target, counter);

    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    return target->am_sent > 0 ? ompi_osc_newrma_pkt_rma_done(module, target, counter)
                               : OMPI_SUCCESS;
}

/* On a window that is one node's segment with RMA by UCX, a fence's
 * barrier lets everyone go before each rank has applied the packets its
 * FENCE_DONEs cover: a later epoch's op to @p rank waits until it has
 * (an RDMA or a mailbox op would overtake another origin's packets). */
static inline __opal_attribute_always_inline__ bool rank_drained(ompi_osc_newrma_module_t *module,
                                                                 int rank)
{
    if (!ompi_osc_newrma_shm_indirect(&module->shm) || 0 == module->fence.count) {
        return true;
    }
    return (int32_t) (ompi_osc_newrma_shm_fence_drained(module, rank) -
                      (int32_t) module->fence.count) >= 0;
}

static inline __opal_attribute_always_inline__ bool
target_fence_drained(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_target_t *target)
{
    return rank_drained(module, target->rank);
}

/* ompi_osc_newrma_target_open, in line where a call packs or moves an
 * access itself (out of line it was 28 of such a PUT's 450 instructions) */
static inline __opal_attribute_always_inline__ bool
target_open(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_target_t *target)
{
    if (!target_fence_drained(module, target)) {
        return false;
    }
    switch (module->win_state) {
        case OMPI_OSC_NEWRMA_WIN_FENCE_GRANTED:
        case OMPI_OSC_NEWRMA_WIN_PSCW_GRANTED:
            return true;
        case OMPI_OSC_NEWRMA_WIN_PER_TARGET:
        case OMPI_OSC_NEWRMA_WIN_LOCK_ALL_CALLED:
        case OMPI_OSC_NEWRMA_WIN_LOCK_ALL_ISSUED:
        case OMPI_OSC_NEWRMA_WIN_LOCK_ALL_GRANTED:
            return OMPI_OSC_NEWRMA_LOCK_GRANTED == target->lock_state;
        default:
            return false;
    }
}

bool ompi_osc_newrma_target_open(ompi_osc_newrma_module_t *module,
                                 const ompi_osc_newrma_target_t *target)
{
    return target_open(module, target);
}

/* A GET that issuing an op element in a stream would send as packets of
 * one answer each (size_as_packets), not by rendezvous. */
static bool rma_get_as_packet(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                              size_t bytes)
{
    return !ompi_osc_newrma_pkt_rndv(module, bytes) &&
           size_as_packets(module, target, OMPI_OSC_NEWRMA_OP_GET, bytes, NULL);
}

/* ompi_osc_newrma_target_open, asked once per call: whether an opening
 * fence's packets are applied at the target is that process's counter, and
 * a target found closed by the mailbox's test and open by RDMA's a moment
 * later sent a lone GET by RDMA that the mailbox carries (the op element
 * tries the mailbox first). */
static bool rma_target_open(ompi_osc_newrma_module_t *module, rma_target_mem_t *mem,
                            const ompi_osc_newrma_target_t *target)
{
    if (0 == mem->open) {
        mem->open = ompi_osc_newrma_target_open(module, target) ? 1 : -1;
    }
    return mem->open > 0;
}

/* @p target (NULL: none) takes a @p kind access packed by the call: a
 * stream going (its aggregated message open, packets of it
 * unacknowledged, or its mailbox busy) and nothing queued ahead.  The
 * agent may apply the message before it polls the mailbox, so a GET goes
 * only behind a GET there (location consistency); an accumulate goes
 * behind an access the call posted (not an op element's, which may stream
 * more parts), as the target applies its mailbox before any accumulate
 * packet (target_acc.c).  The epoch's openness is the caller's. */
static inline bool rma_stream_takes(const ompi_osc_newrma_target_t *target,
                                    ompi_osc_newrma_op_kind_t kind)
{
    return NULL != target && NULL == target->next_op_to_issue &&
           (NULL != target->batch.buf || 0 != target->am_sent || NULL != target->mbox_slot) &&
           (NULL == target->mbox_slot || OMPI_OSC_NEWRMA_OP_PUT == kind ||
            (OMPI_OSC_NEWRMA_OP_ACC == kind && NULL == target->mbox_op) ||
            (OMPI_OSC_NEWRMA_OP_GET == kind && ompi_osc_newrma_mbox_reads_only(target)));
}

/* @p a's target when @p a may be packed by the call (rma_packed): the
 * target has a stream going (its aggregated message open, packets of it
 * unacknowledged, or its mailbox busy), nothing queued ahead and its epoch
 * open, and both sides are contiguous (*@p toff, *@p ooff); else NULL.  A
 * GET goes behind a mailbox op only when that op is a GET too: the
 * target's agent may apply the message before it polls the slot, and a
 * GET must see an earlier PUT or accumulate of its origin (location
 * consistency, as ARMCI-MPI relies on: tests/mpi/loc_consistency.c). */
static ompi_osc_newrma_target_t *rma_stream_target(ompi_osc_newrma_module_t *module,
                                                   const rma_args_t *a, rma_target_mem_t *mem,
                                                   size_t bytes, ptrdiff_t *toff, ptrdiff_t *ooff)
{
    bool get = OMPI_OSC_NEWRMA_OP_GET == a->kind;
    ompi_osc_newrma_target_t *target = mem->target;

    if ((!get && OMPI_OSC_NEWRMA_OP_PUT != a->kind) || NULL != a->request ||
        bytes > module->config.aggregate_threshold || !rma_stream_takes(target, a->kind) ||
        (get && !rma_get_as_packet(module, target, bytes)) ||
        (!get && !size_as_packets(module, target, OMPI_OSC_NEWRMA_OP_PUT, bytes, NULL)) ||
        !rma_target_open(module, mem, target) ||
        !ompi_osc_newrma_dtype_contig(a->target_dt, a->target_count, toff) ||
        !ompi_osc_newrma_dtype_contig(a->origin_dt, a->origin_count, ooff)) {
        return NULL;
    }
    return target;
}

/* An access packed by the call, counted. */
static void rma_packed_count(ompi_osc_newrma_module_t *module, ompi_osc_newrma_op_kind_t kind,
                             size_t bytes)
{
    ompi_osc_newrma_stat_op(&module->stats, kind, OMPI_OSC_NEWRMA_STAT_OPS_PACKET, bytes);
    OMPI_OSC_NEWRMA_STAT_ADD(module, PACKED_AT_CALL, 1);
}

/* A small contiguous PUT or GET in a stream to one target: a PUT is copied
 * into the target's aggregated message at once, a GET requested in it, as
 * issuing an op element would, without one.  Queueing an op element and
 * issuing it cost two thirds of such a PUT's time (a stream of 8-byte PUTs
 * under flush, node-local: 214 ns each, 130 of them in the flush's issue),
 * and most of a GET's (64 GETs of 8 bytes + flush: 240 instructions per
 * GET, 131 of them in the flush).  A GET's answer lands in the user's
 * buffer and counts down the target element's owed_at_call, which every
 * synchronization that completes operations waits for.  A lone op still
 * takes the full way: the mailbox or RDMA serve it sooner than a message.
 * Order is kept: nothing of this target waits in its queue, and packets
 * are applied in the order they were packed; an accumulate behind them is
 * queued as before.  @return true when served (*@p ret its status). */
static bool rma_packed(ompi_osc_newrma_module_t *module, const rma_args_t *a, rma_target_mem_t *mem,
                       size_t bytes, int *ret)
{
    ptrdiff_t ooff, toff;
    ompi_osc_newrma_target_t *target = rma_stream_target(module, a, mem, bytes, &toff, &ooff);
    char *origin;
    uint64_t taddr;

    if (NULL == target) {
        return false;
    }
    origin = (char *) a->origin_addr + ooff;
    taddr = mem->addr + (uint64_t) toff;
    *ret = OMPI_OSC_NEWRMA_OP_GET == a->kind
               ? ompi_osc_newrma_pkt_get_packed(module, target, origin, bytes, taddr)
               : ompi_osc_newrma_pkt_put_contig(module, target, origin, bytes, taddr);
    if (OMPI_SUCCESS == *ret) {
        rma_packed_count(module, a->kind, bytes);
    }
    return true;
}

/* The target element of @p a's target, made if need be, as queueing an op
 * element would make it. */
static int rma_target(ompi_osc_newrma_module_t *module, const rma_args_t *a,
                      ompi_osc_newrma_target_t **target_p)
{
    return ompi_osc_newrma_win_state_is_passive(module->win_state)
               ? ompi_osc_newrma_passive_target_get(module, a->target, target_p)
               : ompi_osc_newrma_target_get(module, a->target, target_p);
}

/* Nothing of this process at @p target that an access moved by RDMA from
 * the call could overtake (as packets_applied_before): nothing queued, no
 * aggregated message open, no packet unacknowledged, no mailbox op but a
 * GET before a GET (reads of the target). */
static inline bool rdma_at_call_clear(const ompi_osc_newrma_target_t *target, bool put)
{
    return NULL == target->next_op_to_issue &&
           (NULL == target->mbox_slot || (!put && ompi_osc_newrma_mbox_reads_only(target))) &&
           NULL == target->batch.buf && 0 == target->am_sent && 0 == target->ack_counter;
}

/* Nothing of this process at @p t that a copy from the call could
 * overtake or be overtaken by: rdma_at_call_clear, no transfer from the
 * call in flight, no RDMA write unflushed. */
static inline bool copy_at_call_clear(const ompi_osc_newrma_target_t *t, bool put)
{
    return rdma_at_call_clear(t, put) && 0 == t->owed_at_call && !t->needs_rma_done &&
           !t->rdma_writes_unfenced;
}

/* After a copy from the call of @p bytes (@p kind) to @p peer, status
 * @p ret: counted, and the next one to the peer before a synchronization
 * is part of a stream. */
static void copy_at_call_done(ompi_osc_newrma_module_t *module, ompi_osc_newrma_peer_t *peer,
                              ompi_osc_newrma_op_kind_t kind, size_t bytes, int ret)
{
    if (OMPI_SUCCESS == ret) {
        ompi_osc_newrma_stat_op(&module->stats, kind, OMPI_OSC_NEWRMA_STAT_OPS_RDMA, bytes);
        OMPI_OSC_NEWRMA_STAT_ADD(module, COPY_AT_CALL, 1);
    }
    peer->cma_seq = module->sync_seq;
}

/* A contiguous PUT or GET of the cross-memory copy's size (cma_sized,
 * below the pick's) to an open target with nothing of this process there
 * that it could overtake or be overtaken by (copy_at_call_clear): the copy
 * from the call, complete when it returns, without an op element, whose
 * queueing, issue and retirement took a 2 KiB PUT + flush from 0.52 (the
 * copy alone 0.39) to 0.67 us.  Not in PSCW epochs (as rdma_at_call_fast).
 * @p t NULL: no target element, so nothing in flight (cma_bare).
 * @return true when served (*@p ret_p its status); false also when the
 * kernel refuses the copy, which the full way then does not try again. */
static bool cma_at_call(ompi_osc_newrma_module_t *module, ompi_osc_newrma_peer_t *peer,
                        ompi_osc_newrma_target_t *t, ompi_osc_newrma_op_kind_t kind, char *origin,
                        size_t bytes, uint64_t taddr, int *ret_p)
{
    bool put = OMPI_OSC_NEWRMA_OP_PUT == kind;
    int ret;

    if (bytes >= component.cma_pick_bytes ||
        OMPI_OSC_NEWRMA_WIN_PSCW_GRANTED == module->win_state ||
        (NULL != t && !copy_at_call_clear(t, put))) {
        return false;
    }
    ret = cma_copy(module, peer->rank, peer->cma_pid, put, origin, taddr, bytes);
    if (OMPI_ERR_NOT_AVAILABLE == ret) {
        return false;
    }
    copy_at_call_done(module, peer, kind, bytes, ret);
    *ret_p = ret;
    return true;
}

/* A @p kind access (PUT or GET) moved by RDMA from the call: counted until
 * its local completion (ompi_osc_newrma_rdma_at_call_done), and in the
 * statistics once started. */
static int rdma_at_call_issue(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                              ompi_osc_newrma_op_kind_t kind, ucp_ep_h ep, char *origin,
                              size_t bytes, uint64_t addr, ucp_rkey_h rkey)
{
    bool put = OMPI_OSC_NEWRMA_OP_PUT == kind;
    int ret = rdma_mark(target, put);

    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    ompi_osc_newrma_count_add(&target->owed_at_call, 1);
    ompi_osc_newrma_count_add(&module->active_reqs, 1);
    ret = ompi_osc_newrma_ucx_rdma_at_call(put, ep, origin, bytes, addr, rkey, target);
    if (OMPI_SUCCESS != ret) { /* nothing started: no completion will come */
        ompi_osc_newrma_count_add(&module->active_reqs, -1);
        ompi_osc_newrma_count_add(&target->owed_at_call, -1);
        return ret;
    }
    ompi_osc_newrma_stat_op(&module->stats, kind, OMPI_OSC_NEWRMA_STAT_OPS_RDMA, bytes);
    OMPI_OSC_NEWRMA_STAT_ADD(module, RDMA_AT_CALL, 1);
    return OMPI_SUCCESS;
}

/* A lock epoch of its own (MPI_Win_lock) on node-local @p rank, its lock
 * word taken (lock_direct_fast) and no target element: nothing in flight
 * there, so a copy from the call needs no element either, and the unlock
 * stays direct (unlock_direct_fast, which an element would send the full
 * way: 1,050 instructions of a 512-byte PUT + unlock's 3,250, against
 * osc/rdma's 1,180 in all). */
static bool cma_bare(ompi_osc_newrma_module_t *module, int rank)
{
    const ompi_osc_newrma_peer_t *peer = ompi_osc_newrma_peer(module, rank);

    return OMPI_OSC_NEWRMA_WIN_PER_TARGET == module->win_state && NULL != peer &&
           NULL != peer->lock && 0 != peer->lock_type && peer->lock_granted;
}

/* The target element an access from the call to @p a's target goes with,
 * in *@p t_p: none for a copy (@p copy) to a cma_bare target, else the
 * target's, made here as queueing would make it (the first access of an
 * epoch may go too; a failure to make it is the queueing's).  False when
 * the target is not open. */
static bool at_call_target(ompi_osc_newrma_module_t *module, const rma_args_t *a,
                           rma_target_mem_t *mem, bool copy, ompi_osc_newrma_target_t **t_p)
{
    *t_p = NULL;
    if (copy && NULL == mem->target && cma_bare(module, a->target)) {
        return true;
    }
    if (NULL == mem->target && OMPI_SUCCESS != rma_target(module, a, &mem->target)) {
        return false;
    }
    *t_p = mem->target;
    return rma_target_open(module, mem, *t_p);
}

/* Whether an accumulate the call copies itself (rma_acc_copy_at_call,
 * rma_fetch_copy_at_call) may go to @p a's target now: no target element
 * (a cma_bare target), or one that is open with no op queued and nothing
 * the copy could overtake (copy_at_call_clear). */
static bool acc_at_call_open(ompi_osc_newrma_module_t *module, const rma_args_t *a,
                             rma_target_mem_t *mem)
{
    ompi_osc_newrma_target_t *t;

    return at_call_target(module, a, mem, true, &t) &&
           (NULL == t || (opal_list_is_empty(&t->ops) && copy_at_call_clear(t, true)));
}

/* A fetching reduction of acc_fetch_copy_bytes up to 2 KiB
 * (acc_fetch_copy_sized) with contiguous buffers, when the window's last
 * synchronization waited for its targets (last_sync_waits): read, reduced
 * and written back by the call itself (acc_reduce_locked), on the terms of
 * rma_acc_copy_at_call.  After a fence or complete the target's mailbox
 * answers it while the next one waits for everyone (a 2 KiB one under
 * fence 2.4 us either way, 1 KiB 1.8 by the mailbox, 2.2 so). */
static bool rma_fetch_copy_at_call(ompi_osc_newrma_module_t *module, const rma_args_t *a,
                                   rma_target_mem_t *mem, size_t bytes, int *ret)
{
    char window[OMPI_OSC_NEWRMA_SHM_MBOX_COPY_BYTES] __attribute__((aligned(64)));
    ompi_osc_newrma_peer_t *peer;
    ptrdiff_t toff, ooff, roff;

    /* the kind first: every PUT and GET of the call comes by */
    if (!acc_fetch_copy_sized(module, a->kind, a->op, a->basic, bytes) || bytes > sizeof(window) ||
        NULL != a->request || OMPI_OSC_NEWRMA_WIN_PSCW_GRANTED == module->win_state ||
        !last_sync_waits(module, false) || !ompi_osc_newrma_acc_plain(module) ||
        NULL == (peer = cma_peer(module, a->target)) || NULL == peer->lock ||
        !ompi_osc_newrma_dtype_contig(a->target_dt, a->target_count, &toff) ||
        !ompi_osc_newrma_dtype_contig(a->origin_dt, a->origin_count, &ooff) ||
        !ompi_osc_newrma_dtype_contig(a->result_dt, a->result_count, &roff) ||
        !acc_at_call_open(module, a, mem)) {
        return false;
    }
    *ret = acc_reduce_locked(peer, a->op, a->basic, (const char *) a->origin_addr + ooff,
                             (char *) a->result_addr + roff, mem->addr + (uint64_t) toff, bytes,
                             window);
    if (OMPI_ERR_NOT_AVAILABLE == *ret) {
        return false; /* the kernel refused, having changed nothing: the full way */
    }
    copy_at_call_done(module, peer, a->kind, bytes, *ret);
    return true;
}

/* An MPI_REPLACE or MPI_NO_OP read that goes by its call
 * (rma_acc_copy_at_call), each of a stream too, as a PUT of
 * cma_stream_sized does: of osc_newrma_cma_stream_bytes or more (the copy
 * is cheap), or an MPI_REPLACE of osc_newrma_cma_share_bytes or more, whose
 * copy acc_copy_locked shares with the target's agent (where the copy is
 * dear, large reads keep their pick of UCX's transfer without the lock,
 * acc_read_way).  Queued, all but the
 * first of a stream went as packets behind the one before (64 REPLACEs of
 * 2 MiB + flush on a create window 8.0 GB/s, osc/pt2pt 9.3-10.7, a PUT
 * stream shared 17.5; of 8 KiB 6.3, by the call 9.3; 64 reads of 2 MiB
 * 5.0-5.1, by the call 17.5-19.7, osc/ucx 10.8; of 8 KiB 3.8-4.1 and
 * 9.0-10.1), and a lone REPLACE of 8 KiB + flush took 1.05-1.52 us through
 * the mailbox or the queue's copy, 0.78-0.86 by the call. */
static inline bool acc_copy_by_call(bool write, size_t bytes)
{
    return cma_stream_sized(OMPI_OSC_NEWRMA_OP_PUT, bytes) || (write && cma_share_sized(bytes));
}

/* An MPI_REPLACE, or an MPI_NO_OP read, of contiguous blocks to a
 * node-local peer whose memory is its own, of acc_cma_bytes (or after a
 * flush or unlock of cma_small_bytes: cma_min_bytes), the first copy to
 * its target since the last synchronization, under the plain rule (no UCX
 * atomic bypasses the accumulate lock) and with nothing of this process
 * there that it could overtake (no op listed, rdma_at_call_clear as for a
 * PUT, nothing owed at the call, no RDMA write unflushed): copied under
 * the target's accumulate lock by the call itself, as acc_cma copies a
 * lone op element.  A 512-byte REPLACE + flush took 0.93 us through the
 * mailbox, 0.76 by acc_cma, osc/rdma 0.71.  Up to the mailbox's 2 KiB,
 * its other way, and of acc_copy_by_call's sizes, each of a stream:
 * other larger ones take their turns with the mailbox (acc_picked) or UCX
 * (acc_read_way) from the queue.  Not in PSCW epochs,
 * nor for requests.  @return true when served (*@p ret its status). */
static bool rma_acc_copy_at_call(ompi_osc_newrma_module_t *module, const rma_args_t *a,
                                 rma_target_mem_t *mem, size_t bytes, int *ret)
{
    bool write = OMPI_OSC_NEWRMA_OP_ACC == a->kind;
    ompi_osc_newrma_peer_t *peer;
    ptrdiff_t toff, boff;
    char *local;

    if ((write ? !ompi_osc_newrma_acc_is_replace(a->op)
               : OMPI_OSC_NEWRMA_OP_GACC != a->kind || !ompi_osc_newrma_acc_is_no_op(a->op)) ||
        NULL != a->request || OMPI_OSC_NEWRMA_WIN_PSCW_GRANTED == module->win_state ||
        !ompi_osc_newrma_acc_plain(module) ||
        (bytes > OMPI_OSC_NEWRMA_SHM_MBOX_COPY_BYTES && !acc_copy_by_call(write, bytes)) ||
        NULL == (peer = cma_sized(module, a->target, write, module->config.acc_cma_bytes, bytes)) ||
        NULL == peer->lock ||
        (peer->cma_seq == module->sync_seq && !acc_copy_by_call(write, bytes)) ||
        !ompi_osc_newrma_dtype_contig(a->target_dt, a->target_count, &toff) ||
        !(write ? ompi_osc_newrma_dtype_contig(a->origin_dt, a->origin_count, &boff)
                : ompi_osc_newrma_dtype_contig(a->result_dt, a->result_count, &boff)) ||
        !acc_at_call_open(module, a, mem)) {
        return false;
    }
    local = (char *) (write ? a->origin_addr : a->result_addr) + boff;
    *ret = acc_copy_locked(module, peer, write, local, mem->addr + (uint64_t) toff, bytes);
    if (OMPI_ERR_NOT_AVAILABLE == *ret) {
        return false; /* the kernel refused: the full way */
    }
    copy_at_call_done(module, peer, a->kind, bytes, *ret);
    return true;
}

/* A contiguous GET or PUT that issuing its op element would send by UCX
 * RDMA (size_as_packets: from get_rdma_bytes or put_rdma_bytes up to
 * aggregate_threshold, where the transport has RDMA), to an open target
 * with nothing of this process that it could overtake (as
 * packets_applied_before: nothing queued, no packet unacknowledged, no
 * mailbox op but a GET before a GET): moved by the MPI call itself,
 * without an op element.
 * Queueing, issuing and retiring the element cost about 1,400 of the 2,450
 * instructions per GET of a stream of 64 GETs of 2 KiB + flush (osc/ucx:
 * 1,075 in all).  The local completion counts down the target element's
 * owed_at_call, which every synchronization that completes operations
 * waits for; a GET's holds UNLOCK, COMPLETE and FENCE_DONE back until it
 * is done (ompi_osc_newrma_target_rdma_reading), a PUT's needs the
 * endpoint flush of any RDMA write.  Not in PSCW epochs, where an access
 * still queued when MPI_Win_complete comes travels in one message with
 * COMPLETE; nor on dynamic windows, whose region rkey the op element would
 * keep.  @return true when served (*@p ret its status). */
static bool rma_rdma_at_call(ompi_osc_newrma_module_t *module, const rma_args_t *a,
                             rma_target_mem_t *mem, size_t bytes, int *ret)
{
    bool put = OMPI_OSC_NEWRMA_OP_PUT == a->kind, cma;
    ompi_osc_newrma_target_t *target;
    ptrdiff_t toff, ooff;

    if ((!put && OMPI_OSC_NEWRMA_OP_GET != a->kind) || NULL != a->request ||
        OMPI_OSC_NEWRMA_WIN_PSCW_GRANTED == module->win_state) {
        return false;
    }
    /* the copy needs no rkey: a dynamic window's region too; and of
     * cma_stream_bytes, any size */
    cma = (bytes <= module->config.aggregate_threshold || cma_stream_sized(a->kind, bytes)) &&
          cma_takes(module, a->target, a->kind, bytes);
    if (!cma && (NULL != mem->region || bytes > module->config.aggregate_threshold)) {
        return false;
    }
    if (!at_call_target(module, a, mem, cma, &target) ||
        (NULL != target && (!rdma_at_call_clear(target, put) ||
                            (!cma && size_as_packets(module, target, a->kind, bytes, NULL)))) ||
        !ompi_osc_newrma_dtype_contig(a->target_dt, a->target_count, &toff) ||
        !ompi_osc_newrma_dtype_contig(a->origin_dt, a->origin_count, &ooff)) {
        return false;
    }
    if (cma) {
        return cma_at_call(module, ompi_osc_newrma_peer(module, a->target), target, a->kind,
                           (char *) a->origin_addr + ooff, bytes, mem->addr + (uint64_t) toff, ret);
    }
    *ret = rdma_at_call_issue(module, target, a->kind, mem->ep, (char *) a->origin_addr + ooff,
                              bytes, mem->addr + (uint64_t) toff, mem->rkey);
    return true;
}

void ompi_osc_newrma_rdma_at_call_done(void *ctx, int status)
{
    ompi_osc_newrma_target_t *target = ctx;
    ompi_osc_newrma_module_t *module = target->module;

    if (OMPI_SUCCESS != status) {
        ompi_osc_newrma_module_error(module, status);
    }
    opal_atomic_wmb(); /* the data before the count a waiter reads */
    ompi_osc_newrma_count_add(&module->active_reqs, -1);
    /* last: once 0, the element may be released */
    ompi_osc_newrma_count_add(&target->owed_at_call, -1);
}

/* A small contiguous access (origin, target and result buffers) without a
 * request, to a node-local target whose window is the user's memory and
 * which has nothing of this process queued, in flight or unacknowledged:
 * posted to its mailbox by the call itself.  A lone op went there anyway,
 * from its op element at the flush; queueing, issuing and retiring that
 * element took 40% of an 8-byte MPI_Fetch_and_op + MPI_Win_flush's 2,500
 * instructions.  The next op to the target queues behind the slot as it
 * would behind the op.  @return true when served (*@p ret its status). */
static bool rma_mbox_at_call(ompi_osc_newrma_module_t *module, const rma_args_t *a,
                             rma_target_mem_t *mem, size_t bytes, int *ret)
{
    ompi_osc_newrma_mbox_access_t access = {.kind = a->kind,
                                            .bytes = bytes,
                                            .compare = a->compare_addr,
                                            .acc_op = a->op,
                                            .acc_basic = a->basic};
    ompi_osc_newrma_target_t *target;
    ptrdiff_t toff, ooff = 0, roff = 0;

    if (!module->mbox_ok || NULL != a->request ||
        !ompi_osc_newrma_mbox_fits(a->kind, a->op, bytes) ||
        acc_stream_sized(module, a->kind, a->op, a->basic, bytes) ||
        (bytes > OMPI_OSC_NEWRMA_SHM_MBOX_COPY_BYTES &&
         acc_fetch_copy_sized(module, a->kind, a->op, a->basic, bytes))) {
        return false;
    }
    /* a PUT or GET the copy takes goes there (rma_rdma_at_call) */
    if ((OMPI_OSC_NEWRMA_OP_PUT == a->kind || OMPI_OSC_NEWRMA_OP_GET == a->kind) &&
        cma_takes(module, a->target, a->kind, bytes)) {
        return false;
    }
    /* in a stream, every op after the first finds the slot busy: the
     * cheapest test first (64 GETs of 8 bytes lost 10% of their rate to
     * the datatype tests below) */
    target = mem->target;
    if (NULL != target && (NULL != target->mbox_slot || !opal_list_is_empty(&target->ops))) {
        return false;
    }
    if (!ompi_osc_newrma_dtype_contig(a->target_dt, a->target_count, &toff) ||
        (NULL != a->origin_dt &&
         !ompi_osc_newrma_dtype_contig(a->origin_dt, a->origin_count, &ooff)) ||
        (NULL != a->result_dt &&
         !ompi_osc_newrma_dtype_contig(a->result_dt, a->result_count, &roff)) ||
        (NULL == target && OMPI_SUCCESS != rma_target(module, a, &target)) ||
        !rma_target_open(module, mem, target)) {
        return false; /* a failure to make the element is the queueing's to report */
    }
    access.addr = mem->addr + (uint64_t) toff;
    if (OMPI_OSC_NEWRMA_OP_GET == a->kind) {
        access.dest = (char *) a->origin_addr + ooff;
    } else {
        access.operands = NULL == a->origin_dt ? NULL : (const char *) a->origin_addr + ooff;
        access.dest = NULL == a->result_dt ? NULL : (char *) a->result_addr + roff;
    }
    if (!ompi_osc_newrma_mbox_post_access(module, target, &access, ret)) {
        return false;
    }
    OMPI_OSC_NEWRMA_STAT_ADD(module, MAILBOX_AT_CALL, 1);
    return true;
}

/* Queue the access as an op element on its target element (RMA_OP). */
static int rma_enqueue(ompi_osc_newrma_module_t *module, const rma_args_t *a, rma_target_mem_t *mem,
                       size_t bytes, bool *queued)
{
    ompi_osc_newrma_target_t *target;
    ompi_osc_newrma_op_t *op;
    int ret;

    ret = ompi_osc_newrma_op_alloc(module, &op);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    op->kind = a->kind;
    op->origin_addr = a->origin_addr;
    op->origin_count = a->origin_count;
    op->origin_dt = a->origin_dt;
    op->target_disp = a->target_disp;
    op->target_count = a->target_count;
    op->target_dt = a->target_dt;
    op->bytes = bytes;
    op->bounce = NULL;
    op->module = module;
    op->ep = mem->ep;
    op->rkey = mem->rkey;
    op->rkey_owner = NULL;
    op->status = OMPI_SUCCESS;
    op->target_addr = mem->addr;
    op->request = a->request;
    op->acc_op = a->op;
    op->acc_basic = a->basic;
    op->result_addr = a->result_addr;
    op->result_count = a->result_count;
    op->result_dt = a->result_dt;
    op->result_stream = NULL;
    if (NULL != a->compare_addr) {
        memcpy(op->compare, a->compare_addr, bytes);
    }
    op_retain_datatype(op->origin_dt);
    op_retain_datatype(op->target_dt);
    op_retain_datatype(op->result_dt);
    ret = rma_target(module, a, &target);
    if (OMPI_SUCCESS != ret) {
        op_release_datatypes(op);
        op->request = NULL;
        ompi_osc_newrma_pool_put(&module->op_pool, &component.op_global_pool, &op->super);
        return ret;
    }
    /* the op keeps the rkey's region from here on */
    op->rkey_owner = NULL != mem->region ? &mem->region->super.super : NULL;
    mem->region = NULL;
    ompi_osc_newrma_target_enqueue_op(target, op);
    *queued = true;
    if (NULL != op->request) {
        target->req_ops++;
    }
    if (ompi_osc_newrma_win_state_is_passive(module->win_state)) {
        ret = ompi_osc_newrma_passive_op_queued(module, target, op);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
    }
    /* past PIGGYBACK_THRESHOLD queued ops, issue instead of queueing */
    ret = ompi_osc_newrma_issue_target(module, target, -1);
    return ret < 0 ? ret : OMPI_SUCCESS;
}

static bool active_reqs_below_threshold(ompi_osc_newrma_module_t *module, void *arg)
{
    (void) arg;
    return module->active_reqs <= module->config.active_req_threshold;
}

/* After an access served: the wait for request-based operations above the
 * window's threshold (active_req_threshold; negative never waits). */
static int active_reqs_wait(ompi_osc_newrma_module_t *module)
{
    if (module->config.active_req_threshold >= 0 &&
        module->active_reqs > module->config.active_req_threshold) {
        return ompi_osc_newrma_progress_wait(module, active_reqs_below_threshold, NULL);
    }
    return OMPI_SUCCESS;
}

/* RMA_OP: the epoch must allow the access, then serve or queue it.
 * *@p queued tells whether an op element now carries a->request. */
/* Accumulates: the element type, and origin/result sizes matching the target. */
static int rma_check_acc(rma_args_t *a, size_t bytes)
{
    int ret = ompi_osc_newrma_acc_check(a->kind, a->op, a->origin_dt, a->target_dt, a->result_dt,
                                        &a->basic);

    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    if ((NULL != a->origin_dt &&
         bytes != ompi_osc_newrma_dtype_bytes(a->origin_dt, a->origin_count)) ||
        (NULL != a->result_dt &&
         bytes != ompi_osc_newrma_dtype_bytes(a->result_dt, a->result_count))) {
        return MPI_ERR_TYPE; /* type signatures cannot match */
    }
    return OMPI_SUCCESS;
}

/* No MPI_REPLACE lands in my window (ompi_osc_newrma_acc_self_landing). */
static bool acc_landing_over(ompi_osc_newrma_module_t *module, void *arg)
{
    (void) arg;
    return 0 == module->acc_landings;
}

static int rma_op(ompi_osc_newrma_module_t *module, rma_args_t *a, bool *queued)
{
    size_t bytes = ompi_osc_newrma_dtype_bytes(a->target_dt, a->target_count);
    rma_target_mem_t mem;
    int ret;

    if (MPI_PROC_NULL == a->target) {
        return OMPI_SUCCESS; /* in any epoch or none, as osc/rdma and osc/pt2pt */
    }
    if (!ompi_osc_newrma_win_state_is_access(module->win_state)) {
        return OMPI_ERR_RMA_SYNC;
    }
    if (OPAL_UNLIKELY(a->target < 0 || a->target >= module->comm_size)) {
        return MPI_ERR_RANK; /* reached only with mpi_param_check off */
    }
    ret = ompi_osc_newrma_passive_check_target(module, a->target);
    if (OMPI_SUCCESS == ret) {
        ret = ompi_osc_newrma_pscw_check_target(module, a->target);
    }
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    if (ompi_osc_newrma_op_kind_is_acc(a->kind)) {
        ret = rma_check_acc(a, bytes);
    } else if (bytes != ompi_osc_newrma_dtype_bytes(a->origin_dt, a->origin_count)) {
        ret = MPI_ERR_TYPE; /* type signatures cannot match */
    }
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    if (0 == bytes) {
        return OMPI_SUCCESS;
    }
    ret = rma_resolve(module, a, &mem);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    if (NULL != mem.direct) {
        ompi_osc_newrma_stat_op(&module->stats, a->kind, OMPI_OSC_NEWRMA_STAT_OPS_DIRECT, bytes);
    }
    if (NULL != mem.direct && ompi_osc_newrma_op_kind_is_acc(a->kind)) {
        if (ompi_osc_newrma_acc_self_landing(module, a->target)) {
            ret = ompi_osc_newrma_progress_wait(module, acc_landing_over, NULL);
            if (OMPI_SUCCESS != ret) {
                return ret;
            }
        }
        return rma_direct_acc(module, a, mem.direct, bytes,
                              &ompi_osc_newrma_peer(module, a->target)->lock->acc_lock);
    }
    if (NULL != mem.direct) {
        return rma_direct(module, a, mem.direct, bytes);
    }
    mem.target = ompi_osc_newrma_optable_lookup(&module->table, a->target);
    if (!rma_packed(module, a, &mem, bytes, &ret) &&
        !rma_acc_copy_at_call(module, a, &mem, bytes, &ret) &&
        !rma_fetch_copy_at_call(module, a, &mem, bytes, &ret) &&
        !rma_mbox_at_call(module, a, &mem, bytes, &ret) &&
        !rma_rdma_at_call(module, a, &mem, bytes, &ret)) {
        ret = rma_enqueue(module, a, &mem, bytes, queued);
    }
    if (NULL != mem.region) {
        OBJ_RELEASE(mem.region); /* not queued: nobody uses the rkey */
    }
    return OMPI_SUCCESS == ret ? active_reqs_wait(module) : ret;
}

static const char *rma_kind_name(ompi_osc_newrma_op_kind_t kind)
{
    static const char *const names[] = {"put", "get", "accumulate", "get_accumulate",
                                        "compare_and_swap"};

    return names[kind];
}

static int rma_op_locked(struct ompi_win_t *win, rma_args_t *a, bool *queued)
{
    ompi_osc_newrma_module_t *module = ompi_osc_newrma_module(win);
    int ret;

    ompi_osc_newrma_module_lock(module);
    *queued = false;
    /* request-based operations belong to passive target epochs */
    if (NULL != a->request && !ompi_osc_newrma_win_state_is_passive(module->win_state)) {
        ret = OMPI_ERR_RMA_SYNC;
    } else {
        ret = rma_op(module, a, queued);
    }
    ompi_osc_newrma_module_unlock(module);
    if (OMPI_SUCCESS != ret) {
        OSC_NEWRMA_VERBOSE(20, "%s to rank %d failed: %d", rma_kind_name(a->kind), a->target, ret);
    }
    return ret;
}

static rma_args_t rma_args(ompi_osc_newrma_op_kind_t kind, const void *origin_addr,
                           int origin_count, struct ompi_datatype_t *origin_dt, int target,
                           ptrdiff_t target_disp, int target_count,
                           struct ompi_datatype_t *target_dt)
{
    rma_args_t a = {.kind = kind,
                    .origin_addr = (void *) origin_addr,
                    .origin_count = origin_count,
                    .origin_dt = origin_dt,
                    .target = target,
                    .target_disp = target_disp,
                    .target_count = target_count,
                    .target_dt = target_dt,
                    .request = NULL};
    return a;
}

/* MPI_Put / MPI_Get the full way, out of line: its argument record and
 * saved registers stay out of the fast path's frame. */
static __opal_attribute_noinline__ int
rma_put_get(ompi_osc_newrma_op_kind_t kind, const void *origin_addr, int origin_count,
            struct ompi_datatype_t *origin_dt, int target, ptrdiff_t target_disp, int target_count,
            struct ompi_datatype_t *target_dt, struct ompi_win_t *win)
{
    rma_args_t a = rma_args(kind, origin_addr, origin_count, origin_dt, target, target_disp,
                            target_count, target_dt);
    bool queued;

    return rma_op_locked(win, &a, &queued);
}

/* MPI_Rput / MPI_Rget: the request completes with its op element, or at
 * once when the access was served with loads and stores. */
static int rma_request_op(struct ompi_win_t *win, rma_args_t a, struct ompi_request_t **request)
{
    bool queued;
    int ret;

    a.request = ompi_osc_newrma_request_alloc(win);
    if (NULL == a.request) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    ret = rma_op_locked(win, &a, &queued);
    if (!queued) { /* served at once, or failed before an op element took it */
        ompi_osc_newrma_request_complete(a.request, ret);
    }
    if (OMPI_SUCCESS != ret) {
        ompi_osc_newrma_request_discard(a.request);
        return ret;
    }
    *request = a.request;
    return OMPI_SUCCESS;
}

/* ---- the node-local fast path of MPI_Put / MPI_Get ---- */

/* One contiguous block each side (at *@p toff_p in the target layout,
 * *@p ooff_p in the origin's), *@p bytes_p of them alike on both, inside
 * @p peer's window at byte *@p offset_p of @p disp: the checks rma_op makes
 * for it, without an overflow anywhere.  Always inlined, for rma_fast. */
static inline __opal_attribute_always_inline__ bool
rma_contig_blocks(int origin_count, struct ompi_datatype_t *origin_dt, int target_count,
                  struct ompi_datatype_t *target_dt, ptrdiff_t *toff_p, ptrdiff_t *ooff_p,
                  size_t *bytes_p)
{
    if (!ompi_osc_newrma_dtype_contig(target_dt, target_count, toff_p) ||
        !ompi_osc_newrma_dtype_contig(origin_dt, origin_count, ooff_p)) {
        return false;
    }
    *bytes_p = ompi_osc_newrma_dtype_bytes(target_dt, target_count);
    return 0 != *bytes_p && *bytes_p <= PTRDIFF_MAX &&
           *bytes_p == ompi_osc_newrma_dtype_bytes(origin_dt, origin_count);
}

static inline __opal_attribute_always_inline__ bool
rma_contig_range(const ompi_osc_newrma_module_t *module, const ompi_osc_newrma_peer_t *peer,
                 int origin_count, struct ompi_datatype_t *origin_dt, ptrdiff_t disp,
                 int target_count, struct ompi_datatype_t *target_dt, ptrdiff_t *toff_p,
                 ptrdiff_t *ooff_p, size_t *bytes_p, ptrdiff_t *offset_p)
{
    ptrdiff_t tend;

    return rma_contig_blocks(origin_count, origin_dt, target_count, target_dt, toff_p, ooff_p,
                             bytes_p) &&
           !__builtin_add_overflow(*toff_p, (ptrdiff_t) *bytes_p, &tend) &&
           rma_window_offset(module, peer, disp, *toff_p, tend, offset_p);
}

/* The epoch already gives access to @p peer without work on this call: a
 * FENCE or window-protocol LOCK_ALL epoch, or a direct target whose lock
 * word is held.  PSCW, a LOCK_ALL target not yet locked, and errors take
 * the full path. */
static inline bool rma_fast_epoch(const ompi_osc_newrma_module_t *module,
                                  const ompi_osc_newrma_peer_t *peer)
{
    switch (module->win_state) {
        case OMPI_OSC_NEWRMA_WIN_FENCE_ISSUED:
        case OMPI_OSC_NEWRMA_WIN_FENCE_GRANTED:
        case OMPI_OSC_NEWRMA_WIN_LOCK_ALL_ISSUED:
        case OMPI_OSC_NEWRMA_WIN_LOCK_ALL_GRANTED:
            return true;
        case OMPI_OSC_NEWRMA_WIN_LOCK_ALL_CALLED:
        case OMPI_OSC_NEWRMA_WIN_PER_TARGET:
            return 0 != peer->lock_type;
        default:
            return false;
    }
}

/** A PUT or GET served by the fast path: one block each side. */
typedef struct {
    char *target;
    ptrdiff_t origin_offset;
    size_t bytes;
    const ompi_osc_newrma_peer_t *peer;
} rma_fast_t;

/* A PUT or GET of one contiguous block each side whose target is reached
 * with loads and stores and whose epoch needs no work: the checks rma_op
 * makes, in the order of their cost, without an argument record, an
 * operation or the window lock (nothing here writes shared state).  False
 * sends the call the full way, which also reports every error.  Always
 * inlined: out of line (as gcc chose once the peer lookup joined it) a
 * node-local 8-byte PUT cost a third more instructions. */
static inline __opal_attribute_always_inline__ bool
rma_fast(ompi_osc_newrma_module_t *module, int origin_count, struct ompi_datatype_t *origin_dt,
         int target, ptrdiff_t target_disp, int target_count, struct ompi_datatype_t *target_dt,
         rma_fast_t *f)
{
    const ompi_osc_newrma_peer_t *peer;
    ptrdiff_t toff, offset;

    if (OPAL_UNLIKELY((unsigned) target >= (unsigned) module->comm_size ||
                      MPI_WIN_FLAVOR_DYNAMIC == module->flavor)) {
        return false;
    }
    peer = ompi_osc_newrma_peer(module, target);
    if (NULL == peer || !rma_peer_direct(module, peer, target) || !rma_fast_epoch(module, peer) ||
        !rma_contig_range(module, peer, origin_count, origin_dt, target_disp, target_count,
                          target_dt, &toff, &f->origin_offset, &f->bytes, &offset)) {
        return false;
    }
    /* a block to share with its target's agent takes the full way
     * (direct_shared): never remembered for rma_fast_again, so the small
     * copies' path asks nothing more */
    if (OPAL_UNLIKELY(f->bytes >= module->seg_share_from)) {
        return false;
    }
    f->target = peer->shm_base + offset + toff;
    f->peer = peer;
    return true;
}

/* rma_fast for an access like the last one it served (module->fast_last:
 * same target, predefined datatype and count both sides): only what may
 * have changed since is checked again, the epoch and the displacement.
 * The peer lookup and the datatype checks it skips were half of a
 * node-local 8-byte PUT's instructions in this component (callgrind: 116
 * a call).  A predefined datatype is never freed, so its address cannot
 * come back as another type; its data start at offset 0 each side. */
static inline __opal_attribute_always_inline__ bool
rma_fast_again(ompi_osc_newrma_module_t *module, int origin_count,
               struct ompi_datatype_t *origin_dt, int target, ptrdiff_t target_disp,
               int target_count, struct ompi_datatype_t *target_dt, rma_fast_t *f)
{
    ptrdiff_t offset;

    if (target != module->fast_last.target || origin_dt != module->fast_last.dt ||
        target_dt != origin_dt || origin_count != module->fast_last.count ||
        target_count != origin_count ||
        __builtin_mul_overflow(target_disp, module->fast_last.disp_unit, &offset) || offset < 0 ||
        offset > module->fast_last.limit || !rma_fast_epoch(module, module->fast_last.peer)) {
        return false;
    }
    f->target = module->fast_last.peer->shm_base + offset;
    f->origin_offset = 0;
    f->bytes = module->fast_last.bytes;
    f->peer = module->fast_last.peer;
    return true;
}

/* What rma_fast found for this access, for rma_fast_again: only for one
 * predefined datatype and count on both sides, and never under MPI threads
 * (the entry is written without a lock). */
static inline void rma_fast_remember(ompi_osc_newrma_module_t *module, int origin_count,
                                     struct ompi_datatype_t *origin_dt, int target,
                                     int target_count, struct ompi_datatype_t *target_dt,
                                     const rma_fast_t *f)
{
    if (ompi_osc_newrma_threaded() || origin_dt != target_dt || origin_count != target_count ||
        !ompi_datatype_is_predefined(origin_dt)) {
        return;
    }
    /* rma_fast served it, so the peer's layout is known and the access fits */
    module->fast_last.target = target;
    module->fast_last.count = origin_count;
    module->fast_last.dt = origin_dt;
    module->fast_last.peer = f->peer;
    module->fast_last.disp_unit = f->peer->disp_unit;
    module->fast_last.limit = (ptrdiff_t) (f->peer->size - f->bytes);
    module->fast_last.bytes = f->bytes;
}

/* rma_fast, its answer remembered for rma_fast_again. */
static inline __opal_attribute_always_inline__ bool
rma_fast_first(ompi_osc_newrma_module_t *module, int origin_count,
               struct ompi_datatype_t *origin_dt, int target, ptrdiff_t target_disp,
               int target_count, struct ompi_datatype_t *target_dt, rma_fast_t *f)
{
    if (!rma_fast(module, origin_count, origin_dt, target, target_disp, target_count, target_dt,
                  f)) {
        return false;
    }
    rma_fast_remember(module, origin_count, origin_dt, target, target_count, target_dt, f);
    return true;
}

/* The accumulate family's fast path: one predefined type on every side
 * (one block each), a plain window (ompi_osc_newrma_acc_plain), an op
 * ompi_osc_newrma_acc_contig serves; what rma_direct_acc does, without an
 * argument record, an element walk or the window lock.  A fetching
 * MPI_NO_OP ignores its origin, which callers leave empty (ARMCI-MPI's
 * every get is MPI_Get_accumulate(NULL, 0, ..., MPI_NO_OP)): the result
 * buffer is then the local side; taking the origin's count of 0 sent such
 * a read of 48 doubles the full way (897 instructions a call, 315 here).
 * False sends the call the full way, which also reports every error. */
static inline __opal_attribute_always_inline__ bool
acc_fast(ompi_osc_newrma_module_t *module, ompi_osc_newrma_op_kind_t kind, const void *origin_addr,
         int origin_count, struct ompi_datatype_t *origin_dt, void *result_addr, int result_count,
         struct ompi_datatype_t *result_dt, int target, ptrdiff_t target_disp, int target_count,
         struct ompi_datatype_t *target_dt, struct ompi_op_t *op)
{
    bool read_only = NULL != result_dt && ompi_osc_newrma_acc_is_no_op(op);
    int local_count = read_only ? result_count : origin_count;
    struct ompi_datatype_t *local_dt = read_only ? result_dt : origin_dt;
    rma_fast_t f;

    if (local_dt != target_dt || !ompi_datatype_is_predefined(target_dt) ||
        (NULL != result_dt && (result_dt != target_dt || result_count != target_count)) ||
        !ompi_osc_newrma_acc_plain(module) || ompi_osc_newrma_acc_self_landing(module, target) ||
        !rma_fast(module, local_count, local_dt, target, target_disp, target_count, target_dt,
                  &f) ||
        /* a wide element's reduction to share: the full way */
        OPAL_UNLIKELY(f.bytes >= acc_dear_from(module) &&
                      f.bytes >= acc_share_from(module, target_dt)) ||
        !ompi_osc_newrma_acc_contig(kind, op, target_dt, f.target,
                                    read_only ? NULL : (const char *) origin_addr + f.origin_offset,
                                    NULL != result_dt ? (char *) result_addr + f.origin_offset
                                                      : NULL,
                                    f.bytes, &f.peer->lock->acc_lock)) {
        return false;
    }
    ompi_osc_newrma_stat_op(&module->stats, kind, OMPI_OSC_NEWRMA_STAT_OPS_DIRECT, f.bytes);
    return true;
}

/* acc_fast for a predefined pair type with padding
 * (ompi_osc_newrma_acc_padded: MPI_DOUBLE_INT and its kind), which
 * rma_fast's contiguity turns away: @p count elements at the type's extent
 * each side.  The full way packed and unpacked them through Open MPI's
 * convertor five times: MPI_MAXLOC of 32768 MPI_DOUBLE_INT + flush took
 * 790 us against osc/rdma's 23.  In line: asked only for gapped types
 * (acc_gapped, first), it adds nothing to the contiguous types' path, and
 * its call with 13 arguments was 48 of a lone pair's 400 instructions. */
static inline __opal_attribute_always_inline__ bool
acc_fast_padded(ompi_osc_newrma_module_t *module, ompi_osc_newrma_op_kind_t kind,
                const void *origin_addr, int origin_count, struct ompi_datatype_t *origin_dt,
                void *result_addr, int result_count, struct ompi_datatype_t *result_dt, int target,
                ptrdiff_t target_disp, int target_count, struct ompi_datatype_t *target_dt,
                struct ompi_op_t *op)
{
    bool read_only = NULL != result_dt && ompi_osc_newrma_acc_is_no_op(op);
    const ompi_osc_newrma_peer_t *peer;
    ptrdiff_t lb, extent, span, offset;
    size_t size;

    if (target_count <= 0 || (read_only ? result_dt : origin_dt) != target_dt ||
        (!read_only && origin_count != target_count) || !ompi_datatype_is_predefined(target_dt) ||
        (NULL != result_dt && (result_dt != target_dt || result_count != target_count)) ||
        (unsigned) target >= (unsigned) module->comm_size ||
        MPI_WIN_FLAVOR_DYNAMIC == module->flavor || !ompi_osc_newrma_acc_plain(module) ||
        ompi_osc_newrma_acc_self_landing(module, target)) {
        return false;
    }
    peer = ompi_osc_newrma_peer(module, target);
    ompi_datatype_get_extent(target_dt, &lb, &extent);
    ompi_datatype_type_size(target_dt, &size);
    /* the last element's padding is not the target's to have */
    if (NULL == peer || !rma_peer_direct(module, peer, target) || !rma_fast_epoch(module, peer) ||
        __builtin_mul_overflow((ptrdiff_t) target_count - 1, extent, &span) ||
        __builtin_add_overflow(span, (ptrdiff_t) size, &span) ||
        !rma_window_offset(module, peer, target_disp, 0, span, &offset) ||
        !ompi_osc_newrma_acc_padded(kind, op, target_dt, peer->shm_base + offset,
                                    read_only ? NULL : origin_addr, result_addr,
                                    (size_t) target_count, &peer->lock->acc_lock)) {
        return false;
    }
    ompi_osc_newrma_stat_op(&module->stats, kind, OMPI_OSC_NEWRMA_STAT_OPS_DIRECT,
                            size * (size_t) target_count);
    return true;
}

/* A predefined type whose elements have gaps: the only ones acc_fast_padded
 * takes, asked first, in line: acc_fast's checks and acc_contig's plan
 * turned a single such pair away after 100 instructions. */
static inline bool acc_gapped(struct ompi_datatype_t *dt)
{
    return ompi_datatype_is_predefined(dt) && !ompi_datatype_is_contiguous_memory_layout(dt, 2);
}

/* ---- the UCX path's fast paths: packed by the call ---- */

/* Dynamic window: bytes [@p disp + @p toff, + @p bytes) of @p peer lie in a
 * region of its that this process has cached, as the full way finds them
 * (rma_remote_region); a region not cached sends the call the full way,
 * which asks the target.  A packet needs no reference on the region: it
 * uses no rkey.  The cache's mutex only where another thread may run the
 * component (ompi_osc_newrma_threaded): alone, no packet handler runs
 * during the lookup, and the pthread pair was 57 of a stream PUT's ~550
 * instructions. */
static bool packed_dynamic_cached(ompi_osc_newrma_module_t *module, ompi_osc_newrma_peer_t *peer,
                                  ptrdiff_t disp, ptrdiff_t toff, size_t bytes)
{
    uint64_t lo = (uint64_t) disp + (uint64_t) toff, hi;
    bool threaded = ompi_osc_newrma_threaded(), found;

    if (__builtin_add_overflow(lo, (uint64_t) bytes, &hi)) {
        return false;
    }
    if (threaded) {
        ompi_osc_newrma_mutex_lock(&module->attached_lock, OMPI_OSC_NEWRMA_MUTEX_ATTACHED);
    }
    found = NULL != ompi_osc_newrma_region_cache_find(peer->regions, lo, hi);
    if (threaded) {
        ompi_osc_newrma_mutex_unlock(&module->attached_lock, OMPI_OSC_NEWRMA_MUTEX_ATTACHED);
    }
    return found;
}

/* @p target's peer when it is reached over UCX and this process knows its
 * window (dynamic: any peer but me), in an epoch that needs no work on this
 * call (rma_fast_epoch: a LOCK_ALL target reached over UCX is locked with
 * its element); NULL otherwise. */
static inline __opal_attribute_always_inline__ ompi_osc_newrma_peer_t *
packed_peer_of(ompi_osc_newrma_module_t *module, int target, bool dynamic)
{
    ompi_osc_newrma_peer_t *peer = module->peer_cache[target & (OMPI_OSC_NEWRMA_PEER_CACHE - 1)];

    if (NULL == peer || peer->rank != target || rma_peer_direct(module, peer, target) ||
        NULL == peer->ep ||
        (dynamic ? target == module->my_rank : !peer->info_known || NULL == peer->rkey) ||
        !rma_fast_epoch(module, peer)) {
        return NULL;
    }
    return peer;
}

/* A packed_peer_of whose window (or, dynamic, a region of it this process
 * has cached) holds an access of one contiguous block each side within
 * aggregate_threshold: the checks rma_op makes for it; NULL otherwise.
 * *@p taddr_p: the window address of @p target_disp, *@p bytes_p the
 * access's bytes (at *@p toff_p and *@p ooff_p). */
static inline __opal_attribute_always_inline__ ompi_osc_newrma_peer_t *
packed_peer(ompi_osc_newrma_module_t *module, int origin_count, struct ompi_datatype_t *origin_dt,
            int target, ptrdiff_t target_disp, int target_count, struct ompi_datatype_t *target_dt,
            uint64_t *taddr_p, size_t *bytes_p, ptrdiff_t *toff_p, ptrdiff_t *ooff_p)
{
    bool dynamic = MPI_WIN_FLAVOR_DYNAMIC == module->flavor;
    ompi_osc_newrma_peer_t *peer = packed_peer_of(module, target, dynamic);
    ptrdiff_t offset;
    size_t bytes;

    if (NULL == peer ||
        (dynamic ? !rma_contig_blocks(origin_count, origin_dt, target_count, target_dt, toff_p,
                                      ooff_p, &bytes) ||
                       !packed_dynamic_cached(module, peer, target_disp, *toff_p, bytes)
                 : !rma_contig_range(module, peer, origin_count, origin_dt, target_disp,
                                     target_count, target_dt, toff_p, ooff_p, &bytes, &offset)) ||
        bytes > module->config.aggregate_threshold) {
        return NULL;
    }
    *taddr_p = dynamic ? (uint64_t) target_disp : peer->base + (uint64_t) offset;
    *bytes_p = bytes;
    return peer;
}

/* A packed_peer's target element when it takes a @p kind access packed by
 * the call (rma_stream_takes, the target open); NULL otherwise. */
static inline __opal_attribute_always_inline__ ompi_osc_newrma_target_t *
packed_target(ompi_osc_newrma_module_t *module, int origin_count, struct ompi_datatype_t *origin_dt,
              int target, ptrdiff_t target_disp, int target_count,
              struct ompi_datatype_t *target_dt, ompi_osc_newrma_op_kind_t kind, uint64_t *taddr_p,
              size_t *bytes_p, ptrdiff_t *toff_p, ptrdiff_t *ooff_p)
{
    ompi_osc_newrma_target_t *t;

    if (NULL == packed_peer(module, origin_count, origin_dt, target, target_disp, target_count,
                            target_dt, taddr_p, bytes_p, toff_p, ooff_p)) {
        return NULL;
    }
    t = ompi_osc_newrma_optable_lookup(&module->table, target);
    return rma_stream_takes(t, kind) && target_open(module, t) ? t : NULL;
}

/* After an access packed by the call: its statistics, and the wait for
 * request-based operations above the window's threshold (as rma_op). */
static int packed_done(ompi_osc_newrma_module_t *module, ompi_osc_newrma_op_kind_t kind,
                       size_t bytes, int ret)
{
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    rma_packed_count(module, kind, bytes);
    return active_reqs_wait(module);
}

/* The access packed into open @p t's stream (rma_stream_takes), unless its
 * size goes by RDMA (@p packets: size_as_packets): what rma_packed does for
 * it.  @return true when served. */
static bool packed_into_stream(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *t,
                               ompi_osc_newrma_op_kind_t kind, char *origin, size_t bytes,
                               uint64_t taddr, bool packets, int *ret_p)
{
    bool get = OMPI_OSC_NEWRMA_OP_GET == kind;

    /* a GET by rendezvous is an op element's (rma_get_as_packet); a size
     * by RDMA asks nothing of the stream (its test was 20 of an RDMA GET's
     * instructions) */
    if (!packets || !rma_stream_takes(t, kind) ||
        (get && ompi_osc_newrma_pkt_rndv(module, bytes))) {
        return false;
    }
    *ret_p = packed_done(module, kind, bytes,
                         get ? ompi_osc_newrma_pkt_get_packed(module, t, origin, bytes, taddr)
                             : ompi_osc_newrma_pkt_put_contig(module, t, origin, bytes, taddr));
    return true;
}

/* The access moved by RDMA from the call, as rma_rdma_at_call moves it,
 * where rma_op would come to that: its size not as packets and not the
 * copy's (the caller's), the mailbox not taking it (a slot of mine holds a
 * GET and this is a GET, or the slot is free but the access does not fit
 * it), and nothing of this process at open @p t that it could overtake.
 * @return true when served. */
static bool rdma_at_call_fast(ompi_osc_newrma_module_t *module, ompi_osc_newrma_peer_t *peer,
                              ompi_osc_newrma_target_t *t, ompi_osc_newrma_op_kind_t kind,
                              char *origin, size_t bytes, uint64_t taddr, int *ret_p)
{
    bool put = OMPI_OSC_NEWRMA_OP_PUT == kind;

    if (MPI_WIN_FLAVOR_DYNAMIC == module->flavor ||
        OMPI_OSC_NEWRMA_WIN_PSCW_GRANTED == module->win_state || !rdma_at_call_clear(t, put) ||
        (NULL == t->mbox_slot && module->mbox_ok && ompi_osc_newrma_mbox_fits(kind, NULL, bytes))) {
        return false;
    }
    *ret_p = rdma_at_call_issue(module, t, kind, peer->ep, origin, bytes, taddr, peer->rkey);
    if (OMPI_SUCCESS == *ret_p) {
        *ret_p = active_reqs_wait(module);
    }
    return true;
}

/* @p arg's rank (an int) has finished the fence before (fence_drained). */
static bool rank_fence_drained(ompi_osc_newrma_module_t *module, void *arg)
{
    return rank_drained(module, *(const int *) arg);
}

/* A target of a window of one segment that has not yet marked the fence
 * before drained: it has passed that fence's barrier (mine waited for it)
 * and applies what came before it, so it is a few microseconds away.  The
 * call waits for it with progress: queued instead, as an op element, the
 * access made every later one of the epoch to that target queue behind it
 * (none may overtake it), a whole epoch of PUT packets without packing at
 * the call (put_stream's fence entry at 4 ranks on 2 cores: none packed in
 * 2 of 40 runs once the node barrier got faster).  False: the wait failed
 * (a peer died), which the full way reports. */
static bool packed_target_drained(ompi_osc_newrma_module_t *module, int target)
{
    return rank_drained(module, target) ||
           OMPI_SUCCESS == ompi_osc_newrma_progress_wait(module, rank_fence_drained, &target);
}

/* Bytes of a non-contiguous origin that put_described_locked packs on its
 * stack (more take the full way, which packs into the op element's). */
#define PUT_DESCRIBED_STAGE 4096

/* A PUT to a described target layout (a vector of small blocks, say)
 * within aggregate_threshold, its origin contiguous or packed on the stack,
 * to a packed_peer_of whose window holds it, in a stream (rma_stream_takes)
 * that would send it as packets: one described PUT packet from the call, as
 * rma_packed sends a contiguous one.  The full way queued an op element and issued it: 2,150
 * instructions per MPI_Put in a stream of 128-byte PUTs of 8-byte blocks
 * (callgrind, create window, one node), rma_op_locked's and the issue's
 * (osc/pt2pt's PUTs of that layout moved 355 MB/s, newrma's 315).  Window
 * lock held.  @return true when served (*@p ret_p its status). */
static __opal_attribute_noinline__ bool
put_described_locked(ompi_osc_newrma_module_t *module, char *origin_addr, int origin_count,
                     struct ompi_datatype_t *origin_dt, int target, ptrdiff_t target_disp,
                     int target_count, struct ompi_datatype_t *target_dt, int *ret_p)
{
    bool dynamic = MPI_WIN_FLAVOR_DYNAMIC == module->flavor, contig;
    /* the peer first: a direct one (loads and stores) never takes this */
    ompi_osc_newrma_peer_t *peer = packed_peer_of(module, target, dynamic);
    size_t bytes = ompi_osc_newrma_dtype_bytes(target_dt, target_count);
    char stage[PUT_DESCRIBED_STAGE], *origin = origin_addr;
    ompi_osc_newrma_target_t *t;
    ptrdiff_t ooff = 0, toff, lo, hi, offset = 0;

    if (NULL == peer || 0 == bytes || bytes > module->config.aggregate_threshold ||
        ompi_osc_newrma_dtype_contig(target_dt, target_count, &toff) ||
        bytes != ompi_osc_newrma_dtype_bytes(origin_dt, origin_count)) {
        return false;
    }
    contig = ompi_osc_newrma_dtype_contig(origin_dt, origin_count, &ooff);
    if (!contig && bytes > sizeof(stage)) {
        return false;
    }
    ompi_osc_newrma_dtype_span(target_dt, target_count, &lo, &hi);
    if ((dynamic ? !packed_dynamic_cached(module, peer, target_disp, lo, (size_t) (hi - lo))
                 : !rma_window_offset(module, peer, target_disp, lo, hi, &offset)) ||
        !packed_target_drained(module, target)) {
        return false;
    }
    t = ompi_osc_newrma_optable_lookup(&module->table, target);
    if (NULL == t || !rma_stream_takes(t, OMPI_OSC_NEWRMA_OP_PUT) || !target_open(module, t) ||
        !size_as_packets_to(module, peer, t, OMPI_OSC_NEWRMA_OP_PUT, bytes, NULL)) {
        return false;
    }
    if (contig) {
        origin += ooff;
    } else if (OMPI_SUCCESS != (*ret_p = ompi_osc_newrma_dtype_pack(stage, origin_addr, origin_dt,
                                                                    origin_count, bytes))) {
        return true;
    } else {
        origin = stage;
    }
    if (!ompi_osc_newrma_pkt_put_described(
            module, t, target_dt, target_count, origin, bytes,
            dynamic ? (uint64_t) target_disp : peer->base + (uint64_t) offset, ret_p)) {
        return false;
    }
    *ret_p = packed_done(module, OMPI_OSC_NEWRMA_OP_PUT, bytes, *ret_p);
    return true;
}

/* A small contiguous PUT or GET to a packed_peer: what rma_op, rma_packed
 * and rma_rdma_at_call do for it, with the peer looked up once and without
 * the argument record, the resolution record or the epoch checks for
 * other kinds.  Over TCP, 64 such PUTs + flush took 737 instructions per
 * PUT (rma_op_locked alone 230); osc/pt2pt's PUT rate there is RTT bound,
 * so the PUTs' own time is what a stream can gain.  A GET of a stream of
 * 2 KiB GETs by RDMA from a create window on the node: 1,325 instructions
 * in all the full way (UCX's ucp_get_nbx 325 of them), 800 so (osc/ucx
 * 542).  Window lock held.  @return true when served (*@p ret_p its
 * status). */
static bool put_get_packed_locked(ompi_osc_newrma_module_t *module, ompi_osc_newrma_op_kind_t kind,
                                  char *origin_addr, int origin_count,
                                  struct ompi_datatype_t *origin_dt, int target,
                                  ptrdiff_t target_disp, int target_count,
                                  struct ompi_datatype_t *target_dt, int *ret_p)
{
    ompi_osc_newrma_peer_t *peer;
    ompi_osc_newrma_target_t *t;
    ptrdiff_t toff, ooff;
    uint64_t taddr;
    size_t bytes;
    bool packets;

    peer = packed_peer(module, origin_count, origin_dt, target, target_disp, target_count,
                       target_dt, &taddr, &bytes, &toff, &ooff);
    if (NULL == peer) {
        return OMPI_OSC_NEWRMA_OP_PUT == kind &&
               put_described_locked(module, origin_addr, origin_count, origin_dt, target,
                                    target_disp, target_count, target_dt, ret_p);
    }
    if (!packed_target_drained(module, target)) {
        return false;
    }
    t = ompi_osc_newrma_optable_lookup(&module->table, target);
    if (NULL == t || !target_open(module, t)) {
        return false;
    }
    taddr += (uint64_t) toff;
    /* within aggregate_threshold, size_as_packets can only say no to a
     * size of rdma_sized: the others spare the call (a stream of small
     * PUTs) */
    packets = !rdma_sized(kind, bytes) || size_as_packets_to(module, peer, t, kind, bytes, NULL);
    if (packed_into_stream(module, t, kind, origin_addr + ooff, bytes, taddr, packets, ret_p)) {
        return true;
    }
    if (cma_takes(module, target, kind, bytes)) {
        return cma_at_call(module, peer, t, kind, origin_addr + ooff, bytes, taddr, ret_p);
    }
    return !packets &&
           rdma_at_call_fast(module, peer, t, kind, origin_addr + ooff, bytes, taddr, ret_p);
}

/* Out of line: the node-local fast path's frame stays small. */
static __opal_attribute_noinline__ bool
put_get_packed(ompi_osc_newrma_module_t *module, ompi_osc_newrma_op_kind_t kind, void *origin_addr,
               int origin_count, struct ompi_datatype_t *origin_dt, int target,
               ptrdiff_t target_disp, int target_count, struct ompi_datatype_t *target_dt,
               int *ret_p)
{
    bool served;

    if ((unsigned) target >= (unsigned) module->comm_size) {
        return false;
    }
    ompi_osc_newrma_module_lock(module);
    served = put_get_packed_locked(module, kind, origin_addr, origin_count, origin_dt, target,
                                   target_disp, target_count, target_dt, ret_p);
    ompi_osc_newrma_module_unlock(module);
    if (served && OMPI_SUCCESS != *ret_p) {
        OSC_NEWRMA_VERBOSE(20, "%s to rank %d failed: %d", rma_kind_name(kind), target, *ret_p);
    }
    return served;
}

/* MPI_Put past rma_fast_again: out of line, so that the call it serves
 * saves no registers (a tail call from ompi_osc_newrma_put). */
static __opal_attribute_noinline__ int put_first(const void *origin_addr, int origin_count,
                                                 struct ompi_datatype_t *origin_dt, int target,
                                                 ptrdiff_t target_disp, int target_count,
                                                 struct ompi_datatype_t *target_dt,
                                                 struct ompi_win_t *win)
{
    ompi_osc_newrma_module_t *module = ompi_osc_newrma_module(win);
    rma_fast_t f;
    int ret;

    if (OPAL_LIKELY(rma_fast_first(module, origin_count, origin_dt, target, target_disp,
                                   target_count, target_dt, &f))) {
        ompi_osc_newrma_copy_elem(f.target, (const char *) origin_addr + f.origin_offset, f.bytes);
        ompi_osc_newrma_stat_op(&module->stats, OMPI_OSC_NEWRMA_OP_PUT,
                                OMPI_OSC_NEWRMA_STAT_OPS_DIRECT, f.bytes);
        return OMPI_SUCCESS;
    }
    if (put_get_packed(module, OMPI_OSC_NEWRMA_OP_PUT, (void *) origin_addr, origin_count,
                       origin_dt, target, target_disp, target_count, target_dt, &ret)) {
        return ret;
    }
    return rma_put_get(OMPI_OSC_NEWRMA_OP_PUT, origin_addr, origin_count, origin_dt, target,
                       target_disp, target_count, target_dt, win);
}

int ompi_osc_newrma_put(const void *origin_addr, int origin_count,
                        struct ompi_datatype_t *origin_dt, int target, ptrdiff_t target_disp,
                        int target_count, struct ompi_datatype_t *target_dt, struct ompi_win_t *win)
{
    ompi_osc_newrma_module_t *module = ompi_osc_newrma_module(win);
    rma_fast_t f;

    if (OPAL_LIKELY(rma_fast_again(module, origin_count, origin_dt, target, target_disp,
                                   target_count, target_dt, &f))) {
        ompi_osc_newrma_copy_elem(f.target, origin_addr, f.bytes);
        ompi_osc_newrma_stat_op(&module->stats, OMPI_OSC_NEWRMA_OP_PUT,
                                OMPI_OSC_NEWRMA_STAT_OPS_DIRECT, f.bytes);
        return OMPI_SUCCESS;
    }
    return put_first(origin_addr, origin_count, origin_dt, target, target_disp, target_count,
                     target_dt, win);
}

/* MPI_Get past rma_fast_again (as put_first). */
static __opal_attribute_noinline__ int get_first(void *origin_addr, int origin_count,
                                                 struct ompi_datatype_t *origin_dt, int target,
                                                 ptrdiff_t target_disp, int target_count,
                                                 struct ompi_datatype_t *target_dt,
                                                 struct ompi_win_t *win)
{
    ompi_osc_newrma_module_t *module = ompi_osc_newrma_module(win);
    rma_fast_t f;
    int ret;

    if (OPAL_LIKELY(rma_fast_first(module, origin_count, origin_dt, target, target_disp,
                                   target_count, target_dt, &f))) {
        ompi_osc_newrma_copy_elem((char *) origin_addr + f.origin_offset, f.target, f.bytes);
        ompi_osc_newrma_stat_op(&module->stats, OMPI_OSC_NEWRMA_OP_GET,
                                OMPI_OSC_NEWRMA_STAT_OPS_DIRECT, f.bytes);
        return OMPI_SUCCESS;
    }
    if (put_get_packed(module, OMPI_OSC_NEWRMA_OP_GET, origin_addr, origin_count, origin_dt, target,
                       target_disp, target_count, target_dt, &ret)) {
        return ret;
    }
    return rma_put_get(OMPI_OSC_NEWRMA_OP_GET, origin_addr, origin_count, origin_dt, target,
                       target_disp, target_count, target_dt, win);
}

int ompi_osc_newrma_get(void *origin_addr, int origin_count, struct ompi_datatype_t *origin_dt,
                        int target, ptrdiff_t target_disp, int target_count,
                        struct ompi_datatype_t *target_dt, struct ompi_win_t *win)
{
    ompi_osc_newrma_module_t *module = ompi_osc_newrma_module(win);
    rma_fast_t f;

    if (OPAL_LIKELY(rma_fast_again(module, origin_count, origin_dt, target, target_disp,
                                   target_count, target_dt, &f))) {
        ompi_osc_newrma_copy_elem(origin_addr, f.target, f.bytes);
        ompi_osc_newrma_stat_op(&module->stats, OMPI_OSC_NEWRMA_OP_GET,
                                OMPI_OSC_NEWRMA_STAT_OPS_DIRECT, f.bytes);
        return OMPI_SUCCESS;
    }
    return get_first(origin_addr, origin_count, origin_dt, target, target_disp, target_count,
                     target_dt, win);
}

int ompi_osc_newrma_rput(const void *origin_addr, int origin_count,
                         struct ompi_datatype_t *origin_dt, int target, ptrdiff_t target_disp,
                         int target_count, struct ompi_datatype_t *target_dt,
                         struct ompi_win_t *win, struct ompi_request_t **request)
{
    return rma_request_op(win,
                          rma_args(OMPI_OSC_NEWRMA_OP_PUT, origin_addr, origin_count, origin_dt,
                                   target, target_disp, target_count, target_dt),
                          request);
}

int ompi_osc_newrma_rget(void *origin_addr, int origin_count, struct ompi_datatype_t *origin_dt,
                         int target, ptrdiff_t target_disp, int target_count,
                         struct ompi_datatype_t *target_dt, struct ompi_win_t *win,
                         struct ompi_request_t **request)
{
    return rma_request_op(win,
                          rma_args(OMPI_OSC_NEWRMA_OP_GET, origin_addr, origin_count, origin_dt,
                                   target, target_disp, target_count, target_dt),
                          request);
}

/* ---- accumulate family ---- */

static rma_args_t acc_args(ompi_osc_newrma_op_kind_t kind, const void *origin_addr,
                           int origin_count, struct ompi_datatype_t *origin_dt, void *result_addr,
                           int result_count, struct ompi_datatype_t *result_dt, int target,
                           ptrdiff_t target_disp, int target_count,
                           struct ompi_datatype_t *target_dt, struct ompi_op_t *op)
{
    rma_args_t a = rma_args(kind, origin_addr, origin_count, origin_dt, target, target_disp,
                            target_count, target_dt);

    a.op = op;
    if (OMPI_OSC_NEWRMA_OP_ACC != kind) {
        a.result_addr = result_addr;
        a.result_count = result_count;
        a.result_dt = result_dt;
    }
    if (ompi_osc_newrma_acc_is_no_op(op) && OMPI_OSC_NEWRMA_OP_GACC == kind) {
        /* MPI_NO_OP ignores the origin buffer */
        a.origin_addr = NULL;
        a.origin_count = 0;
        a.origin_dt = NULL;
    }
    return a;
}

/* The UCX path's MPI_Accumulate of one predefined type on both sides to a
 * packed_target, copied into its aggregated message as one ACC packet
 * (ompi_osc_newrma_acc_packed), without an op element.  ARMCI-MPI turns
 * every put into MPI_Accumulate(MPI_REPLACE): a stream of them went through
 * an op element each (queued, issued, retired), about twice a packed PUT's
 * time per call.  Out of line, as put_get_packed.  @return true when served
 * (*@p ret_p its status). */
static __opal_attribute_noinline__ bool
acc_packed(ompi_osc_newrma_module_t *module, const void *origin_addr, int origin_count,
           struct ompi_datatype_t *origin_dt, int target, ptrdiff_t target_disp, int target_count,
           struct ompi_datatype_t *target_dt, struct ompi_op_t *op, int *ret_p)
{
    ompi_osc_newrma_target_t *t;
    struct ompi_datatype_t *basic;
    ptrdiff_t toff, ooff;
    uint64_t taddr;
    size_t bytes;
    int ret;

    if ((unsigned) target >= (unsigned) module->comm_size || origin_dt != target_dt ||
        !ompi_datatype_is_predefined(target_dt) || ompi_osc_newrma_acc_is_no_op(op) ||
        OMPI_SUCCESS != ompi_osc_newrma_acc_check(OMPI_OSC_NEWRMA_OP_ACC, op, origin_dt, target_dt,
                                                  NULL, &basic)) {
        return false;
    }
    ompi_osc_newrma_module_lock(module);
    t = packed_target(module, origin_count, origin_dt, target, target_disp, target_count, target_dt,
                      OMPI_OSC_NEWRMA_OP_ACC, &taddr, &bytes, &toff, &ooff);
    ret = NULL == t ? OMPI_ERR_NOT_AVAILABLE
                    : ompi_osc_newrma_acc_packed(module, t, op, basic, target_dt, target_count,
                                                 taddr, (const char *) origin_addr + ooff, bytes);
    if (OMPI_ERR_NOT_AVAILABLE != ret) {
        *ret_p = packed_done(module, OMPI_OSC_NEWRMA_OP_ACC, bytes, ret);
    }
    ompi_osc_newrma_module_unlock(module);
    if (OMPI_ERR_NOT_AVAILABLE == ret) {
        return false;
    }
    if (OMPI_SUCCESS != *ret_p) {
        OSC_NEWRMA_VERBOSE(20, "accumulate to rank %d failed: %d", target, *ret_p);
    }
    return true;
}

int ompi_osc_newrma_accumulate(const void *origin_addr, int origin_count,
                               struct ompi_datatype_t *origin_dt, int target, ptrdiff_t target_disp,
                               int target_count, struct ompi_datatype_t *target_dt,
                               struct ompi_op_t *op, struct ompi_win_t *win)
{
    rma_args_t a;
    bool queued;
    int ret;

    if (OPAL_UNLIKELY(acc_gapped(target_dt))
            ? acc_fast_padded(ompi_osc_newrma_module(win), OMPI_OSC_NEWRMA_OP_ACC, origin_addr,
                              origin_count, origin_dt, NULL, 0, NULL, target, target_disp,
                              target_count, target_dt, op)
            : acc_fast(ompi_osc_newrma_module(win), OMPI_OSC_NEWRMA_OP_ACC, origin_addr,
                       origin_count, origin_dt, NULL, 0, NULL, target, target_disp, target_count,
                       target_dt, op)) {
        return OMPI_SUCCESS;
    }
    if (acc_packed(ompi_osc_newrma_module(win), origin_addr, origin_count, origin_dt, target,
                   target_disp, target_count, target_dt, op, &ret)) {
        return ret;
    }
    a = acc_args(OMPI_OSC_NEWRMA_OP_ACC, origin_addr, origin_count, origin_dt, NULL, 0, NULL,
                 target, target_disp, target_count, target_dt, op);
    return rma_op_locked(win, &a, &queued);
}

int ompi_osc_newrma_get_accumulate(const void *origin_addr, int origin_count,
                                   struct ompi_datatype_t *origin_dt, void *result_addr,
                                   int result_count, struct ompi_datatype_t *result_dt,
                                   int target_rank, ptrdiff_t target_disp, int target_count,
                                   struct ompi_datatype_t *target_dt, struct ompi_op_t *op,
                                   struct ompi_win_t *win)
{
    rma_args_t a;
    bool queued;

    if (OPAL_UNLIKELY(acc_gapped(target_dt))
            ? acc_fast_padded(ompi_osc_newrma_module(win), OMPI_OSC_NEWRMA_OP_GACC, origin_addr,
                              origin_count, origin_dt, result_addr, result_count, result_dt,
                              target_rank, target_disp, target_count, target_dt, op)
            : acc_fast(ompi_osc_newrma_module(win), OMPI_OSC_NEWRMA_OP_GACC, origin_addr,
                       origin_count, origin_dt, result_addr, result_count, result_dt, target_rank,
                       target_disp, target_count, target_dt, op)) {
        return OMPI_SUCCESS;
    }
    a = acc_args(OMPI_OSC_NEWRMA_OP_GACC, origin_addr, origin_count, origin_dt, result_addr,
                 result_count, result_dt, target_rank, target_disp, target_count, target_dt, op);
    return rma_op_locked(win, &a, &queued);
}

int ompi_osc_newrma_fetch_and_op(const void *origin_addr, void *result_addr,
                                 struct ompi_datatype_t *dt, int target, ptrdiff_t target_disp,
                                 struct ompi_op_t *op, struct ompi_win_t *win)
{
    rma_args_t a;
    bool queued;

    if (OPAL_LIKELY(acc_fast(ompi_osc_newrma_module(win), OMPI_OSC_NEWRMA_OP_GACC, origin_addr, 1,
                             dt, result_addr, 1, dt, target, target_disp, 1, dt, op))) {
        return OMPI_SUCCESS;
    }
    a = acc_args(OMPI_OSC_NEWRMA_OP_GACC, origin_addr, 1, dt, result_addr, 1, dt, target,
                 target_disp, 1, dt, op);
    return rma_op_locked(win, &a, &queued);
}

/* MPI_Compare_and_swap's fast path, as acc_fast's: a predefined type, a
 * plain window, the element in a node-local peer's window reached by
 * loads and stores; the compare and swap under the target's accumulate
 * lock.  The full way walked the element's datatype through Open MPI's
 * convertor: 870 instructions a call, 1.6 times osc/sm's time. */
static inline __opal_attribute_always_inline__ bool
cas_fast(ompi_osc_newrma_module_t *module, const void *origin_addr, const void *compare_addr,
         void *result_addr, struct ompi_datatype_t *dt, int target, ptrdiff_t target_disp)
{
    rma_fast_t f;

    if (!ompi_datatype_is_predefined(dt) || !ompi_osc_newrma_acc_plain(module) ||
        ompi_osc_newrma_acc_self_landing(module, target) ||
        !rma_fast(module, 1, dt, target, target_disp, 1, dt, &f) ||
        !ompi_osc_newrma_acc_cas_contig(dt, f.target, origin_addr, compare_addr, result_addr,
                                        &f.peer->lock->acc_lock)) {
        return false;
    }
    ompi_osc_newrma_stat_op(&module->stats, OMPI_OSC_NEWRMA_OP_CAS, OMPI_OSC_NEWRMA_STAT_OPS_DIRECT,
                            f.bytes);
    return true;
}

int ompi_osc_newrma_compare_and_swap(const void *origin_addr, const void *compare_addr,
                                     void *result_addr, struct ompi_datatype_t *dt, int target,
                                     ptrdiff_t target_disp, struct ompi_win_t *win)
{
    rma_args_t a;
    bool queued;

    if (OPAL_LIKELY(cas_fast(ompi_osc_newrma_module(win), origin_addr, compare_addr, result_addr,
                             dt, target, target_disp))) {
        return OMPI_SUCCESS;
    }
    a = acc_args(OMPI_OSC_NEWRMA_OP_CAS, origin_addr, 1, dt, result_addr, 1, dt, target,
                 target_disp, 1, dt, NULL);
    a.compare_addr = compare_addr;
    return rma_op_locked(win, &a, &queued);
}

int ompi_osc_newrma_raccumulate(const void *origin_addr, int origin_count,
                                struct ompi_datatype_t *origin_dt, int target,
                                ptrdiff_t target_disp, int target_count,
                                struct ompi_datatype_t *target_dt, struct ompi_op_t *op,
                                struct ompi_win_t *win, struct ompi_request_t **request)
{
    return rma_request_op(win,
                          acc_args(OMPI_OSC_NEWRMA_OP_ACC, origin_addr, origin_count, origin_dt,
                                   NULL, 0, NULL, target, target_disp, target_count, target_dt, op),
                          request);
}

int ompi_osc_newrma_rget_accumulate(const void *origin_addr, int origin_count,
                                    struct ompi_datatype_t *origin_dt, void *result_addr,
                                    int result_count, struct ompi_datatype_t *result_dt,
                                    int target_rank, ptrdiff_t target_disp, int target_count,
                                    struct ompi_datatype_t *target_dt, struct ompi_op_t *op,
                                    struct ompi_win_t *win, struct ompi_request_t **request)
{
    return rma_request_op(win,
                          acc_args(OMPI_OSC_NEWRMA_OP_GACC, origin_addr, origin_count, origin_dt,
                                   result_addr, result_count, result_dt, target_rank, target_disp,
                                   target_count, target_dt, op),
                          request);
}
