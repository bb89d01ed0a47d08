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
#include "osc_newrma_base_dtype.h"
#include "osc_newrma_target_acc.h"
#include "osc_newrma_transport_ucx.h"

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

int ompi_osc_newrma_acc_apply_mbox(ompi_osc_newrma_module_t *module,
                                   struct ompi_osc_newrma_shm_mbox_t *slot, char *data)
{
    ompi_osc_newrma_pkt_hdr_t hdr = {0};
    ompi_datatype_t *basic = PMPI_Type_f2c(slot->acc_dt);
    char *result = ompi_osc_newrma_shm_mbox_result(data, slot);

    /* the plain rule's common case without the datatype walk: about 600
     * instructions of a one-element FETCH_AND_OP's 700 went there */
    if (ompi_osc_newrma_acc_plain(module) && NULL != basic && MPI_DATATYPE_NULL != basic) {
        ompi_op_t *op = PMPI_Op_f2c(slot->acc_op);
        char *target = (char *) (uintptr_t) slot->addr;

        if (OMPI_OSC_NEWRMA_OP_CAS == slot->kind &&
            ompi_osc_newrma_acc_cas_contig(basic, target, data, data + slot->len, result,
                                           &module->my_lock->acc_lock)) {
            return OMPI_SUCCESS;
        }
        if (NULL != op && MPI_OP_NULL != op &&
            ompi_osc_newrma_acc_contig((ompi_osc_newrma_op_kind_t) slot->kind, op, basic, target,
                                       ompi_osc_newrma_acc_is_no_op(op) ? NULL : data,
                                       slot->fetch ? result : NULL, slot->len,
                                       &module->my_lock->acc_lock)) {
            return OMPI_SUCCESS;
        }
    }
    hdr.kind = slot->kind;
    hdr.acc_op = slot->acc_op;
    hdr.acc_dt = slot->acc_dt;
    hdr.addr = slot->addr;
    hdr.len = slot->len;
    hdr.flags = slot->fetch ? OMPI_OSC_NEWRMA_PKT_FLAG_GET : 0;
    return ompi_osc_newrma_acc_apply_single(module, &hdr, data, result);
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

/* Target side: an ACC packet (agent).  The old values of a fetching one
 * go to a buffer of the transport's pool, not one malloc'd per packet: a
 * chunk is up to 64 KiB, and glibc giving the heap's top back after each
 * (a TLB shootdown) made a 128 KiB GET_ACCUMULATE ten times slower. */
static void acc_handle(ompi_osc_newrma_module_t *module, ompi_osc_newrma_pkt_t *pkt)
{
    bool fetch = pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_GET;
    ompi_datatype_t *dt = NULL;
    char *result = NULL;
    int ret = OMPI_SUCCESS;

    if (pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_SENT) {
        /* its answer by rendezvous was read; the packet counted already */
        if (OMPI_SUCCESS != pkt->hdr.status) {
            OSC_NEWRMA_VERBOSE(1, "cannot answer an accumulate of rank %d: %d", pkt->hdr.src,
                               pkt->hdr.status);
        }
        return;
    }
    if (pkt->hdr.flags & OMPI_OSC_NEWRMA_PKT_FLAG_LANDED) {
        ret = pkt->hdr.status;
    } else if (ompi_osc_newrma_pkt_test_fail()) {
        ret = OMPI_ERROR; /* a rendezvous payload is cancelled with the packet */
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
        if (NULL != (dt = ompi_osc_newrma_pkt_datatype(module, pkt)) &&
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
    ompi_osc_newrma_ucx_am_buffer_free(result);
    ompi_osc_newrma_dtype_release(dt);
    /* the origin's RMA_DONE or UNLOCK reports the failure */
    ompi_osc_newrma_pkt_count_applied(module, pkt, ret);
}

void ompi_osc_newrma_acc_register_handlers(void)
{
    ompi_osc_newrma_pkt_handler_register(OMPI_OSC_NEWRMA_PKT_ACC, acc_handle);
}
