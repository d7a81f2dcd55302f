/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the tools in tools/ (burn, forker, cgchurn, pingpong,
 * bench-sleepers, fake-rapl) share: the clocks, a spin of known CPU time,
 * joining a cgroup, the CPU time rusage reports, numbers from options and
 * the ends of option parsing. Header-only: each tool is one file built on
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
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>

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

/* have positional arguments where want are due: 0, else the usage, -EINVAL. */
static inline int tool_nargs(int have, int want, void (*usage)(FILE *f))
{
	if (have == want)
		return 0;
	usage(stderr);
	return -EINVAL;
}

#endif
