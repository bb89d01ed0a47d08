/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * Helpers shared by the client programs (Global Arrays and ARMCI-MPI on
 * osc/newrma): the MPI tests' checks plus
 * - client_expect(): the value a check compares against, off by one when
 *   NEWRMA_CLIENT_BREAK is set, so that a run shows each program can fail
 *   (tests/sh/clients_break.sh);
 * - client_result(): a "result NAME VALUE" line from rank 0, which the test
 *   runner compares between osc/newrma and the reference component.
 * Every value the programs move is an integer stored in a double or a
 * long, so sums do not depend on the order in which accumulates land and
 * the result lines are identical under any correct component.
 */
#ifndef OSC_NEWRMA_CLIENT_H
#define OSC_NEWRMA_CLIENT_H

#include "../mpi/mtest.h"

static int client_break = -1;

static double client_expect(double value)
{
    if (client_break < 0) {
        const char *env = getenv("NEWRMA_CLIENT_BREAK");
        client_break = (NULL != env && '1' == env[0]);
    }
    return client_break ? value + 1.0 : value;
}

static void client_result(const char *name, double value)
{
    if (0 == mtest_rank) {
        printf("result %s %.17g\n", name, value);
        fflush(stdout);
    }
}

#endif
