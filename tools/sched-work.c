// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Workloads for the scheduler view's tests, each ending with what the
 * kernel says of it, read by the process itself from /proc/self: one JSON
 * line on stdout with its totals at the end (schedstat's on-CPU time, as
 * CLOCK_THREAD_CPUTIME_ID gives it up to date,
 * run_delay and timeslices, se.nr_migrations, voluntary and involuntary
 * switches) and, for the span of its work, the span's wall time and its
 * on-CPU and run-queue deltas: what it slept (or was blocked) in that span
 * is span - on-CPU - wait, as the kernel accounts it, give or take the wall
 * time of its two readings (read_ns).
 *   sched-work [-c CGROUP_DIR] spin SECONDS         SECONDS of CPU time
 *   sched-work [-c CGROUP_DIR] sleep-loop SECONDS SLEEP_US SPIN_US
 *                                    sleep and spin for SECONDS of wall time
 *   sched-work [-c CGROUP_DIR] vfork MS
 *                                    blocked in vfork while the child sleeps
 * With -c it first moves itself into that cgroup, and prints a second line
 * with its on-CPU and run-queue time since it joined, and during the move.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include "tools/tool.h"

struct truth {
	unsigned long long on_ns, delay_ns, pcount, migrations, vol, invol;
};

static int read_truth(struct truth *t)
{
	char line[256];
	FILE *f = fopen("/proc/self/schedstat", "re");
	int ok = 0;

	struct timespec ts;

	memset(t, 0, sizeof(*t));
	if (!f || fscanf(f, "%llu %llu %llu", &t->on_ns, &t->delay_ns, &t->pcount) != 3)
		goto out;
	/* schedstat's on-CPU time is the one the last tick or switch left
	 * (up to a tick behind); this clock is the same sum brought up to now */
	if (!clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		t->on_ns = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	fclose(f);
	f = fopen("/proc/self/sched", "re");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "se.nr_migrations", 16))
			ok |= sscanf(strchr(line, ':') + 1, "%llu", &t->migrations) == 1;
	if (f)
		fclose(f);
	f = fopen("/proc/self/status", "re");
	while (f && fgets(line, sizeof(line), f)) {
		ok |= (sscanf(line, "voluntary_ctxt_switches: %llu", &t->vol) == 1) << 1;
		ok |= (sscanf(line, "nonvoluntary_ctxt_switches: %llu", &t->invol) == 1) << 2;
	}
out:
	if (f)
		fclose(f);
	return ok == 7 ? 0 : -1;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void sleep_loop(double secs, long sleep, long spin)
{
	double end = tool_mono_s() + secs;

	while (tool_mono_s() < end) {
		double cpu = tool_cpu_s();

		sleep_us(sleep);
		tool_spin_cpu_s(cpu + spin / 1e6, 200);
	}
}

/* The parent waits uninterruptibly (TASK_KILLABLE) until the child exits. */
static int vfork_wait(long ms)
{
	pid_t pid = vfork();

	if (pid < 0)
		return -1;
	if (!pid) {
		sleep_us(ms * 1000);
		_exit(0);
	}
	return waitpid(pid, NULL, 0) == pid ? 0 : -1;
}

static int usage(void)
{
	fprintf(stderr, "usage: sched-work [-c CGROUP_DIR] spin SECONDS | sleep-loop SECONDS SLEEP_US SPIN_US | vfork MS\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct truth a, b, c, j;
	double ta, t0, t1, tb;
	int err = 0, cg = 0;

	if (argc > 2 && !strcmp(argv[1], "-c")) {
		/* c: before the move, j: after it */
		cg = read_truth(&j) ? -1 : 1;
		if (cg < 0 || tool_join_cgroup(argv[2]) || read_truth(&c)) {
			perror(argv[2]);
			return 1;
		}
		argv += 2;
		argc -= 2;
	}
	if (argc < 3)
		return usage();
	ta = tool_mono_s();
	if (read_truth(&a))
		return perror("/proc/self"), 1;
	t0 = tool_mono_s();
	if (!strcmp(argv[1], "spin") && argc == 3)
		tool_spin_cpu_s(atof(argv[2]), 10000);
	else if (!strcmp(argv[1], "sleep-loop") && argc == 5)
		sleep_loop(atof(argv[2]), atol(argv[3]), atol(argv[4]));
	else if (!strcmp(argv[1], "vfork") && argc == 3)
		err = vfork_wait(atol(argv[2]));
	else
		return usage();
	t1 = tool_mono_s();
	if (err || read_truth(&b))
		return perror(argv[1]), 1;
	tb = tool_mono_s();
	/*
	 * read_ns: the wall time of the two readings around the span. What
	 * happened inside them (a preemption's wait, counted in run_delay
	 * when it ends) cannot be placed on either side of the span's edges,
	 * so span_ns - span_on_ns - span_delay_ns is only known within it
	 * (a wait of 9 ms in the first reading was seen under load).
	 */
	printf("{\"pid\": %d, \"on_cpu_ns\": %llu, \"run_delay_ns\": %llu, \"pcount\": %llu, "
	       "\"nr_migrations\": %llu, \"vol\": %llu, \"invol\": %llu, "
	       "\"span_ns\": %.0f, \"span_on_ns\": %llu, \"span_delay_ns\": %llu, "
	       "\"read_ns\": %.0f}\n",
	       getpid(), b.on_ns, b.delay_ns, b.pcount, b.migrations, b.vol, b.invol,
	       (t1 - t0) * 1e9, b.on_ns - a.on_ns, b.delay_ns - a.delay_ns,
	       (t0 - ta + tb - t1) * 1e9);
	/* since it joined the cgroup: what the cgroup should have of it, give
	 * or take what the move itself took (the write to cgroup.procs can
	 * sleep and wait: the kernel's figures cannot say which side of the
	 * move that fell on) */
	if (cg)
		printf("{\"pid\": %d, \"cg_on_ns\": %llu, \"cg_delay_ns\": %llu, "
		       "\"join_on_ns\": %llu, \"join_delay_ns\": %llu}\n",
		       getpid(), b.on_ns - c.on_ns, b.delay_ns - c.delay_ns,
		       c.on_ns - j.on_ns, c.delay_ns - j.delay_ns);
	/*
	 * _exit: the exit is the kernel's alone. A sanitizer build's leak
	 * check runs from exit() and waits for a tracer task of its own (5
	 * voluntary switches here), which the kernel's figures read above
	 * cannot see and the tests' allowance for the exit does not cover.
	 */
	_exit(fflush(stdout) ? 1 : 0);
}
