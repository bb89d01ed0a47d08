/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: REGION_QUERY / REGION_REPLY (what a peer's window, or the
 * attached memory of its dynamic window, is: base, size, displacement
 * unit, rkey) and REGION_FORGET (a detach that origins must honour).
 */
#ifndef OMPI_OSC_NEWRMA_AM_REGION_H
#define OMPI_OSC_NEWRMA_AM_REGION_H

#include "ompi_config.h"

#include "osc_newrma_am_pkt.h"
#include "osc_newrma_base_types.h"

struct ompi_datatype_t;

/** What an origin waits on while its REGION_QUERY is answered. */
typedef struct {
    volatile bool done;
    int status;
    uint64_t base;
    uint64_t len;
    /** a window's query (not dynamic): the target's displacement unit */
    int disp_unit;
    /** NULL when the target has no registration to offer */
    void *rkey_packed;
} ompi_osc_newrma_region_query_t;

/**
 * Ask @p target which of its attached regions holds [addr, addr+len) and wait
 * for the answer (window lock held; released while waiting).
 * @return OMPI_SUCCESS with @p query filled, or OMPI_ERR_RMA_RANGE.
 */
int ompi_osc_newrma_pkt_region_query(ompi_osc_newrma_module_t *module, int target, uint64_t addr,
                                     uint64_t len, ompi_osc_newrma_region_query_t *query);

/**
 * Target side of MPI_Win_detach: tell @p ranks (@p count of them) to forget
 * [addr, addr+len) and wait until each has (window lock held; released
 * while waiting).
 */
int ompi_osc_newrma_pkt_region_forget(ompi_osc_newrma_module_t *module, const int *ranks, int count,
                                      uint64_t addr, uint64_t len);

/** Register the region packets' handlers (component init). */
void ompi_osc_newrma_pkt_region_register_handlers(void);

#endif /* OMPI_OSC_NEWRMA_AM_REGION_H */
