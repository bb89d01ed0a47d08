/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: small operations through a node-local target's mailbox
 * (osc_newrma_mailbox), the target's side: what its agent does with a
 * posted slot (osc_newrma_origin_mbox.h says how ops get there).
 */
#ifndef OMPI_OSC_NEWRMA_TARGET_MBOX_H
#define OMPI_OSC_NEWRMA_TARGET_MBOX_H

#include "ompi_config.h"

#include "osc_newrma_base_types.h"

struct ompi_osc_newrma_shm_mbox_t;

/** The agent's poll: apply one posted slot of mine (a PUT's bytes copied
 * in, a GET's out, an accumulate as its ACC packet would be; a shared
 * copy's chunks that its origin has not taken yet).  @return the status
 * its origin reads. */
int ompi_osc_newrma_mbox_apply(ompi_osc_newrma_module_t *module,
                               struct ompi_osc_newrma_shm_mbox_t *slot);

#endif /* OMPI_OSC_NEWRMA_TARGET_MBOX_H */
