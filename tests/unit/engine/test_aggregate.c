// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Interval sums: per CPU, cgroup and process, split by package; and the
 * id map underneath. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/attribute.h"
#include "aggregate_want.h"

static void test_idmap(void **state)
{
	struct idmap m = {};
	static int vals[5000];
	struct idmap_slot *s;
	size_t it = 0, n = 0;

	(void)state;
	assert_null(idmap__get(&m, 1, 0));
	for (int i = 0; i < 5000; i++)
		assert_int_equal(idmap__put(&m, i * 7919ULL, i & 1, &vals[i]), 0);
	assert_int_equal(m.nr, 5000);
	for (int i = 0; i < 5000; i++) {
		assert_ptr_equal(idmap__get(&m, i * 7919ULL, i & 1), &vals[i]);
		assert_null(idmap__get(&m, i * 7919ULL, !(i & 1)));
	}
	/* deleting every other key keeps the rest reachable (backward shift) */
	for (int i = 0; i < 5000; i += 2)
		assert_ptr_equal(idmap__del(&m, i * 7919ULL, i & 1), &vals[i]);
	assert_null(idmap__del(&m, 0, 0));
	assert_int_equal(m.nr, 2500);
	for (int i = 0; i < 5000; i++)
		assert_ptr_equal(idmap__get(&m, i * 7919ULL, i & 1),
				 i & 1 ? &vals[i] : NULL);
	while ((s = idmap__next(&m, &it)))
		n++;
	assert_int_equal(n, 2500);
	/* replace */
	assert_int_equal(idmap__put(&m, 7919ULL, 1, &vals[0]), 0);
	assert_ptr_equal(idmap__get(&m, 7919ULL, 1), &vals[0]);
	assert_int_equal(m.nr, 2500);
	idmap__clear(&m, NULL);
	assert_int_equal(m.nr, 0);
	assert_null(idmap__get(&m, 7919ULL, 1));
}

static struct counts mk(__u64 v, int nr)
{
	struct counts c = {};

	for (int i = 0; i < nr; i++)
		c.c[i] = (struct emon_count){ v * (i + 1), v, v };
	return c;
}

/* Two packages: CPUs 0,1 on package 0, CPUs 2,3 on package 1. */
static void test_aggregate_split(void **state)
{
	static const int cpu_pkg[4] = { 0, 0, 1, 1 };
	struct sess_cgrp cg[] = {
		{ .cgid = 100, .cpu = 0, .c = mk(10, 2) },
		{ .cgid = 100, .cpu = 3, .c = mk(5, 2) },
		{ .cgid = 200, .cpu = 2, .c = mk(7, 2) },
	};
	struct sess_proc pr[] = {
		{ .tgid = 0, .cpu = 1, .comm = "swapper/1", .c = mk(3, 2) },
		{ .tgid = 42, .cpu = 0, .comm = "old", .c = mk(10, 2) },
		{ .tgid = 42, .cpu = 3, .comm = "new", .c = mk(5, 2) },
		{ .tgid = 43, .cpu = 2, .comm = "x", .c = mk(7, 2) },
	};
	struct counts cpu[4] = { mk(10, 2), mk(3, 2), mk(7, 2), mk(5, 2) };
	struct counts none[4] = {};
	struct session_read r = {
		.cpu = cpu, .ovf_cgrp = none, .ovf_proc = none,
		.cgrp = cg, .nr_cgrp = 3, .proc = pr, .nr_proc = 4,
		.stats = { [EMON_STAT_SWITCHES] = 9 },
	};
	struct agg_entry *e;
	struct aggregate a;
	struct counts sys;

	(void)state;
	assert_int_equal(aggregate__init(&a, 4, 2, cpu_pkg, 2), 0);
	assert_int_equal(aggregate__add(&a, &r), 0);
	assert_int_equal(aggregate__add(&a, &r), 0);	/* two reads, one print */
	assert_int_equal(a.reads, 2);
	assert_int_equal(a.stats[EMON_STAT_SWITCHES], 18);

	e = idmap__get(&a.cgrps, 100, 0);
	assert_non_null(e);
	assert_int_equal(e->total.c[0].counter, 2 * 15);
	assert_int_equal(e->total.c[1].counter, 2 * 30);

	e = idmap__get(&a.procs, 42, 0);
	assert_non_null(e);
	assert_string_equal(e->comm, "new");	/* the last seen */
	assert_int_equal(e->total.c[0].counter, 2 * 15);

	/* conservation: process rows and cgroup rows each sum to the system */
	aggregate__system(&a, &sys);
	assert_int_equal(sys.c[0].counter, 2 * 25);
	{
		__u64 sum = 0;
		struct idmap_slot *s;
		size_t it = 0;

		while ((s = idmap__next(&a.procs, &it)))
			sum += ((struct agg_entry *)s->val)->total.c[0].counter;
		assert_int_equal(sum, sys.c[0].counter);
	}

	aggregate__reset(&a);
	assert_int_equal(a.reads, 0);
	assert_null(idmap__get(&a.cgrps, 100, 0));
	assert_null(idmap__get(&a.procs, 42, 0));
	aggregate__system(&a, &sys);
	assert_true(counts__is_zero(&sys, 2));

	/* the next interval reuses the entries, which start from zero */
	assert_non_null(a.free_list);
	assert_int_equal(aggregate__add(&a, &r), 0);
	e = idmap__get(&a.procs, 42, 0);
	assert_non_null(e);
	assert_int_equal(e->total.c[0].counter, 15);
	assert_int_equal(e->energy_j, 0);
	e = idmap__get(&a.cgrps, 200, 0);
	assert_non_null(e);
	assert_int_equal(e->total.c[0].counter, 7);
	aggregate__exit(&a);
}

/* A pid reused within one interval: two processes, told apart by their
 * start; the command's tree counts only its own, a nested command's tree
 * (a second bit) only the processes in it. */
static void test_aggregate_pid_reuse(void **state)
{
	struct sess_proc pr[] = {
		{ .tgid = 7, .cpu = 0, .start = 111, .comm = "mine",
		  .trees = 1, .c = mk(10, 1) },
		{ .tgid = 7, .cpu = 0, .start = 222, .comm = "other", .c = mk(90, 1) },
		{ .tgid = 7, .cpu = 1, .start = 111, .comm = "mine2",
		  .trees = 3, .flags = EMON_PROC_EXEC, .c = mk(5, 1) },
		{ .tgid = 7, .cpu = 0, .start = 111, .comm = "mine3",
		  .trees = 1, .c = mk(1, 1) },
	};
	static const struct agg_want procs[] = {
		/* an exec's name wins over the others of the same read */
		{ 7, 111, 16, "mine2" },
		{ 7, 222, 90 },
	};
	struct counts cpu[2] = { mk(101, 1), mk(5, 1) };
	struct counts none[2] = {}, tree_none[4] = {};
	struct session_read r = {
		.cpu = cpu, .ovf_cgrp = none, .ovf_proc = none,
		.ovf_tree = tree_none, .ntrees = 2, .proc = pr, .nr_proc = 4,
	};
	struct aggregate a;

	(void)state;
	assert_int_equal(aggregate__init(&a, 2, 1, NULL, 1), 0);
	assert_int_equal(aggregate__init_trees(&a, 2), 0);
	assert_int_equal(aggregate__add(&a, &r), 0);
	assert_int_equal(a.procs.nr, 2);
	agg_want__check(&a.procs, procs, ARRAY_SIZE(procs));
	/* the command: its own process only; the nested one: its part */
	assert_int_equal(a.tree[0]->total.c[0].counter, 16);
	assert_int_equal(a.tree[1]->total.c[0].counter, 5);
	aggregate__exit(&a);
}

/*
 * Many rows (aggregate__add takes the processes' entries rows ahead of
 * adding to them): 500 processes, each a row on each of two CPUs, the
 * CPUs' rows far apart, over two reads; every process gets its own rows'
 * sum and its name, whatever the rows' order.
 */
static void test_aggregate_many(void **state)
{
	enum { NP = 500 };
	struct sess_proc *pr = calloc(2 * NP, sizeof(*pr));
	struct counts cpu[2] = {}, none[2] = {};
	struct session_read r = {
		.cpu = cpu, .ovf_cgrp = none, .ovf_proc = none,
		.proc = pr, .nr_proc = 2 * NP,
	};
	struct aggregate a;

	(void)state;
	assert_non_null(pr);
	for (int i = 0; i < 2 * NP; i++) {
		int k = i < NP ? i : 2 * NP - 1 - i;	/* the second CPU's backwards */

		pr[i] = (struct sess_proc){ .tgid = 1000 + k, .cpu = i >= NP,
					    .start = 7 * k, .c = mk(k + 1 + (i >= NP) * 10000, 1) };
		snprintf(pr[i].comm, sizeof(pr[i].comm), "p%d", k);
	}
	assert_int_equal(aggregate__init(&a, 2, 1, NULL, 1), 0);
	for (int read = 1; read <= 2; read++) {
		assert_int_equal(aggregate__add(&a, &r), 0);
		assert_int_equal(a.procs.nr, NP);
		for (int k = 0; k < NP; k++) {
			struct agg_entry *e = idmap__get(&a.procs, 1000 + k, 7 * k);
			char name[EMON_COMM_LEN];

			assert_non_null(e);
			assert_int_equal(e->total.c[0].counter,
					 (__u64)read * (2 * (k + 1) + 10000));
			snprintf(name, sizeof(name), "p%d", k);
			assert_string_equal(e->comm, name);
		}
	}
	aggregate__exit(&a);
	free(pr);
}

/* An out-of-range CPU (hot-added after start) counts rather than being
 * dropped. */
static void test_aggregate_unknown_cpu(void **state)
{
	static const int cpu_pkg[2] = { 0, 1 };
	struct sess_proc pr = { .tgid = 5, .cpu = 9, .c = mk(4, 1) };
	struct counts cpu[2] = {}, none[2] = {};
	struct session_read r = {
		.cpu = cpu, .ovf_cgrp = none, .ovf_proc = none,
		.proc = &pr, .nr_proc = 1,
	};
	struct agg_entry *e;
	struct aggregate a;

	(void)state;
	assert_int_equal(aggregate__init(&a, 2, 2, cpu_pkg, 1), 0);
	assert_int_equal(aggregate__add(&a, &r), 0);
	e = idmap__get(&a.procs, 5, 0);
	assert_non_null(e);
	assert_int_equal(e->total.c[0].counter, 4);
	aggregate__exit(&a);
}

static double entry_j(struct idmap *m, __u64 id)
{
	struct agg_entry *e = idmap__get(m, id, 0);

	return e ? e->energy_j : 0;
}

/*
 * Two packages, 10 J and 30 J. Package 0 (CPUs 0,1): cgroup 100 used 3
 * units, cgroup 200 1 unit. Package 1 (CPUs 2,3): nothing counted the
 * split metric, so its energy goes to the idle task (pid 0, the root
 * cgroup 1). Every partition adds up to the 40 J.
 */
static void test_energy_split(void **state)
{
	static const int cpu_pkg[4] = { 0, 0, 1, 1 };
	struct sess_cgrp cg[] = {
		{ .cgid = 100, .cpu = 0, .c = mk(3, 1) },
		{ .cgid = 200, .cpu = 1, .c = mk(1, 1) },
	};
	struct sess_proc pr[] = {
		{ .tgid = 7, .cpu = 0, .c = mk(3, 1) },
		{ .tgid = 8, .cpu = 1, .c = mk(1, 1) },
	};
	struct counts cpu[4] = { mk(3, 1), mk(1, 1), {}, {} }, none[4] = {};
	struct session_read r = {
		.cpu = cpu, .ovf_cgrp = none, .ovf_proc = none,
		.cgrp = cg, .nr_cgrp = 2, .proc = pr, .nr_proc = 2,
	};
	struct energy_sample es = { .nr_packages = 2 };
	struct attr_input in = { .es = &es, .split_idx = 0, .root_cgid = 1 };
	struct aggregate a;
	double sum;

	(void)state;
	es.pkg[0] = (struct energy_pkg_sample){ .valid = true, .joules = 10 };
	es.pkg[1] = (struct energy_pkg_sample){ .valid = true, .joules = 30 };
	assert_int_equal(aggregate__init(&a, 4, 2, cpu_pkg, 1), 0);
	assert_int_equal(aggregate__add(&a, &r), 0);
	assert_int_equal(aggregate__add_energy(&a, &r, &in), 0);

	assert_true(a.energy_valid);
	assert_float_equal(a.energy_total, 40, 1e-9);
	assert_float_equal(entry_j(&a.cgrps, 100), 7.5, 1e-9);
	assert_float_equal(entry_j(&a.cgrps, 200), 2.5, 1e-9);
	assert_float_equal(entry_j(&a.cgrps, 1), 30, 1e-9);
	assert_float_equal(entry_j(&a.procs, 7), 7.5, 1e-9);
	assert_float_equal(entry_j(&a.procs, 0), 30, 1e-9);
	/* CPU rows: by weight; a package where nothing counted shares alike */
	assert_float_equal(a.cpu_energy[0], 7.5, 1e-9);
	assert_float_equal(a.cpu_energy[2], 15, 1e-9);
	sum = 0;
	for (int cpu = 0; cpu < 4; cpu++)
		sum += a.cpu_energy[cpu];
	assert_float_equal(sum, 40, 1e-9);

	/* --idle-watts: 2 J per package first to the idle task; a package
	 * reading that failed adds nothing at all */
	aggregate__reset(&a);
	es.pkg[1].valid = false;
	in.static_j = 2;
	assert_int_equal(aggregate__add(&a, &r), 0);
	assert_int_equal(aggregate__add_energy(&a, &r, &in), 0);
	assert_float_equal(a.energy_total, 10, 1e-9);
	assert_float_equal(entry_j(&a.procs, 0), 2, 1e-9);
	assert_float_equal(entry_j(&a.procs, 7), 6, 1e-9);
	assert_float_equal(entry_j(&a.procs, 8), 2, 1e-9);

	/* the sample must match the packages */
	es.nr_packages = 3;
	assert_int_equal(aggregate__add_energy(&a, &r, &in), -EINVAL);
	aggregate__exit(&a);
}

/*
 * The scopes beside the packages'. Core: one 20 J package whose cores hold
 * 12 J (unit 0 = CPUs 0,1 6 J, unit 1 = CPU 2 4 J, unit 2 = CPU 3 2 J):
 * each core by what ran on it (nothing on CPU 3: the idle task), the 8 J
 * rest by the package. Platform: 12 J over every CPU of two packages,
 * which are given what their CPUs were.
 */
static void test_energy_scopes(void **state)
{
	static const int cpu_pkg[4] = { 0, 0, 0, 0 }, cpu_pkg2[4] = { 0, 0, 1, 1 };
	static const int cores[4] = { 0, 0, 1, 2 }, all[4] = { 0, 0, 0, 0 };
	struct sess_cgrp cg[] = {
		{ .cgid = 100, .cpu = 0, .c = mk(3, 1) },
		{ .cgid = 200, .cpu = 1, .c = mk(1, 1) },
		{ .cgid = 300, .cpu = 2, .c = mk(2, 1) },
	};
	struct counts cpu[4] = { mk(3, 1), mk(1, 1), mk(2, 1), {} }, none[4] = {};
	struct session_read r = {
		.cpu = cpu, .ovf_cgrp = none, .ovf_proc = none,
		.cgrp = cg, .nr_cgrp = 3,
	};
	static struct energy_sample es;
	struct attr_input in = { .es = &es, .split_idx = 0, .root_cgid = 1,
				 .unit_of_cpu = cores };
	struct aggregate a;
	double sum = 0;

	(void)state;
	memset(&es, 0, sizeof(es));
	es.nr_packages = 1;
	es.pkg[0] = (struct energy_pkg_sample){
		.valid = true, .joules = 20, .dom_mask = 1u << ENERGY_DOM_CORE,
		.dom_valid = 1u << ENERGY_DOM_CORE, .dom_j[ENERGY_DOM_CORE] = 12,
	};
	es.unit_scope = ENERGY_SCOPE_CORE;
	es.nr_units = 3;
	es.unit_valid[0] = es.unit_valid[1] = es.unit_valid[2] = true;
	es.unit_j[0] = 6;
	es.unit_j[1] = 4;
	es.unit_j[2] = 2;
	assert_int_equal(aggregate__init(&a, 4, 1, cpu_pkg, 1), 0);
	assert_int_equal(aggregate__add(&a, &r), 0);
	assert_int_equal(aggregate__add_energy(&a, &r, &in), 0);
	assert_float_equal(a.energy_total, 20, 1e-9);
	assert_float_equal(a.pkg_energy[0], 20, 1e-9);
	assert_float_equal(entry_j(&a.cgrps, 100), 4.5 + 4, 1e-9);
	assert_float_equal(entry_j(&a.cgrps, 200), 1.5 + 8.0 / 6, 1e-9);
	assert_float_equal(entry_j(&a.cgrps, 300), 4 + 16.0 / 6, 1e-9);
	assert_float_equal(entry_j(&a.cgrps, 1), 2, 1e-9);
	assert_float_equal(a.cpu_energy[0], 8.5, 1e-9);
	assert_float_equal(a.cpu_energy[3], 2, 1e-9);
	for (int c = 0; c < 4; c++)
		sum += a.cpu_energy[c];
	assert_float_equal(sum, 20, 1e-9);
	aggregate__exit(&a);

	memset(&es, 0, sizeof(es));
	es.nr_packages = 2;
	es.unit_scope = ENERGY_SCOPE_PLATFORM;
	es.nr_units = 1;
	es.unit_valid[0] = true;
	es.unit_j[0] = 12;
	in.unit_of_cpu = all;
	assert_int_equal(aggregate__init(&a, 4, 2, cpu_pkg2, 1), 0);
	assert_int_equal(aggregate__add(&a, &r), 0);
	assert_int_equal(aggregate__add_energy(&a, &r, &in), 0);
	assert_true(a.energy_valid);
	assert_float_equal(a.energy_total, 12, 1e-9);
	assert_float_equal(entry_j(&a.cgrps, 100), 6, 1e-9);
	assert_float_equal(entry_j(&a.cgrps, 200), 2, 1e-9);
	assert_float_equal(entry_j(&a.cgrps, 300), 4, 1e-9);
	assert_float_equal(a.pkg_energy[0], 8, 1e-9);
	assert_float_equal(a.pkg_energy[1], 4, 1e-9);
	aggregate__exit(&a);
}

/* sched_off (the engine's when --sched is off): the same sums, without
 * the scheduler view's words. */
static void test_aggregate_sched_off(void **state)
{
	struct sess_proc pr[] = {
		{ .tgid = 5, .cpu = 0, .start = 1 },
		{ .tgid = 5, .cpu = 1, .start = 1 },
	};
	struct counts cpu[2] = {}, none[2] = {};
	struct session_read r = {
		.cpu = cpu, .ovf_cgrp = none, .ovf_proc = none,
		.proc = pr, .nr_proc = 2,
	};
	static const int cpu_pkg[2];
	struct aggregate on, off;
	struct agg_entry *a, *b;

	(void)state;
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 3; k++)
			pr[i].c.c[k] = (struct emon_count){ 10 * (i + 1) + k, 7, 5, 1 };
	assert_int_equal(aggregate__init(&on, 2, 1, cpu_pkg, 3), 0);
	assert_int_equal(aggregate__init(&off, 2, 1, cpu_pkg, 3), 0);
	off.sched_off = true;
	for (int n = 0; n < 3; n++) {
		assert_int_equal(aggregate__add(&on, &r), 0);
		assert_int_equal(aggregate__add(&off, &r), 0);
	}
	a = idmap__get(&on.procs, 5, 1);
	b = idmap__get(&off.procs, 5, 1);
	assert_non_null(a);
	assert_non_null(b);
	assert_memory_equal(&a->total, &b->total, sizeof(a->total));
	assert_int_equal(b->total.c[2].counter, 3 * (12 + 22));
	aggregate__exit(&on);
	aggregate__exit(&off);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idmap),
		cmocka_unit_test(test_aggregate_split),
		cmocka_unit_test(test_aggregate_unknown_cpu),
		cmocka_unit_test(test_aggregate_pid_reuse),
		cmocka_unit_test(test_aggregate_many),
		cmocka_unit_test(test_aggregate_sched_off),
		cmocka_unit_test(test_energy_split),
		cmocka_unit_test(test_energy_scopes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
