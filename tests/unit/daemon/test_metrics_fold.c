// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Folding the smallest cgroups into cgroup="other" past max_series:
 * conservation (other is the raw sums of the folded cgroups, scaled),
 * stickiness, never backwards as folded cgroups leave or new ones fold;
 * the time to render 20,000 series, and to fold 10,000 cgroups.
 */
#define _GNU_SOURCE
#include <time.h>
#include "metrics_fix.h"

static char fold_names[16][16];

/* A container's cgroup (0.5 s) and /c1 .. /c8 (1 .. 8 s); /c1's
 * switches are multiplexed, so "other" must scale the raw sums. */
static void fix__fold(struct fix *f)
{
	fix__init(f, true);
	fix__cgroup(f, 100, DOCKER, SEC / 2, 1, 0.5);
	for (int i = 1; i <= 8; i++) {
		snprintf(fold_names[i], sizeof(fold_names[i]), "/c%d", i);
		fix__cgroup(f, 100 + i, fold_names[i], i * SEC, 10 * i, i);
	}
	f->cgrp[1].c.c[1] = (struct emon_count){ 10, 2000, 1000 };
}

/* "other" expected from the raw sums of the given cgroups (ids). */
static void other_expect(const struct fix *f, const __u64 *ids, int n,
			 __u64 *ns, __u64 *cs, double *j)
{
	struct counts sum = {};

	*j = 0;
	for (int i = 0; i < n; i++)
		for (size_t k = 0; k < f->s.nr_cgrp; k++)
			if (f->cgrp[k].id == ids[i]) {
				counts__add(&sum, &f->cgrp[k].c, 3);
				*j += f->cgrp[k].energy_j;
			}
	assert_true(count__scaled_u64(&sum.c[0], ns));
	assert_true(count__scaled_u64(&sum.c[1], cs));
}

/* "other"'s cpu-clock in seconds */
static double other_s(const char *body)
{
	return sample(body, "emon_cgroup_cpu_clock_seconds_total{cgroup=\"other\"}");
}

static void assert_other(const char *body, const struct fix *f,
			 const __u64 *ids, int n)
{
	__u64 ns, cs;
	double j;

	other_expect(f, ids, n, &ns, &cs, &j);
	assert_true(other_s(body) == ns / 1e9);
	assert_int_equal((__u64)sample(body, "emon_cgroup_context_switches_total{cgroup=\"other\"}"),
			 cs);
	assert_true(sample(body, "emon_cgroup_energy_joules_total{cgroup=\"other\",zone=\"package\"}")
		    == j);
}

static void test_fold(void **state)
{
	static const __u64 folded[] = { 100, 101, 102 };
	static const struct want folded3[] = {
		{ HAS_NOT, "cgroup=\"/c1\"" },
		{ HAS_NOT, "cgroup=\"/c2\"" },
		{ HAS, "cgroup=\"/c3\"" },
		{ HAS_NOT, "{cgroup=\"" DOCKER "\"" },
		/* the container keeps its series */
		{ HAS, "emon_container_cpu_clock_seconds_total{container_id=\"" ID1 },
		{ LINE, "emon_folded_cgroups 3" },
		{ LINE, "emon_cgroup_folds_total 3" },
	};
	/* folded cgroups leave the snapshot: "other" keeps what it had */
	static const struct {
		const char *what;
		int nr, leave[2];	/* cgroups that leave, in turn */
		struct want want[2];
	} left[] = {
		{ "/c2 left", 1, { 2 }, {
			{ LINE, "emon_folded_cgroups 2" },
			{ LINE, "emon_cgroup_folds_total 3" },
		} },
		{ "every folded cgroup left", 2, { 0, 1 }, {
			{ LINE, "emon_folded_cgroups 0" },
		} },
	};
	struct metrics *m;
	double other1, other2;
	size_t n0, n;
	struct fix f;
	char *body;

	(void)state;
	fix__fold(&f);
	m = metrics(100000, 0);
	body = render(m, &f, false);
	n0 = check_body(body, false);
	assert_null(strstr(body, "{cgroup=\"other\"}"));
	free(body);
	metrics__free(m);

	/*
	 * 3 series a cgroup (2 events, energy): folding the container's cgroup
	 * makes "other" (+3 -3), then /c1, /c2 (-3 each) fit n0 - 5.
	 */
	m = metrics(n0 - 5, 0);
	body = render(m, &f, false);
	n = check_body(body, false);
	assert_true(n <= n0 - 5);
	assert_int_equal(n, n0 - 6);
	assert_int_equal(metrics__folded(m), 3);
	assert_int_equal(metrics__series(m), n);
	assert_other(body, &f, folded, 3);
	want__check("3 folded", body, folded3, ARRAY_SIZE(folded3));
	other1 = other_s(body);
	free(body);

	/* sticky: /c1 grows past every other cgroup, and stays folded */
	f.cgrp[1].c.c[0].counter = 100 * SEC;
	body = render(m, &f, false);
	check_body(body, false);
	assert_null(strstr(body, "cgroup=\"/c1\""));
	assert_other(body, &f, folded, 3);
	other2 = other_s(body);
	assert_true(other2 == other1 + 99);
	free(body);

	for (size_t i = 0; i < ARRAY_SIZE(left); i++) {
		for (int k = 0; k < left[i].nr; k++)
			f.cgrp[left[i].leave[k]] = f.cgrp[--f.s.nr_cgrp];
		body = render(m, &f, false);
		check_body(body, false);
		assert_true(other_s(body) == other2);
		want__check(left[i].what, body, left[i].want,
			    ARRAY_SIZE(left[i].want));
		free(body);
	}
	metrics__free(m);
}

/* A new cgroup is folded while others are already: "other" only grows. */
static void test_fold_more(void **state)
{
	struct metrics *m = metrics(40, 0);
	struct fix f;
	double prev = 0;
	char *body;

	(void)state;
	fix__fold(&f);
	for (int round = 0; round < 6; round++) {
		double other;

		body = render(m, &f, round & 1);
		assert_true(check_body(body, round & 1) <= 40);
		other = other_s(body);
		assert_true(other >= prev);
		prev = other;
		free(body);
		for (size_t k = 0; k < f.s.nr_cgrp; k++)
			f.cgrp[k].c.c[0].counter += SEC / 10;
		if (round == 2)
			fix__cgroup(&f, 300, "/new", 1, 1, 0);
	}
	metrics__free(m);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 10,000 cgroups x 2 events: 20,000 series, then 20,000 more than the
 * default bound allows (folding). The times are printed, not asserted: a
 * busy machine makes any bound flaky; make bench-serve measures scrapes. */
static void test_large(void **state)
{
	enum { NCG = 10000 };
	struct metrics *m = metrics(30000, 0);
	struct snap_entry *cg = calloc(NCG, sizeof(*cg));
	char (*names)[48] = calloc(NCG, sizeof(*names));
	double t0, t1;
	struct fix f;
	char *body;
	size_t n;

	(void)state;
	fix__init(&f, false);
	for (int i = 0; i < NCG; i++) {
		snprintf(names[i], sizeof(names[i]),
			 "/system.slice/svc-%05d.service", (i * 7919) % NCG);
		cg[i].id = 1000 + i;
		cg[i].name = names[i];
		set(&cg[i].c, (__u64)(i + 1) * 1000003, i);
	}
	f.s.cgrp = cg;
	f.s.nr_cgrp = NCG;
	t0 = now();
	body = render(m, &f, false);
	t1 = now();
	n = check_body(body, false);
	free(body);
	printf("render: %zu series in %.2f ms (0.0.4, first render)\n", n,
	       (t1 - t0) * 1e3);
	t0 = now();
	body = render(m, &f, true);
	t1 = now();
	free(body);
	printf("render: %zu series in %.2f ms (OpenMetrics, second render)\n", n,
	       (t1 - t0) * 1e3);
	assert_true(n >= 20000);
	metrics__free(m);

	m = metrics(0, 0);	/* default: 20,000 */
	t0 = now();
	body = render(m, &f, false);
	t1 = now();
	n = check_body(body, false);
	printf("render: %zu series in %.2f ms (folding %zu cgroups)\n", n,
	       (t1 - t0) * 1e3, metrics__folded(m));
	assert_true(n <= 20000);
	assert_true(metrics__folded(m) > 0);
	free(body);
	metrics__free(m);
	free(cg);
	free(names);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_fold_more),
		cmocka_unit_test(test_large),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
