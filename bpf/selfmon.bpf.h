/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Thread self-monitoring (include/emon_selfmon.h), included by emon.bpf.c
 * and called once from its sched_switch program, after account() has
 * read this CPU's counters into the CPU's emon_prev.
 *
 * A registered thread has its slot number in task local storage
 * (self_task), put there by the daemon with the thread's pidfd as the key:
 * one pointer walk per switch to tell, no hash lookup, and the kernel
 * drops the entry with the task, so a reused tid never finds a slot.
 * At a registered thread's switch out, the slice goes into its slot (time
 * events from bpf_ktime_get_ns(), which is CLOCK_MONOTONIC, the clock the
 * reader adds the running slice with; other events as this CPU's counters
 * moved since its switch in); at its switch in, the slice's start is
 * recorded. Off (self_max == 0, no --threads): the verifier drops all of
 * it, and a switch costs what it did.
 */
#ifndef SELFMON_BPF_H
#define SELFMON_BPF_H

#include "emon_selfmon.h"

/* Slots (serve --threads N); 0: self-monitoring is off. */
const volatile __u32 self_max;
/* Events (bit i) counted from timestamps: cpu-clock, task-clock. */
const volatile __u32 self_time;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct emon_self_slot);
	__uint(max_entries, 1);		/* self_max, set at load */
} self_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct emon_self_ref);
} self_task SEC(".maps");

static __always_inline struct emon_self_slot *selfmon__slot(struct task_struct *t)
{
	struct emon_self_ref *r = bpf_task_storage_get(&self_task, t, NULL, 0);
	struct emon_self_slot *sl;

	if (!r)
		return NULL;
	sl = bpf_map_lookup_elem(&self_slots, &r->slot);
	/* still its own: see struct emon_self_ref */
	return sl && sl->state == EMON_SELF_LIVE && sl->gen == r->gen ? sl : NULL;
}

/*
 * The run time of t's slice since CFS picked it, as the scheduler counts
 * it (CLOCK_THREAD_CPUTIME_ID's clock: on a VM it leaves out the time
 * the hypervisor stole, which the switch timestamps cannot), or 0 when t
 * is not a CFS task (SCHED_NORMAL, _BATCH, _IDLE): those alone keep
 * prev_sum_exec_runtime.
 */
static __always_inline __u64 selfmon__ran(struct task_struct *t)
{
	__u64 ran = t->se.sum_exec_runtime - t->se.prev_sum_exec_runtime;
	__u32 pol = t->policy;

	if (pol != 0 && pol != 3 && pol != 5)
		return 0;
	return (__s64)ran > 0 ? ran : 0;
}

/* The outgoing thread's slice: into its totals. */
static __always_inline void selfmon__out(struct emon_self_slot *sl,
					 const struct emon_prev *p,
					 struct task_struct *t, __u64 now)
{
	__u64 ran = selfmon__ran(t);

	__sync_fetch_and_add(&sl->seq, 1);
	for (__u32 i = 0; i < EMON_MAX_EVENTS; i++) {
		__u64 d;

		if (i >= nr_events)
			break;
		if (self_time & (1u << i))
			d = ran ?: now - sl->start_ns;
		else
			d = p->c[i].counter - sl->start[i];
		/* an event replaced in mid-slice (hotplug) starts over */
		if ((__s64)d > 0)
			sl->total[i] += d;
	}
	sl->start_ns = 0;
	__sync_fetch_and_add(&sl->seq, 1);
}

/* The incoming thread's slice starts here. */
static __always_inline void selfmon__in(struct emon_self_slot *sl,
					const struct emon_prev *p, __u64 now)
{
	__sync_fetch_and_add(&sl->seq, 1);
	sl->cpu = bpf_get_smp_processor_id();
	for (__u32 i = 0; i < EMON_MAX_EVENTS; i++) {
		if (i >= nr_events)
			break;
		sl->start[i] = p->c[i].counter;
	}
	sl->start_ns = now;
	__sync_fetch_and_add(&sl->seq, 1);
}

/*
 * The outgoing thread was switched in untraced (from a task the kernel
 * keeps out of its tracepoints: see account()), so its slice has no
 * recorded start. Its time is still known: CFS stamped the pick, and
 * sum_exec_runtime - prev_sum_exec_runtime is the run since then; its
 * switch count grows by this switch. Other counters: the slice is lost.
 */
static __always_inline void selfmon__out_untraced(struct emon_self_slot *sl,
						  struct task_struct *t)
{
	__u64 ran = selfmon__ran(t);

	__sync_fetch_and_add(&sl->seq, 1);
	for (__u32 i = 0; i < EMON_MAX_EVENTS; i++) {
		if (i >= nr_events)
			break;
		if (self_time & (1u << i))
			sl->total[i] += ran;
		else if (switch_events & (1u << i))
			sl->total[i]++;
	}
	__sync_fetch_and_add(&sl->seq, 1);
}

/* At sched_switch, after account(): p holds this CPU's counters now. */
static __always_inline void selfmon__switch(const struct emon_prev *p,
					    struct task_struct *prev,
					    struct task_struct *next)
{
	struct emon_self_slot *sl;
	__u64 now;

	if (!self_max)
		return;
	now = bpf_ktime_get_ns();
	sl = selfmon__slot(prev);
	if (sl && sl->start_ns)
		selfmon__out(sl, p, prev, now);
	else if (sl)
		selfmon__out_untraced(sl, prev);
	sl = selfmon__slot(next);
	if (sl)
		selfmon__in(sl, p, now);
}

/*
 * The daemon's writes to a slot: the array is frozen (read-only from
 * user space, so no reader can write anyone's slot, its mmap included),
 * so the daemon test-runs this with args: slot, state, gen, tid. A slot
 * handed out starts from zero; one taken back or gone keeps its counts.
 */
SEC("raw_tp")
int self_ctl(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 slot = ctx->args[0], state = ctx->args[1];
	struct emon_self_slot *sl = bpf_map_lookup_elem(&self_slots, &slot);

	if (!sl)
		return 1;
	__sync_fetch_and_add(&sl->seq, 1);
	if (state == EMON_SELF_LIVE) {
		sl->gen = ctx->args[2];
		sl->tid = ctx->args[3];
		sl->start_ns = 0;
		sl->pmc_width = 0;
		for (__u32 i = 0; i < EMON_MAX_EVENTS; i++) {
			sl->total[i] = 0;
			sl->start[i] = 0;
			sl->pmc_idx[i] = 0;
			sl->pmc_start[i] = 0;
		}
	}
	sl->state = state;
	__sync_fetch_and_add(&sl->seq, 1);
	return 0;
}

#endif /* SELFMON_BPF_H */
