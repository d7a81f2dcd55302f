/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Counter arithmetic with no I/O: deltas of cumulative readings, sums,
 * multiplexing scale, derived metrics. Unit-tested directly.
 */
#ifndef ENGINE_COUNTS_H
#define ENGINE_COUNTS_H

#include <linux/types.h>
#include <stdbool.h>
#include "emon.h"

/*
 * A row's counts: its events' (c) and the scheduler view (s, --sched), in
 * one block of 560 bytes whatever the number of events, as a process
 * storm holds tens of thousands of rows: up to EMON_MAX_EVENTS events, or
 * up to COUNTS_MAX_EVENTS_SCHED beside the scheduler view, which takes
 * the block's tail (the engine refuses more: setup_events() in engine.c).
 * Every function below is given the number of events, nr, and carries s
 * along only when nr leaves it room; s is zero when the view is off.
 */
#define COUNTS_MAX_EVENTS_SCHED 8
/* A key's use of the GPUs (rapl/gpu.h's split), zero without a GPU
 * source: added and differenced with the events, 16 bytes of the block,
 * at its head: in the cache line of the first events, which every add
 * touches anyway (at the tail it was a line more a key, a miss each in
 * a read's 10,000 process rows and their totals). */
struct gpu_count {
	__u64 uj;		/* its part of the GPUs' energy, uJ */
	__u64 sm_ns;		/* its SM time: share x ns, over the GPUs */
};
struct counts {
	struct gpu_count gpu;
	union {
		struct emon_count c[EMON_MAX_EVENTS];
		struct {
			struct emon_count c_beside_sched[COUNTS_MAX_EVENTS_SCHED];
			struct emon_sched s;
		};
	};
};

/* Does a block of nr events hold the scheduler view too? */
static inline bool counts__has_sched(int nr)
{
	return nr <= COUNTS_MAX_EVENTS_SCHED;
}

/* dst = cur - prev per field, modulo 2^64 (a wrapped counter still gives
 * its true delta). */
void counts__delta(struct counts *dst, const struct counts *cur,
		   const struct counts *prev, int nr);
void counts__add(struct counts *dst, const struct counts *src, int nr);
/* The events alone: counts__add where the scheduler view is off (src's
 * is zero, so the sum is the same), without its 36 words. */
void counts__add_events(struct counts *dst, const struct counts *src, int nr);
bool counts__is_zero(const struct counts *c, int nr);
/* The same for the scheduler view alone. */
void sched__delta(struct emon_sched *dst, const struct emon_sched *cur,
		  const struct emon_sched *prev);
void sched__add(struct emon_sched *dst, const struct emon_sched *src);
/* dst -= part, no field below 0 (part is a part of dst: a task of its
 * cgroup). */
void sched__sub(struct emon_sched *dst, const struct emon_sched *part);
/* Waits in the histogram (switch-ins after a wakeup or a preemption). */
__u64 sched__waits(const struct emon_sched *s);

/*
 * A key's value as perf would show it: its counter (raw, or the sum of
 * its windows' estimates once counts__window took them), over the time
 * it ran of the time it was enabled (unrun: the time it did not,
 * include/emon_scale.h): counter * enabled / (enabled - unrun). Returns
 * false ("not
 * counted") when enabled time passed and the event never ran; *ratio is
 * perf's running / enabled (1.0 when nothing was enabled at all). With
 * --no-scale the BPF program leaves unrun 0: the value is
 * the raw count, the ratio the same.
 */
bool count__scaled(const struct emon_count *c, double *value, double *ratio);
/* The same estimate rounded to an integer, exact when nothing is
 * estimated (double would round counts above 2^53); UINT64_MAX if it
 * overflows. */
bool count__scaled_u64(const struct emon_count *c, __u64 *value);
/* A read's window of nr counts of one key on one CPU, each scaled by its
 * own enabled/running where it ran part of the time (unrun then 0), as
 * the engine takes it from the BPF maps: totals of such windows only grow */
void counts__window(struct emon_count *c, int nr);

/*
 * How much a per-CPU time event (cpu-clock, event idx of cpu[]) fell short
 * of the time between its CPU's two reads, as a fraction: the worst CPU's,
 * *worst set to it (-1 when none is known). dt[cpu] is the seconds between
 * the reads (0: not known, such as a CPU that was offline). Periods under
 * 10 ms are left out: the reads' own jitter is too large there.
 */
double clock__deficit(const struct counts *cpu, int idx, const double *dt,
		      int ncpus, int *worst);

/* a / b, or NAN when b is zero or either side is not counted. */
double metric__ratio(double a, double b);

#endif
