// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What a read tells the user (read_warn.h). */
#include "engine/read_warn.h"
#include "common/log.h"

/* Short of the time between reads by more than this: said (read_check__clock). */
#define CLOCK_SHORT 0.01

void read_check__stats(struct read_check *c, const struct session_read *rd,
		       const struct session *sess)
{
	const __u64 *st = rd->stats;

	if (st[EMON_STAT_CGRP_FULL] && !c->ovf_warned[0]++)
		pr_warn("cgroup map full (--max-cgroups %u): %llu slices counted in the 'overflow' cgroup row",
			sess->max_cgroups, (unsigned long long)st[EMON_STAT_CGRP_FULL]);
	if (st[EMON_STAT_PROC_FULL] && !c->ovf_warned[1]++)
		pr_warn("process map full (--max-procs %u): %llu slices counted in the 'overflow' process row",
			sess->max_procs, (unsigned long long)st[EMON_STAT_PROC_FULL]);
	if (st[EMON_STAT_THRD_FULL] && !c->ovf_warned[4]++)
		pr_warn("thread map full (--max-tids %u): %llu slices counted in the 'overflow' thread row",
			sess->max_tids, (unsigned long long)st[EMON_STAT_THRD_FULL]);
	if (st[EMON_STAT_TREE_LOST] && !c->ovf_warned[2]++)
		pr_warn("%llu processes forked in a command's tree could not be followed (the BPF tree map refused them): the command's counts miss theirs",
			(unsigned long long)st[EMON_STAT_TREE_LOST]);
	if (st[EMON_STAT_SLOT_KEY] && !c->ovf_warned[3]++)
		pr_warn("%llu slices found their key's BPF slot holding another key and were counted in a new one (a bug: please report it)",
			(unsigned long long)st[EMON_STAT_SLOT_KEY]);
	if (st[EMON_STAT_READ_ERR])
		pr_debug("%llu failed counter reads",
			 (unsigned long long)st[EMON_STAT_READ_ERR]);
	if (st[EMON_STAT_UNTRACED])
		pr_debug("%llu slices (%.3f ms of cpu-clock) followed context switches the kernel did not trace (tasks hidden from tracepoints): each split by CFS run time where known, else counted for the task that ran last",
			 (unsigned long long)st[EMON_STAT_UNTRACED],
			 st[EMON_STAT_UNTRACED_NS] / 1e6);
}

/*
 * A per-CPU cpu-clock event counts all the time its CPU is online, so one
 * that counted less than the time between two reads was stopped. The
 * kernel does that at every cgroup switch to each event of a PMU context
 * holding cgroup events (another tool's: perf stat -G), and they do not
 * count in between: every count of that PMU falls short, ours too. Said
 * once, after two read periods in a row on one CPU (a single one can be
 * a CPU going offline in mid-period); the figure is in every -v line.
 */
void read_check__clock(struct read_check *c, const struct session_read *rd,
		       int clock_idx, int ncpus)
{
	double short_by;
	int cpu;

	if (clock_idx < 0)
		return;
	short_by = clock__deficit(rd->cpu, clock_idx, rd->cpu_dt, ncpus, &cpu);
	if (cpu < 0 || short_by <= CLOCK_SHORT) {
		c->short_last = false;
		return;
	}
	pr_debug("cpu-clock on cpu%d counted %.1f%% less than the time between its reads",
		 cpu, short_by * 100);
	if (c->short_last && cpu == c->short_cpu && !c->clock_warned) {
		c->clock_warned = true;
		pr_warn("cpu-clock on cpu%d counted %.1f%% less than the time between reads: something stops this CPU's events (another tool's cgroup perf_events on the same PMU, such as perf stat -G with cpu-clock, do at every cgroup switch); counts may be that much low",
			cpu, short_by * 100);
	}
	c->short_last = true;
	c->short_cpu = cpu;
}
