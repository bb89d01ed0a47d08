/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: ACC packets applied by the target's agent (see
 * osc_newrma_target_acc.h).
 */
#include "ompi_config.h"

#include <stdlib.h>

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"

#include "osc_newrma.h"
#include "osc_newrma_am_pkt.h"
#include "osc_newrma_am_data.h"
#include "osc_newrma_base_acc.h"
#include "osc_newrma_base_copy.h"
#include "osc_newrma_base_dtype.h"
#include "osc_newrma_target_acc.h"
#include "osc_newrma_transport_shm.h"
#include "osc_newrma_transport_ucx.h"

/* a read without the lock answered by rendezvous from a slow source sends
 * from the next multiple of this on (acc_read_head) */
#define ACC_READ_HEAD_ALIGN 64

/* ---- target side ---- */

static int acc_apply_hdr(ompi_osc_newrma_module_t *module,
                         const struct ompi_osc_newrma_pkt_hdr_t *hdr, ompi_datatype_t *target_dt,
                         int target_count, const char *data, char *result)
{
    ompi_osc_newrma_acc_apply_t a = {0};

    a.basic = PMPI_Type_f2c(hdr->acc_dt);
    a.op = OMPI_OSC_NEWRMA_OP_CAS == hdr->kind ? &ompi_mpi_op_replace.op : PMPI_Op_f2c(hdr->acc_op);
    if (NULL == a.basic || MPI_DATATYPE_NULL == a.basic || NULL == a.op || MPI_OP_NULL == a.op) {
        return OMPI_ERR_BAD_PARAM;
    }
    a.base = (char *) (uintptr_t) hdr->addr;
    a.target_dt = target_dt;
    a.target_count = target_count;
    a.offset = hdr->tag;
    a.len = hdr->len;
    a.origin = ompi_osc_newrma_acc_is_no_op(a.op) ? NULL : data;
    a.compare = OMPI_OSC_NEWRMA_OP_CAS == hdr->kind ? data + hdr->len : NULL;
    a.result = (hdr->flags & OMPI_OSC_NEWRMA_PKT_FLAG_GET) ? result : NULL;
    a.lock = &module->my_lock->acc_lock;
    a.plain = ompi_osc_newrma_acc_plain(module);
    return ompi_osc_newrma_acc_apply(&a);
}

int ompi_osc_newrma_acc_apply_single(ompi_osc_newrma_module_t *module,
                                     const struct ompi_osc_newrma_pkt_hdr_t *hdr, const char *data,
                                     char *result)
{
    ompi_osc_newrma_pkt_hdr_t h = *hdr;
    ompi_datatype_t *basic = PMPI_Type_f2c(hdr->acc_dt);
    size_t size;

    if (NULL == basic || MPI_DATATYPE_NULL == basic) {
        return OMPI_ERR_BAD_PARAM;
    }
    ompi_datatype_type_size(basic, &size);
    h.tag = 0; /* the whole access: offset 0 */
    return acc_apply_hdr(module, &h, basic, (int) (hdr->len / size), data, result);
}

/* An accumulate of @p len bytes at @p addr of op and element type
 * @p acc_op, @p acc_dt (Fortran handles; @p op, @p basic theirs), operands
 * at @p data (the old values to @p result when @p result is not NULL): the
 * plain rule's common case without the datatype walk (about 600
 * instructions of a one-element FETCH_AND_OP's 700 went there), else the
 * full way. */
static int acc_apply_contig(ompi_osc_newrma_module_t *module, ompi_osc_newrma_op_kind_t kind,
                            uint16_t acc_op, uint16_t acc_dt, ompi_op_t *op, ompi_datatype_t *basic,
                            uint64_t addr, const char *data, size_t len, char *result)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};

    if (ompi_osc_newrma_acc_plain(module) && NULL != basic && MPI_DATATYPE_NULL != basic &&
        NULL != op && MPI_OP_NULL != op &&
        ompi_osc_newrma_acc_contig(kind, op, basic, (char *) (uintptr_t) addr,
                                   ompi_osc_newrma_acc_is_no_op(op) ? NULL : data, result, len,
                                   &module->my_lock->acc_lock)) {
        return OMPI_SUCCESS;
    }
    hdr.kind = (uint8_t) kind;
    hdr.acc_op = acc_op;
    hdr.acc_dt = acc_dt;
    hdr.addr = addr;
    hdr.len = len;
    hdr.flags = NULL != result ? OMPI_OSC_NEWRMA_PKT_FLAG_GET : 0;
    return ompi_osc_newrma_acc_apply_single(module, &hdr, data, result);
}

/* A slot's accumulate of @p len bytes at @p addr, its operands at @p data
 * (the old values to @p result when the slot fetches). */
static int acc_apply_slot(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_shm_mbox_t *slot,
                          ompi_datatype_t *basic, uint64_t addr, const char *data, size_t len,
                          char *result)
{
    bool fetch = slot->flags & OMPI_OSC_NEWRMA_SHM_MBOX_FETCH;

    return acc_apply_contig(module, (ompi_osc_newrma_op_kind_t) slot->kind, slot->acc_op,
                            slot->acc_dt, PMPI_Op_f2c(slot->acc_op), basic, addr, data, len,
                            fetch ? result : NULL);
}

int ompi_osc_newrma_acc_apply_mbox(ompi_osc_newrma_module_t *module,
                                   struct ompi_osc_newrma_shm_mbox_t *slot, char *data)
{
    ompi_datatype_t *basic = PMPI_Type_f2c(slot->acc_dt);
    char *result = ompi_osc_newrma_shm_mbox_result(data, slot);

    if (OMPI_OSC_NEWRMA_OP_CAS == slot->kind && ompi_osc_newrma_acc_plain(module) &&
        NULL != basic && MPI_DATATYPE_NULL != basic &&
        ompi_osc_newrma_acc_cas_contig(basic, (char *) (uintptr_t) slot->addr, data,
                                       data + slot->len, result, &module->my_lock->acc_lock)) {
        return OMPI_SUCCESS;
    }
    return acc_apply_slot(module, slot, basic, slot->addr, data, slot->len, result);
}

/* Bytes of a by-reference slot's operands read and reduced at a time, in
 * a buffer the L2 cache holds: each block costs a system call.  SUM + flush
 * of 128 KiB took 18.3 us in blocks of 8 KiB, 12.6 of 16, 10.9 of 64, 9.7
 * of 128; 2 MiB 470, 352, 311 and 275. */
#define ACC_REF_BLOCK ((size_t) 131072)

int ompi_osc_newrma_acc_apply_mbox_ref(ompi_osc_newrma_module_t *module,
                                       ompi_osc_newrma_shm_mbox_t *slot, const char *data)
{
    ompi_osc_newrma_shm_mbox_ref_t ref;
    ompi_datatype_t *basic = PMPI_Type_f2c(slot->acc_dt);
    ompi_op_t *op = PMPI_Op_f2c(slot->acc_op);
    ompi_osc_newrma_peer_t *origin;
    size_t size = 0, block;
    char *ops;
    int ret = OMPI_SUCCESS;

    memcpy(&ref, data, sizeof(ref));
    if (NULL == basic || MPI_DATATYPE_NULL == basic || NULL == op || MPI_OP_NULL == op) {
        return OMPI_ERR_BAD_PARAM;
    }
    ompi_datatype_type_size(basic, &size);
    if (0 == size) {
        return OMPI_ERR_BAD_PARAM;
    }
    origin = ompi_osc_newrma_shm_cma_peer(module, ref.rank);
    if (NULL == origin) {
        return OMPI_ERR_NOT_AVAILABLE;
    }
    block = ref.len < ACC_REF_BLOCK ? ref.len : ACC_REF_BLOCK / size * size;
    ops = malloc(block);
    if (NULL == ops) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (size_t at = 0; OMPI_SUCCESS == ret && at < ref.len; at += block) {
        size_t len = ref.len - at < block ? ref.len - at : block;

        ret = ompi_osc_newrma_shm_cma(origin->cma_pid, false, ops, ref.addr + at, len);
        if (OMPI_SUCCESS == ret) {
            ret = acc_apply_slot(module, slot, basic, slot->addr + at, ops, len, NULL);
        } else if (at > 0) {
            ret = OMPI_ERROR; /* half applied: a refusal now is a failure */
        }
    }
    free(ops);
    return ret;
}

/* The agent's part of one shared reduction, decoded from its slot once. */
typedef struct {
    const ompi_osc_newrma_shm_mbox_share_t *share;
    int32_t pid;
    char *mine;
    ompi_op_t *op;
    ompi_datatype_t *basic;
    /** operands of one block; a fetching one's old values (else NULL) */
    char *ops, *old;
    size_t block;
} acc_share_t;

/* One block of a shared reduction at @p at: its operands read; for a
 * fetching one the old values copied out and written to the origin's
 * result first, so that a failure leaves the block whole to the origin;
 * then reduced.  @return false, nothing reduced, when a copy failed. */
static bool acc_share_block(const acc_share_t *c, uint64_t at, size_t n)
{
    if (OMPI_SUCCESS != ompi_osc_newrma_shm_cma(c->pid, false, c->ops, c->share->addr + at, n)) {
        return false;
    }
    if (NULL != c->old) {
        ompi_osc_newrma_copy_elem(c->old, c->mine + at, n);
        if (OMPI_SUCCESS !=
            ompi_osc_newrma_shm_cma(c->pid, true, c->old, c->share->result + at, n)) {
            return false;
        }
    }
    return ompi_osc_newrma_acc_contig_held(OMPI_OSC_NEWRMA_OP_ACC, c->op, c->basic, c->mine + at,
                                           c->ops, NULL, n);
}

/* One chunk of a shared reduction, [@p at, + @p len), block by block.
 * @return false, *@p undone_p the first byte not reduced, when a copy
 * failed. */
static bool acc_share_chunk(const acc_share_t *c, uint64_t at, size_t len, uint64_t *undone_p)
{
    for (size_t done = 0, n; done < len; done += n) {
        n = len - done < c->block ? len - done : c->block;
        if (!acc_share_block(c, at + done, n)) {
            *undone_p = at + done;
            return false;
        }
    }
    return true;
}

void ompi_osc_newrma_acc_apply_share(struct ompi_osc_newrma_shm_mbox_t *slot, int32_t pid,
                                     char *mine)
{
    ompi_osc_newrma_shm_mbox_share_t *share = &slot->share;
    acc_share_t c = {.share = share,
                     .pid = pid,
                     .mine = mine,
                     .op = PMPI_Op_f2c(slot->acc_op),
                     .basic = PMPI_Type_f2c(slot->acc_dt)};
    bool fetch = slot->flags & OMPI_OSC_NEWRMA_SHM_MBOX_FETCH;
    size_t size = 0, len;
    uint64_t at;

    if (NULL != c.basic && MPI_DATATYPE_NULL != c.basic) {
        ompi_datatype_type_size(c.basic, &size);
    }
    /* what the origin checked before it posted: a failure here is a
     * malformed slot, left whole to the origin */
    if (0 == size || NULL == c.op || MPI_OP_NULL == c.op ||
        !ompi_osc_newrma_acc_reduces(c.op, c.basic) ||
        NULL == (c.ops = malloc((fetch ? 2 : 1) * (c.block = ACC_REF_BLOCK / size * size)))) {
        share->failed = 1;
        return;
    }
    c.old = fetch ? c.ops + c.block : NULL;
    while (ompi_osc_newrma_shm_share_take(share, &at, &len)) {
        if (!acc_share_chunk(&c, at, len, &share->undone)) {
            share->failed = 1;
            break;
        }
        share->by_target++;
    }
    free(c.ops);
}

/* A fetching accumulate's old values, which its origin asked for by
 * rendezvous (a large one): read from @p result, which the answer frees
 * once they have been.  @return true when sent that way; false leaves
 * the answer, and @p result, to the caller (which answers eagerly). */
static bool acc_answer_rndv(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_pkt_t *pkt,
                            int status, char *result)
{
    return OMPI_SUCCESS == status && (pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_RNDV) &&
           OMPI_SUCCESS == ompi_osc_newrma_pkt_answer_rndv(
                               module, pkt, OMPI_OSC_NEWRMA_PKT_ACC_REPLY, result, true);
}

/* The second answer to an ACC with OMPI_OSC_NEWRMA_PKT_FLAG_UNLOCKED: the
 * @p head_len bytes at @p head that the first did not carry, which land
 * just before its data (the first one's stands), or none; its origin counts
 * it like the first. */
static void acc_answer_head(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_pkt_t *pkt,
                            int status, const void *head, uint32_t head_len)
{
    ompi_osc_newrma_pkt_hdr_t reply = {0};

    reply.type = OMPI_OSC_NEWRMA_PKT_ACC_REPLY;
    reply.status = status;
    reply.echo = pkt->hdr.echo;
    reply.tag = pkt->hdr.tag - head_len;
    reply.len = head_len;
    reply.tag2 = pkt->hdr.tag2;
    if (OMPI_SUCCESS != ompi_osc_newrma_pkt_reply(module, pkt, &reply, head, head_len)) {
        opal_output(0, "osc/newrma: cannot answer an accumulate of rank %d", pkt->hdr.src);
    }
}

/* The bytes at the start of the chunk at @p addr (of @p len bytes) that go
 * with the second answer instead of the rendezvous, so that the rest is
 * read from the next cache line on: where the kernel would copy the window
 * itself slowly into the TCP socket (ompi_osc_newrma_ucx_tcp_slow_source;
 * a 2 MiB read from a window 16 bytes into its page 800-1090 us, 320-350
 * from other offsets); 0 elsewhere. */
static uint32_t acc_read_head(uint64_t addr, uint64_t len)
{
    uint64_t head = (0 - addr) & (uint64_t) (ACC_READ_HEAD_ALIGN - 1);

    return ompi_osc_newrma_ucx_tcp_slow_source((const void *) (uintptr_t) addr) && head < len
               ? (uint32_t) head
               : 0;
}

/* An MPI_NO_OP chunk its origin lets us read without the accumulate lock
 * (FLAG_UNLOCKED): answered by rendezvous straight from the window, as a
 * GET is, instead of copied under the lock first (over TCP, a 2 MiB read
 * took twice a GET's time that way: the copy, 145 us here, came on top of
 * the kernel's, both on the target's core).  The lock word's sequence
 * goes in the notice (hdr.count, the layout's count, which it no longer
 * needs), the chunk's address in hdr.addr and the bytes its second answer
 * carries before it in hdr.desc_len (acc_read_head), for acc_read_verify; the
 * origin's later packets wait for that (ompi_osc_newrma_pkt_answer_rndv),
 * so none of its own accumulates can come between.  @return an error to
 * take the copy under the lock instead. */
static int acc_read_unlocked(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt,
                             ompi_datatype_t *dt)
{
    ompi_osc_newrma_pkt_hdr_t asked = pkt->hdr;
    uint32_t head;
    ptrdiff_t off;
    int ret;

    if (!ompi_osc_newrma_acc_plain(module) || NULL != pkt->replies ||
        !ompi_osc_newrma_acc_is_no_op(PMPI_Op_f2c(pkt->hdr.acc_op)) ||
        !ompi_osc_newrma_dtype_contig(dt, (int) pkt->hdr.count, &off)) {
        return OMPI_ERR_NOT_AVAILABLE; /* not what the origin may ask (a BATCH holds nothing) */
    }
    if (module->reads_skip > 0) {
        module->reads_skip--; /* accumulates kept overlapping such reads lately */
        return OMPI_ERR_NOT_AVAILABLE;
    }
    pkt->hdr.addr += (uint64_t) off + pkt->hdr.tag;
    pkt->hdr.count = (uint32_t) ompi_osc_newrma_acc_lock_seq(&module->my_lock->acc_lock);
    head = acc_read_head(pkt->hdr.addr, pkt->hdr.len);
    pkt->hdr.desc_len = head;
    pkt->hdr.addr += head;
    pkt->hdr.tag += head;
    pkt->hdr.len -= head;
    ret = ompi_osc_newrma_pkt_answer_rndv(module, pkt, OMPI_OSC_NEWRMA_PKT_ACC_REPLY,
                                          (const void *) (uintptr_t) pkt->hdr.addr, false);
    if (OMPI_SUCCESS == ret) {
        OMPI_OSC_NEWRMA_STAT_ADD(module, READS_UNLOCKED, 1);
        OMPI_OSC_NEWRMA_STAT_ADD(module, READS_SPLIT, 0 != head);
    } else {
        pkt->hdr = asked; /* for the copy */
    }
    return ret;
}

/* The chunk of @p notice read again under the lock and sent as its second
 * answer, which lands where the first did. */
static int acc_read_again(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *notice)
{
    volatile int32_t *lock = &module->my_lock->acc_lock;
    char *again = ompi_osc_newrma_ucx_am_buffer(0, notice->hdr.len);
    int ret;

    if (NULL == again) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    ompi_osc_newrma_acc_lock_take(lock);
    ompi_osc_newrma_copy(again, (const void *) (uintptr_t) notice->hdr.addr, notice->hdr.len);
    ompi_osc_newrma_acc_lock_release(lock);
    /* a plain answer, which holds nothing; the flag stays on the notice,
     * whose delivery ends its hold */
    notice->hdr.flags &= (uint8_t) ~OMPI_OSC_NEWRMA_PKT_FLAG_UNLOCKED;
    ret =
        ompi_osc_newrma_pkt_answer_rndv(module, notice, OMPI_OSC_NEWRMA_PKT_ACC_REPLY, again, true);
    notice->hdr.flags |= OMPI_OSC_NEWRMA_PKT_FLAG_UNLOCKED;
    if (OMPI_SUCCESS != ret) {
        ompi_osc_newrma_ucx_am_buffer_free(again);
    }
    return ret;
}

/* The lock-free answer of acc_read_unlocked has been read: it stands when
 * the lock word was even then and has not moved since (no accumulate wrote
 * this window meanwhile), and the second answer says so (with the chunk's
 * head, if the first left it out); otherwise
 * the chunk is read again under the lock (acc_read_again).  Then the chunk
 * counts as applied (an RMA_DONE or UNLOCK behind it waited). */
static void acc_read_verify(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *notice)
{
    int32_t seq = (int32_t) notice->hdr.count;
    uint32_t head_len = OMPI_SUCCESS == notice->hdr.status ? notice->hdr.desc_len : 0;
    char head[ACC_READ_HEAD_ALIGN];
    int ret = notice->hdr.status;
    bool again = false;

    /* the head read before the word is compared: an accumulate that wrote
     * it meanwhile moved the word */
    memcpy(head, (const char *) (uintptr_t) notice->hdr.addr - head_len, head_len);
    opal_atomic_rmb();
    if (OMPI_SUCCESS == ret &&
        (0 != (seq & 1) || ompi_osc_newrma_acc_lock_seq(&module->my_lock->acc_lock) != seq)) {
        /* the whole chunk again */
        notice->hdr.addr -= head_len;
        notice->hdr.tag -= head_len;
        notice->hdr.len += head_len;
        head_len = 0;
        OMPI_OSC_NEWRMA_STAT_ADD(module, READS_AGAIN, 1);
        /* the transfer was for nothing: while that keeps happening, try
         * it on ever fewer reads */
        module->reads_backoff = module->reads_backoff < 1    ? 1
                                : module->reads_backoff < 64 ? 2 * module->reads_backoff
                                                             : 64;
        module->reads_skip = module->reads_backoff;
        ret = acc_read_again(module, notice);
        again = OMPI_SUCCESS == ret;
    } else if (OMPI_SUCCESS == ret) {
        module->reads_backoff = 0;
    }
    if (!again) {
        acc_answer_head(module, notice, ret, head, head_len);
    }
    ompi_osc_newrma_pkt_count_applied(module, notice, ret);
}

/* An MPI_REPLACE of a contiguous range that comes by rendezvous (over TCP)
 * lands straight in the window, under the accumulate lock taken for the
 * transfer, as osc/pt2pt receives one: in a buffer, copied into the window
 * under the lock afterwards, the copy took as much of the target's time as
 * the kernel's receive (perf, a stream of 2 MiB ones: memmove 23% of the
 * samples, _copy_to_iter 29%).  Holding the lock across a transfer is safe
 * only where nothing waits for it in a way that stops the transfer: one
 * thread in the component (the landing ends in this agent's progress), no
 * other process with the lock word (no node-local peer in the window: the
 * word is then this process's own), the window's packets held meanwhile
 * (ompi_osc_newrma_pkt_land_window), and this process's accumulates to
 * itself waiting with progress (ompi_osc_newrma_acc_self_landing). */
static bool acc_lands_in_window(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_pkt_t *pkt,
                                uint64_t *dest_p)
{
    ompi_datatype_t *dt;
    ptrdiff_t off = 0;
    bool contig;

    if (!mca_osc_newrma_component.replace_in_window || ompi_osc_newrma_threaded() ||
        (module->shm.active && module->shm.node_size > 1) || !ompi_osc_newrma_acc_plain(module) ||
        OMPI_OSC_NEWRMA_OP_ACC != pkt->hdr.kind ||
        (pkt->hdr.flags & (OMPI_OSC_NEWRMA_PKT_FLAG_GET | OMPI_OSC_NEWRMA_PKT_FLAG_LANDED |
                           OMPI_OSC_NEWRMA_PKT_FLAG_SENT)) ||
        !ompi_osc_newrma_acc_is_replace(PMPI_Op_f2c(pkt->hdr.acc_op)) ||
        pkt->prefix_len != pkt->hdr.desc_len || pkt->payload_len != pkt->hdr.len) {
        return false;
    }
    dt = ompi_osc_newrma_pkt_datatype(module, pkt);
    contig = NULL != dt && ompi_osc_newrma_dtype_contig(dt, (int) pkt->hdr.count, &off);
    ompi_osc_newrma_dtype_release(dt);
    *dest_p = pkt->hdr.addr + (uint64_t) off + pkt->hdr.tag;
    return contig && ompi_osc_newrma_pkt_land_window_room(module, *dest_p, pkt->payload_len);
}

/* The packet layer's question (ompi_osc_newrma_pkt_lands_register): the
 * same terms, so that a packet let past the landings' wait lands. */
static bool acc_lands_now(ompi_osc_newrma_module_t *module, const ompi_osc_newrma_pkt_t *pkt)
{
    uint64_t dest;

    return acc_lands_in_window(module, pkt, &dest);
}

static bool acc_land_in_window(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    volatile int32_t *lock = &module->my_lock->acc_lock;
    bool first = 0 == module->acc_landings;
    uint64_t dest;

    if (!acc_lands_in_window(module, pkt, &dest)) {
        return false;
    }
    if (first) { /* held until the last of the landings beside it ends */
        ompi_osc_newrma_acc_lock_take(lock);
    }
    if (OMPI_SUCCESS != ompi_osc_newrma_pkt_land_window(module, pkt, (char *) (uintptr_t) dest)) {
        if (first) {
            ompi_osc_newrma_acc_lock_release(lock);
        }
        return false; /* into a buffer, then */
    }
    OMPI_OSC_NEWRMA_STAT_ADD(module, REPLACES_IN_WINDOW, 1);
    return true;
}

/* That MPI_REPLACE has landed: when it was the last in the window, the
 * lock goes back and the window's packets go on; it counts as applied. */
static void acc_landed_in_window(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *notice)
{
    if (ompi_osc_newrma_pkt_land_window_end(module, notice)) {
        ompi_osc_newrma_acc_lock_release(&module->my_lock->acc_lock);
    }
    if (OMPI_SUCCESS != notice->hdr.status) {
        OSC_NEWRMA_VERBOSE(1, "cannot receive an accumulate of rank %d: %d", notice->hdr.src,
                           notice->hdr.status);
    }
    ompi_osc_newrma_pkt_count_applied(module, notice, notice->hdr.status);
}

/* How a slot of my mailbox is applied (target_mbox.c, registered from
 * above: it applies accumulates with this file's functions). */
static ompi_osc_newrma_shm_mbox_apply_fn_t acc_mbox_apply;

/* Target side: an ACC packet (agent).  The old values of a fetching one
 * go to a buffer of the transport's pool, not one malloc'd per packet: a
 * chunk is up to 64 KiB, and glibc giving the heap's top back after each
 * (a TLB shootdown) made a 128 KiB GET_ACCUMULATE ten times slower. */
static void acc_handle(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    bool fetch = pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_GET;
    bool unlocked = pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_UNLOCKED;
    ompi_datatype_t *dt = NULL;
    char *result = NULL;
    int ret = OMPI_SUCCESS;

    if (ompi_osc_newrma_pkt_land_window_notice(module, pkt)) {
        acc_landed_in_window(module, pkt);
        return;
    }
    if ((pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_SENT) && unlocked) {
        acc_read_verify(module, pkt);
        return;
    }
    if (pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_SENT) {
        /* its answer by rendezvous was read; the packet counted already */
        if (OMPI_SUCCESS != pkt->hdr.status) {
            OSC_NEWRMA_VERBOSE(1, "cannot answer an accumulate of rank %d: %d", pkt->hdr.src,
                               pkt->hdr.status);
        }
        return;
    }
    if (module->mbox_polled && !(pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_LANDED)) {
        /* an origin's accumulate may follow its own op in my mailbox (packed
         * by the call behind it, ops.c's rma_stream_takes): that op first,
         * on the packet's first visit (before anything lands in the window) */
        ompi_osc_newrma_shm_mbox_settle(module, acc_mbox_apply);
    }
    if (pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_LANDED) {
        ret = pkt->hdr.status;
    } else if (ompi_osc_newrma_pkt_test_fail()) {
        ret = OMPI_ERROR; /* a rendezvous payload is cancelled with the packet */
    } else if (pkt->rndv && acc_land_in_window(module, pkt)) {
        return; /* counted when landed (acc_landed_in_window) */
    } else if (pkt->rndv) {
        /* operands by rendezvous: applied from where they land, on the
         * packet's second visit (LANDED), its origin's later packets
         * waiting meanwhile */
        ret = ompi_osc_newrma_pkt_land_described(pkt);
        if (OMPI_SUCCESS == ret) {
            return;
        }
    }
    if (OMPI_SUCCESS == ret) {
        ret = OMPI_ERR_OUT_OF_RESOURCE;
        dt = ompi_osc_newrma_pkt_datatype(module, pkt);
        if (NULL != dt && unlocked && fetch && OMPI_SUCCESS == acc_read_unlocked(module, pkt, dt)) {
            ompi_osc_newrma_dtype_release(dt);
            return; /* counted when read (acc_read_verify) */
        }
        /* else copied under the lock and answered as usual, then once more, empty */
        pkt->hdr.flags &= (uint8_t) ~OMPI_OSC_NEWRMA_PKT_FLAG_UNLOCKED;
        if (NULL != dt &&
            (!fetch || NULL != (result = ompi_osc_newrma_ucx_am_buffer(0, pkt->hdr.len)))) {
            ret = acc_apply_hdr(module, &pkt->hdr, dt, (int) pkt->hdr.count,
                                pkt->payload + pkt->hdr.desc_len, result);
        }
    }
    if (OMPI_SUCCESS != ret) {
        OSC_NEWRMA_VERBOSE(1, "cannot apply an accumulate of rank %d: %d", pkt->hdr.src, ret);
    }
    if (fetch && acc_answer_rndv(module, pkt, ret, result)) {
        result = NULL; /* the answer's now */
    } else if (fetch) {
        /* answered even when it failed, so the origin is not left waiting */
        ompi_osc_newrma_pkt_answer(module, pkt, OMPI_OSC_NEWRMA_PKT_ACC_REPLY, ret,
                                   OMPI_SUCCESS == ret ? result : NULL);
    }
    if (fetch && unlocked) {
        acc_answer_head(module, pkt, ret, NULL, 0); /* its origin counts on two */
    }
    ompi_osc_newrma_ucx_am_buffer_free(result);
    ompi_osc_newrma_dtype_release(dt);
    /* the origin's RMA_DONE or UNLOCK reports the failure */
    ompi_osc_newrma_pkt_count_applied(module, pkt, ret);
}

/* What an ACCS packet's records are applied with: its window, op and type. */
typedef struct {
    ompi_osc_newrma_module_t *module;
    const ompi_osc_newrma_pkt_hdr_t *hdr;
    ompi_op_t *op;
    ompi_datatype_t *basic;
} accs_apply_t;

static int accs_rec(void *ctx, const ompi_osc_newrma_pkt_rec_t *rec, const char *data)
{
    const accs_apply_t *a = ctx;

    return acc_apply_contig(a->module, OMPI_OSC_NEWRMA_OP_ACC, a->hdr->acc_op, a->hdr->acc_dt,
                            a->op, a->basic, rec->addr, data, rec->len, NULL);
}

/* Target side: an ACCS packet (agent), record by record in order, as the
 * ACC packets they stand for.  A malformed packet stops at its first bad
 * record; the count is applied even then, the failure going to the
 * origin's RMA_DONE or UNLOCK (as pkt_handle_puts). */
static void accs_handle(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    accs_apply_t a = {module, &pkt->hdr, PMPI_Op_f2c(pkt->hdr.acc_op),
                      PMPI_Type_f2c(pkt->hdr.acc_dt)};
    int ret;

    if (module->mbox_polled) {
        ompi_osc_newrma_shm_mbox_settle(module, acc_mbox_apply); /* as acc_handle */
    }
    ret = ompi_osc_newrma_pkt_recs_apply(pkt, accs_rec, &a);
    if (OMPI_SUCCESS != ret) {
        OSC_NEWRMA_VERBOSE(1, "cannot apply an ACCS packet from rank %d: %d", pkt->hdr.src, ret);
    }
    ompi_osc_newrma_pkt_count_applied_n(module, pkt, pkt->hdr.count, ret);
}

void ompi_osc_newrma_acc_register_handlers(ompi_osc_newrma_shm_mbox_apply_fn_t mbox_apply)
{
    acc_mbox_apply = mbox_apply;
    ompi_osc_newrma_pkt_handler_register(OMPI_OSC_NEWRMA_PKT_ACC, acc_handle);
    ompi_osc_newrma_pkt_handler_register(OMPI_OSC_NEWRMA_PKT_ACCS, accs_handle);
    ompi_osc_newrma_pkt_lands_register(acc_lands_now);
}
