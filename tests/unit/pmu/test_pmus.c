// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pmu/sysfs.c, pmu/terms.c and the per-PMU plan on fixture sysfs trees
 * (tests/fixtures/sysfs/): an Alder Lake (cpu_core 0-15, cpu_atom 16-23,
 * an uncore IMC, msr), an AMD (one cpu PMU, an L3 PMU) and an Arm
 * big.LITTLE (Cortex-A53 0-3, Cortex-A72 4-5). No root, no PMU needed.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "pmu/event.h"
#include "pmu/sysfs.h"
#include "pmu/terms.h"
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

/* ---- PMU/term=value/: good and bad side by side ---- */

struct term_case {
	const char *tree, *event;
	__u32 type;
	__u64 config, config1;
};

struct term_bad {
	const char *tree, *event;
	const char *msg;	/* in the error */
};

#define HW(id, type) ((__u64)(id) | (__u64)(type) << 32)

/* events and the attr they encode to */
static const struct term_case term_cases[] = {
	{ "amd", "cpu/event=0x76/", 4, 0x76, 0 },
	{ "amd", "cpu/event=0xc0,umask=0/", 4, 0xc0, 0 },
	{ "amd", "cpu/event=0x1c2,umask=0x3/", 4, 0x1000003c2ULL, 0 },
	{ "amd", "cpu/event=0xfff/", 4, 0xf000000ffULL, 0 },
	{ "amd", "cpu/cpu-cycles/", 4, 0x76, 0 },
	{ "amd", "cpu/cycles/", PERF_TYPE_HARDWARE, 0, 0 },
	{ "amd", "cpu/cpu-cycles,cmask=2,inv/", 4, 0x02800076, 0 },
	{ "amd", "cpu/event=0xc0,name=retired/", 4, 0xc0, 0 },
	{ "amd", "cpu/config=0x1234/", 4, 0x1234, 0 },
	{ "amd", "cpu/event=0x76/u", 4, 0x76, 0 },
	{ "amd", "cpu/umask=3/", 4, 0x300, 0 },
	{ "amd", "amd_l3/event=0x4,umask=0xff,threadmask=3/", 11, 0x030000000000ff04ULL, 0 },
	{ "alderlake", "cpu_core/event=0x3c/", 4, 0x3c, 0 },
	{ "alderlake", "cpu_atom/event=0x3c/", 10, 0x3c, 0 },
	{ "alderlake", "cpu_core/topdown-retiring/", 4, 0x8000, 0 },
	{ "alderlake", "cpu_atom/topdown-retiring/", 10, 0xc2, 0 },
	{ "alderlake", "cpu_core/slots/", 4, 0x400, 0 },
	{ "alderlake", "cpu_core/mem-loads/", 4, 0x1cd, 3 },
	{ "alderlake", "cpu_core/in_tx/", 4, 1ULL << 32, 0 },
	{ "alderlake", "cpu_core/cycles/", PERF_TYPE_HARDWARE, HW(PERF_COUNT_HW_CPU_CYCLES, 4), 0 },
	{ "alderlake", "cpu_atom/instructions/", 10, 0xc0, 0 },
	{ "alderlake", "cpu_atom/branches/", PERF_TYPE_HARDWARE, HW(PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 10), 0 },
	{ "alderlake", "uncore_imc_0/data_read/", 14, 0x20ff, 0 },
	{ "alderlake", "msr/tsc/", 15, 0, 0 },
	{ "arm", "armv8_cortex_a72/inst_spec/", 9, 0x1b, 0 },
	{ "arm", "armv8_cortex_a53/event=0x11,long/", 8, 0x11, 1 },
};

/* bad ones, each refused with its term (or PMU) named */
static const struct term_bad bad_cases[] = {
	{ "amd", "cpu/event=0x1000/",
	  "value 0x1000 too big for term 'event' of PMU 'cpu' (12 bits)" },
	{ "amd", "cpu/evnt=0x76/",
	  "unknown term 'evnt' for PMU 'cpu'" },
	{ "amd", "cpu/bogus/",
	  "unknown term 'bogus' for PMU 'cpu'" },
	{ "amd", "cpu/event=x/",
	  "term 'event' needs a number" },
	{ "amd", "cpu/event=-1/",
	  "term 'event' needs a number" },
	{ "amd", "cpu/event=/",
	  "term 'event' needs a number" },
	{ "amd", "cpu/period=1000/",
	  "period= is for sampling" },
	{ "amd", "cpu/cpu=1/",
	  "cpu= is not supported" },
	{ "amd", "cpu//",
	  "no terms" },
	{ "amd", "cpu/event=1",
	  "not in the PMU/term=value" },
	{ "amd", "/event=1/",
	  "not in the PMU/term=value" },
	{ "amd", "cpu/event=1/x",
	  "bad modifier 'x'" },
	{ "amd", "cpu/event=1/uu",
	  "bad modifier 'uu'" },
	{ "amd", "gpu/event=1/",
	  "unknown PMU 'gpu'" },
	{ "amd", "cpu/cycles,umask=1/",
	  "takes no other terms" },
	{ "amd", "amd_l3/sliceid=8/",
	  "value 8 too big for term 'sliceid' of PMU 'amd_l3' (3 bits)" },
	{ "alderlake", "cpu_atom/slots/",
	  "unknown term 'slots' for PMU 'cpu_atom'" },
	{ "alderlake", "cpu_core/event=0xcd,umask=1,ldlat=0x10000/",
	  "too big for term 'ldlat' of PMU 'cpu_core' (16 bits)" },
	{ "alderlake", "cpu_atom/in_tx/",
	  "unknown term 'in_tx' for PMU 'cpu_atom'" },
	{ "alderlake", "cpu/cycles/",
	  "unknown PMU 'cpu'" },
	{ "alderlake", "uncore_imc_0/data_read.scale/",
	  "unknown term 'data_read.scale'" },
	{ "alderlake", "uncore_imc_0/cycles/",
	  "unknown term 'cycles' for PMU 'uncore_imc_0'" },
	{ "alderlake", "software/cpu-clock/",
	  "unknown term 'cpu-clock' for PMU 'software'" },
	{ "arm", "armv8_cortex_a53/inst_spec/",
	  "unknown term 'inst_spec' for PMU 'armv8_cortex_a53'" },
	{ "arm", "armv8_cortex_a53/event=0x10000/",
	  "too big for term 'event' of PMU 'armv8_cortex_a53' (16 bits)" },
};

/* The attr tree's PMUs give event, or -EINVAL with the error in err */
static int terms__resolve(const char *tree, const char *event,
			  struct perf_event_attr *attr, char *err, size_t len)
{
	const struct pmu_sysfs *pmu = NULL;
	char root[256];
	struct pmus p;
	int ret;

	snprintf(root, sizeof(root), "%s/%s", FIXTURES, tree);
	assert_int_equal(pmus__load(&p, root), 0);
	ret = pmu_terms__resolve(&p, event, attr, &pmu, err, len);
	print_message("%s %s -> %d type %u config %#llx config1 %#llx %s\n",
		      tree, event, ret, attr->type,
		      (unsigned long long)attr->config,
		      (unsigned long long)attr->config1, ret ? err : "");
	assert_true(ret || pmu);
	pmus__free(&p);
	return ret;
}

static void test_terms(void **state)
{
	const struct term_case *c = *state;
	struct perf_event_attr attr;
	char err[256] = "";

	assert_int_equal(terms__resolve(c->tree, c->event, &attr, err,
					sizeof(err)), 0);
	assert_int_equal(attr.type, c->type);
	assert_int_equal(attr.config, c->config);
	assert_int_equal(attr.config1, c->config1);
}

static void test_terms_bad(void **state)
{
	const struct term_bad *c = *state;
	struct perf_event_attr attr;
	char err[256] = "";

	assert_int_equal(terms__resolve(c->tree, c->event, &attr, err,
					sizeof(err)), -EINVAL);
	assert_contains(err, c->msg);
	assert_contains(err, c->event);
}

static void test_terms_modifiers(void **state)
{
	const struct pmu_sysfs *pmu;
	struct perf_event_attr a;
	char err[256];
	struct pmus p;

	(void)state;
	assert_int_equal(pmus__load(&p, FIXTURES "/amd"), 0);
	assert_int_equal(pmu_terms__resolve(&p, "cpu/event=0x76/u", &a, &pmu,
					    err, sizeof(err)), 0);
	assert_true(!a.exclude_user && a.exclude_kernel && a.exclude_hv);
	assert_int_equal(pmu_terms__resolve(&p, "cpu/event=0x76/k", &a, &pmu,
					    err, sizeof(err)), 0);
	assert_true(a.exclude_user && !a.exclude_kernel && a.exclude_hv);
	assert_int_equal(pmu_terms__resolve(&p, "cpu/event=0x76/", &a, &pmu,
					    err, sizeof(err)), 0);
	assert_true(!a.exclude_user && !a.exclude_kernel && !a.exclude_hv);
	pmus__free(&p);
}

/* list's RAPL PMU (libpfm4 finds it by the CPU model, a VM's too) says
 * whether the host has RAPL, as check does: the power PMU or a powercap
 * zone; not supported without either. */
static void test_rapl_marker(void **state)
{
	char root[] = "/tmp/emon-rapl-XXXXXX", sys[64], pc[64], d[128];
	const char *m;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(sys, sizeof(sys), "%s/devices", root);
	snprintf(pc, sizeof(pc), "%s/powercap", root);
	assert_int_equal(mkdir(sys, 0755), 0);
	assert_int_equal(mkdir(pc, 0755), 0);
	assert_null(pmu__rapl_marker("amd64_fam19h_zen4", sys, pc));
	m = pmu__rapl_marker("amd64_rapl", sys, pc);
	assert_non_null(m);
	assert_contains(m, "<not supported>: no RAPL on this host");
	snprintf(d, sizeof(d), "%s/intel-rapl:0", pc);
	assert_int_equal(mkdir(d, 0755), 0);
	assert_contains(pmu__rapl_marker("rapl", sys, pc), "RAPL here: powercap");
	rmdir(d);
	snprintf(d, sizeof(d), "%s/power", sys);
	assert_int_equal(mkdir(d, 0755), 0);
	assert_contains(pmu__rapl_marker("amd64_rapl", sys, pc), "RAPL here: the kernel's 'power' PMU");
	rmdir(d);
	rmdir(sys);
	rmdir(pc);
	rmdir(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_core_of_cpu),
		cmocka_unit_test(test_rapl_marker),
		cmocka_unit_test(test_cpus_parse),
		cmocka_unit_test(test_format_parse),
		cmocka_unit_test(test_terms_modifiers),
	};

	return run_tests_and_cases(tests, test_discover, pmu_cases, pmu) |
	       tests__run(NULL, 0, test_terms, term_cases, ARRAY_SIZE(term_cases),
			  sizeof(term_cases[0]), offsetof(struct term_case, event)) |
	       tests__run(NULL, 0, test_terms_bad, bad_cases, ARRAY_SIZE(bad_cases),
			  sizeof(bad_cases[0]), offsetof(struct term_bad, event));
}
