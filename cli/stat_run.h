/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One run of emon-perf stat, shared by cli/stat.c (the loop, signals,
 * cleanup) and cli/stat_setup.c (checking and opening what it needs).
 */
#ifndef CLI_STAT_RUN_H
#define CLI_STAT_RUN_H

#include <limits.h>
#include "engine/attribute.h"
#include "cli/command.h"
#include "cli/stat.h"
#include "rapl/energy.h"

struct stat_run {
	struct stat_opts o;
	struct pmu_event_list events;
	struct session sess;
	bool sess_open;
	struct cgroup_names names;
	struct aggregate agg;
	struct session_read rd;
	struct row_set rows;
	struct output out;
	struct stat_ctx sc;
	struct cpu_topology topo;
	struct energy_source *energy;
	struct energy_sample es;
	/* the next interval's part of a read after a late flush, and its
	 * weight (0: none), see late_energy() */
	struct energy_sample carry;
	double carry_k;
	struct attr_input attr;
	int clock_idx;		/* BPF index of cpu-clock, -1 if absent */
	double *busy_ns;	/* [npkg] for the model */
	double last_read;
	char energy_note[512];	/* why auto found no source: said at the end */
	int *cpu_pkg;
	bool *online;
	int ncpus;
	char cgroot[PATH_MAX];
	char target[512];
	struct command cmd;
	int forwarded;		/* signals passed on to the command */
	__u64 ovf_warned[2];
	int clock_short_cpu;	/* the CPU whose cpu-clock fell short last read, -1 */
	bool clock_warned;
};

/* Effective CAP_BPF + CAP_PERFMON, or CAP_SYS_ADMIN, or root. */
bool stat__have_privileges(void);
/*
 * CPUs, cgroups, events, output, energy: checked and opened, in an order
 * that leaves no file truncated by a run that fails on its input; so gets
 * the events BPF counts. 0, or the exit status: 2 bad input, 1 failure.
 */
int stat__setup_inputs(struct stat_run *st, struct session_opts *so);

#endif
