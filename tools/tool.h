/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the tools in tools/ (burn, forker, cgchurn, pingpong,
 * bench-sleepers, fake-rapl) share: the clocks, a spin of known CPU time,
 * joining a cgroup, the CPU time rusage reports, and option parsing from a
 * table of options (numbers checked, bad values named). Header-only: each tool is one file built on
 * its own.
 */
#ifndef TOOLS_TOOL_H
#define TOOLS_TOOL_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

static inline double tool_mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* This process's CPU time, all its threads. */
static inline double tool_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Spin until this process has used secs of CPU time (a known workload,
 * however long it takes on a busy machine), reading that clock (a system
 * call) every step iterations: fewer for fine amounts, more to stay in
 * user mode.
 */
static inline void tool_spin_cpu_s(double secs, int step)
{
	volatile unsigned long sink = 0;

	while (tool_cpu_s() < secs)
		for (int i = 0; i < step; i++)
			sink += i;
}

/* Move this process into the cgroup directory dir: 0 or -errno. */
static inline int tool_join_cgroup(const char *dir)
{
	char path[4096], buf[32];
	int fd, n, err = 0;

	if (snprintf(path, sizeof(path), "%s/cgroup.procs", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	n = snprintf(buf, sizeof(buf), "%d\n", getpid());
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, n) != n)
		err = -errno;
	close(fd);
	return err;
}

/* User + system CPU time of RUSAGE_SELF or RUSAGE_CHILDREN, seconds. */
static inline double tool_rusage_s(int who)
{
	struct rusage ru;

	if (getrusage(who, &ru))
		return 0;
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* s, all of it, a finite number: *v. */
static inline bool tool_num(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return !errno && end != s && !*end && isfinite(*v);
}

/* s, all of it, a whole number in [min, max]: *v. */
static inline bool tool_long(const char *s, long min, long max, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return !errno && end != s && !*end && *v >= min && *v <= max;
}

/*
 * The option getopt gave that a tool's switch does not handle: -h prints
 * the usage and exits 0, anything else prints it to stderr: -EINVAL.
 */
static inline int tool_opt_other(int c, void (*usage)(FILE *f))
{
	if (c == 'h') {
		usage(stdout);
		exit(0);
	}
	usage(stderr);
	return -EINVAL;
}

/*
 * Reap the n workers a tool forked; a signal that interrupts the wait is
 * passed on to them as SIGTERM (they stop at once). 0 when all of them
 * exited 0, else 1.
 */
static inline int tool_wait_workers(const pid_t *pids, int n)
{
	int status = 0, ret = 0;

	for (int j = 0; j < n; j++) {
		while (waitpid(pids[j], &status, 0) < 0) {
			if (errno != EINTR) {
				status = -1;
				break;
			}
			kill(pids[j], SIGTERM);
		}
		if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			ret = 1;
	}
	return ret;
}

/*
 * One option of a tool, for tool_getopt(): what its value is and where it
 * goes. TOOL_NUM takes a number in [min, max] (TOOL_POS: above min, up
 * to max), TOOL_LONG and TOOL_INT a whole one, TOOL_STR the string
 * itself, TOOL_FLAG no value (sets a bool), TOOL_CHOICE one of choices[]
 * (its index, an int).
 */
enum tool_opt_kind { TOOL_NUM, TOOL_POS, TOOL_LONG, TOOL_INT, TOOL_STR, TOOL_FLAG, TOOL_CHOICE };

struct tool_opt {
	char c;
	enum tool_opt_kind kind;
	void *dst;
	double min, max;
	const char *const *choices;	/* TOOL_CHOICE, NULL-terminated */
};

static inline bool tool_opt__set(const struct tool_opt *o, const char *arg)
{
	double d;
	long l;

	switch (o->kind) {
	case TOOL_NUM:
	case TOOL_POS:
		if (!tool_num(arg, &d) || d < o->min || d > o->max ||
		    (o->kind == TOOL_POS && d <= o->min))
			return false;
		*(double *)o->dst = d;
		return true;
	case TOOL_LONG:
	case TOOL_INT:
		/* LONG_MAX as a double rounds up, out of a long's range */
		if (!tool_long(arg, (long)o->min,
			       o->max >= (double)LONG_MAX ? LONG_MAX : (long)o->max, &l))
			return false;
		if (o->kind == TOOL_LONG)
			*(long *)o->dst = l;
		else
			*(int *)o->dst = (int)l;
		return true;
	case TOOL_STR:
		*(const char **)o->dst = arg;
		return true;
	case TOOL_FLAG:
		*(bool *)o->dst = true;
		return true;
	case TOOL_CHOICE:
		for (int i = 0; o->choices[i]; i++) {
			if (!strcmp(arg, o->choices[i])) {
				*(int *)o->dst = i;
				return true;
			}
		}
		return false;
	}
	return false;
}

/*
 * getopt over a table of n options (plus -h): each value checked and
 * stored, a bad one named on stderr. 0, or -EINVAL (exits 0 on -h).
 */
static inline int tool_getopt(int argc, char **argv, const struct tool_opt *opts,
			      int n, const char *name, void (*usage)(FILE *f))
{
	char spec[64] = "h";
	int c, len = 1;

	for (int i = 0; i < n && len < (int)sizeof(spec) - 2; i++) {
		spec[len++] = opts[i].c;
		if (opts[i].kind != TOOL_FLAG)
			spec[len++] = ':';
	}
	spec[len] = '\0';
	while ((c = getopt(argc, argv, spec)) != -1) {
		const struct tool_opt *o = NULL;

		for (int i = 0; i < n && !o; i++)
			if (opts[i].c == c)
				o = &opts[i];
		if (!o)
			return tool_opt_other(c, usage);
		if (!tool_opt__set(o, optarg)) {
			fprintf(stderr, "%s: bad value '%s' for -%c\n", name, optarg, c);
			return -EINVAL;
		}
	}
	return 0;
}

/* have positional arguments where want are due: 0, else the usage, -EINVAL. */
static inline int tool_nargs(int have, int want, void (*usage)(FILE *f))
{
	if (have == want)
		return 0;
	usage(stderr);
	return -EINVAL;
}

#endif
