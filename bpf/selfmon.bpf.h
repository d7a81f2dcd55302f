/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Thread self-monitoring (include/emon_selfmon.h), called once from the
 * sched_switch program, after account() has read this CPU's counters
 * into the CPU's emon_prev.
 *
 * A registered thread has its slot in task local storage (self_task), put
 * there by the daemon with the thread's pidfd as the key: one pointer walk
 * per switch to tell, no hash lookup, and the kernel drops the entry with
 * the task, so a reused tid never finds a slot. The slot is (array, entry):
 * every uid's threads have slot arrays of their own (the daemon hands each
 * uid only its own arrays' fds, docs/security.md), all in self_arrays,
 * an array of maps: one more inlined array lookup per registered thread's
 * switch than a single array would take.
 * At a registered thread's switch out, the slice goes into its slot (time
 * events as the scheduler ran it, see selfmon__ran(); other events as
 * this CPU's counters moved since its switch in); at its switch in, the
 * slice's start is recorded: the counters, and bpf_ktime_get_ns(), which
 * is CLOCK_MONOTONIC, the clock the reader adds the running slice with.
 * Off (cfg.self_max == 0, no --threads): the verifier drops all of it but
 * the knob's load, and a switch costs what it did.
 *
 * One writer at a time per slot: its thread's switch out completes before
 * the thread can be switched in anywhere, and the thread, its only
 * reader, never runs while its slot is written at a switch (a read that
 * a switch interrupts sees seq move and starts over). self_ctl (the
 * daemon) writes only a free slot, one whose thread has exited, or, at
 * shutdown, the state field alone.
 */
#ifndef EMON_SELFMON_BPF_H
#define EMON_SELFMON_BPF_H

#include "state.bpf.h"
#include "emon_selfmon.h"

/*
 * One uid's slots; the engine makes and freezes them (engine/session/self.c).
 * Sizes, not BTF types: clang leaves a struct two pointers deep (the
 * outer map's values) a forward declaration, which libbpf cannot size.
 */
struct self_slots {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct emon_self_slot));
	__uint(max_entries, 1);		/* slots per array, set at load */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__type(key, __u32);
	__uint(max_entries, 1);		/* arrays, set at load */
	__array(values, struct self_slots);
} self_arrays SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct emon_self_ref);
} self_task SEC(".maps");

/*
 * seq += 1, fully ordered. The JITs emit an atomic add whose result is
 * used (BPF_FETCH) with full barriers (x86 LOCK XADD, arm64 LDADDAL or a
 * loop with DMB); one whose result is unused may be relaxed on arm64
 * (STADD), so the result is handed to an empty asm to keep the fetch. It
 * is a compiler barrier either way.
 */
static __always_inline void selfmon__seq_bump(__u32 *seq)
{
	__u32 old = __sync_fetch_and_add(seq, 1);

	asm volatile("" : : "r"(old) : "memory");
}

static __always_inline struct emon_self_slot *selfmon__slot(struct task_struct *t)
{
	struct emon_self_ref *r = bpf_task_storage_get(&self_task, t, NULL, 0);
	struct emon_self_slot *sl;
	void *arr;

	if (!r)
		return NULL;
	arr = bpf_map_lookup_elem(&self_arrays, &r->array);
	if (!arr)
		return NULL;
	sl = bpf_map_lookup_elem(arr, &r->slot);
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

	selfmon__seq_bump(&sl->seq);
	for (__u32 i = 0; i < EMON_SELF_MAX_EVENTS; i++) {
		__u64 d;

		if (i >= cfg.nr_events)
			break;
		if (cfg.self_time & (1u << i))
			d = ran ?: now - sl->start_ns;
		else
			d = p->c[i].counter - sl->start[i];
		/* an event replaced in mid-slice (hotplug) starts over */
		if ((__s64)d > 0)
			sl->total[i] += d;
	}
	sl->start_ns = 0;
	selfmon__seq_bump(&sl->seq);
}

/*
 * The kernel perf_event behind the events map's entry key: the map is a
 * struct bpf_array whose ptrs[] hold struct bpf_event_entry. The map's
 * own address is taken as a number (the verifier allows no arithmetic on
 * a map pointer), everything else is read with probe reads.
 */
static __always_inline struct perf_event *selfmon__event(__u32 key)
{
	struct bpf_event_entry *ee = NULL;
	void *map = &events;
	struct bpf_array *arr;
	__u64 addr = 0;

	if (bpf_probe_read_kernel(&addr, sizeof(addr), &map))
		return NULL;
	arr = (struct bpf_array *)addr;
	if (key >= BPF_CORE_READ(arr, map.max_entries))
		return NULL;
	if (bpf_core_read(&ee, sizeof(ee), &arr->ptrs[key]) || !ee)
		return NULL;
	return BPF_CORE_READ(ee, event);
}

/* x86 rdpmc numbers: general counters from 0, fixed ones from 1 << 30 */
#define SELF_RDPMC_FIXED (1u << 30)

/*
 * Publish event i's counter for rdpmc, as perf_event_mmap_page would
 * (index = event_base_rdpmc + 1; the raw value the count was last taken
 * at, hw.prev_count, which the read in account() just refreshed), only
 * while the event runs on this CPU and has never been multiplexed
 * (enabled == running): a rotation moves it to another counter with no
 * switch that would warn the reader. UNTESTED: written without a PMU.
 */
static __always_inline void selfmon__pmc(struct emon_self_slot *sl,
					 const struct emon_prev *p, __u32 i, __u32 cpu)
{
	struct perf_event *pe;
	__u64 raw = 0;
	__u32 idx;

	sl->pmc_idx[i] = 0;
	if (!(cfg.self_pmc & (1u << i)) || p->c[i].enabled != p->c[i].running)
		return;
	pe = selfmon__event(i * cfg.nr_cpus + cpu);
	if (!pe || BPF_CORE_READ(pe, state) != PERF_EVENT_STATE_ACTIVE ||
	    BPF_CORE_READ(pe, oncpu) != (int)cpu)
		return;
	idx = BPF_CORE_READ(pe, hw.event_base_rdpmc);
	if ((idx & ~SELF_RDPMC_FIXED) >= 64 ||
	    bpf_core_read(&raw, sizeof(raw), &pe->hw.prev_count))
		return;
	sl->pmc_start[i] = raw;
	sl->pmc_idx[i] = idx + 1;
}

/* The incoming thread's slice starts here. */
static __always_inline void selfmon__in(struct emon_self_slot *sl,
					const struct emon_prev *p, __u64 now)
{
	__u32 cpu = bpf_get_smp_processor_id();

	selfmon__seq_bump(&sl->seq);
	sl->cpu = cpu;
	for (__u32 i = 0; i < EMON_SELF_MAX_EVENTS; i++) {
		if (i >= cfg.nr_events)
			break;
		sl->start[i] = p->c[i].counter;
		if (cfg.self_pmc)
			selfmon__pmc(sl, p, i, cpu);
	}
	sl->start_ns = now;
	selfmon__seq_bump(&sl->seq);
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

	selfmon__seq_bump(&sl->seq);
	for (__u32 i = 0; i < EMON_SELF_MAX_EVENTS; i++) {
		if (i >= cfg.nr_events)
			break;
		if (cfg.self_time & (1u << i))
			sl->total[i] += ran;
		else if (cfg.switch_events & (1u << i))
			sl->total[i]++;
	}
	selfmon__seq_bump(&sl->seq);
}

/* At sched_switch, after account(): p holds this CPU's counters now. */
static __always_inline void selfmon__switch(const struct emon_prev *p,
					    struct task_struct *prev,
					    struct task_struct *next)
{
	struct emon_self_slot *sl;
	__u64 now;

	if (!cfg.self_max)
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
 * The daemon's write to a slot (self_ctl): entry slot of slot array
 * array gets state, and a slot handed out (EMON_SELF_LIVE, to thread tid
 * as generation gen) starts from zero; one taken back or gone keeps its
 * counts. 1: no such slot.
 */
static __always_inline int selfmon__ctl(__u32 array, __u32 slot, __u32 state,
					__u64 gen, __u32 tid)
{
	struct emon_self_slot *sl;
	void *arr = bpf_map_lookup_elem(&self_arrays, &array);

	if (!arr)
		return 1;
	sl = bpf_map_lookup_elem(arr, &slot);
	if (!sl)
		return 1;
	selfmon__seq_bump(&sl->seq);
	if (state == EMON_SELF_LIVE) {
		sl->gen = gen;
		sl->tid = tid;
		sl->start_ns = 0;
		for (__u32 i = 0; i < EMON_SELF_MAX_EVENTS; i++) {
			sl->total[i] = 0;
			sl->start[i] = 0;
			sl->pmc_idx[i] = 0;
			sl->pmc_start[i] = 0;
		}
	}
	sl->state = state;
	selfmon__seq_bump(&sl->seq);
	return 0;
}

#endif /* EMON_SELFMON_BPF_H */
