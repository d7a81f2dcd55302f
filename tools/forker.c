// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * forker: a process storm of known size, for the reliability tests.
 *
 *   forker [-d SECONDS] [-j JOBS] [-r RATE] [-w WORK_US] [-m fork|vfork]
 *          [-c CGROUP_DIR] [-o FILE]
 *
 * JOBS workers (default: online CPUs) each create short-lived processes
 * one after the other for SECONDS (default 5): the child spins WORK_US
 * microseconds of its own CPU time (default 0: it exits at once) and
 * exits, the worker reaps it and starts the next. vfork (the default) is
 * the fastest way to make a new process; fork copies the page tables.
 * With -r the workers together aim at RATE processes per second instead of
 * as many as they can. With -c, forker first moves itself into the cgroup
 * directory (absolute path), so the workers and children are in it too.
 *
 * At the end it prints one line (to FILE with -o, else stdout):
 *   procs=N seconds=T rate=R children_cpu_s=C self_cpu_s=S failed=F
 * N processes were created and reaped in T seconds; C is the CPU time the
 * kernel accounted to all of them and the workers (getrusage of the
 * reaped descendants), S that of forker's main process. Exit status: 0,
 * 1 when a fork failed or a worker died, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "tools/tool.h"

#define MAX_JOBS 256

struct forker_opts {
	double seconds;
	int jobs;
	double rate;		/* 0: as fast as possible */
	long work_us;
	int use_vfork;
	const char *cgroup;
	const char *output;
};

/* One slot per worker in a shared mapping, read by main after the run. */
struct worker_stats {
	long procs;
	long failed;
};

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static void sleep_until(double t)
{
	struct timespec ts = { (time_t)t, (long)((t - (time_t)t) * 1e9) };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* What each child spins (set once before the workers start). */
static long child_work_us;

/*
 * A new process that spins child_work_us and exits. Kept apart so that no
 * local of the worker is live across vfork (the child borrows the stack).
 */
static __attribute__((noinline)) pid_t spawn(int use_vfork)
{
	pid_t p = use_vfork ? vfork() : fork();

	if (p == 0) {
		/* vfork: the worker waits for this; only spin and _exit */
		if (child_work_us)
			tool_spin_cpu_s(child_work_us / 1e6, 100);
		_exit(0);
	}
	return p;
}

/* One worker: create, reap, repeat until the deadline or a signal. */
static void worker(const struct forker_opts *o, struct worker_stats *ws,
		   double t0, double deadline)
{
	double period = o->rate > 0 ? o->jobs / o->rate : 0, next = t0;
	pid_t p;

	signal(SIGTERM, on_stop);
	signal(SIGINT, on_stop);
	while (!stop) {
		double now = tool_mono_s();

		if (now >= deadline)
			break;
		if (period > 0) {
			if (now < next)
				sleep_until(next < deadline ? next : deadline);
			next += period;
			if (tool_mono_s() >= deadline)
				break;
		}
		p = spawn(o->use_vfork);
		if (p < 0) {
			ws->failed++;
			if (errno != EAGAIN)
				break;
			continue;
		}
		while (waitpid(p, NULL, 0) < 0 && errno == EINTR)
			;
		ws->procs++;
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: forker [-d SECONDS] [-j JOBS] [-r RATE] [-w WORK_US] "
		   "[-m fork|vfork] [-c CGROUP_DIR] [-o FILE]\n");
}

static int parse_args(int argc, char **argv, struct forker_opts *o)
{
	static const char *const modes[] = { "fork", "vfork", NULL };
	const struct tool_opt opts[] = {
		{ 'd', TOOL_POS, &o->seconds, 0, HUGE_VAL },
		{ 'j', TOOL_INT, &o->jobs, 1, MAX_JOBS },
		{ 'r', TOOL_NUM, &o->rate, 0, HUGE_VAL },
		{ 'w', TOOL_LONG, &o->work_us, 0, LONG_MAX },
		{ 'm', TOOL_CHOICE, &o->use_vfork, .choices = modes },
		{ 'c', TOOL_STR, &o->cgroup },
		{ 'o', TOOL_STR, &o->output },
	};

	*o = (struct forker_opts){
		.seconds = 5,
		.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN),
		.use_vfork = 1,
	};
	if (tool_getopt(argc, argv, opts, sizeof(opts) / sizeof(opts[0]), "forker", usage) ||
	    tool_nargs(argc - optind, 0, usage))
		return -EINVAL;
	if (o->jobs < 1)
		o->jobs = 1;
	return 0;
}

static int report(const struct forker_opts *o, long procs, long failed,
		  double secs)
{
	FILE *f = stdout;
	int err = 0;

	if (o->output) {
		f = fopen(o->output, "w");
		if (!f) {
			perror(o->output);
			return -errno;
		}
	}
	fprintf(f, "procs=%ld seconds=%.6f rate=%.1f children_cpu_s=%.6f self_cpu_s=%.6f failed=%ld\n",
		procs, secs, secs > 0 ? procs / secs : 0,
		tool_rusage_s(RUSAGE_CHILDREN), tool_rusage_s(RUSAGE_SELF), failed);
	if (fflush(f) || (f != stdout && fclose(f)))
		err = -EIO;
	return err;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_stop };
	pid_t workers[MAX_JOBS];
	struct forker_opts o;
	struct worker_stats *ws;
	long procs = 0, failed = 0;
	double t0, deadline;
	int err, ret = 0;

	if (parse_args(argc, argv, &o))
		return 2;
	if (o.cgroup) {
		err = tool_join_cgroup(o.cgroup);
		if (err) {
			fprintf(stderr, "forker: cannot join %s: %s\n", o.cgroup,
				strerror(-err));
			return 1;
		}
	}
	ws = mmap(NULL, MAX_JOBS * sizeof(*ws), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ws == MAP_FAILED) {
		perror("forker: mmap");
		return 1;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	child_work_us = o.work_us;
	t0 = tool_mono_s();
	deadline = t0 + o.seconds;
	for (int j = 0; j < o.jobs; j++) {
		workers[j] = fork();
		if (workers[j] < 0) {
			perror("forker: fork");
			o.jobs = j;
			ret = 1;
			break;
		}
		if (workers[j] == 0) {
			worker(&o, &ws[j], t0 + (o.rate > 0 ? j / o.rate : 0), deadline);
			_exit(0);
		}
	}
	if (tool_wait_workers(workers, o.jobs))
		ret = 1;
	for (int j = 0; j < o.jobs; j++) {
		procs += ws[j].procs;
		failed += ws[j].failed;
	}
	if (failed)
		ret = 1;
	if (report(&o, procs, failed, tool_mono_s() - t0))
		ret = 1;
	return ret;
}
