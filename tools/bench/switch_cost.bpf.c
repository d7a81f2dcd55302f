// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Where the time of emon-perf's sched_switch program goes (no PMU here, so
 * no perf record of BPF code): the steps of account() in bpf/emon.bpf.c,
 * rebuilt cumulatively as separate sched_switch programs, plus single
 * primitives. The rows here are plain hashes, as the engine had before its
 * count arrays (an LRU hash to a slot, then an inlined array lookup): the
 * lookup costs the same, and the real program is measured as such by the
 * bpfcost phase. tools/bench-switch-cost.c attaches one at
 * a time under a ping-pong and reads run_time_ns / run_cnt (bpf_stats).
 *
 *   empty      nothing: the floor of bpf_stats itself (sched_clock twice)
 *   clock      bpf_ktime_get_ns() once
 *   cgid       bpf_get_current_cgroup_id() once
 *   comm       bpf_probe_read_kernel() of the group leader's comm
 *   read       prev lookup + bpf_perf_event_read_value() per event + deltas
 *   cpu        read + per-CPU row + stats counter
 *   cgrp       cpu + cgroup hash row ((cgroup id, cpu) key)
 *   proc_nocomm cgrp + process hash row ((tgid, cpu) key), no comm copy
 *   full       proc_nocomm + comm copy on every switch (the engine now
 *              copies it when a process first runs in an interval)
 *
 * and alternatives the engine could use:
 *   read1      one bpf_perf_event_read_value() (counter, enabled, running)
 *   read1_nv   one bpf_perf_event_read() (counter only: enough for events
 *              that are never multiplexed, such as software events)
 *   read_nv    read with bpf_perf_event_read(): what the engine cannot do
 *              without (its software-event reads), so on_switch minus this
 *              is the engine's own bookkeeping
 *   hash       one lookup of an existing (cgroup id, cpu) hash key
 *   cgrp_store bpf_cgrp_storage_get() on the current cgroup
 *   task_store bpf_task_storage_get() on the current group leader
 *   full_nv    full, reading counters with bpf_perf_event_read()
 *   lean       full_nv without the comm copy and the stats counter
 *
 * Not built by the Makefile (tools/bench.sh compiles it into $OUTPUT/bench).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "emon.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile __u32 nr_events = 1;
const volatile __u32 nr_cpus = 1;

struct prev_t {
	__u32 primed;
	struct emon_count c[EMON_MAX_EVENTS];
};

struct counts_t {
	struct emon_count c[EMON_MAX_EVENTS];
};

struct proc_val {
	struct emon_proc_hdr h;
	struct counts_t v;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct prev_t);
} prev SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct counts_t);
} cpu_counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* As in emon-perf: value sizes set at load to nr_events counts, entries
 * to the engine's defaults (8192 cgroup x CPU, 32768 process x CPU). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, sizeof(struct emon_cgrp_key));
	__uint(value_size, sizeof(struct counts_t));
	__uint(max_entries, 8192);
} cgrp_counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, sizeof(struct emon_proc_key));
	__uint(value_size, sizeof(struct proc_val));
	__uint(max_entries, 32768);
} proc_counts SEC(".maps");

/* Never written: the zeroes a new hash entry starts from. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct proc_val));
} zero SEC(".maps");

/* Local storage: what a cgroup or process row could hang off instead of a
 * hash key (a slot number, for instance). */
struct {
	__uint(type, BPF_MAP_TYPE_CGRP_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} cgrp_store_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} task_store_map SEC(".maps");

__u64 sink;

static __always_inline void add(struct emon_count *dst, const struct emon_count *d)
{
	for (__u32 i = 0; i < EMON_MAX_EVENTS; i++) {
		if (i >= nr_events)
			break;
		dst[i].counter += d[i].counter;
		dst[i].enabled += d[i].enabled;
		dst[i].running += d[i].running;
	}
}

enum level { L_READ = 1, L_CPU, L_CGRP, L_PROC, L_FULL };

/* Read the events into d and prev, with or without enabled/running. */
static __always_inline void read_events(struct prev_t *p, struct emon_count *d,
					__u32 cpu, bool times)
{
	struct bpf_perf_event_value v;

	for (__u32 i = 0; i < EMON_MAX_EVENTS; i++) {
		if (i >= nr_events)
			break;
		if (times) {
			if (bpf_perf_event_read_value(&events, i * nr_cpus + cpu, &v, sizeof(v)))
				continue;
		} else {
			v.counter = bpf_perf_event_read(&events, i * nr_cpus + cpu);
			if ((__s64)v.counter < 0 && (__s64)v.counter > -4096)
				continue;
			v.enabled = v.running = 0;
		}
		d[i].counter = v.counter - p->c[i].counter;
		d[i].enabled = v.enabled - p->c[i].enabled;
		d[i].running = v.running - p->c[i].running;
		p->c[i].counter = v.counter;
		p->c[i].enabled = v.enabled;
		p->c[i].running = v.running;
	}
}

static __always_inline void body(enum level lvl, bool times, bool extras)
{
	struct emon_count d[EMON_MAX_EVENTS] = {};
	struct emon_cgrp_key ck = {};
	struct emon_proc_key pk = {};
	struct task_struct *task;
	__u32 cpu = bpf_get_smp_processor_id(), z = 0;
	struct counts_t *cc;
	struct proc_val *pv;
	struct prev_t *p;
	__u64 *st;

	p = bpf_map_lookup_elem(&prev, &z);
	if (!p)
		return;
	read_events(p, d, cpu, times);
	if (lvl < L_CPU)
		return;
	if (extras) {
		st = bpf_map_lookup_elem(&stats, &z);
		if (st)
			(*st)++;
	}
	cc = bpf_map_lookup_elem(&cpu_counts, &z);
	if (cc)
		add(cc->c, d);
	if (lvl < L_CGRP)
		return;
	ck.cgid = bpf_get_current_cgroup_id();
	ck.cpu = cpu;
	cc = bpf_map_lookup_elem(&cgrp_counts, &ck);
	if (!cc) {
		void *init = bpf_map_lookup_elem(&zero, &z);

		if (!init)
			return;
		bpf_map_update_elem(&cgrp_counts, &ck, init, BPF_NOEXIST);
		cc = bpf_map_lookup_elem(&cgrp_counts, &ck);
	}
	if (cc)
		add(cc->c, d);
	if (lvl < L_PROC)
		return;
	pk.tgid = bpf_get_current_pid_tgid() >> 32;
	pk.cpu = cpu;
	pv = bpf_map_lookup_elem(&proc_counts, &pk);
	if (!pv) {
		void *init = bpf_map_lookup_elem(&zero, &z);

		if (!init)
			return;
		bpf_map_update_elem(&proc_counts, &pk, init, BPF_NOEXIST);
		pv = bpf_map_lookup_elem(&proc_counts, &pk);
	}
	if (!pv)
		return;
	if (lvl >= L_FULL && extras) {
		task = bpf_get_current_task_btf();
		bpf_probe_read_kernel(pv, EMON_COMM_LEN, task->group_leader->comm);
	}
	add((struct emon_count *)((char *)pv + sizeof(struct emon_proc_hdr)), d);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(empty)
{
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(clock)
{
	sink += bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(cgid)
{
	sink += bpf_get_current_cgroup_id();
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(comm)
{
	struct task_struct *task = bpf_get_current_task_btf();
	char c[EMON_COMM_LEN];

	bpf_probe_read_kernel(c, sizeof(c), task->group_leader->comm);
	sink += c[0];
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(read)
{
	body(L_READ, true, true);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(read_nv)
{
	body(L_READ, false, true);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(cpu)
{
	body(L_CPU, true, true);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(cgrp)
{
	body(L_CGRP, true, true);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(proc_nocomm)
{
	body(L_PROC, true, true);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(full)
{
	body(L_FULL, true, true);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(read1)
{
	struct bpf_perf_event_value v;

	bpf_perf_event_read_value(&events, bpf_get_smp_processor_id(), &v, sizeof(v));
	sink += v.counter;
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(read1_nv)
{
	sink += bpf_perf_event_read(&events, bpf_get_smp_processor_id());
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(hash)
{
	struct emon_cgrp_key ck = { .cgid = 1, .cpu = bpf_get_smp_processor_id() };
	struct counts_t *cc = bpf_map_lookup_elem(&cgrp_counts, &ck);
	__u32 z = 0;

	if (!cc) {
		void *init = bpf_map_lookup_elem(&zero, &z);

		if (init)
			bpf_map_update_elem(&cgrp_counts, &ck, init, BPF_NOEXIST);
		return 0;
	}
	cc->c[0].counter++;
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(cgrp_store)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 *v = bpf_cgrp_storage_get(&cgrp_store_map, task->cgroups->dfl_cgrp, 0,
					BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (v)
		(*v)++;
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(task_store)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 *v = bpf_task_storage_get(&task_store_map, task->group_leader, 0,
					BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (v)
		(*v)++;
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(full_nv)
{
	body(L_FULL, false, true);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(lean)
{
	body(L_FULL, false, false);
	return 0;
}
