/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A real child process whose start the test knows, for the engine's
 * tests of pid reuse (test_owners, test_trees): its fork is between two
 * CLOCK_MONOTONIC reads, retried until they are within 2 ms (a busy
 * machine, or ASan, makes a fork slow; 2 ms is close enough for a 10 ms
 * tick), and its start taken as their midpoint, within 1 ms of the
 * kernel's. The child waits until killed, or 30 s (a failed assert
 * leaves it behind otherwise).
 */
#ifndef TESTS_UNIT_ENGINE_CHILD_H
#define TESTS_UNIT_ENGINE_CHILD_H

#include <linux/types.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#define MS 1000000ULL	/* in ns */

static inline __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/* The child's pid (-1: none close enough in 500 forks), its start in *start. */
static inline pid_t child__fork(__u64 *start)
{
	for (int i = 0; i < 500; i++) {
		__u64 t0 = mono_ns(), t1;
		pid_t pid = fork();
		int st;

		if (pid < 0)
			return -1;
		if (!pid) {
			alarm(30);
			pause();
			_exit(0);
		}
		t1 = mono_ns();
		if (t1 - t0 < 2 * MS) {
			*start = t0 + (t1 - t0) / 2;
			return pid;
		}
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	return -1;
}

#endif
