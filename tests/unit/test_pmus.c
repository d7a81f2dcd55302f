// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pmu/sysfs.c, pmu/terms.c and the per-PMU plan on fixture sysfs trees
 * (tests/fixtures/sysfs/): an Alder Lake (cpu_core 0-15, cpu_atom 16-23,
 * an uncore IMC, msr), an AMD (one cpu PMU, an L3 PMU) and an Arm
 * big.LITTLE (Cortex-A53 0-3, Cortex-A72 4-5). No root, no PMU needed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "pmu/sysfs.h"
#include "helpers.h"

#ifndef FIXTURES
#define FIXTURES "tests/fixtures/sysfs"
#endif

#define assert_contains(haystack, needle) do {				\
	if (!strstr((haystack), (needle)))				\
		fail_msg("'%s' does not contain '%s'", (haystack), (needle)); \
} while (0)

/* ---- discovery ---- */

struct pmu_case {
	const char *tree, *pmu;
	__u32 type;
	bool is_core, is_uncore;
	const char *cpus;	/* "" without a cpus file */
	int nr_formats, nr_aliases;
};

static const struct pmu_case pmu_cases[] = {
	{ "alderlake", "cpu_core", 4, true, false, "0-15", 11, 15 },
	{ "alderlake", "cpu_atom", 10, true, false, "16-23", 8, 14 },
	{ "alderlake", "uncore_imc_0", 14, false, true, "", 2, 1 },
	{ "alderlake", "msr", 15, false, false, "", 1, 2 },
	{ "alderlake", "software", 1, false, false, "", 0, 0 },
	{ "amd", "cpu", 4, true, false, "", 5, 5 },
	{ "amd", "amd_l3", 11, false, true, "", 7, 0 },
	{ "arm", "armv8_cortex_a53", 8, true, false, "0-3", 2, 5 },
	{ "arm", "armv8_cortex_a72", 9, true, false, "4-5", 2, 6 },
};

static void test_discover(void **state)
{
	const struct pmu_case *c = *state;
	const struct pmu_sysfs *pmu;
	char root[256], cpus[64] = "";
	struct pmus p;

	snprintf(root, sizeof(root), "%s/%s", FIXTURES, c->tree);
	assert_int_equal(pmus__load(&p, root), 0);
	pmu = pmus__find(&p, c->pmu);
	assert_non_null(pmu);
	if (pmu->has_cpus)
		pmu_cpus__format(&pmu->cpus, cpus, sizeof(cpus));
	print_message("%s/%s: type %u core %d uncore %d cpus '%s' %d formats %d aliases\n",
		      c->tree, c->pmu, pmu->type, pmu->is_core, pmu->is_uncore,
		      cpus, pmu->nr_formats, pmu->nr_aliases);
	assert_int_equal(pmu->type, c->type);
	assert_int_equal(pmu->is_core, c->is_core);
	assert_int_equal(pmu->is_uncore, c->is_uncore);
	assert_string_equal(cpus, c->cpus);
	assert_int_equal(pmu->nr_formats, c->nr_formats);
	assert_int_equal(pmu->nr_aliases, c->nr_aliases);
	assert_null(pmus__find(&p, "nope"));
	pmus__free(&p);
}

static void test_core_of_cpu(void **state)
{
	static const struct {
		const char *tree;
		int cpu;
		const char *pmu;	/* NULL: none */
	} cases[] = {
		{ "alderlake", 0, "cpu_core" }, { "alderlake", 15, "cpu_core" },
		{ "alderlake", 16, "cpu_atom" }, { "alderlake", 23, "cpu_atom" },
		{ "alderlake", 24, NULL },
		{ "amd", 0, "cpu" }, { "amd", 4095, "cpu" },
		{ "arm", 3, "armv8_cortex_a53" }, { "arm", 4, "armv8_cortex_a72" },
		{ "arm", 6, NULL },
		{ "missing", 0, NULL },
	};
	char root[256];
	struct pmus p;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct pmu_sysfs *pmu;

		snprintf(root, sizeof(root), "%s/%s", FIXTURES, cases[i].tree);
		assert_int_equal(pmus__load(&p, root), 0);
		pmu = pmus__core_of_cpu(&p, cases[i].cpu);
		if (cases[i].pmu)
			assert_string_equal(pmu ? pmu->name : "(none)", cases[i].pmu);
		else
			assert_null(pmu);
		pmus__free(&p);
	}
}

static void test_cpus_parse(void **state)
{
	static const struct {
		const char *list;
		int ret;
		const char *back;
	} cases[] = {
		{ "0-15", 0, "0-15" }, { "0-3,5,7-9", 0, "0-3,5,7-9" },
		{ "16-23", 0, "16-23" }, { "0,1,2", 0, "0-2" }, { "", 0, "" },
		{ "4095", 0, "4095" },
		{ "4096", -EINVAL, NULL }, { "3-1", -EINVAL, NULL },
		{ "a", -EINVAL, NULL }, { "1-", -EINVAL, NULL },
		{ "1;2", -EINVAL, NULL }, { "-1", -EINVAL, NULL },
	};
	struct pmu_cpus set;
	char buf[64];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		print_message("'%s'\n", cases[i].list);
		assert_int_equal(pmu_cpus__parse(&set, cases[i].list), cases[i].ret);
		if (cases[i].ret)
			continue;
		pmu_cpus__format(&set, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].back);
	}
}

static void test_format_parse(void **state)
{
	static const struct {
		const char *spec;
		int ret, word;
		__u64 mask;
	} cases[] = {
		{ "config:0-7", 0, 0, 0xff },
		{ "config1:0-15", 0, 1, 0xffff },
		{ "config2:0", 0, 2, 1 },
		{ "config:21", 0, 0, 1ULL << 21 },
		{ "config:0-7,32-35", 0, 0, 0xf000000ffULL },
		{ "config:8-15,32-35", 0, 0, 0xf0000ff00ULL },
		{ "config1:0-63", 0, 1, ~0ULL },
		{ "config3:0-7", -EINVAL, 0, 0 },
		{ "config:", -EINVAL, 0, 0 },
		{ "config:0-64", -EINVAL, 0, 0 },
		{ "config:7-0", -EINVAL, 0, 0 },
		{ "config 0-7", -EINVAL, 0, 0 },
		{ "event:0-7", -EINVAL, 0, 0 },
	};
	struct pmu_format f;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		print_message("'%s'\n", cases[i].spec);
		assert_int_equal(pmu_format__parse(&f, cases[i].spec), cases[i].ret);
		if (cases[i].ret)
			continue;
		assert_int_equal(f.word, cases[i].word);
		assert_int_equal(f.mask, cases[i].mask);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_core_of_cpu),
		cmocka_unit_test(test_cpus_parse),
		cmocka_unit_test(test_format_parse),
	};

	return run_tests_and_cases(tests, test_discover, pmu_cases, pmu);
}
