// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf's counting engine: one perf_event per CPU per metric, shared by
 * every dimension, read on each context switch.
 *
 * sched_switch runs in the outgoing task's context (current == prev until
 * context_switch()), so for every metric it reads this CPU's event with
 * bpf_perf_event_read_value(), takes the delta from this CPU's previous
 * reading and adds it to three places: the CPU, the outgoing task's cgroup
 * (v2 id) and its process (tgid). Cost per switch is O(metrics), whatever
 * the number of cgroups or processes watched: they are rolled up in
 * userspace once per interval. What the switch itself shows needs no
 * perf_event: time (cpu-clock, task-clock) from the switch's timestamps,
 * the switches, the CPU a task comes in on (switch_delta()); software events
 * are loaded where the kernel counts them (counter_in_place()).
 *
 * tp_btf programs cannot be test-run, so the same body is also an unattached
 * raw_tp program ("flush") that userspace runs on every CPU with
 * BPF_PROG_TEST_RUN + BPF_F_TEST_RUN_ON_CPU before each read: the slice of
 * whatever runs there since its last switch is then counted at the interval
 * edge instead of leaking into the next interval.
 *
 * Keys are (id, cpu), so only their own CPU writes a key's counts and
 * plain adds suffice: sched_switch runs with interrupts off, the flush either
 * in an IPI or with preemption off, so the two never interleave on one CPU.
 * Counts live in slots of mmap'able arrays (emon.h); an LRU hash maps a key
 * to its slot, behind a small per-CPU cache of the slots of the keys the
 * CPU saw last (struct slot_cache). A key's first slice in an interval
 * takes the next free slot (one atomic add, the only shared write); when
 * none is left the slice goes to a per-CPU overflow row instead, so
 * nothing is dropped.
 *
 * Every array of counts exists twice (two buffers); each CPU writes the one
 * its epoch's parity names. Userspace ends an interval by bumping epoch and
 * flushing every CPU: the flush counts the CPU's last slice into the old
 * buffer and moves the CPU to the new one. The flush IPI cannot run until
 * any accounting in flight on that CPU (interrupts off) has finished, so
 * once every CPU has been flushed the old buffer is quiescent: userspace
 * reads its used slots from memory and zeroes them. All scopes of an
 * interval thus come from the same slices (cpu, cgroup and process rows
 * add up exactly), and a buffer only ever holds one interval's keys:
 * processes and cgroups that are gone disappear by themselves.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "emon.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by userspace before load; .rodata is frozen, so the verifier knows
 * them: these initial values are the defaults. */
const volatile struct emon_bpf_config cfg = {
	.nr_events = 1,
	.nr_cpus = 1,
	.max_cgroups = 4096,
	.max_procs = 16384,
	.clock_event = -1,
	.steps = EMON_STEP_ALL,
};
/* Written by userspace through the mmap'ed .bss. */
volatile __u32 epoch;

/*
 * A key's slot in the buffer its CPU writes, remembered per CPU in front of
 * cgrp_idx and proc_idx: their lookups (a hash and a bucket walk, a helper
 * call each) were most of a switch's cost after the counter reads, and the
 * tasks a CPU switches between within one interval are few. Direct-mapped;
 * an entry is good while ep is the epoch its CPU writes (slots are handed
 * out anew every interval). slot is the slot + 1: 0 is an empty entry.
 */
#define SLOT_CACHE 64

struct slot_cache {
	__u64 id;	/* cgroup: its v2 id; process: tgid << 32 | start */
	__u32 ep;
	__u32 slot;
};

struct emon_prev {
	__u32 primed;
	__u32 ep;		/* the epoch of its last flush: it writes buffer ep & 1 */
	/* it was offline through a flush round: the time since its last
	 * count is not counted (see epoch_catch_up()) */
	__u32 gap;
	/*
	 * Events whose last read failed (bit i: event i): their next good
	 * reading is a baseline, not a delta. Userspace replacing a CPU's
	 * events (it came back online: the old ones died with it) takes
	 * them out of the map and flushes the CPU first, so the new ones
	 * never count from an old one's reading.
	 */
	__u32 stale;
	/*
	 * The running task as of the last count (its switch-in, or a flush
	 * or move since): pid, process key and cgroup (v2 id) it had then,
	 * its task_struct (for names only, read with probe reads), and the
	 * task clock of that switch (0: not known). cgid 0: not
	 * known yet. Its slice is counted in that cgroup: a task that moves
	 * itself is counted up to the move where it was (see on_attach).
	 */
	__u32 pid;
	__u32 tgid;
	__u32 start;
	__u64 cgid;
	__u64 task;
	__u64 clk;
	/* from_clock: when the last count was taken (CLOCK_MONOTONIC) */
	__u64 ts;
	/* from_migrations: the running task came in migrated (0 or 1) */
	__u32 migr;
	struct emon_count c[EMON_MAX_EVENTS];
	struct slot_cache cgrp_cache[SLOT_CACHE];
	struct slot_cache proc_cache[SLOT_CACHE];
};

struct emon_counts {
	struct emon_count c[EMON_MAX_EVENTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
	/* nr_events * nr_cpus: key = event * nr_cpus + cpu */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct emon_prev);
} prev SEC(".maps");

/* Per epoch parity: [parity] the CPU's own counts, [2 + parity * EMON_OVF_NR
 * + slot] the overflow rows. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, EMON_CPU_SLOTS);
	__type(key, __u32);
	__type(value, struct emon_counts);
} cpu_counts SEC(".maps");

/* When the CPU's last flush read its counters (CLOCK_MONOTONIC ns): each
 * CPU's interval ends there, so userspace times the interval from these. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} flush_ns SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, EMON_STAT_NR);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/*
 * The count arrays (see emon.h): both buffers, one after the other, read by
 * userspace through mmap. Value sizes and entries are set at load time.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct emon_cgrp_hdr) + sizeof(struct emon_counts));
	__uint(max_entries, 2 * 4096);
} cgrp_data SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct emon_proc_hdr) + sizeof(struct emon_counts));
	__uint(max_entries, 2 * 16384);
} proc_data SEC(".maps");

/* Key -> its slots (emon.h). Twice the slots: a key per slot of either
 * buffer, so the LRU only evicts keys that stopped running. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, struct emon_cgrp_key);
	__type(value, struct emon_slot_ref);
	__uint(max_entries, 2 * 4096);
} cgrp_idx SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, struct emon_proc_key);
	__type(value, struct emon_slot_ref);
	__uint(max_entries, 2 * 16384);
} proc_idx SEC(".maps");

/* Slots handed out per kind and buffer (EMON_USED); userspace zeroes a
 * buffer's once it has read them. May pass max: then the buffer is full. */
__u32 used[4];

/* cgroup id -> parent id and name, so cgroups removed before userspace saw
 * their path keep it. LRU: cgroups that keep running stay, long-gone ones
 * make room. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u64);
	__type(value, struct emon_cgrp_info);
	__uint(max_entries, 4096);
} cgrp_parent SEC(".maps");

/* Scratch space for an emon_cgrp_info: too big for the stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct emon_cgrp_info);
} cgrp_scratch SEC(".maps");

/*
 * Command trees: the tgids of each command's process tree (emon.h's
 * struct emon_tree_val: the process's start time, 0 for the command
 * itself until its exec, and the trees it is in). A pid is reused as soon
 * as it is reaped, before the task is freed (on_free), so membership is
 * the pid *and* the start time: an unrelated process given a tree
 * member's pid is not the command's. Not the group leader's task_struct:
 * an exec from a thread other than the leader makes that thread the
 * leader (de_thread()), and the process would leave its tree mid-life.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct emon_tree_val);
	__uint(max_entries, 16384);
} tree SEC(".maps");

/* Each tree's part of the process overflow row: [parity * EMON_MAX_TREES + tree]. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2 * EMON_MAX_TREES);
	__type(key, __u32);
	__type(value, struct emon_counts);
} tree_ovf SEC(".maps");

/* Rare path: the part of a slice split off for a task that left untraced. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct emon_counts);
} split_scratch SEC(".maps");

/* Thread self-monitoring: slots that registered threads read (serve --threads). */
#include "selfmon.bpf.h"

static __always_inline void stat_inc(__u32 slot)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &slot);

	if (v)
		(*v)++;
}

static __always_inline void stat_add(__u32 slot, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &slot);

	if (v)
		*v += n;
}

/*
 * Software events (counter_only) have no enabled and running times: their
 * slices carry 0 there, so only the counter is added (the verifier drops
 * the rest of the loop's body for them: counter_only is a constant).
 */
static __always_inline void counts_add(struct emon_count *dst,
				       const struct emon_count *d)
{
	#pragma unroll
	for (__u32 i = 0; i < EMON_MAX_EVENTS; i++) {
		if (i >= cfg.nr_events)
			break;
		dst[i].counter += d[i].counter;
		if (cfg.counter_only & (1u << i))
			continue;
		dst[i].enabled += d[i].enabled;
		dst[i].running += d[i].running;
	}
}

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
}

#define NO_SLOT 0xffffffffu

/* A new slot in buffer par of kind, or NO_SLOT when it is full. */
static __always_inline __u32 slot_alloc(__u32 kind, __u32 par, __u32 max)
{
	__u32 *u = &used[EMON_USED(kind, par) & 3], s;

	if (*u >= max)		/* full: no atomic op for every slice */
		return NO_SLOT;
	s = __sync_fetch_and_add(u, 1);
	return s < max ? s : NO_SLOT;
}

/*
 * The order of stores that a flush IPI may come between (on_exec runs
 * with interrupts on, on this CPU): the compiler must keep it.
 */
#define store_order() asm volatile("" ::: "memory")

/*
 * Remember key's slot in buffer par for epoch ep. The slot before the
 * epoch: a flush between the two finds an old epoch, not an old slot
 * under the new one.
 */
static __always_inline void slot_ref_set(void *idx_map, void *key,
					 struct emon_slot_ref *ref,
					 __u32 par, __u32 ep, __u32 s)
{
	struct emon_slot_ref n = { .ep = { NO_SLOT, NO_SLOT } };

	if (ref) {		/* only this CPU writes its keys' refs */
		ref->slot[par & 1] = s;
		store_order();
		ref->ep[par & 1] = ep;
		return;
	}
	if (par) {	/* constant offsets on the stack */
		n.slot[1] = s;
		n.ep[1] = ep;
	} else {
		n.slot[0] = s;
		n.ep[0] = ep;
	}
	bpf_map_update_elem(idx_map, key, &n, BPF_ANY);
}

static __always_inline void *cgrp_slot(__u32 par, __u32 s)
{
	__u32 k = par * cfg.max_cgroups + s;

	return bpf_map_lookup_elem(&cgrp_data, &k);
}

static __always_inline void *proc_slot(__u32 par, __u32 s)
{
	__u32 k = par * cfg.max_procs + s;

	return bpf_map_lookup_elem(&proc_data, &k);
}

/*
 * A slot found or taken for a key: remember it in the CPU's cache. The
 * entry is emptied first and filled last: a flush between the stores
 * finds no entry, never this id with the last key's slot.
 */
static __always_inline __u32 slot_cached(struct slot_cache *c, __u64 id,
					 __u32 ep, __u32 s)
{
	if (s != NO_SLOT) {
		c->slot = 0;
		store_order();
		c->id = id;
		c->ep = ep;
		store_order();
		c->slot = s + 1;
	}
	return s;
}

/*
 * How many levels up a cgroup's ancestry is recorded: a cgroup removed
 * before userspace saw its path still rolls up through parents that never
 * ran anything themselves (a pod's slice between a container and -G).
 */
#define CGRP_ANCESTORS 8

/* Rare path: the first slice of a cgroup on this CPU in this interval. */
static __always_inline __u32 cgrp_first_seen(__u32 par, __u32 ep,
					     struct emon_cgrp_key *k,
					     struct emon_slot_ref *ref,
					     struct task_struct *task)
{
	struct emon_cgrp_hdr *h;
	__u32 s;
	struct cgroup *cg = BPF_CORE_READ(task, cgroups, dfl_cgrp);
	struct emon_cgrp_info *info;
	__u64 id = k->cgid;
	__u32 z = 0;

	/* record id -> parent up the tree, until an ancestor already is */
	info = bpf_map_lookup_elem(&cgrp_scratch, &z);
	for (int i = 0; info && i < CGRP_ANCESTORS && cg; i++) {
		/* self is a struct cgroup's first member */
		struct cgroup *pcg = (struct cgroup *)BPF_CORE_READ(cg, self.parent);

		if (bpf_map_lookup_elem(&cgrp_parent, &id))
			break;
		info->parent = pcg ? BPF_CORE_READ(pcg, kn, id) : 0;
		if (bpf_probe_read_kernel_str(info->name, sizeof(info->name),
					      BPF_CORE_READ(cg, kn, name)) < 0)
			info->name[0] = '\0';
		bpf_map_update_elem(&cgrp_parent, &id, info, BPF_NOEXIST);
		if (!pcg)
			break;
		cg = pcg;
		id = info->parent;
	}

	s = slot_alloc(EMON_KIND_CGRP, par, cfg.max_cgroups);
	h = s == NO_SLOT ? NULL : cgrp_slot(par, s);
	if (!h)
		return NO_SLOT;
	h->key = *k;
	slot_ref_set(&cgrp_idx, k, ref, par, ep, s);
	return s;
}

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
	return !v->start || v->start == start ? v->mask : 0;
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

/*
 * Rare path: the first slice of a process on this CPU in this interval.
 * Its name is taken here only, not on every switch: a later exec renames
 * the entry from on_exec.
 */
static __always_inline __u32 proc_first_seen(__u32 par, __u32 ep,
					     struct emon_proc_key *k,
					     struct emon_slot_ref *ref,
					     struct task_struct *task, bool cur)
{
	struct emon_proc_hdr *h;
	__u32 s;

	s = slot_alloc(EMON_KIND_PROC, par, cfg.max_procs);
	h = s == NO_SLOT ? NULL : proc_slot(par, s);
	if (!h)
		return NO_SLOT;
	/*
	 * The whole header before the slot is published in proc_idx: on_exec
	 * runs with interrupts on, and a flush IPI that lands between the two
	 * finds the slot through proc_idx and counts the running slice there,
	 * then userspace may drain it before on_exec goes on: a header not yet
	 * written there loses that slice from the process's command tree.
	 */
	h->key = *k;
	if (cur)	/* direct BTF loads: no helper call */
		__builtin_memcpy(h->comm, task->group_leader->comm, EMON_COMM_LEN);
	else
		BPF_CORE_READ_STR_INTO(&h->comm, task, group_leader, comm);
	h->trees = in_trees(k->tgid, task, cur);
	h->flags = 0;	/* a late on_exec's write may have left one */
	slot_ref_set(&proc_idx, k, ref, par, ep, s);
	return s;
}

/*
 * A key's slot in buffer par (the CPU's epoch ep): from the CPU's cache,
 * else from idx_map (cgrp_idx, proc_idx), remembered in the cache then.
 * NO_SLOT when it has none yet; *ref is then its idx_map entry, if any.
 */
static __always_inline __u32 slot_find(struct slot_cache *c, __u64 id,
				       void *idx_map, void *key, __u32 par,
				       __u32 ep, struct emon_slot_ref **ref)
{
	*ref = NULL;
	if (c->id == id && c->ep == ep && c->slot)
		return c->slot - 1;
	*ref = bpf_map_lookup_elem(idx_map, key);
	if (*ref && (*ref)->ep[par & 1] == ep)
		return slot_cached(c, id, ep, (*ref)->slot[par & 1]);
	return NO_SLOT;
}

/*
 * The slot of cgroup cgid on this CPU in buffer par, a new one at its
 * first slice. NO_SLOT: the buffer is full.
 */
static __always_inline __u32 cgrp_get(struct emon_prev *p, __u32 par, __u32 ep,
				      __u32 cpu, __u64 cgid,
				      struct task_struct *task)
{
	struct slot_cache *c = &p->cgrp_cache[cgid & (SLOT_CACHE - 1)];
	struct emon_cgrp_key k = { .cgid = cgid, .cpu = cpu };
	struct emon_slot_ref *ref;
	__u32 s = slot_find(c, cgid, &cgrp_idx, &k, par, ep, &ref);

	if (s != NO_SLOT)
		return s;
	return slot_cached(c, cgid, ep, cgrp_first_seen(par, ep, &k, ref, task));
}

/* The same for the process (tgid, start); task: see in_trees(). */
static __always_inline __u32 proc_get(struct emon_prev *p, __u32 par, __u32 ep,
				      __u32 cpu, __u32 tgid, __u32 start,
				      struct task_struct *task, bool cur)
{
	struct slot_cache *c = &p->proc_cache[tgid & (SLOT_CACHE - 1)];
	struct emon_proc_key k = { .tgid = tgid, .cpu = cpu, .start = start };
	__u64 id = (__u64)tgid << 32 | start;
	struct emon_slot_ref *ref;
	__u32 s = slot_find(c, id, &proc_idx, &k, par, ep, &ref);

	if (s != NO_SLOT)
		return s;
	return slot_cached(c, id, ep, proc_first_seen(par, ep, &k, ref, task, cur));
}

/*
 * The slot found for a key holds that key's header: the cache and the ref
 * are per CPU and only written with the slot they name (in an order that
 * a flush inside on_exec cannot tear), so this never fails where it runs,
 * with interrupts off, in the current epoch. If it ever does, the slice
 * goes to a new slot of the key's own (the other key's counts stay
 * whole), and the count says so. A CPU going offline can still switch
 * after a flush round found it offline and userspace drained its buffer:
 * its slices there go to new slots of their own too, which the buffer's
 * next read takes, and that is not counted. Not in on_exec: a flush there
 * may leave it a drained buffer.
 */
static __always_inline void slot_key_wrong(__u32 ep)
{
	if (ep == epoch)
		stat_inc(EMON_STAT_SLOT_KEY);
}

static __always_inline struct emon_cgrp_hdr *
cgrp_slot_of(struct emon_prev *p, __u32 par, __u32 ep, __u32 cpu, __u64 cgid,
	     struct task_struct *task)
{
	__u32 s = cgrp_get(p, par, ep, cpu, cgid, task);
	struct emon_cgrp_hdr *h = s == NO_SLOT ? NULL : cgrp_slot(par, s);
	struct emon_cgrp_key k;

	if (!h || (h->key.cgid == cgid && h->key.cpu == cpu))
		return h;
	slot_key_wrong(ep);
	k = (struct emon_cgrp_key){ .cgid = cgid, .cpu = cpu };
	s = cgrp_first_seen(par, ep, &k, bpf_map_lookup_elem(&cgrp_idx, &k), task);
	s = slot_cached(&p->cgrp_cache[cgid & (SLOT_CACHE - 1)], cgid, ep, s);
	return s == NO_SLOT ? NULL : cgrp_slot(par, s);
}

static __always_inline struct emon_proc_hdr *
proc_slot_of(struct emon_prev *p, __u32 par, __u32 ep, __u32 cpu, __u32 tgid,
	     __u32 start, struct task_struct *task, bool cur)
{
	__u32 s = proc_get(p, par, ep, cpu, tgid, start, task, cur);
	struct emon_proc_hdr *h = s == NO_SLOT ? NULL : proc_slot(par, s);
	struct emon_proc_key k;

	if (!h || (h->key.tgid == tgid && h->key.start == start && h->key.cpu == cpu))
		return h;
	slot_key_wrong(ep);
	k = (struct emon_proc_key){ .tgid = tgid, .cpu = cpu, .start = start };
	s = proc_first_seen(par, ep, &k, bpf_map_lookup_elem(&proc_idx, &k), task, cur);
	s = slot_cached(&p->proc_cache[tgid & (SLOT_CACHE - 1)],
			(__u64)tgid << 32 | start, ep, s);
	return s == NO_SLOT ? NULL : proc_slot(par, s);
}

/* The task's cgroup v2 id: what bpf_get_current_cgroup_id() gives for it. */
static __always_inline __u64 task_cgid(struct task_struct *t)
{
	return t->cgroups->dfl_cgrp->kn->id;
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

#include "switch_events.bpf.h"

/* The slice's deltas of event i, read from its counter, into *d. */
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
		p->c[i].counter = v.counter;
		p->c[i].enabled = v.enabled;
		p->c[i].running = v.running;
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
	p->c[i].counter = v.counter;
	p->c[i].enabled = v.enabled;
	p->c[i].running = v.running;
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
	/* each event's entry is set below; those past nr_events are never read */
	struct emon_count d[EMON_MAX_EVENTS];
	struct emon_counts *cc, *dh;
	__u32 cpu = bpf_get_smp_processor_id();
	__u32 tgid, start, par, ep, z = 0;
	__u64 cgid, part = 0, now = 0, dt = 0;

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
			d[i].enabled = d[i].running = 0;
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
	dh = part ? bpf_map_lookup_elem(&split_scratch, &z) : NULL;
	if (dh) {
		for (__u32 i = 0; i < EMON_MAX_EVENTS; i++) {
			if (i >= cfg.nr_events)
				break;
			struct emon_count *h = &dh->c[i];

			h->counter = d[i].counter * part >> 16;
			h->enabled = d[i].enabled * part >> 16;
			h->running = d[i].running * part >> 16;
			d[i].counter -= h->counter;
			d[i].enabled -= h->enabled;
			d[i].running -= h->running;
		}
		owner_add(p, par, ep, cpu, p->cgid, p->tgid, p->start,
			  (struct task_struct *)p->task, false, dh->c);
	}
	owner_add(p, par, ep, cpu, cgid ?: bpf_get_current_cgroup_id(), tgid, start,
		  cur, true, d);
}

#include "sched.bpf.h"

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

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev_task,
	     struct task_struct *next)
{
	__u32 z = 0;
	struct emon_prev *p = bpf_map_lookup_elem(&prev, &z);

	if (!p || cfg.steps == EMON_STEP_NONE)
		return 0;
	epoch_catch_up(p);
	/* first: its clock reads stay clear of the counter reads' time */
	sched_switch(p, ctx);
	account(p, prev_task, false, true);
	selfmon__switch(p, prev_task, next);
	/* CFS picked next: its exec_start is now, in the task clock */
	set_running(p, next, fair(next) ? next->se.exec_start : 0);
	if (cfg.from_migrations)
		p->migr = migrated_in(next);
	return 0;
}

SEC("raw_tp")
int flush(void *ctx)
{
	__u32 z = 0;
	struct emon_prev *p = bpf_map_lookup_elem(&prev, &z);

	if (!p)
		return 0;
	epoch_catch_up(p);
	sched_flush(p);		/* into the buffer this flush ends */
	account(p, bpf_get_current_task_btf(), true, false);
	/* a task moved while it ran elsewhere counts in its new cgroup from here */
	set_running(p, bpf_get_current_task_btf(), 0);
	return 0;
}

/*
 * A task moved to another cgroup (cgroup.procs or cgroup.threads). Its
 * slice so far belongs to the cgroup it left: when the running task here
 * is the one that moved (a process writing its own pid, as cgexec and
 * `echo $$ > cgroup.procs` do), count the slice now, then go on in the new
 * cgroup. The writer usually sleeps before the move (the threadgroup
 * rwsem's RCU sync), which ends its slice anyway, but not when another
 * writer is already in that sync, nor on kernels that favour dynamic
 * cgroup changes. The tracepoint fires after the move with a spinlock held
 * and interrupts off, so no switch can come in between. A task moved while
 * it runs on another CPU is counted in its old cgroup until it is switched
 * out or that CPU is flushed (at most one read period).
 */
SEC("tp_btf/cgroup_attach_task")
int BPF_PROG(on_attach, struct cgroup *dst, const char *path,
	     struct task_struct *task, bool threadgroup)
{
	__u32 z = 0;
	struct emon_prev *p = bpf_map_lookup_elem(&prev, &z);

	/* not us (the writer did not move), or a v1 hierarchy */
	if (!p || p->cgid == bpf_get_current_cgroup_id())
		return 0;
	epoch_catch_up(p);
	sched_attach(p);
	account(p, bpf_get_current_task_btf(), false, false);
	set_running(p, bpf_get_current_task_btf(), 0);
	return 0;
}

/* Follow the command trees through forks: a child is in its parent's. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	/* a new process: child is its group leader */
	struct emon_tree_val v = { .start = child->start_time };

	if (ptgid == ctgid)
		return 0;
	v.mask = in_trees(ptgid, parent, true);
	if (!v.mask)
		return 0;
	/*
	 * A hash map update can fail without the map being full: its
	 * bucket lock gives up on a deadlock it detects or a holder that
	 * does not let go in time (rqspinlock, 6.15+). Tried again, then
	 * counted: a child left out of its tree is said, never silent.
	 */
	for (int i = 0; i < 3; i++)
		if (!bpf_map_update_elem(&tree, &ctgid, &v, BPF_ANY))
			return 0;
	stat_inc(EMON_STAT_TREE_LOST);
	return 0;
}

/*
 * A process exec'ed: rename its entry on this CPU (made now if it has none)
 * and mark the name as the newest, so this interval's row carries the name
 * it ends with, not its parent's. Runs in the task's context with migration
 * off but not preemption or interrupts: a sched_switch in between adds to
 * the same entry's counts, never to its header, and a flush in between
 * finds the header whole (proc_first_seen publishes it last).
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid)
{
	struct emon_proc_hdr *h;
	struct emon_prev *pv;
	__u32 z = 0, par, ep, s;

	if (cfg.follow_tree) {	/* the command's own exec: see tree */
		__u32 tgid = p->tgid;
		struct emon_tree_val *v = bpf_map_lookup_elem(&tree, &tgid);

		if (v && !v->start)
			v->start = p->group_leader->start_time;
	}
	pv = bpf_map_lookup_elem(&prev, &z);
	if (!pv)
		return 0;
	ep = pv->ep;
	par = ep & 1;
	if (epoch - ep >= 2)	/* back from offline: the next count catches up */
		return 0;
	s = proc_get(pv, par, ep, bpf_get_smp_processor_id(), p->tgid,
		     proc_start(p), p, true);
	h = s == NO_SLOT ? NULL : proc_slot(par, s);
	/*
	 * A flush came in meanwhile (interrupts are on here): that buffer
	 * may be drained (its headers zeroed) and soon another key's. The
	 * next interval's first slice names the process anew.
	 */
	if (!h || *(volatile __u32 *)&pv->ep != ep || h->key.tgid != p->tgid)
		return 0;
	__builtin_memcpy(h->comm, p->group_leader->comm, EMON_COMM_LEN);
	h->flags |= EMON_PROC_EXEC;
	return 0;
}

/*
 * A process of a tree is gone for good (its task is freed after the whole
 * thread group was reaped), so its pid may now be given to a process that
 * is not the command's. Its entry only: the pid may be another process's
 * already. A command that never exec'd (start 0) keeps its entry until
 * its tree is released: it cannot be told from a process its pid had
 * before it.
 */
SEC("tp_btf/sched_process_free")
int BPF_PROG(on_free, struct task_struct *p)
{
	__u32 tgid = p->tgid;
	struct emon_tree_val *v;

	if (p->pid != tgid)
		return 0;
	v = bpf_map_lookup_elem(&tree, &tgid);
	if (v && v->start && v->start == p->start_time)
		bpf_map_delete_elem(&tree, &tgid);
	return 0;
}
