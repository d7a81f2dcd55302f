// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Option values and the getopt loop every command shares. */
#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "common/log.h"
#include "common/opts.h"

int opts__long(const char *opt, const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		if (max == LONG_MAX)
			pr_err("bad value '%s' for %s: a whole number >= %ld", s, opt, min);
		else
			pr_err("bad value '%s' for %s: a whole number from %ld to %ld",
			       s, opt, min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int opts__double(const char *opt, const char *s, double min, double max,
		 double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < min || v > max) {
		if (isinf(max))
			pr_err("bad value '%s' for %s: a number >= %g", s, opt, min);
		else
			pr_err("bad value '%s' for %s: a number from %g to %g", s, opt,
			       min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static bool spec__takes_value(const char *spec, int c)
{
	const char *p = strchr(spec, c);

	return p && p[1] == ':';
}

int opts__parse(int argc, char **argv, const char *spec, const struct option *lo,
		const char *cmd, void (*usage)(FILE *f),
		int (*one)(void *ctx, int c, const char *arg), void *ctx)
{
	int c;

	/* 0, not 1: glibc then also drops the rest of a "-abc" cluster an
	 * earlier parse stopped in, which points into that parse's argv */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, spec, lo, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 1;
		}
		if (c == 'v') {		/* -v, --verbose: every command's */
			verbose++;
			continue;
		}
		if (c != '?' && c != ':') {
			if (one(ctx, c, optarg))
				return -EINVAL;
			continue;
		}
		if (optopt && optopt < 256)
			pr_err("%s option '-%c' (see 'emon-perf %s --help')",
			       c == ':' || spec__takes_value(spec, optopt) ?
			       "missing value for" : "unknown", optopt, cmd);
		else
			pr_err("unknown or incomplete option '%s' (see 'emon-perf %s --help')",
			       argv[optind - 1], cmd);
		return -EINVAL;
	}
	return 0;
}
