/*
 * osc/newrma: basic routines and the progress engine hook (see
 * osc_newrma_progress.h).
 */
#include "ompi_config.h"

#include "ompi/datatype/ompi_datatype.h"
#include "opal/runtime/opal_progress.h"

#include "osc_newrma.h"
#include "osc_newrma_ops.h"
#include "osc_newrma_pkt.h"
#include "osc_newrma_progress.h"
#include "osc_newrma_state.h"
#include "osc_newrma_ucx.h"

#define component mca_osc_newrma_component

/* May ops of @p target go out now?  Not while the epoch is still being
 * opened (FENCE_ISSUED: other processes may not have entered the fence). */
static bool target_may_issue(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target)
{
    switch (module->win_state) {
        case OMPI_OSC_NEWRMA_WIN_FENCE_GRANTED:
            /* PIGGYBACK_THRESHOLD: keep the first ops queued so the last one
             * can carry RMA_DONE, unless a synchronization asks for them */
            return OMPI_OSC_NEWRMA_SYNC_NONE != target->sync_flag ||
                   target->op_count > module->config.piggyback_threshold;
        default:
            return false;
    }
}

int ompi_osc_newrma_issue_ops_target(ompi_osc_newrma_module_t *module,
                                     ompi_osc_newrma_target_t *target, int max)
{
    ompi_osc_newrma_op_t *op;
    int issued = 0, ret;

    if (!target_may_issue(module, target)) {
        return 0;
    }
    while ((max < 0 || issued < max) &&
           NULL != (op = ompi_osc_newrma_target_next_pending(target))) {
        ret = ompi_osc_newrma_op_issue(module, target, op);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
        issued++;
    }
    /* RMA_DONE goes right behind the last op (piggybacked on the same
     * endpoint flush) once a FLUSH-type synchronization asked for it */
    if (target->sync_flag >= OMPI_OSC_NEWRMA_SYNC_FLUSH && NULL == target->next_op_to_issue &&
        ompi_osc_newrma_target_owes_rma_done(target)) {
        ret = ompi_osc_newrma_op_rma_done(module, target);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
    }
    return issued;
}

int ompi_osc_newrma_issue_ops_win(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_target_t *target;
    int total = 0, round, slot, ret;

    do {
        round = 0;
        for (target = ompi_osc_newrma_optable_first(&module->table, &slot); NULL != target;
             target = ompi_osc_newrma_optable_next(&module->table, target, &slot)) {
            ret = ompi_osc_newrma_issue_ops_target(module, target, 1);
            if (ret < 0) {
                return ret;
            }
            round += ret;
        }
        total += round;
    } while (round > 0);
    return total;
}

int ompi_osc_newrma_cleanup_target(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_target_t *target)
{
    ompi_osc_newrma_op_t *op;
    int count = 0, ret;

    /* oldest first; an incomplete op means the later ones are likely
     * incomplete too, so stop there */
    while (!opal_list_is_empty(&target->ops)) {
        op = (ompi_osc_newrma_op_t *) opal_list_get_first(&target->ops);
        if (!ompi_osc_newrma_op_is_complete(op)) {
            break;
        }
        ompi_osc_newrma_target_dequeue_op(target, op);
        ret = ompi_osc_newrma_op_finish(module, op);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
        count++;
    }
    return count;
}

/* Active target: an empty target element that a synchronization flagged
 * is released; its RMA_DONE is counted in the window's ack_counter. */
static int cleanup_active_target(ompi_osc_newrma_module_t *module, ompi_osc_newrma_target_t *target)
{
    int ret;

    if (!opal_list_is_empty(&target->ops) || OMPI_OSC_NEWRMA_SYNC_NONE == target->sync_flag) {
        return 0;
    }
    if (ompi_osc_newrma_target_owes_rma_done(target)) {
        ret = ompi_osc_newrma_op_rma_done(module, target);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
    }
    ompi_osc_newrma_target_release(module, target);
    return 1;
}

int ompi_osc_newrma_cleanup_win(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_target_t *target, *next;
    bool active = ompi_osc_newrma_win_state_is_fence(module->win_state) ||
                  OMPI_OSC_NEWRMA_WIN_PSCW_ISSUED == module->win_state ||
                  OMPI_OSC_NEWRMA_WIN_PSCW_GRANTED == module->win_state ||
                  OMPI_OSC_NEWRMA_WIN_NONE == module->win_state;
    int total = 0, slot, ret;

    for (target = ompi_osc_newrma_optable_first(&module->table, &slot); NULL != target;
         target = next) {
        next = ompi_osc_newrma_optable_next(&module->table, target, &slot);
        ret = ompi_osc_newrma_cleanup_target(module, target);
        if (ret >= 0 && active) {
            int released = cleanup_active_target(module, target);
            ret = released < 0 ? released : ret + released;
        }
        if (ret < 0) {
            return ret;
        }
        total += ret;
    }
    return total;
}

int ompi_osc_newrma_make_rma_progress_target(ompi_osc_newrma_module_t *module,
                                             ompi_osc_newrma_target_t *target)
{
    int x, y, total = 0;

    do {
        x = ompi_osc_newrma_issue_ops_target(module, target, -1);
        if (x < 0) {
            return x;
        }
        y = ompi_osc_newrma_cleanup_target(module, target);
        if (y < 0) {
            return y;
        }
        total += x + y;
    } while (x + y != 0);
    return total;
}

/* FENCE_ISSUED -> FENCE_GRANTED once the IBARRIER of fence_req completed. */
static int fence_req_check(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_win_state_t next;
    int ret;

    if (NULL == module->fence_req || !REQUEST_COMPLETE(module->fence_req)) {
        return 0;
    }
    ret = ompi_request_free(&module->fence_req);
    module->fence_req = NULL;
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    if (OMPI_OSC_NEWRMA_WIN_FENCE_ISSUED == module->win_state &&
        OMPI_SUCCESS == ompi_osc_newrma_win_state_next(
                            module->win_state, OMPI_OSC_NEWRMA_EV_FENCE_IBARRIER_DONE, &next)) {
        module->win_state = next;
        opal_atomic_mb(); /* MEM_SYNC after PROC_SYNC */
    }
    return 1;
}

int ompi_osc_newrma_make_rma_progress_win(ompi_osc_newrma_module_t *module)
{
    int x, y, total;

    total = fence_req_check(module);
    if (total < 0) {
        return total;
    }
    do {
        x = ompi_osc_newrma_issue_ops_win(module);
        if (x < 0) {
            return x;
        }
        y = ompi_osc_newrma_cleanup_win(module);
        if (y < 0) {
            return y;
        }
        total += x + y;
    } while (x + y != 0);
    return total;
}

int ompi_osc_newrma_make_rma_progress_global(void)
{
    ompi_osc_newrma_module_t *module;
    uint32_t key;
    void *node = NULL;
    int total = 0, rc, ret;

    opal_mutex_lock(&component.windows_lock);
    rc = opal_hash_table_get_first_key_uint32(&component.modules, &key, (void **) &module, &node);
    while (OPAL_SUCCESS == rc) {
        /* a window whose lock is taken is being progressed by its owner */
        if (0 == opal_mutex_trylock(&module->lock)) {
            if (module->ready) {
                ret = ompi_osc_newrma_make_rma_progress_win(module);
                total += ret > 0 ? ret : 0;
            }
            opal_mutex_unlock(&module->lock);
        }
        rc = opal_hash_table_get_next_key_uint32(&component.modules, &key, (void **) &module, node,
                                                 &node);
    }
    opal_mutex_unlock(&component.windows_lock);
    return total;
}

int ompi_osc_newrma_progress_wait(ompi_osc_newrma_module_t *module, ompi_osc_newrma_cond_fn_t cond,
                                  void *arg)
{
    int ret;

    for (;;) {
        ret = ompi_osc_newrma_make_rma_progress_win(module);
        if (ret < 0) {
            return ret;
        }
        if (cond(module, arg)) {
            return OMPI_SUCCESS;
        }
        opal_mutex_unlock(&module->lock);
        opal_progress();
        opal_mutex_lock(&module->lock);
    }
}

static bool resource_available(ompi_osc_newrma_module_t *module,
                               ompi_osc_newrma_resource_t resource)
{
    if (OMPI_OSC_NEWRMA_RESOURCE_OP == resource) {
        return ompi_osc_newrma_pool_available(&module->op_pool) > 0 ||
               ompi_osc_newrma_pool_available(&component.op_global_pool) > 0;
    }
    return ompi_osc_newrma_pool_available(&module->target_pool) > 0 ||
           ompi_osc_newrma_pool_available(&component.target_global_pool) > 0;
}

typedef struct {
    ompi_osc_newrma_resource_t resource;
    ompi_osc_newrma_win_state_t issued_state;
} aggressive_wait_t;

static bool aggressive_resource_ready(ompi_osc_newrma_module_t *module, void *arg)
{
    return resource_available(module, ((aggressive_wait_t *) arg)->resource);
}

static bool aggressive_granted_or_ready(ompi_osc_newrma_module_t *module, void *arg)
{
    aggressive_wait_t *wait = arg;

    return module->win_state != wait->issued_state || resource_available(module, wait->resource);
}

/* Pick target element K whose completion frees the resource: for op
 * elements one that holds ops, for target elements any. */
static ompi_osc_newrma_target_t *aggressive_pick(ompi_osc_newrma_module_t *module,
                                                 ompi_osc_newrma_resource_t resource)
{
    ompi_osc_newrma_target_t *target, *any = NULL;
    int slot;

    for (target = ompi_osc_newrma_optable_first(&module->table, &slot); NULL != target;
         target = ompi_osc_newrma_optable_next(&module->table, target, &slot)) {
        if (!opal_list_is_empty(&target->ops)) {
            return target;
        }
        any = target;
    }
    return OMPI_OSC_NEWRMA_RESOURCE_TARGET == resource ? any : NULL;
}

int ompi_osc_newrma_cleanup_win_aggressive(ompi_osc_newrma_module_t *module,
                                           ompi_osc_newrma_resource_t resource)
{
    aggressive_wait_t wait = {resource, module->win_state};
    ompi_osc_newrma_target_t *target;
    int ret;

    switch (module->win_state) {
        case OMPI_OSC_NEWRMA_WIN_FENCE_ISSUED:
        case OMPI_OSC_NEWRMA_WIN_PSCW_ISSUED:
        case OMPI_OSC_NEWRMA_WIN_LOCK_ALL_ISSUED:
            /* queued ops cannot go out before the epoch is granted */
            ret = ompi_osc_newrma_progress_wait(module, aggressive_granted_or_ready, &wait);
            if (OMPI_SUCCESS != ret || resource_available(module, resource)) {
                return ret;
            }
            /* granted now: free an element as in the granted states */
            break;
        case OMPI_OSC_NEWRMA_WIN_NONE:
            return resource_available(module, resource) ? OMPI_SUCCESS : OMPI_ERR_OUT_OF_RESOURCE;
        default:
            break;
    }
    switch (module->win_state) {
        case OMPI_OSC_NEWRMA_WIN_FENCE_GRANTED:
        case OMPI_OSC_NEWRMA_WIN_PSCW_GRANTED:
            /* active target: FLUSH_LOCAL is enough, RMA_DONEs are counted
             * in the window's ack_counter and awaited at closing */
            target = aggressive_pick(module, resource);
            if (NULL == target) {
                break;
            }
            if (target->sync_flag < OMPI_OSC_NEWRMA_SYNC_FLUSH_LOCAL) {
                target->sync_flag = OMPI_OSC_NEWRMA_SYNC_FLUSH_LOCAL;
            }
            break;
        default:
            /* passive-target states pick by LOCK_GRANTED, ISSUED, CALLED
             * priority; they arrive with passive target synchronization */
            break;
    }
    return ompi_osc_newrma_progress_wait(module, aggressive_resource_ready, &wait);
}

int ompi_osc_newrma_op_alloc(ompi_osc_newrma_module_t *module, ompi_osc_newrma_op_t **op_p)
{
    opal_list_item_t *item;
    int ret;

    while (NULL == (item = ompi_osc_newrma_pool_get(&module->op_pool, &component.op_global_pool))) {
        ret = ompi_osc_newrma_cleanup_win_aggressive(module, OMPI_OSC_NEWRMA_RESOURCE_OP);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
    }
    *op_p = (ompi_osc_newrma_op_t *) item;
    return OMPI_SUCCESS;
}

int ompi_osc_newrma_target_get(ompi_osc_newrma_module_t *module, int rank,
                               ompi_osc_newrma_target_t **target_p)
{
    ompi_osc_newrma_target_t *target;
    opal_list_item_t *item;
    int ret;

    for (;;) {
        target = ompi_osc_newrma_optable_lookup(&module->table, rank);
        if (NULL != target) {
            *target_p = target;
            return OMPI_SUCCESS;
        }
        item = ompi_osc_newrma_pool_get(&module->target_pool, &component.target_global_pool);
        if (NULL != item) {
            target = (ompi_osc_newrma_target_t *) item;
            ompi_osc_newrma_optable_insert(&module->table, target, rank);
            *target_p = target;
            return OMPI_SUCCESS;
        }
        ret = ompi_osc_newrma_cleanup_win_aggressive(module, OMPI_OSC_NEWRMA_RESOURCE_TARGET);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
    }
}

void ompi_osc_newrma_target_release(ompi_osc_newrma_module_t *module,
                                    ompi_osc_newrma_target_t *target)
{
    ompi_osc_newrma_optable_remove(&module->table, target);
    ompi_osc_newrma_pool_put(&module->target_pool, &component.target_global_pool, &target->super);
}

bool ompi_osc_newrma_table_empty(ompi_osc_newrma_module_t *module, void *arg)
{
    (void) arg;
    return 0 == module->table.num_targets;
}

int ompi_osc_newrma_progress_cb(void)
{
    int count;

    /* opal_progress can be entered again from inside a handler */
    int32_t idle = 0;

    if (!opal_atomic_compare_exchange_strong_32(&component.progress_busy, &idle, 1)) {
        return 0;
    }
    count = ompi_osc_newrma_ucx_progress();
    count += ompi_osc_newrma_pkt_process_inbox();
    count += ompi_osc_newrma_make_rma_progress_global();
    opal_atomic_wmb();
    component.progress_busy = 0;
    return count;
}
