/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: the target's side of the accumulate family: ACC packets and
 * single-op accumulates applied by its agent, under the window's atomicity
 * rule (osc_newrma_base_acc.h).
 */
#ifndef OMPI_OSC_NEWRMA_TARGET_ACC_H
#define OMPI_OSC_NEWRMA_TARGET_ACC_H

#include "ompi_config.h"

#include "osc_newrma_base_types.h"
#include "osc_newrma_transport_shm.h"

struct ompi_osc_newrma_pkt_hdr_t;

/**
 * Target side: apply the accumulate a packet header describes to
 * @p len bytes of basic elements at hdr->addr (single op), storing the old
 * values in @p result when it fetches.
 */
int ompi_osc_newrma_acc_apply_single(ompi_osc_newrma_module_t *module,
                                     const struct ompi_osc_newrma_pkt_hdr_t *hdr, const char *data,
                                     char *result);

/** Target side: apply the accumulate of a mailbox slot of mine, whose
 * operands are at @p data (ompi_osc_newrma_mbox_apply, which counted it for
 * osc_newrma_test_fail_packet).  @return its status. */
int ompi_osc_newrma_acc_apply_mbox(ompi_osc_newrma_module_t *module,
                                   struct ompi_osc_newrma_shm_mbox_t *slot, char *data);

/** Target side: as ompi_osc_newrma_acc_apply_mbox, for a slot whose
 * operands stay at its origin (OMPI_OSC_NEWRMA_SHM_MBOX_BY_REF, @p data the
 * ompi_osc_newrma_shm_mbox_ref_t): read by cross-memory copies a block at a
 * time and reduced into the window while the block is in the L2 cache.
 * @return its status; OMPI_ERR_NOT_AVAILABLE, having changed nothing, when
 * the origin's process cannot be read (the origin applies it itself). */
int ompi_osc_newrma_acc_apply_mbox_ref(ompi_osc_newrma_module_t *module,
                                       struct ompi_osc_newrma_shm_mbox_t *slot, const char *data);

/** The agent's part of a reduction its origin shares with it on a window
 * in the node's segment (OMPI_OSC_NEWRMA_SHM_MBOX_SHARE of an ACC): the
 * chunks nobody has taken, each read from the origin (process @p pid) by
 * cross-memory copies and reduced into @p mine, this process's mapping of
 * the access, without the accumulate lock, which the origin holds
 * throughout; a fetching one's (OMPI_OSC_NEWRMA_SHM_MBOX_FETCH) old values
 * written to the origin's result buffer first.  A copy that fails stops it
 * there (share->failed, ->undone): the origin reduces the rest of that
 * chunk. */
void ompi_osc_newrma_acc_apply_share(struct ompi_osc_newrma_shm_mbox_t *slot, int32_t pid,
                                     char *mine);

/** Register the ACC packet handler with the packet layer (component
 * init); @p mbox_apply applies a slot of the target's mailbox, which the
 * handler does for the posted ones before an accumulate packet. */
void ompi_osc_newrma_acc_register_handlers(ompi_osc_newrma_shm_mbox_apply_fn_t mbox_apply);

#endif /* OMPI_OSC_NEWRMA_TARGET_ACC_H */
