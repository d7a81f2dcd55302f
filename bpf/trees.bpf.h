/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Command trees (the tree map, see state.bpf.h): which trees a process is
 * in, and each tree's part of a slice that found no slot for its process.
 */
#ifndef EMON_TREES_BPF_H
#define EMON_TREES_BPF_H

#include "state.bpf.h"

/*
 * The trees in use, written by userspace through the mmap'ed .bss: a tree
 * let go is no process's from then on, even one whose entry its sweep of
 * the tree map missed (a fork that read its parent's mask before the
 * sweep took the bit off, and added the child after the sweep had passed
 * it). The tree's next user sweeps again before it sets the bit.
 */
volatile __u64 live_trees;

/* exec keeps it: de_thread() gives the new leader the old one's */
static __always_inline __u32 proc_start(struct task_struct *task)
{
	return task->group_leader->start_time;
}

/* The trees the process tgid is in; task: current (direct loads), or one
 * remembered (probe reads). */
static __always_inline __u64 in_trees(__u32 tgid, struct task_struct *task, bool cur)
{
	struct emon_tree_val *v;
	__u64 start;

	if (!cfg.follow_tree)
		return 0;
	v = bpf_map_lookup_elem(&tree, &tgid);
	if (!v)
		return 0;
	start = cur ? task->group_leader->start_time :
		      BPF_CORE_READ(task, group_leader, start_time);
	return !v->start || v->start == start ? v->mask & live_trees : 0;
}

/* Rare path: a process of trees found no room: each tree's overflow part. */
static __always_inline void tree_overflow_add(__u32 par, __u64 trees,
					      const struct emon_count *d)
{
	for (__u32 t = 0; t < EMON_MAX_TREES; t++) {
		__u32 idx = (par & 1) * EMON_MAX_TREES + t;
		struct emon_counts *o;

		if (!(trees & (1ULL << t)))
			continue;
		o = bpf_map_lookup_elem(&tree_ovf, &idx);
		if (o)
			counts_add(o->c, d);
	}
}

#endif /* EMON_TREES_BPF_H */
