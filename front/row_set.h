/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A front end's rows of an interval, built from the aggregate (stat's and
 * top's): the set that holds them and what the builder reads. */
#ifndef FRONT_ROW_SET_H
#define FRONT_ROW_SET_H

#include <stdbool.h>
#include <linux/types.h>
#include "common/cpu_topo.h"
#include "engine/aggregate.h"
#include "engine/names/cgroup.h"
#include "engine/engine.h"
#include "front/output.h"
#include "front/run_opts.h"

/* What the row builder needs besides the aggregate. */
struct row_ctx {
	const struct front_opts *opts;
	bool command_mode;	/* a command and no -a/-G: count its tree */
	/* -p's processes followed as a tree, with what they fork from the
	 * start on (an own engine: perf's inherited counters) */
	bool p_tree;
	const struct targets *tg;	/* -p's processes, -C's CPUs */
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
int row_set__build(const struct row_ctx *sc, const struct aggregate *a,
		   double dt, struct row_set *rs);
void row_set__exit(struct row_set *rs);
/*
 * --top n: of each of emon-perf's own scopes (SCOPES_OWN: cgroup,
 * container, pod, namespace, process), only the n rows with the most of
 * event sort_idx (the first counted one), the most first; the other rows
 * as they were. n <= 0: all. Returns how many rows it left out.
 */
int row_set__top(struct row_set *rs, int sort_idx, int n);
/* For the builder (row_build.c) and its parts, in row_set.c: a row (NULL:
 * no memory), its energy. */
struct row *row_set__add(struct row_set *rs, enum scope s, const char *key);
void row_set__energy(const struct row_ctx *sc, const struct aggregate *a,
		     struct row *r, double joules, double dt);
/* A key for a row, kept in rs until the next build. */
const char *row_set__key(struct row_set *rs, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* perf --per-thread's rows: a row per thread of the targets (-p, -t;
 * every thread that ran without either), and the overflow's
 * (rows_thread.c). */
int row_set__threads(const struct row_ctx *sc, const struct aggregate *a,
		     struct row_set *rs);
/* -t without --per-thread: its threads' sum, the row perf -t prints. */
int row_set__tid_sum(const struct row_ctx *sc, const struct aggregate *a,
		     struct row_set *rs);
/* The GPUs' part of each row that has one, from its counts.gpu and the
 * interval's GPUs (rows_gpu.c): after the rows are built. */
void row_set__gpu(const struct aggregate *a, double dt, struct row_set *rs);
/* Pod and namespace rows, as --by asks (rows_pod.c). */
int row_set__pods(const struct row_ctx *sc, const struct aggregate *a,
		  double dt, struct row_set *rs);

#endif
