/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: component and module (window) structures.
 *
 * Locking: the window lock (module->lock) protects the window state, the
 * operation table and the window-local pools.  Synchronization calls take
 * it, check the epoch state, and release it while they wait for progress
 * (PROGRESS_WAIT).  Transport completion callbacks touch only atomic
 * counters (op->outstanding, module->active_reqs, module->ack_counter), so
 * they never need the window lock.  The component lock protects the window
 * list and the endpoint cache.
 */
#ifndef OMPI_OSC_NEWRMA_H
#define OMPI_OSC_NEWRMA_H

#include "ompi_config.h"

#include <stddef.h>

#include <ucp/api/ucp.h>

#include "ompi/communicator/communicator.h"
#include "ompi/mca/osc/osc.h"
#include "ompi/request/request.h"
#include "ompi/win/win.h"
#include "opal/class/opal_hash_table.h"
#include "opal/class/opal_list.h"
#include "opal/threads/mutex.h"
#include "opal/threads/threads.h"
#include "opal/util/output.h"

#include "osc_newrma_target_lock.h"
#include "osc_newrma_base_mutex.h"
#include "osc_newrma_base_optable.h"
#include "osc_newrma_base_peer.h"
#include "osc_newrma_base_pick.h"
#include "osc_newrma_pool.h"
#include "osc_newrma_transport_region.h"
#include "osc_newrma_transport_shm.h"
#include "osc_newrma_base_state.h"
#include "osc_newrma_stats.h"
#include "osc_newrma_base_types.h"

/** a window's picks (cma_pick[2], acc_pick[2], stream_pick), which
 * component.picks_learned keeps for the next window */
#define OMPI_OSC_NEWRMA_MODULE_PICKS 5

/** Windows of a process whose mailboxes its agent polls; a window created
 * while this many are open keeps its mailbox closed (its origins send
 * packets), so the agent's poll stays short. */
#define OMPI_OSC_NEWRMA_MBOX_WINDOWS 32

/** Payloads by rendezvous that may land beside each other: MPI_REPLACEs in
 * a window (disjoint ranges, under its accumulate lock), and PUTs or
 * MPI_REPLACEs of one origin.  One after the other, each paid a round trip
 * before its data moved; eight keep a stream over TCP busy, where more at
 * once moved less. */
#define OMPI_OSC_NEWRMA_LANDINGS 8

/*
 * Lock order.  (Classes: ompi_osc_newrma_mutex_class_t, osc_newrma_base_mutex.h.)
 *
 * Every mutex of the component belongs to one class below; a thread may
 * block on a mutex only while every mutex it holds is of an earlier class
 * (ompi_osc_newrma_mutex_trylock may take any: it cannot deadlock).  From
 * the outside in:
 *
 *  WINDOWS   component.windows_lock: the list of windows and the retired
 *            windows' counters.  The progress walks hold it while they
 *            try-lock each window and work on it; the agent's walk of the
 *            lock queues, which also runs under a window lock (an origin
 *            spinning on a lock word gives the agent turns), only tries it.
 *  WINDOW    module->lock: the window's operation table, epoch and target
 *            states, local pools (ompi_osc_newrma_module_lock; without
 *            MPI_THREAD_MULTIPLE a held count, no mutex).
 *  AM        module->am_lock: PUT packets applied per origin and the
 *            RMA_DONE / UNLOCK / COMPLETE packets waiting for them; an
 *            UNLOCK settled under it releases the lock word (QUEUE).
 *  QUEUE     module->lock_queue_lock: the waiters for my lock word.
 *  ATTACHED  module->attached_lock: a dynamic window's attached regions,
 *            read by the target's packet handlers and the origin's
 *            region cache; any window's own UCX registration, made on
 *            the first REGION_QUERY.
 *  COMPONENT component.lock: one-time set-up, the UCX endpoint table, the
 *            shared-segment cache, the picks that freed windows learned.
 *  LOOKUP    component.modules_lock: the cid -> window table that packet
 *            dispatch reads (with a window lock held, when a spinning
 *            origin gives the agent a turn).
 *  INBOX     component.inbox_lock: packets handed from the transport to the
 *            progress engine.
 *  POOL      a global element pool's lock (OPAL_THREAD_LOCK).
 *  PEERS     module->peers_lock: making a window's peer entry on first
 *            touch (osc_newrma_base_peer.h), by its owner or the agent.
 *
 * Under COMPONENT, LOOKUP, INBOX, POOL and PEERS nothing runs but the code that
 * reads or changes what they protect (no progress, no MPI call, no UCX
 * call that may call back).  opal_progress runs with WINDOW released
 * (ompi_osc_newrma_progress_wait).
 *
 * Configured with --enable-debug, each thread counts the classes it holds
 * and a blocking acquisition out of order aborts with both names.
 */

BEGIN_C_DECLS

/** Settings of one window: the MCA variables, overridden by info keys. */
typedef struct {
    int slots;
    int op_win_pool_size;
    int target_win_pool_size;
    int piggyback_threshold;
    size_t single_op_threshold;
    /** the same to a peer whose RDMA UCX emulates in software (TCP) */
    size_t single_op_emulated_threshold;
    size_t lock_data_bytes;
    int active_req_threshold;
    /** lock epochs request the locks of several targets at once, as tries
     * (osc_newrma_origin_passive.c); off, one at a time in MPI_Win_lock order */
    bool lock_parallel;
    bool shm;
    bool alloc_shared_noncontig;
    /** info no_locks: MPI_Win_lock and lock_all are erroneous (MPI_ERR_RMA_SYNC);
     * MPI_Win_set_info may change it */
    bool no_locks;
    /** node-local small lone ops of user-memory windows through the target's
     * mailbox (osc_newrma_mailbox; info key mailbox) */
    bool mailbox;
    /** info same_size / same_disp_unit, reported by MPI_Win_get_info; a
     * peer's layout is asked of it on first access either way */
    bool same_size;
    bool same_disp_unit;
    /** info accumulate_ops is same_op (not same_op_no_op): reported only,
     * element atomicity here does not depend on which ops meet */
    bool acc_same_op;
    /** accumulate_ordering is not "none": accumulates from one origin to
     * one location take effect in program order */
    bool acc_ordered;
    /** UCX path: bytes of packets packed into one active message per
     * target (0: no aggregation), and the largest PUT sent as a packet */
    size_t aggregate_bytes;
    size_t aggregate_threshold;
    /** UCX path: a contiguous PUT or GET sent as packets from this many
     * bytes on goes by rendezvous, straight into the window or the origin
     * buffer (0: never) */
    size_t rndv_threshold;
    /** node-local MPI_REPLACE and MPI_NO_OP reads of create and dynamic
     * windows from this many bytes: a cross-memory copy under the target's
     * accumulate lock (0: never) */
    size_t acc_cma_bytes;
    /** node-local contiguous PUT/GET of create and dynamic windows from
     * this many bytes: a cross-memory copy or UCX's transfer (0: never) */
    size_t cma_bytes;
} ompi_osc_newrma_config_t;

struct ompi_osc_newrma_component_t {
    ompi_osc_base_component_t super;

    /* ---- MCA variables (defaults; info keys may override per window) ---- */
    unsigned int priority;
    int verbose;
    unsigned int slots;
    unsigned int op_win_pool_size;
    unsigned int op_global_pool_size;
    unsigned int target_win_pool_size;
    unsigned int target_global_pool_size;
    unsigned int piggyback_threshold;
    unsigned long single_op_threshold;
    unsigned long single_op_emulated_threshold;
    bool shm;
    bool async_progress;
    /** a wait calls opal_progress one round in this many while its window
     * has PML or collective requests in flight (osc_newrma_wait_opal_every) */
    unsigned int wait_opal_every;
    /** ... and in this many otherwise (osc_newrma_wait_opal_every_agent) */
    unsigned int wait_opal_every_agent;
    unsigned long lock_data_bytes;
    int active_req_threshold;
    bool lock_parallel;
    unsigned long aggregate_bytes;
    unsigned long aggregate_node_bytes;
    unsigned long aggregate_threshold;
    unsigned long rndv_threshold;
    unsigned long batch_rndv_bytes;
    /** node-local contiguous PUT/GET from this size: process_vm_writev/readv
     * (-1 until component_init: by ompi_osc_newrma_shm_cma_cheap) */
    long cma_bytes;
    /** ... or UCX's transfer, whichever took less time lately (module->cma_pick) */
    bool cma_pick;
    /** node-local MPI_REPLACE / MPI_NO_OP reads from this size: the copy
     * under the acc lock (-1 as cma_bytes) */
    long acc_cma_bytes;
    /** whether the cross-memory copy is cheap: -1 by the probe
     * (ompi_osc_newrma_shm_cma_cheap), 0 no, 1 yes */
    int cma_cheap;
    /** PUTs and GETs from this size, below cma_bytes (MPI_REPLACEs and
     * MPI_NO_OP reads below acc_cma_bytes), take the copy after a flush or
     * unlock (cma_min_bytes); 0 never (-1 as cma_bytes) */
    long cma_small_bytes;
    /** PUTs, MPI_REPLACEs and MPI_NO_OP reads of a stream from this size
     * are copied by their call too (cma_at_call, rma_acc_copy_at_call); 0
     * none (-1 as cma_bytes) */
    long cma_stream_bytes;
    /** copies of PUTs, GETs, MPI_REPLACEs and MPI_NO_OP reads from this
     * size are shared with the target's agent
     * (ompi_osc_newrma_mbox_share_copy), in chunks of cma_share_chunk
     * bytes, and such MPI_REPLACEs and GETs go by their call, each of a
     * stream too; 0 never */
    long cma_share_bytes;
    long segment_share_bytes;
    long cma_share_chunk;
    /** node-local reductions (MPI_Accumulate) from this size stream
     * through the target's mailbox slots (ops.c's acc_stream_sized);
     * 0 never */
    unsigned long acc_stream_bytes;
    /** ... up to this size */
    unsigned long acc_stream_max_bytes;
    /** node-local fetching reductions from this size: read, reduced and
     * written back by the origin (ops.c's acc_fetch_copy_sized); 0 never
     * (-1 as cma_bytes) */
    long acc_fetch_copy_bytes;
    /** the bytes of such a stream per slot */
    unsigned long acc_stream_part;
    /** the largest MPI_REPLACE or MPI_NO_OP read a mailbox slot's area
     * carries: below acc_cma_bytes */
    size_t mbox_copy_bytes;
    /** lone PUTs, GETs and MPI_NO_OP reads from this size take turns
     * between the copy and UCX's transfer (cma_pick); SIZE_MAX where the
     * copy is cheap */
    size_t cma_pick_bytes;
    /** a small PUT or GET alone at its target goes by RDMA where the transport has it */
    bool lone_rdma;
    /** PUTs of rndv_threshold bytes or more go by rendezvous too (not pipelined packets) */
    bool rndv_puts;
    /** large MPI_NO_OP reads over TCP answered from the window without the
     * accumulate lock, checked by its sequence (OMPI_OSC_NEWRMA_PKT_FLAG_UNLOCKED) */
    bool read_unlocked;
    /** large MPI_REPLACEs over TCP land straight in the window under its
     * accumulate lock (ompi_osc_newrma_pkt_land_window) */
    bool replace_in_window;
    /** a small aggregated PUT (or ACCS record) right after the previous
     * one's bytes joins its record */
    bool puts_join;
    /** small aggregated MPI_Accumulates travel as records of ACCS packets */
    bool acc_records;
    /** small GETs packed by the call travel as records of GETS packets */
    bool get_records;
    /** copies 1-64 bytes ahead of their source modulo 4 KiB take the loop:
     * -1 where a probe finds memcpy slow there, 0 never, 1 always */
    int copy_alias;
    /** GETs from this size go by RDMA in streams too (0: never) */
    unsigned long get_rdma_bytes;
    /** PUTs from this size go by RDMA, not into aggregated messages (0: never) */
    unsigned long put_rdma_bytes;
    /** small lone PUTs, GETs and accumulates to a node-local peer of a
     * user-memory window go through its mailbox in the window's segment */
    bool mailbox;
    unsigned int am_buffers;
    int bulk_packets;
    unsigned int fence_alltoall_ranks;
    unsigned int fence_packet_ranks;
    /** remote single-element accumulates may use UCX atomics (the atomic
     * rule of osc_newrma_target_acc.h); off, every window takes the plain rule */
    bool acc_atomics;
    unsigned long shm_cache_bytes;
    /** a freed window's communicator waits on the user's for the next window */
    bool comm_cache;
    unsigned int dynamic_regions;
    int test_fail_rdma;
    /** test hook: the Nth cross-memory copy of this process fails */
    int test_fail_cma;
    int test_fail_packet;
    int test_fail_create; /* 1: module allocation, 2: address record (once) */
    /** a module kept in reserve, so that a rank that cannot allocate one
     * still takes part in the creation's collectives (osc_newrma_module.c) */
    struct ompi_osc_newrma_module_t *module_reserve;
    ompi_osc_newrma_atomic_t module_reserve_used;
    int test_node_size; /* > 0: simulated nodes of this many world ranks */
    /** print each window's counters at MPI_Win_free (osc_newrma_stats) */
    bool stats;

    /* ---- state ---- */
    /** verbose stream (osc_newrma_verbose) */
    int output;
    bool enable_mpi_threads;
    /** protects the endpoint cache and the shared-segment cache */
    opal_mutex_t lock;
    /** segments of freed windows kept for the next ones (osc_newrma_transport_shm.c) */
    opal_list_t shm_cache;
    /** what the last freed windows' picks learned, where they measured
     * both ways (module->cma_pick, acc_pick, stream_pick): a new window
     * starts from it (ompi_osc_newrma_pick_seed); under lock */
    ompi_osc_newrma_pick_t picks_learned[OMPI_OSC_NEWRMA_MODULE_PICKS];
    /** protects windows and stats_retired (osc_newrma_base_mutex.h: WINDOWS) */
    opal_mutex_t windows_lock;
    /** protects modules only: packet dispatch looks windows up with a
     * window lock held, the progress walks hold windows_lock while taking
     * window locks (osc_newrma_base_mutex.h: LOOKUP) */
    opal_mutex_t modules_lock;
    /** window communicator cid -> module, for packet dispatch */
    opal_hash_table_t modules;
    /** the same windows as a list (ompi_osc_newrma_module_t::window_item),
     * walked on every progress call: a hash table walk visits every bucket */
    opal_list_t windows;
    /** counters of freed windows (windows_lock), for the process pvars */
    ompi_osc_newrma_stats_t stats_retired;
    /** global pools shared by all windows */
    ompi_osc_newrma_pool_t op_global_pool;
    ompi_osc_newrma_pool_t target_global_pool;
    bool pools_ready;
    /** UCX context and worker, created with the first window */
    ucp_context_h ucp_context;
    ucp_worker_h ucp_worker;
    void *worker_address;
    size_t worker_address_len;
    /** ompi_proc_t * -> ompi_osc_newrma_endpoint_t.  Not the proc's
     * endpoint slot: the slots are fixed when Open MPI is built (BML, MTL,
     * UCX, PML here), and the UCX one holds pml/ucx's endpoint on pml/ucx's
     * own worker when that PML runs; ours live on this component's worker. */
    opal_hash_table_t endpoints;
    /** active-message packets received, processed outside UCX callbacks */
    opal_list_t inbox;
    opal_mutex_t inbox_lock;
    /** packets for windows still being built, in arrival order; touched
     * only by the agent (the holder of progress_busy) */
    opal_list_t held;
    /** one thread at a time in the worker/inbox progress (re-entrance guard
     * of the opal_progress callback, shared with the async thread) */
    ompi_osc_newrma_atomic_t progress_busy;
    bool progress_registered;
    /** lock requests queued by the agent in any window (lets the progress
     * callback skip the lock queues when there are none) */
    ompi_osc_newrma_atomic_t lock_waiters;
    /** windows whose mailbox slots the agent polls (changed only by the
     * holder of progress_busy: ompi_osc_newrma_agent_acquire) */
    ompi_osc_newrma_module_t *mbox_windows[OMPI_OSC_NEWRMA_MBOX_WINDOWS];
    int mbox_nwindows;
    /** the same for windows in the node's segment, whose slots carry
     * shared copies alone (seg_share_from): polled every
     * OMPI_OSC_NEWRMA_SEG_POLL_EVERY rounds (seg_poll_rounds counts them) */
    ompi_osc_newrma_module_t *seg_windows[OMPI_OSC_NEWRMA_MBOX_WINDOWS];
    int seg_nwindows;
    unsigned seg_poll_rounds;
    /** async progress thread (osc_newrma_async_progress) */
    opal_thread_t progress_thread;
    int progress_thread_efd;
    volatile bool progress_thread_stop;
    bool progress_thread_running;
    /** progress rounds of the MPI threads, counted while the async thread
     * runs: it stands down while they move (ompi_osc_newrma_agent_progress) */
    ompi_osc_newrma_atomic_t mpi_rounds;
};
typedef struct ompi_osc_newrma_component_t ompi_osc_newrma_component_t;

OMPI_DECLSPEC extern ompi_osc_newrma_component_t mca_osc_newrma_component;

/** Whether another thread may run the component's code at the same time
 * (MPI_THREAD_MULTIPLE, or the async progress thread).  Without one, a
 * single thread runs it all, the transport's callbacks included (from its
 * own progress calls): counters they share need no atomic instruction,
 * each of which cost a GET of a stream of 2 KiB GETs 6% of its time. */
static inline bool ompi_osc_newrma_threaded(void)
{
    return mca_osc_newrma_component.enable_mpi_threads || mca_osc_newrma_component.async_progress;
}

/** *@p counter += @p delta, atomically where ompi_osc_newrma_threaded. */
static inline void ompi_osc_newrma_count_add(ompi_osc_newrma_atomic_t *counter, int32_t delta)
{
    if (ompi_osc_newrma_threaded()) {
        (void) opal_atomic_add_fetch_32(counter, delta);
    } else {
        *counter += delta;
    }
}

/** What this process knows of one target's window memory.  Fields are
 * grouped by size: a window keeps one entry per target it touched, and
 * the entry was most of what grew with the ranks touched (208 bytes,
 * 64 of them a region list only dynamic windows use). */
struct ompi_osc_newrma_peer_t {
    /** the peer's rank in the window (the entry is made on first touch) */
    int rank;
    /** the target's displacement unit; with size, known with the rest of
     * the information, or from the shared segment's layout */
    int disp_unit;
    /** target's base address (its own virtual address space) and rkey:
     * asked of the target on first access (info_known), not exchanged at
     * creation; rkey NULL when the target exposes no registered memory */
    uint64_t base;
    ucp_rkey_h rkey;
    /** the target's window size */
    uint64_t size;
    /** direct load/store address when the target is reached through shm */
    char *shm_base;
    /** endpoint, looked up on first use */
    ucp_ep_h ep;
    /** the target's lock word when reached with loads/stores (myself, and
     * node-local peers through the shared segment), else NULL */
    ompi_osc_newrma_lockword_t *lock;
    /** dynamic window: the target's regions I was told about, least recently
     * used first (osc_newrma_transport_region.h; NULL until the first), and
     * how many times the target told me to forget some (a REGION_REPLY
     * overtaken by that is not cached) */
    opal_list_t *regions;
    uint32_t regions_forgotten;
    /** its process id for cross-memory copies (0: not looked up yet, -1:
     * none, not on this node) */
    int32_t cma_pid;
    /** the module's sync_seq when a PUT or GET was last copied to the peer
     * by its call (cma_at_call): a later one before the next
     * synchronization is part of a stream */
    uint32_t cma_seq;
    /** the peer's fence count up to which it has applied every packet of
     * the fences' epochs: it sent me a packet it could only send, or answer,
     * once its own fence of that count was done (pkt_learn_drained) */
    volatile uint32_t fence_drained;
    /** passive epoch: lock held or requested (MPI_LOCK_*; 0: none); while
     * not 0, the entry is on module->locked_peers */
    int lock_type;
    /** MPI_Win_lock call order: remote locks are requested in this order */
    int lock_seq;
    /** size and disp_unit are known */
    bool layout_known;
    /** base and rkey are known (set last, after a write barrier) */
    volatile bool info_known;
    /** contiguous PUTs and GETs of any size travel as packets, large ones
     * in chunks of one active message each, not RDMA (osc_newrma_bulk_packets) */
    bool bulk_packets;
    /** the transport has RDMA (UCX does not emulate it): small PUTs and
     * GETs may go by RDMA (osc_newrma_lone_rdma, osc_newrma_get_rdma_bytes) */
    bool rdma_native;
    bool lock_nocheck;
    /** the lock was granted (a reclaimed element comes back LOCK_GRANTED) */
    bool lock_granted;
    opal_list_item_t locked_item;
};

/** One side of PSCW (the access group of WIN_START or the exposure group of
 * WIN_POST): the group as sorted ranks of the window's communicator and the
 * PROC_SYNC requests (POST or COMPLETE messages) still outstanding.  The
 * translation outlives the epoch: the next epoch of the same group (most
 * programs pass one group every time) reuses it. */
typedef struct {
    bool open;
    int count;
    int *ranks;
    ompi_request_t **reqs;
    int pending;
    /** access epoch over UCX: its targets' POSTs come as packets, not yet
     * taken (ompi_osc_newrma_pkt_posts_take) */
    bool post_packets;
    /** the group @a ranks translates, retained so that its address names
     * no other group while it is kept (groups never change) */
    ompi_group_t *group;
} ompi_osc_newrma_pscw_group_t;

/** Elements whose reduction computing bounds, not memory: wider than 8
 * bytes (long double by the x87 unit, complex), shared with the target's
 * agent from segment_share_bytes divided by this.  A long double SUM +
 * flush on an allocate window, alone and shared: 128 KiB 22.9 and
 * 15.0-15.5 us, 512 KiB 92-93 and 59-60 (osc/rdma 22.9, 93.4); a SUM of
 * 512 KiB of doubles, which the caches hold, 10.5 and 10.7-11.2. */
#define OMPI_OSC_NEWRMA_SHARE_DEAR_DIVISOR 8

struct ompi_osc_newrma_module_t {
    ompi_osc_base_module_t super;
    /** in component.windows while registered (windows_lock) */
    opal_list_item_t window_item;

    /** the window lock: take it with ompi_osc_newrma_module_lock */
    opal_mutex_t lock;
    /** the mutex is used (MPI_THREAD_MULTIPLE); otherwise the window lock
     * is only the held count below */
    bool lock_mt;
    /** the window lock is held (the progress callback keeps out) */
    int lock_held;
    /** calls that returned without waiting (flush, unlock, MPI_Win_sync),
     * counted for the agent's and opal_progress's turns */
    unsigned int flush_turns;
    /** rounds of this window's waits since one ran opal_progress, counted
     * across waits (osc_newrma_base_wait.c) */
    unsigned int wait_rounds;
    /** synchronizations that complete this process's accesses (flush,
     * unlock, fence, complete: ompi_osc_newrma_sync_ended), from 1; a
     * peer's cma_seq equal to it marks a stream (cma_at_call) */
    uint32_t sync_seq;
    /** the last such synchronization (FLUSH_LOCAL, FLUSH, UNLOCK, COMPLETE,
     * FENCE; NONE before any): small PUTs and GETs take the copy after
     * some (cma_min_bytes) */
    ompi_osc_newrma_sync_flag_t last_sync;
    ompi_win_t *win;
    ompi_communicator_t *comm;
    uint32_t cid;
    int flavor;
    int my_rank;
    int comm_size;
    ompi_osc_newrma_config_t config;

    /* ---- the design's WIN structure ---- */
    ompi_osc_newrma_win_state_t win_state;
    int mode;
    /** RMA_DONE_ACKs outstanding in active target */
    ompi_osc_newrma_atomic_t ack_counter;
    /** transport requests in flight (bounded by active_req_threshold) */
    ompi_osc_newrma_atomic_t active_reqs;
    /** target elements holding aggregated packets not sent yet */
    int batches_open;
    /** PSCW over UCX: COMPLETE packets counted in this exposure epoch */
    ompi_osc_newrma_atomic_t pscw_completes;
    /** PROC_SYNC of the last FENCE, until it is known complete: the
     * design's IBARRIER, or the exchange of FENCE_DONE counts below */
    ompi_request_t *fence_req;
    /** FENCE on windows not wholly in one shared segment: the closing epoch
     * sends FENCE_DONE behind its last packets to each target, unanswered,
     * and the fence's collective tells every rank how many it was sent, so
     * no RMA_DONE_ACK round trip precedes the collective */
    struct {
        /** FENCE_DONE packets received, by the parity of the fence they
         * close (a peer's next epoch may end before mine has) */
        ompi_osc_newrma_atomic_t dones[2];
        /** an error of a packet that a FENCE_DONE of that parity covered,
         * for that fence to report (a peer's next epoch may end while my
         * fence still waits) */
        ompi_osc_newrma_atomic_t failed[2];
        /** fences called on the window so far (the low bit: the parity) */
        uint32_t count;
        /** the parity of the fence epoch I am in: count's when my last
         * fence was done.  Packets carry it (OMPI_OSC_NEWRMA_PKT_MARK_EPOCH);
         * one of the other parity is a peer's next epoch, held until my
         * fence is done (ompi_osc_newrma_pkt_epoch_done) */
        uint32_t epoch;
        /** the count of the last fence that may have left packets of its
         * epoch unapplied at their targets when it was done here (one that
         * ends an epoch, on a window without the segment's fence_drained):
         * 0 for none.  Until a peer is known to have finished that fence
         * (fence_drained), no access to it bypasses its agent
         * (ompi_osc_newrma_peer_bypass_ok) */
        uint32_t unsure;
        /** the collective's buffers while it runs: FENCE_DONEs sent to each
         * rank (comm_size), and what each rank sent me (alltoall) or
         * their sum (reduce_scatter) */
        int *sent;
        int *received;
        int received_len;
        /** FENCE_DONEs still owed to the fence whose collective completed,
         * of parity owed_parity (0: nothing to wait for) */
        int owed;
        int owed_parity;
    } fence;
    /** PSCW: access epoch (WIN_START) and exposure epoch (WIN_POST) */
    ompi_osc_newrma_pscw_group_t pscw_access;
    ompi_osc_newrma_pscw_group_t pscw_exposure;

    /* ---- operation table and the window-local pools ---- */
    ompi_osc_newrma_optable_t table;
    ompi_osc_newrma_pool_t op_pool;
    ompi_osc_newrma_pool_t target_pool;

    /* ---- memory ---- */
    void *base;
    size_t size;
    int disp_unit;
    /** base was allocated here (MPI_Win_allocate without shm) */
    bool owns_base;
    /** my window memory registered with UCX, its packed rkey: NULL until a
     * peer first asks for them (am_region, under attached_lock), and for ever
     * when size is 0 */
    ucp_mem_h memh;
    void *rkey_packed;
    size_t rkey_packed_len;
    bool pools_ready;
    /** the entries of the peers touched (osc_newrma_base_peer.h): what was
     * learnt of their windows on first access, their lock state; made on
     * first touch, in an index sorted by rank behind a cache of a fixed size */
    ompi_osc_newrma_peer_t **peer_index;
    int peer_count;
    int peer_capacity;
    ompi_osc_newrma_peer_t *volatile peer_cache[OMPI_OSC_NEWRMA_PEER_CACHE];
    /** the last PUT or GET served by loads and stores (ops.c,
     * rma_fast_again): its target, predefined datatype and count, and what
     * they gave, so that the next one alike skips the peer lookup and the
     * datatype checks; target -1 (never filled) under MPI threads, where
     * two calls at once could tear it */
    struct {
        int target;
        int count;
        struct ompi_datatype_t *dt;
        const ompi_osc_newrma_peer_t *peer;
        ptrdiff_t disp_unit;
        ptrdiff_t limit; /**< the highest byte offset the access may start at */
        size_t bytes;
    } fast_last;
    opal_mutex_t peers_lock;
    bool peers_ready;
    /** the peer entries whose lock_type is set: what UNLOCK_ALL releases,
     * O(targets locked) rather than a sweep over every rank */
    opal_list_t locked_peers;
    /** node-local shared segment (allocate / shared flavors, shm path) */
    ompi_osc_newrma_shm_t shm;
    /** every rank is node-local and reached directly: no UCX access at all
     * (the same on every rank; see ompi_osc_newrma_acc_plain) */
    bool node_direct;
    /** dynamic: regions attached here; own lock (looked up by AM handlers) */
    opal_list_t attached;
    /** dynamic: registrations of runs of adjacent attached regions that one
     * access spans (made on a peer's region query, dropped with a member) */
    opal_list_t attached_runs;
    /** protects attached, attached_runs and every peer's region cache
     * (taken by packet handlers without the window lock; taken after the
     * window lock, and nothing but packet sends happen while it is held) */
    opal_mutex_t attached_lock;
    /** dynamic: REGION_FORGET packets of a detach not yet acknowledged */
    ompi_osc_newrma_atomic_t forget_pending;
    /** target side of PUT packets: origin rank -> packets applied and not
     * yet acknowledged; RMA_DONEs waiting for more packets */
    opal_hash_table_t am_received;
    bool am_received_ready;
    opal_list_t am_pending_done;
    /** packets of a peer's next fence epoch that came while my fence still
     * waited (ompi_osc_newrma_pkt_epoch_done), under component.inbox_lock */
    opal_list_t epoch_held;
    /** the MPI_REPLACEs landing straight in this window under its
     * accumulate lock (ompi_osc_newrma_pkt_land_window), acc_landings of
     * them, at disjoint ranges [lo, hi): their LANDED notices; meanwhile
     * the window's other packets wait in landing_held.  The agent's only
     * (one thread at the inbox), read by this process's own accumulates,
     * which wait for them to end */
    struct {
        struct ompi_osc_newrma_pkt_t *notice;
        uint64_t lo, hi;
    } acc_land[OMPI_OSC_NEWRMA_LANDINGS];
    unsigned acc_landings;
    opal_list_t landing_held;
    /** origin side of PSCW over UCX: target rank -> POST packets received
     * and not yet taken by an access epoch (made with the first); a failure
     * to make it, for the access epoch that waits to report */
    opal_hash_table_t pscw_posts;
    bool pscw_posts_ready;
    int pscw_posts_failed;
    opal_mutex_t am_lock;
    /** fully built: the progress engine may work on it */
    bool ready;
    /** made on every rank: its communicator may wait for the next window */
    bool comm_keep;
    /** creation finished: the agent delivers its packets (until then a peer
     * that left the creation's exchange early has them held) */
    bool built;
    /** my mailbox slots are open and in component.mbox_windows (or
     * seg_windows) */
    bool mbox_polled;
    /** my small lone ops to peers may go through their mailboxes, and mine
     * may open (osc_newrma_mailbox, ompi_osc_newrma_shm_indirect) */
    bool mbox_ok;
    /** a window in the node's segment: the bytes from which a contiguous
     * PUT, GET, MPI_REPLACE or MPI_NO_OP read to a node-local peer is copied
     * with the target's agent (osc_newrma_segment_share_bytes,
     * ompi_osc_newrma_mbox_share_segment), my mailbox open for those alone;
     * SIZE_MAX when not so (other windows, or after an agent failed one).
     * A reduction too, from an eighth of it for wide elements
     * (OMPI_OSC_NEWRMA_SHARE_DEAR_DIVISOR).  The fast paths leave such
     * blocks to the full way (rma_fast, acc_fast). */
    size_t seg_share_from;
    /** ops of mine waiting in targets' mailboxes */
    int mbox_pending;

    /* ---- passive target, origin side ---- */
    /** targets locked in PER_TARGET */
    int lock_count;
    /** MPI_Win_lock calls so far (peer lock_seq) */
    int lock_seq;
    /** queued LOCK requests of lock epochs awaiting LOCK_GRANTED (at most one) */
    int lock_requests;
    /** targets whose LOCK went as a try and is not settled (in flight, or
     * granted and waiting for locks earlier in MPI_Win_lock order) */
    int lock_tries;
    /** LOCK_ALL with MPI_MODE_NOCHECK */
    bool lock_all_nocheck;
    /** window-protocol LOCK requests not granted yet */
    ompi_osc_newrma_atomic_t lock_all_pending;
    /** first error of an operation completed since the last synchronization
     * returned one (ompi_osc_newrma_module_error) */
    ompi_osc_newrma_atomic_t error;
    /** this module is the component's reserve (module_alloc) */
    bool reserve;
    /** a peer of the window died (ompi_osc_newrma_peer_lost): every wait
     * of the window fails from then on */
    bool peer_lost;
    /** ompi_osc_newrma_ucx_losses() when the window's peers were last
     * checked against the lost endpoints */
    int32_t losses_seen;
    /** waits' rounds since the node-local peers were last seen alive */
    unsigned int liveness_rounds;

    /* ---- passive target, target side (the agent) ---- */
    /** my lock word: in the shared segment, or self_lockword */
    ompi_osc_newrma_lockword_t *my_lock;
    ompi_osc_newrma_lockword_t self_lockword;
    /** waiters for my lock in ticket order; protected by lock_queue_lock */
    opal_list_t lock_queue;
    opal_mutex_t lock_queue_lock;
    /** single-op data buffered in waiters (bounded by lock_data_bytes) */
    size_t lock_data_used;

    /** counters read through MPI_T (osc_newrma_stats.h) */
    ompi_osc_newrma_stats_t stats;

    /** a lone PUT ([0]) or GET ([1]) from cma_bytes: a cross-memory copy
     * (way OMPI_OSC_NEWRMA_CMA_WAY_COPY) or UCX's transfer, by the time
     * each took lately (osc_newrma_cma_pick); under the window lock */
    ompi_osc_newrma_pick_t cma_pick[2];
    /** a lone MPI_REPLACE ([0]) or MPI_NO_OP read ([1]) of more than the
     * mailbox's 2 KiB up to its area's 32 KiB that could also be the
     * cross-memory copy (acc_cma_bytes): the copy (way
     * OMPI_OSC_NEWRMA_ACC_WAY_COPY) or the target's mailbox, by the time
     * each took lately (osc_newrma_cma_pick); under the window lock */
    ompi_osc_newrma_pick_t acc_pick[2];
    /** such an MPI_REPLACE of more than the area: the copy or a stream
     * through the target's mailbox (ompi_osc_newrma_mbox_stream), by time
     * as acc_pick; under the window lock */
    ompi_osc_newrma_pick_t stream_pick;
    /** target of MPI_NO_OP reads its origins let it answer without the
     * accumulate lock (read_unlocked): after one read again, the next
     * reads_backoff (1, doubling to 64 while they keep being read again)
     * take the copy under the lock, reads_skip of them still to come; the
     * agent's only */
    uint32_t reads_backoff, reads_skip;
};

#define OMPI_OSC_NEWRMA_CMA_WAY_COPY    0
#define OMPI_OSC_NEWRMA_CMA_WAY_UCX     1
#define OMPI_OSC_NEWRMA_ACC_WAY_COPY    0
#define OMPI_OSC_NEWRMA_ACC_WAY_MAILBOX 1

/** The window of an item of component.windows. */
static inline ompi_osc_newrma_module_t *ompi_osc_newrma_window_of(opal_list_item_t *item)
{
    return (ompi_osc_newrma_module_t *) ((char *) item -
                                         offsetof(ompi_osc_newrma_module_t, window_item));
}

/** Accumulates take the plain rule (osc_newrma_target_acc.h): no UCX atomic
 * reaches the memory (osc_newrma_acc_atomics off, an MCA variable alike on
 * every rank, or every rank node-local and reached directly), so every
 * accumulate takes the target's lock. */
static inline bool ompi_osc_newrma_acc_plain(const ompi_osc_newrma_module_t *module)
{
    return module->node_direct || !mca_osc_newrma_component.acc_atomics;
}

/** The counter an RMA_DONE to @p target is acknowledged on: the window's in
 * active target, the target element's in passive target. */
static inline ompi_osc_newrma_atomic_t *
ompi_osc_newrma_ack_counter(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target)
{
    return ompi_osc_newrma_win_state_is_passive(module->win_state) ? &target->ack_counter
                                                                   : &module->ack_counter;
}

/* ---- module functions (osc_newrma_module.c) ---- */
int ompi_osc_newrma_shared_query(struct ompi_win_t *win, int rank, size_t *size, int *disp_unit,
                                 void *baseptr);
int ompi_osc_newrma_attach(struct ompi_win_t *win, void *base, size_t len);
int ompi_osc_newrma_detach(struct ompi_win_t *win, const void *base);
int ompi_osc_newrma_free(struct ompi_win_t *win);
/** The module kept in reserve for a creation that cannot allocate one
 * (component init and finalize). */
int ompi_osc_newrma_module_reserve_init(void);
void ompi_osc_newrma_module_reserve_fini(void);
int ompi_osc_newrma_select(struct ompi_win_t *win, void **base, size_t size, int disp_unit,
                           struct ompi_communicator_t *comm, struct opal_info_t *info, int flavor,
                           int *model);

/* ---- communication (osc_newrma_ops.c) ---- */
int ompi_osc_newrma_put(const void *origin_addr, int origin_count,
                        struct ompi_datatype_t *origin_dt, int target, ptrdiff_t target_disp,
                        int target_count, struct ompi_datatype_t *target_dt,
                        struct ompi_win_t *win);
int ompi_osc_newrma_get(void *origin_addr, int origin_count, struct ompi_datatype_t *origin_dt,
                        int target, ptrdiff_t target_disp, int target_count,
                        struct ompi_datatype_t *target_dt, struct ompi_win_t *win);
int ompi_osc_newrma_accumulate(const void *origin_addr, int origin_count,
                               struct ompi_datatype_t *origin_dt, int target, ptrdiff_t target_disp,
                               int target_count, struct ompi_datatype_t *target_dt,
                               struct ompi_op_t *op, struct ompi_win_t *win);
int ompi_osc_newrma_compare_and_swap(const void *origin_addr, const void *compare_addr,
                                     void *result_addr, struct ompi_datatype_t *dt, int target,
                                     ptrdiff_t target_disp, struct ompi_win_t *win);
int ompi_osc_newrma_fetch_and_op(const void *origin_addr, void *result_addr,
                                 struct ompi_datatype_t *dt, int target, ptrdiff_t target_disp,
                                 struct ompi_op_t *op, struct ompi_win_t *win);
int ompi_osc_newrma_get_accumulate(const void *origin_addr, int origin_count,
                                   struct ompi_datatype_t *origin_dt, void *result_addr,
                                   int result_count, struct ompi_datatype_t *result_dt,
                                   int target_rank, ptrdiff_t target_disp, int target_count,
                                   struct ompi_datatype_t *target_dt, struct ompi_op_t *op,
                                   struct ompi_win_t *win);
int ompi_osc_newrma_rput(const void *origin_addr, int origin_count,
                         struct ompi_datatype_t *origin_dt, int target, ptrdiff_t target_disp,
                         int target_count, struct ompi_datatype_t *target_dt,
                         struct ompi_win_t *win, struct ompi_request_t **request);
int ompi_osc_newrma_rget(void *origin_addr, int origin_count, struct ompi_datatype_t *origin_dt,
                         int target, ptrdiff_t target_disp, int target_count,
                         struct ompi_datatype_t *target_dt, struct ompi_win_t *win,
                         struct ompi_request_t **request);
int ompi_osc_newrma_raccumulate(const void *origin_addr, int origin_count,
                                struct ompi_datatype_t *origin_dt, int target,
                                ptrdiff_t target_disp, int target_count,
                                struct ompi_datatype_t *target_dt, struct ompi_op_t *op,
                                struct ompi_win_t *win, struct ompi_request_t **request);
int ompi_osc_newrma_rget_accumulate(const void *origin_addr, int origin_count,
                                    struct ompi_datatype_t *origin_dt, void *result_addr,
                                    int result_count, struct ompi_datatype_t *result_dt,
                                    int target_rank, ptrdiff_t target_disp, int target_count,
                                    struct ompi_datatype_t *target_dt, struct ompi_op_t *op,
                                    struct ompi_win_t *win, struct ompi_request_t **request);

/* ---- synchronization (osc_newrma_sync.c) ---- */
int ompi_osc_newrma_fence(int mpi_assert, struct ompi_win_t *win);
int ompi_osc_newrma_start(struct ompi_group_t *group, int mpi_assert, struct ompi_win_t *win);
int ompi_osc_newrma_complete(struct ompi_win_t *win);
int ompi_osc_newrma_post(struct ompi_group_t *group, int mpi_assert, struct ompi_win_t *win);
int ompi_osc_newrma_wait(struct ompi_win_t *win);
int ompi_osc_newrma_test(struct ompi_win_t *win, int *flag);
int ompi_osc_newrma_lock(int lock_type, int target, int mpi_assert, struct ompi_win_t *win);
int ompi_osc_newrma_unlock(int target, struct ompi_win_t *win);
int ompi_osc_newrma_lock_all(int mpi_assert, struct ompi_win_t *win);
int ompi_osc_newrma_unlock_all(struct ompi_win_t *win);
int ompi_osc_newrma_sync(struct ompi_win_t *win);

/** PSCW_ISSUED -> PSCW_GRANTED once every POST arrived (progress engine).
 * @return 1 when the state moved, 0 when not, or an error. */
int ompi_osc_newrma_pscw_progress(ompi_osc_newrma_module_t *module);
/** The @p owed FENCE_DONEs of the fence of @p parity have all been applied:
 * take them off the window's count, and make an error that one of their
 * packets met the window's error (the fence returns it).
 * @return false while some have still to come. */
bool ompi_osc_newrma_fence_dones_take(ompi_osc_newrma_module_t *module, int parity, int32_t owed);
/** In a PSCW access epoch, OMPI_ERR_RMA_SYNC unless @p rank is in the
 * WIN_START group. */
int ompi_osc_newrma_pscw_check_target(ompi_osc_newrma_module_t *module, int rank);
/** A PSCW epoch's group is over (WIN_COMPLETE, WIN_WAIT); its translation
 * is kept for the next epoch. */
void ompi_osc_newrma_pscw_group_close(ompi_osc_newrma_pscw_group_t *g);
/** Release a PSCW group's translation and arrays (window free). */
void ompi_osc_newrma_pscw_group_fini(ompi_osc_newrma_pscw_group_t *g);
int ompi_osc_newrma_flush(int target, struct ompi_win_t *win);
int ompi_osc_newrma_flush_all(struct ompi_win_t *win);
int ompi_osc_newrma_flush_local(int target, struct ompi_win_t *win);
int ompi_osc_newrma_flush_local_all(struct ompi_win_t *win);

/** Move the window state by @p event (ompi_osc_newrma_win_state_next). */
int ompi_osc_newrma_win_state_move(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_win_event_t event);

/** Verbose output on the osc_newrma_verbose stream. */
/* The level is tested before the call: the fast paths (every state move)
 * neither call opal_output_verbose nor evaluate its arguments. */
#define OSC_NEWRMA_VERBOSE(level, ...)                                                             \
    do {                                                                                           \
        if (OPAL_UNLIKELY(mca_osc_newrma_component.verbose >= (level))) {                          \
            opal_output_verbose((level), mca_osc_newrma_component.output,                          \
                                "osc/newrma: " __VA_ARGS__);                                       \
        }                                                                                          \
    } while (0)

/** True while @p module has requests only opal_progress moves in flight:
 * a fence's non-blocking collective, PSCW's PML handshake.  The rest of
 * what a wait needs (packets, mailboxes, UCX's completions) the agent
 * brings.  Window lock held. */
static inline bool ompi_osc_newrma_pml_pending(const ompi_osc_newrma_module_t *module)
{
    return NULL != module->fence_req || module->pscw_access.pending > 0 ||
           module->pscw_exposure.pending > 0;
}

static inline ompi_osc_newrma_module_t *ompi_osc_newrma_module(struct ompi_win_t *win)
{
    return (ompi_osc_newrma_module_t *) win->w_osc_module;
}

/** @p rank's peer entry, made on first touch (osc_newrma_base_peer.h);
 * NULL only when it cannot be allocated.  Two loads when cached. */
static inline ompi_osc_newrma_peer_t *ompi_osc_newrma_peer(ompi_osc_newrma_module_t *module,
                                                           int rank)
{
    ompi_osc_newrma_peer_t *peer = module->peer_cache[rank & (OMPI_OSC_NEWRMA_PEER_CACHE - 1)];

    if (OPAL_LIKELY(NULL != peer && peer->rank == rank)) {
        return peer;
    }
    return ompi_osc_newrma_peer_make(module, rank);
}

/** An MPI_REPLACE lands in my window under its accumulate lock
 * (ompi_osc_newrma_pkt_land_window), which only progress ends: an
 * accumulate of mine to myself goes the full way, which waits for that
 * with progress instead of spinning on the lock. */
static inline bool ompi_osc_newrma_acc_self_landing(const ompi_osc_newrma_module_t *module,
                                                    int target)
{
    return 0 != module->acc_landings && target == module->my_rank;
}

/** Whether an access to @p peer may bypass the peer's agent (UCX RDMA or
 * atomics) in this epoch.  A fence is done here once my FENCE_DONEs are in,
 * while another origin's packets of the ending epoch may still wait in the
 * peer's inbox (or its RDMA read of the peer be on its way: the FENCE_DONE
 * it sent me went behind its packets to me): my packets of the next epoch
 * wait there behind them (pkt_epoch_hold), an RDMA write or read would
 * overtake them.  So after such a fence (fence.unsure) accesses go as
 * packets until the peer is known to be past it.  A window of one segment
 * guards the next epoch with fence_drained instead. */
static inline bool ompi_osc_newrma_peer_bypass_ok(const ompi_osc_newrma_module_t *module,
                                                  const ompi_osc_newrma_peer_t *peer)
{
    return 0 == module->fence.unsure || (int32_t) (peer->fence_drained - module->fence.unsure) >= 0;
}

/** Size of @p rank's window memory in bytes, once its layout is known
 * (myself, a rank of the shared segment, or a peer accessed before);
 * 0 until then. */
static inline size_t ompi_osc_newrma_peer_size(ompi_osc_newrma_module_t *module, int rank)
{
    const ompi_osc_newrma_peer_t *peer = ompi_osc_newrma_peer_find(module, rank);

    return NULL != peer && peer->layout_known ? peer->size : 0;
}

/** @p rank's displacement unit, once known (else mine). */
static inline int ompi_osc_newrma_peer_disp_unit(ompi_osc_newrma_module_t *module, int rank)
{
    const ompi_osc_newrma_peer_t *peer = ompi_osc_newrma_peer_find(module, rank);

    return NULL != peer && peer->layout_known ? peer->disp_unit : module->disp_unit;
}

/* The window lock.  Without MPI_THREAD_MULTIPLE the only other party that
 * may enter the window is the progress callback (opal_progress), and it
 * runs in this same thread: the held count keeps it out, no mutex needed
 * (an uncontended pthread mutex pair was a third of a node-local PUT). */
static inline void ompi_osc_newrma_module_lock(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_mutex_check(OMPI_OSC_NEWRMA_MUTEX_WINDOW);
    if (module->lock_mt) {
        opal_mutex_lock(&module->lock);
    }
    module->lock_held++;
    ompi_osc_newrma_mutex_held(OMPI_OSC_NEWRMA_MUTEX_WINDOW, 1);
}

static inline void ompi_osc_newrma_module_unlock(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_mutex_held(OMPI_OSC_NEWRMA_MUTEX_WINDOW, -1);
    module->lock_held--;
    if (module->lock_mt) {
        opal_mutex_unlock(&module->lock);
    }
}

/** An operation failed: the next synchronization that completes operations
 * (fence, complete, flush family, unlock, unlock_all) returns @p err (the
 * first one, if several failed meanwhile). */
static inline void ompi_osc_newrma_module_error(ompi_osc_newrma_module_t *module, int err)
{
    int32_t none = OMPI_SUCCESS;

    (void) opal_atomic_compare_exchange_strong_32(&module->error, &none, err);
}

/**
 * What a synchronization that completes operations returns: its own error
 * @p ret, else the operation error recorded since the last one was reported
 * (cleared either way: each is reported once).  Taken after the call's state
 * change, so an error never leaves an epoch half closed.
 */
static inline int ompi_osc_newrma_sync_result(ompi_osc_newrma_module_t *module, int ret)
{
    int err = 0 == module->error ? OMPI_SUCCESS : (int) opal_atomic_swap_32(&module->error, 0);

    return OMPI_SUCCESS != ret ? ret : err;
}

/** ompi_osc_newrma_sync_result of an origin's synchronization @p sync that
 * completed its accesses (flush, unlock, fence, complete): the next PUT or
 * GET to each target starts a new stream (sync_seq).  Window lock held. */
static inline int ompi_osc_newrma_sync_ended(ompi_osc_newrma_module_t *module,
                                             ompi_osc_newrma_sync_flag_t sync, int ret)
{
    module->sync_seq++;
    module->last_sync = sync;
    return ompi_osc_newrma_sync_result(module, ret);
}

/** @return true with the window lock taken, false when someone holds it. */
static inline bool ompi_osc_newrma_module_trylock(ompi_osc_newrma_module_t *module)
{
    if (module->lock_mt ? 0 != opal_mutex_trylock(&module->lock) : module->lock_held > 0) {
        return false;
    }
    module->lock_held++;
    ompi_osc_newrma_mutex_held(OMPI_OSC_NEWRMA_MUTEX_WINDOW, 1);
    return true;
}

END_C_DECLS

#endif /* OMPI_OSC_NEWRMA_H */
