/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* emon-perf stat: options, and the state the row builder reads. */
#ifndef CLI_STAT_H
#define CLI_STAT_H

#include <stdbool.h>
#include <linux/types.h>
#include "common/cpu_topo.h"
#include "engine/aggregate.h"
#include "engine/cgroup.h"
#include "engine/engine.h"
#include "cli/metrics_table.h"
#include "cli/output.h"
#include "cli/stat_targets.h"

#define STAT_MAX_CGROUPS 1024

struct stat_opts {
	char events[1024];	/* comma list, -e appends */
	bool all_cpus;
	char *cgroups[STAT_MAX_CGROUPS];	/* normalized -G paths */
	int nr_cgroups;
	unsigned int by;	/* 1 << scope */
	unsigned int aggr;	/* -A, --per-*: scopes that replace the system row */
	long interval_ms;	/* -I, 0: none */
	const char *sep;	/* -x */
	bool json;
	const char *output;	/* -o, NULL: stderr */
	bool append;		/* --append: -o appends */
	bool quiet;		/* -q: no counts printed */
	long timeout_ms;
	/* the engine's options (cli/opts.h); eng.events is set from events */
	struct engine_opts eng;
	const char *socket;	/* --socket: the daemon's */
	bool no_daemon;		/* --no-daemon: own events always */
	bool sched_hist;	/* --sched-hist: text prints the histograms */
	struct stat_targets tg;	/* -p, -C, -D, --interval-count */
	char metric_list[512];	/* -M, comma list; its events join events */
	const struct metric_def *metrics[METRIC_MAX];
	int nr_metrics;
	bool metric_only;	/* --metric-only */
	bool detailed;		/* -d */
	char **cmd;		/* after --, NULL-terminated */
};

/* Parse argv into o. Returns 0, 1 after --help (exit 0), or -EINVAL after
 * printing a one-line error (exit 2). */
int stat_opts__parse(struct stat_opts *o, int argc, char **argv);
void stat_opts__free(struct stat_opts *o);
/* Option c with its argument into o when it is one of the daemon's
 * (cli/opts.h: --socket, --no-daemon): 1, 0 when it is not, -EINVAL
 * for a bad value (said). stat's and top's. */
int stat_opts__daemon(struct stat_opts *o, int c, const char *arg);

/* What the row builder needs besides the aggregate. */
struct stat_ctx {
	const struct stat_opts *opts;
	bool command_mode;	/* a command and no -a/-G: count its tree */
	/* -p's processes followed as a tree, with what they fork from the
	 * start on (an own engine: perf's inherited counters) */
	bool p_tree;
	const struct stat_targets *tg;	/* -p's processes, -C's CPUs */
	__u32 tree_root;	/* the command's pid */
	int ncpus;
	const bool *online;
	const int *cpu_pkg;	/* dense package index per CPU */
	const int *pkg_id;	/* physical id per dense index */
	int npkg;
	/* per CPU, for die and core rows (else NULL) */
	const struct cpu_place *place;
	int sort_idx;		/* event index processes are sorted by */
	bool energy_on;		/* an energy source is active */
};

struct cont_acc;
struct pod_acc;

struct row_set {
	struct row *rows;
	int nr;
	size_t cap;
	char (*keys)[32];	/* storage for numeric keys */
	int nr_keys;
	size_t cap_keys;
	struct cont_acc *conts;	/* container rows' storage */
	int nr_conts;
	size_t cap_conts;
	struct pod_acc *pods;	/* pod and namespace rows' storage */
	size_t cap_pods;
	struct idmap g_of;	/* cgid -> struct g_list: the -G rows it is in */
	unsigned long gen;	/* intervals built */
};

/* Build this interval's rows from the aggregate; dt: its length in
 * seconds, for power. 0 or -ENOMEM. */
int stat_rows__build(const struct stat_ctx *sc, const struct aggregate *a,
		     double dt, struct row_set *rs);
void row_set__exit(struct row_set *rs);
/* For the builders of stat_rows*.c: a row (NULL: no memory), its energy. */
struct row *row_set__add(struct row_set *rs, enum scope s, const char *key);
void stat_row__energy(const struct stat_ctx *sc, const struct aggregate *a,
		      struct row *r, double joules, double dt);
/* A key for a row, kept in rs until the next build. */
const char *row_set__key(struct row_set *rs, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* perf --per-thread's rows: a row per thread of the targets (-p, -t;
 * every thread that ran without either), and the overflow's
 * (stat_rows_thread.c). */
int stat_rows__threads(const struct stat_ctx *sc, const struct aggregate *a,
		       struct row_set *rs);
/* -t without --per-thread: its threads' sum, the row perf -t prints. */
int stat_rows__tid_sum(const struct stat_ctx *sc, const struct aggregate *a,
		       struct row_set *rs);
/* Pod and namespace rows, as --by asks (stat_rows_pod.c). */
int stat_rows__pods(const struct stat_ctx *sc, const struct aggregate *a,
		    double dt, struct row_set *rs);

#endif
