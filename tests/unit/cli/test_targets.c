// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* stat's targets (front/targets.c): -C lists against an online file,
 * -p and -t lists against the running processes and threads, and the
 * threads --per-thread starts with from a fake /proc. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "front/targets.h"
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
	struct targets t = { 0 };

	assert_true(fd >= 0);
	assert_true(dprintf(fd, "%s\n", c->online) > 0);
	close(fd);
	assert_int_equal(targets__cpus(&t, c->list, path), c->err);
	if (!c->err) {
		assert_true(t.has_cpus);
		assert_int_equal(t.nr_cpus, c->nr);
	}
	unlink(path);
}

static void test_cpus_no_online_file(void **state)
{
	struct targets t = { 0 };

	(void)state;
	assert_int_equal(targets__cpus(&t, "0", "/nonexistent/online"), -EINVAL);
	assert_false(t.has_cpus);
}

static void test_pids(void **state)
{
	struct targets t = { 0 };
	char list[64];

	(void)state;
	snprintf(list, sizeof(list), "%d,1", (int)getpid());
	assert_int_equal(targets__pids(&t, list), 0);
	assert_int_equal(t.nr_pids, 2);
	assert_true(targets__has_pid(&t, getpid()));
	assert_true(targets__has_pid(&t, 1));
	assert_false(targets__has_pid(&t, 2 * 1000 * 1000 * 1000));
	assert_false(targets__pids_gone(&t));
	/* no such process, and malformed lists */
	assert_int_equal(targets__pids(&t, "2000000000"), -EINVAL);
	assert_int_equal(targets__pids(&t, ""), -EINVAL);
	assert_int_equal(targets__pids(&t, "1,"), -EINVAL);
	assert_int_equal(targets__pids(&t, "0"), -EINVAL);
	assert_int_equal(targets__pids(&t, "1x"), -EINVAL);
}

struct tids_case {
	const char *list;
	int err;
};

/* 1 and this process exist; the rest are malformed or name no thread */
static const struct tids_case tids_cases[] = {
	{ "1", 0 },
	{ "SELF,1", 0 },
	{ "", -EINVAL },
	{ "1,", -EINVAL },
	{ ",1", -EINVAL },
	{ "1,,2", -EINVAL },
	{ "0", -EINVAL },
	{ "-5", -EINVAL },
	{ "1x", -EINVAL },
	{ "abc", -EINVAL },
	{ "2147483648", -EINVAL },
	{ "2000000000", -EINVAL },	/* no such thread */
};

static void test_tids(void **state)
{
	struct targets t = { 0 };
	char list[64];

	(void)state;
	for (size_t i = 0; i < sizeof(tids_cases) / sizeof(tids_cases[0]); i++) {
		const struct tids_case *c = &tids_cases[i];

		if (!strncmp(c->list, "SELF", 4))
			snprintf(list, sizeof(list), "%d%s", (int)getpid(), c->list + 4);
		else
			snprintf(list, sizeof(list), "%s", c->list);
		printf("      -t '%s'\n", list);
		assert_int_equal(targets__tids(&t, list), c->err);
	}
	snprintf(list, sizeof(list), "%d,1", (int)getpid());
	assert_int_equal(targets__tids(&t, list), 0);
	assert_int_equal(t.nr_tids, 2);
	assert_string_equal(t.tid_list, list);
	assert_true(targets__has_tid(&t, getpid()));
	assert_false(targets__has_tid(&t, 2));
	assert_false(targets__pids_gone(&t));
}

/* dir/TID/status with Name and Tgid; with pid, also dir/PID/task/TID */
static void fake_thread(const char *dir, int pid, int tid, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d", dir, tid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/status", dir, tid);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%d\nPid:\t%d\n",
		name, pid, tid);
	fclose(f);
	snprintf(path, sizeof(path), "%s/%d/task", dir, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/task/%d", dir, pid, tid);
	mkdir(path, 0755);
}

static int thread_at(const struct targets *t, int tid)
{
	for (int i = 0; i < t->nr_start_thr; i++)
		if (t->start_thr[i].tid == tid)
			return i;
	return -1;
}

static void test_start_threads(void **state)
{
	char dir[] = "/tmp/emon-proc-XXXXXX", cmd[128];
	struct targets t = { 0 };
	int i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	fake_thread(dir, 100, 100, "main");
	fake_thread(dir, 100, 101, "worker one");	/* names may have blanks */
	fake_thread(dir, 100, 102, "a-very-long-thread-name");
	fake_thread(dir, 200, 200, "other");
	/* -p 100: its three threads, their process and names */
	t.pids[0] = 100;
	t.nr_pids = 1;
	assert_int_equal(targets__start_threads(&t, dir), 0);
	assert_int_equal(t.nr_start_thr, 3);
	i = thread_at(&t, 101);
	assert_true(i >= 0);
	assert_int_equal(t.start_thr[i].pid, 100);
	assert_string_equal(t.start_thr[i].comm, "worker one");
	i = thread_at(&t, 102);
	assert_true(i >= 0);
	assert_int_equal(strlen(t.start_thr[i].comm), 15);	/* a comm's length */
	assert_int_equal(thread_at(&t, 200), -1);
	/* -t 101,200,300: those there are (300 is gone) */
	t.nr_pids = 0;
	t.tids[0] = 101;
	t.tids[1] = 200;
	t.tids[2] = 300;
	t.nr_tids = 3;
	assert_int_equal(targets__start_threads(&t, dir), 0);
	assert_int_equal(t.nr_start_thr, 2);
	assert_int_equal(t.start_thr[thread_at(&t, 200)].pid, 200);
	targets__exit(&t);
	assert_null(t.start_thr);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpus_no_online_file),
		cmocka_unit_test(test_pids),
		cmocka_unit_test(test_tids),
		cmocka_unit_test(test_start_threads),
	};

	return run_tests_and_cases(tests, test_cpus, cases, what);
}
