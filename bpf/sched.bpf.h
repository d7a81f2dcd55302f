/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The scheduler view (--sched): on-CPU time,
 * run-queue wait and its histogram, sleep and blocked time, migrations,
 * wakeups, voluntary and involuntary switches, per CPU, cgroup and
 * process, through the same slots as the counts (emon.h's struct
 * emon_sched follows a slot's counts when cfg.sched_on).
 *
 * What the kernel already keeps per task is taken from it, as deltas of
 * the running task's own figures each time its slice is counted:
 * se.sum_exec_runtime (on-CPU), sched_info.run_delay (run-queue wait),
 * se.nr_migrations, nvcsw and nivcsw. They are exact even across switches
 * that go untraced (see account()), and they are what /proc/PID/schedstat,
 * /proc/PID/sched and /proc/PID/status show. What it does not keep is
 * timed here with bpf_ktime_get_ns(): sleep and blocked time (switch-out
 * in an interruptible or uninterruptible state to the wakeup) and each
 * wait for the histogram (wakeup, fork or preemption to switch-in, as
 * runqlat times it).
 *
 * Each task's state lives in task-local storage (struct sched_task):
 * freed with the task, so exits, tasks that never run again and reused
 * pids leave nothing behind, and a CPU going offline holds none of it.
 * The wakeup hooks see a task from the waker's CPU: they only touch its
 * storage, and what they find waits there (pending) until the task's
 * slice is counted, at its switch-out or at a flush while it runs, on its
 * own CPU like every other count (one writer per key, plain adds).
 *
 * With cfg.sched_on false (the default) every call below is dead code the
 * verifier removes (SCHED_OFF() keeps the compiler from moving any of it
 * above the test), and the wakeup and exit programs are neither loaded
 * nor attached: the switch path is the code it was without it.
 */
#ifndef EMON_SCHED_BPF_H
#define EMON_SCHED_BPF_H

#include "state.bpf.h"
#include "trees.bpf.h"
#include "slots.bpf.h"

/* uapi and sched.h values the tracepoints pass */
#define SCHED_TASK_UNINTERRUPTIBLE 0x2

enum sched_task_state {
	SCHED_UNKNOWN = 0,	/* not seen since we started */
	SCHED_RUNNING,
	SCHED_RUNNABLE,		/* on a run queue, since enq */
	SCHED_ASLEEP,		/* off a run queue, since off */
};

struct sched_task {
	/* the kernel's figures when the task's slice was last counted */
	__u64 exec_ns, delay_ns, migrations, nvcsw, nivcsw;
	__u64 enq;		/* runnable since (wakeup, fork or preemption) */
	__u64 off;		/* asleep since */
	__u32 state;		/* enum sched_task_state */
	__u32 blocked;		/* the sleep since off is uninterruptible */
	__u32 based;		/* the figures above are set */
	/* pending: not yet added to the task's keys */
	__u32 waits;		/* 0 or 1: one switch-in per slice */
	__u32 slot;		/* its histogram slot */
	__u32 wakeups;
	__u64 sleep_ns;
	__u64 blocked_ns;
	__u64 exit_life_ns;	/* the process ended: its lifetime (last thread) */
	__u64 exit_code;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sched_task);
} sched_tasks SEC(".maps");

/* Per CPU, indexed as cpu_counts: [parity] the CPU, then overflow rows. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, EMON_CPU_SLOTS);
	__type(key, __u32);
	__type(value, struct emon_sched);
} sched_cpu SEC(".maps");

static __always_inline struct sched_task *sched_task_get(struct task_struct *t)
{
	return bpf_task_storage_get(&sched_tasks, t, NULL,
				    BPF_LOCAL_STORAGE_GET_F_CREATE);
}

/* runqlat's log2l(): floor(log2(v)), 0 for 0 and 1 */
static __always_inline __u32 sched_log2(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) {
		v >>= 32;
		r = 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	return r + (v >> 1 ? 1 : 0);
}

static __always_inline __u32 sched_slot(__u64 wait_ns)
{
	__u32 s = sched_log2(wait_ns / (cfg.sched_ms ? 1000000 : 1000));

	return s < EMON_SCHED_SLOTS ? s : EMON_SCHED_SLOTS - 1;
}

/* Take t's figures as the base of its next delta. */
static __always_inline void sched_base(struct sched_task *ts, struct task_struct *t)
{
	ts->exec_ns = t->se.sum_exec_runtime;
	ts->delay_ns = t->sched_info.run_delay;
	ts->migrations = t->se.nr_migrations;
	ts->nvcsw = t->nvcsw;
	ts->nivcsw = t->nivcsw;
	ts->based = 1;
}

/* What the current task's slice adds, from its own figures and pending. */
static __always_inline void sched_delta(struct emon_sched *d, struct sched_task *ts,
					struct task_struct *cur)
{
	__u64 exec = cur->se.sum_exec_runtime, delay = cur->sched_info.run_delay;
	__u64 mig = cur->se.nr_migrations, nv = cur->nvcsw, niv = cur->nivcsw;

	__builtin_memset(d, 0, sizeof(*d));
	if (ts->based) {
		d->on_cpu_ns = exec - ts->exec_ns;
		d->runq_wait_ns = delay - ts->delay_ns;
		d->migrations = mig - ts->migrations;
		d->vol_switches = nv - ts->nvcsw;
		d->invol_switches = niv - ts->nivcsw;
	}
	ts->exec_ns = exec;
	ts->delay_ns = delay;
	ts->migrations = mig;
	ts->nvcsw = nv;
	ts->nivcsw = niv;
	ts->based = 1;
	d->sleep_ns = ts->sleep_ns;
	d->blocked_ns = ts->blocked_ns;
	d->wakeups = ts->wakeups;
	d->exit_life_ns = ts->exit_life_ns;
	d->exit_code = ts->exit_code;
	ts->exit_life_ns = ts->exit_code = 0;
	if (ts->waits && ts->slot < EMON_SCHED_SLOTS)
		d->hist[ts->slot] = 1;
	ts->sleep_ns = ts->blocked_ns = 0;
	ts->waits = ts->wakeups = 0;
}

static __always_inline void sched_add(struct emon_sched *dst, const struct emon_sched *d,
				      __u32 slot)
{
	dst->on_cpu_ns += d->on_cpu_ns;
	dst->runq_wait_ns += d->runq_wait_ns;
	dst->sleep_ns += d->sleep_ns;
	dst->blocked_ns += d->blocked_ns;
	dst->migrations += d->migrations;
	dst->wakeups += d->wakeups;
	dst->vol_switches += d->vol_switches;
	dst->invol_switches += d->invol_switches;
	dst->exit_life_ns += d->exit_life_ns;
	dst->exit_code += d->exit_code;
	if (index_below(slot, EMON_SCHED_SLOTS))
		dst->hist[slot]++;
}

/* Scratch space for a slice's struct emon_sched: too big for the stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct emon_sched);
} sched_scratch SEC(".maps");

/* A key's sched part, after its header and counts. */
static __always_inline struct emon_sched *sched_of(void *slot, __u32 hdr)
{
	return slot ? slot + hdr + cfg.nr_events * sizeof(struct emon_count) : NULL;
}

/*
 * Count the current task's slice: its delta to its CPU, cgroup and
 * process, in the buffer its CPU writes (p->ep: called before a flush
 * moves the CPU on).
 */
static __always_inline void sched_count(struct emon_prev *p,
					struct task_struct *cur,
					struct sched_task *ts)
{
	__u32 cpu = bpf_get_smp_processor_id(), ep = p->ep, par = ep & 1;
	__u32 idx, z = 0, slot = ts->waits ? ts->slot : EMON_SCHED_SLOTS;
	struct emon_sched *d, *dst;
	__u64 cgid;

	d = bpf_map_lookup_elem(&sched_scratch, &z);
	if (!d)
		return;
	sched_delta(d, ts, cur);

	dst = bpf_map_lookup_elem(&sched_cpu, &par);
	if (dst)
		sched_add(dst, d, slot);

	/* the cgroup its slice is counted in (account()): the one it had at
	 * its last count, unless switches went untraced since */
	cgid = p->cgid && p->pid == cur->pid ? p->cgid : task_cgid(cur);
	dst = sched_of(cgrp_slot_of(p, par, ep, cpu, cgid, cur), sizeof(struct emon_cgrp_hdr));
	if (!dst) {
		idx = 2 + par * EMON_OVF_NR + EMON_OVF_CGRP;
		dst = bpf_map_lookup_elem(&sched_cpu, &idx);
	}
	if (dst)
		sched_add(dst, d, slot);

	dst = sched_of(proc_slot_of(p, par, ep, cpu, cur->tgid, proc_start(cur), cur, true),
		       sizeof(struct emon_proc_hdr));
	if (!dst) {
		idx = 2 + par * EMON_OVF_NR + EMON_OVF_PROC;
		dst = bpf_map_lookup_elem(&sched_cpu, &idx);
	}
	if (dst)
		sched_add(dst, d, slot);
}

/*
 * Off, nothing of the view may run: the verifier drops what follows the
 * test of cfg.sched_on (a constant), but not what the compiler moved above it
 * (loads of the tracepoint's arguments, seen in on_switch): the barrier
 * keeps every load after the test.
 */
#define SCHED_OFF() ({ bool off_ = !cfg.sched_on; asm volatile("" ::: "memory"); off_; })

/*
 * sched_switch, prev (current) to next, its arguments read from ctx (the
 * tracepoint's: preempt, prev, next, prev_state). prev stays on its run
 * queue when preempted or still TASK_RUNNING (prev_state 0): its wait
 * starts now; else it sleeps, blocked when uninterruptible. The idle task
 * (pid 0) is left out.
 */
static __always_inline void sched_switch(struct emon_prev *p, unsigned long long *ctx)
{
	struct task_struct *prev, *next;
	unsigned int prev_state;
	struct sched_task *ts;
	bool runnable;
	__u64 now;

	if (SCHED_OFF())
		return;
	prev = (struct task_struct *)ctx[1];
	next = (struct task_struct *)ctx[2];
	prev_state = ctx[3];
	runnable = (bool)ctx[0] || !prev_state;
	now = bpf_ktime_get_ns();
	ts = prev->pid ? sched_task_get(prev) : NULL;
	if (ts) {
		sched_count(p, prev, ts);
		ts->state = runnable ? SCHED_RUNNABLE : SCHED_ASLEEP;
		ts->enq = runnable ? now : 0;
		ts->off = runnable ? 0 : now;
		ts->blocked = !!(prev_state & SCHED_TASK_UNINTERRUPTIBLE);
	}
	ts = next->pid ? sched_task_get(next) : NULL;
	if (!ts)
		return;
	if (!ts->based)		/* first seen: count from here */
		sched_base(ts, next);
	if (ts->state == SCHED_RUNNABLE && ts->enq) {
		ts->slot = sched_slot(now - ts->enq);
		ts->waits = 1;
	}
	ts->state = SCHED_RUNNING;
}

/* A flush on this CPU: count the running task's slice so far. */
static __always_inline void sched_flush(struct emon_prev *p)
{
	struct task_struct *cur;
	struct sched_task *ts;

	if (SCHED_OFF())
		return;
	cur = bpf_get_current_task_btf();
	if (!cur->pid)
		return;
	ts = sched_task_get(cur);
	if (!ts)
		return;
	sched_count(p, cur, ts);
	ts->state = SCHED_RUNNING;
}

/*
 * The current task moved itself to another cgroup (see on_attach): what
 * it did so far is its old cgroup's.
 */
static __always_inline void sched_attach(struct emon_prev *p)
{
	struct task_struct *cur;
	struct sched_task *ts;

	if (SCHED_OFF())
		return;
	cur = bpf_get_current_task_btf();
	if (!cur->pid || p->pid != cur->pid)
		return;
	ts = sched_task_get(cur);
	if (ts && ts->based)
		sched_count(p, cur, ts);
}

/*
 * t was woken (new: forked). Its sleep ends and its wait begins. A
 * wakeup of a task still on its run queue (it was about to sleep) ends
 * nothing and is not counted: the kernel does not count it either.
 */
static __always_inline void sched_wake(struct task_struct *t, bool new)
{
	struct sched_task *ts;
	__u64 now;

	if (!t->pid)
		return;
	ts = sched_task_get(t);
	if (!ts || ts->state == SCHED_RUNNING || ts->state == SCHED_RUNNABLE)
		return;
	now = bpf_ktime_get_ns();
	if (ts->state == SCHED_ASLEEP && ts->off) {
		if (ts->blocked)
			ts->blocked_ns += now - ts->off;
		else
			ts->sleep_ns += now - ts->off;
	}
	ts->wakeups += !new;
	/* a new task's figures start at 0 (sched_fork): all of them count */
	ts->based |= new;
	ts->state = SCHED_RUNNABLE;
	ts->enq = now;
	ts->off = 0;
}

/*
 * The last thread of a process exits (group_dead): its lifetime and exit
 * code go to the process's row with the rest of its last slice, counted
 * at its final switch-out (interrupts off: a flush cannot cut in, as it
 * could here).
 */
static __always_inline void sched_exit(struct task_struct *t, bool group_dead)
{
	struct sched_task *ts;
	__u64 life;

	if (!group_dead || !t->pid)
		return;
	ts = sched_task_get(t);
	if (!ts)
		return;
	life = bpf_ktime_get_ns() - t->group_leader->start_time;
	ts->exit_life_ns = life ?: 1;
	ts->exit_code = t->exit_code;
}

#endif /* EMON_SCHED_BPF_H */
