/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma mutex classes, in the order written in osc_newrma.h ("Lock
 * order"), and the wrappers that check it in a --enable-debug build.
 */

#ifndef OMPI_OSC_NEWRMA_BASE_MUTEX_H
#define OMPI_OSC_NEWRMA_BASE_MUTEX_H

#include "ompi_config.h"

#include <stdbool.h>

#include "opal/threads/mutex.h"

BEGIN_C_DECLS

typedef enum {
    OMPI_OSC_NEWRMA_MUTEX_WINDOWS,
    OMPI_OSC_NEWRMA_MUTEX_WINDOW,
    OMPI_OSC_NEWRMA_MUTEX_AM,
    OMPI_OSC_NEWRMA_MUTEX_QUEUE,
    OMPI_OSC_NEWRMA_MUTEX_ATTACHED,
    OMPI_OSC_NEWRMA_MUTEX_COMPONENT,
    OMPI_OSC_NEWRMA_MUTEX_LOOKUP,
    OMPI_OSC_NEWRMA_MUTEX_INBOX,
    OMPI_OSC_NEWRMA_MUTEX_POOL,
    OMPI_OSC_NEWRMA_MUTEX_PEERS,
    OMPI_OSC_NEWRMA_MUTEX_CLASSES
} ompi_osc_newrma_mutex_class_t;

#ifdef OSC_NEWRMA_LOCK_CHECK
/** A blocking acquisition of @p cls: aborts if this thread holds a mutex
 * of class @p cls or a later one. */
void ompi_osc_newrma_mutex_check(ompi_osc_newrma_mutex_class_t cls);
/** This thread now holds (@p delta 1) or released (-1) a mutex of @p cls. */
void ompi_osc_newrma_mutex_held(ompi_osc_newrma_mutex_class_t cls, int delta);
#else
static inline void ompi_osc_newrma_mutex_check(ompi_osc_newrma_mutex_class_t cls)
{
    (void) cls;
}
static inline void ompi_osc_newrma_mutex_held(ompi_osc_newrma_mutex_class_t cls, int delta)
{
    (void) cls;
    (void) delta;
}
#endif

static inline void ompi_osc_newrma_mutex_lock(opal_mutex_t *mutex,
                                              ompi_osc_newrma_mutex_class_t cls)
{
    ompi_osc_newrma_mutex_check(cls);
    opal_mutex_lock(mutex);
    ompi_osc_newrma_mutex_held(cls, 1);
}

static inline void ompi_osc_newrma_mutex_unlock(opal_mutex_t *mutex,
                                                ompi_osc_newrma_mutex_class_t cls)
{
    ompi_osc_newrma_mutex_held(cls, -1);
    opal_mutex_unlock(mutex);
}

/** @return true with @p mutex taken */
static inline bool ompi_osc_newrma_mutex_trylock(opal_mutex_t *mutex,
                                                 ompi_osc_newrma_mutex_class_t cls)
{
    if (0 != opal_mutex_trylock(mutex)) {
        return false;
    }
    ompi_osc_newrma_mutex_held(cls, 1);
    return true;
}

/* OPAL_THREAD_LOCK's kind: a mutex only once threads are in use (without
 * them there is nothing to order). */
static inline void ompi_osc_newrma_mutex_lock_mt(opal_mutex_t *mutex,
                                                 ompi_osc_newrma_mutex_class_t cls)
{
    if (opal_using_threads()) {
        ompi_osc_newrma_mutex_lock(mutex, cls);
    }
}

static inline void ompi_osc_newrma_mutex_unlock_mt(opal_mutex_t *mutex,
                                                   ompi_osc_newrma_mutex_class_t cls)
{
    if (opal_using_threads()) {
        ompi_osc_newrma_mutex_unlock(mutex, cls);
    }
}

END_C_DECLS

#endif /* OMPI_OSC_NEWRMA_BASE_MUTEX_H */
