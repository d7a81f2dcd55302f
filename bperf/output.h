/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Output formats behind one ops table: perf-stat-like text, CSV (-x SEP),
 * JSON lines (-j). Each format prints the same numbers from the same rows.
 */
#ifndef BPERF_OUTPUT_H
#define BPERF_OUTPUT_H

#include <stdio.h>
#include "bperf/rows.h"

struct output;

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
	const char *target;		/* "system wide", or the command line */
	int nr_events;
	struct row_event ev[EMON_MAX_EVENTS];
	/* energy, when a source is active (else energy_source == NULL) */
	const char *energy_source;	/* "powercap", "perf", "model" */
	const char *split_by;		/* event name that split the energy */
	bool energy_estimated;		/* model: text says "estimated" */
	int ncpus;			/* online CPUs, for "CPUs utilized" */
	int rows_printed;
};

extern const struct output_ops output_text_ops;
extern const struct output_ops output_csv_ops;
extern const struct output_ops output_json_ops;

/* Derived metrics of one row (NAN where they cannot be computed). */
struct row_metrics {
	double ipc;		/* instructions / cycles */
	double epi_nj;		/* energy_j * 1e9 / instructions */
};
void row__metrics(const struct output *o, const struct row *r,
		  struct row_metrics *m);
/* index of the event called name in o->ev, or -1 */
int output__event_index(const struct output *o, const char *name);

#endif
