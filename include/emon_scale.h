/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Multiplexing, one slice at a time: what bpf/account.bpf.h does to every
 * slice of an event read with its enabled and running times, in a header
 * userspace compiles too, so that the unit tests hold the very code the
 * BPF program runs. Fixed-width types only; no libc.
 *
 * perf scales a count by enabled/running over the whole window it reads,
 * and so does emon-perf, over a key's slices: a slice keeps its raw
 * count, and the enabled time in which the event did not run goes to
 * unrun; userspace estimates each window it reads of a key as counter *
 * enabled / (enabled - unrun) (counts__window(), engine/counts.h), the
 * key's own slices' count over their running time, and sums those. A slice is not scaled by its
 * own running time: where other events are rescheduled at a task's
 * switches (perf's cgroup events, per-task ones), an event can run only
 * in the kernel-mode tail of a switch within a slice, and that tail,
 * scaled as the whole slice, put :k at up to 2.5x the truth in the
 * arm64 guest (docs/arm64.md).
 */
#ifndef EMON_SCALE_H
#define EMON_SCALE_H

#include "emon.h"

/*
 * One slice's deltas (counter, enabled, running) in d, unrun 0: the time
 * the event was enabled but not running goes to unrun, the count stays
 * raw. running >= enabled (not multiplexed) or enabled == 0 (an event
 * read without its times): as is.
 */
static inline __attribute__((always_inline)) void emon_scale__slice(struct emon_count *d)
{
	if (!d->enabled || d->running >= d->enabled)
		return;
	d->unrun = d->enabled - d->running;
}

#endif /* EMON_SCALE_H */
