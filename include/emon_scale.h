/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Multiplexing, one slice at a time: the arithmetic bpf/account.bpf.h runs
 * on every slice of an event read with its enabled and running times, in
 * a header userspace compiles too, so that the unit tests hold the very
 * code the BPF program runs. Fixed-width types only; no libc.
 *
 * perf scales a count by enabled/running over the whole window it reads.
 * A slice is a window of its own: the part of a rotation it saw is the
 * slice's own running/enabled, and it is scaled by that, not by the
 * ratio of a whole interval whose rotations fell elsewhere. A slice in
 * which the event did not run at all has no count to scale: its enabled
 * time goes to unrun, and userspace estimates it from the key's other
 * slices as perf does for a window (count__scaled(), engine/counts.h).
 */
#ifndef EMON_SCALE_H
#define EMON_SCALE_H

#include "emon.h"

#define EMON_SCALE_INLINE static inline __attribute__((always_inline))
/* the division once in the object, a BPF subprogram every unrolled event
 * calls (multiplexed slices only), not copied into each of them */
#ifdef __bpf__
#define EMON_SCALE_CALL static __attribute__((noinline))
#else
#define EMON_SCALE_CALL static inline
#endif

/* *p = a * b; 0 when it does not fit in 64 bits, else 1. In 32-bit halves:
 * a u64 overflow test (b > ~0 / a) is turned by clang into a 128-bit
 * multiply, which the BPF backend cannot emit. */
EMON_SCALE_INLINE int emon_scale__mul(__u64 a, __u64 b, __u64 *p)
{
	__u64 ah = a >> 32, al = a & 0xffffffffULL;
	__u64 bh = b >> 32, bl = b & 0xffffffffULL;
	__u64 mid, low;

	if (ah && bh)
		return 0;
	mid = ah * bl + al * bh;	/* one term is 0: no overflow */
	if (mid >> 32)
		return 0;
	low = al * bl;
	*p = (mid << 32) + low;
	return *p >= low;
}

/*
 * c * e / r rounded down, r > 0, with no 128-bit product. With c = q * r
 * + rem and e = qe * r + re (rem, re < r):
 *   c * e / r = q * e + rem * qe + rem * re / r
 * where rem * qe < e, and rem * re < r^2 fits while r < 2^32: exact for
 * any count and enabled time as long as the event ran under 2^32 ns (4.29
 * s) of one slice, far more than a slice between two switches or flushes
 * holds. A longer run drops the same low bits of e and r until r fits: r
 * keeps 31 significant bits, a relative error under 2^-31. A result past
 * 2^64 saturates.
 */
EMON_SCALE_CALL __u64 emon_scale__mul_div(__u64 c, __u64 e, __u64 r)
{
	__u64 q, rem, qe, re, v, part;

	/* r < 2^32 after, e >= r > 0 still; a bounded loop for the
	 * verifier (clang crashes expanding a count of leading zeros for BPF) */
	for (int i = 0; i < 32 && r >> 32; i++) {
		e >>= 1;
		r >>= 1;
	}
	q = c / r;
	rem = c % r;
	qe = e / r;
	re = e % r;
	if (!emon_scale__mul(q, e, &v))
		return ~0ULL;
	part = rem * qe + rem * re / r;
	return v + part < v ? ~0ULL : v + part;
}

/*
 * One slice's deltas (counter, enabled, running) in d, unrun 0: scale
 * the counter by the slice's own enabled/running when the event ran part
 * of it; count the slice's enabled time as unrun when it did not run at
 * all. running >= enabled (not multiplexed) or enabled == 0 (an event
 * read without its times): as is.
 */
EMON_SCALE_INLINE void emon_scale__slice(struct emon_count *d)
{
	if (!d->enabled || d->running >= d->enabled)
		return;
	if (!d->running) {
		d->unrun = d->enabled;
		return;
	}
	d->counter = emon_scale__mul_div(d->counter, d->enabled, d->running);
}

#endif /* EMON_SCALE_H */
