// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Live keys for the benchmarks' flush + read timings: N processes that
 * sleep and wake briefly every PERIOD ms (random phase), so that every one
 * of them is in emon-perf's maps in every interval. With cgroup
 * directories, process i joins directory i mod (number of directories).
 *
 *   bench-sleepers [-n N] [-p PERIOD_MS] [CGROUP_DIR...]
 *
 * Prints "ready N" once all have started, then runs until SIGTERM/SIGINT,
 * when it kills and reaps them all (so their cgroups can be removed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
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

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static void sleep_ns(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

	nanosleep(&ts, NULL);
}

/* Sleep, wake, spin a few microseconds so the slice is visible, repeat. */
static void sleeper(int *ready, int *failed, const char *cg, long period_ns,
		    unsigned seed)
{
	volatile unsigned long sink = 0;
	cpu_set_t all;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* the caller may be pinned: spread over every CPU, like real services */
	CPU_ZERO(&all);
	for (int c = 0; c < CPU_SETSIZE; c++)
		CPU_SET(c, &all);
	sched_setaffinity(0, sizeof(all), &all);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	if (cg && tool_join_cgroup(cg)) {
		fprintf(stderr, "bench-sleepers: cannot join %s: %s\n", cg,
			strerror(errno));
		__atomic_store_n(failed, 1, __ATOMIC_SEQ_CST);
		_exit(1);
	}
	__atomic_fetch_add(ready, 1, __ATOMIC_SEQ_CST);
	srand(seed);
	sleep_ns(rand() % period_ns);	/* random phase: no thundering herd */
	for (;;) {
		for (int i = 0; i < 200; i++)
			sink += i;
		sleep_ns(period_ns);
	}
}

int main(int argc, char **argv)
{
	long n = 1000, period_ms = 200;
	int opt, ncg, *sh, ret = 0;
	struct sigaction sa = { .sa_handler = on_stop };
	pid_t *pids;
	long started = 0;

	while ((opt = getopt(argc, argv, "n:p:")) != -1) {
		switch (opt) {
		case 'n': n = atol(optarg); break;
		case 'p': period_ms = atol(optarg); break;
		default:
			fprintf(stderr, "usage: bench-sleepers [-n N] [-p PERIOD_MS] [CGROUP_DIR...]\n");
			return 2;
		}
	}
	if (n < 1 || period_ms < 1)
		return 2;
	ncg = argc - optind;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sh = mmap(NULL, 2 * sizeof(int), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pids = calloc(n, sizeof(*pids));
	if (sh == MAP_FAILED || !pids) {
		perror("bench-sleepers: memory");
		return 1;
	}
	for (long i = 0; i < n && !stop; i++) {
		pid_t p = fork();

		if (p < 0) {
			perror("bench-sleepers: fork");
			ret = 1;
			break;
		}
		if (p == 0)
			sleeper(&sh[0], &sh[1], ncg ? argv[optind + i % ncg] : NULL,
				period_ms * 1000000L, (unsigned)i * 2654435761u);
		pids[started++] = p;
	}
	while (!ret && !stop && __atomic_load_n(&sh[0], __ATOMIC_SEQ_CST) < n) {
		if (__atomic_load_n(&sh[1], __ATOMIC_SEQ_CST))
			ret = 1;
		sleep_ns(1000000);
	}
	if (!ret && !stop) {
		printf("ready %ld\n", n);
		fflush(stdout);
		while (!stop)
			pause();
	}
	for (long i = 0; i < started; i++)
		kill(pids[i], SIGKILL);
	for (long i = 0; i < started; i++)
		waitpid(pids[i], NULL, 0);
	return ret;
}
