// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Who owns a process (engine_opts.owners): read once per process, keyed
 * by pid and start time, not per read; a reused pid is a new process whose
 * owner is read afresh, and /proc/PID's owner is taken only while PID is
 * still the process the read saw (procfs__owner); the aggregate's fresh
 * lists that feed it.
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
#include "engine/aggregate.h"
#include "engine/names/names.h"
#include "helpers.h"
#include "child.h"

/* The owner reader's stand-in: every call kept, the uid of a start. */
static struct {
	int calls;
	pid_t pid[16];
	__u32 start[16];
	int err;		/* returned instead of a uid, when set */
} fake;

static int fake_owner(pid_t pid, __u32 start, uid_t *uid)
{
	if (fake.calls < 16) {
		fake.pid[fake.calls] = pid;
		fake.start[fake.calls] = start;
	}
	fake.calls++;
	if (fake.err)
		return fake.err;
	*uid = 1000 + start;	/* each process (pid, start) its own owner */
	return 0;
}

/* One read of the processes pr (nr of them), then the owners' pass. */
static void read_procs(struct aggregate *a, struct sess_proc *pr, size_t nr)
{
	struct counts cpu[2] = {}, none[2] = {};
	struct session_read r = {
		.cpu = cpu, .ovf_cgrp = none, .ovf_proc = none,
		.proc = pr, .nr_proc = nr,
	};

	assert_int_equal(aggregate__add(a, &r), 0);
	engine_names__owners(a, "/nonexistent", fake_owner);
}

static uid_t owner(struct aggregate *a, __u64 tgid, __u64 start)
{
	struct agg_entry *e = idmap__get(&a->procs, tgid, start);

	assert_non_null(e);
	assert_true(e->owned);
	return e->owner;
}

static void test_owner_once_per_process(void **state)
{
	struct sess_proc p1[] = {
		{ .tgid = 100, .cpu = 0, .start = 1, .comm = "a" },
		{ .tgid = 100, .cpu = 1, .start = 1, .comm = "a" },	/* both CPUs */
		{ .tgid = 200, .cpu = 0, .start = 7, .comm = "b" },
	};
	struct sess_proc reuse[] = {
		{ .tgid = 100, .cpu = 0, .start = 1, .comm = "a" },
		{ .tgid = 100, .cpu = 1, .start = 2, .comm = "c" },	/* pid 100 again */
	};
	struct sess_proc exec[] = {
		{ .tgid = 100, .cpu = 0, .start = 2, .comm = "su", .flags = EMON_PROC_EXEC },
	};
	static const int cpu_pkg[2];
	struct aggregate a;

	(void)state;
	memset(&fake, 0, sizeof(fake));
	assert_int_equal(aggregate__init(&a, 2, 1, cpu_pkg, 1), 0);
	a.fresh = AGG_FRESH_NAMES | AGG_FRESH_OWNERS;

	/* new: one read each, however many CPUs it ran on */
	read_procs(&a, p1, 3);
	assert_int_equal(fake.calls, 2);
	assert_int_equal(fake.pid[0], 100);
	assert_int_equal(fake.start[0], 1);
	assert_int_equal(fake.pid[1], 200);
	assert_int_equal(owner(&a, 100, 1), 1001);
	assert_int_equal(owner(&a, 200, 7), 1007);

	/* the same pid and start time at every later read: never again */
	for (int i = 0; i < 5; i++)
		read_procs(&a, p1, 3);
	assert_int_equal(fake.calls, 2);
	assert_int_equal(a.nr_fresh_proc, 0);

	/* pid 100 reused (another start): a new process, its own read; the
	 * old one keeps its owner */
	read_procs(&a, reuse, 2);
	assert_int_equal(fake.calls, 3);
	assert_int_equal(fake.pid[2], 100);
	assert_int_equal(fake.start[2], 2);
	assert_int_equal(owner(&a, 100, 2), 1002);
	assert_int_equal(owner(&a, 100, 1), 1001);

	/* an exec (a setuid program may change it): read again, once */
	read_procs(&a, exec, 1);
	assert_int_equal(fake.calls, 4);
	read_procs(&a, reuse, 2);
	assert_int_equal(fake.calls, 4);

	/* the reader refuses (gone, or the pid is another process's now):
	 * nobody's, and not asked again at the next read */
	fake.err = -ESTALE;
	p1[2].start = 8;
	read_procs(&a, p1, 3);
	assert_int_equal(fake.calls, 5);
	assert_int_equal(owner(&a, 200, 8), (uid_t)-1);
	read_procs(&a, p1, 3);
	assert_int_equal(fake.calls, 5);
	aggregate__exit(&a);
}

/* Without owners or names asked, the reads leave no fresh lists. */
static void test_fresh_off(void **state)
{
	struct sess_proc pr[] = { { .tgid = 5, .cpu = 0, .start = 1 } };
	struct sess_cgrp cg[] = { { .cgid = 9, .cpu = 0 } };
	struct counts cpu[1] = {}, none[1] = {};
	struct session_read r = {
		.cpu = cpu, .ovf_cgrp = none, .ovf_proc = none,
		.cgrp = cg, .nr_cgrp = 1, .proc = pr, .nr_proc = 1,
	};
	static const int cpu_pkg[1];
	struct aggregate a;
	struct agg_entry *e;

	(void)state;
	assert_int_equal(aggregate__init(&a, 1, 1, cpu_pkg, 1), 0);
	assert_int_equal(aggregate__add(&a, &r), 0);
	assert_int_equal(a.nr_fresh_proc, 0);
	assert_int_equal(a.nr_fresh_cgrp, 0);
	/* names only: the cgroup until it has a path, no process */
	a.fresh = AGG_FRESH_NAMES;
	assert_int_equal(aggregate__add(&a, &r), 0);
	assert_int_equal(a.nr_fresh_proc, 0);
	assert_int_equal(a.nr_fresh_cgrp, 1);
	assert_int_equal(a.fresh_cgrp[0].id, 9);
	e = a.fresh_cgrp[0].e;
	e->name = "/x";
	assert_int_equal(aggregate__add(&a, &r), 0);
	assert_int_equal(a.nr_fresh_cgrp, 0);
	e->name = NULL;
	aggregate__exit(&a);
}

static void test_same_start(void **state)
{
	const __u64 tick = 10 * MS, t = 123456;	/* ticks since boot */
	const __u64 boot = t * tick;		/* its first ns */

	(void)state;
	/* anywhere in that tick, and the slack either side */
	assert_true(procfs__same_start(t, 100, 0, (__u32)boot));
	assert_true(procfs__same_start(t, 100, 0, (__u32)(boot + 9 * MS)));
	assert_true(procfs__same_start(t, 100, 0, (__u32)(boot - MS / 2)));
	assert_true(procfs__same_start(t, 100, 0, (__u32)(boot + tick + MS / 2)));
	/* a tick earlier or later, or seconds apart: another process */
	assert_false(procfs__same_start(t, 100, 0, (__u32)(boot - 2 * MS)));
	assert_false(procfs__same_start(t, 100, 0, (__u32)(boot + tick + 2 * MS)));
	assert_false(procfs__same_start(t, 100, 0, (__u32)(boot + 2000 * MS)));
	/* CLOCK_BOOTTIME ahead (a suspend before it started) */
	assert_true(procfs__same_start(t, 100, 3000 * MS, (__u32)(boot - 3000 * MS + 5 * MS)));
	assert_false(procfs__same_start(t, 100, 3000 * MS, (__u32)(boot + 5 * MS)));
	/* 32 bits of ns wrap every 4.3 s: the start is compared modulo */
	assert_true(procfs__same_start(429497, 100, 0, (__u32)(429497ULL * tick + MS)));
	/* another clock tick rate */
	assert_true(procfs__same_start(t, 1000, 0, (__u32)(t * MS + MS / 2)));
	assert_false(procfs__same_start(t, 1000, 0, (__u32)(t * MS + 3 * MS)));
}

/*
 * A real child: its start is between two clock reads around its fork
 * (retried until they are close). The truth for its owner is our uid.
 */
static void test_procfs_owner(void **state)
{
	__u64 t0 = 0;
	pid_t pid = -1;
	uid_t uid = 12345;
	int st;

	(void)state;
	pid = child__fork(&t0);
	assert_true(pid > 0);
	assert_int_equal(procfs__owner(pid, (__u32)t0, &uid), 0);
	assert_int_equal(uid, geteuid());
	/* the same pid started two seconds later: not this one */
	uid = 12345;
	assert_int_equal(procfs__owner(pid, (__u32)(t0 + 2000 * MS), &uid), -ESTALE);
	assert_int_equal(uid, 12345);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	assert_int_equal(procfs__owner(pid, (__u32)t0, &uid), -ESRCH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_owner_once_per_process),
		cmocka_unit_test(test_fresh_off),
		cmocka_unit_test(test_same_start),
		cmocka_unit_test(test_procfs_owner),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
