/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma statistics: counters per window, read per window and per
 * process through MPI_T performance variables (osc_newrma_<name> and
 * osc_newrma_win_<name>, bound to MPI_Win) and printed at MPI_Win_free with
 * --mca osc_newrma_stats 1.
 *
 * Counters are plain increments of the window's own array, on the paths
 * that already hold the window (the node-local fast path included: one add,
 * no atomic).  Under MPI_THREAD_MULTIPLE, threads issuing on one window at
 * once may lose increments: the counts are then a lower bound.
 */
#ifndef OSC_NEWRMA_STATS_H
#define OSC_NEWRMA_STATS_H

#include <stdint.h>
#include <time.h>

#include "osc_newrma_base_types.h"

typedef enum {
    /* operations by the path that carried them */
    OMPI_OSC_NEWRMA_STAT_OPS_DIRECT = 0, /**< load/store or memcpy (self, node-local) */
    OMPI_OSC_NEWRMA_STAT_OPS_RDMA,       /**< UCX put/get */
    OMPI_OSC_NEWRMA_STAT_OPS_PACKET,     /**< active-message packets */
    OMPI_OSC_NEWRMA_STAT_OPS_ATOMIC,     /**< UCX atomics */
    OMPI_OSC_NEWRMA_STAT_OPS_MAILBOX,    /**< a node-local target's mailbox slot */
    /* operations by kind, in ompi_osc_newrma_op_kind_t order */
    OMPI_OSC_NEWRMA_STAT_OPS_PUT,
    OMPI_OSC_NEWRMA_STAT_OPS_GET,
    OMPI_OSC_NEWRMA_STAT_OPS_ACC,
    OMPI_OSC_NEWRMA_STAT_OPS_GET_ACC,
    OMPI_OSC_NEWRMA_STAT_OPS_CAS,
    OMPI_OSC_NEWRMA_STAT_BYTES,
    OMPI_OSC_NEWRMA_STAT_SINGLE_OP_EPOCHS,
    OMPI_OSC_NEWRMA_STAT_SINGLE_OP_RESENT, /**< of them, data sent again after the grant */
    OMPI_OSC_NEWRMA_STAT_PIGGYBACKED,
    OMPI_OSC_NEWRMA_STAT_PACKETS_AGGREGATED,
    OMPI_OSC_NEWRMA_STAT_PACKED_AT_CALL,     /**< PUTs aggregated without an op element */
    OMPI_OSC_NEWRMA_STAT_ACC_RECORDS,        /**< of them, accumulates as ACCS records */
    OMPI_OSC_NEWRMA_STAT_GET_RECORDS,        /**< of them, GETs as GETS records */
    OMPI_OSC_NEWRMA_STAT_MAILBOX_AT_CALL,    /**< accesses posted to a mailbox without one */
    OMPI_OSC_NEWRMA_STAT_RDMA_AT_CALL,       /**< GETs and PUTs by RDMA without one */
    OMPI_OSC_NEWRMA_STAT_COPY_AT_CALL,       /**< GETs and PUTs copied without one */
    OMPI_OSC_NEWRMA_STAT_COPIES_SHARED,      /**< cross-memory copies the target's agent shared */
    OMPI_OSC_NEWRMA_STAT_CHUNKS_BY_TARGET,   /**< their chunks the agent copied */
    OMPI_OSC_NEWRMA_STAT_REDUCED_BY_REF,     /**< reductions whose operands the target read */
    OMPI_OSC_NEWRMA_STAT_STREAM_PARTS_BACK,  /**< mailbox stream parts the origin moved */
    OMPI_OSC_NEWRMA_STAT_READS_AGAIN,        /**< MPI_NO_OP reads read again under the lock */
    OMPI_OSC_NEWRMA_STAT_READS_UNLOCKED,     /**< MPI_NO_OP reads answered without the lock */
    OMPI_OSC_NEWRMA_STAT_READS_SPLIT,        /**< of them, the head in the second answer */
    OMPI_OSC_NEWRMA_STAT_REPLACES_IN_WINDOW, /**< MPI_REPLACEs landed in the window */
    OMPI_OSC_NEWRMA_STAT_LANDED_BESIDE,      /**< rendezvous landings beside others */
    OMPI_OSC_NEWRMA_STAT_MESSAGES,
    OMPI_OSC_NEWRMA_STAT_PACKETS_IN_PLACE, /**< received packets handled in UCX's buffer */
    OMPI_OSC_NEWRMA_STAT_LOCK_WAITS,
    OMPI_OSC_NEWRMA_STAT_LOCK_WAIT_NS,
    OMPI_OSC_NEWRMA_STAT_LOCK_TRIES,
    OMPI_OSC_NEWRMA_STAT_LOCK_TRY_BACKOFFS,
    OMPI_OSC_NEWRMA_STAT_POOL_MISSES,
    OMPI_OSC_NEWRMA_STAT_AGGRESSIVE_CLEANUPS,
    OMPI_OSC_NEWRMA_STAT_PEER_QUERIES,    /**< first accesses that asked a peer for its window */
    OMPI_OSC_NEWRMA_STAT_SEGMENTS_REUSED, /**< windows made in a freed window's shared segment */
    OMPI_OSC_NEWRMA_STAT_MAX
} ompi_osc_newrma_stat_t;

typedef struct {
    uint64_t c[OMPI_OSC_NEWRMA_STAT_MAX];
} ompi_osc_newrma_stats_t;

#define OMPI_OSC_NEWRMA_STAT_ADD(module, name, n)                                                  \
    ((module)->stats.c[OMPI_OSC_NEWRMA_STAT_##name] += (uint64_t) (n))

/** One operation of @p kind and @p bytes issued on @p path. */
static inline void ompi_osc_newrma_stat_op(ompi_osc_newrma_stats_t *stats,
                                           ompi_osc_newrma_op_kind_t kind,
                                           ompi_osc_newrma_stat_t path, size_t bytes)
{
    stats->c[path]++;
    stats->c[OMPI_OSC_NEWRMA_STAT_OPS_PUT + kind]++;
    stats->c[OMPI_OSC_NEWRMA_STAT_BYTES] += bytes;
}

/** Monotonic nanoseconds, for the lock wait timer (inline: the target's
 * lock queue reads it without depending on the MPI_T code). */
static inline uint64_t ompi_osc_newrma_stats_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

/** Register the MPI_T performance variables (component registration). */
int ompi_osc_newrma_stats_register(void);

/** @p module's counters, pool misses included. */
void ompi_osc_newrma_stats_read(ompi_osc_newrma_module_t *module, ompi_osc_newrma_stats_t *out);

/** Caller holds windows_lock and takes @p module out of component.windows:
 * its counts join the process totals. */
void ompi_osc_newrma_stats_retire(ompi_osc_newrma_module_t *module);

/** At MPI_Win_free, collectively: add the window's counters to the
 * process totals, and with osc_newrma_stats print rank 0's table of the
 * window's counters summed over its ranks. */
int ompi_osc_newrma_stats_window_done(ompi_osc_newrma_module_t *module);

#endif
