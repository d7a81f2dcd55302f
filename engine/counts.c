// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Counter arithmetic: pure functions, no I/O, so the unit tests can hold
 * the wrap and scaling rules directly.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "engine/counts.h"

/* Is part of c's enabled time estimated from the rest (unrun, not all)? */
static bool count__estimated(const struct emon_count *c)
{
	return c->unrun && c->unrun < c->enabled && c->running;
}

static int nr_clamp(int nr)
{
	if (nr < 0)
		return 0;
	return nr > EMON_MAX_EVENTS ? EMON_MAX_EVENTS : nr;
}

/* Unsigned subtraction is modulo 2^64 in C, which is exactly the delta of
 * a counter that wrapped once between the two readings. */
/* struct emon_sched is all __u64: sums and differences field by field */
#define SCHED_WORDS (sizeof(struct emon_sched) / sizeof(__u64))

void sched__delta(struct emon_sched *dst, const struct emon_sched *cur,
		  const struct emon_sched *prev)
{
	const __u64 *c = (const __u64 *)cur, *p = (const __u64 *)prev;
	__u64 *d = (__u64 *)dst;

	for (size_t i = 0; i < SCHED_WORDS; i++)
		d[i] = c[i] - p[i];
}

void sched__add(struct emon_sched *dst, const struct emon_sched *src)
{
	const __u64 *s = (const __u64 *)src;
	__u64 *d = (__u64 *)dst;

	for (size_t i = 0; i < SCHED_WORDS; i++)
		d[i] += s[i];
}

void sched__sub(struct emon_sched *dst, const struct emon_sched *part)
{
	const __u64 *p = (const __u64 *)part;
	__u64 *d = (__u64 *)dst;

	for (size_t i = 0; i < SCHED_WORDS; i++)
		d[i] = d[i] > p[i] ? d[i] - p[i] : 0;
}

__u64 sched__waits(const struct emon_sched *s)
{
	__u64 n = 0;

	for (int i = 0; i < EMON_SCHED_SLOTS; i++)
		n += s->hist[i];
	return n;
}

void counts__delta(struct counts *dst, const struct counts *cur,
		   const struct counts *prev, int nr)
{
	int i;

	if (counts__has_sched(nr))
		sched__delta(&dst->s, &cur->s, &prev->s);
	dst->gpu.uj = cur->gpu.uj - prev->gpu.uj;
	dst->gpu.sm_ns = cur->gpu.sm_ns - prev->gpu.sm_ns;
	nr = nr_clamp(nr);
	for (i = 0; i < nr; i++) {
		dst->c[i].counter = cur->c[i].counter - prev->c[i].counter;
		dst->c[i].enabled = cur->c[i].enabled - prev->c[i].enabled;
		dst->c[i].running = cur->c[i].running - prev->c[i].running;
		dst->c[i].unrun = cur->c[i].unrun - prev->c[i].unrun;
	}
}

void counts__add_events(struct counts *dst, const struct counts *src, int nr)
{
	int i;

	dst->gpu.uj += src->gpu.uj;
	dst->gpu.sm_ns += src->gpu.sm_ns;
	nr = nr_clamp(nr);
	for (i = 0; i < nr; i++) {
		dst->c[i].counter += src->c[i].counter;
		dst->c[i].enabled += src->c[i].enabled;
		dst->c[i].running += src->c[i].running;
		dst->c[i].unrun += src->c[i].unrun;
	}
}

void counts__add(struct counts *dst, const struct counts *src, int nr)
{
	if (counts__has_sched(nr))
		sched__add(&dst->s, &src->s);
	counts__add_events(dst, src, nr);
}

bool counts__is_zero(const struct counts *c, int nr)
{
	static const struct emon_sched zero;
	int i;

	if (counts__has_sched(nr) && memcmp(&c->s, &zero, sizeof(zero)))
		return false;
	if (c->gpu.uj || c->gpu.sm_ns)
		return false;
	nr = nr_clamp(nr);
	for (i = 0; i < nr; i++) {
		if (c->c[i].counter || c->c[i].enabled || c->c[i].running ||
		    c->c[i].unrun)
			return false;
	}
	return true;
}

/*
 * Each slice's count is raw, its time not running in unrun (BPF,
 * include/emon_scale.h); the key's value is estimated as perf does a
 * window: counter * enabled / (enabled - unrun). counter * enabled can exceed 2^64 long
 * before the result does (a 2^40 count over 2^40 ns), so multiply in long
 * double: at least a 64-bit mantissa on x86 (113 bits on arm64), where
 * double's 53 would already round the raw count. The ratio is perf's
 * running / enabled; running >= enabled is not multiplexing (sums of
 * per-CPU deltas can be off by the slice being read): ratio 1.
 */
static bool count__scale(const struct emon_count *c, long double *value,
			 double *ratio)
{
	if (c->enabled && !c->running) {
		*value = 0;
		*ratio = 0.0;
		return false;
	}
	if (c->enabled == 0 || c->running >= c->enabled)
		*ratio = 1.0;
	else
		*ratio = (double)c->running / (double)c->enabled;
	if (!count__estimated(c))
		*value = c->counter;
	else
		*value = (long double)c->counter * c->enabled / (c->enabled - c->unrun);
	return true;
}

/*
 * One read's window of a key on a CPU (what the BPF program added between
 * two reads: raw counts, the time not running in unrun) estimated as perf
 * estimates each read: counter * enabled / (enabled - unrun), unrun then
 * 0. What is summed from here on is those estimates, so a total only
 * grows, as a Prometheus counter must; a window in which the event never
 * ran keeps its enabled time in unrun, for the total's estimate from the
 * key's other windows (count__scale).
 */
void counts__window(struct emon_count *c, int nr)
{
	for (int i = 0; i < nr_clamp(nr); i++) {
		long double v;

		if (!count__estimated(&c[i]))
			continue;
		v = (long double)c[i].counter * c[i].enabled /
		    (c[i].enabled - c[i].unrun) + 0.5L;
		c[i].counter = v >= 18446744073709551616.0L ? UINT64_MAX : (__u64)v;
		c[i].unrun = 0;
	}
}

bool count__scaled(const struct emon_count *c, double *value, double *ratio)
{
	long double v;
	double r;
	bool ok;

	ok = count__scale(c, &v, &r);
	if (value)
		*value = (double)v;
	if (ratio)
		*ratio = r;
	return ok;
}

bool count__scaled_u64(const struct emon_count *c, __u64 *value)
{
	long double v;
	double r;
	bool ok;

	ok = count__scale(c, &v, &r);
	if (!ok)
		*value = 0;
	else if (!count__estimated(c))
		*value = c->counter;	/* exact, whatever its size */
	else if (v + 0.5L >= 18446744073709551616.0L)
		*value = UINT64_MAX;
	else
		*value = (__u64)(v + 0.5L);
	return ok;
}

double clock__deficit(const struct counts *cpu, int idx, const double *dt,
		      int ncpus, int *worst)
{
	double most = 0;

	*worst = -1;
	for (int i = 0; i < ncpus; i++) {
		double d;

		if (!(dt[i] >= 0.01))
			continue;
		d = 1 - cpu[i].c[idx].counter / (dt[i] * 1e9);
		if (*worst < 0 || d > most) {
			most = d;
			*worst = i;
		}
	}
	return most;
}

double metric__ratio(double a, double b)
{
	if (isnan(a) || isnan(b) || b == 0.0)
		return NAN;
	return a / b;
}
