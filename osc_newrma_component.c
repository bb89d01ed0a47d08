/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: the MCA component (registration, init, query, select, finalize).
 */
#include "ompi_config.h"

#include "ompi/mca/osc/base/base.h"
#include "ompi/mca/osc/osc.h"
#include "opal/mca/base/mca_base_var.h"
#include "opal/runtime/opal_progress.h"

#include "osc_newrma.h"
#include "osc_newrma_base_copy.h"
#include "osc_newrma_base_comm.h"
#include "osc_newrma_target_acc.h"
#include "osc_newrma_target_mbox.h"
#include "osc_newrma_origin_acc.h"
#include "osc_newrma_am_pkt.h"
#include "osc_newrma_am_data.h"
#include "osc_newrma_am_region.h"
#include "osc_newrma_am_lock.h"
#include "osc_newrma_progress.h"
#include "osc_newrma_transport_shm.h"
#include "osc_newrma_transport_ucx.h"

static int component_register(void);
static int component_open(void);
static int component_init(bool enable_progress_threads, bool enable_mpi_threads);
static int component_finalize(void);
static int component_query(struct ompi_win_t *win, void **base, size_t size, int disp_unit,
                           struct ompi_communicator_t *comm, struct opal_info_t *info, int flavor);

extern int ompi_osc_newrma_pool_output;

ompi_osc_newrma_component_t mca_osc_newrma_component = {
    .super =
        {
            .osc_version =
                {
                    OMPI_OSC_BASE_VERSION_3_0_0,
                    .mca_component_name = "newrma",
                    MCA_BASE_MAKE_VERSION(component, OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION,
                                          OMPI_RELEASE_VERSION),
                    .mca_open_component = component_open,
                    .mca_register_component_params = component_register,
                },
            .osc_data = {MCA_BASE_METADATA_PARAM_NONE},
            .osc_init = component_init,
            .osc_query = component_query,
            .osc_select = ompi_osc_newrma_select,
            .osc_finalize = component_finalize,
        },
};

#define component mca_osc_newrma_component

static void register_uint(const char *name, const char *help, unsigned int *storage,
                          unsigned int value)
{
    *storage = value;
    (void) mca_base_component_var_register(&component.super.osc_version, name, help,
                                           MCA_BASE_VAR_TYPE_UNSIGNED_INT, NULL, 0, 0,
                                           OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY, storage);
}

static void register_ulong(const char *name, const char *help, unsigned long *storage,
                           unsigned long value)
{
    *storage = value;
    (void) mca_base_component_var_register(&component.super.osc_version, name, help,
                                           MCA_BASE_VAR_TYPE_UNSIGNED_LONG, NULL, 0, 0,
                                           OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY, storage);
}

static void register_long(const char *name, const char *help, long *storage, long value)
{
    *storage = value;
    (void) mca_base_component_var_register(&component.super.osc_version, name, help,
                                           MCA_BASE_VAR_TYPE_LONG, NULL, 0, 0, OPAL_INFO_LVL_5,
                                           MCA_BASE_VAR_SCOPE_READONLY, storage);
}

static void register_bool(const char *name, const char *help, bool *storage, bool value)
{
    *storage = value;
    (void) mca_base_component_var_register(&component.super.osc_version, name, help,
                                           MCA_BASE_VAR_TYPE_BOOL, NULL, 0, 0, OPAL_INFO_LVL_5,
                                           MCA_BASE_VAR_SCOPE_READONLY, storage);
}

static void register_int(const char *name, const char *help, int *storage, int value)
{
    *storage = value;
    (void) mca_base_component_var_register(&component.super.osc_version, name, help,
                                           MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_5,
                                           MCA_BASE_VAR_SCOPE_READONLY, storage);
}

/* The operation table, its pools and the synchronization engine. */
static void register_core(void)
{
    register_uint("priority",
                  "Priority of the newrma one-sided component; select it explicitly with "
                  "--mca osc newrma (default: 10)",
                  &component.priority, 10);
    register_int("verbose",
                 "Verbosity of osc/newrma output: 0 errors only, 10 setup, 20 failed calls, "
                 "30 packet-path PUTs, 50 epoch state changes (default: 0)",
                 &component.verbose, 0);
    register_uint("slots",
                  "Size of the operation table's slot array per window; capped at the window's "
                  "number of processes; info key \"slots\" overrides (default: 262144)",
                  &component.slots, 262144);
    register_uint("op_win_pool_size",
                  "Operation elements in each window's local pool (minimum 1); info key "
                  "\"op_win_pool_size\" overrides (default: 256)",
                  &component.op_win_pool_size, 256);
    register_uint("op_global_pool_size",
                  "Operation elements in the global pool shared by all windows (default: 16384)",
                  &component.op_global_pool_size, 16384);
    register_uint("target_win_pool_size",
                  "Target elements in each window's local pool (minimum 1); info key "
                  "\"target_win_pool_size\" overrides (default: 256)",
                  &component.target_win_pool_size, 256);
    register_uint("target_global_pool_size",
                  "Target elements in the global pool shared by all windows (default: 16384)",
                  &component.target_global_pool_size, 16384);
    register_uint("piggyback_threshold",
                  "Operations queued per target before they are issued eagerly; queued ones go "
                  "out at the closing synchronization with RMA_DONE piggybacked on the last; "
                  "info key \"piggyback_threshold\" overrides (default: 1)",
                  &component.piggyback_threshold, 1);
    register_ulong("single_op_threshold",
                   "Largest operation (bytes, basic datatype) sent together with LOCK and UNLOCK "
                   "in one message when it is alone in a lock epoch; info key "
                   "\"single_op_threshold\" overrides (default: 8192)",
                   &component.single_op_threshold, 8192);
    register_ulong("single_op_emulated_threshold",
                   "The same (single_op_threshold) to a peer whose RDMA UCX emulates in software "
                   "(its TCP transport), where the round trip the single op saves costs more "
                   "than the copies of an eager message: a lock epoch of one 32 KiB PUT or GET "
                   "over TCP took 30-34 us with LOCK sent first, 19-21 in one message; of "
                   "128 KiB 56-61 and 46-47; accumulates alike.  Above, an accumulate's "
                   "message costs more than the round trip (512 KiB SUM 113-138 us with LOCK "
                   "first, 288-310 in one message), a PUT or GET's from 1 MiB.  Queued behind "
                   "another origin's lock, data beyond lock_data_bytes is sent again after the "
                   "grant; info key \"single_op_emulated_threshold\" overrides (default: "
                   "131072)",
                   &component.single_op_emulated_threshold, 131072);
    register_bool("shm",
                  "Node-local peers use direct load/store on a shared-memory segment for "
                  "MPI_Win_allocate and MPI_Win_allocate_shared windows; 0 sends them through "
                  "UCX like remote peers; info key \"shm\" overrides (default: 1)",
                  &component.shm, true);
    register_bool("async_progress",
                  "Run a progress thread that wakes on the UCX worker's event descriptor, so "
                  "passive-target requests progress while the target computes outside MPI; "
                  "while the process's MPI calls progress, the thread stands down "
                  "(default: 0)",
                  &component.async_progress, false);
    register_ulong("lock_data_bytes",
                   "Bytes of operation data a target buffers for origins whose lock is not "
                   "granted yet; beyond it data is re-sent after the grant; info key "
                   "\"lock_data_bytes\" overrides (default: 65536)",
                   &component.lock_data_bytes, 65536);
    register_bool("lock_parallel",
                  "UCX path: lock epochs to several targets request their locks at once, as "
                  "tries that a target grants only if its lock is free; a refused or "
                  "out-of-order lock falls back to the queued request, one at a time in "
                  "MPI_Win_lock order, which cannot deadlock; 0 always queues one at a time; "
                  "info key \"lock_parallel\" overrides (default: 1)",
                  &component.lock_parallel, true);
    register_int("active_req_threshold",
                 "Transport requests in flight per window before an RMA call waits for some to "
                 "complete; negative never waits; info key \"active_req_threshold\" overrides "
                 "(default: 65536)",
                 &component.active_req_threshold, 65536);
    register_uint("wait_opal_every",
                  "A newrma call that waits (flush, unlock, fence, PSCW) while its window has "
                  "a collective or PML request in flight (a fence's exchange of counts, PSCW's "
                  "handshake through the PML) runs Open MPI's whole progress (every BTL, "
                  "libnbc, TCP sockets) once in this many rounds and only its own agent "
                  "(mailboxes, UCX worker) in the others; 1 every round, 0 is taken as 1 "
                  "(default: 4)",
                  &component.wait_opal_every, 4);
    register_uint("wait_opal_every_agent",
                  "The same for a wait with no such request in flight, for what only newrma's "
                  "agent brings (answers to packets, mailbox slots, UCX completions): "
                  "Open MPI's whole progress once in this many rounds, so that other "
                  "components and the user's requests still progress; 1 every round, 0 is "
                  "taken as 1 (default: 16)",
                  &component.wait_opal_every_agent, 16);
}

/* How the UCX path moves operations: aggregation, rendezvous, RDMA. */
static void register_ucx_transfers(void)
{
    register_ulong("aggregate_bytes",
                   "UCX path: small PUT and accumulate packets to one target, and the RMA_DONE "
                   "or UNLOCK behind them, are packed into one active message of up to this many "
                   "bytes, sent when full or when the window makes progress; 0 sends every "
                   "operation on its own; UCX's TCP receive segment (UCX_TCP_RX_SEG_SIZE) is "
                   "set to hold one such message unless the user set it, since larger messages "
                   "arrive in pieces several times slower; info key \"aggregate_bytes\" "
                   "overrides for a window, up to that segment (default: 262144)",
                   &component.aggregate_bytes, 262144);
    register_ulong("aggregate_node_bytes",
                   "UCX path: an aggregated message to a peer reached through UCX's shared "
                   "memory is sent once it holds this many bytes (if less than "
                   "aggregate_bytes): the target copies one out while the origin packs the "
                   "next, where a message of 256 KiB went by rendezvous only once full (a "
                   "stream of 2 KiB PUTs moved 5.0 GB/s instead of 3.4 here); 0: "
                   "aggregate_bytes for every peer (default: 16384)",
                   &component.aggregate_node_bytes, 16384);
    register_ulong("aggregate_threshold",
                   "UCX path: a contiguous PUT of at most this many bytes is copied into the "
                   "target's aggregated active message instead of using RDMA (its origin buffer "
                   "is free at once); larger ones use RDMA; 0 never; capped at aggregate_bytes; "
                   "info key \"aggregate_threshold\" overrides (default: 32768)",
                   &component.aggregate_threshold, 32768);
    register_ulong("rndv_threshold",
                   "UCX path: a contiguous GET (and, with rndv_puts, PUT) that travels as "
                   "packets (see bulk_packets) and has at least this many bytes goes as one "
                   "rendezvous active message instead of pipelined packets: UCX places the data "
                   "straight in the origin's buffer (GET) or the target's window (PUT), without "
                   "the receiver's copy out of its receive buffer; later packets of the same "
                   "origin wait at the target until the data is there.  To a peer reached over "
                   "TCP an accumulate of as many bytes goes by rendezvous too (its operands "
                   "land in a buffer at the target and are applied from there; a fetching "
                   "one's old values land straight in the result buffer; in chunks of 1 MiB, an "
                   "MPI_REPLACE or a read without the lock in one piece); 0 never; info key "
                   "\"rndv_threshold\" overrides (default: 262144)",
                   &component.rndv_threshold, 262144);
    register_bool("lone_rdma",
                  "UCX path: a contiguous PUT or GET of at most aggregate_threshold bytes that "
                  "is alone (the only operation queued for its target, no aggregated message "
                  "open to it, no packet sent to it since the last RMA_DONE) goes by UCX RDMA "
                  "where the "
                  "transport has it (shared memory, InfiniBand; not TCP), unless UNLOCK or "
                  "COMPLETE closes its epoch (they carry it in one message): UCX's own round "
                  "trip to a node-local peer took 0.6-0.9 us here, a packet and its "
                  "acknowledgement through both processes' progress engines 1.3-3.0; "
                  "operations that come in streams are still aggregated; 0: always aggregated "
                  "(default: 1)",
                  &component.lone_rdma, true);
    register_bool("rndv_puts",
                  "UCX path: a contiguous PUT of rndv_threshold bytes or more that travels as "
                  "packets (see bulk_packets; over TCP) goes by rendezvous too, as a GET's "
                  "answer does: UCX pushes it straight into the window (over TCP, interleaved "
                  "runs of 2026-11-29 evening: a 2 MiB PUT + flush 318-332 us against 499-587 "
                  "as packets, osc/pt2pt 288-306; that morning, on another VM, 293 against "
                  "227-234); a stream's PUTs land beside each other (counter landed_beside); "
                  "0: as pipelined packets of aggregate_bytes each, which the target "
                  "applies as they arrive (default: 1)",
                  &component.rndv_puts, true);
    register_bool("read_unlocked",
                  "UCX path, over TCP: an MPI_NO_OP read (MPI_Get_accumulate) "
                  "of a contiguous range of rndv_threshold bytes or more, under the plain "
                  "accumulate rule (acc_atomics 0), is answered by the target straight from its "
                  "window without its accumulate lock, as a GET is, in one rendezvous instead "
                  "of 256 KiB chunks copied under the lock; the target compares the lock word's "
                  "sequence before and after and, when an accumulate took the lock meanwhile, "
                  "reads again under it (counter reads_again); the origin's later packets wait "
                  "at the target until then (accumulate ordering); the origin's setting "
                  "decides; 0: always the copy under the lock (default: 1)",
                  &component.read_unlocked, true);
    register_bool("replace_in_window",
                  "UCX path, over TCP: an MPI_Accumulate with MPI_REPLACE of a contiguous range "
                  "that comes by rendezvous (rndv_threshold bytes or more), under the plain "
                  "accumulate rule (acc_atomics 0), lands straight in the target's window under "
                  "its accumulate lock, held for the transfer, as an osc/pt2pt target receives "
                  "it, instead of in a buffer copied into the window under the lock afterwards; "
                  "up to 8 land at once where their ranges are disjoint and nothing waits "
                  "(counter landed_beside); "
                  "meanwhile the window's other packets wait at the target and its own "
                  "accumulates to itself wait with progress.  Only where nothing else can wait "
                  "for that lock: one thread in the component (no MPI_THREAD_MULTIPLE, no "
                  "async_progress) and no other process of the node in the window (else its "
                  "lock word is in their shared segment); the target's setting decides; 0: "
                  "always the buffer (default: 1)",
                  &component.replace_in_window, true);
    register_bool("puts_join",
                  "UCX path: small contiguous PUTs (up to 256 bytes) aggregated for one target "
                  "travel as records of a PUTS packet (16 bytes of header each, where a PUT "
                  "packet has 64), and one to the bytes right after the previous record's "
                  "joins that record (64 8-byte PUTs to consecutive addresses: one record of "
                  "512 bytes, which the target copies at once); the same for the records of "
                  "an ACCS packet (acc_records), which the target reduces at once; 0: a "
                  "record per PUT or accumulate (default: 1)",
                  &component.puts_join, true);
    register_bool("acc_records",
                  "UCX path: a small contiguous MPI_Accumulate (up to 256 bytes of one "
                  "predefined type) packed by the call into its target's aggregated message "
                  "travels as a record of an ACCS packet, which carries accumulates of one op "
                  "and type (16 bytes of header each, where an ACC packet has 64 and the "
                  "type's description), applied in order with the message's other packets; "
                  "0: an ACC packet each (default: 1)",
                  &component.acc_records, true);
    register_bool("get_records",
                  "UCX path: a small contiguous MPI_Get (up to 512 bytes) requested by the "
                  "call in its target's aggregated message travels as a record of a GETS "
                  "packet (24 bytes each, where a GET packet has 64), and the target answers "
                  "all of a GETS packet's records with one GETS_REPLY (16 bytes and the data "
                  "each, where a GET_REPLY has 64); 0: a GET packet and a GET_REPLY each "
                  "(default: 1)",
                  &component.get_records, true);
    register_ulong("get_rdma_bytes",
                   "UCX path: a contiguous GET of at least this many bytes (up to "
                   "aggregate_threshold; larger ones are RDMA anyway) goes by UCX RDMA where the "
                   "transport has it (shared memory, InfiniBand; not TCP) also when other "
                   "operations are queued with it, unless UNLOCK or COMPLETE closes its epoch "
                   "(not a COMPLETE that is the segment's flag of a window all on one node): "
                   "a stream of 64 GETs of 2-32 KiB to a node-local peer moved 1.5-3.4 times the "
                   "bytes per second it moved as aggregated packets, of 512 B and less 0.5-0.8 "
                   "times; 0 never (default: 1024)",
                   &component.get_rdma_bytes, 1024);
    register_ulong("put_rdma_bytes",
                   "UCX path: a contiguous PUT of at least this many bytes (up to "
                   "aggregate_threshold; larger ones are RDMA anyway) goes by UCX RDMA where the "
                   "transport has it (shared memory, InfiniBand; not TCP) instead of being "
                   "copied into the target's aggregated message, also when other operations "
                   "are queued with it, unless UNLOCK or COMPLETE closes its epoch (not a "
                   "COMPLETE that is the segment's flag of a window all on one node); its origin "
                   "buffer is free once UCX has sent it; 0 never (default: 4096)",
                   &component.put_rdma_bytes, 4096);
}

/* Mailboxes, cross-memory copies, message buffers, the fence's exchange and
 * the accumulate rule. */
static void register_paths(void)
{
    register_bool("mailbox",
                  "A contiguous PUT, GET or accumulate-class operation (MPI_Accumulate, "
                  "MPI_Get_accumulate, MPI_Fetch_and_op, MPI_Compare_and_swap) of at most 32 "
                  "bytes, or of up to 2048 bytes in the slot's area (a reduction, not "
                  "MPI_REPLACE nor MPI_NO_OP, up to 32768, as any accumulate of pairs with "
                  "padding laid out as their type; not a CAS, nor a PUT of "
                  "put_rdma_bytes or more, which RDMA serves), that is alone at a node-local "
                  "peer of a window whose memory is the user's (MPI_Win_create, dynamic "
                  "windows, all ranks on one node) goes through "
                  "a mailbox slot in the window's shared segment, which the target's agent polls "
                  "and answers in place, instead of a UCX active message and its answer: one "
                  "round trip through shared memory instead of about 9,000 instructions of "
                  "messaging; the target applies an accumulate under the same atomicity rule as "
                  "a packet; "
                  "not with async_progress, whose thread sleeps until UCX has an event; 0: "
                  "UCX RDMA or packets (default: 1)",
                  &component.mailbox, true);
    register_long("cma_bytes",
                  "A contiguous PUT or GET of at least this many bytes to a node-local peer "
                  "whose memory is not in the window's shared segment (MPI_Win_create, "
                  "attached regions), alone in its target's queue (nothing queued behind it, "
                  "nothing earlier still to complete), is one process_vm_writev/readv, "
                  "complete when it returns, instead of UCX's transfer: up to twice as fast "
                  "for such an operation; a stream of them stays with UCX, whose pipeline "
                  "has both processes copying (one process copying alone, the kernel walking "
                  "the peer's pages call by call, moved half as much).  A lone 128 KiB GET + "
                  "flush took 11-16 us so against UCX's 11-29 (PUTs alike either way; from 8 "
                  "to 64 KiB neither way led).  Accumulates: osc_newrma_acc_cma_bytes.  Only "
                  "where osc_newrma_shm is on and the kernel allows cross-memory attach; info "
                  "key cma_bytes per window; 0 never; -1: 1024 where the copy is cheap "
                  "(osc_newrma_cma_cheap), else 131072.  Where nothing of this process is in "
                  "flight to the target, the MPI call itself copies one of up to "
                  "osc_newrma_aggregate_threshold bytes, the first to its target since the "
                  "last synchronization that completes accesses (flush, unlock, fence, "
                  "complete), even one of up to 2 KiB that the target's mailbox could take, "
                  "whose answer waits for the target's agent (a 2 KiB PUT + flush 1.25 us by "
                  "the mailbox, 0.55 by the copy on one kernel of the development VM); the "
                  "later ones of such a stream take the mailbox or UCX, which have both "
                  "processes copying (64 PUTs of 2 KiB + flush: 3.5 GB/s by the copy, 7.1 "
                  "through the mailbox) (default: -1)",
                  &component.cma_bytes, -1);
    register_long("cma_small_bytes",
                  "A PUT or GET (see osc_newrma_cma_bytes), or an MPI_REPLACE or MPI_NO_OP "
                  "read of up to 2 KiB (see osc_newrma_acc_cma_bytes), of at least this many "
                  "bytes, below those sizes, is the copy too when the window's last "
                  "synchronization that completed accesses was a flush or an unlock (for a "
                  "GET also a flush_local), as the next likely is: there the mailbox's answer, "
                  "which waits for the target's agent, is waited for (a 128-byte GET + flush "
                  "0.72 us through the mailbox, 0.48 by the copy), where a fence or "
                  "MPI_Win_complete waits for all targets while the agent answers and a PUT's "
                  "flush_local for nothing (a 128-byte GET under fence 1.01 us through the "
                  "mailbox, 1.20 by the copy; a PUT + flush_local 0.09 and 0.48).  PUTs of up "
                  "to 32 bytes, which the slot itself carries, stay there (32 bytes + flush "
                  "0.38 us, 0.46 by the copy); 0 never; -1: 32 where the copy is cheap "
                  "(osc_newrma_cma_cheap), else 0 (default: -1)",
                  &component.cma_small_bytes, -1);
    register_long("cma_stream_bytes",
                  "The PUTs of a stream (see osc_newrma_cma_bytes) of at least this many bytes "
                  "are copied by their MPI calls too, one after the other: 64 PUTs + flush "
                  "moved 12.1 GB/s so against 10.0 through UCX at 8 KiB, 7.4 against 6.3 at "
                  "4 KiB, 11.5 against 8.8 at 2 MiB, on a kernel whose copy is cheap "
                  "(osc_newrma_cma_cheap).  So are the MPI_REPLACEs and MPI_NO_OP reads of a "
                  "stream, each under the target's accumulate lock (64 REPLACEs of 8 KiB + flush "
                  "9.1 GB/s against 5.7-6.0 through the mailbox and packets, reads 9.0-10.1 "
                  "against 3.8-4.1).  The GETs of a stream are only from "
                  "osc_newrma_cma_share_bytes, shared with the target's agent: UCX moved "
                  "12.9 GB/s at 8 KiB where the copies moved 11.1, and as much at 128 KiB, "
                  "but 9.1-11.4 at 512 KiB-2 MiB where the shared copies moved 17.5-20.1; "
                  "0 never; -1: 4096 where the copy is cheap, else 0 (default: -1)",
                  &component.cma_stream_bytes, -1);
    register_long("cma_share_bytes",
                  "A PUT's or GET's cross-memory copy (see osc_newrma_cma_bytes), or an "
                  "MPI_REPLACE's or MPI_NO_OP read's under the target's accumulate lock "
                  "(osc_newrma_acc_cma_bytes; an MPI_REPLACE of this size goes by its MPI "
                  "call, each of a stream too), of at least "
                  "this many bytes, to a target whose window is not in a shared segment but "
                  "whose ranks are all on this node (its mailbox, osc_newrma_mailbox), is "
                  "shared with the target's agent: both processes copy at once, each taking "
                  "the next chunk of osc_newrma_cma_share_chunk bytes that nobody has taken, "
                  "so where the target is in MPI the copy takes about half the time (one "
                  "process moved 2 MiB that the other had just written in 200 us here, two "
                  "in 105), and where it is not the origin copies every chunk itself, at "
                  "the cost of a slot and an atomic per chunk (at 128 KiB the benchmark's GETs + "
                  "flush took 1.25 times as long so); 0 never (default: 262144)",
                  &component.cma_share_bytes, 262144);
    register_long("segment_share_bytes",
                  "A PUT or GET of at least this many contiguous bytes to a node-local peer "
                  "of a window held in the node's shared segment (MPI_Win_allocate, "
                  "MPI_Win_allocate_shared; loads and stores), copied with the target's agent "
                  "as osc_newrma_cma_share_bytes says: this process copies its chunks by "
                  "memcpy, the agent its own by the cross-memory copy.  Larger than that "
                  "one's, since a memcpy of what the caches hold moves faster than the "
                  "agent's copy: here a 2 MiB GET + flush took 51-66 us so instead of "
                  "137-154, 1 MiB 20-21 instead of 31-36, 512 KiB 14-15 instead of 11; "
                  "0 never (default: 1048576)",
                  &component.segment_share_bytes, 1048576);
    register_long("cma_share_chunk",
                  "The smallest chunk of a shared copy (osc_newrma_cma_share_bytes), which "
                  "is cut in four chunks where they are larger: each process takes one at a "
                  "time, by a fetch-and-add, and each is a system call that walks its pages "
                  "(a 512 KiB GET + flush took 30 us in 16 KiB chunks, 17 in 128 KiB, 19 by "
                  "one process; at least 4096) (default: 65536)",
                  &component.cma_share_chunk, 65536);
    register_bool("cma_pick",
                  "Such an operation (osc_newrma_cma_bytes) of 128 KiB or more, where the copy is "
                  "not cheap (osc_newrma_cma_cheap), is the cross-memory copy or UCX's "
                  "transfer, whichever moved a KiB faster in this window lately: each is "
                  "measured as it is used (each tried for 3 operations, the first after a "
                  "change of way not counted, then the faster taken for 4 the first time, "
                  "then for 32, and the other tried again, the stay doubling up to 1024 "
                  "each time it loses again; a UCX PUT timed until an endpoint flush behind it "
                  "completes, where its data is at the target as the copy's is; a new window "
                  "starts from what the last freed one learned, the faster way first), "
                  "since which is faster changes with the machine's state (here a 2 MiB "
                  "copy took 84 us one day and 220 the next, UCX's transfer 220 and then "
                  "125).  Likewise a lone MPI_REPLACE or MPI_NO_OP read of 2-32 KiB that "
                  "could be the copy (osc_newrma_acc_cma_bytes) is the copy or goes through the "
                  "target's mailbox, whose agent answered a 32 KiB read in a fence 2-3 times as "
                  "fast and, when the VM was slow to switch processes, 2-4 times as slow; "
                  "0: always the copy (default: 1)",
                  &component.cma_pick, true);
    register_int("cma_cheap",
                 "Whether the kernel's cross-memory copy is cheap, which sets the defaults of "
                 "osc_newrma_cma_bytes and osc_newrma_acc_cma_bytes (1024 where it is, else "
                 "131072 and 2049) and whether lone PUTs and GETs of 128 KiB or more take turns "
                 "with UCX's transfer (osc_newrma_cma_pick: only where it is not): -1 by a probe "
                 "at the component's start (a copy of 32 KiB into this process, its time less "
                 "that of 8 bytes within three times a memcpy's: 1.0 against 0.61 us on one "
                 "kernel of the development VM, 4.8 against 0.84 on another; and the copy of 8 "
                 "bytes within 1 us: 0.37 on the first, 1.4-1.8 on a third), 0 no, 1 yes "
                 "(default: -1)",
                 &component.cma_cheap, -1);
    register_long("acc_cma_bytes",
                  "An MPI_REPLACE, or an MPI_NO_OP read, of a contiguous range of at least "
                  "this many bytes of a node-local peer whose memory is not in the window's "
                  "shared segment (MPI_Win_create, attached regions), with nothing of this "
                  "process before it unapplied at the target, is one process_vm_writev/readv "
                  "under the target's accumulate lock instead of packets through the target's "
                  "agent (one of at most 2 KiB takes the target's mailbox first where a slot "
                  "is free): from 2.5 KiB to 2 MiB it took 0.6-0.9 times the packets' time here, "
                  "whose round trip through the agent costs more than the system call walking "
                  "the peer's pages.  Only where osc_newrma_shm is on and the kernel allows "
                  "cross-memory attach; info key acc_cma_bytes per window; 0 never; -1 by "
                  "osc_newrma_cma_cheap: 1024 where the copy is cheap, else 2049 (above the "
                  "most the mailbox carries) "
                  "(default: -1)",
                  &component.acc_cma_bytes, -1);
    register_ulong("acc_stream_bytes",
                   "An MPI_Accumulate with a reduction (not MPI_REPLACE) of a contiguous range of "
                   "at least this many bytes (up to osc_newrma_acc_stream_max_bytes) of elements "
                   "stored as they travel, to a node-local "
                   "peer whose memory is not in the window's shared segment (MPI_Win_create, "
                   "attached regions), alone at its target, leaves its operands where they are: "
                   "the target's mailbox slots carry where they lie, and the target's agent "
                   "reads them by cross-memory copies (process_vm_readv, 128 KiB at a time) and "
                   "reduces them into its window under its accumulate lock; complete when the "
                   "call that issues it (the flush, unlock, fence or complete) returns.  One "
                   "copy by the kernel, where the slot's area had the origin copy in and the "
                   "agent reduce out one after the other (SUM + flush of 32 KiB 6.8 us so, 3.7 "
                   "now; osc/pt2pt 5.0) and packets (above 32 KiB) UCX's copies twice.  A part "
                   "(osc_newrma_acc_stream_part) the agent has not taken within 50 us (a target "
                   "busy outside MPI) and the rest are read, reduced and written back by the "
                   "origin under that lock; only where cross-memory copies work; 0 never "
                   "(default: 8192)",
                   &component.acc_stream_bytes, 8192);
    register_ulong("acc_stream_max_bytes",
                   "The largest such reduction (osc_newrma_acc_stream_bytes): larger ones go as "
                   "packets, which have both processes copying (the origin into UCX's FIFO, the "
                   "agent out of it while it reduces), where the agent alone reads and reduces "
                   "a range its L2 cache does not hold (SUM + flush of 1 MiB 163 us as packets, "
                   "117 so; of 2 MiB 255 and 285) (default: 1048576)",
                   &component.acc_stream_max_bytes, 1048576);
    register_long("acc_fetch_copy_bytes",
                  "An MPI_Get_accumulate (not MPI_NO_OP) of a contiguous range of at least this "
                  "many bytes of elements stored as they travel, to a node-local peer whose "
                  "memory is not in the window's shared segment (MPI_Win_create, attached "
                  "regions), alone at its target, is read, reduced and written back by the "
                  "origin with cross-memory copies under the target's accumulate lock, as "
                  "osc/rdma does by GET and PUT under its lock: one of up to 2 KiB by the MPI "
                  "call itself when the window's last synchronization waited for its targets "
                  "(a flush or unlock; after a fence or MPI_Win_complete the target's mailbox), "
                  "larger ones when their flush, unlock, fence or complete issues them.  "
                  "Through the mailbox the operands and the old values were copied twice each, "
                  "one copy after the other (SUM + flush of 2 KiB 2.0-2.5 us so, 1.2 now; "
                  "osc/rdma 1.5), as packets (above 32 KiB) through UCX's FIFO (128 KiB 39 us, "
                  "18 now); 0 never; -1: 1024 where the copy is cheap (osc_newrma_cma_cheap), "
                  "else 0 (default: -1)",
                  &component.acc_fetch_copy_bytes, -1);
    register_ulong("acc_stream_part",
                   "Bytes of such a reduction (osc_newrma_acc_stream_bytes) per mailbox slot, "
                   "rounded down to whole elements: the most one take-back leaves to the origin "
                   "(default: 262144)",
                   &component.acc_stream_part, 262144);
    register_ulong("batch_rndv_bytes",
                   "UCX path: an aggregated message of more than this many bytes goes by "
                   "rendezvous where the transport's receive segment cannot hold it (shared "
                   "memory, InfiniBand; not TCP, whose segment is sized to aggregate_bytes): "
                   "it lands in a buffer of the component's pool at the target, instead of one "
                   "UCX allocates, fills fragment by fragment and frees per message (whose "
                   "page faults cost most of a strided PUT's time); 0 never (default: 65536)",
                   &component.batch_rndv_bytes, 65536);
    register_uint("am_buffers",
                  "UCX path: buffers of one aggregated message (aggregate_bytes) the process "
                  "keeps for reuse, made as needed up to this many; a send or rendezvous "
                  "receive of a full message takes one, and a rendezvous holds it until the "
                  "receiver has read it, so a window of large PUTs needs several dozen; "
                  "when all are out, an origin makes progress until one comes back (at "
                  "most 10 ms), and only then mallocs one, which goes eagerly (default: 64)",
                  &component.am_buffers, 64);
    register_uint("fence_alltoall_ranks",
                  "UCX path: MPI_Win_fence tells each rank how many FENCE_DONE packets the "
                  "closing epoch sent it with one collective: an all-to-all of one int per pair "
                  "on communicators of at most this many ranks (about as fast as a barrier for "
                  "few ranks), MPI_Reduce_scatter_block on larger ones (default: 4)",
                  &component.fence_alltoall_ranks, 4);
    register_uint("fence_packet_ranks",
                  "UCX path, windows without a shared segment: on communicators of at most this "
                  "many ranks MPI_Win_fence runs no collective: every rank sends every other one "
                  "FENCE_DONE packet (behind the closing epoch's packets to it, else alone) and "
                  "waits for one from each; 0 or 1 never (default: 4)",
                  &component.fence_packet_ranks, 4);
    register_int("copy_alias",
                 "Copies between user and window memory (direct PUT and GET, packets, "
                 "mailboxes) of 2 KiB or more whose destination is 1-64 bytes ahead of the "
                 "source modulo 4 KiB: 1 take a loop of 64-byte moves (glibc's memcpy "
                 "`rep movsb` ran a tenth of its speed there on AMD Zen CPUs without FSRM); "
                 "0 memcpy (as fast there on other CPUs, where the loop ran at half its "
                 "speed); -1 times both at the component's start and takes the loop only "
                 "where memcpy took more than twice as long (default: -1)",
                 &component.copy_alias, -1);
    register_int("bulk_packets",
                 "UCX path: how contiguous PUTs and GETs larger than aggregate_threshold "
                 "travel: 1 as pipelined packets that each fill one active message of "
                 "aggregate_bytes (the target's CPU copies them); 0 by UCX RDMA; -1 chooses per "
                 "peer: packets where UCX emulates RDMA in software (its TCP transport, where "
                 "they moved up to 3 times the bytes per second), RDMA where the transport has "
                 "it (default: -1)",
                 &component.bulk_packets, -1);
    register_bool("acc_atomics",
                  "UCX path: a single 4- or 8-byte integer element of FETCH_AND_OP, "
                  "COMPARE_AND_SWAP or an accumulate to a remote target is a UCX atomic (no "
                  "target progress needed; UCX_ATOMIC_MODE is set to cpu unless the user set "
                  "it, so UCX's atomics stay atomic with the CPU atomics the targets then use "
                  "for every element); 0: every remote accumulate is an ACC packet and every "
                  "accumulate on every window runs under the target's accumulate lock with "
                  "plain, vectorized loops (one message for many operations, and large "
                  "accumulates at memory speed) (default: 0)",
                  &component.acc_atomics, false);
}

/* Caches kept across windows, test hooks and counters. */
static void register_caches_and_hooks(void)
{
    register_ulong("shm_cache_bytes",
                   "Bytes of shared-memory segments of freed windows each process keeps mapped "
                   "for the next windows of the same node ranks (creating and unmapping a "
                   "segment is most of the cost of MPI_Win_allocate and MPI_Win_free on a node); "
                   "0 unmaps at once (default: 33554432)",
                   &component.shm_cache_bytes, 32UL << 20);
    register_bool("comm_cache",
                  "A freed window's communicator (a duplicate of the user's) is kept on the "
                  "user's communicator, freed with it, for the next window made on it: "
                  "ompi_comm_dup and ompi_comm_free were 15 of the 25 us of a window's "
                  "creation and free on one node; not under MPI_THREAD_MULTIPLE; set it alike "
                  "on every rank (default: 1)",
                  &component.comm_cache, true);
    register_uint("dynamic_regions",
                  "Regions of one target's dynamic window an origin keeps cached (address "
                  "range and rkey); the least recently used beyond it are looked up again "
                  "when next accessed (minimum 1, default: 64)",
                  &component.dynamic_regions, 64);
    register_int("test_fail_rdma",
                 "Test hook: the Nth UCX transfer (RDMA or atomic) this process completes is "
                 "reported as failed, to check that the error reaches the caller; 0 never "
                 "(default: 0)",
                 &component.test_fail_rdma, 0);
    register_int("test_fail_cma",
                 "Test hook: the Nth cross-memory copy (process_vm_readv/writev) this process "
                 "makes with another process fails, as one of a range not mapped, to check that "
                 "the copy's or the reduction's other process mends it or the error reaches the "
                 "caller; 0 never (default: 0)",
                 &component.test_fail_cma, 0);
    register_int(
        "test_fail_packet",
        "Test hook: the Nth PUT, GET or accumulate packet this process applies as a target "
        "fails (not applied), to check that the origin's completing call returns an "
        "error; each record of a PUTS, ACCS or GETS packet counts as one (osc_newrma_puts_join 0 "
        "makes a record one PUT or accumulate); 0 never (default: 0)",
        &component.test_fail_packet, 0);
    register_int("test_fail_create",
                 "Test hook: the next window creation of this process fails at one step, "
                 "to check that every rank fails it: 1 allocating the module, 2 recording a "
                 "peer's UCX worker address (only where addresses travel); 0 never "
                 "(default: 0)",
                 &component.test_fail_create, 0);
    register_int("test_node_size",
                 "Test hook: MPI_Win_allocate windows treat ranks of MPI_COMM_WORLD in blocks "
                 "of N (0-(N-1), N-(2N-1), ...) as separate nodes, so one machine runs "
                 "shared-memory and UCX peers of one window side by side as on a cluster; "
                 "0 uses the real nodes (default: 0)",
                 &component.test_node_size, 0);
    register_bool("stats",
                  "Print each window's counters (operations by path and kind, bytes, single-op "
                  "epochs, piggybacked packets, aggregation, lock waits, pool misses), summed "
                  "over its ranks, from rank 0 at MPI_Win_free; the same counters are MPI_T "
                  "performance variables osc_newrma_* (this process) and osc_newrma_win_* "
                  "(bound to a window) at any time (default: 0)",
                  &component.stats, false);
}

static int component_register(void)
{
    register_core();
    register_ucx_transfers();
    register_paths();
    register_caches_and_hooks();
    return ompi_osc_newrma_stats_register();
}

static int component_open(void)
{
    component.output = opal_output_open(NULL);
    opal_output_set_verbosity(component.output, component.verbose);
    ompi_osc_newrma_pool_output = component.output;
    return OMPI_SUCCESS;
}

/* Whether copies at short distances take the loop (osc_newrma_copy_alias),
 * before any window copies. */
static void copy_alias_choose(void)
{
    bool loop = component.copy_alias < 0 ? ompi_osc_newrma_copy_probe() : 0 != component.copy_alias;

    ompi_osc_newrma_copy_alias_span = loop ? OMPI_OSC_NEWRMA_COPY_ALIAS_SPAN : 0;
    OSC_NEWRMA_VERBOSE(10, "copies 1-%d bytes ahead of their source modulo 4 KiB: %s%s",
                       OMPI_OSC_NEWRMA_COPY_ALIAS_SPAN, loop ? "the loop" : "memcpy",
                       component.copy_alias < 0 ? " (probed)" : "");
}

/* The sizes from which node-local transfers take the cross-memory copy
 * (osc_newrma_cma_bytes, osc_newrma_acc_cma_bytes), before any window:
 * where the copy is cheap (osc_newrma_cma_cheap), a PUT or GET of 1 KiB or
 * more is cheaper by the copy than by the target's mailbox, whose answer
 * waits for the target's agent. */
static void cma_choose(void)
{
    bool probe = component.shm && component.cma_cheap < 0;
    bool cheap = probe ? ompi_osc_newrma_shm_cma_cheap() : component.cma_cheap > 0;

    if (component.cma_bytes < 0) {
        component.cma_bytes = cheap ? OMPI_OSC_NEWRMA_CMA_CHEAP_BYTES : 131072;
    }
    if (component.acc_cma_bytes < 0) {
        /* where it is dear, the mailbox's answer (0.44-0.56 us for 2 KiB
         * + flush) beats the copy's system call (1.76-2.18) up to the
         * most the mailbox carries; beyond, packets through the agent
         * (8 KiB 3.1-4.1 us) lose to the copy (1.1-1.4) */
        component.acc_cma_bytes =
            cheap ? OMPI_OSC_NEWRMA_CMA_CHEAP_BYTES : OMPI_OSC_NEWRMA_SHM_MBOX_COPY_BYTES + 1;
    }
    /* where it is cheap the copy runs at memcpy's speed: UCX's transfer,
     * whose time the pick reads before the flush waits for it, is not
     * tried against it */
    component.cma_pick_bytes = cheap ? SIZE_MAX : OMPI_OSC_NEWRMA_CMA_PICK_BYTES;
    /* the MPI_REPLACEs and MPI_NO_OP reads the copy takes, the mailbox
     * leaves to it */
    component.mbox_copy_bytes = OMPI_OSC_NEWRMA_SHM_MBOX_COPY_BYTES;
    if (component.acc_cma_bytes > 0 &&
        (size_t) component.acc_cma_bytes < OMPI_OSC_NEWRMA_SHM_MBOX_COPY_BYTES) {
        component.mbox_copy_bytes = (size_t) component.acc_cma_bytes - 1;
    }
    if (component.cma_small_bytes < 0) {
        component.cma_small_bytes = cheap ? OMPI_OSC_NEWRMA_CMA_SMALL_BYTES : 0;
    }
    if (component.cma_stream_bytes < 0) {
        component.cma_stream_bytes = cheap ? OMPI_OSC_NEWRMA_CMA_STREAM_BYTES : 0;
    }
    /* a chunk a page at least, and within the share's 32-bit field */
    if (component.cma_share_chunk < 4096) {
        component.cma_share_chunk = 4096;
    } else if ((size_t) component.cma_share_chunk > OMPI_OSC_NEWRMA_SHARE_CHUNK_MAX) {
        component.cma_share_chunk = (long) OMPI_OSC_NEWRMA_SHARE_CHUNK_MAX;
    }
    if (component.acc_fetch_copy_bytes < 0) {
        component.acc_fetch_copy_bytes = cheap ? OMPI_OSC_NEWRMA_CMA_CHEAP_BYTES : 0;
    }
    OSC_NEWRMA_VERBOSE(
        10, "cross-memory copies %s%s: from %ld bytes, MPI_REPLACE and MPI_NO_OP from %ld",
        cheap ? "cheap" : "dear", probe ? " (probed)" : "", component.cma_bytes,
        component.acc_cma_bytes);
}

static int component_init(bool enable_progress_threads, bool enable_mpi_threads)
{
    int ret;

    (void) enable_progress_threads;
    component.enable_mpi_threads = enable_mpi_threads;
    OBJ_CONSTRUCT(&component.lock, opal_mutex_t);
    OBJ_CONSTRUCT(&component.windows_lock, opal_mutex_t);
    OBJ_CONSTRUCT(&component.modules_lock, opal_mutex_t);
    OBJ_CONSTRUCT(&component.inbox_lock, opal_mutex_t);
    OBJ_CONSTRUCT(&component.inbox, opal_list_t);
    OBJ_CONSTRUCT(&component.held, opal_list_t);
    OBJ_CONSTRUCT(&component.shm_cache, opal_list_t);
    OBJ_CONSTRUCT(&component.modules, opal_hash_table_t);
    OBJ_CONSTRUCT(&component.windows, opal_list_t);
    OBJ_CONSTRUCT(&component.endpoints, opal_hash_table_t);
    copy_alias_choose();
    cma_choose();
    /* the engine behind every layer's waits, before any window exists */
    ompi_osc_newrma_progress_register();
    /* the target's packet handlers, before any window can receive one */
    ompi_osc_newrma_pkt_data_register_handlers();
    ompi_osc_newrma_pkt_region_register_handlers();
    ompi_osc_newrma_pkt_lock_register_handlers();
    ompi_osc_newrma_lock_register_handlers();
    ompi_osc_newrma_acc_register_handlers(ompi_osc_newrma_mbox_apply);
    ompi_osc_newrma_acc_register_reply_handler();
    ret = opal_hash_table_init(&component.modules, 16);
    if (OPAL_SUCCESS == ret) {
        ret = opal_hash_table_init(&component.endpoints, 64);
    }
    if (OPAL_SUCCESS == ret) {
        ret = ompi_osc_newrma_pkt_init();
    }
    if (OPAL_SUCCESS == ret) {
        ret = ompi_osc_newrma_pkt_data_init();
    }
    if (OPAL_SUCCESS == ret) {
        ret = ompi_osc_newrma_module_reserve_init();
    }
    if (OPAL_SUCCESS == ret) {
        ret = ompi_osc_newrma_comm_init(component.comm_cache && !enable_mpi_threads);
    }
    component.pools_ready = false;
    component.progress_registered = false;
    component.progress_busy = 0;
    component.lock_waiters = 0;
    component.progress_thread_running = false;
    component.ucp_context = NULL;
    component.ucp_worker = NULL;
    return ret;
}

static int component_finalize(void)
{
    ompi_osc_newrma_progress_thread_stop();
    if (component.progress_registered) {
        opal_progress_unregister(ompi_osc_newrma_progress_cb);
        component.progress_registered = false;
    }
    ompi_osc_newrma_pkt_drain();
    ompi_osc_newrma_ucx_fini();
    ompi_osc_newrma_pkt_fini();
    ompi_osc_newrma_pkt_data_fini();
    if (component.pools_ready) {
        (void) ompi_osc_newrma_pool_fini(&component.op_global_pool);
        (void) ompi_osc_newrma_pool_fini(&component.target_global_pool);
        component.pools_ready = false;
    }
    ompi_osc_newrma_module_reserve_fini();
    ompi_osc_newrma_comm_fini();
    OBJ_DESTRUCT(&component.endpoints);
    OBJ_DESTRUCT(&component.modules);
    OBJ_DESTRUCT(&component.windows);
    OBJ_DESTRUCT(&component.inbox);
    OBJ_DESTRUCT(&component.held);
    ompi_osc_newrma_shm_cache_fini();
    OBJ_DESTRUCT(&component.shm_cache);
    OBJ_DESTRUCT(&component.inbox_lock);
    OBJ_DESTRUCT(&component.windows_lock);
    OBJ_DESTRUCT(&component.modules_lock);
    OBJ_DESTRUCT(&component.lock);
    opal_output_close(component.output);
    component.output = -1;
    ompi_osc_newrma_pool_output = -1;
    return OMPI_SUCCESS;
}

static int component_query(struct ompi_win_t *win, void **base, size_t size, int disp_unit,
                           struct ompi_communicator_t *comm, struct opal_info_t *info, int flavor)
{
    (void) win, (void) base, (void) size, (void) disp_unit, (void) comm, (void) info, (void) flavor;
    /* every flavor; a shared window spanning nodes fails in select with
     * MPI_ERR_RMA_SHARED */
    return (int) component.priority;
}
