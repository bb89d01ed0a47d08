/*
 * Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
 */
/* The C layouts of MPI's value-and-index pair types with padding
 * (MPI_SHORT_INT, MPI_LONG_INT, MPI_DOUBLE_INT, MPI_LONG_DOUBLE_INT): the
 * tests' reference for where a pair's value, index and padding lie. */
#ifndef OSC_NEWRMA_PAIR_TYPES_H
#define OSC_NEWRMA_PAIR_TYPES_H

typedef struct {
    short v;
    int k;
} short_int_t;
typedef struct {
    long v;
    int k;
} long_int_t;
typedef struct {
    double v;
    int k;
} double_int_t;
typedef struct {
    long double v;
    int k;
} long_double_int_t;

#endif
