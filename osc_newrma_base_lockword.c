/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: the lock word (see osc_newrma_base_lockword.h).
 */
#include "ompi_config.h"

#include "mpi.h"
#include "opal/sys/atomic.h"

#include "osc_newrma_base_lockword.h"

/* ---- the ticket reader-writer lock ----
 *
 * A writer with ticket t holds the lock when write == t; a reader with
 * ticket t enters when read == t and then lets the next ticket's reader in
 * (read++).  A reader leaving does write++; a writer leaving does read++ and
 * write++.  Tickets are served strictly in the order they were drawn. */

int32_t ompi_osc_newrma_lockword_ticket(ompi_osc_newrma_lockword_t *word)
{
    return opal_atomic_fetch_add_32(&word->users, 1);
}

bool ompi_osc_newrma_lockword_try_enter(ompi_osc_newrma_lockword_t *word, int lock_type,
                                        int32_t ticket)
{
    if (MPI_LOCK_EXCLUSIVE == lock_type) {
        if (word->write != ticket) {
            return false;
        }
    } else {
        if (word->read != ticket) {
            return false;
        }
        opal_atomic_add_fetch_32(&word->read, 1);
    }
    /* MEM_SYNC after PROC_SYNC (lock granted): an acquire fence keeps the
     * epoch's loads and stores after the check; a full barrier is not needed */
    opal_atomic_rmb();
    return true;
}

/* The next ticket would enter at once (every earlier one has entered, and a
 * writer also needs them released): draw it only then.  If the CAS wins,
 * the counter that was equal to it cannot move before this ticket enters. */
bool ompi_osc_newrma_lockword_try_lock(ompi_osc_newrma_lockword_t *word, int lock_type)
{
    int32_t next = word->users;
    int32_t served = MPI_LOCK_EXCLUSIVE == lock_type ? word->write : word->read;

    if (served != next || !opal_atomic_compare_exchange_strong_32(&word->users, &next, next + 1)) {
        return false;
    }
    return ompi_osc_newrma_lockword_try_enter(word, lock_type, next);
}

void ompi_osc_newrma_lockword_release(ompi_osc_newrma_lockword_t *word, int lock_type)
{
    /* MEM_SYNC before PROC_SYNC (lock released): a release fence keeps the
     * epoch's loads and stores before the counter updates below */
    opal_atomic_wmb();
    if (MPI_LOCK_EXCLUSIVE == lock_type) {
        opal_atomic_add_fetch_32(&word->read, 1);
    }
    opal_atomic_add_fetch_32(&word->write, 1);
}

bool ompi_osc_newrma_lockword_idle(ompi_osc_newrma_lockword_t *word)
{
    return word->users == word->write;
}
