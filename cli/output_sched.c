// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The scheduler view's fields and histogram, shared by the text, CSV and
 * JSON outputs and by /metrics. The histogram's layout is runqlat's
 * (libbpf-tools trace_helpers.c, print_log2_hist), so the two can be read
 * side by side.
 */
#include <string.h>
#include "cli/output_sched.h"

#define F(n, l, t) { #n, l, offsetof(struct emon_sched, n), t }
const struct sched_field sched_fields[SCHED_NR_FIELDS] = {
	F(on_cpu_ns, "on-cpu", true),
	F(runq_wait_ns, "runq-wait", true),
	F(sleep_ns, "sleep", true),
	F(blocked_ns, "blocked", true),
	F(migrations, "migrations", false),
	F(wakeups, "wakeups", false),
	F(vol_switches, "vol-switches", false),
	F(invol_switches, "invol-switches", false),
};
#undef F

int sched_hist__last(const struct emon_sched *s)
{
	int last = -1;

	for (int i = 0; i < EMON_SCHED_SLOTS; i++)
		if (s->hist[i])
			last = i;
	return last;
}

__u64 sched_hist__upper(int i)
{
	return (1ULL << (i + 1)) - 1;
}

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
