// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * stat -G after -e paired with the events as perf 6.1's parse_cgroups
 * (cli/stat/stat_compat.c): each command line's cgroup of every event
 * ("" none: system-wide), or its refusal; -G before any -e and
 * --for-each-cgroup, every event in each; --by and --json-rows, the same.
 */
#include <errno.h>
#include "cli/stat/stat.h"
#include "helpers.h"

struct pair_case {
	const char *what;
	const char *args[12];	/* after "stat", NULL-ended */
	int err;
	bool paired;
	const char *cg[6];	/* each event's cgroup, "" none */
	bool sys;		/* some event of no cgroup */
	int nr_cgroups;
};

static const struct pair_case cases[] = {
	{ "two names, two events", { "-a", "-e", "cpu-clock,context-switches", "-G", "a,b" },
	  0, true, { "/a", "/b" }, false, 2 },
	{ "two names, three events: the third system-wide",
	  { "-a", "-e", "cpu-clock,context-switches,page-faults", "-G", "a,b" },
	  0, true, { "/a", "/b", "" }, true, 2 },
	{ "one name in all: every event", { "-a", "-e", "cpu-clock,context-switches", "-G", "a" },
	  0, true, { "/a", "/a" }, false, 1 },
	{ "the names counted over every -G",
	  { "-a", "-e", "cpu-clock", "-G", "a", "-e", "context-switches", "-G", "b" },
	  0, true, { "/a", "/b" }, false, 2 },
	{ "one name, then more events: those system-wide",
	  { "-a", "-e", "cpu-clock,context-switches", "-G", "a", "-e", "page-faults" },
	  0, true, { "/a", "/a", "" }, true, 1 },
	{ "one name then another: the second to the second event",
	  { "-a", "-e", "cpu-clock,context-switches", "-G", "a", "-e", "page-faults", "-G", "b" },
	  0, true, { "/a", "/b", "" }, true, 2 },
	{ "an empty name: its event system-wide", { "-a", "-e", "cpu-clock,context-switches", "-G", ",b" },
	  0, true, { "", "/b" }, true, 1 },
	{ "a trailing empty name", { "-a", "-e", "cpu-clock,context-switches", "-G", "a," },
	  0, true, { "/a", "" }, true, 1 },
	{ "a name twice: one cgroup, two events",
	  { "-a", "-e", "cpu-clock,context-switches,page-faults", "-G", "a,b,/a" },
	  0, true, { "/a", "/b", "/a" }, false, 2 },
	{ "a group's members each an event",
	  { "-a", "-e", "{cpu-clock,context-switches},page-faults", "-G", "a,b,c" },
	  0, true, { "/a", "/b", "/c" }, false, 3 },
	{ "an event given twice: two events", { "-a", "-e", "cpu-clock,cpu-clock", "-G", "a,b" },
	  0, true, { "/a", "/b" }, false, 2 },
	{ "a name past the events", { "-a", "-e", "cpu-clock", "-G", "a,b" }, -EINVAL },
	{ "past them over two -G", { "-a", "-e", "cpu-clock", "-G", "a", "-G", "b" }, -EINVAL },
	{ "an empty list", { "-a", "-e", "cpu-clock", "-G", "" }, -EINVAL },
	{ "a bad path", { "-a", "-e", "cpu-clock", "-G", "a,../b" }, -EINVAL },
	{ "-G beside --for-each-cgroup", { "-a", "-e", "cpu-clock", "-G", "a", "--for-each-cgroup", "b" },
	  -EINVAL },
	{ "--for-each-cgroup beside -G", { "-a", "-e", "cpu-clock", "--for-each-cgroup", "b", "-G", "a" },
	  -EINVAL },
	{ "-G before any -e, then one after", { "-a", "-G", "a", "-e", "cpu-clock", "-G", "b" }, -EINVAL },
	{ "-G before any -e: every event in each", { "-a", "-G", "a,b", "-e", "cpu-clock" },
	  0, false, { 0 }, false, 2 },
	{ "--for-each-cgroup: every event in each",
	  { "-a", "-e", "cpu-clock", "--for-each-cgroup", "a,b,c" }, 0, false, { 0 }, false, 3 },
	{ "--json-rows: every event in each, more names than events",
	  { "-a", "-e", "cpu-clock", "-G", "a,b,c", "--json-rows" }, 0, false, { 0 }, false, 3 },
	{ "--by: every event in each", { "-a", "--by", "system,cgroup", "-e", "cpu-clock", "-G", "a,b" },
	  0, false, { 0 }, false, 2 },
};

static void test_pairs(void **state)
{
	const struct pair_case *c = *state;
	char *argv[16] = { "stat" };
	struct front_opts o;
	int argc = 1, err;

	for (int i = 0; c->args[i]; i++)
		argv[argc++] = (char *)c->args[i];
	err = stat_opts__parse(&o, argc, argv);
	if (err != c->err)
		fail_msg("%s: %d, want %d", c->what, err, c->err);
	if (!err) {
		assert_int_equal(o.cg_paired, c->paired);
		assert_int_equal(o.cg_sys, c->sys);
		assert_int_equal(o.nr_cgroups, c->nr_cgroups);
		for (int i = 0; c->paired && i < 6 && c->cg[i]; i++) {
			const char *got = o.cg_of[i] ? o.cgroups[o.cg_of[i] - 1] : "";

			if (strcmp(got, c->cg[i]))
				fail_msg("%s: event %d in '%s', want '%s'", c->what, i, got,
					 c->cg[i]);
		}
	}
	front_opts__free(&o);
}

/* perf's evlist count of a -e list: a group's members, terms' commas */
static void test_nr_events(void **state)
{
	(void)state;
	assert_int_equal(stat_compat__nr_events(""), 0);
	assert_int_equal(stat_compat__nr_events("cpu-clock"), 1);
	assert_int_equal(stat_compat__nr_events("a,{b,c}:u,cpu/event=0x3c,umask=0/,a"), 5);
}

int main(void)
{
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_nr_events),
	};

	return run_tests_and_cases(fixed, test_pairs, cases, what);
}
