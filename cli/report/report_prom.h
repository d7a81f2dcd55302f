/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * emon-perf report --prometheus: the report's model (struct report) built
 * from a Prometheus server's history of the daemon's counters instead of
 * a recording, so that the table and the HTML page are the same code.
 *
 * One range query per scope and family asks for the counters' values at
 * every step of the window (report_prom.c, over HTTP); this side turns
 * those values into increases per step (pure, no I/O: the unit tests
 * feed it query results). A counter that goes down restarted from zero,
 * as PromQL's increase() takes it; what it gained after the last step
 * before its reset comes from a second query, of its highest value in
 * each step, made only for the families that have a reset. A series' first value in the window
 * is its baseline; but a series of a key that was born inside the
 * window (Prometheus had its host at an earlier step, and the key is no
 * process: those come and go from the daemon's top N) started at zero,
 * so its first value counts in full.
 */
#ifndef CLI_REPORT_PROM_H
#define CLI_REPORT_PROM_H

#include <json-c/json.h>
#include "cli/report/report.h"

/* The families a report reads per scope: the counters of report.h and
 * the attributed energy. */
enum report_fam {
	RF_CYCLES = RC_CYCLES,
	RF_INSTRUCTIONS = RC_INSTRUCTIONS,
	RF_CPU_CLOCK = RC_CPU_CLOCK,
	RF_ENERGY = RC_COUNTERS,	/* the counters first: the scheduler view's are not read */
	RF_NR,
};

/* How the daemon exports a scope (daemon/exporter/metrics.c). */
struct report_prom_scope {
	enum scope scope;
	const char *name;	/* emon_<name>_<family> */
	const char *key;	/* the label that names a key; NULL: "all" */
	const char *by;		/* the labels a key keeps (max by) */
	bool births;		/* a new series is a new key, from zero */
};

struct report_prom_fam {
	const char *name;	/* emon_<scope>_<name> */
	const char *match;	/* label matcher it needs, or NULL */
	double scale;		/* to the report's units (ns for time) */
};

#define REPORT_PROM_SCOPES 5
extern const struct report_prom_scope report_prom_scopes[REPORT_PROM_SCOPES];
extern const struct report_prom_fam report_prom_fams[RF_NR];

/* Prometheus answers at most this many points per series. */
#define REPORT_PROM_MAX_POINTS 11000

/* A duration as Prometheus writes them (1h30m, 90s, 2d, 1w, 500ms) or
 * plain seconds (90, 1.5): 0 and *s, or -EINVAL (also for 0, negative,
 * more than 10 years). */
int prom_duration__parse(const char *str, double *s);

/* A time: Unix seconds, or UTC as 2026-11-25T10:00:00Z; 0 or -EINVAL. */
int prom_time__parse(const char *str, double *t);

/* The window: points start + i * step, i = 0..n (n steps). 0, -ENOMEM,
 * -EINVAL (n < 1 or more than the server's points). */
int report__prom_window(struct report *r, double start, double step, int n);
/* Keep one range query's "result" (a matrix) of one scope and family;
 * takes the caller's reference. */
int report__prom_add(struct report *r, enum scope scope, enum report_fam fam,
		     struct json_object *result);
/* Whether a series of that matrix goes down inside the window (a reset:
 * the counter restarted from zero). */
bool report__prom_resets(const struct report *r, enum scope scope,
			 enum report_fam fam);
/* Keep the peaks of a matrix with resets: the same query's series, each
 * value the highest in its step (max_over_time over the step), so that
 * what the old counter gained between the last step and its reset is
 * counted too; takes the caller's reference. */
int report__prom_add_peaks(struct report *r, enum scope scope,
			   enum report_fam fam, struct json_object *result);
/* Keep the containers' names: an instant query's "result" (a vector),
 * each series' labels container_id, name, image, namespace, pod and
 * container (instance, host); the labels with the most names win for a
 * container. Container series then count for their pods (namespace/pod,
 * else pod_uid) and namespaces too. Takes the caller's reference; 0,
 * -EINVAL (not a vector), -ENOMEM. */
int report__prom_add_names(struct report *r, struct json_object *result);
/* Totals of every key from what was added; -ENODATA when no series had
 * a value in the window, -EINVAL for a malformed result (r->err says
 * which), -ENOMEM. */
int report__prom_sum(struct report *r);
/* Pass 2 (charts): per-step series of the keys report__load_series()
 * gave one. */
int report__prom_series(struct report *r);
/* The source's state (r->src_priv), for report_prom_source's free. */
void report_prom__free(void *priv);

/* report_prom_source's load (report_prom.c) fetches every family of
 * every scope from the server at url (--match: extra label matchers,
 * NULL for none) into r: report__load(r, &query). 0 or -errno with r->err
 * naming the culprit (the URL, --step, --match): -EHOSTUNREACH (no
 * answer, or a 5xx page: exit 1), -EPROTO (no Prometheus), -EINVAL (a query it rejects), -E2BIG
 * (too many points), -ENODATA (no data in the window), -EIO, -ENOMEM. */
struct report_prom_query {
	const char *url;
	double range, step;	/* seconds; step 0: chosen from the range */
	double end;		/* Unix seconds; 0: now */
	const char *match;
};

#endif
