/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma statistics: MPI_T performance variables over the windows'
 * counters (osc_newrma_stats.h), and the table printed at MPI_Win_free.
 */
#include "osc_newrma.h"
#include "osc_newrma_base_mutex.h"
#include "osc_newrma_stats.h"

#include <inttypes.h>
#include <time.h>

#include "opal/mca/base/mca_base_pvar.h"

#define component mca_osc_newrma_component

typedef struct {
    const char *name;
    const char *help;
} stat_info_t;

static const stat_info_t stat_info[OMPI_OSC_NEWRMA_STAT_MAX] = {
    [OMPI_OSC_NEWRMA_STAT_OPS_DIRECT] = {"ops_direct",
                                         "Operations done with loads and stores (self, "
                                         "node-local peers through the shared segment)"},
    [OMPI_OSC_NEWRMA_STAT_OPS_RDMA] = {"ops_rdma", "Operations issued as UCX RDMA (put/get)"},
    [OMPI_OSC_NEWRMA_STAT_OPS_PACKET] = {"ops_packet",
                                         "Operations sent as active-message packets "
                                         "(aggregated, chunked, or with LOCK/UNLOCK)"},
    [OMPI_OSC_NEWRMA_STAT_OPS_ATOMIC] = {"ops_atomic", "Operations issued as UCX atomics"},
    [OMPI_OSC_NEWRMA_STAT_OPS_MAILBOX] = {"ops_mailbox",
                                          "Operations (PUT, GET, accumulates) handed to a "
                                          "node-local target's agent through its mailbox in the "
                                          "window's segment"},
    [OMPI_OSC_NEWRMA_STAT_OPS_PUT] = {"ops_put", "MPI_Put and MPI_Rput calls that moved data"},
    [OMPI_OSC_NEWRMA_STAT_OPS_GET] = {"ops_get", "MPI_Get and MPI_Rget calls that moved data"},
    [OMPI_OSC_NEWRMA_STAT_OPS_ACC] = {"ops_acc", "MPI_Accumulate and MPI_Raccumulate calls"},
    [OMPI_OSC_NEWRMA_STAT_OPS_GET_ACC] = {"ops_get_acc",
                                          "MPI_Get_accumulate, MPI_Rget_accumulate and "
                                          "MPI_Fetch_and_op calls"},
    [OMPI_OSC_NEWRMA_STAT_OPS_CAS] = {"ops_cas", "MPI_Compare_and_swap calls"},
    [OMPI_OSC_NEWRMA_STAT_BYTES] = {"bytes", "Bytes of target data the operations covered"},
    [OMPI_OSC_NEWRMA_STAT_SINGLE_OP_EPOCHS] = {"single_op_epochs",
                                               "Lock epochs sent as one message with their "
                                               "only operation (LOCK + op + UNLOCK)"},
    [OMPI_OSC_NEWRMA_STAT_SINGLE_OP_RESENT] = {"single_op_resent",
                                               "Of single_op_epochs, those whose data the "
                                               "target did not keep while the lock was "
                                               "another's (beyond lock_data_bytes) and the "
                                               "origin sent again after the grant"},
    [OMPI_OSC_NEWRMA_STAT_PIGGYBACKED] = {"piggybacked",
                                          "RMA_DONE, UNLOCK and COMPLETE packets carried in "
                                          "the same message as operations"},
    [OMPI_OSC_NEWRMA_STAT_PACKETS_AGGREGATED] = {"packets_aggregated",
                                                 "Packets packed into aggregated messages"},
    [OMPI_OSC_NEWRMA_STAT_PACKED_AT_CALL] = {"packed_at_call",
                                             "Small PUTs (contiguous, or to a described "
                                             "target layout) and accumulates behind others to "
                                             "their target copied into its aggregated message, "
                                             "and small GETs requested in it, by the MPI call "
                                             "itself, without an operation element (counted "
                                             "in ops_packet too)"},
    [OMPI_OSC_NEWRMA_STAT_ACC_RECORDS] = {"acc_records",
                                          "MPI_Accumulates packed by the call as records of "
                                          "an ACCS packet (see acc_records; counted in "
                                          "packed_at_call too)"},
    [OMPI_OSC_NEWRMA_STAT_GET_RECORDS] = {"get_records",
                                          "MPI_Gets requested by the call as records of a "
                                          "GETS packet, answered by one GETS_REPLY (see "
                                          "get_records; counted in packed_at_call too)"},
    [OMPI_OSC_NEWRMA_STAT_MAILBOX_AT_CALL] = {"mailbox_at_call",
                                              "Small contiguous operations to an idle "
                                              "node-local target posted to its mailbox by the "
                                              "MPI call itself, without an operation element "
                                              "(counted in ops_mailbox too)"},
    [OMPI_OSC_NEWRMA_STAT_RDMA_AT_CALL] = {"rdma_at_call",
                                           "Contiguous GETs and PUTs that would go by UCX RDMA "
                                           "moved by MPI_Get or MPI_Put itself, without an "
                                           "operation element (counted in ops_rdma too)"},
    [OMPI_OSC_NEWRMA_STAT_COPY_AT_CALL] = {"copy_at_call",
                                           "Contiguous GETs, PUTs, MPI_REPLACEs and "
                                           "MPI_NO_OP reads to a node-local target moved by "
                                           "the cross-memory copy of the MPI call itself, "
                                           "without an operation element (counted in ops_rdma "
                                           "too)"},
    [OMPI_OSC_NEWRMA_STAT_COPIES_SHARED] = {"copies_shared",
                                            "Contiguous GETs and PUTs to a node-local target "
                                            "whose cross-memory copy its agent shared, copying "
                                            "the chunks the origin had not taken yet "
                                            "(osc_newrma_cma_share_bytes; counted at the "
                                            "origin)"},
    [OMPI_OSC_NEWRMA_STAT_CHUNKS_BY_TARGET] = {"chunks_by_target",
                                               "The chunks of those copies that the target's "
                                               "agent copied (osc_newrma_cma_share_chunk bytes "
                                               "each; counted at the origin)"},
    [OMPI_OSC_NEWRMA_STAT_REDUCED_BY_REF] = {"reduced_by_ref",
                                             "MPI_Accumulate reductions to a node-local target "
                                             "whose operands its agent read from the origin by "
                                             "cross-memory copies (osc_newrma_acc_stream_bytes; "
                                             "counted at the origin, in ops_mailbox too)"},
    [OMPI_OSC_NEWRMA_STAT_STREAM_PARTS_BACK] = {"stream_parts_back",
                                                "Parts of an accumulate streamed through a "
                                                "node-local target's mailbox that the origin "
                                                "moved itself, the target's agent having left "
                                                "them for 50 us (or unable to read them)"},
    [OMPI_OSC_NEWRMA_STAT_READS_AGAIN] = {"reads_again",
                                          "MPI_NO_OP reads without the target's accumulate "
                                          "lock during which an accumulate took that lock, "
                                          "read again under it: by UCX's transfer from a "
                                          "node-local peer (counted at the origin, read "
                                          "again by the cross-memory copy), or answered "
                                          "over TCP from the window (counted at the "
                                          "target, see read_unlocked)"},
    [OMPI_OSC_NEWRMA_STAT_READS_UNLOCKED] = {"reads_unlocked",
                                             "MPI_NO_OP chunks this target answered over TCP "
                                             "straight from its window without its accumulate "
                                             "lock (see read_unlocked), read again or not"},
    [OMPI_OSC_NEWRMA_STAT_READS_SPLIT] = {"reads_split",
                                          "Of reads_unlocked, those whose first bytes (up to "
                                          "a cache line) went with the second answer: window "
                                          "memory the kernel would copy slowly into the TCP "
                                          "socket (10-24 bytes into a page, as glibc's large "
                                          "malloc'd buffers)"},
    [OMPI_OSC_NEWRMA_STAT_REPLACES_IN_WINDOW] = {"replaces_in_window",
                                                 "MPI_REPLACE accumulates this target received "
                                                 "over TCP straight into its window under its "
                                                 "accumulate lock (see replace_in_window)"},
    [OMPI_OSC_NEWRMA_STAT_LANDED_BESIDE] = {"landed_beside",
                                            "Contiguous PUTs and MPI_REPLACEs this target "
                                            "received by rendezvous (over TCP) straight into "
                                            "its window while others of the same origin, or "
                                            "MPI_REPLACEs of any origin, still landed there "
                                            "(disjoint ranges; see replace_in_window)"},
    [OMPI_OSC_NEWRMA_STAT_MESSAGES] = {"messages", "Active messages sent"},
    [OMPI_OSC_NEWRMA_STAT_PACKETS_IN_PLACE] = {"packets_in_place",
                                               "Active messages of 4 KiB or more received "
                                               "into a buffer UCX takes back (TCP) and handled "
                                               "there, in UCX's receive callback, instead of "
                                               "copied out to wait in the inbox"},
    [OMPI_OSC_NEWRMA_STAT_LOCK_WAITS] = {"lock_waits",
                                         "Lock requests that waited: a node-local lock taken "
                                         "after spinning, a remote request queued here"},
    [OMPI_OSC_NEWRMA_STAT_LOCK_WAIT_NS] = {"lock_wait_ns",
                                           "Nanoseconds those lock requests waited"},
    [OMPI_OSC_NEWRMA_STAT_LOCK_TRIES] = {"lock_tries",
                                         "Lock requests of lock epochs sent in parallel, as "
                                         "tries that a target grants only if its lock is free"},
    [OMPI_OSC_NEWRMA_STAT_LOCK_TRY_BACKOFFS] = {"lock_try_backoffs",
                                                "Tries refused, and tried locks given back "
                                                "because an earlier lock had to wait"},
    [OMPI_OSC_NEWRMA_STAT_POOL_MISSES] = {"pool_misses",
                                          "Operation or target elements not found in the "
                                          "window's pool (taken from the global pool, or "
                                          "after a cleanup)"},
    [OMPI_OSC_NEWRMA_STAT_AGGRESSIVE_CLEANUPS] = {"aggressive_cleanups",
                                                  "Aggressive cleanups: both pools empty, "
                                                  "operations completed to free elements"},
    [OMPI_OSC_NEWRMA_STAT_PEER_QUERIES] = {"peer_queries",
                                           "First accesses to a peer that asked it for its "
                                           "window (base, size, displacement unit, rkey): "
                                           "creation exchanges nothing per peer"},
    [OMPI_OSC_NEWRMA_STAT_SEGMENTS_REUSED] = {"segments_reused",
                                              "Windows made in the shared segment of a freed "
                                              "window (osc_newrma_shm_cache_bytes), without "
                                              "making and mapping a new one"},
};

void ompi_osc_newrma_stats_read(ompi_osc_newrma_module_t *module, ompi_osc_newrma_stats_t *out)
{
    *out = module->stats;
    out->c[OMPI_OSC_NEWRMA_STAT_POOL_MISSES] += module->op_pool.misses + module->target_pool.misses;
}

static void stats_add(ompi_osc_newrma_stats_t *sum, const ompi_osc_newrma_stats_t *add)
{
    for (int i = 0; i < OMPI_OSC_NEWRMA_STAT_MAX; ++i) {
        sum->c[i] += add->c[i];
    }
}

/* Caller holds windows_lock: the window leaves component.windows, its
 * counts stay in the process totals. */
void ompi_osc_newrma_stats_retire(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_stats_t mine;

    ompi_osc_newrma_stats_read(module, &mine);
    stats_add(&component.stats_retired, &mine);
}

/* ---- MPI_T ---- */

static int pvar_process_value(const mca_base_pvar_t *pvar, void *value, void *obj)
{
    int index = (int) (intptr_t) pvar->ctx;
    ompi_osc_newrma_stats_t sum, one;
    opal_list_item_t *item;

    (void) obj;
    ompi_osc_newrma_mutex_lock(&component.windows_lock, OMPI_OSC_NEWRMA_MUTEX_WINDOWS);
    sum = component.stats_retired;
    OPAL_LIST_FOREACH(item, &component.windows, opal_list_item_t)
    {
        ompi_osc_newrma_stats_read(ompi_osc_newrma_window_of(item), &one);
        stats_add(&sum, &one);
    }
    ompi_osc_newrma_mutex_unlock(&component.windows_lock, OMPI_OSC_NEWRMA_MUTEX_WINDOWS);
    *(unsigned long long *) value = sum.c[index];
    return OPAL_SUCCESS;
}

/* A handle bound to a window: its counters if osc/newrma serves it (one of
 * the windows in the list), zeros for another component's window. */
static int pvar_window_value(const mca_base_pvar_t *pvar, void *value, void *obj)
{
    ompi_win_t *win = obj;
    ompi_osc_newrma_stats_t stats = {{0}};
    opal_list_item_t *item;

    ompi_osc_newrma_mutex_lock(&component.windows_lock, OMPI_OSC_NEWRMA_MUTEX_WINDOWS);
    OPAL_LIST_FOREACH(item, &component.windows, opal_list_item_t)
    {
        ompi_osc_newrma_module_t *module = ompi_osc_newrma_window_of(item);

        if (NULL != win && win->w_osc_module == &module->super) {
            ompi_osc_newrma_stats_read(module, &stats);
            break;
        }
    }
    ompi_osc_newrma_mutex_unlock(&component.windows_lock, OMPI_OSC_NEWRMA_MUTEX_WINDOWS);
    *(unsigned long long *) value = stats.c[(int) (intptr_t) pvar->ctx];
    return OPAL_SUCCESS;
}

static int pvar_window_notify(mca_base_pvar_t *pvar, mca_base_pvar_event_t event, void *obj,
                              int *count)
{
    (void) pvar;
    (void) obj;
    if (MCA_BASE_PVAR_HANDLE_BIND == event) {
        *count = 1;
    }
    return OPAL_SUCCESS;
}

static int register_one(int index, bool window)
{
    char name[64], help[320];
    int cls = OMPI_OSC_NEWRMA_STAT_LOCK_WAIT_NS == index ? MCA_BASE_PVAR_CLASS_TIMER
                                                         : MCA_BASE_PVAR_CLASS_COUNTER;

    snprintf(name, sizeof(name), "%s%s", window ? "win_" : "", stat_info[index].name);
    snprintf(help, sizeof(help), "%s (%s)", stat_info[index].help,
             window ? "this window: bind the handle to an MPI_Win"
                    : "this process: every osc/newrma window, freed ones included");
    return mca_base_component_pvar_register(
        &component.super.osc_version, name, help, OPAL_INFO_LVL_4, cls,
        MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG, NULL,
        window ? MCA_BASE_VAR_BIND_MPI_WIN : MCA_BASE_VAR_BIND_NO_OBJECT,
        MCA_BASE_PVAR_FLAG_READONLY | MCA_BASE_PVAR_FLAG_CONTINUOUS,
        window ? pvar_window_value : pvar_process_value, NULL, window ? pvar_window_notify : NULL,
        (void *) (intptr_t) index);
}

int ompi_osc_newrma_stats_register(void)
{
    for (int i = 0; i < OMPI_OSC_NEWRMA_STAT_MAX; ++i) {
        int ret = register_one(i, false);

        if (ret >= 0) {
            ret = register_one(i, true);
        }
        if (ret < 0) {
            return ret;
        }
    }
    return OMPI_SUCCESS;
}

/* ---- the table at MPI_Win_free ---- */

static void stats_print(ompi_osc_newrma_module_t *module, const uint64_t *sum)
{
    opal_output(0, "osc/newrma: window %u statistics, summed over its %d ranks:", module->cid,
                module->comm_size);
    for (int i = 0; i < OMPI_OSC_NEWRMA_STAT_MAX; ++i) {
        opal_output(0, "osc/newrma:   %-20s %" PRIu64, stat_info[i].name, sum[i]);
    }
}

int ompi_osc_newrma_stats_window_done(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_stats_t mine;
    uint64_t sum[OMPI_OSC_NEWRMA_STAT_MAX];
    ompi_communicator_t *comm = module->comm;
    int ret;

    if (!component.stats) {
        return OMPI_SUCCESS;
    }
    ompi_osc_newrma_stats_read(module, &mine);
    ret = comm->c_coll->coll_reduce(mine.c, sum, OMPI_OSC_NEWRMA_STAT_MAX, MPI_UINT64_T, MPI_SUM, 0,
                                    comm, comm->c_coll->coll_reduce_module);
    if (OMPI_SUCCESS == ret && 0 == module->my_rank) {
        stats_print(module, sum);
    }
    return ret;
}
