/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * check's workload: a fork of emon-perf that plays a pipe ping-pong with
 * a child of its own (context switches) and then burns CPU, in a
 * temporary cgroup, with per-task inherited reference counters opened
 * on it before it starts (perf stat -- cmd's way).
 */
#ifndef CLI_CHECK_WORK_H
#define CLI_CHECK_WORK_H

#include <limits.h>
#include <linux/types.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

#define WORK_ROUNDS 10000	/* ping-pong round trips: ~2 switches each */

enum check_ref {
	REF_TASK_CLOCK,
	REF_SWITCHES,
	REF_CYCLES,
	REF_INSTRUCTIONS,
	REF_NR,
};

struct check_work {
	char cgdir[PATH_MAX];	/* the temporary cgroup's directory, "" none */
	char cgpath[64];	/* the same from the cgroup2 root */
	__u64 cgid;
	pid_t pid;		/* the workload, 0: none */
	int go_fd;		/* the start barrier's write end */
	int done_fd;		/* hangs up once the workload and its child left */
	int ref_fd[REF_NR];	/* -1: not opened */
	int ref_err[REF_NR];	/* -errno of the open */
	__u64 ref[REF_NR];	/* their counts, scaled, at the end */
	struct rusage ru;	/* the workload's and its child's */
	int rounds;		/* ping-pong round trips */
	double t_start, t_end;	/* CLOCK_MONOTONIC s */
};

/*
 * The cgroup under cgroot, the workload forked into it waiting at its
 * barrier, the reference counters open on it (cycles and instructions
 * when hw). 0 or -errno, with a one-line reason in err; call
 * check_work__cleanup() in every case.
 */
int check_work__prepare(struct check_work *w, const char *cgroot,
			double duration_s, bool hw, char *err, size_t errlen);
/* Let the workload go. */
int check_work__start(struct check_work *w);
/* Once done_fd hung up: reap the workload, read the references. */
int check_work__finish(struct check_work *w);
/* Kill and reap what is left, close the counters, remove the cgroup. */
void check_work__cleanup(struct check_work *w);

#endif
