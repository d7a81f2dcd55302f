/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The options of a front end's run (stat's, and top's subset): what to
 * count, for what, how to print it, and the source's (the engine's own
 * options, the daemon's socket). */
#ifndef FRONT_RUN_OPTS_H
#define FRONT_RUN_OPTS_H

#include <stdbool.h>
#include "engine/engine.h"
#include "front/formulas.h"
#include "front/targets.h"

#define FRONT_MAX_CGROUPS 1024

struct front_opts {
	char events[1024];	/* comma list, -e appends */
	bool all_cpus;
	char *cgroups[FRONT_MAX_CGROUPS];	/* normalized -G paths */
	int nr_cgroups;
	unsigned int by;	/* 1 << scope */
	unsigned int aggr;	/* -A, --per-*: scopes that replace the system row */
	int top;		/* --top N: each own scope's N busiest rows, 0: all */
	long interval_ms;	/* -I, 0: none */
	const char *sep;	/* -x */
	bool json;		/* --json-rows: emon-perf's JSON rows */
	bool perf_json;		/* -j: perf's JSON */
	const char *output;	/* -o, NULL: stderr */
	bool append;		/* --append: -o appends */
	bool quiet;		/* -q: no counts printed */
	long timeout_ms;
	/* the engine's options (front/shared_opts.h); eng.events is set from events */
	struct engine_opts eng;
	const char *socket;	/* --socket: the daemon's */
	bool no_daemon;		/* --no-daemon: own events always */
	bool sched_hist;	/* --sched-hist: text prints the histograms */
	struct targets tg;	/* -p, -C, -D, --interval-count */
	char metric_list[512];	/* -M, comma list; its events join events */
	const struct formula_def *metrics[FORMULA_MAX];
	int nr_metrics;
	bool metric_only;	/* --metric-only */
	bool detailed;		/* -d */
	char **cmd;		/* after --, NULL-terminated */
};

/* Option c with its argument into o when it is one of the daemon's
 * (front/shared_opts.h: --socket, --no-daemon): 1, 0 when it is not, -EINVAL
 * for a bad value (said). stat's and top's. */
int front_opts__daemon(struct front_opts *o, int c, const char *arg);
/* What o holds (-G's paths, the metrics' list). */
void front_opts__free(struct front_opts *o);

#endif
