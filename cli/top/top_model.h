/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * emon-perf top's tables, with no I/O and no curses: one interval's rows
 * (front/row_build.c, the same ones stat prints) become a table per view
 * (containers, cgroups as a tree with subtree sums, processes, pods and
 * namespaces, stat's --by pod,namespace rows) of derived
 * columns; the state the keys change (view, sort, filter, collapsed
 * cgroups, selection) orders and filters them. cli/top/top_draw.c only paints
 * what top_table__arrange leaves; unit tests drive all the rest.
 */
#ifndef CLI_TOP_MODEL_H
#define CLI_TOP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include "front/output.h"

enum top_view {
	TOP_VIEW_CONTAINERS,
	TOP_VIEW_CGROUPS,
	TOP_VIEW_PROCESSES,
	TOP_VIEW_PODS,		/* Kubernetes' pods: sums of their containers */
	TOP_VIEW_NAMESPACES,	/* and namespaces: sums of their pods */
	TOP_VIEW_NR,
};

enum top_col {
	TOP_COL_NAME,
	TOP_COL_POWER,		/* W */
	TOP_COL_SHARE,		/* % of the measured package energy */
	TOP_COL_CPU,		/* %, 100 = one CPU (cpu-clock or task-clock) */
	TOP_COL_CYCLES,		/* per second */
	TOP_COL_INS,		/* per second */
	TOP_COL_IPC,
	TOP_COL_EPI,		/* nJ per instruction */
	/* the scheduler view's (--sched), after the others and only with it */
	TOP_COL_WAIT,		/* %, run-queue wait: 100 = one task waiting throughout */
	TOP_COL_BLK,		/* %, off CPU blocked (D), the same scale */
	TOP_COL_MIGR,		/* migrations per second */
	TOP_COL_NR,
};
/* The columns without --sched. */
#define TOP_COL_NR_PLAIN TOP_COL_WAIT

struct top_row {
	char *key;		/* identity: container id, cgroup path, pid */
	char *name;		/* shown: container id, path's last part, comm,
				 * namespace/pod, namespace */
	const char *note;	/* container runtime; NULL */
	int parent;		/* cgroups: the parent's index, -1 at the top */
	int depth;		/* cgroups: 0 for "/" */
	int nr_children;
	double v[TOP_COL_NR];	/* NAN: cannot be counted here, shown '-' */
	struct row sum;		/* the counts behind v (a cgroup's subtree) */
};

struct top_table {
	enum top_view view;
	bool sched;		/* the scheduler view's columns too */
	struct top_row *rows;
	int nr;
	size_t cap;
	int *shown;		/* row indices to paint, in order */
	int nr_shown;
	size_t cap_shown;
};

/* Host-wide figures for the header. */
#define TOP_MAX_PKG 64
struct top_summary {
	double busy_pct;	/* CPU %, idle task left out; NAN: no time event */
	double idle_pct;	/* the idle task's */
	int ncpus;		/* online */
	bool has_energy;
	double power_w;		/* all packages; NAN: no valid reading */
	double idle_power_w;	/* attributed to the idle task */
	int npkg;
	const char *pkg_key[TOP_MAX_PKG];	/* physical package id */
	double pkg_power_w[TOP_MAX_PKG];
	/* --gpu: the GPUs' power, and its part no process's SM time took;
	 * NAN: no valid reading in the interval */
	bool has_gpu;
	double gpu_w, gpu_idle_w;
};

/* One interval: its rows (system, sockets, cgroups, containers,
 * processes), the events they hold, its length. */
struct top_input {
	const struct output *o;
	const struct row *rows;
	int nr;
	double dt;
};

/* The state the keys change; it outlives the tables. */
struct top_state {
	enum top_view view;
	enum top_col sort_col;
	bool sort_asc;
	bool paused;
	bool help;
	bool editing;		/* typing a filter after '/' */
	char filter[64];	/* substring of name or key, any case */
	char *sel_key;		/* the selected row's key, NULL: none */
	int sel;		/* its position in shown */
	int first;		/* the first shown row on screen */
	char **collapsed;	/* cgroup paths whose subtrees are hidden */
	int nr_collapsed;
	size_t cap_collapsed;
};

/* Keys, as the drawing side hands them over (printable ones as is). */
enum {
	TOP_KEY_UP = 0x1000,
	TOP_KEY_DOWN,
	TOP_KEY_PGUP,
	TOP_KEY_PGDN,
	TOP_KEY_HOME,
	TOP_KEY_END,
	TOP_KEY_LEFT,
	TOP_KEY_RIGHT,
	TOP_KEY_ENTER,
	TOP_KEY_BACKSPACE,
	TOP_KEY_ESC,
};

enum top_action {
	TOP_ACT_NONE,		/* nothing changed */
	TOP_ACT_REDRAW,		/* arrange again and paint */
	TOP_ACT_PAUSE,		/* paused toggled */
	TOP_ACT_QUIT,
};

void top_state__init(struct top_state *s);
void top_state__exit(struct top_state *s);
/* What key does to s; page: rows on one screen (for page keys). */
enum top_action top_state__key(struct top_state *s, const struct top_table *t,
			       int key, int page);
bool top_state__is_collapsed(const struct top_state *s, const char *key);

/* The table of view v from one interval (t reset first). 0 or -ENOMEM. */
int top_table__build(struct top_table *t, enum top_view v,
		     const struct top_input *in);
/* Filter, collapse and sort into t->shown; the selection follows its key
 * and scrolling keeps it within rows lines. 0 or -ENOMEM. */
int top_table__arrange(struct top_table *t, struct top_state *s, int rows);
void top_table__exit(struct top_table *t);

void top_summary__build(struct top_summary *sum, const struct top_input *in);

/* The columns t has: TOP_COL_NR with the scheduler view, else
 * TOP_COL_NR_PLAIN. */
int top_table__cols(const struct top_table *t);

/* Column titles, and a cell as shown ("-" for NAN), in buf. */
const char *top_col__title(enum top_col c);
const char *top_view__name(enum top_view v);
/* The scope whose rows a view shows (stat's --by name: scope_names[]). */
enum scope top_view__scope(enum top_view v);
void top_cell__format(enum top_col c, double v, char *buf, size_t len);

#endif
