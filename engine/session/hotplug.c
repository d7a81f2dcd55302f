// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * CPUs going offline and coming back (session.c's hotplug paragraph): a
 * CPU whose events died gets new ones after the interval's read, swapped
 * in so that BPF takes a baseline of each, never a delta between an old
 * event and a new one.
 */
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common/log.h"
#include "engine/session/session_int.h"

#define CPU_READY_S 5.0	/* a CPU back online that perf has not set up yet */

/*
 * Put cpu's new events in place of its dead ones. The old ones are taken
 * out of the map and cpu is flushed first: its reads fail, so BPF marks
 * those events stale and takes its next good reading of each as a
 * baseline, never a delta between an old event and a new one. The flush
 * also moves cpu to the current buffer. -ENXIO: offline again.
 */
static int session__swap_cpu(struct session *s, int cpu)
{
	int map_fd = bpf_map__fd(s->skel->maps.events), err;

	for (int i = 0; i < s->nr_events; i++) {
		__u32 key = i * s->ncpus + cpu;

		if (bpf_map_delete_elem(map_fd, &key) && errno != ENOENT)
			return -errno;
	}
	err = session__flush_cpu(s, cpu);
	return err ?: session__install_cpu(s, cpu);
}

/*
 * cpu is online and its events do not count: it came (back) online since
 * they were opened. Open new ones and swap them in. A CPU not ready for
 * them yet (ENODEV: perf sets a CPU up after it is marked online, and on a
 * busy machine the bring-up can take several intervals) is tried again at
 * every interval for up to CPU_READY_S; other failures are said once per
 * CPU, with what is missing from then on.
 */
static void session__revive_cpu(struct session *s, int cpu)
{
	struct session_cpu *c = &s->cpu[cpu];
	const char *failed = NULL;
	int err = 0, ret, nr_open = 0;

	for (int i = 0; i < s->nr_events; i++) {
		ret = pmu_event__reopen_cpu(s->events[i], cpu);
		nr_open += !ret;
		if (ret && !err) {
			err = ret;
			failed = s->events[i]->name;
		}
	}
	/* perf's CPU set-up can finish between two of these opens: any ENODEV */
	if (err == -ENODEV) {
		double now = session__now();

		if (!c->not_ready_since)
			c->not_ready_since = now;
		if (now - c->not_ready_since < CPU_READY_S)
			return;
	}
	c->not_ready_since = 0;
	c->live = true;		/* no retries every interval: once per comeback */
	c->flush_ns = 0;	/* the swap's flush is its new start */
	ret = session__swap_cpu(s, cpu);
	if (ret == -ENXIO)	/* offline again: the next flush says so */
		ret = 0;
	if (nr_open && s->online)
		s->online[cpu] = true;
	if (!err && !ret) {
		pr_debug("cpu%d is online: its events reopened (%d)", cpu, nr_open);
		return;
	}
	if (c->warned)
		return;
	c->warned = true;
	if (err)
		pr_warn("cpu%d is online again but '%s' cannot be counted there (%s): cpu%d's %s counts are missing from now on",
			cpu, failed, pmu_event__strerror(err), cpu, failed);
	else
		pr_warn("cpu%d is online again but its events cannot be installed (%s): cpu%d's counts are missing from now on",
			cpu, strerror(-ret), cpu);
}

/*
 * Were cpu's events dead this whole interval, though it was online at both
 * ends? It went offline and came back in between. A live cpu-clock or
 * task-clock always advances, and so does the enabled time of an event
 * read with its times; without such an event this cannot be told.
 */
static bool session__stalled(const struct session *s,
			     const struct session_read *r, int cpu)
{
	bool told = false;

	for (int i = 0; i < s->nr_events; i++) {
		const struct emon_count *c = &r->cpu[cpu].c[i];

		if (session__fd(s, i, cpu) < 0)
			continue;
		if (!(s->counter_only & (1u << i))) {
			if (c->enabled)
				return false;
			told = true;
		} else if (s->events[i]->is_time) {
			if (c->counter)
				return false;
			told = true;
		}
	}
	return told;
}

void session__track_cpus(struct session *s, struct session_read *r)
{
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		struct session_cpu *c = &s->cpu[cpu];

		if (!c->flushed) {
			if (c->live)
				pr_debug("cpu%d went offline: counted again once it is back", cpu);
			c->live = false;
			continue;
		}
		if (c->live && c->was_flushed && session__stalled(s, r, cpu)) {
			pr_debug("cpu%d went offline and came back within the interval", cpu);
			r->cpu_dt[cpu] = 0;
			c->live = false;
		}
		if (!c->live)
			session__revive_cpu(s, cpu);
	}
}
