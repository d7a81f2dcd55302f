// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The cost of one emon_self_read() beside the other ways a thread can
 * read its own counts, in the same run (BENCHMARKS.md):
 *
 *   bench SOCKET [PIN] [ROUNDS]
 *
 * emon_self_read (the daemon's events; time events exact, the rest as of
 * the last switch), clock_gettime(CLOCK_THREAD_CPUTIME_ID), read() on a
 * per-thread perf_event of its own (task-clock), and a bpf() lookup of
 * the thread's slot in its uid's array, found through the pinned array
 * of arrays PIN/self_arrays (needs bpffs access and CAP_SYS_ADMIN: root). Each call is timed alone between two CLOCK_MONOTONIC
 * reads; the median cost of an empty pair is taken off. The methods take
 * turns, ROUNDS (20) rounds of 10,000 calls each, so a busy machine
 * weighs on all alike. Prints a markdown table: median and 99th
 * percentile in ns.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include "emon/selfmon.h"

#define CALLS 10000

enum { M_EMPTY, M_EMON, M_CPUTIME, M_PERF, M_BPF, M_NR };

static const char *const names[M_NR] = {
	"(empty timed region)",
	"emon_self_read()",
	"clock_gettime(CLOCK_THREAD_CPUTIME_ID)",
	"read() on a per-thread perf_event",
	"bpf(BPF_MAP_LOOKUP_ELEM) of the slot",
};

struct ctx {
	struct emon_self *s;
	int perf_fd, map_fd;
	uint32_t slot;
	unsigned char val[256];
};

static inline uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int call(struct ctx *c, int m)
{
	uint64_t v[8];
	struct timespec ts;
	union bpf_attr a;

	switch (m) {
	case M_EMON:
		return emon_self_read(c->s, v, 8) < 0;
	case M_CPUTIME:
		return clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	case M_PERF:
		return read(c->perf_fd, v, sizeof(v[0])) != sizeof(v[0]);
	case M_BPF:
		memset(&a, 0, sizeof(a));
		a.map_fd = c->map_fd;
		a.key = (uintptr_t)&c->slot;
		a.value = (uintptr_t)c->val;
		return syscall(SYS_bpf, BPF_MAP_LOOKUP_ELEM, &a, sizeof(a)) != 0;
	}
	return 0;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int open_perf(void)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_SW_TASK_CLOCK,
	};

	return syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static long sys_bpf(int cmd, union bpf_attr *a)
{
	return syscall(SYS_bpf, cmd, a, sizeof(*a));
}

/* In array fd, the slot of this thread (tid at bytes 8-11), -1: none. */
static int find_slot(int fd, uint32_t *slot)
{
	uint32_t tid = syscall(SYS_gettid);
	unsigned char v[256];
	union bpf_attr a;

	for (uint32_t k = 0;; k++) {
		memset(&a, 0, sizeof(a));
		a.map_fd = fd;
		a.key = (uintptr_t)&k;
		a.value = (uintptr_t)v;
		if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &a))
			return -1;
		if (!memcmp(v + 8, &tid, 4)) {
			*slot = k;
			return 0;
		}
	}
}

/* The array holding this thread's slot, through the pinned array of
 * arrays (its values are map ids), and the slot in it. */
static int open_map(const char *pin, uint32_t *slot)
{
	union bpf_attr a;
	int outer, fd = -1;

	memset(&a, 0, sizeof(a));
	a.pathname = (uintptr_t)pin;
	outer = sys_bpf(BPF_OBJ_GET, &a);
	for (uint32_t k = 0, id; outer >= 0 && fd < 0; k++) {
		memset(&a, 0, sizeof(a));
		a.map_fd = outer;
		a.key = (uintptr_t)&k;
		a.value = (uintptr_t)&id;
		if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &a))
			break;
		memset(&a, 0, sizeof(a));
		a.map_id = id;
		fd = sys_bpf(BPF_MAP_GET_FD_BY_ID, &a);
		if (fd >= 0 && find_slot(fd, slot)) {
			close(fd);
			fd = -1;
		}
	}
	if (outer >= 0)
		close(outer);
	return fd;
}

int main(int argc, char **argv)
{
	int rounds = argc > 3 ? atoi(argv[3]) : 20;
	struct ctx c = { .perf_fd = -1, .map_fd = -1 };
	uint64_t *t[M_NR], empty;
	char pin[4096];

	if (argc < 2) {
		fprintf(stderr, "usage: bench SOCKET [PIN_DIR] [ROUNDS]\n");
		return 2;
	}
	c.s = emon_self_open(argv[1]);
	if (!c.s) {
		fprintf(stderr, "bench: cannot register: %s\n", strerror(errno));
		return 1;
	}
	c.perf_fd = open_perf();
	if (argc > 2) {
		snprintf(pin, sizeof(pin), "%s/self_arrays", argv[2]);
		c.map_fd = open_map(pin, &c.slot);
	}
	for (int m = 0; m < M_NR; m++)
		t[m] = calloc((size_t)rounds * CALLS, sizeof(uint64_t));
	for (int r = 0; r < rounds; r++) {
		for (int m = 0; m < M_NR; m++) {
			if ((m == M_PERF && c.perf_fd < 0) || (m == M_BPF && c.map_fd < 0))
				continue;
			for (int i = 0; i < CALLS; i++) {
				uint64_t t0 = mono();

				if (call(&c, m)) {
					fprintf(stderr, "bench: %s failed\n", names[m]);
					return 1;
				}
				t[m][(size_t)r * CALLS + i] = mono() - t0;
			}
		}
	}
	for (int m = 0; m < M_NR; m++)
		qsort(t[m], (size_t)rounds * CALLS, sizeof(uint64_t), cmp);
	empty = t[M_EMPTY][(size_t)rounds * CALLS / 2];
	printf("| read | median ns | p99 ns |\n|---|---:|---:|\n");
	for (int m = 0; m < M_NR; m++) {
		size_t n = (size_t)rounds * CALLS;
		uint64_t med = t[m][n / 2], p99 = t[m][n * 99 / 100];

		if ((m == M_PERF && c.perf_fd < 0) || (m == M_BPF && c.map_fd < 0)) {
			printf("| %s | - | - |\n", names[m]);
			continue;
		}
		if (m != M_EMPTY) {
			med = med > empty ? med - empty : 0;
			p99 = p99 > empty ? p99 - empty : 0;
		}
		printf("| %s | %lu | %lu |\n", names[m], (unsigned long)med, (unsigned long)p99);
	}
	printf("\n%d x %d calls each, taking turns; the empty region's median (%lu ns) taken off the others.\n",
	       rounds, CALLS, (unsigned long)empty);
	emon_self_close(c.s);
	return 0;
}
