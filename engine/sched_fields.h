/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The scheduler view (--sched) as data: one table of its scalar fields
 * (named alike in JSON, CSV and /metrics), and runqlat's log2 histogram's
 * buckets. How each format prints them is for the front ends to say.
 */
#ifndef ENGINE_SCHED_FIELDS_H
#define ENGINE_SCHED_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "emon.h"

struct sched_field {
	const char *name;	/* JSON and CSV: "on_cpu_ns" */
	const char *label;	/* text: "on-cpu" */
	size_t off;		/* of its __u64 in struct emon_sched */
	bool is_time;		/* nanoseconds */
};

#define SCHED_NR_FIELDS 8
extern const struct sched_field sched_fields[SCHED_NR_FIELDS];

static inline __u64 sched_field__get(const struct emon_sched *s, int i)
{
	return *(const __u64 *)((const char *)s + sched_fields[i].off);
}

/* The last bucket that holds a wait, -1 when none does. */
int sched_hist__last(const struct emon_sched *s);
/* Bucket i's inclusive upper bound (us, or ms): runqlat's "high". */
__u64 sched_hist__upper(int i);

#endif
