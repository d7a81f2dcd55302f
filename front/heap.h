/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * glibc's heap, set for a process storm (front/heap.c): per-interval buffers
 * that grow with the processes of the busiest interval go back to the
 * kernel once freed. EMON_HEAP_DEFAULT (set) leaves glibc's defaults, to
 * compare (make bench-memory).
 */
#ifndef FRONT_HEAP_H
#define FRONT_HEAP_H

/* At start, before any allocation of note. */
void heap__setup(void);
/* After an interval's buffers are freed. */
void heap__trim(void);

#endif /* FRONT_HEAP_H */
