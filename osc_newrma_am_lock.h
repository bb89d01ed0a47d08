/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: LOCK and UNLOCK requests at the origin, and the answers to
 * them (LOCK_GRANTED, SINGLE_ACK).
 */
#ifndef OMPI_OSC_NEWRMA_AM_LOCK_H
#define OMPI_OSC_NEWRMA_AM_LOCK_H

#include "ompi_config.h"

#include "osc_newrma_am_pkt.h"
#include "osc_newrma_base_types.h"

struct ompi_datatype_t;

/** Send RMA_DONE + UNLOCK to @p rank for a lock of @p lock_type; @p target
 * (or NULL: the window) counts the acknowledgement. */
int ompi_osc_newrma_pkt_unlock(ompi_osc_newrma_module_t *module, int rank, int lock_type,
                               ompi_osc_newrma_target_t *target);

/** Send a LOCK request to @p rank; its LOCK_GRANTED reaches @p target (or,
 * NULL, decrements module->lock_all_pending).  @p try: the target grants
 * only a free lock and otherwise refuses, without queueing the request. */
int ompi_osc_newrma_pkt_lock(ompi_osc_newrma_module_t *module, int rank, int lock_type,
                             ompi_osc_newrma_target_t *target, bool try);

/** Register the LOCK_GRANTED and SINGLE_ACK handlers (component init). */
void ompi_osc_newrma_pkt_lock_register_handlers(void);

#endif /* OMPI_OSC_NEWRMA_AM_LOCK_H */
