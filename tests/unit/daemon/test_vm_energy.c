// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * serve --vm-energy's pure parts: CGROUP=DIR (normalized, the root and
 * relative directories refused), and the counter's step (only energy
 * seen moves it; it wraps at VM_ENERGY_RANGE_UJ + 1 as a powercap
 * counter does, which the guest's rapl__delta_uj() undoes).
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include "daemon/vm_energy.h"
#include "rapl/energy.h"
#include "helpers.h"

static void test_parse(void **state)
{
	char cg[PATH_MAX], dir[PATH_MAX], err[256];

	(void)state;
	assert_int_equal(vm_energy__parse("/machine.slice/machine-qemu\\x2d1\\x2dvm1.scope=/srv/emon/vm1",
					  cg, sizeof(cg), dir, sizeof(dir), err, sizeof(err)), 0);
	assert_string_equal(cg, "/machine.slice/machine-qemu\\x2d1\\x2dvm1.scope");
	assert_string_equal(dir, "/srv/emon/vm1");
	assert_int_equal(vm_energy__parse("qemu.slice//100.scope/=/d", cg, sizeof(cg), dir,
					  sizeof(dir), err, sizeof(err)), 0);
	assert_string_equal(cg, "/qemu.slice/100.scope");
	static const char *const bad[] = {
		"/a", "=/d", "/a=", "/a=rel/dir", "/=/d", "/a/../b=/d", "",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(vm_energy__parse(bad[i], cg, sizeof(cg), dir, sizeof(dir),
						  err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "--vm-energy"));
	}
}

static void test_step(void **state)
{
	const __u64 lap = VM_ENERGY_RANGE_UJ + 1;
	__u64 d;

	(void)state;
	assert_int_equal(vm_energy__step(0, 0, 1.5), 1500000);
	assert_int_equal(vm_energy__step(1500000, 1.5, 2.25), 2250000);
	/* a total that went back (a sub-cgroup gone, the VM restarted) */
	assert_int_equal(vm_energy__step(2250000, 2.25, 0.5), 2250000);
	assert_int_equal(vm_energy__step(7, 1.0, 1.0), 7);
	assert_int_equal(vm_energy__step(7, 1.0, 0.0 / 0.0), 7);
	/* the wrap, and the guest's reading of it */
	assert_int_equal(vm_energy__step(lap - 10, 0, 20e-6), 10);
	assert_int_equal(rapl__delta_uj(lap - 10, 10, VM_ENERGY_RANGE_UJ, &d), 0);
	assert_int_equal(d, 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_step),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
