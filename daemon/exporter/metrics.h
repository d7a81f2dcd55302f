/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Cumulative snapshots as Prometheus text (format 0.0.4) or OpenMetrics
 * 1.0: what `emon-perf serve` answers on /metrics. Pure but for
 * /proc/self (the process_* figures); no I/O otherwise.
 *
 * Families (a contract):
 *   emon_<scope>_<event>_total            counts; time events in seconds:
 *   emon_<scope>_<event>_seconds_total    (<event>: metrics__event_name)
 *   emon_<scope>_energy_joules_total{zone="package"}   attributed energy;
 *                                         packages: measured, every zone
 * scopes and their labels: system {}, package {package}, cgroup {cgroup},
 * container {container_id,runtime,pod_uid,cgroup}, process {pid,comm}.
 * An event that was not counted gives no series, never a 0.
 *
 * Cardinality: beyond max_series (every series counted, the daemon's own
 * too), the smallest cgroups (by the first time event, else the first
 * event) fold into cgroup="other" until the series fit or no cgroup is
 * left; other scopes are never cut. For good: once folded a cgroup stays
 * folded, and what a folded cgroup had when it left the snapshot stays in
 * "other", so "other" never goes backwards; it is the raw sum of the
 * folded cgroups, then scaled. A container keeps the totals of its
 * cgroups that left the same way.
 *
 * Cgroup series are the snapshot's cgroups (their own counts); the
 * snapshot's overflow and gone rows give none (emon_overflow_total counts
 * the slices that overflowed). Two cgroups of one path (removed and made
 * again while the old one is still in the snapshot) give one series, their
 * sum, which steps back once when the old one leaves.
 * Processes: the top_procs largest by the same event, one series per pid.
 */
#ifndef DAEMON_METRICS_H
#define DAEMON_METRICS_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include "engine/snapshot/snapshot.h"

#define METRICS_MAX_SERIES_DEFAULT 20000

struct metrics_opts {
	size_t max_series;	/* 0: METRICS_MAX_SERIES_DEFAULT */
	int top_procs;		/* processes shown; 0: no process series */
};

/* The daemon's own figures, filled by the caller. */
struct metrics_self {
	double scrape_duration_s;	/* of the previous scrape */
	__u64 flushes;			/* flushes of every CPU so far */
	__u64 scrape_flushes;		/* of them, made for a scrape alone */
	double start_time_unix;		/* when the daemon started, Unix time */
	const char *version;		/* build info (NULL: "unknown") */
	int clients;			/* socket clients now */
	int threads, thread_slots;	/* self-monitoring: registered, slots (0: off) */
};

/* Keeps state across scrapes: the folded cgroups and what they left. */
struct metrics;

int metrics__new(struct metrics **m, const struct metrics_opts *o);
void metrics__free(struct metrics *m);

/*
 * Render s into a malloc'ed buffer *out (*len bytes, NUL-terminated
 * besides). openmetrics: the OpenMetrics 1.0 text format, else Prometheus
 * text format 0.0.4. self may be NULL (its figures are then 0). 0,
 * -EINVAL (NULL or a snapshot that does not match meta) or -ENOMEM; the
 * fold state is kept either way. Not thread-safe: one caller at a time.
 */
int metrics__render(struct metrics *m, const struct snap_meta *meta,
		    const struct snapshot *s, const struct metrics_self *self,
		    bool openmetrics, char **out, size_t *len);

/* "cpu-clock" -> "cpu_clock": lowercased, every other char not [a-z0-9]
 * -> '_'; cut to len - 1. */
void metrics__event_name(const char *event, char *out, size_t len);

/* Series in the last render and cgroups folded into "other" now (tests). */
size_t metrics__series(const struct metrics *m);
size_t metrics__folded(const struct metrics *m);

#endif
