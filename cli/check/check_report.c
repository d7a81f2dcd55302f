// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * check's report (cli/check/check.h): a row added, its figure, a figure
 * judged against its reference; what the facts (check_host.c), the
 * validation (check_run.c) and the command that prints them (check.c)
 * all use, below them.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "cli/check/check.h"

static const char *const status_names[] = {
	[CHECK_INFO] = "info", [CHECK_OK] = "ok", [CHECK_WARN] = "warn",
	[CHECK_SKIP] = "skip", [CHECK_FAIL] = "fail",
};

const char *check_status__name(enum check_status st)
{
	return status_names[st];
}

struct check_row *check__add(struct check_report *r, enum check_status st,
			     const char *name, const char *fmt, ...)
{
	struct check_row *row;
	va_list ap;

	if (r->nr >= CHECK_MAX_ROWS)
		return NULL;
	row = &r->row[r->nr++];
	memset(row, 0, sizeof(*row));
	row->status = st;
	row->value = NAN;
	snprintf(row->name, sizeof(row->name), "%s", name);
	va_start(ap, fmt);
	vsnprintf(row->reason, sizeof(row->reason), fmt, ap);
	va_end(ap);
	return row;
}

void check_row__figure(struct check_row *row, double value, const char *unit,
		       const char *fmt, ...)
{
	va_list ap;

	if (!row)
		return;
	row->value = value;
	snprintf(row->unit, sizeof(row->unit), "%s", unit);
	va_start(ap, fmt);
	vsnprintf(row->figure, sizeof(row->figure), fmt, ap);
	va_end(ap);
}

enum check_status check__judge(double got, double ref, const struct check_tol *tol,
			       double *pct)
{
	double diff = got - ref;

	*pct = ref ? diff / ref * 100 : got ? INFINITY : 0;
	if (!isfinite(got) || !isfinite(ref))
		return CHECK_FAIL;
	if (fabs(diff) <= fabs(ref) * tol->ok_pct / 100 + tol->abs_slack)
		return CHECK_OK;
	return fabs(diff) <= fabs(ref) * tol->warn_pct / 100 + tol->abs_slack ?
	       CHECK_WARN : CHECK_FAIL;
}
