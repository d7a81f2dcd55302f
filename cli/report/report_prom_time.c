// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf report --prometheus: durations and times as people and
 * Prometheus write them (--range, --step, --end). Pure.
 */
#define _GNU_SOURCE	/* strptime, timegm */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli/report/report_prom.h"

#define DURATION_MAX (10 * 365 * 86400.0)

int prom_duration__parse(const char *str, double *s)
{
	/* largest first: Prometheus wants them in this order, each once */
	static const struct { const char *unit; double s; } units[] = {
		{ "y", 365 * 86400.0 }, { "w", 7 * 86400.0 }, { "d", 86400 },
		{ "h", 3600 }, { "ms", 1e-3 }, { "m", 60 }, { "s", 1 },
	};
	static const int rank[] = { 0, 1, 2, 3, 6, 4, 5 };
	int last = -1;
	double total = 0;
	const char *p = str;
	char *end;

	if (!str || !*str)
		return -EINVAL;
	total = strtod(str, &end);
	if (end != str && !*end && str[strspn(str, "0123456789.")] == '\0')
		goto check;	/* plain seconds */
	total = 0;
	while (*p) {
		double v = 0;
		size_t u;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		for (; *p >= '0' && *p <= '9'; p++) {
			v = v * 10 + (*p - '0');
			if (v > DURATION_MAX * 1000)
				return -EINVAL;
		}
		for (u = 0; u < sizeof(units) / sizeof(*units); u++)
			if (!strncmp(p, units[u].unit, strlen(units[u].unit)))
				break;
		if (u == sizeof(units) / sizeof(*units) || rank[u] <= last)
			return -EINVAL;
		last = rank[u];
		total += v * units[u].s;
		p += strlen(units[u].unit);
	}
check:
	if (!(total > 0) || total > DURATION_MAX)
		return -EINVAL;
	*s = total;
	return 0;
}

int prom_time__parse(const char *str, double *t)
{
	struct tm tm = { 0 };
	char *end;
	double v;

	if (!str || !*str)
		return -EINVAL;
	v = strtod(str, &end);
	if (end != str && !*end && !str[strspn(str, "0123456789.")]) {
		if (!(v > 0 && v < 1e11))
			return -EINVAL;
		*t = v;
		return 0;
	}
	end = strptime(str, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end || strcmp(end, "Z"))
		return -EINVAL;
	*t = (double)timegm(&tm);
	return *t > 0 ? 0 : -EINVAL;
}
