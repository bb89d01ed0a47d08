/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * The run-time check of the mutex order (osc_newrma_base_mutex.h), built with
 * --enable-debug only: per thread, how many mutexes of each class it holds.
 */

#include "ompi_config.h"

#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>

#include "osc_newrma_base_mutex.h"

#ifdef OSC_NEWRMA_LOCK_CHECK

static const char *const mutex_names[OMPI_OSC_NEWRMA_MUTEX_CLASSES] = {
    "WINDOWS (component.windows_lock)",
    "WINDOW (module->lock)",
    "AM (module->am_lock)",
    "QUEUE (module->lock_queue_lock)",
    "ATTACHED (module->attached_lock)",
    "COMPONENT (component.lock)",
    "LOOKUP (component.modules_lock)",
    "INBOX (component.inbox_lock)",
    "POOL (a global pool's lock)",
    "PEERS (module->peers_lock)",
};

static __thread int mutex_held_count[OMPI_OSC_NEWRMA_MUTEX_CLASSES];

static void mutex_backtrace(void)
{
    void *frames[32];
    int n = backtrace(frames, 32);

    backtrace_symbols_fd(frames, n, 2);
}

void ompi_osc_newrma_mutex_check(ompi_osc_newrma_mutex_class_t cls)
{
    for (int held = (int) cls; held < OMPI_OSC_NEWRMA_MUTEX_CLASSES; ++held) {
        if (mutex_held_count[held] > 0) {
            fprintf(stderr,
                    "osc/newrma: mutex order broken: blocking on %s while holding %s "
                    "(osc_newrma_base_mutex.h)\n",
                    mutex_names[cls], mutex_names[held]);
            mutex_backtrace();
            abort();
        }
    }
}

void ompi_osc_newrma_mutex_held(ompi_osc_newrma_mutex_class_t cls, int delta)
{
    mutex_held_count[cls] += delta;
    if (mutex_held_count[cls] < 0) {
        fprintf(stderr, "osc/newrma: %s released more often than taken\n", mutex_names[cls]);
        abort();
    }
}

#endif /* OSC_NEWRMA_LOCK_CHECK */
