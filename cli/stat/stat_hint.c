// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The NMI watchdog hint (cli/stat/stat_hint.h). The watchdog, where it runs on
 * the PMU (x86's perf-based hard-lockup detector), pins one general
 * counter on every CPU for good: one fewer for the events asked for, so
 * a set that would just fit is multiplexed.
 */
#include <stdio.h>
#include "cli/stat/stat_hint.h"

bool rows__undercounted(const struct output *o, const struct row *rows, int n)
{
	for (int k = 0; k < n; k++) {
		for (int i = 0; i < o->nr_events && i < EMON_MAX_EVENTS; i++) {
			struct row_value v;

			row__value(o, &rows[k], i, &v);
			if (v.state == VALUE_NOT_COUNTED ||
			    (v.state == VALUE_COUNTED && v.ratio < 1.0))
				return true;
		}
	}
	return false;
}

bool nmi_watchdog__on(const char *path)
{
	FILE *f = fopen(path, "r");
	int c;

	if (!f)
		return false;
	c = fgetc(f);
	fclose(f);
	return c == '1';
}

void stat_hint__print(FILE *f, const struct output *o)
{
	if (o->f == f && o->ops != &output_text_ops)
		return;
	fputs("Some events weren't counted all the time. Try disabling the NMI watchdog:\n"
	      "\techo 0 > " NMI_WATCHDOG_PATH "\n"
	      "\temon-perf stat ...\n"
	      "\techo 1 > " NMI_WATCHDOG_PATH "\n", f);
}
