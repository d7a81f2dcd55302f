// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libemon's read path: one slot (include/emon_selfmon.h) read under its
 * sequence count, plus the running slice, with no syscall.
 *
 * Time events: the slot has the finished slices; the running one started
 * at slot.start_ns (CLOCK_MONOTONIC, written by BPF at the switch in) and
 * is now - start_ns, the clock read through the vDSO. The clock is read
 * inside the sequence: had the thread been switched out and in between,
 * seq moved and the read starts over, so no time off the CPU is counted.
 *
 * Hardware events with rdpmc (untested: no PMU on the machines this was
 * written on): the perf_event_mmap_page rules (linux/perf_event.h), with
 * the index and the slice's starting counter value from the slot instead
 * of the event's own mmap page: rdpmc(index - 1) is the raw counter, the
 * slice's part is (raw - pmc_start) in pmc_width bits. A migration or a
 * multiplexing rotation that changes the counter passes through a switch
 * (seq) or makes BPF publish index 0 (then: as of the last switch).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "libemon/selfmon_int.h"

#define load(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define MAX_TRIES 1000

#if defined(__x86_64__) || defined(__i386__)
static inline __u64 rdpmc(__u32 counter)
{
	__u32 lo, hi;

	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return lo | (__u64)hi << 32;
}

/* /sys/bus/event_source/devices/cpu/rdpmc: 2 lets every task use rdpmc;
 * 1 (the default) only tasks with a perf_event of their own mmap'ed,
 * which a reader of the daemon's counts does not have. */
bool emon__rdpmc_allowed(void)
{
	static const char *const paths[] = {
		"/sys/bus/event_source/devices/cpu/rdpmc",
		"/sys/bus/event_source/devices/cpu_core/rdpmc",
	};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		FILE *f = fopen(paths[i], "re");
		int v = 0;

		if (!f)
			continue;
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
		return v == 2;
	}
	return false;
}

/* The running slice's part of hardware event i, 0 without rdpmc. */
static inline __u64 slice_pmc(const struct emon_self *s, int i)
{
	const struct emon_self_slot *sl = s->slot;
	__u32 idx = load(&sl->pmc_idx[i]), w = s->pmc_width;
	__u64 mask;

	if (!s->rdpmc || !idx || w < 8 || w > 64)
		return 0;
	mask = w == 64 ? ~0ULL : (1ULL << w) - 1;
	return (rdpmc(idx - 1) - load(&sl->pmc_start[i])) & mask;
}
#else
bool emon__rdpmc_allowed(void)
{
	return false;
}

static inline __u64 slice_pmc(const struct emon_self *s, int i)
{
	(void)s;
	(void)i;
	return 0;
}
#endif

static inline __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int emon__self_raw(const struct emon_self *s, __u64 *v)
{
	const struct emon_self_slot *sl = s->slot;

	for (int t = 0; t < MAX_TRIES; t++) {
		__u32 seq = __atomic_load_n(&sl->seq, __ATOMIC_ACQUIRE);
		__u32 state = load(&sl->state);
		__u64 gen = load(&sl->gen), start = load(&sl->start_ns), now = 0;

		if (seq & 1)
			continue;	/* BPF writes it on another CPU: a switch */
		if (start && s->time_mask)
			now = mono_ns();
		for (int i = 0; i < s->nr; i++) {
			v[i] = load(&sl->total[i]);
			if (!start)
				continue;
			if (s->time_mask & (1u << i))
				v[i] += now > start ? now - start : 0;
			else
				v[i] += slice_pmc(s, i);
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (load(&sl->seq) != seq)
			continue;
		if (state == EMON_SELF_GONE)
			return -ESHUTDOWN;
		if (state != EMON_SELF_LIVE || gen != s->gen)
			return -ESTALE;
		return 0;
	}
	return -EAGAIN;
}

int emon_self_read(struct emon_self *s, uint64_t *values, int n)
{
	__u64 v[EMON_MAX_EVENTS];
	int err;

	if (!s || n < 0 || (n && !values) || !pthread_equal(s->owner, pthread_self()))
		return -EINVAL;
	err = emon__self_raw(s, v);
	if (err)
		return err;
	if (n > s->nr)
		n = s->nr;
	for (int i = 0; i < n; i++)
		values[i] = v[i] - s->base[i];
	return n;
}

int emon_self_exact(const struct emon_self *s, int i)
{
	if (!s || i < 0 || i >= s->nr)
		return -1;
	if ((s->time_mask | s->switch_mask) & (1u << i))
		return 1;
	return s->rdpmc && load(&s->slot->pmc_idx[i]) ? 1 : 0;
}
