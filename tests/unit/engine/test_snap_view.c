// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What one client of the daemon may see (engine/snapshot/view.h,
 * docs/security.md): a snapshot encoded for an administrator, a tenant
 * (perf_event_paranoid > 0) and a tenant allowed CPU-wide counting,
 * decoded back: which cgroups and processes are in it, and whether the
 * system's numbers and the energy are.
 */
#include <stdlib.h>
#include <string.h>
#include "engine/snapshot/encode.h"
#include "engine/snapshot/snapshot.h"
#include "helpers.h"

static int cpu_pkg[2] = { 0, 0 };
static int pkg_id[1] = { 0 };
static const bool online[2] = { true, true };

#define TENANT 1000

/* cgroups 1 (root's), 2 (the tenant's), 3 (not named yet: no owner);
 * processes 10 (root's), 11 (the tenant's), 12 (root's, in tree 0) */
static void fill(struct aggregate *a)
{
	static const struct { __u64 id; bool proc; uid_t owner; bool owned; } e[] = {
		{ 1, false, 0, true }, { 2, false, TENANT, true }, { 3, false, 0, false },
		{ 10, true, 0, true }, { 11, true, TENANT, true }, { 12, true, 0, true },
	};

	assert_int_equal(aggregate__init(a, 2, 1, cpu_pkg, 1), 0);
	assert_int_equal(aggregate__init_trees(a, 1), 0);
	for (size_t i = 0; i < ARRAY_SIZE(e); i++) {
		struct agg_entry *x = aggregate__entry(a, e[i].proc ? &a->procs : &a->cgrps,
						       e[i].id, 0);

		assert_non_null(x);
		x->owner = e[i].owner;
		x->owned = e[i].owned;
		x->total.c[0] = (struct emon_count){ 100 + e[i].id, 1, 1 };
		x->energy_j = 2.5;
		x->name = e[i].proc ? NULL : "/c";
		x->trees = e[i].id == 12;
	}
	a->cpu[0].c[0] = (struct emon_count){ 777, 1, 1 };
	a->pkg_energy[0] = 42;
	a->ovf_proc->total.c[0] = (struct emon_count){ 5, 1, 1 };
}

static bool has(const struct snap_entry *e, size_t n, __u64 id)
{
	for (size_t i = 0; i < n; i++)
		if (e[i].id == id)
			return true;
	return false;
}

static void decode(const struct snap_src *src, const struct emon_snap_req *req,
		   int tree, struct snapshot *s)
{
	struct snap_meta m = { .ncpus = 2, .npkg = 1, .nr_events = 1,
			       .cpu_pkg = cpu_pkg, .pkg_id = pkg_id, .max_trees = 1 };
	size_t len;
	void *buf;

	strcpy(m.ev_name[0], "cpu-clock");
	assert_int_equal(snap_src__encode(src, req, tree, &buf, &len), 0);
	assert_int_equal(snapshot__decode(s, &m, buf, len), 0);
	free(buf);
}

static void test_views(void **state)
{
	static const struct {
		struct snap_view view;
		int tree;
		__u64 cgrps[4], procs[4];	/* 0-ended: what is in it */
		bool sys;			/* system, CPUs, energy */
	} cases[] = {
		{ { .all = true }, -1, { 1, 2, 3 }, { 10, 11, 12 }, true },
		{ { .uid = TENANT }, -1, { 2 }, { 11 }, false },
		{ { .uid = TENANT, .cpu_wide = true }, -1, { 1, 2, 3 }, { 11 }, true },
		/* its command's tree: root's process 12 in it too */
		{ { .uid = TENANT }, 0, { 2 }, { 11, 12 }, false },
	};
	struct emon_snap_req req = { .scopes = EMON_SNAP_CGROUPS | EMON_SNAP_PROCS };
	struct aggregate a;

	(void)state;
	fill(&a);
	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		struct snap_src src = { .agg = &a, .online = online, .ncpus = 2,
					.nr_events = 1, .view = &cases[k].view };
		struct snapshot s;
		size_t n = 0;

		decode(&src, &req, cases[k].tree, &s);
		for (; cases[k].cgrps[n]; n++)
			assert_true(has(s.cgrp, s.nr_cgrp, cases[k].cgrps[n]));
		assert_int_equal(s.nr_cgrp, n);
		for (n = 0; cases[k].procs[n]; n++)
			assert_true(has(s.proc, s.nr_proc, cases[k].procs[n]));
		assert_int_equal(s.nr_proc, n);
		assert_int_equal(s.cpu[0].c[0].counter, cases[k].sys ? 777 : 0);
		assert_true(s.pkg_energy[0] == (cases[k].sys ? 42 : 0));
		assert_int_equal(s.ovf_proc.c.c[0].counter, cases[k].sys ? 5 : 0);
		assert_true(s.proc[0].energy_j == (cases[k].sys ? 2.5 : 0));
		snapshot__free(&s);
	}
	aggregate__exit(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_views),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
