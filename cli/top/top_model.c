// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf top's tables (cli/top/top_model.h): the derived columns of each
 * row, the cgroup tree with its subtree sums, and their order. Pure.
 *
 * The idle task is left out of every view, as top leaves it out: its
 * cpu-clock is the CPUs' idle time, which would make "/" (or "host") the
 * busiest row of any quiet host. The header shows it on its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/array.h"
#include "front/output.h"
#include "cli/top/top_model.h"
#include "engine/aggregate.h"

#define IDLE_KEY "0"	/* the idle task's process row (front/row_build.c) */

const char *top_col__title(enum top_col c)
{
	static const char *const t[TOP_COL_NR] = {
		[TOP_COL_NAME] = "NAME",	[TOP_COL_POWER] = "POWER W",
		[TOP_COL_SHARE] = "PKG%",	[TOP_COL_CPU] = "CPU%",
		[TOP_COL_CYCLES] = "CYCLES/s",	[TOP_COL_INS] = "INSNS/s",
		[TOP_COL_IPC] = "IPC",		[TOP_COL_EPI] = "nJ/INSN",
		[TOP_COL_WAIT] = "WAIT%",	[TOP_COL_BLK] = "BLK%",
		[TOP_COL_MIGR] = "MIGR/s",
	};

	return c < TOP_COL_NR ? t[c] : "?";
}

const char *top_view__name(enum top_view v)
{
	static const char *const n[TOP_VIEW_NR] = {
		"containers", "cgroups", "processes", "pods", "namespaces",
	};

	return v < TOP_VIEW_NR ? n[v] : "?";
}

int top_table__cols(const struct top_table *t)
{
	return t->sched ? TOP_COL_NR : TOP_COL_NR_PLAIN;
}

/* 1234567 -> "1.23M": rates of billions fit a column; below 1000 with
 * prec decimals. */
static void format_rate(double v, int prec, char *buf, size_t len)
{
	static const char units[] = " kMGTP";
	int u = 0;

	while (fabs(v) >= 1000 && u < 5) {
		v /= 1000;
		u++;
	}
	if (u)
		snprintf(buf, len, "%.2f%c", v, units[u]);
	else
		snprintf(buf, len, "%.*f", prec, v);
}

void top_cell__format(enum top_col c, double v, char *buf, size_t len)
{
	if (isnan(v) || c == TOP_COL_NAME) {
		snprintf(buf, len, "-");
		return;
	}
	switch (c) {
	case TOP_COL_CYCLES:
	case TOP_COL_INS:
		format_rate(v, 0, buf, len);
		break;
	case TOP_COL_MIGR:	/* a few a second as often as not */
		format_rate(v, 1, buf, len);
		break;
	case TOP_COL_SHARE:
	case TOP_COL_CPU:
	case TOP_COL_WAIT:
	case TOP_COL_BLK:
		snprintf(buf, len, "%.1f", v);
		break;
	default:
		snprintf(buf, len, "%.2f", v);
		break;
	}
}

/* Event i's scaled value in r, NAN when it cannot be counted. */
static double value_of(const struct output *o, const struct row *r, int i)
{
	struct row_value v;

	if (i < 0)
		return NAN;
	row__value(o, r, i, &v);
	return v.value;
}

static void row__columns(const struct top_input *in, double total_j,
			 const struct row *r, double *v)
{
	const struct output *o = in->o;
	struct row_metrics m;
	double dt = in->dt > 0 ? in->dt : NAN;

	row__metrics(o, r, &m);
	v[TOP_COL_NAME] = NAN;
	v[TOP_COL_POWER] = r->has_energy ? r->power_w : NAN;
	v[TOP_COL_SHARE] = r->has_energy && total_j > 0 ?
			   r->energy_j / total_j * 100 : NAN;
	v[TOP_COL_CPU] = value_of(o, r, output__time_index(o)) / (dt * 1e9) * 100;
	v[TOP_COL_CYCLES] = value_of(o, r, output__cycles_index(o)) / dt;
	v[TOP_COL_INS] = value_of(o, r, output__instructions_index(o)) / dt;
	v[TOP_COL_IPC] = m.ipc;
	v[TOP_COL_EPI] = m.epi_nj;
	/* run-queue wait and blocked time as CPU% is cpu-clock: 100 = one
	 * task all the time (run_delay counts a wait when it ends, at its
	 * switch-in; a sleep is timed to its wakeup) */
	v[TOP_COL_WAIT] = o->sched ? r->counts.s.runq_wait_ns / (dt * 1e9) * 100 : NAN;
	v[TOP_COL_BLK] = o->sched ? r->counts.s.blocked_ns / (dt * 1e9) * 100 : NAN;
	v[TOP_COL_MIGR] = o->sched ? r->counts.s.migrations / dt : NAN;
}

/*
 * The events a row's counts may hold: with --sched, the scheduler view
 * shares their block (engine/counts.h), past the events it allows.
 */
static int row__nr(const struct output *o)
{
	return o->sched ? COUNTS_MAX_EVENTS_SCHED : EMON_MAX_EVENTS;
}

/* a -= b, no field below 0 (b is a part of a: the idle task of "/"). */
static void row__sub(const struct output *o, struct row *a, const struct row *b,
		     double dt)
{
	for (int i = 0; i < row__nr(o); i++) {
		struct emon_count *x = &a->counts.c[i];
		const struct emon_count *y = &b->counts.c[i];

		x->counter = x->counter > y->counter ? x->counter - y->counter : 0;
		x->enabled = x->enabled > y->enabled ? x->enabled - y->enabled : 0;
		x->running = x->running > y->running ? x->running - y->running : 0;
		x->unrun = x->unrun > y->unrun ? x->unrun - y->unrun : 0;
	}
	if (o->sched)
		sched__sub(&a->counts.s, &b->counts.s);
	if (a->has_energy && b->has_energy) {
		a->energy_j = fmax(a->energy_j - b->energy_j, 0);
		a->power_w = dt > 0 ? a->energy_j / dt : NAN;
	}
}

/* a += b: a cgroup's subtree, the scheduler view's too. NAN energy (no
 * valid reading) stays NAN. */
static void row__add(const struct output *o, struct row *a, const struct row *b,
		     double dt)
{
	counts__add(&a->counts, &b->counts, row__nr(o));
	if (a->has_energy && b->has_energy) {
		a->energy_j += b->energy_j;
		a->power_w = dt > 0 ? a->energy_j / dt : NAN;
	}
}

static const struct row *find_row(const struct top_input *in, enum scope s,
				   const char *key)
{
	for (int i = 0; i < in->nr; i++)
		if (in->rows[i].scope == s && (!key || !strcmp(in->rows[i].key, key)))
			return &in->rows[i];
	return NULL;
}

static void top_table__reset(struct top_table *t)
{
	for (int i = 0; i < t->nr; i++) {
		free(t->rows[i].key);
		free(t->rows[i].name);
	}
	t->nr = 0;
	t->nr_shown = 0;
}

void top_table__exit(struct top_table *t)
{
	top_table__reset(t);
	free(t->rows);
	free(t->shown);
	memset(t, 0, sizeof(*t));
}

static struct top_row *top_table__add(struct top_table *t, const char *key,
				      const char *name)
{
	struct top_row *r;

	if (array__grow(&t->rows, &t->cap, t->nr + 1, sizeof(*r)) ||
	    array__grow(&t->shown, &t->cap_shown, t->nr + 1, sizeof(*t->shown)))
		return NULL;
	r = &t->rows[t->nr];
	memset(r, 0, sizeof(*r));
	r->parent = -1;
	r->key = strdup(key);
	r->name = strdup(name);
	if (!r->key || !r->name) {
		free(r->key);
		free(r->name);
		return NULL;
	}
	t->nr++;
	return r;
}

/* What is in no container or no pod (ROW_KEY_HOST): the idle task's
 * share of it is left out as it is of "/". */
static bool is_rest(enum scope s, const char *key)
{
	return (s == SCOPE_CONTAINER || s == SCOPE_POD || s == SCOPE_NAMESPACE) &&
	       !strcmp(key, ROW_KEY_HOST);
}

/* Containers, processes, pods and namespaces: one table row per input row
 * of scope s. A pod's key is namespace/pod (its uid while no container of
 * it has names), a namespace's its name: the filter matches both. */
static int build_flat(struct top_table *t, const struct top_input *in,
		      enum scope s, const struct row *idle)
{
	for (int i = 0; i < in->nr; i++) {
		const struct row *in_r = &in->rows[i];
		bool host = is_rest(s, in_r->key);
		char name[1040], label[1024];
		const char *lb;
		struct top_row *r;

		if (in_r->scope != s || (s == SCOPE_PROCESS && !strcmp(in_r->key, IDLE_KEY)))
			continue;
		/* docker's short form: the id's first 12 digits, then its
		 * names (namespace/pod/container, else the runtime's), which
		 * the filter matches too: "prod/" keeps a namespace */
		lb = row__cont_label(in_r, label, sizeof(label));
		snprintf(name, sizeof(name), "%.12s%s%s", in_r->key,
			 lb ? " " : "", lb ? lb : "");
		r = top_table__add(t, in_r->key, s == SCOPE_PROCESS ? in_r->comm :
				   host || s != SCOPE_CONTAINER ? in_r->key : name);
		if (!r)
			return -ENOMEM;
		r->note = s == SCOPE_CONTAINER ? in_r->runtime : NULL;
		r->sum = *in_r;
		if (host && idle)
			row__sub(in->o, &r->sum, idle, in->dt);
	}
	return 0;
}

struct node {
	const char *path;
	const struct row *own;	/* NULL: an ancestor with no counts of its own */
};

static int node__cmp(const void *a, const void *b)
{
	return strcmp(((const struct node *)a)->path, ((const struct node *)b)->path);
}

/* Every cgroup row and every ancestor of one, sorted by path (a parent
 * before its children), each path once. NULL on ENOMEM. */
static struct node *cgroup_nodes(const struct top_input *in, char **buf, int *nr)
{
	size_t len = 0, n = 0, cap = 0, used = 0;
	struct node *nodes;
	char *p;

	for (int i = 0; i < in->nr; i++)
		if (in->rows[i].scope == SCOPE_CGROUP && in->rows[i].key[0] == '/') {
			size_t d = 0;

			for (const char *c = in->rows[i].key; *c; c++)
				d += *c == '/';
			/* d ancestors, none longer than the path */
			len += (strlen(in->rows[i].key) + 1) * d;
			cap += d + 1;
		}
	nodes = calloc(cap + 1, sizeof(*nodes));
	*buf = p = malloc(len + 1);
	if (!nodes || !p) {
		free(nodes);
		free(p);
		return NULL;
	}
	for (int i = 0; i < in->nr; i++) {
		const char *key = in->rows[i].key;

		if (in->rows[i].scope != SCOPE_CGROUP || key[0] != '/')
			continue;
		nodes[n++] = (struct node){ key, &in->rows[i] };
		/* its ancestors, "/" last: copies cut at each '/' */
		for (const char *c = strrchr(key, '/'); c; ) {
			size_t l = c == key ? 1 : (size_t)(c - key);

			memcpy(p + used, key, l);
			p[used + l] = '\0';
			nodes[n++] = (struct node){ p + used, NULL };
			used += l + 1;
			if (c == key)
				break;
			while (--c > key && *c != '/')
				;
		}
	}
	qsort(nodes, n, sizeof(*nodes), node__cmp);
	/* merge duplicates: the one with counts wins */
	len = 0;
	for (size_t i = 0; i < n; i++) {
		if (len && !strcmp(nodes[len - 1].path, nodes[i].path)) {
			if (nodes[i].own)
				nodes[len - 1].own = nodes[i].own;
			continue;
		}
		nodes[len++] = nodes[i];
	}
	*nr = len;
	return nodes;
}

static int parent_of(const struct node *nodes, int nr, const char *path)
{
	const char *slash = strrchr(path, '/');
	char parent[4096];
	struct node key = { parent, NULL };
	struct node *found;
	size_t l;

	if (!slash || !strcmp(path, "/"))
		return -1;
	l = slash == path ? 1 : (size_t)(slash - path);
	if (l >= sizeof(parent))
		return -1;
	memcpy(parent, path, l);
	parent[l] = '\0';
	found = bsearch(&key, nodes, nr, sizeof(*nodes), node__cmp);
	return found ? (int)(found - nodes) : -1;
}

/* The cgroup tree: each row holds its subtree's sums ("/" less idle). */
static int build_tree(struct top_table *t, const struct top_input *in,
		      const struct row *idle, bool has_energy)
{
	const struct row *ovf = find_row(in, SCOPE_CGROUP, "overflow");
	char *buf = NULL;
	int nr = 0, err = 0;
	struct node *nodes = cgroup_nodes(in, &buf, &nr);

	if (!nodes)
		return -ENOMEM;
	for (int i = 0; i < nr; i++) {
		const char *slash = strrchr(nodes[i].path, '/');
		struct top_row *r = top_table__add(t, nodes[i].path,
						   slash[1] ? slash + 1 : "/");

		if (!r) {
			err = -ENOMEM;
			goto out;
		}
		r->parent = parent_of(nodes, nr, nodes[i].path);
		r->depth = r->parent < 0 ? 0 : t->rows[r->parent].depth + 1;
		if (r->parent >= 0)
			t->rows[r->parent].nr_children++;
		if (nodes[i].own)
			r->sum = *nodes[i].own;
		r->sum.scope = SCOPE_CGROUP;
		r->sum.has_energy = has_energy;
		if (!strcmp(nodes[i].path, "/") && idle)
			row__sub(in->o, &r->sum, idle, in->dt);
	}
	/* children come after their parent: add them up from the end */
	for (int i = t->nr - 1; i >= 0; i--)
		if (t->rows[i].parent >= 0)
			row__add(in->o, &t->rows[t->rows[i].parent].sum, &t->rows[i].sum, in->dt);
	if (ovf) {
		struct top_row *r = top_table__add(t, "overflow", "[overflow]");

		if (!r)
			err = -ENOMEM;
		else
			r->sum = *ovf;
	}
out:
	free(nodes);
	free(buf);
	return err;
}

enum scope top_view__scope(enum top_view v)
{
	static const enum scope view_scope[TOP_VIEW_NR] = {
		[TOP_VIEW_CONTAINERS] = SCOPE_CONTAINER,
		[TOP_VIEW_CGROUPS] = SCOPE_CGROUP,
		[TOP_VIEW_PROCESSES] = SCOPE_PROCESS,
		[TOP_VIEW_PODS] = SCOPE_POD,
		[TOP_VIEW_NAMESPACES] = SCOPE_NAMESPACE,
	};

	return view_scope[v];
}

int top_table__build(struct top_table *t, enum top_view v,
		     const struct top_input *in)
{
	const struct row *sys = find_row(in, SCOPE_SYSTEM, NULL);
	const struct row *idle = find_row(in, SCOPE_PROCESS, IDLE_KEY);
	double total_j = sys && sys->has_energy ? sys->energy_j : NAN;
	int err;

	top_table__reset(t);
	t->view = v;
	t->sched = in->o->sched;
	if (v == TOP_VIEW_CGROUPS)
		err = build_tree(t, in, idle, sys && sys->has_energy);
	else
		err = build_flat(t, in, top_view__scope(v), idle);
	for (int i = 0; i < t->nr; i++)
		row__columns(in, total_j, &t->rows[i].sum, t->rows[i].v);
	return err;
}

/* --gpu: the system row's GPUs, as watts over the interval. */
static void top_summary__gpus(struct top_summary *sum, const struct row *sys, double dt)
{
	double idle = 0;

	sum->has_gpu = sys && sys->has_gpu;
	sum->gpu_w = sum->gpu_idle_w = NAN;
	if (!sum->has_gpu || isnan(sys->gpu_energy_j) || !(dt > 0))
		return;
	for (int i = 0; i < sys->nr_gpus; i++)
		if (sys->gpus[i].valid)
			idle += sys->gpus[i].idle_j;
	sum->gpu_w = sys->gpu_energy_j / dt;
	sum->gpu_idle_w = idle / dt;
}

void top_summary__build(struct top_summary *sum, const struct top_input *in)
{
	const struct row *sys = find_row(in, SCOPE_SYSTEM, NULL);
	const struct row *idle = find_row(in, SCOPE_PROCESS, IDLE_KEY);
	int ti = output__time_index(in->o);
	double ns = in->dt * 1e9;

	memset(sum, 0, sizeof(*sum));
	sum->ncpus = in->o->ncpus;
	sum->busy_pct = sum->idle_pct = sum->power_w = sum->idle_power_w = NAN;
	if (sys && ti >= 0 && ns > 0) {
		double all = value_of(in->o, sys, ti);
		double id = idle ? value_of(in->o, idle, ti) : 0;

		sum->idle_pct = id / ns * 100;
		sum->busy_pct = fmax(all - id, 0) / ns * 100;
	}
	top_summary__gpus(sum, sys, in->dt);
	sum->has_energy = sys && sys->has_energy;
	if (!sum->has_energy)
		return;
	sum->power_w = sys->power_w;
	if (idle && idle->has_energy)
		sum->idle_power_w = idle->power_w;
	for (int i = 0; i < in->nr && sum->npkg < TOP_MAX_PKG; i++) {
		if (in->rows[i].scope != SCOPE_SOCKET)
			continue;
		sum->pkg_key[sum->npkg] = in->rows[i].key;
		sum->pkg_power_w[sum->npkg++] = in->rows[i].power_w;
	}
}
