// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A command tree's root is marked by its pid and its start
 * (trees__mark_roots): a later process given the root's pid (another
 * user's, perhaps) is not the tree's. A real child stands for the root:
 * its start is between two clock reads around its fork.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "common/procfs.h"
#include "engine/trees.h"
#include "helpers.h"
#include "child.h"

static void test_mark_roots(void **state)
{
	struct sess_proc procs[3];
	struct session_read rd = { .proc = procs, .nr_proc = 3 };
	struct trees t = { 0 };
	__u64 t0 = 0;
	pid_t pid = -1;
	int st;

	(void)state;
	pid = child__fork(&t0);
	assert_true(pid > 0);
	/* what trees__take keeps of its command, tree 2 */
	t.used = 1ULL << 2;
	t.root[2] = pid;
	assert_int_equal(procfs__start_ticks(pid, &t.root_ticks[2]), 0);
	memset(procs, 0, sizeof(procs));
	procs[0] = (struct sess_proc){ .tgid = pid, .start = (__u32)t0 };	/* the root */
	/* its pid, reused by a process started 3 s later */
	procs[1] = (struct sess_proc){ .tgid = pid, .start = (__u32)(t0 + 3000 * MS) };
	procs[2] = (struct sess_proc){ .tgid = pid + 1, .start = (__u32)t0 };
	trees__mark_roots(&t, 4, &rd);
	assert_int_equal(procs[0].trees, 1ULL << 2);
	assert_int_equal(procs[1].trees, 0);
	assert_int_equal(procs[2].trees, 0);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	assert_int_equal(procfs__start_ticks(pid, &t.root_ticks[3]), -ESRCH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mark_roots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
