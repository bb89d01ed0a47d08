/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/*
 * osc/newrma: the window's own communicator, kept between windows on the
 * user's communicator (see osc_newrma_base_comm.h).
 */
#include "ompi_config.h"

#include "ompi/attribute/attribute.h"
#include "ompi/communicator/communicator.h"
#include "opal/class/opal_list.h"

#include "osc_newrma_base_comm.h"

/** A user's communicator's kept duplicate (its attribute's value). */
typedef struct {
    opal_list_item_t super;
    ompi_communicator_t *parent;
    ompi_communicator_t *dup;
    /** a window uses it */
    bool busy;
    /** the parent was freed while a window used it: that window frees it */
    bool orphan;
} comm_kept_t;

static OBJ_CLASS_INSTANCE(comm_kept_t, opal_list_item_t, NULL, NULL);

/* The attribute key (MPI_KEYVAL_INVALID: nothing is kept; made with the
 * first window) and every kept duplicate, for the component's finalize (an
 * orphan until its window frees it).  Touched only
 * in window creation and free and in the parents' MPI_Comm_free, which
 * without MPI_THREAD_MULTIPLE (the only case anything is kept) never run
 * at once. */
static int comm_keyval = MPI_KEYVAL_INVALID;
static bool comm_enabled = false;
static opal_list_t comm_kept;

static void comm_kept_free(comm_kept_t *kept)
{
    opal_list_remove_item(&comm_kept, &kept->super);
    (void) ompi_comm_free(&kept->dup);
    OBJ_RELEASE(kept);
}

static void comm_kept_drop(comm_kept_t *kept)
{
    if (kept->busy) {
        kept->orphan = true; /* its window frees it */
        kept->parent = NULL;
        return;
    }
    comm_kept_free(kept);
}

/* The parent's attribute deleted: at its MPI_Comm_free, or by us. */
static int comm_kept_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void) comm, (void) keyval, (void) extra;
    comm_kept_drop((comm_kept_t *) value);
    return MPI_SUCCESS;
}

/* A user's MPI_Comm_dup of the parent does not copy it. */
static int comm_kept_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag,
                          MPI_Comm newcomm)
{
    (void) comm, (void) keyval, (void) extra, (void) in, (void) out, (void) newcomm;
    *flag = 0;
    return MPI_SUCCESS;
}

int ompi_osc_newrma_comm_init(bool enabled)
{
    OBJ_CONSTRUCT(&comm_kept, opal_list_t);
    comm_keyval = MPI_KEYVAL_INVALID;
    comm_enabled = enabled;
    return OMPI_SUCCESS;
}

/* The key, made with the first window (osc components are initialized
 * before Open MPI's attributes are).  A failure fails that creation on
 * every rank, and the others drop what they kept (ompi_osc_newrma_comm_put),
 * so all agree again that nothing is kept. */
static int comm_key_make(void)
{
    ompi_attribute_fn_ptr_union_t copy, del;
    int ret;

    if (MPI_KEYVAL_INVALID != comm_keyval || !comm_enabled) {
        return OMPI_SUCCESS;
    }
    copy.attr_communicator_copy_fn = comm_kept_copy;
    del.attr_communicator_delete_fn = comm_kept_delete;
    ret = ompi_attr_create_keyval(COMM_ATTR, copy, del, &comm_keyval, NULL, 0, NULL);
    if (OMPI_SUCCESS != ret) {
        comm_keyval = MPI_KEYVAL_INVALID;
    }
    return ret;
}

void ompi_osc_newrma_comm_fini(void)
{
    comm_kept_t *kept, *next;

    /* before Open MPI frees the communicators (and calls us back) */
    OPAL_LIST_FOREACH_SAFE(kept, next, &comm_kept, comm_kept_t)
    {
        if (kept->busy || kept->orphan) {
            opal_list_remove_item(&comm_kept, &kept->super); /* a window never freed */
            continue;
        }
        (void) ompi_attr_delete(COMM_ATTR, kept->parent, kept->parent->c_keyhash, comm_keyval,
                                false);
    }
    if (MPI_KEYVAL_INVALID != comm_keyval) {
        (void) ompi_attr_free_keyval(COMM_ATTR, &comm_keyval, false);
        comm_keyval = MPI_KEYVAL_INVALID;
    }
    OBJ_DESTRUCT(&comm_kept);
}

/* @p parent's kept duplicate, or NULL. */
static comm_kept_t *comm_kept_of(ompi_communicator_t *parent)
{
    void *value = NULL;
    int flag = 0;

    if (MPI_KEYVAL_INVALID == comm_keyval || OMPI_COMM_IS_INTER(parent) ||
        OMPI_SUCCESS != ompi_attr_get_c(parent->c_keyhash, comm_keyval, &value, &flag) || !flag) {
        return NULL;
    }
    return (comm_kept_t *) value;
}

/* Keep @p dup for @p parent's next windows (busy now).  A failure keeps
 * nothing and must fail the creation everywhere: this rank would dup again
 * where the others reuse. */
static int comm_keep(ompi_communicator_t *parent, ompi_communicator_t *dup)
{
    comm_kept_t *kept = OBJ_NEW(comm_kept_t);
    int ret;

    if (NULL == kept) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    kept->parent = parent;
    kept->dup = dup;
    kept->busy = true;
    kept->orphan = false;
    ret = ompi_attr_set_c(COMM_ATTR, parent, &parent->c_keyhash, comm_keyval, kept, false);
    if (OMPI_SUCCESS != ret) {
        OBJ_RELEASE(kept);
        return ret;
    }
    opal_list_append(&comm_kept, &kept->super);
    return OMPI_SUCCESS;
}

int ompi_osc_newrma_comm_get(ompi_communicator_t *parent, ompi_communicator_t **comm_p)
{
    comm_kept_t *kept;
    int status = comm_key_make(), ret;

    *comm_p = NULL;
    kept = OMPI_SUCCESS == status ? comm_kept_of(parent) : NULL;
    if (NULL != kept && !kept->busy) {
        kept->busy = true;
        *comm_p = kept->dup;
        return OMPI_SUCCESS;
    }
    ret = ompi_comm_dup(parent, comm_p);
    if (OMPI_SUCCESS != ret) {
        *comm_p = NULL;
        return ret;
    }
    /* a second window alive on @p parent has a duplicate of its own */
    if (OMPI_SUCCESS != status || NULL != kept || MPI_KEYVAL_INVALID == comm_keyval ||
        OMPI_COMM_IS_INTER(parent)) {
        return status;
    }
    return comm_keep(parent, *comm_p);
}

/* The kept duplicate that @p comm is, or NULL. */
static comm_kept_t *comm_kept_find(const ompi_communicator_t *comm)
{
    comm_kept_t *kept;

    OPAL_LIST_FOREACH(kept, &comm_kept, comm_kept_t)
    {
        if (kept->dup == comm) {
            return kept;
        }
    }
    return NULL;
}

void ompi_osc_newrma_comm_put(ompi_communicator_t **comm_p, bool keep)
{
    comm_kept_t *kept;

    if (NULL == *comm_p) {
        return;
    }
    kept = comm_kept_find(*comm_p);
    if (NULL == kept) {
        /* a second window's own duplicate */
        (void) ompi_comm_free(comm_p);
        *comm_p = NULL;
        return;
    }
    kept->busy = false;
    *comm_p = NULL;
    if (kept->orphan) {
        comm_kept_free(kept);
    } else if (!keep) {
        /* every rank drops it: the attribute's deletion frees it */
        (void) ompi_attr_delete(COMM_ATTR, kept->parent, kept->parent->c_keyhash, comm_keyval,
                                false);
    }
}
