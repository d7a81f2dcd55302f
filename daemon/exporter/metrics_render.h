/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the files of /metrics share, and no other file includes: a
 * render's state, the table of scopes, and the calls between them.
 *
 *   metrics.c         renders: events, the table's builds, folding, emits
 *   metrics_scope.c   the table; system, package and process rows
 *   metrics_fold.c    cgroup and container rows, the fold state
 *   metrics_family.c  the families a scope gives, and their series
 *   metrics_self.c    the daemon's own figures (metrics_family.c: the GPUs'
 *                     families too)
 *   metrics_buf.c     the text buffer
 */
#ifndef DAEMON_METRICS_RENDER_H
#define DAEMON_METRICS_RENDER_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include "daemon/exporter/metrics.h"
#include "daemon/exporter/metrics_buf.h"
#include "common/array.h"
#include "common/idmap.h"

/* Scopes in the order they are built and written. */
enum mscope_id {
	MS_SYSTEM,
	MS_PACKAGE,
	MS_CGROUP,
	MS_CONTAINER,	/* after MS_CGROUP: its cgroups' totals */
	MS_PROCESS,
	MS_GPU,		/* each GPU (--gpu): measured, idle, SM time, up */
	MS_SELF,	/* the daemon's own figures: no rows */
	MS_NR,
};

/* The families a scope gives, bit per set. */
enum mfam {
	MF_EVENTS = 1 << 0,	/* emon_<scope>_<event>_total, an event each */
	MF_ENERGY = 1 << 1,	/* emon_<scope>_energy_joules_total, attributed */
	MF_ZONES = 1 << 2,	/* with MF_ENERGY: measured, and per zone */
	MF_SCHED = 1 << 3,	/* --sched: its counters and histogram */
	MF_GPU = 1 << 4,	/* --gpu: emon_<scope>_gpu_energy_joules_total,
				 * emon_<scope>_gpu_sm_seconds_total */
};

#define MS_MAX_LABELS 9

struct render;

/* A scope: one entry of mscopes[]. */
struct mscope_def {
	const char *name;		/* emon_<name>_... */
	const char *const *lname;	/* label names */
	int nl;
	const char *what;		/* HELP: "per cgroup, ..." */
	unsigned int fams;		/* enum mfam */
	/* its rows (or figures) for this render: 0 or -ENOMEM */
	int (*build)(struct render *r);
	/* its families into r->b */
	void (*emit)(struct render *r, enum mscope_id id);
};

extern const struct mscope_def mscopes[MS_NR];

/* One row of a scope: its counts and label values. */
struct mrow {
	const struct counts *c;		/* raw sums */
	struct counts sum;		/* c's storage when entries add up */
	double energy_j;
	double key;			/* the sort event's value */
	const char *l[MS_MAX_LABELS];	/* label values, the scope's order */
	char num[24];			/* a numeric label's text */
	unsigned int mask;		/* events counted, bit per event */
	unsigned int nser;		/* series it gives */
	int pkg;			/* packages: dense index */
	size_t first, n;		/* cgroups: its entries in m->ents */
	bool folded;
};

/* A scope in one render. */
struct mscope {
	const struct mscope_def *def;
	const char *what;		/* def's, or what_buf */
	char what_buf[128];
	struct mrow *rows;
	size_t nr;
	size_t nfixed;			/* series besides its rows' */
	unsigned int mask;		/* events some row counted */
};

struct track;
struct cont;
struct proc_key;

struct metrics {
	struct metrics_opts o;
	struct idmap track;		/* cgroup id -> struct track */
	struct idmap conts;		/* container id -> struct cont */
	struct idmap seen;		/* scratch: pids shown */
	struct counts other_acc;	/* folded cgroups that left */
	double other_acc_j;
	__u64 folds;			/* cgroups ever folded */
	__u32 epoch;
	size_t series, folded, last_len;
	/* scratch, grown only */
	struct mrow *rows[MS_NR];
	size_t rows_cap[MS_NR];
	const struct snap_entry **ents;	/* cgroups sorted by path */
	bool *efold;			/* ents[i] is folded */
	size_t ents_cap, efold_cap;
	size_t *order;
	size_t order_cap;
	struct idmap_key *gone;
	size_t gone_cap;
	struct cont **contv;
	size_t contv_cap;
	struct proc_key *pk;
	size_t pk_cap;
};

struct mev {
	int i;				/* index of the snapshot's counts */
	const char *name;		/* the engine's name */
	char fam[SNAP_EVENT_NAME_LEN + 24];	/* "cpu_clock_seconds" */
	bool is_time;
};

struct render {
	struct metrics *m;
	const struct snap_meta *meta;
	const struct snapshot *s;
	const struct metrics_self *self;	/* may be NULL */
	bool om;
	int nev;
	struct mev ev[EMON_MAX_EVENTS];
	int key;			/* counts index of the sort event, -1 */
	struct mscope sc[MS_NR];
	struct counts other_live;	/* folded cgroups still there */
	double other_live_j;
	struct mrow *other;		/* NULL until a cgroup was folded */
	size_t total;			/* series */
	double cpu_s;			/* the daemon's, from /proc/self */
	__u64 rss;
	bool has_cpu, has_rss;
	bool has_threads;		/* emon_threads, emon_thread_slots */
	struct mbuf b;
};

static inline const char *entry__name(const struct snap_entry *e)
{
	return e->name ? e->name : "";
}

struct mrow *rows__get(struct render *r, enum mscope_id id, size_t n);
struct mrow *row__add(struct render *r, enum mscope_id id);
double row__key(const struct render *r, const struct counts *c);

/* metrics_fold.c */
int cgroups__build(struct render *r);
int containers__build(struct render *r);
/* The smallest cgroups into "other" until the series fit. */
int cgroups__fold(struct render *r);
void fold__free(struct metrics *m);

/* metrics_family.c */
void row__count(struct render *r, enum mscope_id id, struct mrow *w);
size_t rows__count(struct render *r);
void family__head(struct render *r, const char *name, const char *type,
		  const char *unit, const char *help);
void scope__emit(struct render *r, enum mscope_id id);


/* the GPU scope's rows (metrics_scope.c), its families and the GPU
 * families of a scope's rows (metrics_family.c) */
#define MF_GPU_SERIES 2
int gpus__build(struct render *r);
void gpus__emit(struct render *r, enum mscope_id id);
void gpu_fams__emit(struct render *r, enum mscope_id id);

/* metrics_self.c */
int self__build(struct render *r);
void self__emit(struct render *r, enum mscope_id id);

#endif
