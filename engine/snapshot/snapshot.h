/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one interface between the engine and every front end: cumulative
 * snapshots. A snapshot holds the totals of everything counted since the
 * engine started, as of one flush of every CPU; a front end's interval is
 * the difference of two snapshots (snapshot__diff). Totals never go
 * backwards: a key leaves the snapshot only once its totals were added to
 * the "gone" entry of its kind, so differences stay exact.
 *
 * Snapshots come from a source (front/source.h): the front end's own
 * engine, or the daemon over its socket. Both hand over the same encoded
 * form (include/emon_proto.h, decoded by snapshot__decode), so a front end
 * cannot tell them apart.
 */
#ifndef ENGINE_SNAPSHOT_SNAPSHOT_H
#define ENGINE_SNAPSHOT_SNAPSHOT_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include "engine/counts.h"

#define SNAP_EVENT_NAME_LEN 64
#define SNAP_ZONES 4		/* core, uncore, dram, psys */
#define SNAP_GPU_MAX 16		/* rapl/gpu.h's GPU_MAX */
#define SNAP_GPU_NAME_LEN 64

/* A GPU, cumulative (struct emon_snap_gpu). */
struct snap_gpu {
	char name[SNAP_GPU_NAME_LEN];	/* NVML's ("NVIDIA H200") */
	__u64 uj;			/* measured */
	__u64 idle_uj;			/* no process's: the idle task's */
	__u64 sm_ns;			/* its processes' SM time */
	__u64 reads;			/* reads whose energy was valid */
	bool lost;			/* gone for the rest of the run */
};

/* What a snapshot may hold besides the system, CPUs and packages. */
enum snap_scope {
	SNAP_CGROUPS = 1u << 0,		/* every cgroup's own counts */
	SNAP_PROCS = 1u << 1,		/* every process */
	SNAP_PROCS_TREE = 1u << 2,	/* only the processes of the request's tree */
	SNAP_THREADS = 1u << 3,		/* every thread (the thread scope) */
};

/* Facts of a source that do not change while it runs. */
struct snap_meta {
	__u32 pid;			/* the daemon's; 0 for an own engine */
	int ncpus;			/* possible CPUs */
	int npkg;			/* packages (energy or topology) */
	int nr_events;			/* events the engine counts */
	char ev_name[EMON_MAX_EVENTS][SNAP_EVENT_NAME_LEN];
	bool ev_is_time[EMON_MAX_EVENTS];	/* nanoseconds */
	/* events it was asked for that cannot be counted here (no PMU) */
	int nr_unsup;
	char unsup_name[EMON_MAX_EVENTS][SNAP_EVENT_NAME_LEN];
	int *cpu_pkg;			/* [ncpus] dense package index */
	int *pkg_id;			/* [npkg] physical package id */
	bool energy_on;			/* an energy source is active */
	bool energy_estimated;		/* it is the model */
	char energy_source[16];		/* "powercap", "perf", "model" */
	char split_by[SNAP_EVENT_NAME_LEN];	/* the event that splits energy */
	double start_t;			/* CLOCK_MONOTONIC s: counting began */
	int max_trees;			/* command trees it can follow at once */
	bool sched_on;			/* the scheduler view is counted (--sched) */
	bool sched_ms;			/* its histogram is in ms, not us */
	bool no_scale;			/* multiplexed counts are raw (--no-scale) */
	bool threads_on;		/* it counts threads (--max-tids) */
	bool gpu_on;			/* a GPU source is active (--gpu) */
};

/* A cgroup or a process, cumulative. */
struct snap_entry {
	__u64 id;		/* cgroup: v2 id; process: tgid (0: the idle task) */
	__u64 id2;		/* process: start (tells a reused pid apart) */
	const char *name;	/* cgroup: path from the cgroup2 root; process: comm */
	__u32 flags;		/* process: EMON_PROC_*; IN_TREE: in the request's tree */
	double energy_j;	/* attributed, 0 without an energy source */
	struct counts c;	/* raw sums (unscaled), the snapshot's events */
};

/* A container's names (engine/names/container_meta.h), NULL where unknown. */
struct snap_cont {
	const char *id;		/* 64 hex, as container__parse() gives it */
	const char *name, *image;
	const char *ns, *pod, *container;	/* Kubernetes' */
	const char *runtime;	/* whose files named it (container_info's
				 * runtime may be a guess) */
};

struct snapshot {
	__u64 seq;		/* flushes by the engine so far (grows) */
	double t;		/* CLOCK_MONOTONIC s at the flush's middle */
	int ncpus, npkg;
	int nr_events;		/* events in c[] below, in ev[] order */
	int ev[EMON_MAX_EVENTS];	/* engine event index of c[i] */
	unsigned int scopes;	/* enum snap_scope it was asked for */
	bool sched;		/* counts carry the scheduler view (counts.s) */
	/* the system, CPUs, packages and energy were not the viewer's to
	 * see (a tenant of a daemon, docs/security.md): zeros in cpu[] and
	 * the energy, not counts */
	bool no_sys;
	/* the processes and cgroups are the viewer's own only, no threads
	 * (a daemon's tenant) */
	bool tenant;
	bool *online;		/* [ncpus] CPUs with events (rows shown) */
	struct counts *cpu;	/* [ncpus] */
	double *cpu_energy;	/* [ncpus] attributed to each CPU */
	double *pkg_energy;	/* [npkg] measured */
	double *pkg_zone;	/* [npkg * SNAP_ZONES] measured sub-zones */
	unsigned int *pkg_zone_mask;	/* [npkg] sub-zones ever valid */
	__u64 energy_reads;	/* reads whose energy was valid */
	__u64 stats[EMON_STAT_NR];	/* BPF's diagnostics, summed */
	/* counts whose key found no room in BPF (overflow rows) */
	struct snap_entry ovf_cgrp, ovf_proc;
	/* keys that left the engine's tables (gone long enough, or evicted
	 * for room): their final totals, so differences stay exact */
	struct snap_entry gone_cgrp, gone_proc;
	/* the request's command tree: every process of it and its overflow */
	bool has_tree;
	struct snap_entry tree, tree_ovf;	/* tree_ovf: its part of ovf_proc */
	struct snap_entry *cgrp;
	size_t nr_cgrp;
	struct snap_entry *proc;
	size_t nr_proc;
	/* the thread scope (SNAP_THREADS): id tid, id2 tgid << 32 | start */
	struct snap_entry ovf_thrd, gone_thrd;
	struct snap_entry *thrd;
	size_t nr_thrd;
	struct snap_cont *cont;	/* sorted by id (snap_cont__find) */
	size_t nr_cont;
	/* the GPUs (a GPU source): each key's part is in its counts.gpu */
	bool gpu;
	int nr_gpu;
	struct snap_gpu gpus[SNAP_GPU_MAX];
	void *mem;		/* owned storage (snapshot__free) */
};

/* The meta of a HELLO payload (include/emon_proto.h); meta owns its
 * arrays after (snap_meta__free). 0 or -EBADMSG. */
int snap_meta__decode(struct snap_meta *meta, const void *buf, size_t len);
void snap_meta__free(struct snap_meta *meta);
/* The same, encoded (malloc'ed). */
int snap_meta__encode(const struct snap_meta *meta, void **buf, size_t *len);

/* Decode an encoded snapshot (EMON_MSG_SNAPSHOT payload, len bytes) into
 * s, checked against meta; s owns its storage after. 0 or -EBADMSG. */
int snapshot__decode(struct snapshot *s, const struct snap_meta *meta,
		     const void *buf, size_t len);
void snapshot__free(struct snapshot *s);

/* The names of container id in a sorted table, or NULL. */
const struct snap_cont *snap_cont__find(const struct snap_cont *t, size_t nr,
					const char *id);

struct aggregate;

/*
 * The interval from prev to cur, into a (aggregate__reset first): CPUs,
 * energy, cgroups, processes, overflow, the tree (a->cmd), stats. Entries
 * point at cur's names: a is valid while cur lives. Keys that left
 * between the two count in neither: what they gained before leaving is in
 * the gone entries, whose difference is added to the overflow rows (the
 * rows still add up to the system's). a's container names are cur's.
 * prev NULL: since the start.
 */
int snapshot__diff(const struct snapshot *cur, const struct snapshot *prev,
		   struct aggregate *a);

#endif
