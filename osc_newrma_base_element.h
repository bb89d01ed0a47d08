/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: taking and returning the operation table's elements (design:
 * "Operation and Target Element Pools").  An element comes from the
 * window's pool, then the global pool; when both are empty,
 * CLEANUP_WIN_AGGRESSIVE frees one.  That cleanup issues and retires
 * operations, which is the progress engine's work: it is reached through
 * the engine's registration with the wait service (osc_newrma_base_wait.h), so
 * this base-layer file calls nothing above it.  The caller holds the window
 * lock.
 */
#ifndef OMPI_OSC_NEWRMA_BASE_ELEMENT_H
#define OMPI_OSC_NEWRMA_BASE_ELEMENT_H

#include "osc_newrma_base_types.h"

/** Take an op element (local pool, global pool, then aggressive cleanup). */
int ompi_osc_newrma_op_alloc(ompi_osc_newrma_module_t *module, ompi_osc_newrma_op_t **op_p);

/** Find @p rank's target element or create one (same resource order). */
int ompi_osc_newrma_target_get(ompi_osc_newrma_module_t *module, int rank,
                               ompi_osc_newrma_target_t **target_p);

/** Create @p rank's target element only if one is free without cleanup.
 * @return OMPI_ERR_OUT_OF_RESOURCE when both pools are empty */
int ompi_osc_newrma_target_try_get(ompi_osc_newrma_module_t *module, int rank,
                                   ompi_osc_newrma_target_t **target_p);

/** Take a target element with an empty op list out of the table and back
 * to the pools.  Its aggregated packets must be gone already
 * (ompi_osc_newrma_pkt_target_release sends them first). */
void ompi_osc_newrma_target_put(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target);

#endif /* OMPI_OSC_NEWRMA_BASE_ELEMENT_H */
