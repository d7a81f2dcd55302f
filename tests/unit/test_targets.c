// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* stat's targets (cli/stat_targets.c): -C lists against an online file,
 * -p lists against the running processes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "cli/stat_targets.h"
#include "helpers.h"

struct cpus_case {
	const char *what;
	const char *online;	/* the online file's line */
	const char *list;	/* -C */
	int err;
	int nr;			/* CPUs taken when accepted */
};

static const struct cpus_case cases[] = {
	{ "one CPU", "0-3", "2", 0, 1 },
	{ "a range and one", "0-15", "0-3,8", 0, 5 },
	{ "every CPU", "0-1", "0-1", 0, 2 },
	{ "a hole in online is fine around it", "0,2-3", "2-3", 0, 2 },
	{ "an offline CPU", "0,2-3", "0-2", -EINVAL, 0 },
	{ "past the last", "0-1", "5", -EINVAL, 0 },
	{ "empty", "0-1", "", -EINVAL, 0 },
	{ "a word", "0-1", "all", -EINVAL, 0 },
	{ "a reversed range", "0-3", "3-1", -EINVAL, 0 },
	{ "a trailing comma", "0-3", "1,", -EINVAL, 0 },
	{ "a negative", "0-3", "-1", -EINVAL, 0 },
};

static void test_cpus(void **state)
{
	const struct cpus_case *c = *state;
	char path[] = "/tmp/emon-online-XXXXXX";
	int fd = mkstemp(path);
	struct stat_targets t = { 0 };

	assert_true(fd >= 0);
	assert_true(dprintf(fd, "%s\n", c->online) > 0);
	close(fd);
	assert_int_equal(stat_targets__cpus(&t, c->list, path), c->err);
	if (!c->err) {
		assert_true(t.has_cpus);
		assert_int_equal(t.nr_cpus, c->nr);
	}
	unlink(path);
}

static void test_cpus_no_online_file(void **state)
{
	struct stat_targets t = { 0 };

	(void)state;
	assert_int_equal(stat_targets__cpus(&t, "0", "/nonexistent/online"), -EINVAL);
	assert_false(t.has_cpus);
}

static void test_pids(void **state)
{
	struct stat_targets t = { 0 };
	char list[64];

	(void)state;
	snprintf(list, sizeof(list), "%d,1", (int)getpid());
	assert_int_equal(stat_targets__pids(&t, list), 0);
	assert_int_equal(t.nr_pids, 2);
	assert_true(stat_targets__has_pid(&t, getpid()));
	assert_true(stat_targets__has_pid(&t, 1));
	assert_false(stat_targets__has_pid(&t, 2 * 1000 * 1000 * 1000));
	assert_false(stat_targets__pids_gone(&t));
	/* no such process, and malformed lists */
	assert_int_equal(stat_targets__pids(&t, "2000000000"), -EINVAL);
	assert_int_equal(stat_targets__pids(&t, ""), -EINVAL);
	assert_int_equal(stat_targets__pids(&t, "1,"), -EINVAL);
	assert_int_equal(stat_targets__pids(&t, "0"), -EINVAL);
	assert_int_equal(stat_targets__pids(&t, "1x"), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpus_no_online_file),
		cmocka_unit_test(test_pids),
	};

	return run_tests_and_cases(tests, test_cpus, cases, what);
}
