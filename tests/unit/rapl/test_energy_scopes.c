// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Energy scopes: a power sensor's readings integrated over an interval,
 * the split of units (cores, the platform) each key ran on, held against
 * the dense split and conserved per unit, the scopes of each source, and
 * samples with units added. The hwmon sources themselves, on fake trees
 * read by the real libsensors, are tests/integration/energy_sensors.sh.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rapl/energy.h"
#include "helpers.h"

/* cmocka 1.1 (Debian 12) has no assert_double_equal */
#define assert_double_equal(a, b, eps) do {				\
		double a_ = (a), b_ = (b);				\
		if (!(fabs(a_ - b_) <= (eps)))				\
			fail_msg("%.17g != %.17g (%s)", a_, b_, #a);	\
	} while (0)

static void test_power_joules(void **state)
{
	(void)state;
	/* an average over a window ending now: the newest reading x dt */
	assert_double_equal(energy_power__joules(10, 40, 0.5, true), 20, 1e-12);
	assert_double_equal(energy_power__joules(NAN, 40, 0.5, true), 20, 1e-12);
	/* the power now: the trapezoid, exact for a linear ramp */
	assert_double_equal(energy_power__joules(10, 40, 0.5, false), 12.5, 1e-12);
	assert_double_equal(energy_power__joules(40, 40, 2, false), 80, 1e-12);
	/* no time: no energy; a reading that is not a power: -1 */
	assert_double_equal(energy_power__joules(10, 40, 0, true), 0, 0);
	assert_double_equal(energy_power__joules(10, 40, -1, false), 0, 0);
	assert_double_equal(energy_power__joules(10, -1, 1, true), -1, 0);
	assert_double_equal(energy_power__joules(-1, 10, 1, false), -1, 0);
	assert_double_equal(energy_power__joules(10, INFINITY, 1, true), -1, 0);
	assert_double_equal(energy_power__joules(NAN, 10, 1, false), -1, 0);
}

static void test_power_joules_ramp(void **state)
{
	/* 0 -> 100 W linearly over 10 s, read every 0.25 s: the trapezoid
	 * gives the area, 500 J, whatever the reads' spacing */
	double j = 0, prev = 0, t = 0;

	(void)state;
	while (t < 10 - 1e-9) {
		double dt = t < 5 ? 0.25 : 0.5, w = 10 * (t + dt);

		j += energy_power__joules(prev, w, dt, false);
		prev = w;
		t += dt;
	}
	assert_double_equal(j, 500, 1e-9);
}

/* Random keys on random units: the unit split is the dense split. */
static void test_units_match_dense(void **state)
{
	enum { N = 40, U = 6 };
	double m[N], dense_m[N * U], uj[U], a[N], b[N];
	int ku[N];
	bool valid[U];
	unsigned int seed = 777;

	(void)state;
	for (int trial = 0; trial < 300; trial++) {
		struct energy_split_units su = {
			.nr_keys = N, .nr_units = U, .unit_j = uj, .unit_valid = valid,
			.key_unit = ku, .m = m, .idle_key = N - 1, .static_key = N - 1,
			.static_j = (trial % 4) * 2.5,
		};
		struct energy_split sd = {
			.nr_keys = N, .nr_packages = U, .pkg_j = uj, .pkg_valid = valid,
			.m = dense_m, .idle_key = N - 1, .static_key = N - 1,
			.static_j = su.static_j,
		};

		memset(dense_m, 0, sizeof(dense_m));
		for (int u = 0; u < U; u++) {
			uj[u] = (rand_r(&seed) % 100000) / 7.0;
			valid[u] = rand_r(&seed) % 6 != 0;
		}
		for (int k = 0; k < N; k++) {
			/* the idle key counts nothing, as engine/attribute.c's */
			ku[k] = k == N - 1 ? -1 : (int)(rand_r(&seed) % U);
			m[k] = k == N - 1 || rand_r(&seed) % 4 == 0 ? 0 :
			       (double)rand_r(&seed) * (1 << (k % 16));
			if (trial % 5 == 0 && ku[k] == 3)
				m[k] = 0;	/* a unit where nothing counted */
			if (ku[k] >= 0)
				dense_m[k * U + ku[k]] = m[k];
		}
		assert_int_equal(energy_split__units(&su, a), 0);
		assert_int_equal(energy_split__compute(&sd, b), 0);
		if (memcmp(a, b, sizeof(a)))
			for (int k = 0; k < N; k++)
				if (a[k] != b[k])
					fail_msg("trial %d key %d: %.17g J by units, %.17g dense",
						 trial, k, a[k], b[k]);
	}
}

/* Each unit's keys (and the idle key's part of it) add up to the unit. */
static void test_units_conserve(void **state)
{
	enum { N = 9, U = 3 };
	/* unit 0: keys 0-2; unit 1: 3-4 (nothing counted); unit 2: 5-6
	 * (invalid); key 7 on no unit; key 8 idle */
	const int ku[N] = { 0, 0, 0, 1, 1, 2, 2, -1, -1 };
	const double m[N] = { 1, 2, 5, 0, 0, 3, 3, 9, 0 };
	const double uj[U] = { 16, 4, 100 };
	const bool valid[U] = { true, true, false };
	struct energy_split_units sp = {
		.nr_keys = N, .nr_units = U, .unit_j = uj, .unit_valid = valid,
		.key_unit = ku, .m = m, .idle_key = 8, .static_key = 8,
		.static_j = 1,
	};
	double out[N];

	(void)state;
	assert_int_equal(energy_split__units(&sp, out), 0);
	/* unit 0: 1 J static, 15 J by 1:2:5 */
	assert_double_equal(out[0], 15.0 / 8, 1e-12);
	assert_double_equal(out[1], 30.0 / 8, 1e-12);
	assert_double_equal(out[2], 75.0 / 8, 1e-12);
	/* unit 1: nothing counted, the idle key has it all (and 1 J static) */
	assert_double_equal(out[3], 0, 0);
	assert_double_equal(out[4], 0, 0);
	/* unit 2 is not valid: nothing; key 7 ran on no unit: nothing */
	assert_double_equal(out[5], 0, 0);
	assert_double_equal(out[6], 0, 0);
	assert_double_equal(out[7], 0, 0);
	assert_double_equal(out[8], 1 + 1 + 3, 1e-12);
	assert_double_equal(out[0] + out[1] + out[2] + out[8], 16 + 4, 1e-12);
}

static void test_units_bad(void **state)
{
	const int ku[2] = { 0, 1 };
	const double m[2] = { 1, 1 }, uj[1] = { 1 }, neg[1] = { -1 };
	struct energy_split_units sp = {
		.nr_keys = 2, .nr_units = 1, .unit_j = uj, .key_unit = ku, .m = m,
	};
	double out[2];

	(void)state;
	/* key 1 on unit 1 of 1 */
	assert_int_equal(energy_split__units(&sp, out), -EINVAL);
	sp.nr_units = 2;
	sp.unit_j = (const double[]){ 1, NAN };
	assert_int_equal(energy_split__units(&sp, out), -EINVAL);
	sp.nr_units = 1;
	sp.key_unit = (const int[]){ 0, -2 };
	assert_int_equal(energy_split__units(&sp, out), -EINVAL);
	sp.key_unit = (const int[]){ 0, 0 };
	sp.unit_j = neg;
	assert_int_equal(energy_split__units(&sp, out), -EINVAL);
	sp.unit_j = uj;
	sp.idle_key = 2;
	assert_int_equal(energy_split__units(&sp, out), -EINVAL);
}

static void test_scopes(void **state)
{
	(void)state;
	assert_string_equal(energy_source__scopes_of("powercap"), "package");
	assert_string_equal(energy_source__scopes_of("perf"), "package");
	assert_string_equal(energy_source__scopes_of("model"), "package");
	assert_string_equal(energy_source__scopes_of("amd_energy"), "core+package");
	assert_string_equal(energy_source__scopes_of("power_meter"), "platform");
	assert_string_equal(energy_source__scopes_of("scmi"), "platform");
	assert_null(energy_source__scopes_of("nvml"));
	assert_null(energy_source__scopes_of(NULL));
	assert_string_equal(energy_scope__name(ENERGY_SCOPE_VM_HOST), "vm-host");
	assert_string_equal(energy_scope__name(ENERGY_SCOPE_GPU), "gpu");
	assert_null(energy_scope__name(ENERGY_SCOPE_NR));
	assert_null(energy_scope__name(-1));
}

static void test_sample_add_units(void **state)
{
	static struct energy_sample a, b;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.nr_units = b.nr_units = 3;
	a.unit_scope = b.unit_scope = ENERGY_SCOPE_CORE;
	for (int u = 0; u < 3; u++) {
		a.unit_valid[u] = true;
		a.unit_j[u] = u + 1;
		b.unit_valid[u] = u != 1;
		b.unit_j[u] = 10 * (u + 1);
	}
	energy_sample__add(&a, &b, 0.25);
	assert_double_equal(a.unit_j[0], 1 + 2.5, 1e-12);
	assert_double_equal(a.unit_j[2], 3 + 7.5, 1e-12);
	assert_true(a.unit_valid[0] && !a.unit_valid[1] && a.unit_valid[2]);
	/* no package valid, a core unit valid: not a platform's energy */
	assert_false(energy_sample__any_valid(&a));
	a.unit_scope = ENERGY_SCOPE_PLATFORM;
	assert_true(energy_sample__any_valid(&a));
	a.unit_valid[0] = false;
	assert_false(energy_sample__any_valid(&a));
}

/* --energy's new values: a bad one is a usage error naming them all. */
static void test_spec(void **state)
{
	char err[512];
	int ret = 0;

	(void)state;
	assert_null(energy_source__open("scmi:", NULL, 1, &ret, err, sizeof(err)));
	assert_int_equal(ret, -EINVAL);
	assert_non_null(strstr(err, "power_meter"));
	assert_null(energy_source__open("power_meterX", NULL, 1, &ret, err, sizeof(err)));
	assert_int_equal(ret, -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_power_joules),
		cmocka_unit_test(test_power_joules_ramp),
		cmocka_unit_test(test_units_match_dense),
		cmocka_unit_test(test_units_conserve),
		cmocka_unit_test(test_units_bad),
		cmocka_unit_test(test_scopes),
		cmocka_unit_test(test_sample_add_units),
		cmocka_unit_test(test_spec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
