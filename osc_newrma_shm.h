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

/** The node barrier's cache line in the segment (after the lock words). */
typedef struct {
    /** ranks arrived in the current round */
    volatile int32_t arrived;
    /** rounds completed: waiters spin until it moves */
    volatile int32_t generation;
    char pad[56];
} ompi_osc_newrma_shm_barrier_t;

typedef struct {
    /** a segment is attached */
    bool active;
    /** the segment holds every rank of the window (the node is the window):
     * FENCE synchronizes through it instead of a collective */
    bool whole;
    ompi_osc_newrma_shm_barrier_t *barrier;
    int node_size;
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

/**
 * The segment's barrier, in two steps so the caller can drive progress while
 * it waits: arrive returns the round's ticket, done tells whether every
 * node-local rank has arrived in that round.  A sense-reversing counter: the
 * last to arrive resets it and moves the generation on.
 */
int32_t ompi_osc_newrma_shm_barrier_arrive(ompi_osc_newrma_module_t *module);
bool ompi_osc_newrma_shm_barrier_done(ompi_osc_newrma_module_t *module, int32_t ticket);

#endif /* OMPI_OSC_NEWRMA_SHM_H */
