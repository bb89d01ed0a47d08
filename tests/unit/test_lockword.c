/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/* Unit test of the lock word: ticket order, and the try-lock that a
 * parallel lock request uses (it takes the lock only when it would not
 * wait, and leaves no ticket behind when it does not). */
#include "ompi_config.h"

#include <string.h>

#include "mpi.h"

#include "osc_newrma_base_lockword.h"
#include "unit.h"

#define EXCL   MPI_LOCK_EXCLUSIVE
#define SHARED MPI_LOCK_SHARED

static ompi_osc_newrma_lockword_t word;

static void try_lock_alone(void)
{
    memset(&word, 0, sizeof(word));
    CHECK(ompi_osc_newrma_lockword_try_lock(&word, EXCL));
    CHECK(!ompi_osc_newrma_lockword_try_lock(&word, EXCL));
    CHECK(!ompi_osc_newrma_lockword_try_lock(&word, SHARED));
    CHECK(1 == word.users); /* the refusals drew nothing */
    ompi_osc_newrma_lockword_release(&word, EXCL);
    CHECK(ompi_osc_newrma_lockword_idle(&word));

    /* shared holders share; an exclusive try fails until both leave */
    CHECK(ompi_osc_newrma_lockword_try_lock(&word, SHARED));
    CHECK(ompi_osc_newrma_lockword_try_lock(&word, SHARED));
    CHECK(!ompi_osc_newrma_lockword_try_lock(&word, EXCL));
    ompi_osc_newrma_lockword_release(&word, SHARED);
    CHECK(!ompi_osc_newrma_lockword_try_lock(&word, EXCL));
    ompi_osc_newrma_lockword_release(&word, SHARED);
    CHECK(ompi_osc_newrma_lockword_try_lock(&word, EXCL));
    ompi_osc_newrma_lockword_release(&word, EXCL);
    CHECK(ompi_osc_newrma_lockword_idle(&word));
}

/* A try never overtakes a ticket that waits, even a shared try behind a
 * waiting exclusive ticket while readers hold the lock. */
static void try_lock_behind_waiter(void)
{
    int32_t reader, writer;

    memset(&word, 0, sizeof(word));
    reader = ompi_osc_newrma_lockword_ticket(&word);
    CHECK(ompi_osc_newrma_lockword_try_enter(&word, SHARED, reader));
    writer = ompi_osc_newrma_lockword_ticket(&word);
    CHECK(!ompi_osc_newrma_lockword_try_enter(&word, EXCL, writer));
    CHECK(!ompi_osc_newrma_lockword_try_lock(&word, SHARED));
    CHECK(!ompi_osc_newrma_lockword_try_lock(&word, EXCL));
    CHECK(2 == word.users);
    ompi_osc_newrma_lockword_release(&word, SHARED);
    CHECK(ompi_osc_newrma_lockword_try_enter(&word, EXCL, writer));
    CHECK(!ompi_osc_newrma_lockword_try_lock(&word, SHARED));
    ompi_osc_newrma_lockword_release(&word, EXCL);
    /* a ticket drawn after a try-lock waits for it like any other */
    CHECK(ompi_osc_newrma_lockword_try_lock(&word, SHARED));
    writer = ompi_osc_newrma_lockword_ticket(&word);
    CHECK(!ompi_osc_newrma_lockword_try_enter(&word, EXCL, writer));
    ompi_osc_newrma_lockword_release(&word, SHARED);
    CHECK(ompi_osc_newrma_lockword_try_enter(&word, EXCL, writer));
    ompi_osc_newrma_lockword_release(&word, EXCL);
    CHECK(ompi_osc_newrma_lockword_idle(&word));
}

int main(void)
{
    try_lock_alone();
    try_lock_behind_waiter();
    return unit_finish("test_lockword");
}
