// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libemon's hardware events against the thread's own counters, where a
 * PMU exists (tests/vm/arm64-guest.sh, on QEMU's emulated PMUv3):
 *
 *   hw SOCKET SECONDS
 *
 * The thread opens its own cycles and instructions (perf_event_open on
 * itself, pinned: the reference), reads the library and its counters
 * right after a sleep, so that a switch has just ended the slice the
 * library's hardware figures stop at (as of the thread's last switch
 * where no rdpmc serves them: docs/libemon.md), runs tools/selfmon's
 * burn, sleep and yield workload, and reads both again the same way.
 * Its lines:
 *   event NAME: lib A vs ref B (exact E)
 * for cycles and instructions (ref: its own counter), cpu-clock (ref:
 * CLOCK_THREAD_CPUTIME_ID) and context-switches (ref: its status's
 * voluntary + involuntary switches). Nothing is judged here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include "emon/selfmon.h"
#include "thread_ref.h"

enum { REF_CYCLES, REF_INSNS, REF_CPUTIME, REF_SWITCHES, NR_REF };
static const char *const ref_event[NR_REF] = {
	"cycles", "instructions", "cpu-clock", "context-switches" };

static int open_own(__u64 config)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_HARDWARE, .size = sizeof(a), .config = config,
		.pinned = 1,
	};

	return syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

struct sample {
	uint64_t lib[8], ref[NR_REF];
};

/* After a 1 ms sleep: the library and the references, again while a
 * switch fell between them */
static int sample(struct emon_self *s, const int *fd, struct sample *x)
{
	const struct timespec nap = { 0, 1000000 };

	for (int t = 0; t < 100; t++) {
		uint64_t sw;

		nanosleep(&nap, NULL);
		sw = switches();
		if (emon_self_read(s, x->lib, 8) < 0)
			return -errno;
		x->ref[REF_CPUTIME] = now_ns(CLOCK_THREAD_CPUTIME_ID);
		for (int i = REF_CYCLES; i <= REF_INSNS; i++)
			if (read(fd[i], &x->ref[i], sizeof(x->ref[i])) != sizeof(x->ref[i]))
				return -EIO;
		x->ref[REF_SWITCHES] = switches();
		if (x->ref[REF_SWITCHES] == sw)
			return 0;
	}
	return -EAGAIN;
}

int main(int argc, char **argv)
{
	struct sample a, b;
	struct emon_self *s;
	int fd[2], err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 3) {
		fprintf(stderr, "usage: hw SOCKET SECONDS\n");
		return 2;
	}
	fd[REF_CYCLES] = open_own(PERF_COUNT_HW_CPU_CYCLES);
	fd[REF_INSNS] = open_own(PERF_COUNT_HW_INSTRUCTIONS);
	if (fd[REF_CYCLES] < 0 || fd[REF_INSNS] < 0) {
		printf("error: the thread's own cycles and instructions: %s\n", strerror(errno));
		return 1;
	}
	s = emon_self_open(argv[1]);
	if (!s) {
		printf("error: emon_self_open: %s\n", strerror(errno));
		return 1;
	}
	err = sample(s, fd, &a);
	if (!err) {
		workload(1, atof(argv[2]));	/* 4 ms a burn */
		err = sample(s, fd, &b);
	}
	if (err) {
		printf("error: a read: %s\n", strerror(-err));
		return 1;
	}
	for (int r = 0; r < NR_REF; r++) {
		int i;

		for (i = 0; i < emon_self_nevents(s); i++)
			if (!strcmp(emon_self_event(s, i), ref_event[r]))
				break;
		if (i == emon_self_nevents(s)) {
			printf("event %s: not counted by the daemon\n", ref_event[r]);
			continue;
		}
		printf("event %s: lib %lu vs ref %lu (exact %d)\n", ref_event[r],
		       (unsigned long)(b.lib[i] - a.lib[i]),
		       (unsigned long)(b.ref[r] - a.ref[r]), emon_self_exact(s, i));
	}
	emon_self_close(s);
	return 0;
}
