/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A growable array is a pointer, a capacity and a count kept by its user;
 * this makes room in it. Callers keep their own typed fields, so there is
 * no array struct to wrap them in.
 */
#ifndef COMMON_ARRAY_H
#define COMMON_ARRAY_H

#include <stddef.h>

/* The first capacity given to an empty array. */
#define ARRAY_MIN_CAP 16

/*
 * Room for need elements of elem bytes in the array *arrp points to
 * (void ** in fact; void * so that any T ** passes), of capacity *cap:
 * the capacity doubles, from ARRAY_MIN_CAP, until need fits, so n
 * appends cost O(n) copies. need 0 still gives an array (never NULL:
 * qsort and memcpy take it). 0, or -ENOMEM (-EOVERFLOW past SIZE_MAX
 * bytes, -EINVAL for elem 0) with the array and *cap as they were.
 */
int array__grow(void *arrp, size_t *cap, size_t need, size_t elem);

#endif
