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
	/* each as first given (perf prints a -G name as given: "pgA",
	 * "pgA/"), NULL where no -G name spelt it */
	char *cg_given[FRONT_MAX_CGROUPS];
	int nr_cgroups;
	/*
	 * perf's -G after -e (cli/stat/stat_compat.c): the cgroups pair with
	 * the events, the Nth name given with the Nth event (empty names
	 * too), one name in all with every event; cg_of[i]: event i's
	 * (its output position, perf's evsel index) cgroup index + 1, 0:
	 * none, system-wide. Without it (cg_each: --for-each-cgroup, -G
	 * before any -e), each cgroup counts every event. cg_paired is
	 * cleared where the rows are emon-perf's own (--by, --json-rows).
	 */
	bool cg_paired;
	bool cg_each;
	bool cg_sys;		/* some event pairs with no cgroup */
	int nr_cg_names;	/* perf's nr_cgroups: -G's names, empty ones too */
	short cg_of[EMON_MAX_EVENTS];
	char cg_excess[256];	/* the first name with no event to pair with */
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
	/* perf's options that change what is printed, or what runs around
	 * the count (cli/stat/stat_compat.c) */
	bool no_big_num;	/* --no-big-num: text counts without separators */
	bool big_num;		/* -B, --big-num given (perf refuses it with -x) */
	bool null_run;		/* -n: no events unless some are asked for */
	bool hide_events;	/* -n without any: cpu-clock counted, none printed */
	bool summary;		/* --summary: with -I, the whole run at the end */
	bool no_csv_summary;	/* --no-csv-summary: no "summary" field then */
	const char *pre_cmd;	/* --pre: sh -c before each run */
	const char *post_cmd;	/* --post: after each run, before the print */
	int log_fd;		/* --log-fd N: N + 1, the counts to fd N; 0: none */
	bool per_node;		/* --per-node: a row per NUMA node */
	bool metrics_implied;	/* --metric-only without -M: perf's, no warnings */
	const char *control;	/* --control fd:... or fifo:... (cli/stat) */
	char all_mod;		/* --all-user 'u', --all-kernel 'k', or 0 */
	/*
	 * The events as printed, where they differ from those counted
	 * (events): an event given again (perf counts it twice) is shown at
	 * output position at with the counts of counted event of; shown[i]
	 * the name counted event i prints ("": its own), as given (without
	 * --all-user's :u, with perf's :W); strip_mod: bit i, a group's
	 * member i prints its name without the :u or :k added last
	 */
	int nr_dups;
	struct { int at, of; } dups[EMON_MAX_EVENTS];
	char shown[EMON_MAX_EVENTS][128];	/* PMU_EVENT_NAME_LEN */
	unsigned int strip_mod;
};

/* Option c with its argument into o when it is one of the daemon's
 * (front/shared_opts.h: --socket, --no-daemon): 1, 0 when it is not, -EINVAL
 * for a bad value (said). stat's and top's. */
int front_opts__daemon(struct front_opts *o, int c, const char *arg);
/* What o holds (-G's paths, the metrics' list). */
void front_opts__free(struct front_opts *o);

#endif
