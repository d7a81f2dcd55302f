/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Sums of session reads over one print interval, per CPU, per cgroup id and
 * per process, each split by package (the energy split needs the metric of
 * every key on every package). No I/O: unit tests feed it reads directly.
 */
#ifndef BPERF_AGGREGATE_H
#define BPERF_AGGREGATE_H

#include "bperf/counts.h"
#include "bperf/idmap.h"
#include "bperf/session.h"

struct agg_entry {
	char comm[EMON_COMM_LEN];	/* processes: last seen */
	struct counts total;
	struct counts pkg[];		/* [npkg] */
};

struct aggregate {
	int ncpus;
	int npkg;
	int nr_events;
	const int *cpu_pkg;		/* [ncpus] package of each CPU */
	struct counts *cpu;		/* [ncpus] */
	struct idmap cgrps;		/* cgid -> agg_entry */
	struct idmap procs;		/* tgid -> agg_entry */
	struct agg_entry *ovf_cgrp;	/* counts the full cgroup map missed */
	struct agg_entry *ovf_proc;
	__u64 stats[EMON_STAT_NR];
	int reads;
};

int aggregate__init(struct aggregate *a, int ncpus, int npkg,
		    const int *cpu_pkg, int nr_events);
void aggregate__exit(struct aggregate *a);
int aggregate__add(struct aggregate *a, const struct session_read *r);
/* Forget everything: the next interval starts from zero. */
void aggregate__reset(struct aggregate *a);
/* sum over CPUs */
void aggregate__system(const struct aggregate *a, struct counts *out);

#endif
