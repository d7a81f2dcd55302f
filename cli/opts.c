// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include "cli/opts.h"
#include "engine/log.h"

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
