// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The scheduler view's fields and its histogram's buckets, shared by the
 * text, CSV and JSON outputs and by /metrics. The histogram's layout is
 * runqlat's (libbpf-tools trace_helpers.c, print_log2_hist), so the two can
 * be read side by side.
 */
#include "engine/sched_fields.h"

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
