/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The BPF side of a run: open -> size maps -> load -> install event fds ->
 * attach; then, once per interval, flip the buffers, flush every CPU, read
 * the quiescent buffer and give CPUs that came (back) online new events.
 */
#ifndef ENGINE_SESSION_SESSION_H
#define ENGINE_SESSION_SESSION_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include "engine/counts.h"
#include "pmu/event.h"

struct session_opts {
	struct pmu_event *events[EMON_MAX_EVENTS];	/* opened, supported */
	int nr_events;
	int ncpus;		/* possible CPUs */
	/* [ncpus] CPUs online at the start; the session sets those that come
	 * online later and get events (their rows are printed from then on) */
	bool *online;
	__u32 max_cgroups;	/* hash entries per buffer, 0: default */
	__u32 max_procs;
	int max_trees;		/* command trees followed at once, 0: none */
	/* how far sched_switch goes (enum emon_step), 0: all of it; only
	 * tools/bench-switch-cost asks for less */
	__u32 steps;
	bool sched;		/* the scheduler view (bpf/sched.bpf.h) */
	bool sched_ms;		/* its histogram in ms */
	bool no_scale;		/* every slice's count raw (cfg.no_scale) */
	__u32 max_threads;	/* self-monitoring slots (serve --threads), 0: off */
	__u32 self_arrays;	/* with max_threads: slot arrays, one uid's each */
	__u32 self_array_slots;	/* slots per array */
	__u32 max_tids;		/* the thread scope's slots per interval, 0: off */
};

/* Thread self-monitoring's maps (bpf/selfmon.bpf.h), the session's. */
struct session_self {
	const int *array_fd;	/* [nr_arrays] the slot arrays, frozen */
	__u32 nr_arrays;
	__u32 array_slots;	/* slots per array */
	int arrays_fd;		/* self_arrays: array i at key i */
	int task_fd;		/* self_task: a thread's struct emon_self_ref */
	int ctl_fd;		/* self_ctl: writes a slot (test-run) */
};

struct sess_cgrp {
	__u64 cgid;
	__u32 cpu;
	struct counts c;
};

struct sess_proc {
	__u32 tgid;
	__u32 cpu;
	__u32 start;		/* tells a reused pid's processes apart */
	char comm[EMON_COMM_LEN];
	__u32 flags;		/* EMON_PROC_* */
	__u64 trees;		/* command trees it is in */
	struct counts c;
};

/* A thread (the thread scope, session_opts.max_tids). */
struct sess_thrd {
	__u32 tid;
	__u32 tgid;
	__u32 cpu;
	__u32 start;		/* tells a reused tid apart */
	char comm[EMON_COMM_LEN];
	struct counts c;
};

/* One interval's counts, per CPU, exactly as BPF accumulated them. */
struct session_read {
	struct counts *cpu;		/* [ncpus] */
	struct counts *ovf_cgrp;	/* [ncpus] cgroup map was full */
	struct counts *ovf_proc;	/* [ncpus] process map was full */
	/* [max_trees * ncpus] each tree's part of it, tree t at t * ncpus */
	struct counts *ovf_tree;
	int ntrees;
	struct sess_cgrp *cgrp;
	size_t nr_cgrp, cap_cgrp;
	struct sess_proc *proc;
	size_t nr_proc, cap_proc;
	struct counts *ovf_thrd;	/* [ncpus] thread map was full */
	struct sess_thrd *thrd;		/* with max_tids only */
	size_t nr_thrd, cap_thrd;
	__u64 stats[EMON_STAT_NR];	/* this interval's */
	double *cpu_dt;		/* [ncpus] s between each CPU's reads, 0: not known */
	double t;		/* when it ended: the mean of the CPUs' flushes, s */
	double spread;		/* between the first and last CPU's flush, s */
};

/* What the session knows of one CPU, for hotplug. */
struct session_cpu {
	bool live;		/* its events count: opened while it was online */
	bool flushed;		/* the last flush ran there: it was online */
	bool was_flushed;	/* and the one before */
	double not_ready_since;	/* a reopen found it not ready (ENODEV), 0: no */
	bool warned;		/* a reopen failed: said once */
	__u64 flush_ns;		/* when its last flush read its counters, 0: not known */
	double dt;		/* s since the flush before, 0: not known */
};

struct emon_bpf;
struct bpf_link;

struct session {
	struct emon_bpf *skel;
	struct bpf_link *link_switch;
	struct bpf_link *link_fork;
	struct bpf_link *link_exec;
	struct bpf_link *link_free;
	struct bpf_link *link_attach;
	struct bpf_link *link_sched[3];	/* wakeup, wakeup_new, exit (--sched) */
	bool sched;
	bool sched_exit;	/* exit rows: the exit tracepoint says group_dead */
	int ncpus;
	int nr_events;
	struct pmu_event *events[EMON_MAX_EVENTS];	/* reopened on hotplug */
	__u32 counter_only;	/* events read without their times (bit i) */
	bool *online;		/* session_opts.online */
	struct session_cpu *cpu;	/* [ncpus] */
	__u32 epoch;
	int flush_fd;
	double flush_t, flush_spread;	/* of the last flush, CLOCK_MONOTONIC */
	__u64 stats_prev[EMON_STAT_NR];
	void *pcpu_buf;			/* per-CPU lookup buffer */
	struct session_array {
		void *mem;	/* mmap of the BPF array: both buffers */
		size_t len;
		__u32 stride;	/* bytes per slot */
		__u32 max;	/* slots per buffer */
	} data[EMON_KIND_NR];	/* by enum emon_kind */
	__u32 max_cgroups, max_procs;
	__u32 max_tids;		/* 0: no thread scope */
	int max_trees;
	__u64 trees;		/* trees in use (bit t) */
	int *self_fd;		/* [nr_self] thread slot arrays (self.c) */
	__u32 nr_self, self_slots;
};

/* err gets a one-line message; returns 0 or -errno. */
int session__open(struct session *s, const struct session_opts *o,
		  char *err, size_t errlen);
/* CLOCK_MONOTONIC in seconds: the clock of session_read.t. */
double session__now(void);
/* Start counting: the counts so far are discarded. */
int session__start(struct session *s);
/* End the current interval and fill r with it. */
int session__interval(struct session *s, struct session_read *r);
/* Follow the process tgid and its descendants as tree (< max_trees): its
 * pid, before it execs. */
int session__tree_add(struct session *s, __u32 tgid, int tree);
/* Tree is free again: no process is in it from now on. */
int session__tree_release(struct session *s, int tree);
/* The parent and name BPF recorded for a cgroup id; ctx = session
 * (a cgroup_info_fn). */
bool session__cgroup_info(void *ctx, __u64 cgid, __u64 *parent, char *name,
			  size_t len);
void session__close(struct session *s);
/* Self-monitoring's slot arrays, task storage and slot writer (a raw_tp
 * program to test-run); -ENOENT: off. */
int session__self_maps(const struct session *s, struct session_self *out);

int session_read__init(struct session_read *r, int ncpus);
void session_read__exit(struct session_read *r);

/* libbpf's messages go through here, printed only with -v. */
void session__setup_libbpf(void);

#endif
