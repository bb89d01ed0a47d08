/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: UCX transport (see osc_newrma_transport_ucx.h).
 */
#include "ompi_config.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "ompi/proc/proc.h"
#include "opal/class/opal_free_list.h"

#include "osc_newrma.h"
#include "osc_newrma_base_copy.h"
#include "osc_newrma_base_mutex.h"
#include "osc_newrma_pool.h"
#include "osc_newrma_transport_ucx.h"

#define component mca_osc_newrma_component

/* What a send owns until UCX completes it (a send buffer, an operation's
 * descriptor): an element of a free list when it fits one, else
 * malloc'd (ucx_pooled_get / ucx_pooled_put). */
typedef struct {
    opal_free_list_item_t super;
    /** the free list it goes back to; NULL: malloc'd */
    opal_free_list_t *list;
} ucx_pooled_t;

/* A sent active message owns a copy of header and payload until
 * completion; the common small message and every aggregated message's
 * first size fit a pooled one. */
typedef struct {
    ucx_pooled_t head;
    size_t hdr_len;
    /** header + payload bytes data[] holds */
    size_t room;
    char data[];
} ucx_am_buffer_t;

static void ucx_am_kept_free(void);

/* UCX 1.13 reads an active message's header until the send completes;
 * without a header, the state of a rendezvous receive. */
typedef struct {
    ucx_pooled_t head;
    /** the operation it belongs to; NULL: @a done(@a ctx) tells the end */
    ompi_osc_newrma_op_t *op;
    ompi_osc_newrma_ucx_recv_done_fn_t done;
    void *ctx;
    /** the payload's two pieces when it has a prefix (UCX reads the array
     * until the send completes) */
    ucp_dt_iov_t iov[2];
    char hdr[];
} ucx_op_am_t;

/** header + payload bytes of a pooled send buffer: an aggregated message
 * starts at 4 KiB of packets (osc_newrma_am_pkt.c) behind one packet header */
#define UCX_AM_POOLED_BYTES (4096 + 256)

/** header bytes an operation's own active message keeps in its pooled
 * descriptor (a packet header; longer ones are malloc'd) */
#define UCX_OP_AM_POOLED_HDR 128

/* Free lists of send buffers and operation descriptors.  UCX calls their
 * completion callbacks from whichever thread progresses the worker (the
 * async progress thread too), so they take the thread-safe calls. */
static opal_free_list_t ucx_am_buffers;
/* full aggregated messages (component.aggregate_bytes), kept for reuse: a
 * buffer of a few hundred KiB malloc'd and freed per message makes glibc
 * return the heap's top to the kernel and fault it in again, a page at a
 * time (on a VM, the strided PUT rows ran at a tenth of their speed); at
 * most component.am_buffers, larger or further ones are malloc'd */
static opal_free_list_t ucx_am_large;
static size_t ucx_am_large_room;
/* buffers of ucx_am_large in UCX's hands (sends not completed): each comes
 * back once its receiver has read it (ompi_osc_newrma_ucx_am_buffer_awaited) */
static ompi_osc_newrma_atomic_t ucx_am_large_sending = 0;
static opal_free_list_t ucx_op_ams;
static bool ucx_lists_ready = false;
/* the largest active-message header the worker carries (a rendezvous's
 * prefix travels in it, ompi_osc_newrma_ucx_am_send_op) */
static size_t ucx_max_am_header = 0;

/* @p size bytes from @p list when @p fits, else from malloc. */
static void *ucx_pooled_get(opal_free_list_t *list, bool fits, size_t size)
{
    ucx_pooled_t *p = fits ? (ucx_pooled_t *) opal_free_list_get_mt(list) : NULL;

    if (NULL != p) {
        p->list = list;
    } else if (NULL != (p = malloc(size))) {
        p->list = NULL;
    }
    return p;
}

static void ucx_pooled_put(ucx_pooled_t *p)
{
    if (NULL != p->list) {
        opal_free_list_return_mt(p->list, &p->super);
    } else {
        free(p);
    }
}

/** bytes of a TCP receive segment beyond an aggregated message's packets:
 * the BATCH header and UCX's headers */
#define UCX_SEGMENT_HEADROOM 1024UL
/** UCX 1.13's UCX_TCP_RX_SEG_SIZE when nobody sets it (64k) */
#define UCX_TCP_RX_SEG_DEFAULT 65536UL

/* where received active messages go: set from above at ucx_init (the
 * packet layer's inbox), so the transport calls nothing above it */
static ompi_osc_newrma_ucx_am_deliver_fn_t ucx_am_deliver;
/* completions of ompi_osc_newrma_ucx_rdma_at_call; set with ucx_am_deliver */
static ompi_osc_newrma_ucx_recv_done_fn_t ucx_at_call_done;

static ucs_status_t ucx_am_recv_cb(void *arg, const void *header, size_t header_length, void *data,
                                   size_t length, const ucp_am_recv_param_t *param)
{
    (void) arg;
    /* UCS_INPROGRESS: the data (or the rendezvous descriptor) stays ours
     * until ompi_osc_newrma_ucx_am_recv or ompi_osc_newrma_ucx_am_data_release;
     * a rendezvous not kept is cancelled, and its sender's request fails */
    return ucx_am_deliver(header, header_length, data, length,
                          param->recv_attr & UCP_AM_RECV_ATTR_FLAG_DATA,
                          param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)
               ? UCS_INPROGRESS
               : UCS_OK;
}

/* One UCX setting of the component's own context. */
static ucs_status_t ucx_config_set(ucp_config_t *config, const char *name, const char *value)
{
    ucs_status_t status = ucp_config_modify(config, name, value);

    if (UCS_OK != status) {
        opal_output(0, "osc/newrma: ucp_config_modify(%s=%s) failed: %s", name, value,
                    ucs_status_string(status));
    }
    return status;
}

/* The prefix of the component's own context (ucp_config_read), which UCX
 * reads as OSC_NEWRMA_UCX_<key> ("<prefix>_UCX_"), beside UCX_<key>. */
#define UCX_ENV_PREFIX "OSC_NEWRMA"

/* Whether the user chose @p key (UCX's name without "UCX_") for this
 * context: then the component leaves it alone. */
static bool ucx_user_set(const char *key)
{
    char name[64];

    snprintf(name, sizeof(name), "UCX_%s", key);
    if (NULL != getenv(name)) {
        return true;
    }
    snprintf(name, sizeof(name), "%s_UCX_%s", UCX_ENV_PREFIX, key);
    return NULL != getenv(name);
}

/* Under osc_newrma_acc_atomics targets update elements with CPU atomics
 * while remote origins use UCX's: a NIC's own atomics are not atomic with
 * the CPU's, so UCX must use CPU atomics (or emulate them) unless the user
 * chose otherwise (UCX_ATOMIC_MODE). */
static bool ucx_want_cpu_atomics(void)
{
    return component.acc_atomics && !ucx_user_set("ATOMIC_MODE");
}

/* UCX's TCP transport receives a message in one segment only up to its
 * RX_SEG_SIZE (64 KiB by default); a larger one arrives in pieces several
 * times slower.  Grow the segment to hold an aggregated message
 * (osc_newrma_aggregate_bytes, plus room for the BATCH header and UCX's
 * own) unless the user set UCX_TCP_RX_SEG_SIZE.  Never shrink it: UCX
 * refuses a worker whose RX segment is below its TX segment (8 KiB and
 * its header by default), as aggregate_bytes 2048 made it do.
 * ucp_config_modify takes the transport's key without its "TCP_" prefix. */
static ucs_status_t ucx_config_tcp_segment(ucp_config_t *config)
{
    char value[32];

    if (component.aggregate_bytes + UCX_SEGMENT_HEADROOM <= UCX_TCP_RX_SEG_DEFAULT) {
        return UCS_OK;
    }
    snprintf(value, sizeof(value), "%lu", component.aggregate_bytes + UCX_SEGMENT_HEADROOM);
    return ucx_config_set(config, "RX_SEG_SIZE", value);
}

typedef void (*ucx_print_fn_t)(void *obj, FILE *stream);

static void ucx_print_context(void *obj, FILE *stream)
{
    ucp_context_print_info((ucp_context_h) obj, stream);
}

static void ucx_print_ep(void *obj, FILE *stream)
{
    ucp_ep_print_info((ucp_ep_h) obj, stream);
}

/* UCX 1.13 tells some things only in its printed information: the text
 * @p print writes for @p obj (free it), or NULL. */
static char *ucx_printed(ucx_print_fn_t print, void *obj)
{
    char *text = NULL;
    size_t len = 0;
    FILE *stream = open_memstream(&text, &len);

    if (NULL == stream) {
        return NULL;
    }
    print(obj, stream);
    if (0 != fclose(stream)) {
        free(text);
        return NULL;
    }
    return text;
}

/* UCX 1.13 crashes in uct_tcp_iface_progress (a segfault at address -8,
 * in 1 of 3 to 4 runs of PSCW epochs at 4 ranks with atomics) when its
 * endpoints spread over two TCP devices, such as lo and eth0 on one host:
 * the second rendezvous rail.  Where TCP devices are the only network, one
 * rail costs nothing (newrma's bulk data travels as active messages there)
 * unless the user chose (UCX_MAX_RNDV_RAILS); a fabric keeps its rails. */
#define UCX_WANT_TCP_SEGMENT  0x1
#define UCX_WANT_ONE_TCP_RAIL 0x2
/* Where TCP is the only network, a rendezvous (GET answers, MPI_NO_OP
 * reads, accumulates and PUTs from rndv_threshold on) moves its data by
 * put_zcopy: the sender pushes it, and UCX's TCP transport reads it from
 * the socket straight into the receiver's buffer.  UCX 1.13's TCP has no
 * get_zcopy: that scheme fell back to data messages the receiver copies out
 * of its segment (perf: ucp_rndv_data_handler, as much of a GET's target
 * time as the kernel's receive).  Interleaved runs of 2026-11-29 evening,
 * 2 MiB, put_zcopy against get_zcopy: GET + flush 384-415 against 546-571
 * us, under fence 422-461 against 424-552, under PSCW 496-530 against
 * 568-597, accumulate + flush 517-575 against 620-646.  That morning, on
 * another VM, get_zcopy had won accumulate + flush (334-368 against
 * 396-405) and GET under fence; on 2026-11-27 put_zcopy had won (README,
 * Rendezvous).  Set rather than left to "auto", which UCX resolves per
 * version. */
#define UCX_WANT_TCP_RNDV_SCHEME 0x4

static unsigned ucx_wanted_keys(void)
{
    unsigned keys = 0;

    if (component.aggregate_bytes > 0 && !ucx_user_set("TCP_RX_SEG_SIZE")) {
        keys |= UCX_WANT_TCP_SEGMENT;
    }
    if (!ucx_user_set("MAX_RNDV_RAILS")) {
        keys |= UCX_WANT_ONE_TCP_RAIL;
    }
    if (!ucx_user_set("RNDV_SCHEME")) {
        keys |= UCX_WANT_TCP_RNDV_SCHEME;
    }
    return keys;
}

/* Which of @p wanted apply to the context's resources ("resource 1 : md 1
 * dev 1 flags -- tcp/eth0" in its printed information): the TCP segment
 * where TCP is (a transport key no interface takes makes every worker
 * warn), one rail where TCP is the only network, on two devices or more. */
static unsigned ucx_context_keys(ucp_context_h context, unsigned wanted)
{
    char *text = ucx_printed(ucx_print_context, context), *line, *save = NULL;
    int tcp = 0, other = 0;

    if (NULL == text) {
        return wanted;
    }
    for (line = strtok_r(text, "\n", &save); NULL != line; line = strtok_r(NULL, "\n", &save)) {
        const char *tl = strstr(line, "flags -- ");
        const char *dev = NULL == tl ? NULL : strchr(tl, '/');

        if (NULL == dev) {
            continue;
        }
        tl += strlen("flags -- ");
        if (0 == strncmp(tl, "tcp/", 4)) {
            ++tcp;
        } else if (0 != strncmp(dev + 1, "memory", 6)) {
            ++other;
        }
    }
    free(text);
    if (0 == tcp) {
        wanted &= ~(unsigned) UCX_WANT_TCP_SEGMENT;
    }
    if (0 == tcp || other > 0) {
        wanted &= ~(unsigned) UCX_WANT_TCP_RNDV_SCHEME;
    }
    if (tcp < 2 || other > 0) {
        wanted &= ~(unsigned) UCX_WANT_ONE_TCP_RAIL;
    }
    return wanted;
}

/* The component's own context and worker, not opal_common_ucx's: Open MPI
 * 4.1 ships there the worker pool osc/ucx is built on (a worker per thread,
 * no active messages) and helpers that block on one request at a time
 * (opal_common_ucx_wait_request, _worker_flush), where newrma needs one
 * worker with an active-message handler, progressed by its own callback,
 * and settings of its own (ucp_config_modify below, each made only where
 * the user set neither UCX_<key> nor OSC_NEWRMA_UCX_<key>). */
static int ucx_init_context(bool thread_multiple, unsigned keys, ucp_context_h *context_p)
{
    ucp_config_t *config;
    ucp_params_t params = {0};
    ucs_status_t status;

    status = ucp_config_read(UCX_ENV_PREFIX, NULL, &config);
    if (UCS_OK != status) {
        opal_output(0, "osc/newrma: ucp_config_read failed: %s", ucs_status_string(status));
        return OMPI_ERROR;
    }
    if (keys & UCX_WANT_TCP_SEGMENT) {
        status = ucx_config_tcp_segment(config);
    }
    if (UCS_OK == status && (keys & UCX_WANT_ONE_TCP_RAIL)) {
        status = ucx_config_set(config, "MAX_RNDV_RAILS", "1");
    }
    if (UCS_OK == status && (keys & UCX_WANT_TCP_RNDV_SCHEME)) {
        status = ucx_config_set(config, "RNDV_SCHEME", "put_zcopy");
    }
    if (UCS_OK == status && ucx_want_cpu_atomics()) {
        status = ucx_config_set(config, "ATOMIC_MODE", "cpu");
    }
    if (UCS_OK != status) {
        ucp_config_release(config);
        return OMPI_ERROR;
    }
    params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED |
                        UCP_PARAM_FIELD_ESTIMATED_NUM_EPS;
    params.features = UCP_FEATURE_RMA | UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
    if (component.acc_atomics) {
        params.features |= UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64;
    }
    params.mt_workers_shared = thread_multiple;
    params.estimated_num_eps = ompi_proc_world_size();
    status = ucp_init(&params, config, context_p);
    ucp_config_release(config);
    if (UCS_OK != status) {
        opal_output(0, "osc/newrma: ucp_init failed: %s", ucs_status_string(status));
        return OMPI_ERROR;
    }
    return OMPI_SUCCESS;
}

/* The resources are known only once the context exists: made again
 * without the keys that do not apply to them. */
static int ucx_create_context(bool thread_multiple)
{
    unsigned wanted = ucx_wanted_keys(), keys;
    int ret = ucx_init_context(thread_multiple, wanted, &component.ucp_context);

    if (OMPI_SUCCESS != ret || 0 == wanted) {
        return ret;
    }
    keys = ucx_context_keys(component.ucp_context, wanted);
    if (keys != wanted) {
        ucp_cleanup(component.ucp_context);
        component.ucp_context = NULL;
        ret = ucx_init_context(thread_multiple, keys, &component.ucp_context);
    }
    OSC_NEWRMA_VERBOSE(10,
                       "UCX context: TCP receive segment %s, one rendezvous rail %s, "
                       "rendezvous scheme %s",
                       (keys & UCX_WANT_TCP_SEGMENT) ? "sized" : "left alone",
                       (keys & UCX_WANT_ONE_TCP_RAIL) ? "set" : "left alone",
                       (keys & UCX_WANT_TCP_RNDV_SCHEME) ? "put_zcopy" : "left alone");
    return ret;
}

/* What the worker publishes to its peers (component.worker_address): this
 * process's id, then UCX's worker address.  A node-local peer is watched by
 * its process id (ompi_osc_newrma_ucx_proc_lost): UCX's peer error handling
 * would keep it off the shared-memory transports. */
static ucs_status_t ucx_publish_address(void)
{
    ucp_address_t *address;
    size_t len;
    int32_t pid = (int32_t) getpid();
    ucs_status_t status = ucp_worker_get_address(component.ucp_worker, &address, &len);

    if (UCS_OK != status) {
        return status;
    }
    component.worker_address = malloc(sizeof(pid) + len);
    if (NULL != component.worker_address) {
        memcpy(component.worker_address, &pid, sizeof(pid));
        memcpy((char *) component.worker_address + sizeof(pid), address, len);
        component.worker_address_len = sizeof(pid) + len;
    }
    ucp_worker_release_address(component.ucp_worker, address);
    return NULL == component.worker_address ? UCS_ERR_NO_MEMORY : UCS_OK;
}

static int ucx_create_worker(bool thread_multiple)
{
    ucp_worker_params_t wparams = {0};
    ucp_am_handler_param_t am = {0};
    ucp_worker_attr_t attr = {0};
    ucs_status_t status;

    wparams.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wparams.thread_mode = thread_multiple ? UCS_THREAD_MODE_MULTI : UCS_THREAD_MODE_SINGLE;
    status = ucp_worker_create(component.ucp_context, &wparams, &component.ucp_worker);
    if (UCS_OK != status) {
        opal_output(0, "osc/newrma: ucp_worker_create failed: %s", ucs_status_string(status));
        return OMPI_ERROR;
    }
    status = ucx_publish_address();
    if (UCS_OK != status) {
        goto err_worker;
    }
    am.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                    UCP_AM_HANDLER_PARAM_FIELD_FLAGS;
    am.id = OMPI_OSC_NEWRMA_AM_ID;
    am.cb = ucx_am_recv_cb;
    /* no UCP_AM_FLAG_PERSISTENT_DATA: UCX leaves a message's data with us
     * where its transport can (shared memory, InfiniBand); over TCP it
     * would copy every payload into a buffer of its own for that, where the
     * packet layer reads it in place or copies it only when it must wait */
    am.flags = UCP_AM_FLAG_WHOLE_MSG;
    status = ucp_worker_set_am_recv_handler(component.ucp_worker, &am);
    if (UCS_OK != status) {
        goto err_address;
    }
    attr.field_mask = UCP_WORKER_ATTR_FIELD_MAX_AM_HEADER;
    ucx_max_am_header =
        UCS_OK == ucp_worker_query(component.ucp_worker, &attr) ? attr.max_am_header : 0;
    return OMPI_SUCCESS;

err_address:
    free(component.worker_address);
    component.worker_address = NULL;
err_worker:
    opal_output(0, "osc/newrma: UCX worker setup failed: %s", ucs_status_string(status));
    ucp_worker_destroy(component.ucp_worker);
    component.ucp_worker = NULL;
    return OMPI_ERROR;
}

static int ucx_lists_init(void)
{
    int ret = ompi_osc_newrma_free_list_init(&ucx_am_buffers,
                                             sizeof(ucx_am_buffer_t) + UCX_AM_POOLED_BYTES,
                                             OBJ_CLASS(opal_free_list_item_t));

    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    ret = ompi_osc_newrma_free_list_init(&ucx_op_ams, sizeof(ucx_op_am_t) + UCX_OP_AM_POOLED_HDR,
                                         OBJ_CLASS(opal_free_list_item_t));
    if (OMPI_SUCCESS != ret) {
        OBJ_DESTRUCT(&ucx_am_buffers);
        return ret;
    }
    /* an aggregated message: its packets and the BATCH header */
    ucx_am_large_room = component.aggregate_bytes + UCX_SEGMENT_HEADROOM;
    OBJ_CONSTRUCT(&ucx_am_large, opal_free_list_t);
    ret = opal_free_list_init(&ucx_am_large, sizeof(ucx_am_buffer_t) + ucx_am_large_room,
                              opal_cache_line_size, OBJ_CLASS(opal_free_list_item_t), 0, 0, 0,
                              (int) (component.am_buffers > 0 ? component.am_buffers : 1), 1, NULL,
                              0, NULL, NULL, NULL);
    if (OPAL_SUCCESS != ret) {
        OBJ_DESTRUCT(&ucx_am_large);
        OBJ_DESTRUCT(&ucx_op_ams);
        OBJ_DESTRUCT(&ucx_am_buffers);
        return ret;
    }
    ucx_lists_ready = true;
    return OMPI_SUCCESS;
}

int ompi_osc_newrma_ucx_init(bool thread_multiple, ompi_osc_newrma_ucx_am_deliver_fn_t deliver,
                             ompi_osc_newrma_ucx_recv_done_fn_t at_call_done)
{
    int ret;

    if (NULL != component.ucp_worker) {
        return OMPI_SUCCESS;
    }
    ucx_am_deliver = deliver;
    ucx_at_call_done = at_call_done;
    if (!ucx_lists_ready) {
        ret = ucx_lists_init();
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
    }
    ret = ucx_create_context(thread_multiple);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    ret = ucx_create_worker(thread_multiple);
    if (OMPI_SUCCESS != ret) {
        ucp_cleanup(component.ucp_context);
        component.ucp_context = NULL;
        return ret;
    }
    OSC_NEWRMA_VERBOSE(10, "UCX worker ready (%zu-byte address, thread mode %s)",
                       component.worker_address_len, thread_multiple ? "multi" : "single");
    return OMPI_SUCCESS;
}

static void ucx_close_ep(ucp_ep_h ep)
{
    ucp_request_param_t param = {0};
    void *req;

    /* Force mode: peers may already be gone at finalize, and every window
     * was freed (collectively) before, so nothing is in flight. */
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    param.flags = UCP_EP_CLOSE_FLAG_FORCE;
    req = ucp_ep_close_nbx(ep, &param);
    if (UCS_PTR_IS_PTR(req)) {
        while (UCS_INPROGRESS == ucp_request_check_status(req)) {
            ucp_worker_progress(component.ucp_worker);
        }
        ucp_request_free(req);
    }
}

void ompi_osc_newrma_ucx_fini(void)
{
    uint64_t key;
    void *value, *node = NULL;
    int rc;

    rc = opal_hash_table_get_first_key_uint64(&component.endpoints, &key, &value, &node);
    while (OPAL_SUCCESS == rc) {
        ompi_osc_newrma_endpoint_t *endpoint = value;
        if (NULL != endpoint->ep) {
            ucx_close_ep(endpoint->ep);
        }
        free(endpoint->address);
        free(endpoint);
        rc = opal_hash_table_get_next_key_uint64(&component.endpoints, &key, &value, node, &node);
    }
    opal_hash_table_remove_all(&component.endpoints);
    if (NULL != component.ucp_worker) {
        free(component.worker_address);
        ucp_worker_destroy(component.ucp_worker);
        component.ucp_worker = NULL;
        component.worker_address = NULL;
    }
    if (NULL != component.ucp_context) {
        ucp_cleanup(component.ucp_context);
        component.ucp_context = NULL;
    }
    if (ucx_lists_ready) {
        /* the worker is gone: no send can still complete */
        OBJ_DESTRUCT(&ucx_op_ams);
        OBJ_DESTRUCT(&ucx_am_large);
        OBJ_DESTRUCT(&ucx_am_buffers);
        ucx_lists_ready = false;
    }
    ucx_am_kept_free();
}

static uint64_t ucx_proc_key(struct ompi_proc_t *proc)
{
    return (uint64_t) (uintptr_t) proc;
}

/* On this node: Open MPI's locality, cut into simulated nodes of
 * osc_newrma_test_node_size world ranks when set (as the segment is). */
static bool ucx_proc_local(struct ompi_proc_t *proc)
{
    int block = component.test_node_size;

    if (!OPAL_PROC_ON_LOCAL_NODE(proc->super.proc_flags)) {
        return false;
    }
    return block <= 0 || (int) proc->super.proc_name.vpid / block ==
                             (int) ompi_proc_local()->super.proc_name.vpid / block;
}

bool ompi_osc_newrma_ucx_knows(struct ompi_proc_t *proc)
{
    void *endpoint;
    bool known;

    ompi_osc_newrma_mutex_lock(&component.lock, OMPI_OSC_NEWRMA_MUTEX_COMPONENT);
    known = OPAL_SUCCESS ==
            opal_hash_table_get_value_uint64(&component.endpoints, ucx_proc_key(proc), &endpoint);
    ompi_osc_newrma_mutex_unlock(&component.lock, OMPI_OSC_NEWRMA_MUTEX_COMPONENT);
    return known;
}

int ompi_osc_newrma_ucx_learn_address(struct ompi_proc_t *proc, const void *address, size_t len)
{
    ompi_osc_newrma_endpoint_t *endpoint = NULL;
    int ret = OMPI_SUCCESS;

    ompi_osc_newrma_mutex_lock(&component.lock, OMPI_OSC_NEWRMA_MUTEX_COMPONENT);
    if (OPAL_SUCCESS == opal_hash_table_get_value_uint64(&component.endpoints, ucx_proc_key(proc),
                                                         (void **) &endpoint)) {
        goto out;
    }
    if (len <= sizeof(int32_t)) {
        ret = OMPI_ERR_BAD_PARAM;
        goto out;
    }
    endpoint = calloc(1, sizeof(*endpoint));
    if (NULL == endpoint || NULL == (endpoint->address = malloc(len - sizeof(int32_t)))) {
        free(endpoint);
        ret = OMPI_ERR_OUT_OF_RESOURCE;
        goto out;
    }
    memcpy(&endpoint->pid, address, sizeof(int32_t)); /* ucx_publish_address */
    memcpy(endpoint->address, (const char *) address + sizeof(int32_t), len - sizeof(int32_t));
    endpoint->address_len = len - sizeof(int32_t);
    endpoint->local = ucx_proc_local(proc);
    ret = opal_hash_table_set_value_uint64(&component.endpoints, ucx_proc_key(proc), endpoint);
    if (OPAL_SUCCESS != ret) {
        free(endpoint->address);
        free(endpoint);
    }
out:
    ompi_osc_newrma_mutex_unlock(&component.lock, OMPI_OSC_NEWRMA_MUTEX_COMPONENT);
    return ret;
}

/* UCX 1.13 tells which transports an endpoint's lanes use only in its
 * printed configuration: one line per lane, "lane[0]:  2:tcp/lo.0 md[1] ->
 * ... rma_bw#0 am ...".  Software RDMA: every rma_bw lane is TCP, or none. */
static bool ucx_ep_rdma_emulated(ucp_ep_h ep)
{
    bool emulated = true;
    char *text = ucx_printed(ucx_print_ep, ep), *line, *save = NULL;

    if (NULL == text) {
        return false;
    }
    for (line = strtok_r(text, "\n", &save); NULL != line; line = strtok_r(NULL, "\n", &save)) {
        if (NULL != strstr(line, "lane[") && NULL != strstr(line, "rma_bw#") &&
            NULL == strstr(line, ":tcp/")) {
            emulated = false;
        }
    }
    free(text);
    return emulated;
}

/* endpoints UCX reported lost (ompi_osc_newrma_ucx_losses) */
static ompi_osc_newrma_atomic_t ucx_losses = 0;

/* UCX's error handler (under worker progress): the peer is gone.  Only
 * marks it: the endpoint is closed (forced) at finalize, and the waiters
 * above learn of it through ompi_osc_newrma_ucx_losses. */
static void ucx_ep_error(void *arg, ucp_ep_h ep, ucs_status_t status)
{
    ompi_osc_newrma_endpoint_t *endpoint = arg;

    (void) ep;
    if (!endpoint->lost) {
        endpoint->lost = true;
        opal_atomic_wmb();
        opal_atomic_add_fetch_32(&ucx_losses, 1);
        OSC_NEWRMA_VERBOSE(1, "lost the UCX endpoint to a peer: %s", ucs_status_string(status));
    }
}

void ompi_osc_newrma_ucx_watch(struct ompi_proc_t *proc)
{
    ompi_osc_newrma_endpoint_t *endpoint = NULL;
    bool remote;
    ucp_ep_h ep;

    ompi_osc_newrma_mutex_lock(&component.lock, OMPI_OSC_NEWRMA_MUTEX_COMPONENT);
    remote = OPAL_SUCCESS == opal_hash_table_get_value_uint64(
                                 &component.endpoints, ucx_proc_key(proc), (void **) &endpoint) &&
             !endpoint->local && NULL == endpoint->ep;
    ompi_osc_newrma_mutex_unlock(&component.lock, OMPI_OSC_NEWRMA_MUTEX_COMPONENT);
    if (remote) {
        (void) ompi_osc_newrma_ucx_ep(proc, &ep, NULL);
    }
}

int32_t ompi_osc_newrma_ucx_losses(void)
{
    return ucx_losses;
}

bool ompi_osc_newrma_ucx_proc_lost(struct ompi_proc_t *proc, bool check_local)
{
    ompi_osc_newrma_endpoint_t *endpoint = NULL;
    bool lost = false;

    ompi_osc_newrma_mutex_lock(&component.lock, OMPI_OSC_NEWRMA_MUTEX_COMPONENT);
    if (OPAL_SUCCESS == opal_hash_table_get_value_uint64(&component.endpoints, ucx_proc_key(proc),
                                                         (void **) &endpoint)) {
        if (!endpoint->lost && check_local && endpoint->local && endpoint->pid > 0 &&
            0 != kill((pid_t) endpoint->pid, 0) && ESRCH == errno) {
            endpoint->lost = true;
            OSC_NEWRMA_VERBOSE(1, "node-local peer process %d is gone", (int) endpoint->pid);
        }
        lost = endpoint->lost;
    }
    ompi_osc_newrma_mutex_unlock(&component.lock, OMPI_OSC_NEWRMA_MUTEX_COMPONENT);
    return lost;
}

int32_t ompi_osc_newrma_ucx_local_pid(struct ompi_proc_t *proc)
{
    ompi_osc_newrma_endpoint_t *endpoint = NULL;
    int32_t pid = -1;

    ompi_osc_newrma_mutex_lock(&component.lock, OMPI_OSC_NEWRMA_MUTEX_COMPONENT);
    if (OPAL_SUCCESS == opal_hash_table_get_value_uint64(&component.endpoints, ucx_proc_key(proc),
                                                         (void **) &endpoint) &&
        endpoint->local && !endpoint->lost && endpoint->pid > 0) {
        pid = endpoint->pid;
    }
    ompi_osc_newrma_mutex_unlock(&component.lock, OMPI_OSC_NEWRMA_MUTEX_COMPONENT);
    return pid;
}

int ompi_osc_newrma_ucx_ep(struct ompi_proc_t *proc, ucp_ep_h *ep_p, bool *rdma_emulated)
{
    ompi_osc_newrma_endpoint_t *endpoint = NULL;
    ucp_ep_params_t params = {0};
    ucs_status_t status;
    int ret = OMPI_SUCCESS;

    ompi_osc_newrma_mutex_lock(&component.lock, OMPI_OSC_NEWRMA_MUTEX_COMPONENT);
    if (OPAL_SUCCESS != opal_hash_table_get_value_uint64(&component.endpoints, ucx_proc_key(proc),
                                                         (void **) &endpoint)) {
        ret = OMPI_ERR_UNREACH;
        goto out;
    }
    if (endpoint->lost) {
        ret = MPI_ERR_OTHER; /* what a wait for the dead peer returns too */
        goto out;
    }
    if (NULL == endpoint->ep) {
        params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
        params.address = endpoint->address;
        if (!endpoint->local) {
            /* a dead peer fails its operations instead of leaving them (and
             * so whoever waits for them) pending for ever.  Not on the node:
             * UCX 1.13 then leaves its shared-memory transports for TCP
             * (10x the latency, a third of the bandwidth, measured); the
             * process id tells there (ompi_osc_newrma_ucx_proc_lost). */
            params.field_mask |=
                UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
            params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
            params.err_handler.cb = ucx_ep_error;
            params.err_handler.arg = endpoint;
        }
        status = ucp_ep_create(component.ucp_worker, &params, &endpoint->ep);
        if (UCS_OK != status) {
            opal_output(0, "osc/newrma: ucp_ep_create failed: %s", ucs_status_string(status));
            endpoint->ep = NULL;
            ret = OMPI_ERR_UNREACH;
            goto out;
        }
        endpoint->rdma_emulated = ucx_ep_rdma_emulated(endpoint->ep);
        OSC_NEWRMA_VERBOSE(10, "endpoint to %s: RDMA %s", OMPI_NAME_PRINT(&proc->super.proc_name),
                           endpoint->rdma_emulated ? "emulated in software" : "by the transport");
    }
    *ep_p = endpoint->ep;
    if (NULL != rdma_emulated) {
        *rdma_emulated = endpoint->rdma_emulated;
    }
out:
    ompi_osc_newrma_mutex_unlock(&component.lock, OMPI_OSC_NEWRMA_MUTEX_COMPONENT);
    return ret;
}

int ompi_osc_newrma_ucx_mem_map(void *addr, size_t len, ucp_mem_h *memh_p, void **rkey_p,
                                size_t *rkey_len_p)
{
    ucp_mem_map_params_t params = {0};
    ucp_mem_h memh;
    void *rkey;
    size_t rkey_len;
    ucs_status_t status;

    params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
    params.address = addr;
    params.length = len;
    status = ucp_mem_map(component.ucp_context, &params, &memh);
    if (UCS_OK != status) {
        opal_output(0, "osc/newrma: ucp_mem_map of %zu bytes failed: %s", len,
                    ucs_status_string(status));
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    status = ucp_rkey_pack(component.ucp_context, memh, &rkey, &rkey_len);
    if (UCS_OK != status) {
        opal_output(0, "osc/newrma: ucp_rkey_pack failed: %s", ucs_status_string(status));
        ucp_mem_unmap(component.ucp_context, memh);
        return OMPI_ERROR;
    }
    *memh_p = memh;
    *rkey_p = rkey;
    *rkey_len_p = rkey_len;
    return OMPI_SUCCESS;
}

void ompi_osc_newrma_ucx_mem_unmap(ucp_mem_h memh, void *rkey_packed)
{
    if (NULL != rkey_packed) {
        ucp_rkey_buffer_release(rkey_packed);
    }
    if (NULL != memh) {
        ucp_mem_unmap(component.ucp_context, memh);
    }
}

int ompi_osc_newrma_ucx_rkey_unpack(ucp_ep_h ep, const void *packed, ucp_rkey_h *rkey_p)
{
    ucs_status_t status = ucp_ep_rkey_unpack(ep, packed, rkey_p);

    if (UCS_OK != status) {
        opal_output(0, "osc/newrma: ucp_ep_rkey_unpack failed: %s", ucs_status_string(status));
        return OMPI_ERROR;
    }
    return OMPI_SUCCESS;
}

/* Count a transfer of @p op before starting it: its callback may run from
 * a later progress call, but the counters must never be seen below zero. */
static void ucx_op_count(ompi_osc_newrma_op_t *op, int32_t delta)
{
    opal_atomic_add_fetch_32(&op->outstanding, delta);
    opal_atomic_add_fetch_32(&op->module->active_reqs, delta);
}

/* The completion status of one transfer; osc_newrma_test_fail_rdma turns
 * the Nth one into an I/O error (test hook: UCX on one machine never fails). */
static ucs_status_t ucx_rdma_status(ucs_status_t status)
{
    static ompi_osc_newrma_atomic_t completed = 0;

    if (component.test_fail_rdma > 0 &&
        opal_atomic_add_fetch_32(&completed, 1) == component.test_fail_rdma) {
        return UCS_ERR_IO_ERROR;
    }
    return status;
}

/* A failed transfer fails its op: the synchronization that completes the op
 * returns the error (ompi_osc_newrma_module_error). */
static void ucx_op_done(ompi_osc_newrma_op_t *op, ucs_status_t status, const char *what)
{
    if (0 != op->timed_ns && 1 == op->outstanding) { /* its last transfer: timed */
        op->took_ns = ompi_osc_newrma_pick_now_ns() - op->timed_ns;
    }
    status = ucx_rdma_status(status);
    if (UCS_OK != status) {
        OSC_NEWRMA_VERBOSE(1, "%s failed: %s", what, ucs_status_string(status));
        op->status = OMPI_ERROR;
        opal_atomic_wmb();
    }
    ucx_op_count(op, -1);
}

static void ucx_rdma_cb(void *request, ucs_status_t status, void *user_data)
{
    ucx_op_done(user_data, status, "RDMA operation");
    ucp_request_free(request);
}

/* A transfer that completed at once is done here; one that could not start
 * fails the call itself. */
static int ucx_op_started(ompi_osc_newrma_op_t *op, ucs_status_ptr_t req, const char *what)
{
    if (UCS_PTR_IS_PTR(req)) {
        return OMPI_SUCCESS;
    }
    if (UCS_OK != UCS_PTR_STATUS(req)) {
        ucx_op_count(op, -1);
        opal_output(0, "osc/newrma: %s failed: %s", what, ucs_status_string(UCS_PTR_STATUS(req)));
        return OMPI_ERROR;
    }
    ucx_op_done(op, UCS_OK, what);
    return OMPI_SUCCESS;
}

/* One ucp_put_nbx (@p put) or ucp_get_nbx whose callback @p cb gets
 * @p user_data. */
static ucs_status_ptr_t ucx_rma_nbx(bool put, ucp_ep_h ep, void *buf, size_t len, uint64_t raddr,
                                    ucp_rkey_h rkey, ucp_send_nbx_callback_t cb, void *user_data)
{
    ucp_request_param_t param = {0};

    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    param.cb.send = cb;
    param.user_data = user_data;
    return put ? ucp_put_nbx(ep, buf, len, raddr, rkey, &param)
               : ucp_get_nbx(ep, buf, len, raddr, rkey, &param);
}

/* One ucp_ep_flush_nbx whose callback @p cb gets @p user_data (as
 * ucx_rma_nbx). */
static ucs_status_ptr_t ucx_flush_nbx(ucp_ep_h ep, ucp_send_nbx_callback_t cb, void *user_data)
{
    ucp_request_param_t param = {0};

    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    param.cb.send = cb;
    param.user_data = user_data;
    return ucp_ep_flush_nbx(ep, &param);
}

static const char *ucx_rma_name(bool put)
{
    return put ? "ucp_put_nbx" : "ucp_get_nbx";
}

int ompi_osc_newrma_ucx_rdma(ompi_osc_newrma_op_t *op, ucp_ep_h ep, void *buf, size_t len,
                             uint64_t raddr, ucp_rkey_h rkey)
{
    bool put = OMPI_OSC_NEWRMA_OP_PUT == op->kind;
    ucs_status_ptr_t req;

    ucx_op_count(op, 1);
    req = ucx_rma_nbx(put, ep, buf, len, raddr, rkey, ucx_rdma_cb, op);
    return ucx_op_started(op, req, ucx_rma_name(put));
}

int ompi_osc_newrma_ucx_rdma_flushed(ompi_osc_newrma_op_t *op, ucp_ep_h ep, void *buf, size_t len,
                                     uint64_t raddr, ucp_rkey_h rkey)
{
    ucs_status_ptr_t req;
    int ret;

    ucx_op_count(op, 1); /* the flush's, held from before the transfer: the
                          * op stays incomplete if the PUT completes at once */
    ret = ompi_osc_newrma_ucx_rdma(op, ep, buf, len, raddr, rkey);
    if (OMPI_SUCCESS != ret) {
        ucx_op_count(op, -1);
        return ret;
    }
    req = ucx_flush_nbx(ep, ucx_rdma_cb, op);
    if (UCS_PTR_IS_PTR(req)) {
        return OMPI_SUCCESS;
    }
    ucx_op_done(op, UCS_PTR_STATUS(req), "ucp_ep_flush_nbx");
    return UCS_OK == UCS_PTR_STATUS(req) ? OMPI_SUCCESS : OMPI_ERROR;
}

static void ucx_at_call_finish(void *ctx, ucs_status_t status)
{
    status = ucx_rdma_status(status);
    if (UCS_OK != status) {
        OSC_NEWRMA_VERBOSE(1, "RDMA transfer failed: %s", ucs_status_string(status));
    }
    ucx_at_call_done(ctx, UCS_OK == status ? OMPI_SUCCESS : OMPI_ERROR);
}

static void ucx_at_call_cb(void *request, ucs_status_t status, void *user_data)
{
    ucx_at_call_finish(user_data, status);
    ucp_request_free(request);
}

int ompi_osc_newrma_ucx_rdma_at_call(bool put, ucp_ep_h ep, void *buf, size_t len, uint64_t raddr,
                                     ucp_rkey_h rkey, void *ctx)
{
    ucs_status_ptr_t req = ucx_rma_nbx(put, ep, buf, len, raddr, rkey, ucx_at_call_cb, ctx);

    if (UCS_PTR_IS_PTR(req)) {
        return OMPI_SUCCESS;
    }
    if (UCS_OK != UCS_PTR_STATUS(req)) {
        opal_output(0, "osc/newrma: %s failed: %s", ucx_rma_name(put),
                    ucs_status_string(UCS_PTR_STATUS(req)));
        return OMPI_ERROR;
    }
    ucx_at_call_finish(ctx, UCS_OK);
    return OMPI_SUCCESS;
}

static void ucx_op_am_cb(void *request, ucs_status_t status, void *user_data)
{
    ucx_op_am_t *am = user_data;

    if (NULL != am->op) {
        ucx_op_done(am->op, status, "active message of an operation");
    } else {
        am->done(am->ctx, UCS_OK == status ? OMPI_SUCCESS : OMPI_ERROR);
    }
    ucx_pooled_put(&am->head);
    ucp_request_free(request);
}

/* The send state of an active message whose header (@p hdr, then @p extra)
 * UCX reads until it completes, and its parameters (ucx_op_am_cb reports
 * the end). */
static ucx_op_am_t *ucx_op_am_make(const void *hdr, size_t hdr_len, const void *extra,
                                   size_t extra_len, uint32_t flags, ucp_request_param_t *param)
{
    size_t len = hdr_len + extra_len;
    ucx_op_am_t *am =
        ucx_pooled_get(&ucx_op_ams, len <= UCX_OP_AM_POOLED_HDR, sizeof(ucx_op_am_t) + len);

    if (NULL == am) {
        return NULL;
    }
    memcpy(am->hdr, hdr, hdr_len);
    if (extra_len > 0) {
        memcpy(am->hdr + hdr_len, extra, extra_len);
    }
    param->op_attr_mask =
        UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
    param->cb.send = ucx_op_am_cb;
    param->user_data = am;
    param->flags = flags;
    return am;
}

int ompi_osc_newrma_ucx_am_send_rndv(ucp_ep_h ep, const void *hdr, size_t hdr_len, const void *data,
                                     size_t len, ompi_osc_newrma_ucx_recv_done_fn_t done, void *ctx)
{
    ucp_request_param_t param = {0};
    ucx_op_am_t *am = ucx_op_am_make(hdr, hdr_len, NULL, 0, UCP_AM_SEND_FLAG_RNDV, &param);
    ucs_status_ptr_t req;

    if (NULL == am) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    am->op = NULL;
    am->done = done;
    am->ctx = ctx;
    req = ucp_am_send_nbx(ep, OMPI_OSC_NEWRMA_AM_ID, am->hdr, hdr_len, data, len, &param);
    if (UCS_PTR_IS_PTR(req)) {
        return OMPI_SUCCESS;
    }
    ucx_pooled_put(&am->head); /* done or failed at once: no callback */
    if (UCS_OK != UCS_PTR_STATUS(req)) {
        opal_output(0, "osc/newrma: ucp_am_send_nbx failed: %s",
                    ucs_status_string(UCS_PTR_STATUS(req)));
        return OMPI_ERROR;
    }
    done(ctx, OMPI_SUCCESS);
    return OMPI_SUCCESS;
}

int ompi_osc_newrma_ucx_am_send_op(ompi_osc_newrma_op_t *op, ucp_ep_h ep, const void *hdr,
                                   size_t hdr_len, const void *prefix, size_t prefix_len,
                                   const void *data, size_t len, bool rndv)
{
    ucp_request_param_t param = {0};
    ucx_op_am_t *am;
    ucs_status_ptr_t req;
    int ret;

    /* by rendezvous, the prefix rides in the header: UCX reads only a
     * contiguous payload in place, an iovec one it copies in fragments */
    if (rndv && prefix_len > 0 && hdr_len + prefix_len <= ucx_max_am_header) {
        am = ucx_op_am_make(hdr, hdr_len, prefix, prefix_len, UCP_AM_SEND_FLAG_RNDV, &param);
        hdr_len += prefix_len;
        prefix_len = 0;
    } else {
        am = ucx_op_am_make(hdr, hdr_len, NULL, 0,
                            rndv ? UCP_AM_SEND_FLAG_RNDV : UCP_AM_SEND_FLAG_EAGER, &param);
    }
    if (NULL == am) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    am->op = op;
    if (prefix_len > 0) {
        am->iov[0].buffer = (void *) prefix;
        am->iov[0].length = prefix_len;
        am->iov[1].buffer = (void *) data;
        am->iov[1].length = len;
        param.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
        param.datatype = ucp_dt_make_iov();
        data = am->iov;
        len = 2;
    }
    ucx_op_count(op, 1);
    req = ucp_am_send_nbx(ep, OMPI_OSC_NEWRMA_AM_ID, am->hdr, hdr_len, data, len, &param);
    ret = ucx_op_started(op, req, "ucp_am_send_nbx");
    if (!UCS_PTR_IS_PTR(req)) {
        ucx_pooled_put(&am->head); /* done or failed at once: no callback */
    }
    return ret;
}

int ompi_osc_newrma_ucx_atomic(ompi_osc_newrma_op_t *op, ucp_ep_h ep, ucp_atomic_op_t opcode,
                               const void *operand, size_t size, void *reply, uint64_t raddr,
                               ucp_rkey_h rkey)
{
    ucp_request_param_t param = {0};
    ucs_status_ptr_t req;

    param.op_attr_mask =
        UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_DATATYPE;
    param.cb.send = ucx_rdma_cb;
    param.user_data = op;
    param.datatype = ucp_dt_make_contig(size);
    if (NULL != reply) {
        param.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        param.reply_buffer = reply;
    }
    ucx_op_count(op, 1);
    req = ucp_atomic_op_nbx(ep, opcode, operand, 1, raddr, rkey, &param);
    return ucx_op_started(op, req, "ucp_atomic_op_nbx");
}

static void ucx_rma_done_cb(void *request, ucs_status_t status, void *user_data)
{
    if (UCS_OK != status) {
        opal_output(0, "osc/newrma: RMA_DONE (endpoint flush) failed: %s",
                    ucs_status_string(status));
    }
    opal_atomic_add_fetch_32((ompi_osc_newrma_atomic_t *) user_data, -1);
    ucp_request_free(request);
}

int ompi_osc_newrma_ucx_rma_done(ucp_ep_h ep, ompi_osc_newrma_atomic_t *counter)
{
    ucs_status_ptr_t req;

    opal_atomic_add_fetch_32(counter, 1);
    req = ucx_flush_nbx(ep, ucx_rma_done_cb, (void *) counter);
    if (UCS_PTR_IS_PTR(req)) {
        return OMPI_SUCCESS;
    }
    opal_atomic_add_fetch_32(counter, -1);
    return UCS_OK == UCS_PTR_STATUS(req) ? OMPI_SUCCESS : OMPI_ERROR;
}

static void ucx_am_send_cb(void *request, ucs_status_t status, void *user_data)
{
    ucx_pooled_t *buf = user_data;

    if (UCS_OK != status) {
        opal_output(0, "osc/newrma: active message send failed: %s", ucs_status_string(status));
    }
    if (&ucx_am_large == buf->list) {
        opal_atomic_add_fetch_32(&ucx_am_large_sending, -1);
    }
    ucx_pooled_put(buf);
    ucp_request_free(request);
}

static ucx_am_buffer_t *ucx_am_buffer_of(void *data)
{
    return (ucx_am_buffer_t *) ((char *) data - offsetof(ucx_am_buffer_t, data));
}

/* Buffers above the pool's sizes (malloc'd) that the last frees left for
 * the next ones: the landing of a large accumulate's operands and a
 * fetching one's old values, each of 2 MiB, malloc'd and freed per
 * operation, made glibc give the heap's top back and fault it in again
 * every time (2.2 ms of a 2 MiB GET_ACCUMULATE's 5 ms over shared memory).
 * At most UCX_AM_KEPT of them, of at most UCX_AM_KEPT_MAX bytes each. */
#define UCX_AM_KEPT     2
#define UCX_AM_KEPT_MAX ((size_t) 8 << 20)
static ucx_am_buffer_t *volatile ucx_am_kept[UCX_AM_KEPT];

/* A kept buffer of @p need bytes or more, or NULL; a smaller one taken on
 * the way is freed (a larger one will be kept in its place). */
static ucx_am_buffer_t *ucx_am_kept_take(size_t need)
{
    for (int i = 0; i < UCX_AM_KEPT; ++i) {
        ucx_am_buffer_t *buf = (ucx_am_buffer_t *) opal_atomic_swap_ptr(&ucx_am_kept[i], NULL);

        if (NULL != buf && buf->room >= need) {
            return buf;
        }
        free(buf);
    }
    return NULL;
}

/* Keep malloc'd @p buf for reuse: @return false when it is of a pooled
 * size (malloc'd because its pool was out), too large, or every place is
 * taken. */
static bool ucx_am_kept_put(ucx_am_buffer_t *buf)
{
    if (buf->room <= UCX_AM_POOLED_BYTES || buf->room <= ucx_am_large_room ||
        buf->room > UCX_AM_KEPT_MAX) {
        return false;
    }
    for (int i = 0; i < UCX_AM_KEPT; ++i) {
        void *none = NULL;

        if (opal_atomic_compare_exchange_strong_ptr(&ucx_am_kept[i], &none, buf)) {
            return true;
        }
    }
    return false;
}

static void ucx_am_kept_free(void)
{
    for (int i = 0; i < UCX_AM_KEPT; ++i) {
        free(ucx_am_kept[i]);
        ucx_am_kept[i] = NULL;
    }
}

void *ompi_osc_newrma_ucx_am_buffer(size_t hdr_len, size_t capacity)
{
    size_t need = hdr_len + capacity;
    bool small = need <= UCX_AM_POOLED_BYTES, large = !small && need <= ucx_am_large_room;
    ucx_am_buffer_t *buf = small || large ? NULL : ucx_am_kept_take(need);

    if (NULL != buf) {
        buf->hdr_len = hdr_len; /* its room stays what it was made with */
        return buf->data;
    }
    buf = ucx_pooled_get(small ? &ucx_am_buffers : &ucx_am_large, small || large,
                         sizeof(*buf) + need);
    if (NULL == buf) {
        return NULL;
    }
    buf->hdr_len = hdr_len;
    buf->room = NULL == buf->head.list ? need : small ? UCX_AM_POOLED_BYTES : ucx_am_large_room;
    return buf->data;
}

/* UCX 1.13's TCP PUT header ahead of a zero-copy payload in one sendmsg */
#define UCX_TCP_PUT_HDR_BYTES 25
/* the kernel's copy is slow with the destination this many bytes ahead of
 * the source, or fewer, within a page */
#define UCX_COPY_ALIAS_BYTES 15

bool ompi_osc_newrma_ucx_tcp_slow_source(const void *src)
{
    uintptr_t ahead = (UCX_TCP_PUT_HDR_BYTES - (uintptr_t) src) & (uintptr_t) (4096 - 1);

    return ahead >= 1 && ahead <= UCX_COPY_ALIAS_BYTES;
}

bool ompi_osc_newrma_ucx_am_buffer_awaited(size_t hdr_len, size_t capacity)
{
    size_t need = hdr_len + capacity;

    return need > UCX_AM_POOLED_BYTES && need <= ucx_am_large_room &&
           opal_lifo_is_empty(&ucx_am_large.super) &&
           ucx_am_large.fl_num_allocated >= ucx_am_large.fl_max_to_alloc &&
           ucx_am_large_sending > 0;
}

void *ompi_osc_newrma_ucx_am_buffer_resize(void *data, size_t capacity)
{
    ucx_am_buffer_t *buf = ucx_am_buffer_of(data), *grown;
    char *moved;

    if (buf->hdr_len + capacity <= buf->room) {
        return data;
    }
    if (NULL == buf->head.list) {
        grown = realloc(buf, sizeof(*buf) + buf->hdr_len + capacity);
        if (NULL == grown) {
            return NULL;
        }
        grown->room = grown->hdr_len + capacity;
        return grown->data;
    }
    /* outgrew its element: everything it can hold moves */
    moved = ompi_osc_newrma_ucx_am_buffer(buf->hdr_len, capacity);
    if (NULL == moved) {
        return NULL;
    }
    ompi_osc_newrma_copy(moved, buf->data, buf->room);
    ucx_pooled_put(&buf->head);
    return moved;
}

void ompi_osc_newrma_ucx_am_buffer_free(void *data)
{
    ucx_am_buffer_t *buf = NULL != data ? ucx_am_buffer_of(data) : NULL;

    if (NULL != buf && (NULL != buf->head.list || !ucx_am_kept_put(buf))) {
        ucx_pooled_put(&buf->head);
    }
}

int ompi_osc_newrma_ucx_am_send_buffer(ucp_ep_h ep, void *data, size_t payload_len, bool rndv)
{
    ucx_am_buffer_t *buf = ucx_am_buffer_of(data);
    ucp_request_param_t param = {0};
    ucs_status_ptr_t req;
    bool large;

    param.op_attr_mask =
        UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
    param.cb.send = ucx_am_send_cb;
    param.user_data = buf;
    /* a rendezvous holds its buffer until the receiver has read it: only
     * pooled ones, so that a burst of them does not fall back to malloc on
     * both sides (the churn it is meant to avoid) */
    param.flags = rndv && NULL != buf->head.list ? UCP_AM_SEND_FLAG_RNDV : UCP_AM_SEND_FLAG_EAGER;
    /* counted before the send: its completion may run in another thread */
    large = &ucx_am_large == buf->head.list;
    if (large) {
        opal_atomic_add_fetch_32(&ucx_am_large_sending, 1);
    }
    req = ucp_am_send_nbx(ep, OMPI_OSC_NEWRMA_AM_ID, buf->data, buf->hdr_len,
                          buf->data + buf->hdr_len, payload_len, &param);
    if (UCS_PTR_IS_PTR(req)) {
        return OMPI_SUCCESS;
    }
    if (large) {
        opal_atomic_add_fetch_32(&ucx_am_large_sending, -1);
    }
    ucx_pooled_put(&buf->head);
    if (UCS_OK != UCS_PTR_STATUS(req)) {
        opal_output(0, "osc/newrma: ucp_am_send_nbx failed: %s",
                    ucs_status_string(UCS_PTR_STATUS(req)));
        return OMPI_ERROR;
    }
    return OMPI_SUCCESS;
}

int ompi_osc_newrma_ucx_am_send2(ucp_ep_h ep, const void *hdr, size_t hdr_len, const void *p1,
                                 size_t len1, const void *p2, size_t len2)
{
    char *data = ompi_osc_newrma_ucx_am_buffer(hdr_len, len1 + len2);

    if (NULL == data) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    memcpy(data, hdr, hdr_len);
    if (len1 > 0) {
        ompi_osc_newrma_copy(data + hdr_len, p1, len1);
    }
    if (len2 > 0) {
        ompi_osc_newrma_copy(data + hdr_len + len1, p2, len2);
    }
    return ompi_osc_newrma_ucx_am_send_buffer(ep, data, len1 + len2, false);
}

/* A rendezvous receive's end: the caller's completion function and its
 * argument ride in a pooled send-state element (no header, no op). */
static void ucx_am_recv_data_cb(void *request, ucs_status_t status, size_t length, void *user_data)
{
    ucx_op_am_t *am = user_data;

    (void) length;
    am->done(am->ctx, UCS_OK == status ? OMPI_SUCCESS : OMPI_ERROR);
    ucx_pooled_put(&am->head);
    ucp_request_free(request);
}

void ompi_osc_newrma_ucx_am_recv(void *desc, void *buf, size_t len,
                                 ompi_osc_newrma_ucx_recv_done_fn_t done, void *ctx)
{
    ucp_request_param_t param = {0};
    ucs_status_ptr_t req;
    ucx_op_am_t *am = ucx_pooled_get(&ucx_op_ams, true, sizeof(ucx_op_am_t));

    if (NULL == am) {
        ucp_am_data_release(component.ucp_worker, desc); /* cancels the rendezvous */
        done(ctx, OMPI_ERR_OUT_OF_RESOURCE);
        return;
    }
    am->op = NULL;
    am->done = done;
    am->ctx = ctx;
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    param.cb.recv_am = ucx_am_recv_data_cb;
    param.user_data = am;
    req = ucp_am_recv_data_nbx(component.ucp_worker, desc, buf, len, &param);
    if (UCS_PTR_IS_PTR(req)) {
        return;
    }
    ucx_pooled_put(&am->head);
    if (UCS_OK != UCS_PTR_STATUS(req)) {
        OSC_NEWRMA_VERBOSE(1, "ucp_am_recv_data_nbx failed: %s",
                           ucs_status_string(UCS_PTR_STATUS(req)));
    }
    done(ctx, UCS_OK == UCS_PTR_STATUS(req) ? OMPI_SUCCESS : OMPI_ERROR);
}

void ompi_osc_newrma_ucx_am_data_release(void *data)
{
    ucp_am_data_release(component.ucp_worker, data);
}

int ompi_osc_newrma_ucx_fence(void)
{
    ucs_status_t status = ucp_worker_fence(component.ucp_worker);

    return UCS_OK == status ? OMPI_SUCCESS : OMPI_ERROR;
}

int ompi_osc_newrma_ucx_arm(void)
{
    ucs_status_t status = ucp_worker_arm(component.ucp_worker);

    if (UCS_ERR_BUSY == status) {
        return OMPI_ERR_WOULD_BLOCK;
    }
    return UCS_OK == status ? OMPI_SUCCESS : OMPI_ERROR;
}

int ompi_osc_newrma_ucx_efd(int *fd_p)
{
    ucs_status_t status = ucp_worker_get_efd(component.ucp_worker, fd_p);

    if (UCS_OK != status) {
        opal_output(0, "osc/newrma: ucp_worker_get_efd failed: %s", ucs_status_string(status));
        return OMPI_ERROR;
    }
    return OMPI_SUCCESS;
}

void ompi_osc_newrma_ucx_signal(void)
{
    (void) ucp_worker_signal(component.ucp_worker);
}

int ompi_osc_newrma_ucx_progress(void)
{
    if (NULL == component.ucp_worker) {
        return 0;
    }
    return (int) ucp_worker_progress(component.ucp_worker);
}
