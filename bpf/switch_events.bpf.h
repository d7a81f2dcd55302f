/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What bpf/emon.bpf.c counts from the switch itself, with no perf_event
 * and no read (cpu-clock and task-clock from its timestamps,
 * context-switches from the switches, cpu-migrations from the CPU a task
 * comes in on), and the software events it loads where the kernel counts
 * them (cfg.in_place, cfg.from_*: include/emon.h). account() calls
 * them for every slice.
 */
#ifndef EMON_SWITCH_EVENTS_BPF_H
#define EMON_SWITCH_EVENTS_BPF_H

#include "state.bpf.h"

/*
 * Event i's part of the slice, counted from the switch itself (from_*):
 * dt of the switch timestamps for a time event, the switch being traced
 * for context-switches (the kernel counts it for the task going out, as a
 * read just after it would), the running task's migration for
 * cpu-migrations (the kernel counts it at the task's switch-in, in its
 * context).
 */
static __always_inline __u64 switch_delta(const struct emon_prev *p, __u32 i,
					  __u64 dt, bool switched)
{
	if (cfg.from_clock & (1u << i))
		return dt;
	if (cfg.from_switches & (1u << i))
		return switched;
	return p->migr;
}

/*
 * The time since the last count, for from_clock events: bpf_ktime_get_ns()
 * (CLOCK_MONOTONIC) at the tracepoint, what a read of a cpu-clock
 * perf_event there gave. The kernel's cpu-clock and task-clock count
 * local_clock(), wall time on the CPU (the same TSC, CLOCK_MONOTONIC only
 * slewed by NTP, parts per million), and perf stat -G closes a task's
 * slice at this switch. The switch's own clock, rq->clock, would save a
 * clock read (60-80 ns in this VM) but is stamped before __schedule()
 * dequeues the task going out and picks the next: on short-lived, often
 * sleeping tasks their cgroups came out 1% below perf's task-clock with
 * it, against 0.1% with this one (tests/integration/cgroup_churn.sh).
 * cpu.stat counts the same slices less the steal and IRQ time the
 * scheduler leaves out, as cpu-clock always did. CLOCK_MONOTONIC is also
 * what flush_ns times intervals with: a CPU's time per interval is
 * exactly the time between its flushes.
 *
 * A CPU that missed a whole flush round (epoch moved on twice) was
 * offline: its perf events stopped, and so does its clock: the time up to
 * its first count since (the offline time with it) is not counted
 * (p->gap, set by epoch_catch_up()).
 */
static __always_inline __u64 switch_clock(struct emon_prev *p, __u64 now)
{
	__u64 dt = p->primed && !p->gap ? now - p->ts : 0;

	p->ts = now;
	return dt;
}

extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

/*
 * The count of an in_place event on this CPU (key: its slot in events),
 * or -ENOENT when the slot is empty. What bpf_perf_event_read() returns
 * for a software event is local64_read(&event->count) after a pmu->read
 * that does nothing, behind interrupt masking, checks and an indirect
 * call: 60 ns in this VM for one load. The kernel adds to a per-CPU
 * software event's count on its own CPU only, and sched_switch runs with
 * interrupts off there, so the load alone reads what the helper would.
 * The walk (events' slot, its bpf_event_entry, its perf_event) is made of
 * read-only casts: plain loads the verifier guards as probe reads.
 */
static __always_inline __s64 counter_in_place(__u32 key)
{
	struct bpf_array *arr = bpf_rdonly_cast(&events,
			bpf_core_type_id_kernel(struct bpf_array));
	struct bpf_event_entry *slot, *ee;

	/* the slot's pointer, loaded as the first member of a struct */
	slot = bpf_rdonly_cast((void *)((__u64)arr->ptrs + (__u64)key * sizeof(void *)),
			       bpf_core_type_id_kernel(struct bpf_event_entry));
	ee = bpf_rdonly_cast((void *)slot->event,
			     bpf_core_type_id_kernel(struct bpf_event_entry));
	if (!ee)
		return -2;	/* -ENOENT, as the helper says it */
	return ee->event->count.a.a.counter;
}

/*
 * from_migrations: each task's se.nr_migrations as of its last switch-in,
 * plus one (0: not seen yet).
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} task_migr SEC(".maps");

/*
 * from_migrations: did next come in on another CPU than it last ran on?
 * The kernel counts a migration when the task next switches in, once
 * however many set_task_cpu() moves it had meanwhile (se.nr_migrations
 * counts each); a task first seen here counts its moves only when it
 * started after the load (a new task's placement is one).
 */
static __always_inline __u32 migrated_in(struct task_struct *next)
{
	__u64 n = next->se.nr_migrations, *last;
	__u32 moved;

	if (!next->pid)		/* idle tasks stay on their CPU */
		return 0;
	last = bpf_task_storage_get(&task_migr, next, NULL,
				    BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!last)
		return 0;
	if (*last)
		moved = *last != n + 1;
	else
		moved = n && next->start_time > cfg.load_ns;
	*last = n + 1;
	return moved;
}

#endif /* EMON_SWITCH_EVENTS_BPF_H */
