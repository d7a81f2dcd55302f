/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The state every part of the counting program shares (see emon.bpf.c
 * for the flow): its configuration (cfg, one frozen .rodata struct, see
 * include/emon.h), the epoch userspace bumps, each CPU's struct emon_prev,
 * the count arrays and their indexes, the command trees, the stats, and
 * the count arithmetic they all use. A map only one part uses is that
 * part's (sched.bpf.h, selfmon.bpf.h, switch_events.bpf.h).
 */
#ifndef EMON_STATE_BPF_H
#define EMON_STATE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "emon.h"
#include "emon_scale.h"

/* Set by userspace before load; .rodata is frozen, so the verifier knows
 * them: these initial values are the defaults. */
const volatile struct emon_bpf_config cfg = {
	.nr_events = 1,
	.nr_cpus = 1,
	.max_cgroups = 4096,
	.max_procs = 16384,
	.max_tids = 0,
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
	/* each event's last reading, raw: where its next slice starts */
	struct bpf_perf_event_value c[EMON_MAX_EVENTS];
	struct slot_cache cgrp_cache[SLOT_CACHE];
	struct slot_cache proc_cache[SLOT_CACHE];
	/* threads (cfg.max_tids): id tid << 32 | start */
	struct slot_cache thrd_cache[SLOT_CACHE];
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
 * + slot] the overflow rows. Values: struct emon_counts, cut at load time
 * to the events counted (no BTF type: that would fix their size). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, EMON_CPU_SLOTS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct emon_counts));
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

/* Threads (cfg.max_tids): sized at load, a single slot each when off. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct emon_thrd_hdr) + sizeof(struct emon_counts));
	__uint(max_entries, 2);
} thrd_data SEC(".maps");

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

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, struct emon_thrd_key);
	__type(value, struct emon_slot_ref);
	__uint(max_entries, 2);
} thrd_idx SEC(".maps");

/* Slots handed out per kind and buffer (EMON_USED); userspace zeroes a
 * buffer's once it has read them. May pass max: then the buffer is full. */
__u32 used[2 * EMON_KIND_NR];

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
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct emon_counts));	/* as cpu_counts' */
} tree_ovf SEC(".maps");

/*
 * A slice's deltas (d), and the part split off for a task that left
 * untraced (h, the rare path): 1 KiB at EMON_MAX_EVENTS, twice the BPF
 * stack. One per CPU is enough: the programs that count never interleave
 * on a CPU (see bpf/emon.bpf.c).
 */
struct emon_slice {
	struct emon_count d[EMON_MAX_EVENTS];
	struct emon_count h[EMON_MAX_EVENTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct emon_slice);
} slice_scratch SEC(".maps");

/*
 * Is i below n? If so, i is then clamped below n by an asm block in the
 * register that indexes (a no-op on the value): the compiler cannot
 * reload an unchecked copy that it spilled before the check. 6.1's
 * verifier keeps no bound on such a reload (6.7 and later carry a
 * register's bound to its spilled copy).
 */
#define index_below(i, n) ({						\
	bool __ok = (i) < (n);						\
	if (__ok) {							\
		__u64 __v = (i);					\
		asm volatile("if %0 < %1 goto +1; %0 = 0"		\
			     : "+r"(__v) : "i"(n));			\
		(i) = __v;						\
	}								\
	__ok;								\
})

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
 * slices carry 0 there and in unrun, so only the counter is added (the
 * verifier drops the rest of the loop's body for them: counter_only is a
 * constant).
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
		dst[i].unrun += d[i].unrun;
	}
}

#endif /* EMON_STATE_BPF_H */
