/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The metrics stat -M computes: perf's usual ones (IPC, CPI, frequency,
 * miss rates, CPUs utilized) and energy's (W, nJ per instruction), each
 * an expression over events that -M opens. Pure: no I/O, so the unit
 * tests hold every formula, and what a missing input makes of it.
 */
#ifndef FRONT_FORMULAS_H
#define FRONT_FORMULAS_H

#include <stdbool.h>
#include <stddef.h>

#define METRIC_MAX_INPUTS 2
#define METRIC_MAX 16		/* -M names at once */

/* What a metric's input, or the metric, is for one row */
enum metric_state {
	METRIC_OK,
	METRIC_NOT_COUNTED,	/* an input never ran, or a denominator is 0 */
	METRIC_NOT_SUPPORTED,	/* an input cannot be counted here */
};

struct metric_input {
	enum metric_state state;
	double value;		/* scaled count; nanoseconds for clocks */
};

/* The row besides its events: its interval and energy */
struct metric_row {
	double dt;		/* seconds */
	bool has_energy;	/* an energy source is active */
	double energy_j;	/* NAN: no valid reading */
};

struct metric_def {
	const char *name;	/* as -M takes it */
	const char *unit;	/* after the value, as perf's # column */
	const char *formula;	/* for list metrics */
	const char *events[METRIC_MAX_INPUTS + 1];	/* NULL-terminated */
	bool group;		/* its events open as a {group}, as perf's metrics */
	bool energy;		/* needs the row's energy */
	/* in[] in events order, all METRIC_OK; NAN when not defined */
	double (*compute)(const double *in, const struct metric_row *r);
};

struct metric_value {
	enum metric_state state;
	double value;		/* NAN unless METRIC_OK */
	const char *why;	/* not supported: the event or energy missing */
};

extern const struct metric_def metric_defs[];
extern const size_t nr_metric_defs;

/* The metric called name (case-insensitive), NULL if none */
const struct metric_def *metric__find(const char *name);

/*
 * m for one row: not supported when an input is (why names it), not
 * counted when one did not run or the formula has no value (0
 * denominator), never 0 for either.
 */
void metric__compute(const struct metric_def *m, const struct metric_input *in,
		     const struct metric_row *r, struct metric_value *out);

/*
 * The events -M LIST needs, appended to the comma list events[size]
 * where not in it already, a metric's missing ones as a {group} where
 * perf groups them; *defs gets the metrics, *nr how many. 0, or -EINVAL
 * (an unknown metric, said with pr_err), -E2BIG when events is full.
 */
int metrics__parse(const char *list, char *events, size_t size,
		   const struct metric_def **defs, int *nr);

/* -d: perf's detailed events on top of the others */
#define METRIC_DETAILED_EVENTS \
	"L1-dcache-loads,L1-dcache-load-misses,LLC-loads,LLC-load-misses"

#endif
