/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Sums of session reads over one print interval, per CPU, per cgroup id and
 * per process, with the energy attributed to each (engine/attribute.c
 * splits each read's energy by package from the read's own per-CPU keys,
 * so a sum needs no per-package copy). No I/O: unit tests feed it reads
 * directly.
 */
#ifndef ENGINE_AGGREGATE_H
#define ENGINE_AGGREGATE_H

#include <sys/types.h>
#include "engine/counts.h"
#include "common/idmap.h"
#include "engine/session/session.h"

struct snap_cont;

#define AGG_GPU_MAX 16	/* rapl/gpu.h's GPU_MAX */

/* A GPU's interval (snapshot__diff). */
struct agg_gpu {
	const char *name;	/* the snapshot's */
	bool valid;		/* a valid read in the interval: else the
				 * figures are unknown, not 0 */
	bool lost;
	double energy_j;	/* measured */
	double idle_j;		/* no process's (the idle task's) */
	double sm_s;		/* its processes' SM time, s */
	double util;		/* sm_s over the interval (NAN: unknown) */
};

struct agg_entry {
	struct agg_entry *next_free;	/* in aggregate.free_list */
	char comm[EMON_COMM_LEN];	/* processes: see aggregate__add */
	__u32 flags;			/* processes: EMON_PROC_* of any read */
	__u32 comm_flags;		/* the flags of the read comm came from */
	__u64 trees;			/* processes: command trees it is in */
	const char *name;		/* cgroups: path, when the source named it */
	double seen_t;			/* the last read that added to it */
	int comm_read;			/* the read comm came from */
	double energy_j;		/* attributed this interval */
	uid_t owner;			/* engine_opts.owners: see names/names.c */
	bool owned;			/* owner read */
	struct counts total;
};

/* An entry aggregate__add's last read made new (struct aggregate.fresh_*). */
struct agg_fresh {
	__u64 id, id2;			/* its key */
	struct agg_entry *e;
	bool exec;			/* processes: the read saw it exec */
};

struct aggregate {
	int ncpus;
	int npkg;
	int nr_events;
	const int *cpu_pkg;		/* [ncpus] package of each CPU */
	struct counts *cpu;		/* [ncpus] */
	struct idmap cgrps;		/* cgid -> agg_entry */
	struct idmap procs;		/* (tgid, start) -> agg_entry */
	/* the thread scope: (tid, tgid << 32 | start) -> agg_entry */
	struct idmap thrds;
	/* entries of past intervals, reused: a storm of short processes
	 * does not churn the heap, and memory stays at its peak interval's */
	struct agg_entry *free_list;
	struct agg_entry *ovf_cgrp;	/* counts the full cgroup map missed */
	struct agg_entry *ovf_proc;
	struct agg_entry *ovf_thrd;
	/*
	 * Command trees (aggregate__init_trees): each tree's processes, as
	 * each read marked them (a pid reused by an unrelated process within
	 * the interval is told apart), and its part of ovf_proc
	 */
	int ntrees;
	struct agg_entry **tree;	/* [ntrees] */
	struct agg_entry **ovf_tree;	/* [ntrees] */
	__u64 stats[EMON_STAT_NR];
	int reads;
	/* reads carry no scheduler view (it is zero): only events are
	 * added, not the view's 36 words (set by the engine when --sched
	 * is off; a sum is the same either way) */
	bool sched_off;
	/*
	 * What the last aggregate__add left for the names and owners
	 * (engine_names.c), in the read's order, so that they need no
	 * lookup per entry per read. With AGG_FRESH_NAMES: the cgroup
	 * entries with no path yet; with AGG_FRESH_OWNERS: those with no
	 * owner yet, and the process entries with no owner yet or that the
	 * read saw exec (an entry may come once per CPU).
	 */
	unsigned int fresh;
	struct agg_fresh *fresh_cgrp, *fresh_proc;
	size_t nr_fresh_cgrp, cap_fresh_cgrp, nr_fresh_proc, cap_fresh_proc;
	/* from a snapshot whose system, CPUs, packages and energy were not
	 * the viewer's to see (snapshot.no_sys): no rows of them */
	bool no_sys;
	/* energy, when a source is active (engine/attribute.c) */
	bool energy_valid;		/* some package had energy this interval */
	/* a read in this interval had none (a counter reset, an unreadable
	 * sensor): the interval's energy is unknown, not the other reads' */
	bool energy_gap;
	double energy_total;		/* measured, all packages */
	double *cpu_energy;		/* [ncpus] attributed to each CPU */
	double *pkg_energy;		/* [npkg] measured */
	double *pkg_zone;		/* [npkg * AGG_ZONES] measured sub-zones */
	unsigned int *pkg_zone_mask;	/* [npkg] which sub-zones are valid */
	/* containers' names, sorted by id: the snapshot's (snapshot__diff) */
	const struct snap_cont *conts;
	size_t nr_conts;
	/* the GPUs of an interval (snapshot__diff; a key's part is in its
	 * counts.gpu): gpu_valid when some GPU had a valid read in it */
	bool gpu_on;
	bool gpu_valid;
	int nr_gpu;
	struct agg_gpu gpu[AGG_GPU_MAX];
};

#define AGG_FRESH_NAMES		(1U << 0)
#define AGG_FRESH_OWNERS	(1U << 1)

#define AGG_ZONES 4	/* core, uncore, dram, psys: rapl's ENERGY_DOM_NR */

int aggregate__init(struct aggregate *a, int ncpus, int npkg,
		    const int *cpu_pkg, int nr_events);
/* Follow ntrees command trees (each read's processes' trees). */
int aggregate__init_trees(struct aggregate *a, int ntrees);
void aggregate__exit(struct aggregate *a);
int aggregate__add(struct aggregate *a, const struct session_read *r);
/* Forget everything: the next interval starts from zero. */
void aggregate__reset(struct aggregate *a);
/* sum over CPUs */
void aggregate__system(const struct aggregate *a, struct counts *out);
/* The entry of (id, id2), created empty if needed (NULL: out of memory).
 * Processes are (tgid, start): two processes that had one pid are two. */
struct agg_entry *aggregate__entry(struct aggregate *a, struct idmap *m,
				   __u64 id, __u64 id2);

#endif
