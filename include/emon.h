/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The ABI between bpf/emon.bpf.c and userspace: map keys, value layouts,
 * ring buffer records. Fixed-width types only; no libc, no vmlinux.h, so
 * both sides can include it.
 *
 * Every value is a run of struct emon_count, one per metric, sized at load
 * time to nr_events (bpf_map__set_value_size), never compiled in.
 */
#ifndef EMON_H
#define EMON_H

/* events counted at once: each is a bit of the u32 masks in cfg */
#define EMON_MAX_EVENTS 16
#define EMON_COMM_LEN 16

/*
 * Sums of a key's slices. counter: each slice's delta, raw in the BPF
 * maps; enabled and running: the raw times, so running / enabled is the
 * share perf prints. unrun: the time a multiplexed event was enabled but
 * not running (in BPF, include/emon_scale.h; 0 with --no-scale). As the
 * engine reads a window it scales it (counts__window, engine/counts.h):
 * from then on counter holds estimates and unrun only the windows in
 * which the event never ran. Events read
 * without their times (software events) have 0 in all three.
 */
struct emon_count {
	__u64 counter;
	__u64 enabled;
	__u64 running;
	__u64 unrun;
};

/*
 * Keys carry the CPU so that exactly one CPU ever writes an entry: the BPF
 * programs run with preemption (sched_switch: interrupts) disabled, so plain
 * adds are race-free without per-CPU hash maps, whose memory would grow as
 * entries x possible CPUs on big hosts.
 */
struct emon_cgrp_key {
	__u64 cgid;	/* cgroup v2 id = inode of its directory */
	__u32 cpu;
	__u32 pad;
};

struct emon_proc_key {
	__u32 tgid;	/* 0 is the idle task */
	__u32 cpu;
	/*
	 * The low 32 bits of the process's start time (ns): a pid reused
	 * within one interval is another key, not more of the same process
	 * (the command's tree is told apart from an unrelated process).
	 */
	__u32 start;
};

/*
 * A thread (the thread scope: stat -t, --per-thread), counted only when
 * cfg.max_tids asks for it. start: the low 32 bits of the thread's own
 * start time (ns), so that a tid reused within one interval is another
 * key.
 */
struct emon_thrd_key {
	__u32 tid;	/* 0 is the idle task */
	__u32 cpu;
	__u32 start;
};

/*
 * cgrp_parent's value: a cgroup's parent and directory name, recorded when
 * BPF first sees the cgroup run, so that one removed before userspace
 * looked still has its path. A name that fills name[] was cut short.
 */
#define EMON_CGRP_NAME_LEN 128
struct emon_cgrp_info {
	__u64 parent;			/* 0: the root */
	char name[EMON_CGRP_NAME_LEN];	/* NUL-terminated */
};

/*
 * The counts live in two mmap'able arrays per kind (cgrp_data, proc_data),
 * each one buffer after the other: slot s of buffer b is element
 * b * max + s. A slot is its header (its key first) then nr_events counts.
 * BPF hands out slots in order (used[]), so the buffer's first used[]
 * slots are all there is to read; userspace reads them from memory and
 * zeroes them, with no syscall per key.
 */
struct emon_cgrp_hdr {
	struct emon_cgrp_key key;
};

struct emon_proc_hdr {
	struct emon_proc_key key;
	__u32 flags;			/* EMON_PROC_* */
	char comm[EMON_COMM_LEN];	/* the group leader's, see flags */
	__u64 trees;			/* command trees it is in (bit t: tree t) */
};

struct emon_thrd_hdr {
	struct emon_thrd_key key;
	__u32 tgid;			/* its process */
	char comm[EMON_COMM_LEN];	/* the thread's own, at its first slice */
};

/*
 * Command trees followed at once (a daemon serves many attached stat
 * commands): the tree map's value, keyed by tgid. start is the process's
 * start time (its group leader's start_time, which an exec from another
 * thread keeps), so that a later process given the pid is not taken for
 * it; 0 for the command itself, put there by userspace before it execs,
 * until its exec fills it in. mask says which trees the process is in,
 * inherited at fork (nested commands: several bits).
 */
#define EMON_MAX_TREES 64
struct emon_tree_val {
	__u64 start;
	__u64 mask;
};

/*
 * Key -> slot (cgrp_idx, proc_idx: LRU hashes): the slot a key has in
 * each buffer, valid while ep[b] is the epoch the CPU writes. A key the
 * LRU evicted while in use just gets a second slot: userspace adds up
 * the slots of a key.
 */
struct emon_slot_ref {
	__u32 ep[2];
	__u32 slot[2];
};

/* used[] of the .bss, per kind and buffer: EMON_USED(kind, buffer) */
enum emon_kind {
	EMON_KIND_CGRP = 0,
	EMON_KIND_PROC = 1,
	EMON_KIND_THRD = 2,	/* only with cfg.max_tids */
	EMON_KIND_NR,
};
#define EMON_USED(kind, buf) ((kind) * 2 + (buf))

/* comm is the one the process exec'ed to on this CPU in this interval:
 * it wins over the names its other CPUs' entries saw before the exec. */
#define EMON_PROC_EXEC		(1u << 0)
/* userspace: the process is in the tree a snapshot was asked for */
#define EMON_PROC_IN_TREE	(1u << 1)

/* Indexes of the overflow array: where counts go when a buffer is full. */
enum emon_overflow {
	EMON_OVF_CGRP = 0,
	EMON_OVF_PROC = 1,
	EMON_OVF_THRD = 2,
	EMON_OVF_NR,
};

/* cpu_counts slots: [parity] a CPU's counts, [2 + parity * EMON_OVF_NR +
 * slot] its overflow rows. Each tree's part of the process overflow row is
 * in tree_ovf[parity * EMON_MAX_TREES + tree]. */
#define EMON_CPU_SLOTS (2 + 2 * EMON_OVF_NR)

/*
 * How far the sched_switch program goes (its steps knob): the engine runs
 * it whole; tools/bench-switch-cost times each step of the same object.
 */
enum emon_step {
	EMON_STEP_NONE = 1,	/* nothing: the floor of the statistics */
	EMON_STEP_READ,		/* the slice's deltas, the next task noted */
	EMON_STEP_CPU,		/* + the CPU's row and the stats counter */
	EMON_STEP_CGRP,		/* + the cgroup's row */
	EMON_STEP_ALL,		/* + the process's row: the engine */
};

/*
 * The BPF program's configuration, its one .rodata variable (cfg): set by
 * userspace through the skeleton (skel->rodata->cfg) before load. .rodata
 * is frozen at load, so the verifier knows every field as a constant and
 * drops the code a setting leaves dead: each knob tested on the switch
 * path costs nothing when off. Event sets are masks, bit i = event i.
 * The program's initial values (bpf/state.bpf.h) are the defaults.
 */
struct emon_bpf_config {
	/* when the program was loaded (CLOCK_MONOTONIC ns): a task started
	 * since is known from its first run on, for from_migrations */
	__u64 load_ns;
	__u32 nr_events;
	__u32 nr_cpus;
	/* slots per buffer of cgrp_data and proc_data */
	__u32 max_cgroups;
	__u32 max_procs;
	/* slots per buffer of thrd_data; 0: no thread scope (the switch
	 * path then has none of its code: the verifier drops it) */
	__u32 max_tids;
	/* the index of a time event (cpu-clock), -1: none. Untraced slices
	 * add their time to EMON_STAT_UNTRACED_NS: how much time had its
	 * owner guessed. */
	__s32 clock_event;
	/* how far on_switch goes (enum emon_step): the engine leaves it at
	 * EMON_STEP_ALL; tools/bench-switch-cost times this very object step
	 * by step. The verifier prunes the steps left out. */
	__u32 steps;
	/*
	 * Events read without enabled/running times: software events are
	 * never multiplexed, so their times add nothing but a clock read,
	 * the dearest part of a read in a VM. Their slices carry enabled =
	 * running = 0, which userspace takes as "not scaled".
	 */
	__u32 counter_only;
	/*
	 * context-switches events: the kernel counts a switch after its
	 * tracepoint, for the task going out (perf stat -G does too); a read
	 * at the tracepoint would give it to the task coming in.
	 */
	__u32 switch_events;
	/*
	 * Software events whose count the kernel adds to in place, on this
	 * CPU (all but the clocks, whose count only a read brings up to
	 * date): loaded there, see counter_in_place().
	 */
	__u32 in_place;
	/*
	 * Events counted from the switch itself, with no perf_event and no
	 * read: time events (cpu-clock, task-clock) from switch timestamps,
	 * context-switches from the switches, cpu-migrations from the task's
	 * migrations seen at its switch-in. See switch_delta().
	 */
	__u32 from_clock;
	__u32 from_switches;
	__u32 from_migrations;
	/* thread self-monitoring: slots (serve --threads N), 0: off */
	__u32 self_max;
	/* events counted from timestamps for threads: cpu-clock, task-clock */
	__u32 self_time;
	/* hardware events whose rdpmc index the slots publish, so that a
	 * reader can add the running slice (x86; see selfmon__pmc) */
	__u32 self_pmc;
	/* follow command trees (tree map): mark their processes, fork by fork */
	__u8 follow_tree;
	__u8 sched_on;		/* the scheduler view (--sched) */
	__u8 sched_ms;		/* its histogram in ms, not us (runqlat -m) */
	/* --no-scale: every count taken raw, none estimated (unrun stays 0) */
	__u8 no_scale;
};

/* Slots of the per-CPU stats array (diagnostics, summed by userspace). */
enum emon_stat {
	EMON_STAT_SWITCHES = 0,	/* accounting runs (switches, flushes, self-moves) */
	EMON_STAT_READ_ERR,	/* bpf_perf_event_read_value failures */
	EMON_STAT_CGRP_FULL,	/* slices sent to the cgroup overflow row */
	EMON_STAT_PROC_FULL,	/* slices sent to the process overflow row */
	EMON_STAT_UNTRACED,	/* counts that found switches gone untraced */
	EMON_STAT_UNTRACED_NS,	/* their time (the clock event's delta): owner estimated */
	EMON_STAT_TREE_LOST,	/* children of a command's tree the tree map refused */
	EMON_STAT_SLOT_KEY,	/* slots found for a key that held another key's header */
	EMON_STAT_THRD_FULL,	/* slices sent to the thread overflow row */
	EMON_STAT_NR,
};

/*
 * The scheduler view (--sched): per key, after its nr_events counts in
 * cgrp_data and proc_data, and per CPU in sched_cpu (indexed as
 * cpu_counts). Times in ns. hist[i] counts run-queue waits of i = log2
 * of the wait in us (ms with sched_ms), 0 and 1 in 0, the last slot
 * taking all longer ones: runqlat's buckets, so the two compare.
 */
#define EMON_SCHED_SLOTS 26
struct emon_sched {
	__u64 on_cpu_ns;	/* ran */
	__u64 runq_wait_ns;	/* runnable, not running (wakeup or preemption to switch-in) */
	__u64 sleep_ns;		/* off CPU asleep, interruptible (any state but D) */
	__u64 blocked_ns;	/* off CPU uninterruptible (D) */
	__u64 migrations;	/* moved to another CPU (se.nr_migrations) */
	__u64 wakeups;		/* sched_wakeup of a sleeping task */
	__u64 vol_switches;	/* switched out to sleep (nvcsw) */
	__u64 invol_switches;	/* switched out runnable (nivcsw) */
	__u64 hist[EMON_SCHED_SLOTS];
	/* process rows: a process that ended (its last thread exited) has
	 * its lifetime here, and its exit code as wait() reports it; both 0
	 * for one that lives on (the other rows sum them: meaningless there) */
	__u64 exit_life_ns;
	__u64 exit_code;
};

#endif /* EMON_H */
