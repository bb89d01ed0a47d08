/*
 * osc/newrma: node-local shared-memory segment.
 *
 * MPI_Win_allocate and MPI_Win_allocate_shared windows keep the memory of all
 * ranks of a node in one opal shmem segment, so node-local peers reach each
 * other's window with direct loads and stores.
 */
#ifndef OMPI_OSC_NEWRMA_SHM_H
#define OMPI_OSC_NEWRMA_SHM_H

#include "ompi_config.h"

#include "opal/mca/shmem/shmem.h"

#include "osc_newrma_types.h"

struct ompi_communicator_t;

typedef struct {
    /** a segment is attached */
    bool active;
    /** RMA to node-local peers uses direct load/store (osc_newrma_shm) */
    bool direct;
    opal_shmem_ds_t ds;
    char *seg_base;
    /** the window's ranks on this node (split by MPI_COMM_TYPE_SHARED) */
    struct ompi_communicator_t *node_comm;
} ompi_osc_newrma_shm_t;

/**
 * Collectively create the node segment and place every node-local rank's
 * @p size bytes in it (page-aligned per rank when @p noncontig).  Sets
 * module->peers[r].shm_base for each node-local rank r and *base_p to mine.
 * Collective over module->comm.
 */
int ompi_osc_newrma_shm_allocate(ompi_osc_newrma_module_t *module, size_t size, bool noncontig,
                                 void **base_p);

/** Detach the segment and free the node communicator. */
void ompi_osc_newrma_shm_free(ompi_osc_newrma_module_t *module);

/** Node-local barrier (FENCE with MPI_MODE_NOPRECEDE on a shm window). */
int ompi_osc_newrma_shm_barrier(ompi_osc_newrma_module_t *module);

#endif /* OMPI_OSC_NEWRMA_SHM_H */
