// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The scheduler view's histogram as runqlat prints it (libbpf-tools
 * trace_helpers.c, print_log2_hist), so the two can be read side by side.
 */
#include <string.h>
#include "front/output_sched.h"

#define STARS 40

static void print_stars(FILE *f, __u64 val, __u64 max)
{
	int n = (val < max ? val : max) * STARS / max;

	for (int i = 0; i < STARS; i++)
		putc(i < n ? '*' : ' ', f);
	if (val > max)
		putc('+', f);
}

void sched_hist__print(FILE *f, const struct emon_sched *s, bool ms,
		       const char *indent)
{
	int last = sched_hist__last(s);
	__u64 max = 0;

	if (last < 0)
		return;
	for (int i = 0; i <= last; i++)
		if (s->hist[i] > max)
			max = s->hist[i];
	fprintf(f, "%s%5s%-19s : count    distribution\n", indent, "",
		ms ? "msecs" : "usecs");
	for (int i = 0; i <= last; i++) {
		__u64 low = (1ULL << (i + 1)) >> 1, high = sched_hist__upper(i);

		if (low == high)
			low--;
		fprintf(f, "%s%10llu -> %-10llu : %-8llu |", indent,
			(unsigned long long)low, (unsigned long long)high,
			(unsigned long long)s->hist[i]);
		print_stars(f, s->hist[i], max);
		fputs("|\n", f);
	}
}
