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

#define FORMULA_MAX_INPUTS 2
#define FORMULA_MAX 16		/* -M names at once */

/* What a metric's input, or the metric, is for one row */
enum formula_state {
	FORMULA_OK,
	FORMULA_NOT_COUNTED,	/* an input never ran, or a denominator is 0 */
	FORMULA_NOT_SUPPORTED,	/* an input cannot be counted here */
};

struct formula_input {
	enum formula_state state;
	double value;		/* scaled count; nanoseconds for clocks */
};

/* The row besides its events: its interval and energy */
struct formula_row {
	double dt;		/* seconds */
	bool has_energy;	/* an energy source is active */
	double energy_j;	/* NAN: no valid reading */
};

struct formula_def {
	const char *name;	/* as -M takes it */
	const char *unit;	/* after the value, as perf's # column */
	const char *formula;	/* for list metrics */
	const char *events[FORMULA_MAX_INPUTS + 1];	/* NULL-terminated */
	bool group;		/* its events open as a {group}, as perf's metrics */
	bool energy;		/* needs the row's energy */
	/* in[] in events order, all FORMULA_OK; NAN when not defined */
	double (*compute)(const double *in, const struct formula_row *r);
};

struct formula_value {
	enum formula_state state;
	double value;		/* NAN unless FORMULA_OK */
	const char *why;	/* not supported: the event or energy missing */
};

extern const struct formula_def formula_defs[];
extern const size_t nr_formula_defs;

/* The metric called name (case-insensitive), NULL if none */
const struct formula_def *formula__find(const char *name);

/*
 * m for one row: not supported when an input is (why names it), not
 * counted when one did not run or the formula has no value (0
 * denominator), never 0 for either.
 */
void formula__compute(const struct formula_def *m, const struct formula_input *in,
		      const struct formula_row *r, struct formula_value *out);

/*
 * The events -M LIST needs, appended to the comma list events[size]
 * where not in it already, a metric's missing ones as a {group} where
 * perf groups them; *defs gets the metrics, *nr how many. 0, or -EINVAL
 * (an unknown metric, said with pr_err), -E2BIG when events is full.
 */
int formulas__parse(const char *list, char *events, size_t size,
		    const struct formula_def **defs, int *nr);

/* -d: perf's detailed events on top of the others */
#define FORMULA_DETAILED_EVENTS \
	"L1-dcache-loads,L1-dcache-load-misses,LLC-loads,LLC-load-misses"

#endif
