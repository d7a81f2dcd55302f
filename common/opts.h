/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Option values and the getopt loop every command shares: a bad value is
 * a one-line error naming the option and the value (the caller exits 2). */
#ifndef COMMON_OPTS_H
#define COMMON_OPTS_H

#include <getopt.h>
#include <stdio.h>

/* A whole number in [min, max] (max LONG_MAX: no bound), or -EINVAL. */
int opts__long(const char *opt, const char *s, long min, long max, long *out);
/* A finite number in [min, max] (max INFINITY: no bound), or -EINVAL. */
int opts__double(const char *opt, const char *s, double min, double max,
		 double *out);

/*
 * Parse the options of 'emon-perf cmd' (getopt_long over spec and lo) into
 * ctx, one at a time through one() (-v, --verbose: verbose here), which returns 0 or an error it has
 * said. 0 (optind: the first operand), 1 once -h printed the usage to
 * stdout, -EINVAL after a one-line error naming an unknown option, one
 * missing its value or a bad value.
 */
int opts__parse(int argc, char **argv, const char *spec, const struct option *lo,
		const char *cmd, void (*usage)(FILE *f),
		int (*one)(void *ctx, int c, const char *arg), void *ctx);

#endif
