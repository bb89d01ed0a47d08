/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: UCX transport.
 *
 * One ucp_context / ucp_worker per process, created with the first window.
 * Endpoints are created on first use of a peer from the worker address that
 * the peer published in a window-creation exchange; they live as long as
 * the component.  RDMA (ucp_put_nbx / ucp_get_nbx) moves PUT/GET data;
 * active messages carry the design's control packets.
 *
 * Completion callbacks run inside ucp_worker_progress() and only touch
 * atomic counters.
 */
#ifndef OMPI_OSC_NEWRMA_TRANSPORT_UCX_H
#define OMPI_OSC_NEWRMA_TRANSPORT_UCX_H

#include "ompi_config.h"

#include <ucp/api/ucp.h>

#include "opal/sys/atomic.h"

#include "osc_newrma_base_types.h"

struct ompi_proc_t;

/** Active-message id of every osc/newrma packet. */
#define OMPI_OSC_NEWRMA_AM_ID 0x6e

/** Endpoint cache entry for one peer process. */
struct ompi_osc_newrma_endpoint_t {
    ucp_ep_h ep;
    void *address;
    size_t address_len;
    /** every RDMA lane of ep is emulated in software (UCX's TCP transport) */
    bool rdma_emulated;
    /** UCX reported the peer failed (its error handler), or its process is
     * gone: ep is unusable */
    volatile bool lost;
    /** on this node (osc_newrma_test_node_size's simulated node, if set):
     * watched by process id, not by UCX's peer error handling */
    bool local;
    /** the peer's process id, from its published address */
    int32_t pid;
};

/**
 * Where a received active message goes (@p hdr, then @p payload, which the
 * receiver may keep, with @p may_keep, until it calls
 * ompi_osc_newrma_ucx_am_data_release).  With @p rndv the payload has not
 * arrived: @p payload is the rendezvous descriptor of its @p payload_len
 * bytes, for ompi_osc_newrma_ucx_am_recv (not kept: cancelled).
 * @return true when it was kept.
 */
typedef bool (*ompi_osc_newrma_ucx_am_deliver_fn_t)(const void *hdr, size_t hdr_len, void *payload,
                                                    size_t payload_len, bool may_keep, bool rndv);

/** Completion of ompi_osc_newrma_ucx_am_recv, _am_send_rndv and
 * _rdma_at_call: OMPI_SUCCESS or an error. */
typedef void (*ompi_osc_newrma_ucx_recv_done_fn_t)(void *ctx, int status);

/**
 * Create the UCX context and worker; received active messages go to
 * @p deliver, completions of ompi_osc_newrma_ucx_rdma_at_call to
 * @p at_call_done.  Idempotent.  Caller holds the component lock.
 */
int ompi_osc_newrma_ucx_init(bool thread_multiple, ompi_osc_newrma_ucx_am_deliver_fn_t deliver,
                             ompi_osc_newrma_ucx_recv_done_fn_t at_call_done);

/** Close every endpoint and destroy the worker and context. */
void ompi_osc_newrma_ucx_fini(void);

/** Whether @p proc's worker address (or endpoint) is known already. */
bool ompi_osc_newrma_ucx_knows(struct ompi_proc_t *proc);

/** Remember @p proc's worker address (first one wins); no endpoint yet. */
int ompi_osc_newrma_ucx_learn_address(struct ompi_proc_t *proc, const void *address, size_t len);

/**
 * Endpoint to @p proc, created on first use; *@p rdma_emulated (unless
 * NULL) tells whether UCX reaches @p proc only through transports that
 * emulate RDMA in software, such as TCP: there, the target's CPU moves every
 * byte anyway, and active messages outrun UCX's RDMA protocol.
 * @return OMPI_SUCCESS or OMPI_ERR_UNREACH
 */
int ompi_osc_newrma_ucx_ep(struct ompi_proc_t *proc, ucp_ep_h *ep_p, bool *rdma_emulated);

/**
 * Peer failure.  Endpoints to peers on other nodes are made with UCX's peer
 * error handling: when such a peer dies (its connection breaks, or UCX's
 * keepalive finds it gone) its operations in flight complete with an
 * error and the endpoint is marked lost.  A peer on this node is watched
 * by its process id instead.  ompi_osc_newrma_ucx_ep refuses a lost
 * endpoint (MPI_ERR_OTHER).
 * @return how many endpoints UCX reported lost so far (a cheap check for
 * waiters).
 */
int32_t ompi_osc_newrma_ucx_losses(void);

/** Have UCX watch @p proc, a peer on another node whose messages come
 * by other ways (the PML's PSCW handshake): its endpoint is made if it
 * does not exist, so that its death is reported.  Best effort. */
void ompi_osc_newrma_ucx_watch(struct ompi_proc_t *proc);

/** True when the endpoint to @p proc was lost; with @p check_local, a
 * node-local peer whose process is gone counts too (a system call). */
bool ompi_osc_newrma_ucx_proc_lost(struct ompi_proc_t *proc, bool check_local);

/** The process id of @p proc when it is on this node (the simulated node,
 * if set) and its worker address is known, else -1. */
int32_t ompi_osc_newrma_ucx_local_pid(struct ompi_proc_t *proc);

/** Register [addr, addr+len) and pack its rkey. Outputs are written only on success. */
int ompi_osc_newrma_ucx_mem_map(void *addr, size_t len, ucp_mem_h *memh_p, void **rkey_p,
                                size_t *rkey_len_p);

/** Undo ompi_osc_newrma_ucx_mem_map (either argument may be NULL). */
void ompi_osc_newrma_ucx_mem_unmap(ucp_mem_h memh, void *rkey_packed);

/** Unpack a peer's rkey for use on @p ep. */
int ompi_osc_newrma_ucx_rkey_unpack(ucp_ep_h ep, const void *packed, ucp_rkey_h *rkey_p);

/**
 * Start one RDMA transfer of @p op (PUT writes @p buf to @p raddr, GET reads
 * into @p buf).  When it does not complete at once, op->outstanding and the
 * window's active_reqs count it until its callback runs.
 */
int ompi_osc_newrma_ucx_rdma(ompi_osc_newrma_op_t *op, ucp_ep_h ep, void *buf, size_t len,
                             uint64_t raddr, ucp_rkey_h rkey);

/**
 * ompi_osc_newrma_ucx_rdma of a PUT, then an endpoint flush counted as the
 * op's last transfer: the op completes when its data is at the target, not
 * when UCX may reuse @p buf (a shared-memory PUT's data may still wait in
 * the target's FIFO then), so that its op->timed_ns measures what a
 * cross-memory copy does.
 */
int ompi_osc_newrma_ucx_rdma_flushed(ompi_osc_newrma_op_t *op, ucp_ep_h ep, void *buf, size_t len,
                                     uint64_t raddr, ucp_rkey_h rkey);

/**
 * One RDMA transfer for no op element (@p put: write @p buf to @p raddr,
 * else read it into @p buf): the at_call_done handler given to
 * ompi_osc_newrma_ucx_init runs once with @p ctx and the outcome when it
 * completes locally (at once, or later from UCX progress:
 * it may take no lock above INBOX), unless this returns an error (then
 * nothing started).
 */
int ompi_osc_newrma_ucx_rdma_at_call(bool put, ucp_ep_h ep, void *buf, size_t len, uint64_t raddr,
                                     ucp_rkey_h rkey, void *ctx);

/**
 * Start one UCX atomic of @p op on a @p size-byte element at @p raddr:
 * @p operand as ucp_atomic_op_nbx's buffer, @p reply (or NULL) as its reply
 * buffer.  Counted like ompi_osc_newrma_ucx_rdma.
 */
int ompi_osc_newrma_ucx_atomic(ompi_osc_newrma_op_t *op, ucp_ep_h ep, ucp_atomic_op_t opcode,
                               const void *operand, size_t size, void *reply, uint64_t raddr,
                               ucp_rkey_h rkey);

/**
 * RMA_DONE for RDMA operations: ucp_ep_flush_nbx completes once every RDMA
 * operation issued on @p ep is complete at the target; that completion is
 * the RMA_DONE_ACK.  *@p counter is incremented now and decremented then.
 */
int ompi_osc_newrma_ucx_rma_done(ucp_ep_h ep, ompi_osc_newrma_atomic_t *counter);

/**
 * Send an active message: header and a payload in two optional pieces.  All
 * are copied, so the caller may reuse them when this returns.
 */
int ompi_osc_newrma_ucx_am_send2(ucp_ep_h ep, const void *hdr, size_t hdr_len, const void *p1,
                                 size_t len1, const void *p2, size_t len2);

/**
 * An active message built in place (aggregation): room for a @p hdr_len
 * header and @p capacity bytes of payload, returned as the header's address
 * (the payload follows it).  Send it with ompi_osc_newrma_ucx_am_send_buffer
 * or give it back with ompi_osc_newrma_ucx_am_buffer_free.  @return NULL
 * when out of memory.
 */
void *ompi_osc_newrma_ucx_am_buffer(size_t hdr_len, size_t capacity);

/** Room for @p capacity bytes of payload in a buffer from
 * ompi_osc_newrma_ucx_am_buffer, its contents kept; @return its new address,
 * or NULL when out of memory (the old buffer stays valid). */
void *ompi_osc_newrma_ucx_am_buffer_resize(void *data, size_t capacity);

void ompi_osc_newrma_ucx_am_buffer_free(void *data);

/**
 * Whether the kernel would copy a rendezvous payload read from @p src into a
 * TCP socket at a fraction of its speed: UCX's TCP transport sends the
 * payload right behind its 25-byte PUT header (UCX 1.13: a 5-byte AM header
 * and a 20-byte PUT request, one sendmsg of 2097177 bytes for 2 MiB under
 * strace), so it lands 25 bytes into a page fragment the socket reuses from
 * its start, and the kernel's rep movsb runs 14 times slower when the
 * destination is 1-15 bytes ahead of the source within a page (a user-space
 * rep movsb of 2 MiB here: 602 against 43-65 us).  A buffer malloc'd by
 * glibc's mmap starts 16 bytes into its page: a 2 MiB MPI_NO_OP read
 * answered from such a window took 800-1090 us against 320-350 at other
 * offsets.
 */
bool ompi_osc_newrma_ucx_tcp_slow_source(const void *src);

/** True when ompi_osc_newrma_ucx_am_buffer(@p hdr_len, @p capacity) would
 * have to malloc a buffer (a full aggregated message's) while one of the
 * pool's is on its way back: a send of it is in flight and completes once
 * its receiver has read it, as the worker makes progress. */
bool ompi_osc_newrma_ucx_am_buffer_awaited(size_t hdr_len, size_t capacity);

/** Send a buffer from ompi_osc_newrma_ucx_am_buffer with @p payload_len
 * bytes of payload, eagerly or with @p rndv by rendezvous (the receiver
 * then chooses where the payload goes); the transport owns (and frees) it
 * from here on, also when the send fails. */
int ompi_osc_newrma_ucx_am_send_buffer(ucp_ep_h ep, void *data, size_t payload_len, bool rndv);

/** Order RMA issued before against RMA issued after (no round trip). */
int ompi_osc_newrma_ucx_fence(void);

/**
 * Send an active message whose payload is @p op's own data (@p data, not
 * copied: it must stay valid until the op completes), after @p prefix_len
 * bytes at @p prefix (not copied either; 0 for none), counted in
 * op->outstanding like an RDMA transfer.  @p rndv: by rendezvous (the
 * receiver places the payload, see ompi_osc_newrma_ucx_am_recv), else eager.
 * A rendezvous's prefix is copied into the header, behind @p hdr, where the
 * worker's headers hold it: the receiver then gets a header longer than
 * @p hdr_len, and only the data as payload.
 */
int ompi_osc_newrma_ucx_am_send_op(ompi_osc_newrma_op_t *op, ucp_ep_h ep, const void *hdr,
                                   size_t hdr_len, const void *prefix, size_t prefix_len,
                                   const void *data, size_t len, bool rndv);

/**
 * Send an active message by rendezvous, its payload @p data read in place
 * until @p done(@p ctx) runs (at once, or from UCX progress: no lock above
 * INBOX), once, unless this returns an error.
 */
int ompi_osc_newrma_ucx_am_send_rndv(ucp_ep_h ep, const void *hdr, size_t hdr_len, const void *data,
                                     size_t len, ompi_osc_newrma_ucx_recv_done_fn_t done,
                                     void *ctx);

/**
 * Receive a rendezvous active message's payload (@p desc, from the deliver
 * function) straight into @p buf: UCX moves it without a copy through its
 * own receive buffers where the transport allows.  @p done runs once, with
 * the outcome, when the data is there or the receive failed (at once, or
 * later from UCX progress: it may take no lock above INBOX).
 */
void ompi_osc_newrma_ucx_am_recv(void *desc, void *buf, size_t len,
                                 ompi_osc_newrma_ucx_recv_done_fn_t done, void *ctx);

/** Give back a received active message's data kept by the receive callback. */
void ompi_osc_newrma_ucx_am_data_release(void *data);

/** Arm the worker's event descriptor.  @return OMPI_ERR_WOULD_BLOCK when
 * events are pending (progress first), OMPI_SUCCESS when armed. */
int ompi_osc_newrma_ucx_arm(void);

/** The worker's event file descriptor (readable when armed and an event came). */
int ompi_osc_newrma_ucx_efd(int *fd_p);

/** Wake a thread blocked on the event descriptor. */
void ompi_osc_newrma_ucx_signal(void);

/** Progress the worker. @return number of events. */
int ompi_osc_newrma_ucx_progress(void);

#endif /* OMPI_OSC_NEWRMA_TRANSPORT_UCX_H */
