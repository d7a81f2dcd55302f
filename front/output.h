/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Output formats behind one ops table: perf-stat-like text, CSV (-x SEP),
 * perf's JSON (-j), emon-perf's JSON rows (--json-rows). Each format prints
 * the same numbers from the same rows.
 */
#ifndef FRONT_OUTPUT_H
#define FRONT_OUTPUT_H

#include <stdio.h>
#include "front/rows.h"

struct output;
struct formula_def;

struct output_ops {
	const char *name;
	void (*begin)(struct output *o);
	/* One interval's rows; t = seconds since start at the interval's end,
	 * dt = the interval's length in seconds. */
	void (*interval)(struct output *o, double t, double dt,
			 const struct row *rows, int n);
	/* elapsed = whole run, seconds. */
	void (*end)(struct output *o, double elapsed);
};

struct output {
	const struct output_ops *ops;
	FILE *f;
	const char *sep;		/* CSV separator */
	bool interval_mode;		/* -I given */
	double interval_s;		/* -I's period, seconds (perf's JSON
					 * divides CPUs utilized by it) */
	const char *target;		/* "system wide", or the command line */
	const char *target_what;	/* before it: "process id ", or NULL */
	int nr_events;
	struct row_event ev[EMON_MAX_EVENTS];
	/* energy, when a source is active (else energy_source == NULL) */
	const char *energy_source;	/* "powercap", "perf", "model" */
	const char *split_by;		/* event name that split the energy */
	bool energy_estimated;		/* model: text says "estimated" */
	int ncpus;			/* online CPUs, for "CPUs utilized" */
	/* 1u << SCOPE_* of the rows to come (--by): the text header of -I
	 * then labels the key column; 0 = unknown, no label. */
	unsigned int scopes;
	int rows_printed;
	/* -r: runs > 1, the header says how many, the end the elapsed
	 * time's mean with its standard deviation */
	int runs;
	double elapsed_sd;
	/* --sched: rows carry the scheduler view (counts.s) */
	bool sched;
	bool sched_hist;		/* text: each row's histogram */
	bool sched_ms;			/* its buckets are ms, not us */
	/* -M: the metrics (front/output_formula.h); --metric-only: no counts */
	const struct formula_def *const *metrics;
	int nr_metrics;
	bool metric_only;
	/* text: an event this source cannot count is <not supported> in
	 * the system, command and perf's per-CPU rows only, not on every
	 * cgroup, container, pod, namespace and process (stderr said once
	 * which); CSV and JSON keep it on every row */
	bool unsup_once;
	/* perf's text: the command's "seconds user" and "seconds sys" after
	 * the elapsed time (a command of its own, no -I, -r, -a), from its
	 * rusage; --no-big-num: counts without thousands separators; -n:
	 * no blank line before the elapsed time */
	bool ru_display;
	double ru_user, ru_sys;
	const char *thousands_sep;	/* text's, "": none; NULL: "," */
	bool null_run;
	/* CSV: the first field of --summary's lines (perf's "summary",
	 * right-aligned in 16), NULL: none */
	const char *csv_lead;
	/*
	 * perf -G after -e (front_opts' cg_paired): event i prints in the
	 * cgroup row of key ev_cgroup[i] alone or, NULL, in the other rows
	 * alone (system, -A's, --per-*'s), in the events' order
	 * (output__rows); meanwhile ev_hide (1u << i) says which events a
	 * part leaves out, and no_extras that a row's lines past its events
	 * (-M, --sched, energy) wait for its last part.
	 */
	bool cg_paired;
	const char *ev_cgroup[EMON_MAX_EVENTS];
	/* -G's cgroups: their keys (normalized paths) and names as given,
	 * which perf's layouts print (output__cgroup_name) */
	char *const *cg_keys;
	char *const *cg_names;
	int nr_cg;
	unsigned int ev_hide;
	bool no_extras;
};

extern const struct output_ops output_text_ops;
extern const struct output_ops output_csv_ops;
extern const struct output_ops output_json_ops;	/* --json-rows */
extern const struct output_ops output_perf_json_ops;	/* -j */
/* -q: perf's --quiet, the counts not printed */
extern const struct output_ops output_none_ops;

/* What perf's layouts print for a cgroup row's key: the -G name that
 * gave it, as given ("pgA", "pgA/", as perf does), else the key. */
const char *output__cgroup_name(const struct output *o, const char *key);

/* Does this part print event i (output__rows)? */
static inline bool output__shows(const struct output *o, int i)
{
	return !(o->ev_hide & (1u << i));
}

/*
 * An interval's rows printed by rows_fn (a format's rows, without its
 * header): all at once, or with perf -G's pairs (cg_paired) the events
 * in their order, each run of events of the same rows (a cgroup's row;
 * the rows of no cgroup) one part, with ev_hide and no_extras set; rows
 * no event pairs with are left out.
 */
typedef void (*output_rows_fn)(struct output *o, double t, double dt,
			       const struct row *rows, int n);
void output__rows(struct output *o, double t, double dt,
		  const struct row *rows, int n, output_rows_fn rows_fn);

/* Derived metrics of one row (NAN where they cannot be computed). */
struct row_metrics {
	double ipc;		/* instructions / cycles */
	double epi_nj;		/* energy_j * 1e9 / instructions */
};
void row__metrics(const struct output *o, const struct row *r,
		  struct row_metrics *m);
/*
 * What text and CSV show beside a container's id: NAMESPACE/POD/CONTAINER
 * under Kubernetes, else the runtime's name; into buf, control bytes as
 * '?' (names are any bytes, and these go to a terminal). NULL: none known.
 */
const char *row__cont_label(const struct row *r, char *buf, size_t size);
/*
 * Names are any bytes (a process names itself, a delegated user makes
 * cgroups): each byte of s's control characters (C0, DEL, C1:
 * common/utf8.h) becomes "\xNN", in place, within size bytes (the end
 * cut to fit), so that text and CSV output moves no terminal's cursor.
 * Returns s.
 */
char *output__escape(char *s, size_t size);
/*
 * s as a JSON string (RFC 8259; bytes that are not UTF-8 become U+FFFD,
 * so that every line is valid JSON)
 */
void output__json_string(FILE *f, const char *s);
/*
 * perf -B, its default in text: the thousands separator of LC_NUMERIC as
 * the environment sets it, as perf's printf("%'") ("" in C and C.UTF-8:
 * none), the decimal point staying '.'.
 */
const char *output__locale_thousands_sep(void);
/* index of the event called name in o->ev, or -1 */
int output__event_index(const struct output *o, const char *name);

/*
 * Event roles for derived metrics, matched leniently: "cycles" also finds
 * "cpu-cycles" and "cycles:u" (modifiers). The time event is the first
 * supported one counting nanoseconds (cpu-clock, task-clock). -1 if none.
 */
int output__cycles_index(const struct output *o);
int output__instructions_index(const struct output *o);
int output__time_index(const struct output *o);

/* One event of one row, as every format shows it. */
enum value_state {
	VALUE_COUNTED,
	VALUE_NOT_COUNTED,	/* supported, but never ran: <not counted> */
	VALUE_NOT_SUPPORTED,	/* the PMU cannot count it: <not supported> */
};

struct row_value {
	enum value_state state;
	double value;		/* scaled; nanoseconds for time events */
	__u64 count;		/* the same rounded, exact when not scaled */
	double ratio;		/* running / enabled; NAN if not supported */
};

/* Event i (index into o->ev) of row r. */
void row__value(const struct output *o, const struct row *r, int i,
		struct row_value *v);

/*
 * perf --per-thread prints event by event, each event's thread rows by
 * its count, the largest first: ord[0..nr) gets rows[0..nr) in that order
 * for event i, those without a count last (and, with not_run_last, the
 * rows that did not run), ties in the rows' own order.
 */
struct output_ord {
	const struct row *r;
	double v;
};
void output__by_count(const struct output *o, const struct row *rows, int nr,
		      int i, bool not_run_last, struct output_ord *ord);

/* A row's events, and the roles its derived metrics look up. */
struct row_values {
	struct row_value v[EMON_MAX_EVENTS];
	int time_idx;
	int cycles_idx;
	int ins_idx;
};

void row_values__init(struct row_values *rv, const struct output *o,
		      const struct row *r);
/*
 * perf's shadow metric of event i, as perf's text prints it: val
 * ("%8.3f", IPC "%7.2f ") and unit ("CPUs utilized", "insn per cycle",
 * "GHz", "K/sec"...). CPUs utilized for a time event, IPC for
 * instructions next to cycles, GHz for cycles, else a rate per second of
 * the row's time event; dt: the interval's seconds. False when there is
 * none to show.
 */
bool row_values__metric(const struct row_values *rv, const struct output *o,
			int i, double dt, char *val, size_t size, char *unit,
			size_t usize);
/* The same metric as a number (*m) and its unit, unformatted. */
bool row_values__metric_value(const struct row_values *rv,
			      const struct output *o, int i, double dt,
			      double *m, char *unit, size_t usize);

#endif
