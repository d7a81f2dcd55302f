// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pmu/: event lists -> perf_event_attr and their errors; parsing needs
 * no PMU and no privileges. Per-CPU opening and emon-perf list are
 * test_event_open.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmu/event.h"
#include "helpers.h"

#define ERRLEN 256

#define assert_contains(haystack, needle) do {				\
	if (!strstr((haystack), (needle)))				\
		fail_msg("'%s' does not contain '%s'", (haystack), (needle)); \
} while (0)

/* ---- parsing: good and bad lists side by side ---- */

struct parse_case {
	const char *spec;
	int ret;
	int nr;			/* events in the list afterwards */
	const char *msg;	/* in err when ret != 0; else the first name */
};

static const struct parse_case parse_cases[] = {
	{ "cpu-clock", 0, 1, "cpu-clock" },
	{ "cycles,instructions,cpu-clock", 0, 3, "cycles" },
	{ "  cpu-clock ,\tcontext-switches\n", 0, 2, "cpu-clock" },
	{ "cycles,instructions,cache-misses,cache-references,branches,"
	  "branch-misses,cpu-clock,task-clock", 0, 8, "cycles" },
	{ "context-switches,cpu-migrations,page-faults,minor-faults,"
	  "major-faults", 0, 5, "context-switches" },
	{ "cs", 0, 1, "cs" },
	{ "CPU-CLOCK", 0, 1, "CPU-CLOCK" },
	{ "cycles:u,instructions:k,cycles:k", 0, 3, "cycles:u" },
	{ "cycles:uk,cycles:u", 0, 2, "cycles:uk" },
	{ "r01c2,r0x1c3", 0, 2, "r01c2" },
	{ "L1-dcache-load-misses,dTLB-loads", 0, 2, "L1-dcache-load-misses" },
	{ "perf::cpu-clock", 0, 1, "perf::cpu-clock" },

	{ "", -EINVAL, 0, "empty event list" },
	{ " \t ", -EINVAL, 0, "empty event list" },
	{ "cpu-clock,,cs", -EINVAL, 0, "two commas in a row" },
	{ "cpu-clock, ,cs", -EINVAL, 0, "two commas in a row" },
	{ "cpu-clock,", -EINVAL, 0, "trailing comma" },
	{ ",cpu-clock", -EINVAL, 0, "leading comma" },
	{ "cpu-clock,cpu-clock", -EINVAL, 0, "event 'cpu-clock' given twice" },
	{ "cpu-clock , cpu-clock", -EINVAL, 0, "event 'cpu-clock' given twice" },
	{ "cs,context-switches", -EINVAL, 0,
	  "event 'context-switches' counts the same as 'cs'" },
	{ "cycles,cycles:u:k", -EINVAL, 0, "counts the same as 'cycles'" },
	{ "a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q", -E2BIG, 0,
	  "too many events: 17 given, at most 16" },
	{ "cycles,instructions,cache-misses,cache-references,branches,"
	  "branch-misses,cpu-clock,task-clock,cs,page-faults,minor-faults,"
	  "major-faults,cpu-migrations,ref-cycles,bus-cycles,L1-dcache-loads,"
	  "L1-dcache-load-misses", -E2BIG, 0,
	  "too many events: 17 given, at most 16" },
	{ "foo", -EINVAL, 0, "unknown event 'foo'" },
	{ "cpu-clock,foo", -EINVAL, 0, "unknown event 'foo'" },
	{ "cpu clock", -EINVAL, 0, "unknown event 'cpu clock'" },
	{ "R1c2", -EINVAL, 0, "unknown event 'R1c2'" },
	{ "rzz", -EINVAL, 0, "unknown event 'rzz'" },
	{ "cycles:x", -EINVAL, 0, "bad modifier in event 'cycles:x'" },
	{ "cycles:uu", -EINVAL, 0, "bad modifier in event 'cycles:uu'" },
	{ "cycles:u=2", -EINVAL, 0, "bad modifier in event 'cycles:u=2'" },
	{ "cycles:", -EINVAL, 0, "bad modifier in event 'cycles:'" },
	{ "cycles:period=1000", -EINVAL, 0, "for sampling" },
	{ "cycles:freq=99", -EINVAL, 0, "for sampling" },
	{ "cycles:cpu=1", -EINVAL, 0, "cpu= is not supported" },
};

static void test_parse_table(void **state)
{
	char err[ERRLEN];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(parse_cases); i++) {
		const struct parse_case *c = &parse_cases[i];
		struct pmu_event_list l = {};
		int ret;

		err[0] = '\0';
		ret = pmu_event_list__parse(&l, c->spec, err, sizeof(err));
		print_message("'%s' -> %d %s\n", c->spec, ret, err);
		assert_int_equal(ret, c->ret);
		assert_int_equal(l.nr, c->nr);
		if (ret)
			assert_contains(err, c->msg);
		else
			assert_string_equal(l.ev[0].name, c->msg);
	}
}

static void test_parse_name_too_long(void **state)
{
	char name[PMU_EVENT_NAME_LEN + 10], err[ERRLEN];
	struct pmu_event_list l = {};

	(void)state;
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	assert_int_equal(pmu_event_list__parse(&l, name, err, sizeof(err)),
			 -EINVAL);
	assert_contains(err, "event name too long");
	assert_int_equal(l.nr, 0);
}

/* Lists append; a failed parse leaves what was there. */
static void test_parse_appends(void **state)
{
	struct pmu_event_list l = {};
	char err[ERRLEN];

	(void)state;
	assert_int_equal(pmu_event_list__parse(&l, "cycles", err, sizeof(err)), 0);
	assert_int_equal(pmu_event_list__parse(&l, "instructions,cs", err,
					       sizeof(err)), 0);
	assert_int_equal(l.nr, 3);
	assert_string_equal(l.ev[2].name, "cs");

	assert_int_equal(pmu_event_list__parse(&l, "cycles", err, sizeof(err)),
			 -EINVAL);
	assert_contains(err, "event 'cycles' given twice");
	assert_int_equal(pmu_event_list__parse(&l, "a,b,c,d,e,f,g,h,i,j,k,l,m,n",
					       err, sizeof(err)), -E2BIG);
	assert_contains(err, "too many events: 17 given, at most 16");
	assert_int_equal(pmu_event_list__parse(&l, "cpu-clock,nope", err,
					       sizeof(err)), -EINVAL);
	assert_int_equal(l.nr, 3);

	assert_int_equal(pmu_event_list__parse(&l, "a,b,c,d,e", err,
					       sizeof(err)), -EINVAL);
	assert_contains(err, "unknown event 'a'");
	assert_int_equal(pmu_event_list__parse(&l, "cpu-clock,task-clock,"
					       "page-faults,minor-faults,major-faults,"
					       "branches,branch-misses,cache-misses,"
					       "cache-references,ref-cycles,bus-cycles,"
					       "L1-dcache-loads,L1-dcache-load-misses",
					       err, sizeof(err)), 0);
	assert_int_equal(l.nr, EMON_MAX_EVENTS);
	assert_int_equal(pmu_event_list__parse(&l, "cpu-migrations", err,
					       sizeof(err)), -E2BIG);
	assert_contains(err, "too many events: 17 given, at most 16");
}

/* ---- resolution: what each name turns into ---- */

struct attr_case {
	const char *name;
	__u32 type;
	__u64 config;
	bool is_time;
	bool exclude_user, exclude_kernel;
};

static const struct attr_case attr_cases[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false, 0, 0 },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false, 0, 0 },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, false, 0, 0 },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, false, 0, 0 },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, false, 0, 0 },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, false, 0, 0 },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, false, 0, 0 },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true, 0, 0 },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, true, 0, 0 },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, false, 0, 0 },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, false, 0, 0 },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, false, 0, 0 },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, false, 0, 0 },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, false, 0, 0 },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, false, 0, 0 },
	{ "cycles:u", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false, 0, 1 },
	{ "instructions:k", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, false, 1, 0 },
	{ "cycles:uk", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false, 0, 0 },
	{ "cycles:ku", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false, 0, 0 },
	{ "cpu-clock:u", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true, 0, 1 },
	{ "task-clock:k", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, true, 1, 0 },
	{ "r01c2", PERF_TYPE_RAW, 0x1c2, false, 0, 0 },
	{ "r1C2:u", PERF_TYPE_RAW, 0x1c2, false, 0, 1 },
	{ "r1234567890abcdef", PERF_TYPE_RAW, 0x1234567890abcdefULL, false, 0, 0 },
	{ "L1-dcache-load-misses", PERF_TYPE_HW_CACHE,
	  PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_OP_READ << 8 |
	  PERF_COUNT_HW_CACHE_RESULT_MISS << 16, false, 0, 0 },
};

static void test_resolve_table(void **state)
{
	char err[ERRLEN];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(attr_cases); i++) {
		const struct attr_case *c = &attr_cases[i];
		struct pmu_event e;
		int ret;

		err[0] = '\0';
		ret = pmu_event__resolve(&e, c->name, err, sizeof(err));
		print_message("%s -> %d type %u config %#llx %s\n", c->name, ret,
			      e.attr.type, (unsigned long long)e.attr.config, err);
		assert_int_equal(ret, 0);
		assert_string_equal(e.name, c->name);
		assert_int_equal(e.attr.type, c->type);
		assert_int_equal(e.attr.config, c->config);
		assert_int_equal(e.is_time, c->is_time);
		assert_int_equal(e.attr.exclude_user, c->exclude_user);
		assert_int_equal(e.attr.exclude_kernel, c->exclude_kernel);
		/* counting, never sampling; times for the multiplexing scale */
		assert_int_equal(e.attr.size, sizeof(e.attr));
		assert_int_equal(e.attr.read_format,
				 PERF_FORMAT_TOTAL_TIME_ENABLED |
				 PERF_FORMAT_TOTAL_TIME_RUNNING);
		assert_int_equal(e.attr.disabled, 0);
		assert_int_equal(e.attr.inherit, 0);
		assert_int_equal(e.attr.sample_period, 0);
		assert_int_equal(e.attr.freq, 0);
		assert_int_equal(e.attr.sample_type, 0);
		assert_false(e.supported);
		assert_null(e.fds);
	}
}

/*
 * A PMU-specific name resolves where libpfm4 finds that PMU (Intel cores)
 * and is an unknown event elsewhere (AMD, other arches): either way it must
 * not be taken for something else.
 */
static void test_resolve_pmu_specific(void **state)
{
	char err[ERRLEN] = "";
	struct pmu_event e;
	int ret;

	(void)state;
	ret = pmu_event__resolve(&e, "INST_RETIRED:ANY_P", err, sizeof(err));
	print_message("INST_RETIRED:ANY_P -> %d type %u config %#llx %s\n", ret,
		      e.attr.type, (unsigned long long)e.attr.config, err);
	if (ret) {
		assert_int_equal(ret, -EINVAL);
		assert_contains(err, "unknown event 'INST_RETIRED:ANY_P'");
	} else {
		assert_true(e.attr.type == PERF_TYPE_RAW ||
			    e.attr.type >= PERF_TYPE_MAX);
		assert_int_equal(e.attr.config & 0xff, 0xc0);
	}
}

static void test_strerror(void **state)
{
	(void)state;
	assert_string_equal(pmu_event__strerror(0), "supported");
	assert_contains(pmu_event__strerror(-ENOENT), "not supported on this PMU (a VM?)");
	assert_contains(pmu_event__strerror(-EOPNOTSUPP), "not supported on this PMU (a VM?)");
	assert_contains(pmu_event__strerror(-ENODEV), "a VM?");
	assert_contains(pmu_event__strerror(-EACCES), "CAP_PERFMON");
	assert_contains(pmu_event__strerror(-EPERM), "root");
	assert_contains(pmu_event__strerror(-EMFILE), "ulimit -n");
	assert_string_equal(pmu_event__strerror(-EIO), strerror(EIO));
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_table),
		cmocka_unit_test(test_parse_name_too_long),
		cmocka_unit_test(test_parse_appends),
		cmocka_unit_test(test_resolve_table),
		cmocka_unit_test(test_resolve_pmu_specific),
		cmocka_unit_test(test_strerror),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
