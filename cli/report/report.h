/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * emon-perf report: totals per key of one scope over a JSON-lines recording
 * (stat --json-rows -o FILE, with or without -I), printed as a table or as an HTML
 * page with charts.
 *
 * The recording is read once to sum every scope's keys (memory: keys, not
 * lines), then, only when charts are asked for, a second time to collect
 * the per-interval series of the few keys that are drawn (memory: drawn
 * keys x intervals). The report__ functions print no messages: errors land
 * in report.err, with the file and line, for cmd_report() to print.
 *
 * The model (report_model.c: keys, their sums and series, the view) knows
 * its rows' source only through a const ops table, struct report_source:
 * a recording (report_file.c) or a Prometheus server's history
 * (report_prom*.c). Each source fills the model through report__key() and
 * the fields below, and includes nothing of the other.
 *
 * A null counter is unknown, not zero: a key whose rows never counted an
 * event shows "-" for it and for what derives from it (IPC, EPI).
 */
#ifndef CLI_REPORT_H
#define CLI_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "front/rows.h"

/* The counters a report uses, whatever else the recording has. */
enum report_count {
	RC_CYCLES,
	RC_INSTRUCTIONS,
	RC_CPU_CLOCK,		/* nanoseconds */
	/* the scheduler view of --sched recordings ("sched"), ns */
	RC_RUNQ_WAIT,
	RC_SLEEP,
	RC_BLOCKED,
	RC_NR,
};
#define RC_COUNTERS RC_RUNQ_WAIT	/* those from "counters" */

struct report_key {
	char *key;
	char *host;		/* Prometheus: the instance (or host label) */
	char *comm;		/* process rows: the last comm seen */
	char *runtime;		/* container rows */
	char *names;		/* container rows: namespace/pod/container
				 * under Kubernetes, else the runtime's name */
	double count[RC_NR];	/* sums over the rows that counted it */
	unsigned int counted;	/* bit (1 << RC_*): counted in some row */
	bool has_energy;
	double energy_j;
	bool has_gpu;		/* some row has a gpu_energy_j (--gpu) */
	double gpu_j;
	double rank;		/* sort value, -1 when unknown */
	double *series;		/* per interval, drawn keys only (pass 2) */
};

struct report_table {
	struct report_key *keys;
	int nr;
	size_t alloc;
	struct json_object *index;	/* key -> position in keys */
};

/* What the table is sorted by, and the charts drawn with. */
enum report_rank {
	RANK_ENERGY,
	RANK_CPU_CLOCK,
	RANK_CYCLES,
	RANK_INSTRUCTIONS,
};

struct report;

/* Where a report's rows come from; r->src_priv is the source's own. */
struct report_source {
	const char *name;
	/* Pass 1: every key's totals and r->times; 0 or -errno, r->err
	 * naming the culprit. arg: the source's query (NULL for a file). */
	int (*load)(struct report *r, const void *arg);
	/* Pass 2: add each interval's part to the keys that have a series
	 * (r->series_pass is set). */
	int (*load_series)(struct report *r);
	/* Where a scope without rows has none, and why when it is known:
	 * the end of "no <scope> rows ..." */
	const char *(*no_rows)(const struct report *r, int scope);
	void (*free)(void *priv);
};

extern const struct report_source report_file_source;	/* report_file.c */
extern const struct report_source report_prom_source;	/* report_prom.c */

struct report {
	const char *path;	/* the recording, or the Prometheus URL */
	struct report_table tab[SCOPE_NR];
	double *times;		/* distinct interval ends, sorted */
	int nr_times;
	size_t alloc_times;
	double duration;	/* the last interval's end, seconds */
	/* intervals shorter are not drawn (a run's last, cut short by its
	 * end): half the median interval; set by report__load() */
	double chart_min_dt;
	int nr_rows;
	bool has_energy;	/* some row has energy_j */
	bool has_gpu;		/* some row has gpu_energy_j */
	char *energy_source;	/* from the system rows, NULL if absent */
	char *split_by;
	/* the view, set by report__select() */
	enum scope scope;
	enum report_rank rank;
	struct report_key **sorted;	/* every key of scope, by rank */
	int nr_sorted;
	int top;		/* keys shown: min(--top, nr_sorted) */
	/* pass 2 (charts) */
	bool series_pass;
	const struct report_source *src;
	void *src_priv;
	/* from Prometheus (report_prom*.c) */
	char *window;		/* "from ... to ..., step ...": the query's */
	int nr_hosts;		/* hosts seen; a host column when > 1 */
	/* first error */
	int err_line;		/* 0 when not about a line */
	char err[768];
};

/* Derived figures of one key, NAN where they cannot be known. */
struct report_metrics {
	double energy_j;
	double power_w;		/* mean over the recording */
	double gpu_j, gpu_w;	/* its part of the GPUs' (--gpu recordings) */
	double share;		/* of the system's energy (cpu-clock without) */
	double ipc;
	double epi_nj;
	double cpu_ms;
	double instructions;
	double cycles;
	double runq_ms, sleep_ms, blocked_ms;	/* --sched recordings */
};

void report__init(struct report *r, const char *path,
		  const struct report_source *src);
void report__exit(struct report *r);
/* Pass 1: every key's totals from the source. A recording: 0, -ENOENT/
 * -EIO, -EINVAL (bad line), -ENODATA (no rows), -ENOMEM; r->err says
 * which. */
int report__load(struct report *r, const void *arg);
/* The first error: r->err is "path:line: " (line 0: "path: ", line -1:
 * nothing, the message names its culprit) and the message; returns err. */
int report__fail(struct report *r, int line, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Choose the scope (scope < 0: container, else cgroup, else process, ...)
 * and sort its keys; -ENOENT when the recording has no row of that scope. */
int report__select(struct report *r, int scope, int top);
/* Charts draw at most this many lines; more would be unreadable. */
#define REPORT_MAX_LINES 10

/* Pass 2: per-interval series for the top keys (REPORT_MAX_LINES at most)
 * and the system row. */
int report__load_series(struct report *r);

const struct report_key *report__system(const struct report *r);
void report__metrics(const struct report *r, const struct report_key *k,
		     struct report_metrics *m);
const char *report__rank_name(enum report_rank rank);
/* Value of interval i of a drawn key: W with energy, else CPUs used (by
 * cpu-clock), else events per second. */
/* Is interval i drawn in the charts? Not when shorter than half the
 * median interval: a run's last, a few ms after its last -I print, is
 * too short a window for a rate (the tables count it). */
bool report__interval_drawn(const struct report *r, int i);
double report__series_rate(const struct report *r, const struct report_key *k,
			   int i);

/* Columns of the summary table, the same in text and HTML. */
enum report_col {
	COL_HOST,		/* Prometheus, several hosts */
	COL_KEY,
	COL_COMM,		/* process scope */
	COL_RUNTIME,		/* container scope */
	COL_NAMES,		/* container scope, when some key has names */
	COL_ENERGY,
	COL_POWER,
	COL_SHARE,
	COL_CPU_MS,
	COL_INSTRUCTIONS,
	COL_CYCLES,
	COL_IPC,
	COL_EPI,
	COL_RUNQ_MS,		/* --sched recordings */
	COL_SLEEP_MS,
	COL_BLOCKED_MS,
	COL_GPU_ENERGY,		/* --gpu recordings */
	COL_GPU_POWER,
	COL_NR,
};

/* The columns this report shows, in order; returns how many. */
int report__columns(const struct report *r, enum report_col cols[COL_NR]);
const char *report__col_name(const struct report *r, enum report_col col);
/* One cell as text, "-" when unknown. */
void report__cell(const struct report *r, const struct report_key *k,
		  enum report_col col, char *buf, size_t len);
/* The key as people read it: short container ids, "pid comm". */
void report_key__label(const struct report *r, const struct report_key *k,
		       char *buf, size_t len);

/* The key of scope in r (host NULL: the host does not matter), added
 * when new; NULL when out of memory. */
struct report_key *report__key(struct report *r, enum scope scope,
			       const char *host, const char *key);
/* The same, NULL when it is not there (never added). */
struct report_key *report__find(struct report *r, enum scope scope,
				const char *host, const char *key);
/* The counter (RC_*) a ranking sorts by; -1 for RANK_ENERGY. */
int report_rank__count(enum report_rank rank);
/* *dst = a copy of src unless equal (src NULL: unchanged); -ENOMEM */
int report__strset(char **dst, const char *src);
/* A recording's or a server's free text, printed raw in the header: its
 * control bytes (terminal escapes) made '?'. */
void report__scrub(char *s);
/* A container key's names from the runtime's (cAdvisor's labels, NULL or
 * "" where unknown): namespace/pod/container under Kubernetes, else name;
 * names already known are kept over none. 0 or -ENOMEM. */
int report_key__set_names(struct report_key *k, const char *name,
			  const char *ns, const char *pod,
			  const char *container);

int report__print_text(const struct report *r, FILE *f);
int report__write_html(const struct report *r, FILE *f);

/* Axis ticks: step and count of "nice" (1, 2, 5 x 10^k) ticks from 0 that
 * cover max with about want ticks. */
double report__nice_step(double max, int want);

#endif
