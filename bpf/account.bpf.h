/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Counting a CPU's slice (account()): every event's delta, from its
 * counter or from the switch itself (switch_events.bpf.h), added to the
 * CPU's row and to the cgroup's and the process's slots (slots.bpf.h), or
 * to the overflow rows when a buffer is full. Shared by every program
 * that counts: the switch, the flush and a task's move to a new cgroup.
 */
#ifndef EMON_ACCOUNT_BPF_H
#define EMON_ACCOUNT_BPF_H

#include "state.bpf.h"
#include "trees.bpf.h"
#include "slots.bpf.h"
#include "switch_events.bpf.h"

static __always_inline void overflow_add(__u32 par, __u32 slot,
					 const struct emon_count *d)
{
	__u32 idx = 2 + par * EMON_OVF_NR + slot;
	struct emon_counts *o = bpf_map_lookup_elem(&cpu_counts, &idx);

	if (o)
		counts_add(o->c, d);
	if (slot == EMON_OVF_CGRP)
		stat_inc(EMON_STAT_CGRP_FULL);
	else if (slot == EMON_OVF_PROC)
		stat_inc(EMON_STAT_PROC_FULL);
	else
		stat_inc(EMON_STAT_THRD_FULL);
}

/* Remember t as the running task from now on (see struct emon_prev). */
static __always_inline void set_running(struct emon_prev *p,
					struct task_struct *t, __u64 clk)
{
	p->pid = t->pid;
	p->tgid = t->tgid;
	/* every CPU's idle task is one process, tgid 0 */
	p->start = p->tgid ? proc_start(t) : 0;
	p->cgid = task_cgid(t);
	p->task = (__u64)t;
	p->clk = clk;
}

/*
 * Add d to the cgroup and the process of a slice: the running task's
 * (task is current, read with direct loads) or, for the part of a slice
 * that belongs to a task that left untraced, that task's as remembered.
 */
static __always_inline void owner_add(struct emon_prev *p, __u32 par, __u32 ep,
				      __u32 cpu, __u64 cgid, __u32 tgid,
				      __u32 start, struct task_struct *task,
				      bool cur, const struct emon_count *d)
{
	void *val;

	/* the thread scope, when asked for (a constant: off, it is gone) */
	if (cfg.max_tids && cfg.steps >= EMON_STEP_ALL) {
		val = thrd_slot_of(p, par, ep, cpu, cur ? task->pid : p->pid, task, cur);
		if (val)
			counts_add(val + sizeof(struct emon_thrd_hdr), d);
		else
			overflow_add(par, EMON_OVF_THRD, d);
	}

	val = cgrp_slot_of(p, par, ep, cpu, cgid, task);
	if (val)
		counts_add(val + sizeof(struct emon_cgrp_hdr), d);
	else
		overflow_add(par, EMON_OVF_CGRP, d);
	if (cfg.steps < EMON_STEP_ALL)
		return;

	val = proc_slot_of(p, par, ep, cpu, tgid, start, task, cur);
	if (!val) {
		__u64 trees = in_trees(tgid, task, cur);

		overflow_add(par, EMON_OVF_PROC, d);
		if (trees)
			tree_overflow_add(par, trees, d);
		return;
	}
	counts_add(val + sizeof(struct emon_proc_hdr), d);
}

/* uapi sched.h: the policies CFS runs */
#define SCHED_NORMAL 0
#define SCHED_BATCH 3
#define SCHED_IDLE 5

/* CFS keeps the task times a split needs; not the idle task's. */
static __always_inline bool fair(struct task_struct *t)
{
	return t->pid && (t->policy == SCHED_NORMAL || t->policy == SCHED_BATCH ||
			  t->policy == SCHED_IDLE);
}

/*
 * At a traced switch of the current task (fair), the part of the slice
 * since p->clk that ran before it was switched in, in 1/65536ths: CFS
 * stamped the switch in se.exec_start (the task clock), and the task's
 * run since it was picked is sum_exec_runtime - prev_sum_exec_runtime.
 */
static __always_inline __u64 untraced_part(struct emon_prev *p,
					   struct task_struct *cur)
{
	__u64 span, ran;

	if (!p->clk || !fair(cur))
		return 0;
	span = cur->se.exec_start - p->clk;
	ran = cur->se.sum_exec_runtime - cur->se.prev_sum_exec_runtime;
	if ((__s64)span <= 0 || ran >= span)
		return 0;
	return ((span - ran) << 16) / span;
}

/* The slice's deltas of event i, read from its counter, into *d: its
 * time not running in unrun when it was multiplexed (include/emon_scale.h). */
static __always_inline void counter_delta(struct emon_prev *p, __u32 i, __u32 cpu,
					  bool switched, struct emon_count *d)
{
	struct bpf_perf_event_value v;

	*d = (struct emon_count){};
	if (cfg.counter_only & (1u << i)) {
		__s64 c = cfg.in_place & (1u << i) ? counter_in_place(i * cfg.nr_cpus + cpu) :
			  bpf_perf_event_read(&events, i * cfg.nr_cpus + cpu);

		/* errors come back as -errno in the value itself */
		if (c < 0 && c >= -4095) {
			p->stale |= 1u << i;
			stat_inc(EMON_STAT_READ_ERR);
			return;
		}
		v.counter = c;
		v.enabled = v.running = 0;
	} else if (bpf_perf_event_read_value(&events, i * cfg.nr_cpus + cpu,
					     &v, sizeof(v))) {
		p->stale |= 1u << i;
		stat_inc(EMON_STAT_READ_ERR);
		return;
	}
	if (p->stale & (1u << i)) {	/* a new event: its baseline */
		p->stale &= ~(1u << i);
		p->c[i] = v;
		return;
	}
	/* the switch being traced is counted just after: it is prev's */
	if (switched && (cfg.switch_events & (1u << i)))
		v.counter++;
	/* u64 arithmetic: a counter that wrapped still gives its delta */
	d->counter = v.counter - p->c[i].counter;
	/* a switch counted ahead that never came (the CPU went offline) */
	if ((cfg.switch_events & (1u << i)) && (__s64)d->counter < 0) {
		d->counter = 0;
		v.counter = p->c[i].counter;
	}
	d->enabled = v.enabled - p->c[i].enabled;
	d->running = v.running - p->c[i].running;
	p->c[i] = v;
	/* multiplexed: the time it did not run, for the key's estimate
	 * (counter_only events have no times: the verifier drops this) */
	if (!cfg.no_scale && !(cfg.counter_only & (1u << i)))
		emon_scale__slice(d);
}

/*
 * Count the CPU's slice since the last count: take every event's delta
 * (from the switch itself or from its counter), add the deltas to the
 * CPU, and to the cgroup and the process of the running task. switched:
 * called from a traced switch of the current task.
 *
 * A switch can go untraced: a kernel may keep tasks out of its
 * tracepoints (a sandbox's own agent, say), and a switch from such a task
 * fires nothing. The next count then finds another task running than the
 * one it last saw switched in: the slice holds that task's time and the
 * current one's. Split by the
 * current task's own run time (CFS) when both are CFS tasks and the count
 * is a switch's, else all counted for the current task.
 */
static __always_inline void account(struct emon_prev *p, struct task_struct *cur,
				    bool flush, bool switched)
{
	struct emon_slice *sl;
	struct emon_count *d;	/* set below up to nr_events, never read past */
	struct emon_counts *cc;
	__u32 cpu = bpf_get_smp_processor_id();
	__u32 tgid, start, par, ep, z = 0;
	__u64 cgid, part = 0, now = 0, dt = 0;

	sl = bpf_map_lookup_elem(&slice_scratch, &z);
	if (!sl)
		return;
	d = sl->d;
	ep = p->ep;
	par = ep & 1;
	if (flush)
		p->ep = epoch;	/* later slices: the next interval */
	if (flush || cfg.from_clock)
		now = bpf_ktime_get_ns();
	if (cfg.from_clock)
		dt = switch_clock(p, now);
	p->gap = 0;
	/* unrolled: with i a constant, the verifier drops every source test
	 * but the event's own (the knobs are constants too) */
	#pragma unroll
	for (__u32 i = 0; i < EMON_MAX_EVENTS; i++) {
		if (i >= cfg.nr_events)
			break;
		if ((cfg.from_clock | cfg.from_switches | cfg.from_migrations) & (1u << i)) {
			d[i].counter = switch_delta(p, i, dt, switched);
			d[i].enabled = d[i].running = d[i].unrun = 0;
			/* a running count, as a counter's would be: a thread's
			 * slot takes its slices from it (selfmon.bpf.h) */
			p->c[i].counter += d[i].counter;
		} else
			counter_delta(p, i, cpu, switched, &d[i]);
	}
	p->migr = 0;
	if (flush) {
		__u64 *ft = bpf_map_lookup_elem(&flush_ns, &z);

		if (ft)
			*ft = now;
	}
	/* The first reading on a CPU is the baseline, not a slice. */
	if (!p->primed) {
		p->primed = 1;
		return;
	}
	if (cfg.steps < EMON_STEP_CPU)
		return;
	stat_inc(EMON_STAT_SWITCHES);

	cc = bpf_map_lookup_elem(&cpu_counts, &par);
	if (cc)
		counts_add(cc->c, d);
	if (cfg.steps < EMON_STEP_CGRP)
		return;

	if (p->pid == cur->pid) {	/* as remembered at its switch-in */
		tgid = p->tgid;
		start = p->start;
	} else {
		tgid = cur->tgid;
		start = tgid ? proc_start(cur) : 0;
	}
	cgid = p->cgid;
	if (cgid && p->pid != cur->pid) {	/* switches went untraced */
		stat_inc(EMON_STAT_UNTRACED);
		if (cfg.clock_event >= 0)
			stat_add(EMON_STAT_UNTRACED_NS,
				 d[cfg.clock_event & (EMON_MAX_EVENTS - 1)].counter);
		if (switched)
			part = untraced_part(p, cur);
		cgid = 0;
	}
	if (part) {
		for (__u32 i = 0; i < EMON_MAX_EVENTS; i++) {
			if (i >= cfg.nr_events)
				break;
			struct emon_count *h = &sl->h[i];

			h->counter = d[i].counter * part >> 16;
			h->enabled = d[i].enabled * part >> 16;
			h->running = d[i].running * part >> 16;
			h->unrun = d[i].unrun * part >> 16;
			d[i].counter -= h->counter;
			d[i].enabled -= h->enabled;
			d[i].running -= h->running;
			d[i].unrun -= h->unrun;
		}
		owner_add(p, par, ep, cpu, p->cgid, p->tgid, p->start,
			  (struct task_struct *)p->task, false, sl->h);
	}
	owner_add(p, par, ep, cpu, cgid ?: bpf_get_current_cgroup_id(), tgid, start,
		  cur, true, d);
}

/*
 * A CPU that was offline through a whole flush round (its epoch two or
 * more behind the current one): its slot cache and its refs name buffers
 * drained since, whose slots other keys have now. It goes on in the epoch
 * being written, and the time since its last count, offline time
 * included, is not counted (switch_clock()). First in every program that
 * counts, before anything takes a slot.
 */
static __always_inline void epoch_catch_up(struct emon_prev *p)
{
	if (epoch - p->ep < 2)
		return;
	p->ep = epoch;
	p->gap = 1;
}

#endif /* EMON_ACCOUNT_BPF_H */
