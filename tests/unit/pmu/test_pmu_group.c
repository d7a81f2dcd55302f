// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * perf's {a,b} event groups: the list syntax (braces, modifiers after the
 * group, bad lists next to good ones), and the opening through stand-ins
 * for perf_event_open: each member joins its leader's fd on the same CPU,
 * a group one of whose events cannot be opened is <not supported> as a
 * whole, a CPU back online reopens the leader then its members. The AMD
 * fixture tree (tests/fixtures/sysfs/amd: one core PMU) keeps the plan
 * the same on every machine. No root, no PMU.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmu/event.h"
#include "helpers.h"

#define ROOT "tests/fixtures/sysfs/amd"
#define NCPUS 4
#define FAKE_FD 1000
#define MAX_OPENS 256

/* ---- parsing ---- */

struct group_case {
	const char *name, *spec;
	int nr;
	const char *names[6];	/* each event's name */
	int off[6];		/* its group_off */
	int gnr[6];		/* its group_nr */
};

/* a bad list, and what its error says */
static const struct bad_group_case {
	const char *name, *spec;
	int ret;
	const char *msg;
} bad_group_cases[] = {
	{ "unclosed", "{cycles,instructions", -EINVAL, "'{' without '}'" },
	{ "unopened", "cycles,instructions}", -EINVAL, "'}' without '{'" },
	{ "nested", "{cycles,{instructions}}", -EINVAL, "misplaced '{'" },
	{ "brace inside", "cyc{les", -EINVAL, "misplaced '{'" },
	{ "empty", "{}", -EINVAL, "empty event name in a group" },
	{ "empty member", "{cycles,}", -EINVAL, "empty event name in a group" },
	{ "bad modifier", "{cycles,instructions}:x", -EINVAL, "bad group modifier ':x'" },
	{ "no colon", "{cycles,instructions}u", -EINVAL, "bad group modifier 'u'" },
	{ "twice", "{cycles,cycles}", -EINVAL, "event 'cycles' given twice" },
	{ "members count", "{cycles,instructions,branches,branch-misses,cs},{cpu-clock,task-clock,page-faults,minor-faults},"
	  "{major-faults,cpu-migrations,cache-misses,cache-references,ref-cycles,bus-cycles,L1-dcache-loads,L1-dcache-load-misses}",
	  -E2BIG, "too many events: 17 given, at most 16" },
	{ "unknown member", "{cycles,nope}", -EINVAL, "unknown event 'nope'" },
};

static void test_group_parse_bad(void **state)
{
	struct pmu_event_list l = {};
	char err[256];

	(void)state;
	pmus__set_root(ROOT);
	for (size_t i = 0; i < ARRAY_SIZE(bad_group_cases); i++) {
		const struct bad_group_case *c = &bad_group_cases[i];

		err[0] = '\0';
		assert_int_equal(pmu_event_list__parse(&l, c->spec, err, sizeof(err)),
				 c->ret);
		print_message("'%s' -> %s\n", c->spec, err);
		assert_int_equal(l.nr, 0);
		if (!strstr(err, c->msg))
			fail_msg("%s: '%s' does not contain '%s'", c->name, err, c->msg);
	}
	pmus__set_root(NULL);
}

static const struct group_case group_cases[] = {
	{ "pair", "{cycles,instructions}", 2,
	  { "cycles", "instructions" }, { 0, -1 }, { 2, 1 } },
	{ "modifiers", "{cycles,instructions}:u", 2,
	  { "cycles:u", "instructions:u" }, { 0, -1 }, { 2, 1 } },
	{ "two letters", "{cycles,branches}:uk", 2,
	  { "cycles:uk", "branches:uk" }, { 0, -1 }, { 2, 1 } },
	{ "between", "cpu-clock,{cycles,instructions,branches},cs", 5,
	  { "cpu-clock", "cycles", "instructions", "branches", "cs" },
	  { 0, 0, -1, -2, 0 }, { 1, 3, 1, 1, 1 } },
	{ "two groups", "{cycles,instructions},{branches,branch-misses}", 4,
	  { "cycles", "instructions", "branches", "branch-misses" },
	  { 0, -1, 0, -1 }, { 2, 1, 2, 1 } },
	{ "spaces", " { cycles , instructions } ", 2,
	  { "cycles", "instructions" }, { 0, -1 }, { 2, 1 } },
	{ "one", "{cycles}", 1, { "cycles" }, { 0 }, { 1 } },
	{ "pmu terms", "{cpu/event=0x76/,instructions}:k", 2,
	  { "cpu/event=0x76/k", "instructions:k" }, { 0, -1 }, { 2, 1 } },
	{ "software", "{cpu-clock,page-faults}", 2,
	  { "cpu-clock", "page-faults" }, { 0, -1 }, { 2, 1 } },

};

static void test_group_parse(void **state)
{
	const struct group_case *c = *state;
	struct pmu_event_list l = {};
	char err[256] = "";
	int ret;

	pmus__set_root(ROOT);
	ret = pmu_event_list__parse(&l, c->spec, err, sizeof(err));
	print_message("'%s' -> %d %s\n", c->spec, ret, err);
	assert_int_equal(ret, 0);
	assert_int_equal(l.nr, c->nr);
	for (int i = 0; i < l.nr; i++) {
		assert_string_equal(l.ev[i].name, c->names[i]);
		assert_int_equal(l.ev[i].group_off, c->off[i]);
		assert_int_equal(l.ev[i].group_nr, c->gnr[i]);
	}
	pmus__set_root(NULL);
}

/* ---- opening, through stand-ins ---- */

/* every open the stand-in saw, by fd - FAKE_FD, and what to fail */
static struct {
	__u64 config[MAX_OPENS];
	int cpu[MAX_OPENS], group_fd[MAX_OPENS];
	bool closed[MAX_OPENS], disabled[MAX_OPENS];
	/* enables of fd at the time: members that had joined it */
	int enabled_with[MAX_OPENS];
	int nr_open, nr_close;
	__u64 fail_config;	/* a hardware event's config */
	int fail_errno;		/* 0: fail nothing */
} fake;

static int fake_open(const struct perf_event_attr *attr, pid_t pid, int cpu,
		     int group_fd, unsigned long flags)
{
	int n = fake.nr_open;

	(void)pid; (void)flags;
	if (fake.fail_errno && attr->type == PERF_TYPE_HARDWARE &&
	    attr->config == fake.fail_config) {
		errno = fake.fail_errno;
		return -1;
	}
	assert_true(n < MAX_OPENS);
	/* the kernel refuses a group_fd that is not an open event */
	if (group_fd >= 0)
		assert_false(fake.closed[group_fd - FAKE_FD]);
	fake.config[n] = attr->type == PERF_TYPE_HARDWARE ? attr->config :
			 ~0ULL - attr->config;
	fake.cpu[n] = cpu;
	fake.group_fd[n] = group_fd;
	fake.disabled[n] = attr->disabled;
	fake.nr_open++;
	return FAKE_FD + n;
}

static int fake_close(int fd)
{
	assert_true(fd >= FAKE_FD && fd < FAKE_FD + fake.nr_open);
	assert_false(fake.closed[fd - FAKE_FD]);
	fake.closed[fd - FAKE_FD] = true;
	fake.nr_close++;
	return 0;
}

static int fake_enable(int fd)
{
	int n = 0;

	assert_true(fd >= FAKE_FD && fd < FAKE_FD + fake.nr_open);
	assert_false(fake.closed[fd - FAKE_FD]);
	for (int i = 0; i < fake.nr_open; i++)
		n += fake.group_fd[i] == fd && !fake.closed[i];
	fake.enabled_with[fd - FAKE_FD] = n;
	return 0;
}

static const struct pmu_sys_ops fake_ops = { fake_open, fake_close, fake_enable };

static int list__open(struct pmu_event_list *l, const char *spec,
		      __u64 fail_config, int fail_errno)
{
	bool online[NCPUS] = { true, true, false, true };
	char err[256] = "";
	int ret;

	memset(&fake, 0, sizeof(fake));
	fake.fail_config = fail_config;
	fake.fail_errno = fail_errno;
	pmus__set_root(ROOT);
	pmu_sys__set_ops(&fake_ops);
	memset(l, 0, sizeof(*l));
	assert_int_equal(pmu_event_list__parse(l, spec, err, sizeof(err)), 0);
	ret = pmu_event_list__open(l, NCPUS, online, err, sizeof(err));
	print_message("%s: %d %s\n", spec, ret, err);
	return ret;
}

static void list__close(struct pmu_event_list *l)
{
	for (int i = 0; i < l->nr; i++)
		pmu_event__close(&l->ev[i]);
	assert_int_equal(fake.nr_close, fake.nr_open);
	pmu_sys__set_ops(NULL);
	pmus__set_root(NULL);
}

/* each member's fd on each CPU joined its leader's fd on that CPU */
static void group__check_fds(const struct pmu_event *lead,
			     const struct pmu_event *m, int members)
{
	for (int cpu = 0; cpu < NCPUS; cpu++) {
		int fd = m->fds[cpu];

		assert_int_equal(fd < 0, lead->fds[cpu] < 0);
		if (fd < 0)
			continue;
		assert_int_equal(fake.cpu[fd - FAKE_FD], cpu);
		assert_int_equal(fake.group_fd[fd - FAKE_FD], lead->fds[cpu]);
		assert_int_equal(fake.group_fd[lead->fds[cpu] - FAKE_FD], -1);
		/* the leader opened disabled, enabled once all had joined */
		assert_true(fake.disabled[lead->fds[cpu] - FAKE_FD]);
		assert_false(fake.disabled[fd - FAKE_FD]);
		assert_int_equal(fake.enabled_with[lead->fds[cpu] - FAKE_FD],
				 members);
	}
}

static void test_group_fds(void **state)
{
	struct pmu_event_list l;

	(void)state;
	assert_int_equal(list__open(&l, "cs,{cycles,instructions,branches}", 0, 0), 0);
	for (int i = 0; i < l.nr; i++)
		assert_true(l.ev[i].supported);
	assert_int_equal(l.ev[1].fds[2], -1);	/* offline */
	assert_ptr_equal(pmu_event__scale_leader(&l.ev[2]), &l.ev[1]);
	assert_ptr_equal(pmu_event__scale_leader(&l.ev[3]), &l.ev[1]);
	assert_ptr_equal(pmu_event__scale_leader(&l.ev[1]), &l.ev[1]);
	assert_ptr_equal(pmu_event__scale_leader(&l.ev[0]), &l.ev[0]);
	group__check_fds(&l.ev[1], &l.ev[2], 2);
	group__check_fds(&l.ev[1], &l.ev[3], 2);
	assert_int_equal(fake.nr_open, 3 * 3);	/* cs: from the switch */

	/* CPU 1 back online: the leader first, its members join the new fd */
	for (int i = 0; i < l.nr; i++)
		assert_int_equal(pmu_event__reopen_cpu(&l.ev[i], 1), 0);
	group__check_fds(&l.ev[1], &l.ev[2], 2);
	group__check_fds(&l.ev[1], &l.ev[3], 2);
	assert_int_equal(fake.nr_open, 3 * 3 + 3);
	list__close(&l);
}

/* The group's leader is its first event with a perf_event. */
static void test_group_switch_member(void **state)
{
	struct pmu_event_list l;

	(void)state;
	assert_int_equal(list__open(&l, "{cpu-clock,cycles,page-faults}", 0, 0), 0);
	assert_int_equal(l.ev[0].from, PMU_FROM_CLOCK);
	assert_ptr_equal(pmu_event__scale_leader(&l.ev[0]), &l.ev[0]);
	assert_ptr_equal(pmu_event__scale_leader(&l.ev[2]), &l.ev[1]);
	group__check_fds(&l.ev[1], &l.ev[2], 1);
	list__close(&l);
}

/* One event that cannot be opened fails its group, as in perf, and only it. */
static void test_group_fails_whole(void **state)
{
	static const struct {
		const char *spec;
		__u64 fail;
		int err;
		bool supported[4];
	} cases[] = {
		{ "cs,{cycles,instructions,branches}", PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
		  ENOENT, { true, false, false, false } },
		{ "{cycles,instructions},branches", PERF_COUNT_HW_CPU_CYCLES,
		  EOPNOTSUPP, { false, false, true } },
		{ "{cpu-clock,instructions},cycles", PERF_COUNT_HW_INSTRUCTIONS,
		  ENODEV, { false, false, true } },
		{ "{cycles,instructions},{branches,branch-misses}",
		  PERF_COUNT_HW_INSTRUCTIONS, EINVAL, { false, false, true, true } },
	};

	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		struct pmu_event_list l;

		assert_int_equal(list__open(&l, cases[c].spec, cases[c].fail,
					    cases[c].err), 0);
		for (int i = 0; i < l.nr; i++) {
			const struct pmu_event *e = &l.ev[i];

			assert_int_equal(e->supported, cases[c].supported[i]);
			assert_int_equal(e->nr_fds, NCPUS);
			for (int cpu = 0; !e->supported && cpu < NCPUS; cpu++)
				assert_int_equal(e->fds[cpu], -1);
			if (!e->supported)
				assert_int_equal(e->open_err, -cases[c].err);
		}
		list__close(&l);
	}
}

/* No permission is an error for the list, not a group <not supported>. */
static void test_group_denied(void **state)
{
	struct pmu_event_list l;

	(void)state;
	assert_int_equal(list__open(&l, "{cycles,instructions}",
				    PERF_COUNT_HW_INSTRUCTIONS, EACCES), -EACCES);
	list__close(&l);
}

int main(void)
{
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_group_parse_bad),
		cmocka_unit_test(test_group_fds),
		cmocka_unit_test(test_group_switch_member),
		cmocka_unit_test(test_group_fails_whole),
		cmocka_unit_test(test_group_denied),
	};

	return run_tests_and_cases(fixed, test_group_parse, group_cases, name);
}
