/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: passive target synchronization at the origin (see
 * osc_newrma_origin_passive.c).  All functions need the window lock.
 */
#ifndef OMPI_OSC_NEWRMA_ORIGIN_PASSIVE_H
#define OMPI_OSC_NEWRMA_ORIGIN_PASSIVE_H

#include "osc_newrma_base_types.h"

/** May a passive epoch access @p rank?  In LOCK_ALL_CALLED a direct target
 * is locked here on first use.  @return OMPI_ERR_RMA_SYNC when not locked */
int ompi_osc_newrma_passive_check_target(ompi_osc_newrma_module_t *module, int rank);

/** @p rank's target element in a passive epoch: existing, recreated in
 * LOCK_GRANTED, or new (LOCK_ALL_CALLED falls back to the window protocol
 * when elements run out). */
int ompi_osc_newrma_passive_target_get(ompi_osc_newrma_module_t *module, int rank,
                                       ompi_osc_newrma_target_t **target_p);

/** RMA_OP in LOCK_CALLED: keep a lone short op for the single-op packet,
 * otherwise send the LOCK request now. */
int ompi_osc_newrma_passive_op_queued(ompi_osc_newrma_module_t *module,
                                      ompi_osc_newrma_target_t *target, ompi_osc_newrma_op_t *op);

/** Send the LOCK request of @p target (LOCK_CALLED -> LOCK_ISSUED). */
int ompi_osc_newrma_passive_issue_lock(ompi_osc_newrma_module_t *module,
                                       ompi_osc_newrma_target_t *target);

/** LOCK_ISSUED -> LOCK_GRANTED once the LOCK_GRANTED packet arrived (a
 * try's grant once the earlier locks are held; a refused try back to
 * LOCK_CALLED), and the next LOCK requests out. */
int ompi_osc_newrma_passive_update(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_target_t *target);

/** RMA_DONE + UNLOCK behind the last op (ISSUE_OPS_TARGET with UNLOCK). */
int ompi_osc_newrma_passive_send_unlock(ompi_osc_newrma_module_t *module,
                                        ompi_osc_newrma_target_t *target);

/** One op of a basic datatype within single_op_threshold (to a peer
 * reached over TCP single_op_emulated_threshold), no request. */
bool ompi_osc_newrma_op_single_eligible(ompi_osc_newrma_module_t *module,
                                        const ompi_osc_newrma_target_t *target,
                                        ompi_osc_newrma_op_t *op);

#endif /* OMPI_OSC_NEWRMA_ORIGIN_PASSIVE_H */
