/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The engine's state, shared by engine.c (set-up, tick) and engine_snap.c
 * (names, retention, trees, snapshots). */
#ifndef ENGINE_ENGINE_INT_H
#define ENGINE_ENGINE_INT_H

#include <limits.h>
#include "engine/aggregate.h"
#include "engine/attribute.h"
#include "engine/cgroup.h"
#include "engine/container_cache.h"
#include "engine/engine.h"
#include "engine/session.h"
#include "pmu/event.h"
#include "rapl/energy.h"

struct engine {
	struct engine_opts o;
	struct snap_meta meta;
	struct pmu_event_list events;
	struct session sess;
	bool sess_open;
	struct session_read rd;
	struct aggregate agg;		/* totals since the start */
	struct agg_entry *gone_cgrp;	/* totals of keys that left */
	struct agg_entry *gone_proc;
	struct cgroup_names names;
	struct cont_cache conts;	/* containers' names */
	char cgroot[PATH_MAX];
	struct cpu_topology topo;
	int ncpus;
	bool *online;
	int *cpu_pkg;
	/* energy */
	struct energy_source *energy;
	bool estimated;
	struct energy_sample es;
	/* the next period's part of a read after a late flush, and its
	 * weight (0: none), see late_energy() */
	struct energy_sample carry;
	double carry_k;
	struct attr_input attr;
	double *busy_ns;		/* [npkg] for the model */
	__u64 energy_reads;
	char energy_note[512];
	int clock_idx;			/* cpu-clock's index, -1 if absent */
	/* reads */
	__u64 seq;
	double last_t, last_read;
	double period, full;
	double snap_t;			/* the last snapshot's read, -1: none */
	double pruned_t;		/* the last retention pass */
	__u64 trees;			/* in use (bit t) */
	__u32 tree_root[EMON_MAX_TREES];	/* each tree's command (tgid) */
	/* a freed tree is free for a new user from this read on (see
	 * engine__tree_free) */
	__u64 tree_clean_seq[EMON_MAX_TREES];
	__u64 ovf_warned[4];	/* cgroup map, process map, tree map, slot keys */
	int clock_short_cpu;
	bool clock_warned;
};

bool engine__have_privileges(void);
/* Name the cgroups of the last read while BPF's record of them is fresh. */
void engine__name_cgroups(struct engine *e);
void engine__free_names(struct engine *e);
/* Let the keys go that engine_opts.retain_s lets go (gone entries). */
int engine__retain(struct engine *e);
/* Mark the commands' own entries of the last read as in their trees. */
void engine__mark_roots(struct engine *e);

#endif
