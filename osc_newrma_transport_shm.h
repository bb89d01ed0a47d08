/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: node-local shared-memory segment.
 *
 * MPI_Win_allocate and MPI_Win_allocate_shared windows keep the memory of all
 * ranks of a node in one opal shmem segment, so node-local peers reach each
 * other's window with direct loads and stores.  MPI_Win_create and dynamic
 * windows whose ranks are all on one node have a segment of its control
 * part only (lock words, barrier, PSCW blocks), for FENCE and PSCW.
 */
#ifndef OMPI_OSC_NEWRMA_TRANSPORT_SHM_H
#define OMPI_OSC_NEWRMA_TRANSPORT_SHM_H

#include "ompi_config.h"

#include "opal/mca/shmem/shmem.h"

#include "osc_newrma_base_lockword.h"
#include "osc_newrma_base_types.h"

struct ompi_communicator_t;

/** The segment's layout starts at this alignment in its mapping (a cache
 * line; the layout's "lines" are relative to it); the segment is made
 * this much larger. */
#define OMPI_OSC_NEWRMA_SHM_ORIGIN 64
/** The windows' memory starts this far past a 4 KiB boundary: half a page
 * past where glibc's large allocations (mmap'd chunks) start.  The copies
 * of PUT and GET run between it and the user's buffers, and `rep movsb`
 * is fastest when the source is the same distance into 4 KiB as the
 * destination or a little ahead, or half a page away, slowest when the
 * destination is a little ahead: 2 MiB PUTs from a fresh malloc'd buffer
 * moved 36-39 GB/s into memory 128 bytes into its page, 45-48 into memory
 * 16 bytes in, 46-47 into memory 2064 bytes in (GETs 45-47 each way).  At
 * 16 bytes in, the window and such a buffer fell into the same L1 cache
 * sets element for element, and reductions that cannot use vectors ran
 * slower: a long double SUM of 2 MiB (x87) 520-600 us against 467-471 at
 * 2064; the vector loops (double SUM and MAX, 1-byte SUM) 33-40 GB/s
 * either way.  A page-aligned buffer is 2064 bytes behind. */
#define OMPI_OSC_NEWRMA_SHM_MEM_OFFSET 2064
/** The gap between the control part (a whole number of pages from ORIGIN)
 * and the windows' memory that puts the memory MEM_OFFSET into 4 KiB: a
 * page and a half of address space, no more resident memory (the gap
 * holds no data; its pages are the control part's last, one never
 * touched, and the memory's first). */
#define OMPI_OSC_NEWRMA_SHM_SKEW                                                                   \
    (4096 - OMPI_OSC_NEWRMA_SHM_ORIGIN + OMPI_OSC_NEWRMA_SHM_MEM_OFFSET)

/** Rounds of the node barrier a segment has room for: enough for any
 * int number of node ranks (ceil(log2(INT_MAX))). */
#define OMPI_OSC_NEWRMA_SHM_BARRIER_ROUNDS 31

/** One node rank's flags of the node barrier (after the lock words, one
 * per node rank, two cache lines): round k's flag is set to the barrier's
 * number by the rank 2^k below it, a dissemination barrier.  Each rank
 * spins on its own flags and stores into others' lines: no counter all
 * ranks write (an atomic add of a line that bounces between them), one
 * store and one load a round, ceil(log2(node ranks)) rounds. */
typedef struct {
    volatile int32_t round[OMPI_OSC_NEWRMA_SHM_BARRIER_ROUNDS];
    int32_t pad;
} ompi_osc_newrma_shm_barrier_t;

/** One rank's PSCW flags in the segment (after the barrier line, one block
 * per rank): who posted to it, a bit per window rank (set by the target's
 * MPI_Win_post, cleared by this rank's MPI_Win_start), and how many
 * MPI_Win_complete calls reached it (counted down by its MPI_Win_wait). */
typedef struct {
    volatile int32_t completes;
    /** the process of this node rank (the block of node rank i, whatever
     * the window's ranks): waiters check that it is alive */
    int32_t pid;
    /** FENCE_DONE packets sent to this rank by the fence of each parity
     * (windows whose RMA is not direct: ompi_osc_newrma_shm_fence_announce) */
    volatile int32_t fence_owed[2];
    volatile int64_t posted[];
} ompi_osc_newrma_shm_pscw_t;

/** Mailbox slots per rank (a window whose memory is the user's): a
 * node-local origin hands the target's agent one small PUT, GET or
 * accumulate through shared memory instead of UCX; more origins at once
 * than slots take UCX's paths. */
#define OMPI_OSC_NEWRMA_SHM_MBOX_SLOTS 2
/** operand bytes a slot carries in itself: a CAS's two operands and the
 * old values fit its data area */
#define OMPI_OSC_NEWRMA_SHM_MBOX_BYTES 32
/** bytes of the area each slot also has, after the segment's control part
 * (address space, its pages touched only by the ops that use them): an op
 * of more than OMPI_OSC_NEWRMA_SHM_MBOX_BYTES carries its operands there,
 * and the target stores the old values after them, so it holds up to half
 * (asserted to fit slot->len).  A reduction uses all of it: an
 * MPI_Accumulate SUM of 8-32 KiB + flush took 0.2-0.3 times its time as
 * packets (an active message over UCX's shared memory, copied into its
 * FIFO and out to a reassembly buffer before the agent reduces it) */
#define OMPI_OSC_NEWRMA_SHM_MBOX_AREA       65536
#define OMPI_OSC_NEWRMA_SHM_MBOX_AREA_BYTES (OMPI_OSC_NEWRMA_SHM_MBOX_AREA / 2)
/** the most a PUT, a GET, an MPI_REPLACE or an MPI_NO_OP read carries in
 * the area: beyond, their ways that wait for no one (RDMA, the cross-memory
 * copy) were as fast, and the slot's, which waits for the target's agent,
 * took 2-4 times as long in runs where the VM was slow to switch between
 * the processes (a 32 KiB MPI_NO_OP read 15 against 6 us) */
#define OMPI_OSC_NEWRMA_SHM_MBOX_COPY_BYTES 2048
/** where the cross-memory copy is cheap (ompi_osc_newrma_shm_cma_cheap),
 * PUTs, GETs, MPI_REPLACEs and MPI_NO_OP reads from this size take it
 * (osc_newrma_cma_bytes) */
#define OMPI_OSC_NEWRMA_CMA_CHEAP_BYTES 1024
/** where it is cheap, PUTs and GETs from this size take it after a flush
 * or an unlock (osc_newrma_cma_small_bytes) */
#define OMPI_OSC_NEWRMA_CMA_SMALL_BYTES 32
/** where it is cheap, the PUTs of a stream from this size take the copy
 * too (osc_newrma_cma_stream_bytes) */
#define OMPI_OSC_NEWRMA_CMA_STREAM_BYTES 4096
/** the smallest PUT, GET or MPI_NO_OP read the copy takes turns with UCX's
 * transfer for (osc_newrma_cma_pick) where the copy is dear; smaller ones,
 * and all where it is cheap, always take the copy */
#define OMPI_OSC_NEWRMA_CMA_PICK_BYTES 131072

typedef enum {
    OMPI_OSC_NEWRMA_SHM_MBOX_FREE = 0,
    /** an origin is filling it */
    OMPI_OSC_NEWRMA_SHM_MBOX_CLAIMED,
    /** filled: the target's agent may take it */
    OMPI_OSC_NEWRMA_SHM_MBOX_READY,
    /** the agent is applying it */
    OMPI_OSC_NEWRMA_SHM_MBOX_APPLYING,
    /** applied (status, old values set): the origin reads and frees it */
    OMPI_OSC_NEWRMA_SHM_MBOX_DONE
} ompi_osc_newrma_shm_mbox_state_t;

/** What origins read of a rank before they access it, on a line of its own
 * (the PSCW block's flags change every epoch): written once per fence or
 * window, read from the cache otherwise. */
typedef struct {
    /** the last fence whose FENCE_DONEs this rank has all applied (its
     * fence count): a direct access of the next epoch (RDMA, cross-memory
     * copy, mailbox) must not overtake another origin's packets */
    volatile int32_t fence_drained;
    /** this rank's agent polls its mailbox slots */
    volatile int32_t mbox_open;
    char pad[56];
} ompi_osc_newrma_shm_rank_t;

/** A slot's flags: the op fetches (the agent stores the old values after
 * the operands) */
#define OMPI_OSC_NEWRMA_SHM_MBOX_FETCH 0x1
/** the operands stay at the origin: the slot's data is an
 * ompi_osc_newrma_shm_mbox_ref_t, the agent reads them by cross-memory
 * copies (a reduction of osc_newrma_acc_stream_bytes) */
#define OMPI_OSC_NEWRMA_SHM_MBOX_BY_REF 0x2

/** the slot asks the agent to share a large PUT's or GET's cross-memory
 * copy with its origin (ompi_osc_newrma_shm_mbox_share_t, in its data) */
#define OMPI_OSC_NEWRMA_SHM_MBOX_SHARE 0x4
/** with OMPI_OSC_NEWRMA_SHM_MBOX_SHARE: the target's memory is in the
 * node's segment (a window of its memory, reached by loads and stores),
 * mapped at another address in each process, so the slot's addr is the
 * access's offset from the target's base */
#define OMPI_OSC_NEWRMA_SHM_MBOX_SEGMENT 0x8

/** Where a slot's operands lie at its origin (OMPI_OSC_NEWRMA_SHM_MBOX_BY_REF). */
typedef struct {
    /** their address in the origin's memory, and their bytes */
    uint64_t addr;
    uint64_t len;
    /** the origin's rank in the window */
    int32_t rank;
} ompi_osc_newrma_shm_mbox_ref_t;

/** A PUT or GET copied by its origin and its target's agent at once
 * (OMPI_OSC_NEWRMA_SHM_MBOX_SHARE), chunk by chunk, each taking the next
 * chunk nobody has taken: one process copying a peer's memory moved 2 MiB
 * in 200 us here, two copying halves of it 105 (the lines the other
 * process had just written came across one at a time), and where the
 * agent is not polling the origin takes every chunk itself.  Chunk c is
 * bytes [c * chunk, (c + 1) * chunk) of the access. */
typedef struct {
    /** the origin's buffer, in the origin's memory */
    uint64_t addr;
    uint64_t len;
    uint32_t chunk;
    /** the origin's rank in the window */
    int32_t rank;
    /** the next chunk to take (a fetch-and-add by either process) */
    volatile int32_t next;
    /** set by the agent: the chunks it copied, and whether a copy failed
     * (the origin then copies the whole access again; a reduction's
     * origin, which must not apply any part twice, the rest of the chunk
     * that failed from @p undone on) */
    int32_t by_target;
    int32_t failed;
    /** with @p failed: the first byte of the agent's chunk it did not
     * write, or @p len when it took no chunk */
    uint64_t undone;
    /** a fetching reduction's (OMPI_OSC_NEWRMA_SHM_MBOX_FETCH) result
     * buffer, in the origin's memory: the agent writes there the old values
     * of its chunks, by cross-memory copies, before it reduces them */
    uint64_t result;
} ompi_osc_newrma_shm_mbox_share_t;

/** the chunks a shared copy is cut into, unless they would be smaller
 * than osc_newrma_cma_share_chunk; and the largest chunk, within
 * ompi_osc_newrma_shm_mbox_share_t's 32 bits */
#define OMPI_OSC_NEWRMA_SHARE_CHUNKS 4
/** a shared reduction's chunks: computing, not only moving, bytes, each
 * process takes the next when done, so smaller chunks even out the
 * agent's late start and its extra copy.  Allocate windows, 2 MiB SUM of
 * doubles + flush in 4, 8, 16 and 32 chunks: 83-88, 60-74, 62-70, 74-82 us;
 * of long doubles 251-275, 248-256, 219-229, 223-229 (one process 375) */
#define OMPI_OSC_NEWRMA_SHARE_REDUCE_CHUNKS 16
#define OMPI_OSC_NEWRMA_SHARE_CHUNK_MAX     ((size_t) 1 << 30)

/** One mailbox slot: two cache lines, owned by its target's block. */
typedef struct ompi_osc_newrma_shm_mbox_t {
    volatile int32_t state;
    /** OMPI_SUCCESS, or why the target could not apply it */
    int32_t status;
    /** the op: kind, reduction and element type as in an ACC packet */
    uint8_t kind;
    /** OMPI_OSC_NEWRMA_SHM_MBOX_FETCH, OMPI_OSC_NEWRMA_SHM_MBOX_BY_REF */
    uint8_t flags;
    uint16_t acc_op;
    uint16_t acc_dt;
    uint16_t len;
    /** the target address */
    uint64_t addr;
    union {
        /** operands (len bytes), a CAS's compare value (len bytes), then
         * the old values the target stores for a fetching op (len bytes) */
        char data[3 * OMPI_OSC_NEWRMA_SHM_MBOX_BYTES + 8];
        /** a shared copy's (OMPI_OSC_NEWRMA_SHM_MBOX_SHARE) */
        ompi_osc_newrma_shm_mbox_share_t share;
    };
} ompi_osc_newrma_shm_mbox_t;
_Static_assert(sizeof(ompi_osc_newrma_shm_mbox_t) == 128, "a mailbox slot is two cache lines");
_Static_assert(OMPI_OSC_NEWRMA_SHM_MBOX_AREA_BYTES <= UINT16_MAX,
               "slot->len holds the most operands an area carries");

/** Where @p slot (of window rank @p rank's mailbox) carries its operands:
 * in itself up to OMPI_OSC_NEWRMA_SHM_MBOX_BYTES, else in its area.  Its
 * len must be set. */
char *ompi_osc_newrma_shm_mbox_data(const ompi_osc_newrma_module_t *module, int rank,
                                    ompi_osc_newrma_shm_mbox_t *slot);

/** Where the agent stores a fetching op's old values: after the operands
 * (in the slot, after room for a CAS's compare value, so that an op of up
 * to 13 bytes stays in the slot's first cache line). */
static inline char *ompi_osc_newrma_shm_mbox_result(char *data,
                                                    const ompi_osc_newrma_shm_mbox_t *slot)
{
    return data + (slot->len > OMPI_OSC_NEWRMA_SHM_MBOX_BYTES ? 1 : 2) * (size_t) slot->len;
}

typedef struct {
    /** a segment is attached */
    bool active;
    /** the segment holds every rank of the window (the node is the window):
     * FENCE synchronizes through it instead of a collective */
    bool whole;
    /** the node barrier's flags, one line pair per node rank */
    ompi_osc_newrma_shm_barrier_t *barrier;
    /** this rank's place in the node barrier and its state: the number of
     * its last barrier, the round it waits in, the rounds a barrier has */
    int node_rank;
    int32_t barrier_epoch;
    int barrier_round;
    int barrier_rounds;
    /** the PSCW blocks, @p pscw_stride bytes apart (window rank order) */
    char *pscw;
    size_t pscw_stride;
    /** per window rank: its line of what origins read, then its mailbox
     * slots (OMPI_OSC_NEWRMA_SHM_MBOX_SLOTS) */
    char *mbox;
    /** the slots' areas, in the same order (OMPI_OSC_NEWRMA_SHM_MBOX_AREA
     * bytes each) */
    char *mbox_areas;
    int node_size;
    /** RMA to node-local peers uses direct load/store (osc_newrma_shm) */
    bool direct;
    /** the segment's descriptor while one is attached, as the bytes it
     * really uses: opal_shmem_ds_t ends in a path of OPAL_PATH_MAX bytes,
     * which would be most of a window's memory (shm_ds_keep) */
    char *ds_kept;
    char *seg_base;
    size_t seg_bytes;
    /** names the segment among the cached ones (creator's vpid, sequence) */
    uint64_t seg_id;
    /** the window's ranks on this node: the window's own communicator when
     * it is all on one node, else split by MPI_COMM_TYPE_SHARED (owned) */
    struct ompi_communicator_t *node_comm;
    bool node_comm_owned;
    /** node rank 0 still has to unlink the backing file */
    bool linked;
    /** the window was created: its segment may be kept for the next one */
    bool complete;
    /** the segment is a cached one every node rank offered: nothing after
     * the placing allgather can fail, so a window on one node needs no
     * further agreement (module_agree) */
    bool reused;
    /** a rank said in that allgather that it lacks a peer's worker address
     * (ompi_osc_newrma_shm_sync_attach): they must be exchanged */
    bool addresses_needed;
} ompi_osc_newrma_shm_t;

/** The window's ranks are all in one segment: PSCW and FENCE synchronize
 * through it (flags, the barrier), with no message. */
static inline bool ompi_osc_newrma_shm_whole(const ompi_osc_newrma_shm_t *shm)
{
    return shm->active && shm->whole;
}

/** ... and its RMA travels by UCX, not loads and stores (a window of user
 * memory, or osc_newrma_shm 0): lock words and mailboxes in the segment,
 * data by packets, RDMA or mailbox slots. */
static inline bool ompi_osc_newrma_shm_indirect(const ompi_osc_newrma_shm_t *shm)
{
    return ompi_osc_newrma_shm_whole(shm) && !shm->direct;
}

/**
 * Collectively create the node segment and place every node-local rank's
 * @p size bytes in it (page-aligned per rank when @p noncontig).  Sets
 * module->peers[r].shm_base for each node-local rank r and *base_p to mine.
 * Collective over module->comm.  A rank whose creation already failed
 * (@p status) still takes part, so that every node rank returns an error
 * instead of waiting for it.  @p addresses: this rank lacks a peer's
 * worker address (module->shm.addresses_needed tells whether any does).
 */
int ompi_osc_newrma_shm_allocate(ompi_osc_newrma_module_t *module, size_t size, bool noncontig,
                                 int status, bool addresses, void **base_p);

/** A window whose memory is the user's (MPI_Win_create, dynamic windows)
 * has a segment of the control part only (ompi_osc_newrma_shm_sync_attach):
 * its ranks are all on this node and osc_newrma_shm is on.  The same on
 * every rank. */
bool ompi_osc_newrma_shm_sync_wanted(const ompi_osc_newrma_module_t *module);

/**
 * Such a window's segment of the control part only (lock words, the
 * barrier, PSCW flags), so that
 * FENCE and PSCW synchronize through it instead of messages and a
 * collective, as in windows allocated in a segment; RMA still goes by UCX
 * (packets, cross-memory copies).  Collective over module->comm.  A rank whose
 * creation already failed (@p status) still takes part.  @p addresses:
 * this rank lacks a peer's worker address (told to all, so that the
 * creation needs no further agreement when the segment is a reused one).
 */
int ompi_osc_newrma_shm_sync_attach(ompi_osc_newrma_module_t *module, int status, bool addresses);

/**
 * Window creation is complete on every node-local rank (they have all
 * attached): node rank 0 unlinks the backing file, so nothing is left
 * behind if a process dies.
 */
void ompi_osc_newrma_shm_created(ompi_osc_newrma_module_t *module);

/** Detach the segment (or keep it for the next window of the same node
 * ranks) and free the node communicator. */
void ompi_osc_newrma_shm_free(ompi_osc_newrma_module_t *module);

/** True when a process of the segment has died (a system call per
 * node-local peer: for waits that take long). */
bool ompi_osc_newrma_shm_peer_lost(ompi_osc_newrma_module_t *module);

/** Unmap every cached segment (component finalize). */
void ompi_osc_newrma_shm_cache_fini(void);

/**
 * The segment's barrier, in two steps so the caller can drive progress while
 * it waits: arrive enters the next barrier (module->shm.barrier_epoch),
 * done tells whether every node-local rank has arrived in it, taking the
 * rounds whose flags came meanwhile.  A dissemination barrier
 * (ompi_osc_newrma_shm_barrier_t); every node rank calls it alike.
 */
void ompi_osc_newrma_shm_barrier_arrive(ompi_osc_newrma_module_t *module);
bool ompi_osc_newrma_shm_barrier_done(ompi_osc_newrma_module_t *module);

/*
 * PSCW through the segment, for windows whose ranks are all in it
 * (module->shm.whole): no message, one atomic per group member.
 * The caller orders memory around them (MEM_SYNC before and after).
 */
/** MPI_Win_post to @p origin: my bit in its posted set. */
void ompi_osc_newrma_shm_post(ompi_osc_newrma_module_t *module, int origin);
/** Every target of @p ranks (@p n of them) has posted to me. */
bool ompi_osc_newrma_shm_posted(ompi_osc_newrma_module_t *module, const int *ranks, int n);
/** MPI_Win_start consumes those posts (after ompi_osc_newrma_shm_posted). */
void ompi_osc_newrma_shm_take_posts(ompi_osc_newrma_module_t *module, const int *ranks, int n);
/** FENCE_DONE of the fence of @p parity went to @p target: it will count
 * it after the segment's barrier. */
void ompi_osc_newrma_shm_fence_announce(ompi_osc_newrma_module_t *module, int target, int parity);
/** The FENCE_DONEs announced to me by the fence of @p parity (taken: the
 * count is back to 0). */
int32_t ompi_osc_newrma_shm_fence_owed(ompi_osc_newrma_module_t *module, int parity);
/** MPI_Win_complete to @p target. */
void ompi_osc_newrma_shm_complete(ompi_osc_newrma_module_t *module, int target);
/** @p n completes reached me: consume them and return true. */
bool ompi_osc_newrma_shm_completed(ompi_osc_newrma_module_t *module, int n);

/** @p rank's lock word in a segment at @p seg_base (the words come first,
 * one per node rank). */
static inline ompi_osc_newrma_lockword_t *ompi_osc_newrma_shm_lock_word(char *seg_base, int rank)
{
    return (ompi_osc_newrma_lockword_t *) seg_base + rank;
}

/** The last fence of which @p rank has applied every packet (its
 * fence_drained), and mine, set when my fence has taken its FENCE_DONEs. */
int32_t ompi_osc_newrma_shm_fence_drained(ompi_osc_newrma_module_t *module, int rank);
void ompi_osc_newrma_shm_set_fence_drained(ompi_osc_newrma_module_t *module, int32_t count);

/*
 * Mailboxes.  The target opens its slots once its agent polls them and
 * closes them before the window goes; an origin claims a free slot of an
 * open mailbox, fills it and posts it; the agent applies it and marks it
 * DONE; the origin takes the answer and frees the slot.
 */
void ompi_osc_newrma_shm_mbox_open(ompi_osc_newrma_module_t *module, bool open);
/** A free slot of @p rank's mailbox, now CLAIMED by me, or NULL (closed, or
 * every slot in use). */
ompi_osc_newrma_shm_mbox_t *ompi_osc_newrma_shm_mbox_claim(ompi_osc_newrma_module_t *module,
                                                           int rank);
/** The slot is filled: the target may apply it. */
void ompi_osc_newrma_shm_mbox_post(ompi_osc_newrma_shm_mbox_t *slot);
/** The slot was applied: its status and old values may be read. */
bool ompi_osc_newrma_shm_mbox_done(ompi_osc_newrma_shm_mbox_t *slot);
/** The posted slot back to CLAIMED if the target has not taken it yet (then
 * it will not apply it): @return true when taken back. */
bool ompi_osc_newrma_shm_mbox_retract(ompi_osc_newrma_shm_mbox_t *slot);
void ompi_osc_newrma_shm_mbox_free(ompi_osc_newrma_shm_mbox_t *slot);

/** How the agent applies a posted slot: returns the status the origin reads. */
typedef int (*ompi_osc_newrma_shm_mbox_apply_fn_t)(ompi_osc_newrma_module_t *module,
                                                   ompi_osc_newrma_shm_mbox_t *slot);
/** Apply every posted slot of my mailbox with @p apply.  @return how many. */
int ompi_osc_newrma_shm_mbox_poll(ompi_osc_newrma_module_t *module,
                                  ompi_osc_newrma_shm_mbox_apply_fn_t apply);
/** Every slot of my mailbox posted before now applied (by @p apply here, or
 * by another thread that took it first): an accumulate packet of an origin
 * that posted one is applied after it (target_acc.c's acc_handle). */
void ompi_osc_newrma_shm_mbox_settle(ompi_osc_newrma_module_t *module,
                                     ompi_osc_newrma_shm_mbox_apply_fn_t apply);
/** No slot of my mailbox is posted or being applied: what origins posted
 * before they arrived at a fence's barrier is applied once the barrier is
 * done and this holds. */
bool ompi_osc_newrma_shm_mbox_applied(ompi_osc_newrma_module_t *module);

/**
 * Copy @p len bytes between @p local and address @p remote of process
 * @p pid on this node, whose memory is not in a shared segment (a
 * `MPI_Win_create` or attached region): one process_vm_writev (@p write)
 * or process_vm_readv, complete when it returns.
 * @return OMPI_SUCCESS; OMPI_ERR_NOT_AVAILABLE when this process may not
 *         (the kernel refuses cross-memory attach, for good: the caller
 *         takes another path, now and from then on); another error when the
 *         copy failed (the peer is gone, or the range is not mapped).
 */
int ompi_osc_newrma_shm_cma(int32_t pid, bool write, void *local, uint64_t remote, size_t len);

/**
 * Take the next chunk of @p share nobody has taken, by a fetch-and-add on
 * share->next: its first byte's offset in the access and its length.
 * @return false when none is left.
 */
bool ompi_osc_newrma_shm_share_take(ompi_osc_newrma_shm_mbox_share_t *share, uint64_t *at_p,
                                    size_t *len_p);

/**
 * Copy the chunks of @p share that nobody has taken yet, taking each by a
 * fetch-and-add on share->next, between this process and process @p pid
 * (into it when @p write): @p mine and @p theirs are where the access's
 * first byte lies in this process and in that one.
 * @return the chunks copied; *@p status_p the first copy's failure
 *         (OMPI_SUCCESS left alone otherwise).
 */
int32_t ompi_osc_newrma_shm_share_run(ompi_osc_newrma_shm_mbox_share_t *share, int32_t pid,
                                      bool write, char *mine, uint64_t theirs, int *status_p);

/**
 * ompi_osc_newrma_shm_share_run for an origin that reaches the target's
 * memory by loads and stores (OMPI_OSC_NEWRMA_SHM_MBOX_SEGMENT): each chunk
 * it takes a memcpy between @p origin and @p there, into @p there when @p
 * put.  @return the chunks copied.
 */
int32_t ompi_osc_newrma_shm_share_local(ompi_osc_newrma_shm_mbox_share_t *share, bool put,
                                        char *origin, char *there);

/** @p rank's peer entry when a cross-memory copy can reach its process (on
 * this node, its pid looked up once into the entry's cma_pid), else NULL. */
struct ompi_osc_newrma_peer_t *ompi_osc_newrma_shm_cma_peer(ompi_osc_newrma_module_t *module,
                                                            int rank);

/**
 * Whether a cross-memory copy with process @p pid on this node can work:
 * once one has read a byte at its address @p remote (one system call per
 * process), true from then on, as the kernel's policy is the same for
 * every process of the job; false from the first refusal.  For a way that
 * must not find out half done (a reduction streamed through the mailbox
 * whose rest is the copy).
 */
bool ompi_osc_newrma_shm_cma_works(int32_t pid, uint64_t remote);

/**
 * Whether this kernel's cross-memory copy costs little more than a memcpy
 * beyond its system call: timed into this process's own memory (the kernel
 * walks and pins the pages as for a peer's), its time for 32 KiB less its
 * time for 8 bytes within three times a memcpy of 32 KiB.  On the
 * development VM one kernel took 5.2-5.5 us for 32 KiB (0.84 by memcpy),
 * another 1.4 (0.64), its call alone 0.38.
 */
bool ompi_osc_newrma_shm_cma_cheap(void);

#endif /* OMPI_OSC_NEWRMA_TRANSPORT_SHM_H */
