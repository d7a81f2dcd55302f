// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fake-rapl: a powercap tree that draws a known power, for tests on
 * machines without RAPL.
 *
 *   fake-rapl DIR WATTS [--packages N] [--max-range UJ] [--period-ms MS]
 *             [--duration-s S] [--start-uj UJ] [--core-watts W]
 *
 * Makes DIR/intel-rapl:N/{name,energy_uj,max_energy_range_uj} (name
 * package-N) with a core sub-zone intel-rapl:N/intel-rapl:N:0, creates
 * DIR/.ready once every zone is in place, then every period sets each
 * package's energy_uj to START + WATTS x elapsed (CLOCK_MONOTONIC, so the
 * total does not drift with late wake-ups), modulo max_energy_range_uj + 1
 * as the kernel's counter wraps. The core zone draws --core-watts
 * (default WATTS / 2). Values are written to a temporary file renamed over
 * energy_uj: a reader opening the file sees the old number or the new one,
 * never a torn one. Stops on SIGINT/SIGTERM or after --duration-s (the
 * last value is then exactly WATTS x S), leaving the tree for the caller
 * to remove. Exit status: 0, 1 on I/O errors, 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "tools/tool.h"

#define DEFAULT_RANGE_UJ 262143328850ULL	/* a real Intel package's */
#define MAX_PACKAGES 64

struct fake_opts {
	const char *dir;
	double watts;
	double core_watts;
	int packages;
	unsigned long long range;
	double period_ms;
	double duration_s;	/* 0: until a signal */
	unsigned long long start_uj;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fake-rapl DIR WATTS [--packages N] [--max-range UJ] [--period-ms MS]\n"
		"                 [--duration-s S] [--start-uj UJ] [--core-watts W]\n");
}

/* Write "value\n" to dir/file through a rename: readers never see half. */
static int write_value(const char *dir, const char *file, const char *value)
{
	char tmp[PATH_MAX], dst[PATH_MAX], buf[64];
	int fd = -1, n, err = 0;

	n = snprintf(buf, sizeof(buf), "%s\n", value);
	if (snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, file) >= (int)sizeof(tmp) ||
	    snprintf(dst, sizeof(dst), "%s/%s", dir, file) >= (int)sizeof(dst) ||
	    n >= (int)sizeof(buf)) {
		err = -ENAMETOOLONG;
		goto out;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	if (write(fd, buf, n) != n)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, dst))
		err = -errno;
out:
	if (err)
		fprintf(stderr, "fake-rapl: %s/%s: %s\n", dir, file, strerror(-err));
	return err;
}

static int write_u64(const char *dir, const char *file, unsigned long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", v);
	return write_value(dir, file, buf);
}

static int zone_dir(char *buf, size_t len, const struct fake_opts *o, int pkg,
		    bool core)
{
	int n;

	if (core)
		n = snprintf(buf, len, "%s/intel-rapl:%d/intel-rapl:%d:0", o->dir,
			     pkg, pkg);
	else
		n = snprintf(buf, len, "%s/intel-rapl:%d", o->dir, pkg);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* The counter after elapsed_ns at watts, as the kernel shows it. */
static unsigned long long counter_uj(const struct fake_opts *o, double watts,
				     long long elapsed_ns)
{
	/* W x ns / 1000 = uJ; long double keeps it exact for days */
	long double uj = (long double)watts * elapsed_ns / 1000.0L;
	unsigned long long total = o->start_uj + (unsigned long long)floorl(uj);

	return o->range == ULLONG_MAX ? total : total % (o->range + 1);
}

static int update(const struct fake_opts *o, long long elapsed_ns)
{
	char dir[PATH_MAX];
	int p, err = 0;

	for (p = 0; p < o->packages && !err; p++) {
		err = zone_dir(dir, sizeof(dir), o, p, false);
		if (!err)
			err = write_u64(dir, "energy_uj",
					counter_uj(o, o->watts, elapsed_ns));
		if (!err)
			err = zone_dir(dir, sizeof(dir), o, p, true);
		if (!err)
			err = write_u64(dir, "energy_uj",
					counter_uj(o, o->core_watts, elapsed_ns));
	}
	return err;
}

static int make_zone(const struct fake_opts *o, int pkg, bool core)
{
	char dir[PATH_MAX], name[32];
	int err;

	err = zone_dir(dir, sizeof(dir), o, pkg, core);
	if (err)
		goto out;
	if (mkdir(dir, 0755) && errno != EEXIST) {
		err = -errno;
		fprintf(stderr, "fake-rapl: mkdir %s: %s\n", dir, strerror(errno));
		goto out;
	}
	snprintf(name, sizeof(name), core ? "core" : "package-%d", pkg);
	err = write_value(dir, "name", name);
	if (!err)
		err = write_u64(dir, "max_energy_range_uj", o->range);
out:
	return err;
}

static int setup(const struct fake_opts *o)
{
	char path[PATH_MAX];
	FILE *f;
	int p, err = 0;

	if (mkdir(o->dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "fake-rapl: mkdir %s: %s\n", o->dir, strerror(errno));
		return -errno;
	}
	snprintf(path, sizeof(path), "%s/.ready", o->dir);
	unlink(path);
	for (p = 0; p < o->packages && !err; p++) {
		err = make_zone(o, p, false);
		if (!err)
			err = make_zone(o, p, true);
	}
	if (!err)
		err = update(o, 0);
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/.ready", o->dir);
	f = fopen(path, "w");
	if (!f || fclose(f)) {
		fprintf(stderr, "fake-rapl: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	return 0;
}

static long long ns_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) * 1000000000LL +
	       (now.tv_nsec - t0->tv_nsec);
}

static void ts_add_ns(struct timespec *t, long long ns)
{
	ns += t->tv_nsec;
	t->tv_sec += ns / 1000000000LL;
	t->tv_nsec = ns % 1000000000LL;
}

static int run(const struct fake_opts *o)
{
	long long period_ns = (long long)(o->period_ms * 1e6);
	long long limit_ns = (long long)(o->duration_s * 1e9);
	struct timespec t0, next;
	long long elapsed = 0;
	int err;

	err = setup(o);
	if (err)
		return err;
	/* energy flows from when the tree is ready, not from before setup */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	next = t0;
	while (!stop) {
		ts_add_ns(&next, period_ns);
		/* EINTR from a signal ends the wait; the loop checks stop */
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		elapsed = ns_since(&t0);
		if (limit_ns && elapsed >= limit_ns) {
			elapsed = limit_ns;
			stop = 1;
		}
		err = update(o, elapsed);
		if (err)
			return err;
		/* after a long stall, do not try to catch up tick by tick */
		if (ns_since(&next) > period_ns)
			clock_gettime(CLOCK_MONOTONIC, &next);
	}
	return 0;
}

static int parse_double(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno || end == s || *end || !isfinite(*v) || *v < 0 ? -EINVAL : 0;
}

static int parse_ull(const char *s, unsigned long long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

static int parse_args(int argc, char **argv, struct fake_opts *o)
{
	static const struct option longopts[] = {
		{ "packages", required_argument, NULL, 'n' },
		{ "max-range", required_argument, NULL, 'r' },
		{ "period-ms", required_argument, NULL, 'p' },
		{ "duration-s", required_argument, NULL, 'd' },
		{ "start-uj", required_argument, NULL, 's' },
		{ "core-watts", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long u;
	bool core_set = false;
	int c, idx = 0;

	*o = (struct fake_opts){
		.packages = 1,
		.range = DEFAULT_RANGE_UJ,
		.period_ms = 1,
	};
	while ((c = getopt_long(argc, argv, "h", longopts, &idx)) != -1) {
		switch (c) {
		case 'n':
			if (parse_ull(optarg, &u) || u < 1 || u > MAX_PACKAGES)
				goto bad;
			o->packages = (int)u;
			break;
		case 'r':
			if (parse_ull(optarg, &o->range) || !o->range)
				goto bad;
			break;
		case 'p':
			if (parse_double(optarg, &o->period_ms) ||
			    o->period_ms < 0.01 || o->period_ms > 60000)
				goto bad;
			break;
		case 'd':
			if (parse_double(optarg, &o->duration_s))
				goto bad;
			break;
		case 's':
			if (parse_ull(optarg, &o->start_uj))
				goto bad;
			break;
		case 'c':
			if (parse_double(optarg, &o->core_watts))
				goto bad;
			core_set = true;
			break;
		default:
			return tool_opt_other(c, usage);
		}
	}
	if (tool_nargs(argc - optind, 2, usage))
		return -EINVAL;
	o->dir = argv[optind];
	if (parse_double(argv[optind + 1], &o->watts)) {
		fprintf(stderr, "fake-rapl: bad WATTS '%s'\n", argv[optind + 1]);
		return -EINVAL;
	}
	if (!core_set)
		o->core_watts = o->watts / 2;
	if (o->start_uj > o->range) {
		fprintf(stderr, "fake-rapl: --start-uj above --max-range\n");
		return -EINVAL;
	}
	return 0;
bad:
	fprintf(stderr, "fake-rapl: bad value '%s' for --%s\n", optarg,
		longopts[idx].name);
	return -EINVAL;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	struct fake_opts o;

	if (parse_args(argc, argv, &o))
		return 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return run(&o) ? 1 : 0;
}
