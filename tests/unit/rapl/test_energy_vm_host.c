// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The vm-host source on fake trees: a zone named "vm-host" (what serve
 * --vm-energy writes on a VM's host) is one unit of scope vm-host over
 * every CPU, chosen by auto before powercap; its counter's steps are its
 * joules, a value renamed into place is read (the host writes so); it
 * does not mix with RAPL package zones, and powercap ignores it.
 */
#include <stdio.h>
#include "energy_tree.h"

/* cmocka 1.1 (Debian 12) has no assert_double_equal */
#define assert_double_equal(a, b, eps) do {				\
		double a_ = (a), b_ = (b);				\
		if (!(fabs(a_ - b_) <= (eps)))				\
			fail_msg("%.17g != %.17g (%s)", a_, b_, #a);	\
	} while (0)

static void put_vm(struct tree *t, unsigned long long uj)
{
	char tmp[PATH_MAX], dst[PATH_MAX];

	/* a new file renamed over the old, as the host's daemon does */
	put_u64(uj, "%s/intel-rapl:0/.energy_uj.tmp", t->pc);
	assert_int_equal(rename(pathf(tmp, "%s/intel-rapl:0/.energy_uj.tmp", t->pc),
				pathf(dst, "%s/intel-rapl:0/energy_uj", t->pc)), 0);
}

static void test_vm_host(void **state)
{
	static const struct zone z[] = {
		{ "intel-rapl:0", "vm-host", 5000000, (1LL << 40) - 1 },
	};
	struct tree *t = *state;
	static struct energy_sample es;
	struct energy_source *s;
	char err[512];
	int ret = 1;

	put_cpus(t, (const int[]){ 0, 0, 0 }, 3);
	put_zones(t, z, 1);
	s = open_tree(t, NULL, 3, &ret, err, sizeof(err));
	assert_non_null(s);
	assert_string_equal(energy_source__name(s), "vm-host");
	assert_string_equal(energy_source__scopes_of("vm-host"), "vm-host");
	assert_int_equal(energy_source__unit_scope(s), ENERGY_SCOPE_VM_HOST);
	assert_int_equal(energy_source__nr_units(s), 1);
	for (int cpu = 0; cpu < 3; cpu++)
		assert_int_equal(energy_source__unit_of_cpu(s, cpu), 0);
	assert_int_equal(energy_source__read(s, 1, NULL, &es), 0);
	assert_true(es.baseline);
	assert_false(energy_sample__any_valid(&es));
	put_vm(t, 7250000);
	assert_int_equal(energy_source__read(s, 1, NULL, &es), 0);
	assert_true(es.unit_valid[0]);
	assert_double_equal(es.unit_j[0], 2.25, J_EPS);
	assert_true(energy_sample__any_valid(&es));
	put_vm(t, 7250000);
	assert_int_equal(energy_source__read(s, 1, NULL, &es), 0);
	assert_double_equal(es.unit_j[0], 0, J_EPS);
	/* a jump of most of a lap is no energy (a host restarted), and
	 * counting goes on from it */
	put_vm(t, (1ULL << 40) - 1 - 500000);
	assert_int_equal(energy_source__read(s, 1, NULL, &es), 0);
	assert_false(es.unit_valid[0]);
	/* the wrap of the host's counter */
	put_vm(t, 1000000);
	assert_int_equal(energy_source__read(s, 1, NULL, &es), 0);
	assert_true(es.unit_valid[0]);
	assert_double_equal(es.unit_j[0], 1.500001, 1e-9);
	energy_source__close(s);

	/* powercap asked for: a vm-host zone is no RAPL zone */
	assert_null(open_tree(t, "powercap", 3, &ret, err, sizeof(err)));
	assert_int_equal(ret, -ENOENT);
	assert_non_null(strstr(err, "no RAPL powercap zones"));
	/* with package zones too: which is meant is unknown */
	put("package-0\n", "%s/intel-rapl:1/name", t->pc);
	put_u64(0, "%s/intel-rapl:1/energy_uj", t->pc);
	assert_null(open_tree(t, "vm-host", 3, &ret, err, sizeof(err)));
	assert_int_equal(ret, -EINVAL);
	assert_non_null(strstr(err, "vm-host zone"));
}

static void test_vm_host_absent(void **state)
{
	struct tree *t = *state;
	struct energy_source *s;
	char err[512];
	int ret = 1;

	fake__put(t, TWO_PACKAGES);
	assert_null(open_tree(t, "vm-host", 4, &ret, err, sizeof(err)));
	assert_int_equal(ret, -ENOENT);
	assert_non_null(strstr(err, "no vm-host zone under"));
	/* auto passes it by */
	s = open_tree(t, NULL, 4, &ret, err, sizeof(err));
	assert_non_null(s);
	assert_string_equal(energy_source__name(s), "powercap");
	energy_source__close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_vm_host, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_vm_host_absent, tree_setup, tree_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
