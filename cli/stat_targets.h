/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * perf stat's targets (-p PID, -C CPUS) and their modes (-D, --interval-count):
 * parsed, checked against the system and each other, and what the rows
 * keep of them.
 */
#ifndef CLI_STAT_TARGETS_H
#define CLI_STAT_TARGETS_H

#include <stdbool.h>
#include <sys/types.h>
#include "pmu/sysfs.h"

#define STAT_MAX_PIDS 256
#define STAT_MAX_RUNS 1000

struct stat_targets {
	pid_t pids[STAT_MAX_PIDS];	/* -p, as given */
	int nr_pids;
	const char *pid_list;		/* -p's argument: the header and row key */
	bool has_cpus;			/* -C */
	struct pmu_cpus cpus;
	int nr_cpus;
	const char *cpu_list;
	long delay_ms;			/* -D, 0: none */
	long interval_count;		/* --interval-count, 0: no limit */
	long repeat;			/* -r, 0: once */
};

/* -p "1,2": each an existing process. 0, or -EINVAL said. */
int stat_targets__pids(struct stat_targets *t, const char *arg);
/* -C "0-3,8": perf's list, each CPU online. 0, or -EINVAL said. */
int stat_targets__cpus(struct stat_targets *t, const char *arg,
		       const char *online_path);
/* Is pid one of -p's? */
bool stat_targets__has_pid(const struct stat_targets *t, pid_t pid);
/* Has every -p process ended (perf -p ends with them)? */
bool stat_targets__pids_gone(const struct stat_targets *t);

#endif
