/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * perf stat's targets (-p PID, -t TID, -C CPUS) and their modes (-D,
 * --interval-count, --per-thread):
 * parsed, checked against the system and each other, and what the rows
 * keep of them.
 */
#ifndef FRONT_TARGETS_H
#define FRONT_TARGETS_H

#include <stdbool.h>
#include <sys/types.h>
#include "pmu/sysfs.h"

#define STAT_MAX_PIDS 256
#define STAT_MAX_TIDS 256
/* --max-tids' default: thread x CPU keys per interval */
#define STAT_DEFAULT_MAX_TIDS 32768
#define STAT_MAX_RUNS 1000

/* A thread the targets had at the start. */
struct target_thread {
	pid_t tid, pid;
	char comm[16];
};

struct targets {
	pid_t pids[STAT_MAX_PIDS];	/* -p, as given */
	int nr_pids;
	const char *pid_list;		/* -p's argument: the header and row key */
	pid_t tids[STAT_MAX_TIDS];	/* -t, as given */
	int nr_tids;
	const char *tid_list;		/* -t's argument */
	bool per_thread;		/* --per-thread: a row per thread */
	/* with --per-thread and -p or -t: the threads there were at the
	 * start, perf's rows (<not counted> for those that never ran) */
	struct target_thread *start_thr;
	int nr_start_thr;
	bool has_cpus;			/* -C */
	struct pmu_cpus cpus;
	int nr_cpus;
	const char *cpu_list;
	long delay_ms;			/* -D, 0: none */
	long interval_count;		/* --interval-count, 0: no limit */
	long repeat;			/* -r, 0: once */
};

/* -p "1,2": each an existing process. 0, or -EINVAL said. */
int targets__pids(struct targets *t, const char *arg);
/* -t "1,2": each an existing thread. 0, or -EINVAL said. */
int targets__tids(struct targets *t, const char *arg);
/* Is tid one of -t's? */
bool targets__has_tid(const struct targets *t, pid_t tid);
/*
 * The threads of -p's processes, or -t's threads, as /proc has them now
 * (their process and name) into start_thr: perf's --per-thread rows.
 * proc: /proc, or a test's copy. 0 or -ENOMEM.
 */
int targets__start_threads(struct targets *t, const char *proc);
void targets__exit(struct targets *t);
/* -C "0-3,8": perf's list, each CPU online. 0, or -EINVAL said. */
int targets__cpus(struct targets *t, const char *arg,
		  const char *online_path);
/* Is pid one of -p's? */
bool targets__has_pid(const struct targets *t, pid_t pid);
/* Has every -p process, or every -t thread, ended (perf ends with them)? */
bool targets__pids_gone(const struct targets *t);

#endif
