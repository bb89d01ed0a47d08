/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: small operations through a node-local target's mailbox, the
 * origin's side (see osc_newrma_origin_mbox.h).
 */
#include "ompi_config.h"

#include <string.h>

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"

#include "osc_newrma.h"
#include "osc_newrma_base_acc.h"
#include "osc_newrma_base_copy.h"
#include "osc_newrma_base_dtype.h"
#include "osc_newrma_base_wait.h"
#include "osc_newrma_origin_mbox.h"
#include "osc_newrma_origin_acc.h"
#include "osc_newrma_transport_shm.h"

#define component mca_osc_newrma_component

bool ompi_osc_newrma_mbox_fits(ompi_osc_newrma_op_kind_t kind, struct ompi_op_t *acc_op,
                               size_t bytes)
{
    if (bytes <= OMPI_OSC_NEWRMA_SHM_MBOX_BYTES) {
        return true;
    }
    switch (kind) {
        case OMPI_OSC_NEWRMA_OP_ACC:
        case OMPI_OSC_NEWRMA_OP_GACC:
            /* a reduction's only other way is packets through the same
             * agent: the whole area; an MPI_REPLACE or MPI_NO_OP read has
             * the cross-memory copy, which waits for no one, from
             * acc_cma_bytes */
            if (!ompi_osc_newrma_acc_is_replace(acc_op) && !ompi_osc_newrma_acc_is_no_op(acc_op)) {
                return bytes <= OMPI_OSC_NEWRMA_SHM_MBOX_AREA_BYTES;
            }
            return bytes <= component.mbox_copy_bytes;
        case OMPI_OSC_NEWRMA_OP_PUT:
            if (component.put_rdma_bytes > 0 && bytes >= component.put_rdma_bytes) {
                return false;
            }
            /* fall through */
        case OMPI_OSC_NEWRMA_OP_GET:
            /* one the copy takes, the call sends there first (cma_takes in
             * osc_newrma_ops.c): the slot takes the rest of a stream, which
             * moves faster with both processes copying */
            return bytes <= OMPI_OSC_NEWRMA_SHM_MBOX_COPY_BYTES;
        default:
            return false;
    }
}

/* An accumulate of pairs with padding laid out as their type at the
 * target (ompi_osc_newrma_dtype_pair): the slot holds them packed,
 * and the target's agent applies len / size of them at the type's extent,
 * as it does any access's elements (ompi_osc_newrma_acc_apply_single).
 * They have no cross-memory copy (not contiguous), so their other way is
 * packets through the same agent, and the whole area is theirs: a REPLACE
 * of 512 MPI_SHORT_INT into a create window took 5.3 us as packets. */
static bool mbox_pairs(const ompi_osc_newrma_op_t *op)
{
    ompi_osc_newrma_dtype_pair_t l;

    return ompi_osc_newrma_op_kind_is_acc(op->kind) && OMPI_OSC_NEWRMA_OP_CAS != op->kind &&
           op->target_dt == op->acc_basic && ompi_osc_newrma_dtype_pair(op->acc_basic, &l);
}

/* Where the access starts in its target layout (*@p toff_p): a contiguous
 * one's block, or pairs laid out as their type (@p pairs, mbox_pairs),
 * whose lower bound is 0; false for any other layout. */
static bool mbox_target_at(const ompi_osc_newrma_op_t *op, bool pairs, ptrdiff_t *toff_p)
{
    if (pairs) {
        *toff_p = 0;
        return true;
    }
    return ompi_osc_newrma_dtype_contig(op->target_dt, op->target_count, toff_p);
}

/* Alone at its target (osc_newrma_op_lone) with nothing before it
 * unacknowledged: no packet without its RMA_DONE_ACK, no RDMA write or UCX
 * atomic unflushed, so it overtakes nothing.  A packet round trip costs both
 * processes about 9,000 instructions through UCX and the agent; a slot a
 * few hundred. */
static bool mbox_wanted(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                        ompi_osc_newrma_op_t *op, bool area, ptrdiff_t *toff_p)
{
    bool pairs = mbox_pairs(op);

    return module->mbox_ok && op->bytes > 0 &&
           (area || pairs ? op->bytes <= OMPI_OSC_NEWRMA_SHM_MBOX_AREA_BYTES
                          : ompi_osc_newrma_mbox_fits(op->kind, op->acc_op, op->bytes)) &&
           !target->needs_rma_done && ompi_osc_newrma_op_lone(target, op) &&
           0 == *ompi_osc_newrma_ack_counter(module, target) && mbox_target_at(op, pairs, toff_p);
}

/* What the access puts in the slot (of window rank @p rank's mailbox): its
 * operands (a CAS's compare value after them). */
static void mbox_fill(const ompi_osc_newrma_module_t *module, int rank,
                      const ompi_osc_newrma_mbox_access_t *access, ompi_osc_newrma_shm_mbox_t *slot)
{
    bool acc = ompi_osc_newrma_op_kind_is_acc(access->kind);
    char *data;

    slot->kind = (uint8_t) access->kind;
    slot->len =
        (uint16_t) (access->by_ref ? sizeof(ompi_osc_newrma_shm_mbox_ref_t) : access->bytes);
    data = ompi_osc_newrma_shm_mbox_data(module, rank, slot);
    slot->acc_op = (uint16_t) (acc && NULL != access->acc_op ? access->acc_op->o_f_to_c_index : 0);
    slot->acc_dt = (uint16_t) (acc ? access->acc_basic->d_f_to_c_index : 0);
    slot->flags =
        OMPI_OSC_NEWRMA_OP_GET == access->kind || ompi_osc_newrma_op_kind_fetches(access->kind)
            ? OMPI_OSC_NEWRMA_SHM_MBOX_FETCH
            : 0;
    if (access->by_ref) {
        ompi_osc_newrma_shm_mbox_ref_t ref = {(uint64_t) (uintptr_t) access->operands,
                                              access->bytes, module->my_rank};

        slot->flags |= OMPI_OSC_NEWRMA_SHM_MBOX_BY_REF;
        memcpy(data, &ref, sizeof(ref));
    } else if (NULL != access->operands) {
        ompi_osc_newrma_copy(data, access->operands, access->bytes);
    }
    if (OMPI_OSC_NEWRMA_OP_CAS == access->kind) {
        memcpy(data + access->bytes, access->compare, access->bytes);
    }
    slot->addr = access->addr;
}

/* Claim a slot of @p target's mailbox, fill and post it; @p op, when there
 * is one, waits for a fetching access's answer. */
static bool mbox_post(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                      const ompi_osc_newrma_mbox_access_t *access, ompi_osc_newrma_op_t *op)
{
    ompi_osc_newrma_shm_mbox_t *slot = ompi_osc_newrma_shm_mbox_claim(module, target->rank);

    if (NULL == slot) {
        return false;
    }
    mbox_fill(module, target->rank, access, slot);
    target->mbox_slot = slot;
    target->mbox_timed_ns = 0;
    module->mbox_pending++;
    if (slot->flags & OMPI_OSC_NEWRMA_SHM_MBOX_FETCH) {
        /* complete with its answer; one that fetches nothing is complete
         * locally now (its operands are in the slot): MPI_Win_flush_local
         * does not wait for the target */
        target->mbox_op = op;
        target->mbox_dest = access->dest;
        if (NULL != op) {
            opal_atomic_add_fetch_32(&op->outstanding, 1);
            opal_atomic_add_fetch_32(&module->active_reqs, 1);
        }
    }
    ompi_osc_newrma_stat_op(&module->stats, access->kind, OMPI_OSC_NEWRMA_STAT_OPS_MAILBOX,
                            access->bytes);
    ompi_osc_newrma_shm_mbox_post(slot);
    return true;
}

/* Where a fetching op's answer goes: a GET's destination, or the result
 * stream of an accumulate. */
static int mbox_op_dest(ompi_osc_newrma_op_t *op, char *stream, char **dest_p)
{
    int ret = OMPI_SUCCESS;

    if (OMPI_OSC_NEWRMA_OP_GET == op->kind) {
        op->get_stream = stream;
    } else if (ompi_osc_newrma_op_kind_fetches(op->kind)) {
        ret = ompi_osc_newrma_acc_result_stream(op);
    }
    *dest_p = OMPI_OSC_NEWRMA_OP_GET == op->kind ? op->get_stream : op->result_stream;
    return ret;
}

static bool mbox_issue(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                       ompi_osc_newrma_op_t *op, char *stream, bool area, int *ret_p)
{
    ompi_osc_newrma_mbox_access_t access = {.kind = op->kind,
                                            .bytes = op->bytes,
                                            .compare = op->compare,
                                            .acc_op = op->acc_op,
                                            .acc_basic = op->acc_basic};
    ptrdiff_t toff;

    if (!mbox_wanted(module, target, op, area, &toff)) {
        return false;
    }
    /* the answer's place first: a failure is the op's, slot or not */
    *ret_p = mbox_op_dest(op, stream, &access.dest);
    if (OMPI_SUCCESS != *ret_p) {
        return true;
    }
    access.operands = OMPI_OSC_NEWRMA_OP_GET == op->kind ? NULL : stream;
    access.addr = op->target_addr + (uint64_t) toff;
    return mbox_post(module, target, &access, op);
}

bool ompi_osc_newrma_mbox_issue(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                                ompi_osc_newrma_op_t *op, char *stream, int *ret_p)
{
    return mbox_issue(module, target, op, stream, false, ret_p);
}

bool ompi_osc_newrma_mbox_issue_timed(ompi_osc_newrma_module_t *module,
                                      ompi_osc_newrma_target_t *target, ompi_osc_newrma_op_t *op,
                                      char *stream, int *ret_p)
{
    uint64_t start = ompi_osc_newrma_pick_now_ns();

    if (!mbox_issue(module, target, op, stream, true, ret_p)) {
        return false;
    }
    if (OMPI_SUCCESS == *ret_p) { /* posted */
        target->mbox_timed_ns = start;
    }
    return true;
}

/* Nothing of mine at @p target to overtake: nothing queued, in flight or
 * unacknowledged (mbox_wanted's conditions for an op that is not queued). */
static bool mbox_target_idle(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target)
{
    return module->mbox_ok && NULL == target->mbox_slot &&
           ompi_osc_newrma_target_quiet(target, ompi_osc_newrma_ack_counter(module, target));
}

bool ompi_osc_newrma_mbox_only(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target)
{
    return NULL != target->mbox_slot && NULL == target->mbox_op &&
           ompi_osc_newrma_target_quiet(target, ompi_osc_newrma_ack_counter(module, target));
}

bool ompi_osc_newrma_mbox_reads_only(const ompi_osc_newrma_target_t *target)
{
    return NULL != target->mbox_slot && OMPI_OSC_NEWRMA_OP_GET == target->mbox_slot->kind;
}

bool ompi_osc_newrma_mbox_post_access(ompi_osc_newrma_module_t *module,
                                      ompi_osc_newrma_target_t *target,
                                      const ompi_osc_newrma_mbox_access_t *access, int *ret_p)
{
    if (!ompi_osc_newrma_mbox_fits(access->kind, access->acc_op, access->bytes) ||
        !mbox_target_idle(module, target) || !mbox_post(module, target, access, NULL)) {
        return false;
    }
    *ret_p = OMPI_SUCCESS;
    return true;
}

/* The answer of @p target's mailbox slot, if it has come: a fetching op's
 * status and data (a failure of one that fetched nothing goes to the
 * window: the next completing synchronization returns it); the slot is
 * free again and the target open to its next ops. */
int ompi_osc_newrma_mbox_reap_target(ompi_osc_newrma_module_t *module,
                                     ompi_osc_newrma_target_t *target)
{
    ompi_osc_newrma_shm_mbox_t *slot = target->mbox_slot;
    ompi_osc_newrma_op_t *op = target->mbox_op;

    if (NULL == slot || !ompi_osc_newrma_shm_mbox_done(slot)) {
        return 0;
    }
    if (OMPI_SUCCESS != slot->status) {
        OSC_NEWRMA_VERBOSE(1, "rank %d could not apply an operation: %d", target->rank,
                           slot->status);
        /* an op element's failure is its own; an access posted at the
         * call (or one that fetches nothing) fails the window's next
         * completing synchronization */
        if (NULL != op) {
            op->status = OMPI_ERROR;
        } else {
            ompi_osc_newrma_module_error(module, OMPI_ERROR);
        }
    } else if (NULL != target->mbox_dest) {
        /* a result of whole pages lies 16 bytes behind a malloc'd buffer
         * modulo 4 KiB: glibc's slow case (osc_newrma_base_copy.h) */
        ompi_osc_newrma_copy(target->mbox_dest,
                             ompi_osc_newrma_shm_mbox_result(
                                 ompi_osc_newrma_shm_mbox_data(module, target->rank, slot), slot),
                             slot->len);
    }
    if (0 != target->mbox_timed_ns && OMPI_SUCCESS == slot->status) {
        /* REPLACE ([0]) or NO_OP read ([1]), as ops.c's acc_picked */
        ompi_osc_newrma_pick_record(&module->acc_pick[OMPI_OSC_NEWRMA_OP_GACC == slot->kind],
                                    OMPI_OSC_NEWRMA_ACC_WAY_MAILBOX, slot->len,
                                    ompi_osc_newrma_pick_now_ns() - target->mbox_timed_ns);
    }
    ompi_osc_newrma_shm_mbox_free(slot);
    target->mbox_slot = NULL;
    target->mbox_op = NULL;
    target->mbox_dest = NULL;
    module->mbox_pending--;
    if (NULL != op) {
        opal_atomic_add_fetch_32(&module->active_reqs, -1);
        opal_atomic_add_fetch_32(&op->outstanding, -1);
    }
    return 1;
}

int ompi_osc_newrma_mbox_reap(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_target_t *target;
    int reaped = 0;

    for (target = ompi_osc_newrma_optable_first(&module->table);
         module->mbox_pending > 0 && NULL != target;
         target = ompi_osc_newrma_optable_next(&module->table, target)) {
        reaped += ompi_osc_newrma_mbox_reap_target(module, target);
    }
    return reaped;
}

/* ---- a large accumulate streamed through the slots ---- */

/** A stream's posted slot and the part of the access it carries. */
typedef struct {
    ompi_osc_newrma_shm_mbox_t *slot;
    size_t offset;
    size_t len;
    uint64_t posted_ns;
} mbox_chunk_t;

/* How long a posted chunk may wait for the target's agent to take it: then
 * the target is busy outside MPI (or its core is), and the stream stops,
 * the caller's way (which needs no one) moving the rest. */
#define MBOX_STREAM_PATIENCE_NS 50000
/* A wait for a slot the agent took looks at the node's processes once in
 * this many rounds (kill(pid, 0) each): a target that died applying it
 * would never answer. */
#define MBOX_STREAM_LIVENESS_ROUNDS 4096

/* The end of @p c: applied (the agent's status), or taken back before the
 * agent took it (*@p back_p, the part still to move).  Spinning gives my
 * own agent turns: a peer streaming to me at the same time waits for it. */
static int mbox_chunk_end(ompi_osc_newrma_module_t *module, const mbox_chunk_t *c, bool *back_p)
{
    int status;

    *back_p = false;
    for (unsigned rounds = 1; !ompi_osc_newrma_shm_mbox_done(c->slot); ++rounds) {
        if (ompi_osc_newrma_pick_now_ns() - c->posted_ns > MBOX_STREAM_PATIENCE_NS &&
            ompi_osc_newrma_shm_mbox_retract(c->slot)) {
            *back_p = true;
            ompi_osc_newrma_shm_mbox_free(c->slot);
            return OMPI_SUCCESS;
        }
        if (0 == rounds % MBOX_STREAM_LIVENESS_ROUNDS &&
            (module->peer_lost || ompi_osc_newrma_shm_peer_lost(module))) {
            module->peer_lost = true;
            return OMPI_ERROR; /* its slot stays taken: the window is broken */
        }
        ompi_osc_newrma_agent_turn(module);
    }
    status = c->slot->status;
    /* operands by reference that the agent may not read (it changed
     * nothing): the rest's way moves them */
    *back_p =
        (c->slot->flags & OMPI_OSC_NEWRMA_SHM_MBOX_BY_REF) && OMPI_ERR_NOT_AVAILABLE == status;
    ompi_osc_newrma_shm_mbox_free(c->slot);
    return *back_p ? OMPI_SUCCESS : status;
}

/* The end of the oldest of the @p n chunks in flight, which leave @p chunks
 * in posting order; a part taken back goes by @p rest at once (and sets
 * *@p back_p). */
static int mbox_stream_retire(ompi_osc_newrma_module_t *module, mbox_chunk_t *chunks, int *n,
                              ompi_osc_newrma_mbox_rest_fn_t rest, void *arg, bool *back_p)
{
    mbox_chunk_t c = chunks[0];
    bool back;
    int ret = mbox_chunk_end(module, &c, &back);

    *n -= 1;
    memmove(chunks, chunks + 1, sizeof(*chunks) * (size_t) *n);
    *back_p |= back;
    if (back) {
        OMPI_OSC_NEWRMA_STAT_ADD(module, STREAM_PARTS_BACK, 1);
    }
    return OMPI_SUCCESS == ret && back ? rest(arg, c.offset, c.len) : ret;
}

/* Claim a slot of @p target's mailbox and post the next chunk of @p access
 * at @p offset into it.  @return false when no slot is free. */
static bool mbox_stream_post(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                             const ompi_osc_newrma_mbox_access_t *access, size_t offset,
                             size_t chunk, mbox_chunk_t *c)
{
    ompi_osc_newrma_mbox_access_t part = *access;

    c->slot = ompi_osc_newrma_shm_mbox_claim(module, target->rank);
    if (NULL == c->slot) {
        return false;
    }
    part.bytes = access->bytes - offset < chunk ? access->bytes - offset : chunk;
    part.operands = access->operands + offset;
    part.addr = access->addr + offset;
    mbox_fill(module, target->rank, &part, c->slot);
    c->offset = offset;
    c->len = part.bytes;
    c->posted_ns = ompi_osc_newrma_pick_now_ns();
    ompi_osc_newrma_shm_mbox_post(c->slot);
    return true;
}

int ompi_osc_newrma_mbox_stream(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target,
                                const ompi_osc_newrma_mbox_access_t *access, size_t part,
                                ompi_osc_newrma_mbox_rest_fn_t rest, void *arg)
{
    mbox_chunk_t chunks[OMPI_OSC_NEWRMA_SHM_MBOX_SLOTS];
    size_t size, chunk, offset = 0;
    bool back = false;
    int n = 0, ret = OMPI_SUCCESS, r;

    if (!module->mbox_ok || NULL != target->mbox_slot) {
        return OMPI_ERR_NOT_AVAILABLE;
    }
    /* whole elements per slot: an element split between two slots would be
     * written in two steps, another origin's write between them */
    ompi_datatype_type_size(access->acc_basic, &size);
    chunk = access->by_ref || part < OMPI_OSC_NEWRMA_SHM_MBOX_AREA_BYTES
                ? part
                : OMPI_OSC_NEWRMA_SHM_MBOX_AREA_BYTES;
    chunk = chunk < size ? size : chunk / size * size;
    while (OMPI_SUCCESS == ret && !back && offset < access->bytes) {
        if (n < OMPI_OSC_NEWRMA_SHM_MBOX_SLOTS &&
            mbox_stream_post(module, target, access, offset, chunk, &chunks[n])) {
            offset += chunks[n++].len;
        } else if (n > 0) {
            ret = mbox_stream_retire(module, chunks, &n, rest, arg, &back);
        } else {
            break; /* no slot free (other origins have them) */
        }
    }
    if (0 == offset) {
        return OMPI_ERR_NOT_AVAILABLE;
    }
    while (n > 0) {
        r = mbox_stream_retire(module, chunks, &n, rest, arg, &back);
        ret = OMPI_SUCCESS != ret ? ret : r;
    }
    ompi_osc_newrma_stat_op(&module->stats, access->kind, OMPI_OSC_NEWRMA_STAT_OPS_MAILBOX,
                            access->bytes);
    if (access->by_ref) {
        OMPI_OSC_NEWRMA_STAT_ADD(module, REDUCED_BY_REF, 1);
    }
    OSC_NEWRMA_VERBOSE(30, "accumulate of %zu bytes to rank %d streamed through its mailbox%s",
                       access->bytes, target->rank, back ? ", stopped" : "");
    return OMPI_SUCCESS == ret && offset < access->bytes ? rest(arg, offset, access->bytes - offset)
                                                         : ret;
}

/* Wait for the agent that took shared copy @p slot to answer, once the
 * chunk it copies is done (a quarter of the access at most).  As
 * mbox_chunk_end: my own agent has turns meanwhile, and a target that
 * died copying fails the wait. */
static int share_end(ompi_osc_newrma_module_t *module, ompi_osc_newrma_shm_mbox_t *slot)
{
    for (unsigned rounds = 1; !ompi_osc_newrma_shm_mbox_done(slot); ++rounds) {
        if (0 == rounds % MBOX_STREAM_LIVENESS_ROUNDS &&
            (module->peer_lost || ompi_osc_newrma_shm_peer_lost(module))) {
            module->peer_lost = true;
            return OMPI_ERROR;
        }
        ompi_osc_newrma_agent_turn(module);
    }
    return OMPI_SUCCESS;
}

/* A shared access's chunk for @p bytes in whole elements of @p elem
 * bytes: a @p chunks'th of them (a copy's a quarter), at least
 * osc_newrma_cma_share_chunk.  Each chunk is a system call that walks and
 * pins its pages, so fewer are faster, but the last one the agent takes
 * is what the origin may wait for: in chunks of 16, 128 and 512 KiB, a
 * 2 MiB GET + flush took 144-153, 96-105 and 63-66 us (one process 179),
 * a 512 KiB one in 128 KiB chunks 16.6 (18.5), in 16 KiB 30-31. */
static size_t share_chunk(size_t bytes, size_t elem, size_t chunks)
{
    size_t chunk = bytes / chunks;

    if (chunk < (size_t) component.cma_share_chunk) {
        chunk = (size_t) component.cma_share_chunk;
    }
    if (chunk > OMPI_OSC_NEWRMA_SHARE_CHUNK_MAX) {
        chunk = OMPI_OSC_NEWRMA_SHARE_CHUNK_MAX;
    }
    return chunk >= elem ? chunk / elem * elem : elem; /* whole elements */
}

/* What a shared access asks of the agent besides its bytes: a copy's
 * direction, or a reduction's op and element type. */
typedef struct {
    ompi_osc_newrma_op_kind_t kind;
    struct ompi_op_t *op;
    struct ompi_datatype_t *basic;
    /** a fetching reduction's result buffer, else NULL */
    char *result;
} share_what_t;

/* A slot of @p rank's claimed and posted for a shared access of @p bytes
 * (@p flags beside OMPI_OSC_NEWRMA_SHM_MBOX_SHARE, @p addr as they say),
 * or NULL when none is free or its agent does not poll. */
static ompi_osc_newrma_shm_mbox_t *share_post(ompi_osc_newrma_module_t *module, int rank,
                                              const share_what_t *what, uint8_t flags,
                                              uint64_t addr, char *origin, size_t bytes)
{
    ompi_osc_newrma_shm_mbox_t *slot;
    size_t elem = 1;

    if (rank == module->my_rank || NULL == (slot = ompi_osc_newrma_shm_mbox_claim(module, rank))) {
        return NULL;
    }
    slot->kind = (uint8_t) what->kind;
    slot->acc_op = (uint16_t) (NULL != what->op ? what->op->o_f_to_c_index : 0);
    slot->acc_dt = (uint16_t) (NULL != what->basic ? what->basic->d_f_to_c_index : 0);
    if (NULL != what->basic) {
        ompi_datatype_type_size(what->basic, &elem);
    }
    slot->flags = OMPI_OSC_NEWRMA_SHM_MBOX_SHARE | flags |
                  (NULL != what->result ? OMPI_OSC_NEWRMA_SHM_MBOX_FETCH : 0);
    slot->len = 0;
    slot->addr = addr;
    slot->share.addr = (uint64_t) (uintptr_t) origin;
    slot->share.len = bytes;
    slot->share.chunk = (uint32_t) share_chunk(
        bytes, elem,
        NULL != what->op ? OMPI_OSC_NEWRMA_SHARE_REDUCE_CHUNKS : OMPI_OSC_NEWRMA_SHARE_CHUNKS);
    slot->share.rank = module->my_rank;
    slot->share.next = 0;
    slot->share.by_target = 0;
    slot->share.failed = 0;
    slot->share.undone = bytes;
    slot->share.result = (uint64_t) (uintptr_t) what->result;
    ompi_osc_newrma_shm_mbox_post(slot);
    return slot;
}

static ompi_osc_newrma_op_kind_t share_copy_kind(bool put)
{
    return put ? OMPI_OSC_NEWRMA_OP_PUT : OMPI_OSC_NEWRMA_OP_GET;
}

static const char *share_name(const share_what_t *what)
{
    switch (what->kind) {
        case OMPI_OSC_NEWRMA_OP_PUT:
            return "PUT";
        case OMPI_OSC_NEWRMA_OP_GET:
            return "GET";
        case OMPI_OSC_NEWRMA_OP_GACC:
            return "fetching reduction";
        default:
            return "reduction";
    }
}

/* My chunks of @p slot's copy are done: take the slot back, or wait for
 * the agent that took it; *@p failed_p when its copies failed.
 * @return an error when the target died copying (its slot stays taken:
 *         the window is broken). */
static int share_finish(ompi_osc_newrma_module_t *module, int rank, const share_what_t *what,
                        size_t bytes, ompi_osc_newrma_shm_mbox_t *slot, bool *failed_p,
                        uint64_t *undone_p)
{
    int32_t by_target = 0;
    int ret;

    *failed_p = false;
    *undone_p = bytes;
    if (!ompi_osc_newrma_shm_mbox_retract(slot)) {
        ret = share_end(module, slot);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
        by_target = slot->share.by_target;
        *failed_p = 0 != slot->share.failed || OMPI_SUCCESS != slot->status;
        *undone_p = slot->share.undone;
    }
    ompi_osc_newrma_shm_mbox_free(slot);
    if (!*failed_p && by_target > 0) {
        OMPI_OSC_NEWRMA_STAT_ADD(module, COPIES_SHARED, 1);
        OMPI_OSC_NEWRMA_STAT_ADD(module, CHUNKS_BY_TARGET, by_target);
    }
    OSC_NEWRMA_VERBOSE(30, "%s of %zu bytes to rank %d shared with its agent: %d chunks by it%s",
                       share_name(what), bytes, rank, (int) by_target,
                       *failed_p ? ", its failure mended" : "");
    return OMPI_SUCCESS;
}

int ompi_osc_newrma_mbox_share_copy(ompi_osc_newrma_module_t *module, int rank, int32_t pid,
                                    bool put, char *origin, uint64_t taddr, size_t bytes)
{
    share_what_t what = {share_copy_kind(put), NULL, NULL, NULL};
    ompi_osc_newrma_shm_mbox_t *slot;
    uint64_t undone;
    bool failed;
    int status = OMPI_SUCCESS, ret;

    if (!module->mbox_ok ||
        NULL == (slot = share_post(module, rank, &what, 0, taddr, origin, bytes))) {
        return OMPI_ERR_NOT_AVAILABLE;
    }
    (void) ompi_osc_newrma_shm_share_run(&slot->share, pid, put, origin, taddr, &status);
    ret = share_finish(module, rank, &what, bytes, slot, &failed, &undone);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    if (OMPI_SUCCESS == status && failed) {
        status = ompi_osc_newrma_shm_cma(pid, put, origin, taddr, bytes);
    }
    return status;
}

int ompi_osc_newrma_mbox_share_segment(ompi_osc_newrma_module_t *module, int rank, bool put,
                                       char *origin, char *there, size_t offset, size_t bytes)
{
    share_what_t what = {share_copy_kind(put), NULL, NULL, NULL};
    ompi_osc_newrma_shm_mbox_t *slot;
    uint64_t undone;
    bool failed;
    int ret;

    if (SIZE_MAX == module->seg_share_from ||
        NULL == (slot = share_post(module, rank, &what, OMPI_OSC_NEWRMA_SHM_MBOX_SEGMENT,
                                   (uint64_t) offset, origin, bytes))) {
        return OMPI_ERR_NOT_AVAILABLE;
    }
    (void) ompi_osc_newrma_shm_share_local(&slot->share, put, origin, there);
    ret = share_finish(module, rank, &what, bytes, slot, &failed, &undone);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    if (failed) {
        /* the agent cannot reach my memory (the kernel refuses its copy):
         * no more asking it in this window */
        module->seg_share_from = SIZE_MAX;
        put ? ompi_osc_newrma_copy(there, origin, bytes)
            : ompi_osc_newrma_copy(origin, there, bytes);
    }
    return OMPI_SUCCESS;
}

/* Bytes [@p at, + @p len) of a shared reduction reduced by this process
 * from @p origin into @p there, the old values first to what->result
 * (ompi_osc_newrma_acc_contig_held). */
static void share_reduce_part(const share_what_t *what, const char *origin, char *there,
                              uint64_t at, size_t len)
{
    (void) ompi_osc_newrma_acc_contig_held(what->kind, what->op, what->basic, there + at,
                                           origin + at,
                                           NULL != what->result ? what->result + at : NULL, len);
}

/* My chunks of a shared reduction. */
static void share_reduce_local(ompi_osc_newrma_shm_mbox_share_t *share, const share_what_t *what,
                               const char *origin, char *there)
{
    uint64_t at;
    size_t len;

    while (ompi_osc_newrma_shm_share_take(share, &at, &len)) {
        share_reduce_part(what, origin, there, at, len);
    }
}

int ompi_osc_newrma_mbox_share_reduce(ompi_osc_newrma_module_t *module, int rank,
                                      struct ompi_op_t *op, struct ompi_datatype_t *basic,
                                      const char *origin, char *result, char *there, size_t offset,
                                      size_t bytes)
{
    share_what_t what = {NULL != result ? OMPI_OSC_NEWRMA_OP_GACC : OMPI_OSC_NEWRMA_OP_ACC, op,
                         basic, result};
    ompi_osc_newrma_shm_mbox_t *slot;
    uint64_t undone, end;
    size_t chunk;
    bool failed;
    int ret;

    if (SIZE_MAX == module->seg_share_from ||
        NULL == (slot = share_post(module, rank, &what, OMPI_OSC_NEWRMA_SHM_MBOX_SEGMENT,
                                   (uint64_t) offset, (char *) origin, bytes))) {
        return OMPI_ERR_NOT_AVAILABLE;
    }
    chunk = slot->share.chunk;
    share_reduce_local(&slot->share, &what, origin, there);
    ret = share_finish(module, rank, &what, bytes, slot, &failed, &undone);
    if (OMPI_SUCCESS != ret || !failed) {
        return ret;
    }
    /* the agent cannot read my operands: no more asking it in this
     * window, and the rest of the chunk it failed on is mine (what it
     * reduced of it, and its other chunks, are done: none twice) */
    module->seg_share_from = SIZE_MAX;
    if (undone < bytes) {
        end = (undone / chunk + 1) * chunk;
        end = end < bytes ? end : bytes;
        share_reduce_part(&what, origin, there, undone, (size_t) (end - undone));
    }
    return OMPI_SUCCESS;
}
