// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The context-switch workload of the benchmarks: N processes pinned to one
 * CPU, each in its own cgroup, pass a byte around a ring of pipes. With two
 * cgroups it is a ping-pong: every round trip is two context switches and
 * two cgroup switches, the worst case for anything hooked on sched_switch
 * or switching cgroup perf_events. With N cgroups it is the many-cgroup
 * variant: N processes taking turns on the same CPU.
 *
 *   pingpong [-c CPU] [-d SECONDS] [-w WARMUP] [-r PRIO] CGROUP_DIR CGROUP_DIR [...]
 *
 * -r runs the ring SCHED_FIFO at PRIO: on a shared machine other tasks then
 * cannot take its CPU (RT throttling still leaves them 5%), while whatever
 * runs in its context-switch path (a monitor's BPF program, perf's cgroup
 * switch) is still paid by the ring.
 * CGROUP_DIR is a cgroup directory (absolute, under the cgroup2 mount), or
 * "-" to stay in the caller's cgroup. The rate is measured over SECONDS
 * after WARMUP seconds; the processes are killed and reaped before exit,
 * so a monitor wrapping the command sees all of their time. Prints:
 *   round_trips_per_s=R switches_per_s=S cpu_round_trips_per_s=RC procs=N
 *   cpu=C seconds=T
 * A round trip is the token going once around the ring (N switches).
 * RC is round trips per second of CPU time the ring itself used
 * (sum_exec_runtime from /proc/PID/schedstat): on a shared, noisy machine
 * it leaves out the time other tasks took the CPU, while a monitor's cost in
 * the context switch path is still charged to the ring's processes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "tools/tool.h"

struct shared {
	unsigned long hops;	/* token passes: one context switch each */
	int ready;
	int failed;
};

/* Sum of the processes' CPU time in ns (0 if one cannot be read). */
static unsigned long long ring_cpu_ns(const pid_t *pids, int n)
{
	unsigned long long sum = 0, v;
	char path[64];
	FILE *f;

	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/%d/schedstat", pids[i]);
		f = fopen(path, "re");
		if (!f)
			return 0;
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
		sum += v;
	}
	return sum;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int join_cgroup(const char *dir)
{
	return strcmp(dir, "-") ? tool_join_cgroup(dir) : 0;
}

static int pin(int cpu, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	if (prio && sched_setscheduler(0, SCHED_FIFO, &sp))
		return -errno;
	return 0;
}

/* Process i reads the token from pipe i and passes it to pipe i + 1. */
static void ring_member(struct shared *sh, int (*pipes)[2], int n, int i,
			const char *cg, int cpu, int prio)
{
	char c;
	int err;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	err = join_cgroup(cg);
	if (!err)
		err = pin(cpu, prio);
	if (err) {
		fprintf(stderr, "pingpong: %s: %s\n", cg, strerror(-err));
		__atomic_store_n(&sh->failed, 1, __ATOMIC_SEQ_CST);
		_exit(1);
	}
	for (int j = 0; j < n; j++) {
		if (j != i)
			close(pipes[j][0]);
		if (j != (i + 1) % n)
			close(pipes[j][1]);
	}
	__atomic_fetch_add(&sh->ready, 1, __ATOMIC_SEQ_CST);
	for (;;) {
		if (read(pipes[i][0], &c, 1) != 1)
			_exit(0);
		/* atomic: a member can be preempted between load and store */
		__atomic_fetch_add(&sh->hops, 1, __ATOMIC_RELAXED);
		if (write(pipes[(i + 1) % n][1], &c, 1) != 1)
			_exit(0);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: pingpong [-c CPU] [-d SECONDS] [-w WARMUP] [-r PRIO] CGROUP_DIR CGROUP_DIR [...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	double secs = 3, warm = 0.3, t0, t1, deadline;
	unsigned long long c0, c1;
	unsigned long r0, r1;
	int cpu = 1, prio = 0, n, opt, ret = 0;
	struct shared *sh;
	int (*pipes)[2];
	pid_t *pids;

	while ((opt = getopt(argc, argv, "c:d:w:r:")) != -1) {
		switch (opt) {
		case 'c': cpu = atoi(optarg); break;
		case 'r': prio = atoi(optarg); break;
		case 'd': secs = atof(optarg); break;
		case 'w': warm = atof(optarg); break;
		default: usage();
		}
	}
	n = argc - optind;
	if (n < 2 || secs <= 0 || warm < 0 || cpu < 0 || prio < 0 || prio > 99)
		usage();
	signal(SIGPIPE, SIG_IGN);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pipes = calloc(n, sizeof(*pipes));
	pids = calloc(n, sizeof(*pids));
	if (sh == MAP_FAILED || !pipes || !pids) {
		perror("pingpong: memory");
		ret = 1;
		n = 0;	/* no process to end */
		goto out;
	}
	for (int i = 0; i < n; i++) {
		if (pipe2(pipes[i], O_CLOEXEC)) {
			perror("pingpong: pipe (raise ulimit -n?)");
			ret = 1;
			n = 0;
			goto out;
		}
	}
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("pingpong: fork");
			ret = 1;
			n = i;
			goto out;
		}
		if (pids[i] == 0)
			ring_member(sh, pipes, n, i, argv[optind + i], cpu, prio);
	}
	deadline = tool_mono_s() + 30;
	while (__atomic_load_n(&sh->ready, __ATOMIC_SEQ_CST) < n) {
		if (sh->failed || tool_mono_s() > deadline) {
			fprintf(stderr, "pingpong: the processes did not start\n");
			ret = 1;
			goto out;
		}
		sleep_s(0.001);
	}
	if (write(pipes[0][1], "x", 1) != 1) {
		perror("pingpong: write");
		ret = 1;
		goto out;
	}
	sleep_s(warm);
	c0 = ring_cpu_ns(pids, n);
	r0 = __atomic_load_n(&sh->hops, __ATOMIC_RELAXED);
	t0 = tool_mono_s();
	sleep_s(secs);
	r1 = __atomic_load_n(&sh->hops, __ATOMIC_RELAXED);
	t1 = tool_mono_s();
	c1 = ring_cpu_ns(pids, n);
	printf("round_trips_per_s=%.0f switches_per_s=%.0f cpu_round_trips_per_s=%.0f procs=%d cpu=%d seconds=%.3f\n",
	       (double)(r1 - r0) / n / (t1 - t0), (r1 - r0) / (t1 - t0),
	       c1 > c0 ? (double)(r1 - r0) / n / ((c1 - c0) / 1e9) : 0.0, n, cpu,
	       t1 - t0);
	fflush(stdout);
out:
	for (int i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	for (int i = 0; i < n; i++)
		waitpid(pids[i], NULL, 0);
	free(pipes);
	free(pids);
	return ret;
}
