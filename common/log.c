// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Messages go to stderr, one line each, prefixed with the tool's name. */
#include <stdarg.h>
#include <stdio.h>
#include "common/log.h"

int verbose;

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "emon-perf: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void pr_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void pr_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void pr_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void pr_debug(const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}
