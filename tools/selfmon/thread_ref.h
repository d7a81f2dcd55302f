/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the kernel says of the calling thread, for tools/selfmon's test
 * programs to hold libemon's reads against: a clock now, and the
 * thread's voluntary + involuntary switches in its status; and the
 * workload they run between two reads.
 */
#ifndef SELFMON_THREAD_REF_H
#define SELFMON_THREAD_REF_H

#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static inline uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* voluntary + involuntary switches of the calling thread */
static inline uint64_t switches(void)
{
	char path[64], line[256];
	uint64_t n = 0, v;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/status", (long)syscall(SYS_gettid));
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %lu", &v) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %lu", &v) == 1)
			n += v;
	fclose(f);
	return n;
}

/* Burn, sleep and yield for the given seconds of wall time; thread k
 * burns k + 1 units per round, so threads count differently. */
static inline void workload(int k, double seconds)
{
	uint64_t end = now_ns(CLOCK_MONOTONIC) + seconds * 1e9;
	struct timespec nap = { 0, 3000000 };
	volatile uint64_t x = 0;

	while (now_ns(CLOCK_MONOTONIC) < end) {
		uint64_t until = now_ns(CLOCK_THREAD_CPUTIME_ID) + (k + 1) * 2000000ULL;

		while (now_ns(CLOCK_THREAD_CPUTIME_ID) < until)
			x++;
		nanosleep(&nap, NULL);
		for (int i = 0; i < 3; i++)
			sched_yield();
	}
}

#endif
