// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Energy sources on fake sysfs trees (energy_tree.h): CPUs to packages,
 * choosing a source and its errors, the perf power PMU, the model.
 */
#include "energy_tree.h"

/* --- topology ------------------------------------------------------------- */

static void test_topology(void **state)
{
	struct tree *t = *state;
	struct cpu_topology topo;
	char err[256];

	/* sparse ids, an offline CPU (no topology dir), one garbage */
	put_cpu(t, 0, 3);
	put_cpu(t, 1, 0);
	put_cpu(t, 2, 3);
	mkdir_p(t->cpu);
	put("x\n", "%s/cpu4/topology/physical_package_id", t->cpu);
	put_cpu(t, 5, 0);
	assert_int_equal(cpu_topology__load(&topo, t->cpu, 7, err, sizeof(err)), 0);
	assert_int_equal(topo.nr_packages, 2);
	assert_int_equal(topo.pkg_id[0], 0);
	assert_int_equal(topo.pkg_id[1], 3);
	assert_int_equal(topo.pkg_of_cpu[0], 1);
	assert_int_equal(topo.pkg_of_cpu[1], 0);
	assert_int_equal(topo.pkg_of_cpu[2], 1);
	assert_int_equal(topo.pkg_of_cpu[3], -1);
	assert_int_equal(topo.pkg_of_cpu[4], -1);
	assert_int_equal(topo.pkg_of_cpu[5], 0);
	assert_int_equal(topo.pkg_of_cpu[6], -1);
	assert_int_equal(topo.nr_cpus[0], 2);
	assert_int_equal(topo.nr_cpus[1], 2);
	/* a package with no CPU goes in order, shifting those above it */
	assert_int_equal(cpu_topology__add_package(&topo, 1), 1);
	assert_int_equal(cpu_topology__add_package(&topo, 1), 1);
	assert_int_equal(topo.nr_packages, 3);
	assert_int_equal(topo.pkg_of_cpu[0], 2);
	assert_int_equal(topo.nr_cpus[1], 0);
	assert_int_equal(topo.nr_cpus[2], 2);
	assert_int_equal(cpu_topology__index(&topo, 7), -ENOENT);
	cpu_topology__free(&topo);

	assert_int_equal(cpu_topology__load(&topo, "/nonexistent", 4, err,
					    sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent"));
}

/* --- choosing a source ---------------------------------------------------- */

static void test_spec_errors(void **state)
{
	static const char *const bad[] = {
		"x", "model", "model:", "model:1", "model:a:b", "model:50:10",
		"model:-1:10", "model:1:2:3", "powercapx", "Powercap", "",
		"auto ", "perf:", "none:",
	};
	struct tree *t = *state;
	char err[256], want[64];
	size_t i;
	int e;

	put_cpu(t, 0, 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		e = 1;
		assert_null(open_tree(t, bad[i], 1, &e, err, sizeof(err)));
		if (e != -EINVAL)
			fail_msg("'%s': %d", bad[i], e);
		snprintf(want, sizeof(want), "bad --energy value '%s'", bad[i]);
		if (strncmp(err, want, strlen(want)))
			fail_msg("'%s': '%s'", bad[i], err);
	}
	e = 1;
	strcpy(err, "junk");
	assert_null(open_tree(t, "none", 1, &e, err, sizeof(err)));
	assert_int_equal(e, 0);
	assert_string_equal(err, "");
}

static void test_missing_sources(void **state)
{
	static const struct zone package = { "intel-rapl:1", "package-0", 5, 100 };
	struct tree *t = *state;
	char err[512];
	int e;

	fake__put(t, LOOK_ALIKES);

	e = 1;
	assert_null(open_tree(t, "powercap", 1, &e, err, sizeof(err)));
	assert_int_equal(e, -ENOENT);
	assert_true(!strncmp(err, "no RAPL powercap zones under ", 29));
	assert_non_null(strstr(err, t->pc));

	e = 1;
	assert_null(open_tree(t, "perf", 1, &e, err, sizeof(err)));
	assert_int_equal(e, -ENOENT);
	assert_non_null(strstr(err, "no perf power PMU at"));

	/* auto: no error, a reason naming both */
	e = 1;
	assert_null(open_tree(t, "auto", 1, &e, err, sizeof(err)));
	assert_int_equal(e, 0);
	assert_true(!strncmp(err, "no energy source: powercap: no RAPL", 35));
	assert_non_null(strstr(err, "; perf: no perf power PMU"));
	assert_null(strchr(err, '\n'));
	e = 1;
	assert_null(open_tree(t, NULL, 1, &e, err, sizeof(err)));
	assert_int_equal(e, 0);
	assert_true(!strncmp(err, "no energy source:", 17));

	/* explicit sources need the CPU topology too */
	put_zones(t, &package, 1);
	pathf(t->cpu, "%s/nonexistent", t->root);
	e = 1;
	assert_null(open_tree(t, "powercap", 1, &e, err, sizeof(err)));
	assert_int_equal(e, -ENOENT);
	assert_non_null(strstr(err, "no CPU topology"));
}

/* --- perf power PMU ------------------------------------------------------- */

static void make_perf_pmu(struct tree *t, const char *type, const char *event)
{
	put(type, "%s/type", t->perf);
	put("0\n", "%s/cpumask", t->perf);
	put(event, "%s/events/energy-pkg", t->perf);
	put("2.3283064365386962890625e-10\n", "%s/events/energy-pkg.scale", t->perf);
	put("Joules\n", "%s/events/energy-pkg.unit", t->perf);
}

static void test_perf_pmu_errors(void **state)
{
	static const struct {
		const char *type, *event;	/* make_perf_pmu's */
		const char *file, *content;	/* then written; NULL: removed */
		int ncpus;
		int e;				/* 0: any error */
		const char *err;
	} cases[] = {
		{ "nope\n", "event=0x02\n", NULL, NULL, 1, -EINVAL, "/power/type" },
		/* a PMU type no kernel has: the open itself fails, with the CPU */
		{ "4242\n", "event=0x02\n", NULL, NULL, 1, 0, "perf power PMU on CPU 0" },
		{ "4242\n", "event=0x02,foo=1\n", NULL, NULL, 1, -EINVAL,
		  "energy-pkg: unexpected 'event=0x02,foo=1'" },
		{ "4242\n", "event=0x02\n", "events/energy-pkg.unit", "Watts\n", 1,
		  -EINVAL, "expected Joules" },
		{ "4242\n", "event=0x02\n", "events/energy-pkg.scale", "0\n", 1,
		  -EINVAL, "not a positive number" },
		/* the cpumask names a CPU the topology does not know */
		{ "4242\n", "event=0x02\n", "cpumask", "0,1\n", 2, -ENOENT,
		  "CPU 1 has no package" },
		{ "4242\n", "event=0x02\n", "events/energy-pkg", NULL, 1, -ENOENT,
		  "energy-pkg: no such event" },
	};
	struct tree *t = *state;
	char err[256], path[PATH_MAX];
	int e;

	put_cpu(t, 0, 0);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		make_perf_pmu(t, cases[i].type, cases[i].event);
		if (cases[i].content)
			put(cases[i].content, "%s/%s", t->perf, cases[i].file);
		else if (cases[i].file)
			unlink(pathf(path, "%s/%s", t->perf, cases[i].file));
		assert_null(open_tree(t, "perf", cases[i].ncpus, &e, err,
				      sizeof(err)));
		if (cases[i].e ? e != cases[i].e : e >= 0)
			fail_msg("case %zu: %d, want %d", i, e, cases[i].e);
		if (!strstr(err, cases[i].err))
			fail_msg("case %zu: '%s', want '%s'", i, err, cases[i].err);
	}
}

/* --- model ---------------------------------------------------------------- */

static void test_model_source(void **state)
{
	struct tree *t = *state;
	struct energy_source *src;
	struct energy_sample s;
	double busy[2] = { 1e9, 0 };
	char err[256];
	int e;

	fake__put(t, NO_ZONES);
	src = open_ok(t, "model:10:110", 4);
	assert_string_equal(energy_source__name(src), "model");
	assert_true(energy_source__is_estimated(src));
	assert_int_equal(energy_source__nr_packages(src), 2);

	assert_int_equal(energy_source__read(src, 0, busy, &s), 0);
	assert_true(s.baseline);
	assert_false(s.pkg[0].valid);

	/* package 0: 1 of 2 CPUs busy for 1 s -> 60 J; package 1 idle */
	assert_int_equal(energy_source__read(src, 1.0, busy, &s), 0);
	assert_true(s.pkg[0].valid);
	assert_true(s.pkg[1].valid);
	assert_float_equal(s.pkg[0].joules, 60, J_EPS);
	assert_float_equal(s.pkg[1].joules, 10, J_EPS);
	assert_int_equal(s.pkg[0].dom_mask, 0);
	assert_false(s.has_psys);

	/* the model cannot guess the busy time */
	assert_int_equal(energy_source__read(src, 1.0, NULL, &s), -EINVAL);
	energy_source__close(src);

	/* auto never falls back to the model */
	assert_null(open_tree(t, "auto", 4, &e, err, sizeof(err)));
	assert_int_equal(e, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_topology, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_spec_errors, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_missing_sources, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_perf_pmu_errors, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_model_source, tree_setup, tree_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
