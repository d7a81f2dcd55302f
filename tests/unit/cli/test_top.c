// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf top's model (cli/top/top_model.h), no terminal: columns from rows
 * (the scheduler view's with --sched), the cgroup tree's subtree sums (the
 * idle task left out of "/"), '-' for what cannot be counted, sorting,
 * filtering, folding, the selection.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/top/top_model.h"
#include "helpers.h"

#define MAXR 32

enum { EV_CLOCK, EV_CYCLES, EV_INS };

struct fixture {
	struct output o;
	struct row rows[MAXR];
	int nr;
	struct top_input in;
	struct top_table t;
	struct top_state s;
};

/* cpu-clock counted; cycles and instructions only when hw (a PMU). */
static void fixture__init(struct fixture *f, bool hw)
{
	memset(f, 0, sizeof(*f));
	f->o.ncpus = 4;
	f->o.nr_events = 3;
	f->o.ev[EV_CLOCK] = (struct row_event){ "cpu-clock", true, true, 0 };
	f->o.ev[EV_CYCLES] = (struct row_event){ "cycles", hw, false, hw ? 1 : -1 };
	f->o.ev[EV_INS] = (struct row_event){ "instructions", hw, false, hw ? 2 : -1 };
	f->in = (struct top_input){ &f->o, f->rows, 0, 2.0 };
	top_state__init(&f->s);
}

static void fixture__exit(struct fixture *f)
{
	top_table__exit(&f->t);
	top_state__exit(&f->s);
}

/* A row of cpu-clock ns, cycles, instructions and joules (< 0: none). */
static struct row *add(struct fixture *f, enum scope s, const char *key,
		       double clock_s, __u64 cyc, __u64 ins, double joules)
{
	struct row *r = &f->rows[f->nr++];
	__u64 ns = clock_s * SEC;

	memset(r, 0, sizeof(*r));
	r->scope = s;
	r->key = key;
	r->comm = s == SCOPE_PROCESS ? key : NULL;
	r->counts.c[0] = (struct emon_count){ ns, ns, ns };
	r->counts.c[1] = (struct emon_count){ cyc, ns, ns };
	r->counts.c[2] = (struct emon_count){ ins, ns, ns };
	if (joules >= 0) {
		r->has_energy = true;
		r->energy_j = joules;
		r->power_w = joules / f->in.dt;
	}
	f->in.nr = f->nr;
	return r;
}

static const struct top_row *row_of(const struct top_table *t, const char *key)
{
	for (int i = 0; i < t->nr; i++)
		if (!strcmp(t->rows[i].key, key))
			return &t->rows[i];
	fail_msg("no row %s", key);
	return NULL;
}

/* The shown rows' keys, space-separated. */
static const char *shown(const struct top_table *t)
{
	static char buf[512];
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < t->nr_shown; i++)
		n += snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? " " : "",
			      t->rows[t->shown[i]].key);
	return buf;
}

/* Over 2 s: "/" ran 3 s itself, 1 s of it the idle task; /a 1 s,
 * /a/b/c 0.5 s (/a/b has no counts of its own), /z 0.2 s. */
static void add_cgroups(struct fixture *f, double j_root)
{
	double e = j_root;

	add(f, SCOPE_SYSTEM, "all", 4.7, 0, 0, e < 0 ? -1 : 20);
	add(f, SCOPE_CGROUP, "/", 3.0, 0, 0, e < 0 ? -1 : 12);
	add(f, SCOPE_CGROUP, "/a", 1.0, 0, 0, e < 0 ? -1 : 4);
	add(f, SCOPE_CGROUP, "/a/b/c", 0.5, 0, 0, e < 0 ? -1 : 3);
	add(f, SCOPE_CGROUP, "/z", 0.2, 0, 0, e < 0 ? -1 : 1);
	add(f, SCOPE_PROCESS, "0", 1.0, 0, 0, e < 0 ? -1 : 2);
}

static void test_tree_sums(void **state)
{
	struct fixture f;
	const struct top_row *r;

	(void)state;
	fixture__init(&f, false);
	add_cgroups(&f, 1);
	assert_int_equal(top_table__build(&f.t, TOP_VIEW_CGROUPS, &f.in), 0);
	assert_int_equal(f.t.nr, 5);	/* /a/b made for the tree */
	r = row_of(&f.t, "/");
	/* (3 - 1 idle) + 1 + 0.5 + 0.2 = 3.7 s in 2 s */
	assert_float_equal(r->v[TOP_COL_CPU], 185.0, 1e-9);
	assert_int_equal(r->depth, 0);
	assert_int_equal(r->nr_children, 2);
	/* energy: (12 - 2) + 4 + 3 + 1 = 18 J of 20, in 2 s */
	assert_float_equal(r->v[TOP_COL_POWER], 9.0, 1e-9);
	assert_float_equal(r->v[TOP_COL_SHARE], 90.0, 1e-9);
	r = row_of(&f.t, "/a");
	assert_float_equal(r->v[TOP_COL_CPU], 75.0, 1e-9);
	assert_float_equal(r->v[TOP_COL_SHARE], 35.0, 1e-9);
	r = row_of(&f.t, "/a/b");
	assert_string_equal(r->name, "b");
	assert_int_equal(r->depth, 2);
	assert_string_equal(f.t.rows[r->parent].key, "/a");
	assert_float_equal(r->v[TOP_COL_CPU], 25.0, 1e-9);
	assert_float_equal(r->v[TOP_COL_POWER], 1.5, 1e-9);
	r = row_of(&f.t, "/a/b/c");
	assert_int_equal(r->depth, 3);
	assert_int_equal(r->nr_children, 0);
	fixture__exit(&f);
}

/* No PMU, no energy: those columns are NAN and shown '-', never 0. */
static void test_not_countable(void **state)
{
	struct fixture f;
	const struct top_row *r;
	char buf[32];

	(void)state;
	fixture__init(&f, false);
	add_cgroups(&f, -1);
	assert_int_equal(top_table__build(&f.t, TOP_VIEW_CGROUPS, &f.in), 0);
	r = row_of(&f.t, "/a");
	for (int c = TOP_COL_POWER; c < TOP_COL_NR; c++) {
		if (c == TOP_COL_CPU)
			continue;
		assert_true(isnan(r->v[c]));
		top_cell__format(c, r->v[c], buf, sizeof(buf));
		assert_string_equal(buf, "-");
	}
	top_cell__format(TOP_COL_CPU, r->v[TOP_COL_CPU], buf, sizeof(buf));
	assert_string_equal(buf, "75.0");
	fixture__exit(&f);
}

static void test_counters(void **state)
{
	struct fixture f;
	const struct top_row *r;
	char buf[32];

	(void)state;
	fixture__init(&f, true);
	add(&f, SCOPE_SYSTEM, "all", 2, 8000000000ULL, 4000000000ULL, 10);
	add(&f, SCOPE_PROCESS, "42", 1, 3000000000ULL, 6000000000ULL, 3);
	assert_int_equal(top_table__build(&f.t, TOP_VIEW_PROCESSES, &f.in), 0);
	r = row_of(&f.t, "42");
	assert_string_equal(r->name, "42");	/* the comm */
	assert_float_equal(r->v[TOP_COL_CPU], 50.0, 1e-9);
	assert_float_equal(r->v[TOP_COL_CYCLES], 1.5e9, 1e-3);
	assert_float_equal(r->v[TOP_COL_INS], 3e9, 1e-3);
	assert_float_equal(r->v[TOP_COL_IPC], 2.0, 1e-12);
	assert_float_equal(r->v[TOP_COL_EPI], 0.5, 1e-12);	/* 3 J / 6e9 */
	assert_float_equal(r->v[TOP_COL_SHARE], 30.0, 1e-9);
	top_cell__format(TOP_COL_CYCLES, r->v[TOP_COL_CYCLES], buf, sizeof(buf));
	assert_string_equal(buf, "1.50G");
	top_cell__format(TOP_COL_INS, 999, buf, sizeof(buf));
	assert_string_equal(buf, "999");
	fixture__exit(&f);
}

/* Containers: 12-digit names; "host" less the idle task. */
static void test_containers(void **state)
{
	static const char id[] = "3f2a4b5c6d7e8f9011223344556677889900aabbccddeeff0011223344556677";
	static const char id2[] = "4f2a4b5c6d7e8f9011223344556677889900aabbccddeeff0011223344556677";
	struct fixture f;
	const struct top_row *r;
	struct row *c;

	(void)state;
	fixture__init(&f, false);
	add(&f, SCOPE_SYSTEM, "all", 4, 0, 0, -1);
	c = add(&f, SCOPE_CONTAINER, id, 1.5, 0, 0, -1);
	c->runtime = "docker";
	/* with names: Kubernetes' after the id, which a filter matches */
	c = add(&f, SCOPE_CONTAINER, id2, 0, 0, 0, -1);
	c->runtime = "containerd";
	c->ns = "prod";
	c->pod = "shop-0";
	c->container = "web";
	add(&f, SCOPE_CONTAINER, "host", 2.5, 0, 0, -1)->runtime = "host";
	add(&f, SCOPE_PROCESS, "0", 2, 0, 0, -1);
	assert_int_equal(top_table__build(&f.t, TOP_VIEW_CONTAINERS, &f.in), 0);
	assert_int_equal(f.t.nr, 3);
	assert_string_equal(row_of(&f.t, id2)->name, "4f2a4b5c6d7e prod/shop-0/web");
	r = row_of(&f.t, id);
	assert_string_equal(r->name, "3f2a4b5c6d7e");
	assert_string_equal(r->note, "docker");
	assert_float_equal(r->v[TOP_COL_CPU], 75.0, 1e-9);
	assert_float_equal(row_of(&f.t, "host")->v[TOP_COL_CPU], 25.0, 1e-9);
	/* the idle task is no process row either */
	assert_int_equal(top_table__build(&f.t, TOP_VIEW_PROCESSES, &f.in), 0);
	assert_int_equal(f.t.nr, 0);
	fixture__exit(&f);
}

/* The scheduler view of r: run-queue wait and blocked time (s), migrations. */
static void sched_of(struct row *r, double wait_s, double blk_s, __u64 migr)
{
	r->counts.s.runq_wait_ns = wait_s * SEC;
	r->counts.s.blocked_ns = blk_s * SEC;
	r->counts.s.migrations = migr;
}

/* Four processes; with sched, each with a wait, a blocked time and
 * migrations of its own: each column sorts them in another order. */
static void procs(struct fixture *f, bool sched)
{
	static const struct {
		const char *pid, *comm;
		double cpu_s, wait_s, blk_s;
		__u64 migr;
	} p[] = {
		{ "10", "bash", 0.5, 0.2, 0.8, 1 },
		{ "11", "burn", 1.5, 1.0, 0.0, 3 },
		{ "12", "awk",  1.0, 0.6, 0.1, 0 },
		{ "13", "cc1",  1.0, 0.0, 0.4, 8 },
	};

	fixture__init(f, false);
	f->o.sched = sched;
	add(f, SCOPE_SYSTEM, "all", 4, 0, 0, -1);
	for (size_t i = 0; i < ARRAY_SIZE(p); i++) {
		struct row *r = add(f, SCOPE_PROCESS, p[i].pid, p[i].cpu_s, 0, 0, -1);

		r->comm = p[i].comm;
		if (sched)
			sched_of(r, p[i].wait_s, p[i].blk_s, p[i].migr);
	}
	assert_int_equal(top_table__build(&f->t, TOP_VIEW_PROCESSES, &f->in), 0);
}

static void key(struct fixture *f, int k)
{
	top_state__key(&f->s, &f->t, k, 10);
	assert_int_equal(top_table__arrange(&f->t, &f->s, 10), 0);
}

static void test_sort(void **state)
{
	struct fixture f;

	(void)state;
	procs(&f, false);
	f.s.view = TOP_VIEW_PROCESSES;
	assert_int_equal(top_table__arrange(&f.t, &f.s, 10), 0);
	/* CPU% biggest first; a tie by name */
	assert_string_equal(shown(&f.t), "11 12 13 10");
	key(&f, 'r');
	assert_string_equal(shown(&f.t), "10 12 13 11");
	key(&f, '1');	/* names, A to Z */
	assert_int_equal(f.s.sort_col, TOP_COL_NAME);
	assert_string_equal(shown(&f.t), "12 10 11 13");
	key(&f, '1');	/* again: reversed */
	assert_string_equal(shown(&f.t), "13 11 10 12");
	key(&f, '>');	/* the next column, biggest first */
	assert_int_equal(f.s.sort_col, TOP_COL_POWER);
	assert_false(f.s.sort_asc);
	key(&f, '<');
	key(&f, '<');	/* wraps to the last column */
	assert_int_equal(f.s.sort_col, TOP_COL_EPI);
	/* all '-': by name */
	assert_string_equal(shown(&f.t), "12 10 11 13");
	fixture__exit(&f);
}

static void test_filter_and_selection(void **state)
{
	struct fixture f;

	(void)state;
	procs(&f, false);
	f.s.view = TOP_VIEW_PROCESSES;
	assert_int_equal(top_table__arrange(&f.t, &f.s, 10), 0);
	key(&f, TOP_KEY_DOWN);
	assert_string_equal(f.s.sel_key, "12");
	key(&f, '/');
	assert_true(f.s.editing);
	key(&f, 'B');	/* any case */
	assert_string_equal(shown(&f.t), "11 10");
	key(&f, 'u');
	assert_string_equal(shown(&f.t), "11");
	key(&f, TOP_KEY_BACKSPACE);
	key(&f, TOP_KEY_ENTER);
	assert_false(f.s.editing);
	assert_string_equal(f.s.filter, "B");
	/* 'q' while not typing quits; typed, it is part of the filter */
	assert_int_equal(top_state__key(&f.s, &f.t, 'q', 10), TOP_ACT_QUIT);
	key(&f, TOP_KEY_ESC);
	assert_string_equal(shown(&f.t), "11 12 13 10");
	/* the selection follows its row when the order changes */
	key(&f, TOP_KEY_END);
	assert_string_equal(f.s.sel_key, "10");
	key(&f, 'r');
	assert_int_equal(f.s.sel, 0);
	assert_string_equal(f.s.sel_key, "10");
	/* scrolling keeps it on a screen of 2 rows */
	key(&f, TOP_KEY_END);
	assert_int_equal(top_table__arrange(&f.t, &f.s, 2), 0);
	assert_int_equal(f.s.first, 2);
	assert_int_equal(top_state__key(&f.s, &f.t, ' ', 10), TOP_ACT_PAUSE);
	assert_true(f.s.paused);
	/* keys that mean nothing change nothing */
	assert_int_equal(top_state__key(&f.s, &f.t, 'z', 10), TOP_ACT_NONE);
	assert_int_equal(top_state__key(&f.s, &f.t, '9', 10), TOP_ACT_NONE);
	assert_int_equal(top_state__key(&f.s, &f.t, '0', 10), TOP_ACT_NONE);
	assert_int_equal(top_state__key(&f.s, &f.t, TOP_KEY_LEFT, 10), TOP_ACT_NONE);
	/* a filter: no control bytes, no longer than its buffer */
	key(&f, '/');
	assert_int_equal(top_state__key(&f.s, &f.t, 0x01, 10), TOP_ACT_NONE);
	for (int i = 0; i < 100; i++)
		top_state__key(&f.s, &f.t, 'x', 10);
	assert_int_equal(strlen(f.s.filter), sizeof(f.s.filter) - 1);
	key(&f, TOP_KEY_ENTER);
	assert_int_equal(f.t.nr_shown, 0);
	assert_null(f.s.sel_key);	/* nothing to select */
	fixture__exit(&f);
}

static void test_tree_fold_filter(void **state)
{
	struct fixture f;

	(void)state;
	fixture__init(&f, false);
	add_cgroups(&f, -1);
	assert_int_equal(top_table__build(&f.t, TOP_VIEW_CGROUPS, &f.in), 0);
	assert_int_equal(top_table__arrange(&f.t, &f.s, 10), 0);
	/* depth first, siblings by CPU% */
	assert_string_equal(shown(&f.t), "/ /a /a/b /a/b/c /z");
	key(&f, TOP_KEY_DOWN);
	key(&f, TOP_KEY_LEFT);	/* fold /a */
	assert_true(top_state__is_collapsed(&f.s, "/a"));
	assert_string_equal(shown(&f.t), "/ /a /z");
	key(&f, TOP_KEY_LEFT);	/* folded: up to its parent */
	assert_string_equal(f.s.sel_key, "/");
	key(&f, TOP_KEY_DOWN);
	key(&f, TOP_KEY_ENTER);	/* toggles: open again */
	assert_string_equal(shown(&f.t), "/ /a /a/b /a/b/c /z");
	key(&f, '1');	/* names: siblings A to Z */
	key(&f, 'r');
	assert_string_equal(shown(&f.t), "/ /z /a /a/b /a/b/c");
	/* a filter keeps the ancestors of what matches */
	key(&f, '/');
	key(&f, 'c');
	assert_string_equal(shown(&f.t), "/ /a /a/b /a/b/c");
	key(&f, TOP_KEY_ESC);
	/* a leaf does not fold */
	key(&f, TOP_KEY_END);
	assert_string_equal(f.s.sel_key, "/a/b/c");
	assert_int_equal(top_state__key(&f.s, &f.t, TOP_KEY_RIGHT, 10), TOP_ACT_NONE);
	/* views: the selection starts over */
	assert_int_equal(top_state__key(&f.s, &f.t, 'p', 10), TOP_ACT_REDRAW);
	assert_int_equal(f.s.view, TOP_VIEW_PROCESSES);
	assert_null(f.s.sel_key);
	fixture__exit(&f);
}

/* Pods and namespaces (stat's --by pod,namespace rows): one table row
 * each, named by its key ("namespace/pod", a namespace, a pod's uid);
 * "host" (in no pod: the containers' word) less the idle task as the
 * container "host" is; the filter keeps a namespace
 * with "prod/" in the pods view; keys P and N. */
static void test_pods(void **state)
{
	static const char uid[] = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
	struct fixture f;
	struct row *r;

	(void)state;
	fixture__init(&f, false);
	add(&f, SCOPE_SYSTEM, "all", 4, 0, 0, 20);
	r = add(&f, SCOPE_POD, "data/pg-0", 0.5, 0, 0, 2);
	r->ns = "data";
	r->pod = "pg-0";
	add(&f, SCOPE_POD, "prod/shop-0", 0.6, 0, 0, 3)->ns = "prod";
	add(&f, SCOPE_POD, "prod/shop-1", 0.3, 0, 0, 1)->ns = "prod";
	add(&f, SCOPE_POD, uid, 0.1, 0, 0, 1);
	add(&f, SCOPE_POD, "preprod/shop-0", 0.05, 0, 0, 1)->ns = "preprod";
	add(&f, SCOPE_POD, "host", 2.4, 0, 0, 13);
	add(&f, SCOPE_NAMESPACE, "data", 0.5, 0, 0, 2)->ns = "data";
	add(&f, SCOPE_NAMESPACE, "prod", 0.9, 0, 0, 4)->ns = "prod";
	add(&f, SCOPE_NAMESPACE, "preprod", 0.05, 0, 0, 1)->ns = "preprod";
	add(&f, SCOPE_NAMESPACE, "host", 2.5, 0, 0, 14);	/* and the uid's */
	add(&f, SCOPE_CONTAINER, "host", 4, 0, 0, 20)->runtime = "host";
	add(&f, SCOPE_PROCESS, "0", 2, 0, 0, 10);
	assert_int_equal(top_table__build(&f.t, TOP_VIEW_PODS, &f.in), 0);
	assert_int_equal(f.t.nr, 6);
	assert_string_equal(row_of(&f.t, "prod/shop-0")->name, "prod/shop-0");
	assert_string_equal(row_of(&f.t, uid)->name, uid);
	assert_null(row_of(&f.t, "prod/shop-0")->note);
	assert_float_equal(row_of(&f.t, "prod/shop-0")->v[TOP_COL_CPU], 30.0, 1e-9);
	assert_float_equal(row_of(&f.t, "prod/shop-0")->v[TOP_COL_POWER], 1.5, 1e-9);
	assert_float_equal(row_of(&f.t, "prod/shop-0")->v[TOP_COL_SHARE], 15.0, 1e-9);
	/* "host": 2.4 s less the idle task's 2 s, 13 J less its 10 J */
	assert_float_equal(row_of(&f.t, "host")->v[TOP_COL_CPU], 20.0, 1e-9);
	assert_float_equal(row_of(&f.t, "host")->v[TOP_COL_POWER], 1.5, 1e-9);
	f.s.view = TOP_VIEW_PODS;
	assert_int_equal(top_table__arrange(&f.t, &f.s, 10), 0);
	/* by CPU%: 30, 25, 20, 15, 5, 2.5 */
	assert_string_equal(shown(&f.t), "prod/shop-0 data/pg-0 host prod/shop-1 "
			    "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 preprod/shop-0");
	key(&f, '/');
	for (const char *c = "prod/"; *c; c++)
		key(&f, *c);
	key(&f, TOP_KEY_ENTER);
	/* a namespace, not a substring: preprod's pod is not prod's */
	assert_string_equal(shown(&f.t), "prod/shop-0 prod/shop-1");
	key(&f, TOP_KEY_ESC);

	assert_int_equal(top_table__build(&f.t, TOP_VIEW_NAMESPACES, &f.in), 0);
	assert_int_equal(f.t.nr, 4);
	assert_float_equal(row_of(&f.t, "prod")->v[TOP_COL_CPU], 45.0, 1e-9);
	assert_float_equal(row_of(&f.t, "data")->v[TOP_COL_CPU], 25.0, 1e-9);
	assert_float_equal(row_of(&f.t, "host")->v[TOP_COL_CPU], 25.0, 1e-9);
	/* "prod/" in the namespaces view: prod itself */
	f.s.view = TOP_VIEW_NAMESPACES;
	key(&f, '/');
	for (const char *c = "prod/"; *c; c++)
		key(&f, *c);
	key(&f, TOP_KEY_ENTER);
	assert_int_equal(top_table__arrange(&f.t, &f.s, 10), 0);
	assert_string_equal(shown(&f.t), "prod");
	key(&f, TOP_KEY_ESC);
	f.s.view = TOP_VIEW_PODS;
	assert_int_equal(top_state__key(&f.s, &f.t, 'N', 10), TOP_ACT_REDRAW);
	assert_int_equal(f.s.view, TOP_VIEW_NAMESPACES);
	assert_int_equal(top_state__key(&f.s, &f.t, 'P', 10), TOP_ACT_REDRAW);
	assert_int_equal(f.s.view, TOP_VIEW_PODS);
	assert_string_equal(top_view__name(TOP_VIEW_PODS), "pods");
	assert_string_equal(top_view__name(TOP_VIEW_NAMESPACES), "namespaces");
	fixture__exit(&f);
}

/*
 * --sched over 2 s: each row's run-queue wait, blocked time and
 * migrations, the idle task's (made up: the BPF side counts none for it)
 * left out of "/" and "host" (blocked time no lower than 0), the tree's
 * rows their subtree's sums.
 */
static const struct {
	enum scope scope;
	const char *key;
	double wait_s, blk_s;
	__u64 migr;
} sched_in[] = {
	{ SCOPE_PROCESS,   "0",      0.2, 0.4, 2 },	/* idle */
	{ SCOPE_CGROUP,    "/",      1.0, 0.1, 10 },
	{ SCOPE_CGROUP,    "/a",     0.5, 0.2, 3 },
	{ SCOPE_CGROUP,    "/a/b/c", 0.3, 0.6, 1 },
	{ SCOPE_CGROUP,    "/z",     0.1, 0.0, 0 },
	{ SCOPE_CONTAINER, "host",   1.6, 0.5, 9 },
	{ SCOPE_CONTAINER, "c0ffee", 0.3, 0.6, 1 },
	{ SCOPE_PROCESS,   "42",     1.5, 0.3, 7 },
};

static const struct {
	enum top_view view;
	const char *key;
	double wait, blk, migr;	/* WAIT%, BLK%, MIGR/s */
} sched_want[] = {
	/* (1.0 - 0.2 idle) + 0.5 + 0.3 + 0.1 s; (0.1 - 0.4: 0) + 0.2 + 0.6;
	 * (10 - 2) + 3 + 1 */
	{ TOP_VIEW_CGROUPS,    "/",      85.0, 40.0, 6.0 },
	{ TOP_VIEW_CGROUPS,    "/a",     40.0, 40.0, 2.0 },
	{ TOP_VIEW_CGROUPS,    "/a/b",   15.0, 30.0, 0.5 },	/* no counts of its own */
	{ TOP_VIEW_CGROUPS,    "/a/b/c", 15.0, 30.0, 0.5 },
	{ TOP_VIEW_CGROUPS,    "/z",      5.0,  0.0, 0.0 },
	{ TOP_VIEW_CONTAINERS, "host",   70.0,  5.0, 3.5 },
	{ TOP_VIEW_CONTAINERS, "c0ffee", 15.0, 30.0, 0.5 },
	{ TOP_VIEW_PROCESSES,  "42",     75.0, 15.0, 3.5 },
};

static void sched_rows(struct fixture *f)
{
	fixture__init(f, false);
	f->o.sched = true;
	add_cgroups(f, -1);
	add(f, SCOPE_CONTAINER, "host", 2.5, 0, 0, -1)->runtime = "host";
	add(f, SCOPE_CONTAINER, "c0ffee", 0.5, 0, 0, -1)->runtime = "docker";
	add(f, SCOPE_PROCESS, "42", 1, 0, 0, -1);
	for (size_t i = 0; i < ARRAY_SIZE(sched_in); i++)
		for (int k = 0; k < f->nr; k++)
			if (f->rows[k].scope == sched_in[i].scope &&
			    !strcmp(f->rows[k].key, sched_in[i].key))
				sched_of(&f->rows[k], sched_in[i].wait_s,
					 sched_in[i].blk_s, sched_in[i].migr);
}

static void test_sched_columns(void **state)
{
	struct fixture f;
	char buf[32];

	(void)state;
	sched_rows(&f);
	for (size_t i = 0; i < ARRAY_SIZE(sched_want); i++) {
		const struct top_row *r;

		assert_int_equal(top_table__build(&f.t, sched_want[i].view, &f.in), 0);
		assert_int_equal(top_table__cols(&f.t), TOP_COL_NR);
		r = row_of(&f.t, sched_want[i].key);
		print_message("%s: WAIT%% %g BLK%% %g MIGR/s %g\n", r->key,
			      r->v[TOP_COL_WAIT], r->v[TOP_COL_BLK], r->v[TOP_COL_MIGR]);
		assert_float_equal(r->v[TOP_COL_WAIT], sched_want[i].wait, 1e-9);
		assert_float_equal(r->v[TOP_COL_BLK], sched_want[i].blk, 1e-9);
		assert_float_equal(r->v[TOP_COL_MIGR], sched_want[i].migr, 1e-9);
	}
	/* the idle task is no process row with --sched either */
	assert_int_equal(top_table__build(&f.t, TOP_VIEW_PROCESSES, &f.in), 0);
	assert_int_equal(f.t.nr, 1);
	top_cell__format(TOP_COL_WAIT, 75.0, buf, sizeof(buf));
	assert_string_equal(buf, "75.0");
	top_cell__format(TOP_COL_BLK, 15.04, buf, sizeof(buf));
	assert_string_equal(buf, "15.0");
	top_cell__format(TOP_COL_MIGR, 3.5, buf, sizeof(buf));
	assert_string_equal(buf, "3.5");
	top_cell__format(TOP_COL_MIGR, 12345, buf, sizeof(buf));
	assert_string_equal(buf, "12.35k");
	fixture__exit(&f);
}

/* Without --sched the table has the plain columns only, whatever the
 * rows hold; with it, no interval to divide by is '-'. */
static void test_sched_off(void **state)
{
	struct top_table empty = { 0 };
	struct fixture f;
	const struct top_row *r;
	char buf[32];

	(void)state;
	assert_int_equal(top_table__cols(&empty), TOP_COL_NR_PLAIN);
	sched_rows(&f);
	f.o.sched = false;
	assert_int_equal(top_table__build(&f.t, TOP_VIEW_PROCESSES, &f.in), 0);
	assert_int_equal(top_table__cols(&f.t), TOP_COL_NR_PLAIN);
	r = row_of(&f.t, "42");
	assert_float_equal(r->v[TOP_COL_CPU], 50.0, 1e-9);
	for (int c = TOP_COL_NR_PLAIN; c < TOP_COL_NR; c++)
		assert_true(isnan(r->v[c]));
	f.o.sched = true;
	f.in.dt = 0;
	assert_int_equal(top_table__build(&f.t, TOP_VIEW_PROCESSES, &f.in), 0);
	r = row_of(&f.t, "42");
	for (int c = TOP_COL_NR_PLAIN; c < TOP_COL_NR; c++) {
		top_cell__format(c, r->v[c], buf, sizeof(buf));
		assert_string_equal(buf, "-");
	}
	fixture__exit(&f);
}

/* 9 and 0 (the 10th) sort by WAIT% and BLK%; < > reach every column,
 * MIGR/s the last one, around the ends. */
static void test_sched_sort(void **state)
{
	static const struct {
		int key;
		enum top_col col;
		const char *order;
	} steps[] = {
		{ '9', TOP_COL_WAIT, "11 12 10 13" },
		{ '0', TOP_COL_BLK,  "10 13 12 11" },
		{ '>', TOP_COL_MIGR, "13 11 10 12" },
		{ '>', TOP_COL_NAME, "12 10 11 13" },
		{ '<', TOP_COL_MIGR, "13 11 10 12" },
		{ '<', TOP_COL_BLK,  "10 13 12 11" },
		{ '0', TOP_COL_BLK,  "11 12 13 10" },	/* again: reversed */
	};
	struct fixture f;

	(void)state;
	procs(&f, true);
	f.s.view = TOP_VIEW_PROCESSES;
	for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
		key(&f, steps[i].key);
		assert_int_equal(f.s.sort_col, steps[i].col);
		assert_string_equal(shown(&f.t), steps[i].order);
	}
	fixture__exit(&f);
}

static void test_summary(void **state)
{
	struct fixture f;
	struct top_summary sum;

	(void)state;
	fixture__init(&f, false);
	add_cgroups(&f, 1);
	add(&f, SCOPE_SOCKET, "0", 2, 0, 0, 12);
	add(&f, SCOPE_SOCKET, "1", 2.7, 0, 0, 8);
	top_summary__build(&sum, &f.in);
	/* 4.7 s of 2 s: 1 s idle */
	assert_float_equal(sum.busy_pct, 185.0, 1e-9);
	assert_float_equal(sum.idle_pct, 50.0, 1e-9);
	assert_true(sum.has_energy);
	assert_float_equal(sum.power_w, 10.0, 1e-9);
	assert_float_equal(sum.idle_power_w, 1.0, 1e-9);
	assert_int_equal(sum.npkg, 2);
	assert_string_equal(sum.pkg_key[1], "1");
	assert_float_equal(sum.pkg_power_w[0], 6.0, 1e-9);
	fixture__exit(&f);
	/* no energy source: no figures */
	fixture__init(&f, false);
	add_cgroups(&f, -1);
	top_summary__build(&sum, &f.in);
	assert_false(sum.has_energy);
	assert_true(isnan(sum.power_w));
	assert_int_equal(sum.npkg, 0);
	fixture__exit(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_sums),
		cmocka_unit_test(test_not_countable),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_containers),
		cmocka_unit_test(test_pods),
		cmocka_unit_test(test_sort),
		cmocka_unit_test(test_filter_and_selection),
		cmocka_unit_test(test_tree_fold_filter),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_sched_columns),
		cmocka_unit_test(test_sched_off),
		cmocka_unit_test(test_sched_sort),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
