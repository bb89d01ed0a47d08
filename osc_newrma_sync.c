/*
 * osc/newrma: synchronization calls (design: "Algorithm For FENCE").
 */
#include "ompi_config.h"

#include "ompi/mca/coll/coll.h"

#include "osc_newrma.h"
#include "osc_newrma_progress.h"
#include "osc_newrma_state.h"

int ompi_osc_newrma_win_state_move(ompi_osc_newrma_module_t *module,
                                   ompi_osc_newrma_win_event_t event)
{
    ompi_osc_newrma_win_state_t next;
    int ret = ompi_osc_newrma_win_state_next(module->win_state, event, &next);

    if (OMPI_SUCCESS == ret) {
        OSC_NEWRMA_VERBOSE(50, "window %u: %s -> %s", module->cid,
                           ompi_osc_newrma_win_state_name(module->win_state),
                           ompi_osc_newrma_win_state_name(next));
        module->win_state = next;
    }
    return ret;
}

static bool fence_req_done(ompi_osc_newrma_module_t *module, void *arg)
{
    (void) arg;
    return NULL == module->fence_req;
}

static bool fence_ops_done(ompi_osc_newrma_module_t *module, void *arg)
{
    (void) arg;
    return 0 == module->table.num_targets && 0 == module->ack_counter;
}

static int fence_ibarrier(ompi_osc_newrma_module_t *module)
{
    ompi_communicator_t *comm = module->comm;

    return comm->c_coll->coll_ibarrier(comm, &module->fence_req,
                                       comm->c_coll->coll_ibarrier_module);
}

/* Complete every operation of the ending epoch: issue them all, RMA_DONE
 * behind the last op to each target, wait for the op table to empty and
 * every RMA_DONE_ACK (ack_counter back to 0). */
static int fence_complete_ops(ompi_osc_newrma_module_t *module)
{
    ompi_osc_newrma_target_t *target;
    int slot;

    for (target = ompi_osc_newrma_optable_first(&module->table, &slot); NULL != target;
         target = ompi_osc_newrma_optable_next(&module->table, target, &slot)) {
        target->sync_flag = OMPI_OSC_NEWRMA_SYNC_FLUSH;
    }
    return ompi_osc_newrma_progress_wait(module, fence_ops_done, NULL);
}

/* Dynamic windows: forget the remote regions cached in the closed epoch;
 * targets may detach and attach memory between epochs. */
static void fence_forget_regions(ompi_osc_newrma_module_t *module)
{
    opal_list_item_t *item;

    if (MPI_WIN_FLAVOR_DYNAMIC != module->flavor) {
        return;
    }
    for (int i = 0; i < module->comm_size; ++i) {
        while (NULL != (item = opal_list_remove_first(&module->peers[i].regions))) {
            OBJ_RELEASE(item);
        }
    }
}

/* A previous FENCE's IBARRIER must finish before the next one starts. */
static int fence_finish_previous(ompi_osc_newrma_module_t *module)
{
    if (NULL == module->fence_req) {
        return OMPI_SUCCESS;
    }
    /* progress also moves FENCE_ISSUED to FENCE_GRANTED */
    return ompi_osc_newrma_progress_wait(module, fence_req_done, NULL);
}

static int fence_noprecede(ompi_osc_newrma_module_t *module)
{
    int ret;

    opal_atomic_mb(); /* MEM_SYNC: expose earlier local stores */
    if (module->shm.active) {
        /* node-local peers may then be accessed directly at once */
        ret = ompi_osc_newrma_shm_barrier(module);
        if (OMPI_SUCCESS != ret) {
            return ret;
        }
        opal_atomic_mb();
    }
    ret = fence_ibarrier(module);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    return ompi_osc_newrma_win_state_move(module, OMPI_OSC_NEWRMA_EV_FENCE_NOPRECEDE);
}

static int fence_full(ompi_osc_newrma_module_t *module)
{
    int ret = fence_complete_ops(module);

    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    opal_atomic_mb(); /* MEM_SYNC before PROC_SYNC */
    ret = fence_ibarrier(module);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    ret = ompi_osc_newrma_win_state_move(module, OMPI_OSC_NEWRMA_EV_FENCE_IBARRIER);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    /* waits for the IBARRIER; progress sets FENCE_GRANTED and the MEM_SYNC
     * after PROC_SYNC */
    return ompi_osc_newrma_progress_wait(module, fence_req_done, NULL);
}

static int fence_locked(ompi_osc_newrma_module_t *module, int mpi_assert)
{
    ompi_osc_newrma_win_state_t next;
    int ret;

    /* only legal outside other epochs */
    ret =
        ompi_osc_newrma_win_state_next(module->win_state, OMPI_OSC_NEWRMA_EV_FENCE_IBARRIER, &next);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    ret = fence_finish_previous(module);
    if (OMPI_SUCCESS != ret) {
        return ret;
    }
    /* NOPRECEDE promises no operations to complete; if the user broke the
     * promise, complete them anyway rather than lose them */
    if ((mpi_assert & MPI_MODE_NOPRECEDE) && 0 == module->table.num_targets) {
        ret = fence_noprecede(module);
    } else {
        ret = fence_full(module);
    }
    if (OMPI_SUCCESS == ret) {
        fence_forget_regions(module);
    }
    if (OMPI_SUCCESS == ret && (mpi_assert & MPI_MODE_NOSUCCEED)) {
        ret = ompi_osc_newrma_win_state_move(module, OMPI_OSC_NEWRMA_EV_FENCE_NOSUCCEED);
    }
    return ret;
}

int ompi_osc_newrma_fence(int mpi_assert, struct ompi_win_t *win)
{
    ompi_osc_newrma_module_t *module = ompi_osc_newrma_module(win);
    int ret;

    opal_mutex_lock(&module->lock);
    ret = fence_locked(module, mpi_assert);
    opal_mutex_unlock(&module->lock);
    return ret;
}

int ompi_osc_newrma_sync(struct ompi_win_t *win)
{
    (void) win;
    /* MEM_SYNC: order this process's loads/stores on shared window memory */
    opal_atomic_mb();
    return OMPI_SUCCESS;
}

/* ---- PSCW: not part of the passive-target work ---- */

int ompi_osc_newrma_start(struct ompi_group_t *group, int mpi_assert, struct ompi_win_t *win)
{
    (void) group, (void) mpi_assert, (void) win;
    return OMPI_ERR_NOT_SUPPORTED;
}

int ompi_osc_newrma_complete(struct ompi_win_t *win)
{
    (void) win;
    return OMPI_ERR_NOT_SUPPORTED;
}

int ompi_osc_newrma_post(struct ompi_group_t *group, int mpi_assert, struct ompi_win_t *win)
{
    (void) group, (void) mpi_assert, (void) win;
    return OMPI_ERR_NOT_SUPPORTED;
}

int ompi_osc_newrma_wait(struct ompi_win_t *win)
{
    (void) win;
    return OMPI_ERR_NOT_SUPPORTED;
}

int ompi_osc_newrma_test(struct ompi_win_t *win, int *flag)
{
    (void) win, (void) flag;
    return OMPI_ERR_NOT_SUPPORTED;
}
