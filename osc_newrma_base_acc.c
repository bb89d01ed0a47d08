/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: accumulate reductions on memory (see osc_newrma_base_acc.h).
 */
#include "ompi_config.h"

#include <sched.h>
#include <stddef.h>
#include <string.h>

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"

#include "osc_newrma.h"
#include "osc_newrma_base_acc.h"
#include "osc_newrma_base_copy.h"
#include "osc_newrma_base_dtype.h"

/* ---- checks ---- */

/* The one predefined type @p dt is built from, or NULL. */
static ompi_datatype_t *acc_basic_of(ompi_datatype_t *dt)
{
    if (ompi_datatype_is_predefined(dt)) {
        return dt;
    }
    return ompi_datatype_get_single_predefined_type_from_args(dt);
}

/* Integer element types (C and Fortran integers of every width, byte):
 * two's complement, so fetch-add and the bitwise atomics apply. */
bool ompi_osc_newrma_acc_integer(ompi_datatype_t *basic)
{
    int map = ompi_op_ddt_map[basic->id];

    return (map >= OMPI_OP_BASE_TYPE_INT8_T && map <= OMPI_OP_BASE_TYPE_INTEGER16) ||
           OMPI_OP_BASE_TYPE_LONG == map || OMPI_OP_BASE_TYPE_UNSIGNED_LONG == map ||
           OMPI_OP_BASE_TYPE_WCHAR == map || OMPI_OP_BASE_TYPE_BYTE == map;
}

/* MPI-3.1 11.3.7: CAS takes C/Fortran integer, logical, multi-language
 * and byte types; all of them are integers of at most 8 bytes here. */
static bool acc_cas_type(ompi_datatype_t *basic)
{
    int map = ompi_op_ddt_map[basic->id];
    size_t size;

    ompi_datatype_type_size(basic, &size);
    return size <= 8 && (ompi_osc_newrma_acc_integer(basic) || OMPI_OP_BASE_TYPE_LOGICAL == map ||
                         OMPI_OP_BASE_TYPE_BOOL == map || &ompi_mpi_char.dt == basic);
}

int ompi_osc_newrma_acc_check(ompi_osc_newrma_op_kind_t kind, struct ompi_op_t *op,
                              struct ompi_datatype_t *origin_dt, struct ompi_datatype_t *target_dt,
                              struct ompi_datatype_t *result_dt, struct ompi_datatype_t **basic_p)
{
    ompi_datatype_t *basic = acc_basic_of(target_dt);
    char *msg = NULL;

    if (NULL == basic) {
        return MPI_ERR_TYPE; /* not built from a single predefined type */
    }
    if ((NULL != origin_dt && acc_basic_of(origin_dt) != basic) ||
        (NULL != result_dt && acc_basic_of(result_dt) != basic)) {
        return MPI_ERR_TYPE;
    }
    if (OMPI_OSC_NEWRMA_OP_CAS == kind) {
        if (!acc_cas_type(basic)) {
            return MPI_ERR_TYPE;
        }
    } else if (NULL == op || !ompi_op_is_intrinsic(op)) {
        return MPI_ERR_OP; /* user-defined reductions are not allowed in RMA */
    } else if (!ompi_osc_newrma_acc_is_no_op(op) && !ompi_osc_newrma_acc_is_replace(op)) {
        if (!ompi_op_is_valid(op, basic, &msg, "osc/newrma")) {
            OSC_NEWRMA_VERBOSE(10, "%s", msg);
            free(msg);
            return MPI_ERR_OP;
        }
    } else if (ompi_osc_newrma_acc_is_no_op(op) && OMPI_OSC_NEWRMA_OP_ACC == kind) {
        return MPI_ERR_OP; /* MPI_NO_OP is for the fetching forms only */
    }
    *basic_p = basic;
    return OMPI_SUCCESS;
}

/* ---- applying to target memory ---- */

/* The accumulate lock: held for a few element updates only, never across
 * progress; on an oversubscribed node yield so its holder can run.  A
 * sequence lock: odd while held, each take and release adding one, so a
 * reader without it sees whether anyone wrote under it meanwhile
 * (ompi_osc_newrma_acc_lock_seq). */
static void acc_lock(volatile int32_t *lock)
{
    int32_t seen;

    for (int spins = 0;; ++spins) {
        seen = *lock;
        if (0 == (seen & 1) && opal_atomic_compare_exchange_strong_acq_32(
                                   lock, &seen, (int32_t) ((uint32_t) seen + 1))) {
            return;
        }
        if (spins > 64) {
            sched_yield();
        }
    }
}

static void acc_unlock(volatile int32_t *lock)
{
    opal_atomic_wmb();                        /* the updates before the release */
    *lock = (int32_t) ((uint32_t) *lock + 1); /* only the holder writes it */
}

int32_t ompi_osc_newrma_acc_lock_seq(volatile int32_t *lock)
{
    int32_t seq = *lock;

    opal_atomic_rmb(); /* the word before the reads it covers */
    return seq;
}

void ompi_osc_newrma_acc_lock_take(volatile int32_t *lock)
{
    acc_lock(lock);
}

void ompi_osc_newrma_acc_lock_release(volatile int32_t *lock)
{
    acc_unlock(lock);
}

ompi_osc_newrma_acc_fast_t ompi_osc_newrma_acc_fast(ompi_op_t *op, ompi_datatype_t *basic)
{
    if (ompi_osc_newrma_acc_is_replace(op)) {
        return OMPI_OSC_NEWRMA_ACC_FAST_REPLACE;
    }
    if (!ompi_osc_newrma_acc_integer(basic)) {
        return OMPI_OSC_NEWRMA_ACC_FAST_NONE;
    }
    switch (op->op_type) {
        case OMPI_OP_SUM:
            return OMPI_OSC_NEWRMA_ACC_FAST_ADD;
        case OMPI_OP_BAND:
            return OMPI_OSC_NEWRMA_ACC_FAST_AND;
        case OMPI_OP_BOR:
            return OMPI_OSC_NEWRMA_ACC_FAST_OR;
        case OMPI_OP_BXOR:
            return OMPI_OSC_NEWRMA_ACC_FAST_XOR;
        default:
            return OMPI_OSC_NEWRMA_ACC_FAST_NONE;
    }
}

bool ompi_osc_newrma_acc_in_place(ompi_datatype_t *basic)
{
    ptrdiff_t lb, extent;
    size_t size;

    ompi_datatype_type_size(basic, &size);
    ompi_datatype_get_extent(basic, &lb, &extent);
    return (size_t) extent == size && 0 == lb;
}

/* Elements CPU atomics can update: 1, 2, 4 or 8 bytes without padding. */
static bool acc_lock_free(ompi_datatype_t *basic)
{
    size_t size;

    ompi_datatype_type_size(basic, &size);
    return ompi_osc_newrma_acc_in_place(basic) &&
           (1 == size || 2 == size || 4 == size || 8 == size);
}

typedef struct {
    const ompi_osc_newrma_acc_apply_t *a;
    size_t size;
    ompi_osc_newrma_acc_fast_t fast;
    /** plain windows: the reduction loop, or NULL for ompi_op_reduce */
    void (*loop)(char *t, const char *o, size_t n);
} acc_walk_t;

/* One element with CPU atomics: t target, o operand (NULL: NO_OP), c CAS
 * compare value or NULL, r old value out or NULL.  One function per element
 * size; the GCC __atomic builtins, since opal_atomic_* has no 8- and 16-bit
 * forms and none for AND/OR/XOR that return the old value of every size. */
#define ACC_ELEM_FN(T, NAME)                                                                       \
    static void NAME(const acc_walk_t *w, char *t, const char *o, const char *c, char *r)          \
    {                                                                                              \
        T *tp = (T *) t, old, val, nv;                                                             \
        if (NULL != c) {                                                                           \
            memcpy(&old, c, sizeof(T));                                                            \
            memcpy(&val, o, sizeof(T));                                                            \
            (void) __atomic_compare_exchange_n(tp, &old, val, false, __ATOMIC_SEQ_CST,             \
                                               __ATOMIC_SEQ_CST);                                  \
        } else if (NULL == o) {                                                                    \
            old = __atomic_load_n(tp, __ATOMIC_SEQ_CST);                                           \
        } else {                                                                                   \
            memcpy(&val, o, sizeof(T));                                                            \
            switch (w->fast) {                                                                     \
                case OMPI_OSC_NEWRMA_ACC_FAST_REPLACE:                                             \
                    old = __atomic_exchange_n(tp, val, __ATOMIC_SEQ_CST);                          \
                    break;                                                                         \
                case OMPI_OSC_NEWRMA_ACC_FAST_ADD:                                                 \
                    old = __atomic_fetch_add(tp, val, __ATOMIC_SEQ_CST);                           \
                    break;                                                                         \
                case OMPI_OSC_NEWRMA_ACC_FAST_AND:                                                 \
                    old = __atomic_fetch_and(tp, val, __ATOMIC_SEQ_CST);                           \
                    break;                                                                         \
                case OMPI_OSC_NEWRMA_ACC_FAST_OR:                                                  \
                    old = __atomic_fetch_or(tp, val, __ATOMIC_SEQ_CST);                            \
                    break;                                                                         \
                case OMPI_OSC_NEWRMA_ACC_FAST_XOR:                                                 \
                    old = __atomic_fetch_xor(tp, val, __ATOMIC_SEQ_CST);                           \
                    break;                                                                         \
                default:                                                                           \
                    old = __atomic_load_n(tp, __ATOMIC_RELAXED);                                   \
                    do {                                                                           \
                        nv = old;                                                                  \
                        ompi_op_reduce(w->a->op, &val, &nv, 1, w->a->basic);                       \
                    } while (!__atomic_compare_exchange_n(tp, &old, nv, true, __ATOMIC_SEQ_CST,    \
                                                          __ATOMIC_RELAXED));                      \
            }                                                                                      \
        }                                                                                          \
        if (NULL != r) {                                                                           \
            memcpy(r, &old, sizeof(T));                                                            \
        }                                                                                          \
    }

ACC_ELEM_FN(uint8_t, acc_elem_atomic_1)
ACC_ELEM_FN(uint16_t, acc_elem_atomic_2)
ACC_ELEM_FN(uint32_t, acc_elem_atomic_4)
ACC_ELEM_FN(uint64_t, acc_elem_atomic_8)

static void acc_elem_atomic(const acc_walk_t *w, char *t, const char *o, const char *c, char *r)
{
    switch (w->size) {
        case 1:
            acc_elem_atomic_1(w, t, o, c, r);
            break;
        case 2:
            acc_elem_atomic_2(w, t, o, c, r);
            break;
        case 4:
            acc_elem_atomic_4(w, t, o, c, r);
            break;
        default:
            acc_elem_atomic_8(w, t, o, c, r);
            break;
    }
}

/* A misaligned element cannot take CPU atomics: update it under the lock
 * (every access to that location is misaligned the same way). */
static void acc_elem_locked(const acc_walk_t *w, char *t, const char *o, const char *c, char *r)
{
    uint64_t old, val;

    acc_lock(w->a->lock);
    memcpy(&old, t, w->size);
    if (NULL != r) {
        memcpy(r, &old, w->size);
    }
    if (NULL != c) {
        if (0 == memcmp(&old, c, w->size)) {
            memcpy(t, o, w->size);
        }
    } else if (NULL != o) {
        memcpy(&val, o, w->size);
        if (OMPI_OSC_NEWRMA_ACC_FAST_REPLACE == w->fast) {
            old = val;
        } else {
            ompi_op_reduce(w->a->op, &val, &old, 1, w->a->basic);
        }
        memcpy(t, &old, w->size);
    }
    acc_unlock(w->a->lock);
}

static int acc_segment_atomic(uint64_t addr, size_t len, size_t offset, void *ctx)
{
    const acc_walk_t *w = ctx;
    const ompi_osc_newrma_acc_apply_t *a = w->a;
    size_t rel = offset - a->offset;
    bool aligned = 0 == addr % w->size;

    for (size_t i = 0; i < len; i += w->size) {
        char *t = (char *) (uintptr_t) addr + i;
        const char *o = NULL != a->origin ? a->origin + rel + i : NULL;
        const char *c = NULL != a->compare ? a->compare + rel + i : NULL;
        char *r = NULL != a->result ? a->result + rel + i : NULL;
        if (aligned) {
            acc_elem_atomic(w, t, o, c, r);
        } else {
            acc_elem_locked(w, t, o, c, r);
        }
    }
    return OMPI_SUCCESS;
}

/* Whether @p a only moves data: MPI_NO_OP or MPI_REPLACE, not a CAS. */
static bool acc_moves(const ompi_osc_newrma_acc_apply_t *a)
{
    return NULL == a->compare && (NULL == a->origin || ompi_osc_newrma_acc_is_replace(a->op));
}

/* MPI_NO_OP and MPI_REPLACE move data without reducing, under the lock
 * taken by the caller: the old values packed out, the new unpacked in,
 * each in one pass of the datatype engine (a vector by its own loop; pair
 * types keep their padding).  Segment by segment, a NO_OP read of 4096
 * doubles at stride 2 took 55-68 us against osc/rdma's 12-19. */
static int acc_move(const ompi_osc_newrma_acc_apply_t *a)
{
    int ret = OMPI_SUCCESS;

    if (NULL != a->result) {
        ret = ompi_osc_newrma_dtype_pack_at(a->result, a->base, a->target_dt, a->target_count,
                                            a->offset, a->len);
    }
    if (OMPI_SUCCESS == ret && NULL != a->origin) {
        ret = ompi_osc_newrma_dtype_unpack_at(a->base, a->target_dt, a->target_count, a->offset,
                                              a->origin, a->len);
    }
    return ret;
}

/* The index of the loop for MAXLOC or MINLOC (@p op) of @p l's pairs in
 * acc_pad_loops, or 0; and the loop for @p op on pairs of @p basic, or
 * NULL for Open MPI's reduction: below, with the other loops. */
typedef void (*acc_pad_loop_fn_t)(char *t, const char *o, size_t n);
static int acc_pad_pick(const ompi_op_t *op, int map, const ompi_osc_newrma_dtype_pair_t *l);
static acc_pad_loop_fn_t acc_pad_loop(ompi_op_t *op, ompi_datatype_t *basic);

/* @p a's part of a target laid out as the predefined pair type itself
 * (ompi_osc_newrma_dtype_pair, in *@p l): its first pair (*@p n of them), or NULL for
 * any other access. */
static char *acc_pairs_at(const ompi_osc_newrma_acc_apply_t *a, ompi_osc_newrma_dtype_pair_t *l,
                          size_t *n)
{
    if (a->target_dt != a->basic || !ompi_osc_newrma_dtype_pair(a->basic, l) ||
        0 != a->offset % l->size || 0 != a->len % l->size) {
        return NULL;
    }
    *n = a->len / l->size;
    return a->base + a->offset / l->size * (size_t) l->extent;
}

/* acc_move for pairs with padding at a target laid out as the predefined
 * type itself (acc_pairs_at): pair by pair between the packed form and
 * memory, where the convertor's walk took a REPLACE of 512 MPI_SHORT_INT
 * through a create window's agent 14 us (osc/rdma 1.5).  Caller holds the
 * lock.  @return false, having done nothing, for any other access. */
static bool acc_move_pairs(const ompi_osc_newrma_acc_apply_t *a)
{
    ompi_osc_newrma_dtype_pair_t l;
    size_t n;
    char *target = acc_pairs_at(a, &l, &n);

    if (NULL == target) {
        return false;
    }
    if (NULL != a->result) {
        ompi_osc_newrma_dtype_pair_copy(&l, a->result, true, target, false, n);
    }
    if (NULL != a->origin) {
        ompi_osc_newrma_dtype_pair_copy(&l, target, false, a->origin, true, n);
    }
    return true;
}

/* A reduction of pairs with padding at a target laid out as the
 * predefined type itself (acc_pairs_at): the packed operands copied to the
 * memory layout, then Open MPI's reduction in place, the old values
 * packed straight from the target; instead of acc_apply_locked's five
 * passes through the convertor (MPI_MAXLOC of 32768 MPI_DOUBLE_INT
 * through a create window's agent took 706 us).  Not for a CAS (pairs
 * take none).  @return OMPI_ERR_NOT_AVAILABLE, having done nothing, for
 * any other access. */
static int acc_apply_padded(const ompi_osc_newrma_acc_apply_t *a)
{
    acc_pad_loop_fn_t loop;
    ompi_osc_newrma_dtype_pair_t l;
    size_t n;
    char *target, *ops;

    if (NULL != a->compare || NULL == a->origin || NULL == (target = acc_pairs_at(a, &l, &n))) {
        return OMPI_ERR_NOT_AVAILABLE;
    }
    ops = malloc(n * (size_t) l.extent);
    if (NULL == ops) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    ompi_osc_newrma_dtype_pair_copy(&l, ops, false, a->origin, true, n);
    loop = acc_pad_loop(a->op, a->basic);
    acc_lock(a->lock);
    if (NULL != a->result) {
        ompi_osc_newrma_dtype_pair_copy(&l, a->result, true, target, false, n);
    }
    if (NULL != loop) {
        loop(target, ops, n);
    } else {
        ompi_op_reduce(a->op, ops, target, n, a->basic);
    }
    acc_unlock(a->lock);
    free(ops);
    return OMPI_SUCCESS;
}

/* Elements with padding (MPI_DOUBLE_INT and the other pairs of mixed
 * widths), under the accumulate lock: a reduction or a CAS reads the old
 * values, works in element form (pair types keep their padding there) and
 * writes back. */
static int acc_apply_locked(const ompi_osc_newrma_acc_apply_t *a, size_t size)
{
    size_t n = a->len / size;
    ptrdiff_t lb, extent; /* predefined elements: lb is 0 */
    char *old = a->result, *elems = NULL, *ops = NULL;
    bool reduce = NULL == a->compare; /* acc_moves' kinds went before */
    int ret = OMPI_SUCCESS;

    ompi_datatype_get_extent(a->basic, &lb, &extent);
    if (NULL == old) {
        old = malloc(a->len);
    }
    if (reduce) {
        elems = malloc(n * (size_t) extent);
        ops = malloc(n * (size_t) extent);
    }
    if (NULL == old || (reduce && (NULL == elems || NULL == ops))) {
        ret = OMPI_ERR_OUT_OF_RESOURCE;
        goto out;
    }
    acc_lock(a->lock);
    ret = ompi_osc_newrma_dtype_pack_at(old, a->base, a->target_dt, a->target_count, a->offset,
                                        a->len);
    if (OMPI_SUCCESS != ret) {
        /* nothing read, nothing written */
    } else if (NULL != a->compare) {
        /* CAS of one element */
        if (0 == memcmp(old, a->compare, a->len)) {
            ret = ompi_osc_newrma_dtype_unpack_at(a->base, a->target_dt, a->target_count, a->offset,
                                                  a->origin, a->len);
        }
    } else {
        ret = ompi_osc_newrma_dtype_unpack(elems, a->basic, (int) n, old, a->len);
        if (OMPI_SUCCESS == ret) {
            ret = ompi_osc_newrma_dtype_unpack(ops, a->basic, (int) n, a->origin, a->len);
        }
        if (OMPI_SUCCESS == ret) {
            ompi_op_reduce(a->op, ops, elems, n, a->basic);
            /* the reduced elements go back through the packed form */
            ret = ompi_osc_newrma_dtype_pack(ops, elems, a->basic, (int) n, a->len);
        }
        if (OMPI_SUCCESS == ret) {
            ret = ompi_osc_newrma_dtype_unpack_at(a->base, a->target_dt, a->target_count, a->offset,
                                                  ops, a->len);
        }
    }
    acc_unlock(a->lock);
out:
    if (old != a->result) {
        free(old);
    }
    free(elems);
    free(ops);
    return ret;
}

/* ---- plain reductions ----
 *
 * Open MPI 4.1.4's op/avx saturates SUM of 8- and 16-bit integers (200 + 100
 * is 255 as MPI_UINT8_T), where MPI's SUM is C's + (it wraps): the common
 * ops are reduced here instead, by loops the compiler vectorizes.  Elements
 * may be unaligned in window memory, hence the aligned(1) types.  The
 * clones: "avx512f" alone has no byte or word vector adds (those are
 * AVX512BW, in "x86-64-v4"), so its 8- and 16-bit loops ran 256 bits wide
 * like "avx2"'s: 32 KiB of 1-byte SUM 435 ns against 337 with AVX512BW
 * here.  Each loop first takes the elements up to the target's next cache
 * line one by one: vector stores that straddle lines (window memory 16
 * bytes into a line) cost 32 KiB 344 against 299 ns, 2 MiB 43.7 against
 * 40.9 us. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
/* one clone per vector width, chosen when the DSO is loaded */
#define ACC_VECTORIZE                                                                              \
    __attribute__((optimize("tree-vectorize"),                                                     \
                   target_clones("arch=x86-64-v4", "avx512f", "avx2", "default")))
#elif defined(__GNUC__) && !defined(__clang__)
#define ACC_VECTORIZE __attribute__((optimize("tree-vectorize")))
#else
#define ACC_VECTORIZE
#endif

/** Elements of @p size bytes before @p t's next cache line, for loops of
 * ACC_HEAD_MIN bytes or more (in shorter ones the element-wise head cost
 * more than it saved: 512 bytes of 1-byte SUM 29 against 33 ns). */
#define ACC_HEAD_MIN 4096
static inline size_t acc_head(const char *t, size_t size, size_t n)
{
    return n * size < ACC_HEAD_MIN ? 0 : ((64 - ((uintptr_t) t & 63)) & 63) / size;
}

#define ACC_LOOP(NAME, T, EXPR)                                                                    \
    typedef T NAME##_t __attribute__((aligned(1), may_alias));                                     \
    static ACC_VECTORIZE void NAME(char *tp, const char *op, size_t n)                             \
    {                                                                                              \
        NAME##_t *restrict t = (NAME##_t *) tp;                                                    \
        const NAME##_t *restrict o = (const NAME##_t *) op;                                        \
        size_t i = 0, head = acc_head(tp, sizeof(T), n);                                           \
        for (; i < head; ++i) {                                                                    \
            t[i] = EXPR;                                                                           \
        }                                                                                          \
        for (; i < n; ++i) {                                                                       \
            t[i] = EXPR;                                                                           \
        }                                                                                          \
    }

/* integers as unsigned of their width: two's complement wraps, no UB */
ACC_LOOP(acc_add_u8, uint8_t, (uint8_t) (t[i] + o[i]))
ACC_LOOP(acc_add_u16, uint16_t, (uint16_t) (t[i] + o[i]))
ACC_LOOP(acc_add_u32, uint32_t, t[i] + o[i])
ACC_LOOP(acc_add_u64, uint64_t, t[i] + o[i])
ACC_LOOP(acc_and_u8, uint8_t, t[i] & o[i])
ACC_LOOP(acc_and_u16, uint16_t, t[i] & o[i])
ACC_LOOP(acc_and_u32, uint32_t, t[i] & o[i])
ACC_LOOP(acc_and_u64, uint64_t, t[i] & o[i])
ACC_LOOP(acc_or_u8, uint8_t, t[i] | o[i])
ACC_LOOP(acc_or_u16, uint16_t, t[i] | o[i])
ACC_LOOP(acc_or_u32, uint32_t, t[i] | o[i])
ACC_LOOP(acc_or_u64, uint64_t, t[i] | o[i])
ACC_LOOP(acc_xor_u8, uint8_t, t[i] ^ o[i])
ACC_LOOP(acc_xor_u16, uint16_t, t[i] ^ o[i])
ACC_LOOP(acc_xor_u32, uint32_t, t[i] ^ o[i])
ACC_LOOP(acc_xor_u64, uint64_t, t[i] ^ o[i])
ACC_LOOP(acc_add_float, float, t[i] + o[i])
ACC_LOOP(acc_add_double, double, t[i] + o[i])
/* x87's 80 bits in 16: stores leave the 6 bytes of padding alone, as
 * Open MPI's reduction does; its call was 54 of the 334 instructions of a
 * 32-byte SUM + flush on a shared window (osc/sm 193) */
ACC_LOOP(acc_add_ldouble, long double, t[i] + o[i])

/* MPI_MAXLOC and MPI_MINLOC of the pairs stored without padding (value,
 * index of one width, or float and int), as Open MPI's reduction decides
 * (the origin's pair where its value compares @p CMP, the lesser index on
 * equal values, the target's otherwise, so a NaN leaves the target's), but
 * without a branch: the compiler selects with vector blends.  Open MPI's
 * loop branches on each pair; on 4 MiB of MPI_2INT here it took 190 us on
 * values in order and 1.9 ms on random ones, this one 90-120 us on both. */
#define ACC_LOC_PAIR(t, o, i, CMP)                                                                 \
    do {                                                                                           \
        __typeof__(t[i].v) ov_ = o[i].v, tv_ = t[i].v;                                             \
        __typeof__(t[i].k) ok_ = o[i].k, tk_ = t[i].k, least_ = tk_ < ok_ ? tk_ : ok_;             \
        t[i].k = ov_ CMP tv_ ? ok_ : ov_ == tv_ ? least_ : tk_;                                    \
        t[i].v = ov_ CMP tv_ ? ov_ : tv_;                                                          \
    } while (0)

/* A pair loop over elements laid out as @p FIELDS (a value v and an index
 * k, and whatever padding the type has, which the loop never stores) */
#define ACC_PAIR_LOOP(NAME, FIELDS, CMP)                                                           \
    typedef struct __attribute__((packed, may_alias)) {                                            \
        FIELDS                                                                                     \
    } NAME##_t;                                                                                    \
    static ACC_VECTORIZE void NAME(char *tp, const char *op, size_t n)                             \
    {                                                                                              \
        NAME##_t *restrict t = (NAME##_t *) tp;                                                    \
        const NAME##_t *restrict o = (const NAME##_t *) op;                                        \
        size_t i = 0, head = acc_head(tp, sizeof(NAME##_t), n);                                    \
        if (1 == n) { /* a lone pair: the vector loop's set-up was most of it */                   \
            ACC_LOC_PAIR(t, o, 0, CMP);                                                            \
            return;                                                                                \
        }                                                                                          \
        for (; i < head; ++i) {                                                                    \
            ACC_LOC_PAIR(t, o, i, CMP);                                                            \
        }                                                                                          \
        for (; i < n; ++i) {                                                                       \
            ACC_LOC_PAIR(t, o, i, CMP);                                                            \
        }                                                                                          \
    }
#define ACC_LOC_LOOP(NAME, TV, TK, CMP) ACC_PAIR_LOOP(NAME, TV v; TK k;, CMP)

ACC_LOC_LOOP(acc_maxloc_i32, int32_t, int32_t, >)
ACC_LOC_LOOP(acc_minloc_i32, int32_t, int32_t, <)
ACC_LOC_LOOP(acc_maxloc_float_int, float, int32_t, >)
ACC_LOC_LOOP(acc_minloc_float_int, float, int32_t, <)
ACC_LOC_LOOP(acc_maxloc_float, float, float, >)
ACC_LOC_LOOP(acc_minloc_float, float, float, <)
ACC_LOC_LOOP(acc_maxloc_double, double, double, >)
ACC_LOC_LOOP(acc_minloc_double, double, double, <)

/* The same rule for the pairs with padding, storing the value and the
 * index only: Open MPI's branching loop took MAXLOC of 32768
 * MPI_DOUBLE_INT 29 us where the target was 4 KiB from the operands
 * (22 elsewhere), 57 on random values; this one 20-25 in every case.
 * The fields lay an element out as the C compiler does (checked against
 * the datatype in acc_pad_loop). */
ACC_PAIR_LOOP(acc_maxloc_double_int, double v; int k; char tail_[sizeof(double) - sizeof(int)];, >)
ACC_PAIR_LOOP(acc_minloc_double_int, double v; int k; char tail_[sizeof(double) - sizeof(int)];, <)
ACC_PAIR_LOOP(acc_maxloc_long_int, long v; int k; char tail_[sizeof(long) - sizeof(int)];, >)
ACC_PAIR_LOOP(acc_minloc_long_int, long v; int k; char tail_[sizeof(long) - sizeof(int)];, <)
ACC_PAIR_LOOP(acc_maxloc_short_int, short v; char gap_[sizeof(int) - sizeof(short)]; int k;, >)
ACC_PAIR_LOOP(acc_minloc_short_int, short v; char gap_[sizeof(int) - sizeof(short)]; int k;, <)

enum { ACC_PAD_LOOPS = 1 }; /* acc_pad_loops[0]: none */
static const acc_pad_loop_fn_t acc_pad_loops[] = {
    NULL,
    acc_maxloc_double_int,
    acc_minloc_double_int,
    acc_maxloc_long_int,
    acc_minloc_long_int,
    acc_maxloc_short_int,
    acc_minloc_short_int,
};

static int acc_pad_pick(const ompi_op_t *op, int map, const ompi_osc_newrma_dtype_pair_t *l)
{
    static const struct {
        int map;
        size_t vsize, koff, extent;
    } pads[] = {
        {OMPI_OP_BASE_TYPE_DOUBLE_INT, sizeof(double), offsetof(acc_maxloc_double_int_t, k),
         sizeof(acc_maxloc_double_int_t)},
        {OMPI_OP_BASE_TYPE_LONG_INT, sizeof(long), offsetof(acc_maxloc_long_int_t, k),
         sizeof(acc_maxloc_long_int_t)},
        {OMPI_OP_BASE_TYPE_SHORT_INT, sizeof(short), offsetof(acc_maxloc_short_int_t, k),
         sizeof(acc_maxloc_short_int_t)},
    };

    if (OMPI_OP_MAXLOC != op->op_type && OMPI_OP_MINLOC != op->op_type) {
        return 0;
    }
    for (size_t j = 0; j < sizeof(pads) / sizeof(pads[0]); ++j) {
        if (pads[j].map == map && pads[j].vsize == l->vsize && pads[j].koff == l->koff &&
            pads[j].extent == (size_t) l->extent) {
            return ACC_PAD_LOOPS + 2 * (int) j + (OMPI_OP_MINLOC == op->op_type ? 1 : 0);
        }
    }
    return 0; /* long double: Open MPI's reduction */
}

typedef void (*acc_loop_fn_t)(char *t, const char *o, size_t n);

/* The loops by index (acc_plan_t's loop); 0: none, ompi_op_reduce. */
enum {
    ACC_LOOP_INTS = 1,
    ACC_LOOP_FLOAT = 17,
    ACC_LOOP_DOUBLE = 18,
    ACC_LOOP_LOC = 19,
    ACC_LOOP_LDOUBLE = 27
};
static const acc_loop_fn_t acc_loops[] = {
    NULL,
    acc_add_u8,
    acc_add_u16,
    acc_add_u32,
    acc_add_u64,
    acc_and_u8,
    acc_and_u16,
    acc_and_u32,
    acc_and_u64,
    acc_or_u8,
    acc_or_u16,
    acc_or_u32,
    acc_or_u64,
    acc_xor_u8,
    acc_xor_u16,
    acc_xor_u32,
    acc_xor_u64,
    acc_add_float,
    acc_add_double,
    acc_maxloc_i32,
    acc_minloc_i32,
    acc_maxloc_float_int,
    acc_minloc_float_int,
    acc_maxloc_float,
    acc_minloc_float,
    acc_maxloc_double,
    acc_minloc_double,
    acc_add_ldouble,
};
_Static_assert(sizeof(acc_loops) / sizeof(acc_loops[0]) == ACC_LOOP_LDOUBLE + 1,
               "acc_loops and its indices disagree");

/* The index of the MAXLOC or MINLOC loop for pairs of type @p map (Open
 * MPI's op map) and @p size bytes, or 0 (the pairs with padding, and the
 * Fortran ones of other widths, go to ompi_op_reduce). */
static int acc_loc_pick(const ompi_op_t *op, int map, size_t size)
{
    static const struct {
        int map;
        size_t size;
        int pair; /* the loops' pair type: int, float and int, float, double */
    } pairs[] = {
        {OMPI_OP_BASE_TYPE_2INT, 8, 0},
        {OMPI_OP_BASE_TYPE_2INTEGER, 8, 0},
        {OMPI_OP_BASE_TYPE_FLOAT_INT, 8, 1},
        {OMPI_OP_BASE_TYPE_2REAL, 8, 2},
        {OMPI_OP_BASE_TYPE_2DOUBLE_PRECISION, 16, 3},
    };

    for (size_t j = 0; j < sizeof(pairs) / sizeof(pairs[0]); ++j) {
        if (pairs[j].map == map && pairs[j].size == size) {
            return ACC_LOOP_LOC + 2 * pairs[j].pair + (OMPI_OP_MINLOC == op->op_type ? 1 : 0);
        }
    }
    return 0;
}

/* The index of the loop for @p op on @p basic elements of @p size bytes,
 * or 0. */
static int acc_loop_pick(ompi_op_t *op, ompi_datatype_t *basic, size_t size)
{
    int map = ompi_op_ddt_map[basic->id], width = 1 == size ? 0 : 2 == size ? 1 : 4 == size ? 2 : 3;
    ompi_osc_newrma_acc_fast_t fast = ompi_osc_newrma_acc_fast(op, basic);

    if (OMPI_OP_MAXLOC == op->op_type || OMPI_OP_MINLOC == op->op_type) {
        return acc_loc_pick(op, map, size);
    }
    if (OMPI_OP_SUM == op->op_type && OMPI_OP_BASE_TYPE_LONG_DOUBLE == map &&
        sizeof(long double) == size) {
        return ACC_LOOP_LDOUBLE;
    }
    if (1 != size && 2 != size && 4 != size && 8 != size) {
        return 0; /* complex: Open MPI's reduction */
    }
    if (OMPI_OSC_NEWRMA_ACC_FAST_ADD <= fast && fast <= OMPI_OSC_NEWRMA_ACC_FAST_XOR) {
        return ACC_LOOP_INTS + 4 * (fast - OMPI_OSC_NEWRMA_ACC_FAST_ADD) + width;
    }
    if (OMPI_OP_SUM == op->op_type && OMPI_OP_BASE_TYPE_FLOAT == map) {
        return ACC_LOOP_FLOAT;
    }
    if (OMPI_OP_SUM == op->op_type && OMPI_OP_BASE_TYPE_DOUBLE == map) {
        return ACC_LOOP_DOUBLE;
    }
    return 0;
}

/* The loop for @p op on @p basic elements of @p size bytes, or NULL. */
static acc_loop_fn_t acc_loop(ompi_op_t *op, ompi_datatype_t *basic, size_t size)
{
    return acc_loops[acc_loop_pick(op, basic, size)];
}

/* A single element's SUM, the lone MPI_Accumulate or MPI_Get_accumulate
 * of a counter or a value (8 bytes of MPI_INT64_T + flush on a shared
 * window: 630 instructions against osc/sm's 453, 59 of them choosing and
 * calling the loop): the reduction acc_loop's loops make, written out for
 * 4- and 8-byte integers (as unsigned: wrapping), floats and doubles. */
typedef enum { ACC_ONE_NONE, ACC_ONE_U32, ACC_ONE_U64, ACC_ONE_FLOAT, ACC_ONE_DOUBLE } acc_one_t;

static acc_one_t acc_one_sum(ompi_op_t *op, ompi_datatype_t *basic, size_t size)
{
    int map = ompi_op_ddt_map[basic->id];

    if (OMPI_OP_SUM != op->op_type) {
        return ACC_ONE_NONE;
    }
    if (OMPI_OP_BASE_TYPE_DOUBLE == map && 8 == size) {
        return ACC_ONE_DOUBLE;
    }
    if (OMPI_OP_BASE_TYPE_FLOAT == map && 4 == size) {
        return ACC_ONE_FLOAT;
    }
    if ((4 != size && 8 != size) || !ompi_osc_newrma_acc_integer(basic)) {
        return ACC_ONE_NONE;
    }
    return 8 == size ? ACC_ONE_U64 : ACC_ONE_U32;
}

#define ACC_ONE(T, t, o)                                                                           \
    do {                                                                                           \
        T x_, y_;                                                                                  \
        memcpy(&x_, t, sizeof(T));                                                                 \
        memcpy(&y_, o, sizeof(T));                                                                 \
        x_ += y_;                                                                                  \
        memcpy(t, &x_, sizeof(T));                                                                 \
    } while (0)

/* Under the lock. */
static void acc_one_apply(acc_one_t one, char *t, const char *o)
{
    switch (one) {
        case ACC_ONE_U32:
            ACC_ONE(uint32_t, t, o);
            break;
        case ACC_ONE_U64:
            ACC_ONE(uint64_t, t, o);
            break;
        case ACC_ONE_FLOAT:
            ACC_ONE(float, t, o);
            break;
        case ACC_ONE_DOUBLE:
            ACC_ONE(double, t, o);
            break;
        case ACC_ONE_NONE:
            break;
    }
}

/* What ompi_osc_newrma_acc_contig does with an intrinsic op on one
 * predefined type, worked out once per pair: whether it serves them (the
 * elements stored in place; a reduction the op defines for the type), the
 * element size, the single-element SUM and the loop.  Working them out on
 * each call took about 50 of the 667 instructions of a 128-byte ACC +
 * flush on a shared window (osc/sm 481).  One 32-bit word per pair
 * (3 KiB for the process), written whole:
 * threads that race to make one write the same value; Open MPI fixes each
 * intrinsic op's functions at MPI_Init. */
typedef union {
    uint32_t word;
    struct {
        uint8_t state; /* acc_plan_state_t */
        uint8_t size;
        uint8_t one;  /* acc_one_t */
        uint8_t loop; /* index into acc_loops */
    } p;
} acc_plan_t;

/* ACC_PLAN_PAIRS: pairs with padding, whose loop is an acc_pad_loops index
 * (acc_padded, acc_apply_padded) */
typedef enum {
    ACC_PLAN_UNMADE = 0,
    ACC_PLAN_SERVED,
    ACC_PLAN_PAIRS,
    ACC_PLAN_NOT
} acc_plan_state_t;

static volatile uint32_t acc_plans[OMPI_OP_NUM_OF_TYPES][OMPI_DATATYPE_MAX_PREDEFINED];

static uint32_t acc_plan_make(ompi_op_t *op, ompi_datatype_t *basic)
{
    acc_plan_t plan = {.p = {ACC_PLAN_NOT, 0, ACC_ONE_NONE, 0}};
    bool in_place = ompi_osc_newrma_acc_in_place(basic);
    char *msg = NULL;
    ompi_osc_newrma_dtype_pair_t l;
    size_t size;

    ompi_datatype_type_size(basic, &size);
    if ((!in_place && !ompi_osc_newrma_dtype_pair(basic, &l)) || 0 == size || size > UINT8_MAX) {
        return plan.word;
    }
    plan.p.size = (uint8_t) size;
    if (ompi_op_is_valid(op, basic, &msg, "osc/newrma")) {
        plan.p.state = in_place ? ACC_PLAN_SERVED : ACC_PLAN_PAIRS;
        plan.p.one = (uint8_t) (in_place ? acc_one_sum(op, basic, size) : ACC_ONE_NONE);
        plan.p.loop = (uint8_t) (in_place ? acc_loop_pick(op, basic, size)
                                          : acc_pad_pick(op, ompi_op_ddt_map[basic->id], &l));
    }
    free(msg); /* an invalid pair: the full path reports it */
    return plan.word;
}

/* *@p plan for reduction @p op on @p basic, and its state: ACC_PLAN_NOT
 * where neither acc_contig nor acc_padded serve them (user ops and
 * derived types among them). */
static inline acc_plan_state_t acc_plan_of(ompi_op_t *op, ompi_datatype_t *basic, acc_plan_t *plan)
{
    volatile uint32_t *slot;

    if (!ompi_op_is_intrinsic(op) || !ompi_datatype_is_predefined(basic) || op->op_type < 0 ||
        op->op_type >= OMPI_OP_NUM_OF_TYPES || basic->id >= OMPI_DATATYPE_MAX_PREDEFINED) {
        return ACC_PLAN_NOT;
    }
    slot = &acc_plans[op->op_type][basic->id];
    plan->word = *slot;
    if (ACC_PLAN_UNMADE == plan->p.state) {
        plan->word = acc_plan_make(op, basic);
        *slot = plan->word;
    }
    return (acc_plan_state_t) plan->p.state;
}

/* acc_plan_of for acc_contig: the elements stored in place. */
static inline bool acc_plan(ompi_op_t *op, ompi_datatype_t *basic, acc_plan_t *plan)
{
    return ACC_PLAN_SERVED == acc_plan_of(op, basic, plan);
}

static acc_pad_loop_fn_t acc_pad_loop(ompi_op_t *op, ompi_datatype_t *basic)
{
    acc_plan_t plan;

    return ACC_PLAN_PAIRS == acc_plan_of(op, basic, &plan) ? acc_pad_loops[plan.p.loop] : NULL;
}

/* Elements of @p size bytes in @p bytes: a shift where @p size is a power
 * of two (every type the plan serves but the padded pairs), where the
 * division was the slowest instruction of a small accumulate. */
static inline size_t acc_count(size_t bytes, size_t size)
{
    return 0 == (size & (size - 1)) ? bytes >> __builtin_ctzl(size) : bytes / size;
}

/* Bytes a fetching reduction copies out and reduces at a time. */
#define ACC_FETCH_BLOCK ((size_t) 8192)

/* A fetching reduction by @p loop, block by block: each block's old values
 * copied out, then reduced while it is still in the L1 cache, where the
 * copy of the whole range and then its reduction read the target twice
 * from memory. */
static void acc_fetch_loop(acc_loop_fn_t loop, char *target, const char *origin, char *result,
                           size_t bytes, size_t size)
{
    size_t block = ACC_FETCH_BLOCK / size * size;

    for (size_t at = 0; at < bytes; at += block) {
        size_t len = bytes - at < block ? bytes - at : block;

        ompi_osc_newrma_copy_elem(result + at, target + at, len);
        loop(target + at, origin + at, acc_count(len, size));
    }
}

/* One contiguous piece of a plain window's access, under the lock. */
static int acc_segment_plain(uint64_t addr, size_t len, size_t offset, void *ctx)
{
    const acc_walk_t *w = ctx;
    const ompi_osc_newrma_acc_apply_t *a = w->a;
    size_t rel = offset - a->offset;
    char *t = (char *) (uintptr_t) addr;
    const char *o = a->origin_in_layout ? a->origin + (t - a->base) : a->origin + rel;

    /* a reduction or a CAS: NO_OP and REPLACE only move (acc_move) */
    if (NULL != a->result && NULL != w->loop && NULL == a->compare) {
        acc_fetch_loop(w->loop, t, o, a->result + rel, len, w->size);
        return OMPI_SUCCESS;
    }
    if (NULL != a->result) {
        ompi_osc_newrma_copy(a->result + rel, t, len);
    }
    if (NULL != a->compare) {
        if (0 == memcmp(t, a->compare + rel, len)) {
            memcpy(t, o, len);
        }
    } else if (NULL != w->loop) {
        w->loop(t, o, acc_count(len, w->size));
    } else {
        ompi_op_reduce(a->op, (void *) o, t, acc_count(len, w->size), a->basic);
    }
    return OMPI_SUCCESS;
}

/* What acc_contig and acc_padded leave to the full path whatever the type:
 * no op, a CAS, MPI_NO_OP in MPI_Accumulate (the fetching forms only: the
 * full path says so). */
static inline bool acc_direct_refused(ompi_osc_newrma_op_kind_t kind, const struct ompi_op_t *op,
                                      bool no_op)
{
    return NULL == op || OMPI_OSC_NEWRMA_OP_CAS == kind ||
           (no_op && OMPI_OSC_NEWRMA_OP_ACC == kind);
}

bool ompi_osc_newrma_acc_reduces(struct ompi_op_t *op, struct ompi_datatype_t *basic)
{
    acc_plan_t plan = {0};

    return !acc_direct_refused(OMPI_OSC_NEWRMA_OP_ACC, op, ompi_osc_newrma_acc_is_no_op(op)) &&
           !ompi_osc_newrma_acc_is_replace(op) && acc_plan(op, basic, &plan);
}

/* What acc_contig serves: *@p plan for a reduction.  @return false for
 * anything else. */
static inline bool acc_contig_planned(ompi_osc_newrma_op_kind_t kind, struct ompi_op_t *op,
                                      struct ompi_datatype_t *basic, bool replace, bool no_op,
                                      acc_plan_t *plan)
{
    return !acc_direct_refused(kind, op, no_op) &&
           (replace || no_op ? ompi_osc_newrma_acc_in_place(basic) : acc_plan(op, basic, plan));
}

/* acc_contig's access, planned, under the lock its caller holds. */
static inline void acc_contig_apply(const acc_plan_t *plan, struct ompi_op_t *op,
                                    struct ompi_datatype_t *basic, char *target, const char *origin,
                                    char *result, size_t bytes, bool replace, bool no_op)
{
    if (NULL != result && !replace && !no_op && 0 != plan->p.loop && bytes > plan->p.size) {
        acc_fetch_loop(acc_loops[plan->p.loop], target, origin, result, bytes, plan->p.size);
        return;
    }
    if (NULL != result) {
        ompi_osc_newrma_copy_elem(result, target, bytes);
    }
    if (replace) {
        ompi_osc_newrma_copy_elem(target, origin, bytes);
    } else if (no_op) {
        /* a read: the copy above */
    } else if (ACC_ONE_NONE != plan->p.one && bytes == plan->p.size) {
        acc_one_apply((acc_one_t) plan->p.one, target, origin);
    } else if (0 != plan->p.loop) {
        acc_loops[plan->p.loop](target, origin, acc_count(bytes, plan->p.size));
    } else {
        /* MAX, MIN, PROD, the logical ops, complex SUM: one call over the
         * block, where the full way took 7 times osc/rdma's time for 4096
         * long doubles */
        ompi_op_reduce(op, (void *) origin, target, acc_count(bytes, plan->p.size), basic);
    }
}

bool ompi_osc_newrma_acc_contig(ompi_osc_newrma_op_kind_t kind, struct ompi_op_t *op,
                                struct ompi_datatype_t *basic, char *target, const char *origin,
                                char *result, size_t bytes, volatile int32_t *lock)
{
    bool replace = ompi_osc_newrma_acc_is_replace(op), no_op = ompi_osc_newrma_acc_is_no_op(op);
    acc_plan_t plan = {0};

    if (!acc_contig_planned(kind, op, basic, replace, no_op, &plan)) {
        return false;
    }
    acc_lock(lock);
    acc_contig_apply(&plan, op, basic, target, origin, result, bytes, replace, no_op);
    acc_unlock(lock);
    return true;
}

bool ompi_osc_newrma_acc_contig_held(ompi_osc_newrma_op_kind_t kind, struct ompi_op_t *op,
                                     struct ompi_datatype_t *basic, char *target,
                                     const char *origin, char *result, size_t bytes)
{
    bool replace = ompi_osc_newrma_acc_is_replace(op), no_op = ompi_osc_newrma_acc_is_no_op(op);
    acc_plan_t plan = {0};

    if (!acc_contig_planned(kind, op, basic, replace, no_op, &plan)) {
        return false;
    }
    acc_contig_apply(&plan, op, basic, target, origin, result, bytes, replace, no_op);
    return true;
}

bool ompi_osc_newrma_acc_padded(ompi_osc_newrma_op_kind_t kind, struct ompi_op_t *op,
                                struct ompi_datatype_t *basic, char *target, const char *origin,
                                char *result, size_t count, volatile int32_t *lock)
{
    bool replace = ompi_osc_newrma_acc_is_replace(op), no_op = ompi_osc_newrma_acc_is_no_op(op);
    acc_pad_loop_fn_t loop = NULL;
    acc_plan_t plan;
    ompi_osc_newrma_dtype_pair_t l;

    if (acc_direct_refused(kind, op, no_op) || 0 == count ||
        !ompi_osc_newrma_dtype_pair(basic, &l)) {
        return false;
    }
    if (!replace && !no_op) {
        if (ACC_PLAN_PAIRS != acc_plan_of(op, basic, &plan)) {
            return false; /* the full path reports an invalid op */
        }
        loop = acc_pad_loops[plan.p.loop];
    }
    acc_lock(lock);
    if (NULL != result) {
        ompi_osc_newrma_dtype_pair_copy(&l, result, false, target, false, count);
    }
    if (replace) {
        ompi_osc_newrma_dtype_pair_copy(&l, target, false, origin, false, count);
    } else if (!no_op && NULL != loop) {
        loop(target, origin, count);
    } else if (!no_op) {
        /* Open MPI's MAXLOC / MINLOC write the value and the index only */
        ompi_op_reduce(op, (void *) origin, target, count, basic);
    }
    acc_unlock(lock);
    return true;
}

bool ompi_osc_newrma_acc_cas_contig(struct ompi_datatype_t *basic, char *target, const char *value,
                                    const char *compare, char *result, volatile int32_t *lock)
{
    size_t size;

    if (!acc_lock_free(basic) || !acc_cas_type(basic)) {
        return false; /* the full way reports a type CAS does not take */
    }
    ompi_datatype_type_size(basic, &size);
    acc_lock(lock);
    memcpy(result, target, size);
    if (0 == memcmp(target, compare, size)) {
        memcpy(target, value, size);
    }
    acc_unlock(lock);
    return true;
}

static int acc_apply_plain(acc_walk_t *w)
{
    const ompi_osc_newrma_acc_apply_t *a = w->a;
    int ret;

    if (NULL == a->compare) {
        w->loop = acc_loop(a->op, a->basic, w->size);
    }
    acc_lock(a->lock);
    ret = ompi_osc_newrma_dtype_foreach_segment_range(a->target_dt, a->target_count,
                                                      (uint64_t) (uintptr_t) a->base, a->offset,
                                                      a->len, acc_segment_plain, (void *) w);
    acc_unlock(a->lock);
    return ret;
}

int ompi_osc_newrma_acc_apply(const ompi_osc_newrma_acc_apply_t *a)
{
    acc_walk_t w = {a, 0, OMPI_OSC_NEWRMA_ACC_FAST_NONE, NULL};
    bool locked;
    int ret;

    ompi_datatype_type_size(a->basic, &w.size);
    if (0 == a->len) {
        return OMPI_SUCCESS;
    }
    /* only acc_apply_plain's reductions read an origin in the target's layout */
    if (a->origin_in_layout && (!a->plain || NULL != a->compare || NULL == a->origin ||
                                acc_moves(a) || !ompi_osc_newrma_acc_in_place(a->basic))) {
        return OMPI_ERR_BAD_PARAM;
    }
    /* elements CPU atomics cannot update take the lock under either rule */
    locked = a->plain || !acc_lock_free(a->basic);
    if (locked && acc_moves(a)) {
        acc_lock(a->lock);
        ret = acc_move_pairs(a) ? OMPI_SUCCESS : acc_move(a); /* no reduction, no element form */
        acc_unlock(a->lock);
        return ret;
    }
    if (locked && ompi_osc_newrma_acc_in_place(a->basic)) {
        return acc_apply_plain(&w);
    }
    if (locked) {
        ret = acc_apply_padded(a);
        return OMPI_ERR_NOT_AVAILABLE != ret ? ret : acc_apply_locked(a, w.size);
    }
    if (NULL != a->origin && NULL == a->compare) {
        w.fast = ompi_osc_newrma_acc_fast(a->op, a->basic);
    }
    return ompi_osc_newrma_dtype_foreach_segment_range(a->target_dt, a->target_count,
                                                       (uint64_t) (uintptr_t) a->base, a->offset,
                                                       a->len, acc_segment_atomic, &w);
}
