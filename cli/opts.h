/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Numeric option values, shared by the commands: a bad one is a one-line
 * error naming the option and the value (the caller exits 2). */
#ifndef CLI_OPTS_H
#define CLI_OPTS_H

/* A whole number in [min, max] (max LONG_MAX: no bound), or -EINVAL. */
int opts__long(const char *opt, const char *s, long min, long max, long *out);
/* A finite number in [min, max] (max INFINITY: no bound), or -EINVAL. */
int opts__double(const char *opt, const char *s, double min, double max,
		 double *out);

#endif
