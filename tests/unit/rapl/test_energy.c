// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Energy: counter arithmetic and the energy split; the sources on fake
 * sysfs trees are test_energy_sources.c and test_energy_powercap.c.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rapl/energy.h"
#include "helpers.h"

#define J_EPS 1e-9

/* --- pure arithmetic ------------------------------------------------------ */

static void test_parse_u64(void **state)
{
	static const struct {
		const char *in;
		int ret;
		__u64 v;
	} cases[] = {
		{ "0", 0, 0 },
		{ "123\n", 0, 123 },
		{ "262143328850\n", 0, 262143328850ULL },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "18446744073709551616", -ERANGE, 0 },
		{ "", -EINVAL, 0 },
		{ "\n", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ "+1", -EINVAL, 0 },
		{ " 1", -EINVAL, 0 },
		{ "12x", -EINVAL, 0 },
		{ "12\n\n", -EINVAL, 0 },
		{ "0x10", -EINVAL, 0 },
		{ "1.5", -EINVAL, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		__u64 v = 777;
		int ret = rapl__parse_u64(cases[i].in, &v);

		assert_int_equal(ret, cases[i].ret);
		if (!ret)
			assert_true(v == cases[i].v);
		else
			assert_true(v == 777);
	}
}

static void test_delta_uj(void **state)
{
	static const struct {
		const char *what;
		__u64 prev, cur, range;
		int ret;
		__u64 delta;
	} cases[] = {
		{ "no wrap", 1000, 5000, 1000000, 0, 4000 },
		{ "equal", 4242, 4242, 1000000, 0, 0 },
		{ "up to range", 999000, 1000000, 1000000, 0, 1000 },
		{ "from range to 0", 1000000, 0, 1000000, 0, 1 },
		{ "range to range", 1000000, 1000000, 1000000, 0, 0 },
		{ "across", 999990, 9, 1000000, 0, 20 },
		{ "across, from 0 side", 1, 0, 1000000, 0, 1000000 },
		{ "real range", 262143328000ULL, 150, 262143328850ULL, 0, 1001 },
		{ "u64 range", UINT64_MAX - 1, 3, UINT64_MAX - 1, 0, 4 },
		{ "no range, no wrap", 10, 20, 0, 0, 10 },
		{ "no range, backwards", 20, 10, 0, -ERANGE, 0 },
		{ "cur above range", 10, 1000001, 1000000, -ERANGE, 0 },
		{ "prev above range", 1000001, 10, 1000000, -ERANGE, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		__u64 d = 777;
		int ret = rapl__delta_uj(cases[i].prev, cases[i].cur,
					 cases[i].range, &d);

		if (ret != cases[i].ret || (!ret && d != cases[i].delta))
			fail_msg("%s: ret %d delta %llu", cases[i].what, ret,
				 (unsigned long long)d);
	}
}

/* Over many reads, wraps neither lose nor invent: the deltas add up to
 * the energy the counter was advanced by. */
static void test_delta_uj_sum_over_wraps(void **state)
{
	const __u64 range = 999999;
	__u64 total = 0, sum = 0, prev = 123456, cur, d;
	int i;

	(void)state;
	cur = prev;
	for (i = 0; i < 1000; i++) {
		__u64 step = (i * 7919) % 600000;

		total += step;
		cur = (cur + step) % (range + 1);
		assert_int_equal(rapl__delta_uj(prev, cur, range, &d), 0);
		sum += d;
		prev = cur;
	}
	assert_true(sum == total);
}

/* What a counter step can be: half a lap at most, ENERGY_MAX_WATTS. */
static void test_step_check(void **state)
{
	static const double real = 262143.32885;	/* an Intel package's range, J */
	static const double ceil1 = ENERGY_MAX_WATTS * (1 + ENERGY_STEP_SLACK_S);
	static const struct {
		const char *what;
		double j, range_j, dt;
		int ret;
	} cases[] = {
		{ "20 W for 250 ms", 5, real, 0.25, 0 },
		{ "nothing", 0, 40, 0.25, 0 },
		{ "a wrap within half a lap", 5.000001, 40, 0.25, 0 },
		{ "half a lap", 20, 40, 1, 0 },
		{ "past half a lap", 20.000001, 40, 1, -ERANGE },
		{ "a reset taken for a wrap", real - 36.574 + 0.001, real, 0.25, -ERANGE },
		{ "a reset on the 40 J fake", 40 - 30 + 0.001, 40, 0.25, 0 },
		{ "... past its half lap", 40 - 15 + 0.001, 40, 0.25, -ERANGE },
		{ "no range: the ceiling only", 1000, 0, 1, 0 },
		{ "at the ceiling", ceil1, 0, 1, 0 },
		{ "above the ceiling", ceil1 * 1.000001, 0, 1, -ERANGE },
		{ "above it, within half a lap", 2000, real, 0.25, -ERANGE },
		{ "a 0.1 ms interval: the slack", 40, 0, 0.0001, 0 },
		{ "dt unknown: no ceiling", 1e6, 0, 0, 0 },
		{ "dt negative: no ceiling", 1e6, 0, -1, 0 },
		{ "dt unknown, half a lap still", 30, 40, 0, -ERANGE },
		{ "negative", -1e-9, 0, 1, -ERANGE },
		{ "not a number", NAN, 40, 1, -ERANGE },
		{ "infinite", INFINITY, 0, 0, -ERANGE },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret = energy_step__check(cases[i].j, cases[i].range_j,
					     cases[i].dt);

		if (ret != cases[i].ret)
			fail_msg("%s: %g J, range %g J, %g s: ret %d", cases[i].what,
				 cases[i].j, cases[i].range_j, cases[i].dt, ret);
	}
}

static void test_perf_delta(void **state)
{
	static const double unit = 1.0 / (1 << 14);	/* 61 uJ: Intel's unit */
	static const struct {
		const char *what;
		__u64 prev, cur;
		double scale, dt;
		int ret;
		double j;
	} cases[] = {
		{ "20 W for 250 ms", 1000, 1000 + 5 * 16384, unit, 0.25, 0, 5 },
		{ "nothing", 42, 42, unit, 0.25, 0, 0 },
		{ "near the u64 end", UINT64_MAX - 16384, UINT64_MAX, unit, 1, 0, 1 },
		{ "went back", 5000, 4999, unit, 1, -ERANGE, 0 },
		/* the MSR reset, which the kernel counts as a 32-bit wrap */
		{ "an MSR reset", 1000, 1000 + (1ULL << 32), unit, 1, -ERANGE, 0 },
		{ "dt unknown: no ceiling", 0, 1ULL << 32, unit, 0, 0, 262144 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		double j = 777;
		int ret = perf_power__delta_j(cases[i].prev, cases[i].cur,
					      cases[i].scale, cases[i].dt, &j);

		if (ret != cases[i].ret ||
		    fabs(j - (ret ? 777 : cases[i].j)) > J_EPS)
			fail_msg("%s: ret %d, %.9f J", cases[i].what, ret, j);
	}
}

static void test_model_joules(void **state)
{
	static const struct {
		double idle, max, busy_ns;
		int ncpus;
		double dt, joules;
	} cases[] = {
		{ 10, 110, 0, 4, 1, 10 },		/* idle */
		{ 10, 110, 4e9, 4, 1, 110 },		/* all busy */
		{ 10, 110, 2e9, 4, 1, 60 },		/* half */
		{ 10, 110, 1e9, 4, 2, 2 * 22.5 },	/* 1/8 over 2 s */
		{ 10, 110, 9e9, 4, 1, 110 },		/* clamped */
		{ 10, 110, 6e9, 4, 1, 110 },		/* clamped */
		{ 10, 110, -5, 4, 1, 10 },		/* clamped */
		{ 10, 110, NAN, 4, 1, 10 },
		{ 0, 100, 5e8, 1, 0.5, 50 },
		{ 10, 110, 1e9, 0, 1, 0 },		/* no CPU */
		{ 10, 110, 1e9, 4, 0, 0 },		/* no time */
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		double j = energy_model__joules(cases[i].idle, cases[i].max,
						cases[i].busy_ns, cases[i].ncpus,
						cases[i].dt);

		if (fabs(j - cases[i].joules) > J_EPS)
			fail_msg("case %zu: %g J, want %g", i, j, cases[i].joules);
	}
}

static void test_model_parse(void **state)
{
	static const struct {
		const char *in;
		int ret;
		double idle, max;
	} cases[] = {
		{ "40:180", 0, 40, 180 },
		{ "0:95.5", 0, 0, 95.5 },
		{ "50:50", 0, 50, 50 },
		{ "180:40", -EINVAL, 0, 0 },
		{ "0:0", -EINVAL, 0, 0 },
		{ "-1:10", -EINVAL, 0, 0 },
		{ "1:-10", -EINVAL, 0, 0 },
		{ "10", -EINVAL, 0, 0 },
		{ "10:", -EINVAL, 0, 0 },
		{ ":10", -EINVAL, 0, 0 },
		{ "10:20:30", -EINVAL, 0, 0 },
		{ "a:b", -EINVAL, 0, 0 },
		{ "10W:20W", -EINVAL, 0, 0 },
		{ "inf:inf", -EINVAL, 0, 0 },
		{ "nan:10", -EINVAL, 0, 0 },
		{ " 1:10", -EINVAL, 0, 0 },
		{ "", -EINVAL, 0, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		double idle = -1, max = -1;
		int ret = energy_model__parse(cases[i].in, &idle, &max);

		if (ret != cases[i].ret)
			fail_msg("'%s': %d", cases[i].in, ret);
		if (!ret && (idle != cases[i].idle || max != cases[i].max))
			fail_msg("'%s': %g:%g", cases[i].in, idle, max);
	}
}

static void test_perf_parse(void **state)
{
	static const struct {
		const char *in;
		int ret;
		__u64 config;
	} cfg[] = {
		{ "event=0x02\n", 0, 2 },
		{ "event=0x01", 0, 1 },
		{ "event=0xff\n", 0, 0xff },
		{ "event=0x100", -EINVAL, 0 },
		{ "event=2", -EINVAL, 0 },
		{ "event=0x02,umask=0x1", -EINVAL, 0 },
		{ "config=0x02", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
	};
	static const struct {
		const char *in;
		int ret;
		int cpus[6];
	} cpus[] = {
		{ "0\n", 1, { 0 } },
		{ "0,28\n", 2, { 0, 28 } },
		{ "0-3,8", 5, { 0, 1, 2, 3, 8 } },
		{ "3-1", -EINVAL, { 0 } },
		{ "", -EINVAL, { 0 } },
		{ "0,", -EINVAL, { 0 } },
		{ "a", -EINVAL, { 0 } },
		{ "0-7", -E2BIG, { 0 } },
	};
	size_t i;
	int got[6], n, k;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cfg); i++) {
		__u64 c = 777;

		n = perf_power__parse_config(cfg[i].in, &c);
		if (n != cfg[i].ret || (!n && c != cfg[i].config))
			fail_msg("config '%s': %d", cfg[i].in, n);
	}
	for (i = 0; i < ARRAY_SIZE(cpus); i++) {
		n = perf_power__parse_cpus(cpus[i].in, got, 6);
		if (n != cpus[i].ret)
			fail_msg("cpus '%s': %d", cpus[i].in, n);
		for (k = 0; k < n; k++)
			assert_int_equal(got[k], cpus[i].cpus[k]);
	}
}

/* --- the split ------------------------------------------------------------ */

/* keys: 0 idle task, 1 A, 2 B, 3 static row; packages 0, 1 */
#define NK 4
#define NP 2

static double split_sum(const double *v, int n)
{
	double s = 0;

	while (n--)
		s += v[n];
	return s;
}

/* Two reads that end one interval: the second scaled, validity ANDed. */
static void test_sample_add(void **state)
{
	struct energy_sample a = { .nr_packages = 2 }, b = { .nr_packages = 2 };

	(void)state;
	a.pkg[0] = (struct energy_pkg_sample){ .valid = true, .joules = 10,
		.dom_mask = 1u << ENERGY_DOM_CORE, .dom_valid = 1u << ENERGY_DOM_CORE,
		.dom_j = { [ENERGY_DOM_CORE] = 4 } };
	a.pkg[1] = (struct energy_pkg_sample){ .valid = true, .joules = 7 };
	b.pkg[0] = (struct energy_pkg_sample){ .valid = true, .joules = 2,
		.dom_mask = 1u << ENERGY_DOM_CORE, .dom_valid = 1u << ENERGY_DOM_CORE,
		.dom_j = { [ENERGY_DOM_CORE] = 1 } };
	b.pkg[1] = (struct energy_pkg_sample){ .valid = false, .joules = 0 };
	a.has_psys = b.has_psys = true;
	a.psys_valid = b.psys_valid = true;
	a.psys_j = 20;
	b.psys_j = 4;
	strcpy(b.warning, "zone x: a reset");

	energy_sample__add(&a, &b, 0.25);
	assert_true(a.pkg[0].valid);
	assert_true(fabs(a.pkg[0].joules - 10.5) < 1e-12);
	assert_int_equal(a.pkg[0].dom_valid, 1u << ENERGY_DOM_CORE);
	assert_true(fabs(a.pkg[0].dom_j[ENERGY_DOM_CORE] - 4.25) < 1e-12);
	/* a part unknown: the whole unknown, never counted as 0 J */
	assert_false(a.pkg[1].valid);
	assert_true(a.psys_valid);
	assert_true(fabs(a.psys_j - 21) < 1e-12);
	assert_string_equal(a.warning, "zone x: a reset");
	assert_false(a.baseline);

	/* the rest of b, as the next interval's carry: adds up to all of b */
	struct energy_sample rest = { .nr_packages = 2 };

	rest.pkg[0].valid = rest.pkg[1].valid = rest.psys_valid = true;
	rest.pkg[0].dom_valid = 1u << ENERGY_DOM_CORE;
	b.warning[0] = '\0';
	energy_sample__add(&rest, &b, 0.75);
	assert_true(fabs(a.pkg[0].joules - 10 + rest.pkg[0].joules - b.pkg[0].joules) < 1e-12);
	assert_true(fabs(rest.pkg[0].joules - 1.5) < 1e-12);
	assert_string_equal(rest.warning, "");
}

static void test_split(void **state)
{
	static const struct {
		const char *what;
		double pkg_j[NP];
		bool valid[NP];
		double static_j;
		double m[NK * NP];
		double m_all[NP];
		bool sum_all;		/* m_all = NULL */
		double want[NK];
	} cases[] = {
		{ "two packages", { 100, 50 }, { true, true }, 0,
		  { 10, 0,  30, 25,  60, 25,  0, 0 }, { 100, 50 }, false, { 10, 55, 85, 0 } },
		{ "m_all from the keys", { 100, 50 }, { true, true }, 0,
		  { 10, 0,  30, 25,  60, 25,  0, 0 }, { 0, 0 }, true, { 10, 55, 85, 0 } },
		{ "nothing counted on package 1: idle key", { 100, 50 }, { true, true }, 0,
		  { 10, 0,  30, 0,  60, 0,  0, 0 }, { 100, 0 }, false, { 60, 30, 60, 0 } },
		{ "static power first", { 100, 10 }, { true, true }, 20,
		  { 0, 0,  25, 1,  75, 1,  0, 0 }, { 100, 2 }, false, { 0, 20, 60, 30 } },
		{ "static above the measured energy", { 5, 10 }, { true, true }, 20,
		  { 1, 1,  1, 1,  1, 1,  0, 0 }, { 3, 3 }, false, { 0, 0, 0, 15 } },
		{ "invalid package splits nothing", { 100, 50 }, { true, false }, 0,
		  { 10, 0,  30, 25,  60, 25,  0, 0 }, { 100, 50 }, false, { 10, 30, 60, 0 } },
		{ "keys a subset of m_all", { 100, 50 }, { true, true }, 0,
		  { 0, 0,  10, 0,  10, 5,  0, 0 }, { 100, 50 }, false, { 0, 10, 15, 0 } },
		{ "zero energy", { 0, 0 }, { true, true }, 0,
		  { 1, 1,  1, 1,  1, 1,  0, 0 }, { 3, 3 }, false, { 0, 0, 0, 0 } },
	};
	size_t i;
	int k;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct energy_split sp = {
			.nr_keys = NK,
			.nr_packages = NP,
			.pkg_j = cases[i].pkg_j,
			.pkg_valid = cases[i].valid,
			.m = cases[i].m,
			.m_all = cases[i].sum_all ? NULL : cases[i].m_all,
			.idle_key = 0,
			.static_key = 3,
			.static_j = cases[i].static_j,
		};
		double out[NK];

		assert_int_equal(energy_split__compute(&sp, out), 0);
		for (k = 0; k < NK; k++)
			if (fabs(out[k] - cases[i].want[k]) > J_EPS)
				fail_msg("%s: key %d got %g want %g",
					 cases[i].what, k, out[k],
					 cases[i].want[k]);
	}
}

static void test_split_bad(void **state)
{
	static const double e[NP] = { 1, 1 }, m_all[NP] = { 1, 1 };
	static const double nan_e[NP] = { NAN, 1 }, neg[NP] = { -1, 1 };
	static const double m[NK * NP], m_inf[NK * NP] = { [3] = INFINITY },
		m_neg[NK * NP] = { [3] = -2 };
	static const struct {
		const char *what;
		/* keys, packages, pkg_j, pkg_valid, m, m_all, idle_key,
		 * static_key, static_j */
		struct energy_split sp;
		int ret;
	} cases[] = {
		{ "good", { NK, NP, e, NULL, m, m_all, 0, 0, 0 }, 0 },
		{ "no keys", { 0, NP, e, NULL, m, m_all, 0, 0, 0 }, -EINVAL },
		{ "no packages", { NK, 0, e, NULL, m, m_all, 0, 0, 0 }, -EINVAL },
		{ "idle key out of range", { NK, NP, e, NULL, m, m_all, NK, 0, 0 }, -EINVAL },
		{ "static key negative", { NK, NP, e, NULL, m, m_all, 0, -1, 0 }, -EINVAL },
		{ "static energy negative", { NK, NP, e, NULL, m, m_all, 0, 0, -1 }, -EINVAL },
		{ "energy not a number", { NK, NP, nan_e, NULL, m, m_all, 0, 0, 0 }, -EINVAL },
		{ "m_all negative", { NK, NP, e, NULL, m, neg, 0, 0, 0 }, -EINVAL },
		{ "no m", { NK, NP, e, NULL, NULL, m_all, 0, 0, 0 }, -EINVAL },
		{ "an infinite count", { NK, NP, e, NULL, m_inf, m_all, 0, 0, 0 }, -EINVAL },
		{ "a negative count", { NK, NP, e, NULL, m_neg, m_all, 0, 0, 0 }, -EINVAL },
	};
	double out[NK];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret = energy_split__compute(&cases[i].sp, out);

		if (ret != cases[i].ret)
			fail_msg("%s: %d, want %d", cases[i].what, ret,
				 cases[i].ret);
	}
}

/* Keys that partition the work conserve the measured energy, whatever
 * the counts, with and without static power. */
static void test_split_conservation(void **state)
{
	enum { N = 50, P = 4 };
	double m[N * P], m_all[P], e[P], out[N];
	bool valid[P];
	unsigned int seed = 12345;
	int trial, k, p;

	(void)state;
	for (trial = 0; trial < 500; trial++) {
		struct energy_split sp = {
			.nr_keys = N, .nr_packages = P, .pkg_j = e,
			.pkg_valid = valid, .m = m, .m_all = m_all,
			.idle_key = 0, .static_key = 1,
			.static_j = (trial % 3) * 7.5,
		};
		double want = 0;

		for (p = 0; p < P; p++) {
			e[p] = (rand_r(&seed) % 100000) / 100.0;
			valid[p] = rand_r(&seed) % 5 != 0;
			m_all[p] = 0;
			for (k = 0; k < N; k++) {
				/* sparse, wide-ranging counts; some all zero */
				m[k * P + p] = rand_r(&seed) % 3 ? 0 :
					(double)rand_r(&seed) * (1 << (k % 20));
				if (trial % 7 == 0 && p == 2)
					m[k * P + p] = 0;
				m_all[p] += m[k * P + p];
			}
			if (valid[p])
				want += e[p];
		}
		assert_int_equal(energy_split__compute(&sp, out), 0);
		if (fabs(split_sum(out, N) - want) > 1e-9 * (want + 1))
			fail_msg("trial %d: %.12g J split of %.12g", trial,
				 split_sum(out, N), want);
		for (k = 0; k < N; k++)
			assert_true(out[k] >= 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_delta_uj),
		cmocka_unit_test(test_delta_uj_sum_over_wraps),
		cmocka_unit_test(test_step_check),
		cmocka_unit_test(test_perf_delta),
		cmocka_unit_test(test_model_joules),
		cmocka_unit_test(test_model_parse),
		cmocka_unit_test(test_perf_parse),
		cmocka_unit_test(test_sample_add),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_split_bad),
		cmocka_unit_test(test_split_conservation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
