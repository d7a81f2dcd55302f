// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Per-interval buffers (a read's entries, the snapshot, the rows) grow with
 * the processes of the busiest interval: 100+ MiB in a storm of 40,000
 * processes a second. glibc raises its mmap threshold each time such a
 * block is freed (up to 32 MiB), after which they come from the heap,
 * where holes between them are not given back: a CI run's RSS climbed 40%
 * over what the busiest interval had needed, with no more processes
 * (tests/integration/process_storm.sh). A fixed threshold keeps every
 * block over 1 MiB mmapped, returned to the kernel when freed, and a trim
 * after each interval hands back the free pages the interval's small
 * blocks leave in the heap (15-20 MiB in such a storm; about 1 ms with
 * 30,000 process rows). make bench-memory compares with glibc's defaults.
 */
#include <malloc.h>
#include <stdbool.h>
#include <stdlib.h>
#include "front/heap.h"

static bool heap_default;

void heap__setup(void)
{
	heap_default = getenv("EMON_HEAP_DEFAULT") != NULL;
	if (!heap_default)
		mallopt(M_MMAP_THRESHOLD, 1 << 20);
}

void heap__trim(void)
{
	if (!heap_default)
		malloc_trim(0);
}
