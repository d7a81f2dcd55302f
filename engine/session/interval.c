// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The session's interval (see session.c for the flow): flush every CPU,
 * then read the quiescent buffer's per-CPU rows, overflow rows and used
 * slots, and zero them for its next turn.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common/array.h"
#include "engine/session/session_int.h"

int session_read__init(struct session_read *r, int ncpus)
{
	memset(r, 0, sizeof(*r));
	r->cpu = calloc(ncpus, sizeof(*r->cpu));
	r->ovf_cgrp = calloc(ncpus, sizeof(*r->ovf_cgrp));
	r->ovf_proc = calloc(ncpus, sizeof(*r->ovf_proc));
	r->ovf_thrd = calloc(ncpus, sizeof(*r->ovf_thrd));
	r->cpu_dt = calloc(ncpus, sizeof(*r->cpu_dt));
	if (!r->cpu || !r->ovf_cgrp || !r->ovf_proc || !r->ovf_thrd || !r->cpu_dt) {
		session_read__exit(r);
		return -ENOMEM;
	}
	return 0;
}

void session_read__exit(struct session_read *r)
{
	free(r->cpu);
	free(r->ovf_cgrp);
	free(r->ovf_proc);
	free(r->ovf_thrd);
	free(r->ovf_tree);
	free(r->cpu_dt);
	free(r->cgrp);
	free(r->proc);
	free(r->thrd);
	memset(r, 0, sizeof(*r));
}

/*
 * When the interval ended: each CPU's ends where its flush read its
 * counters, as the flush recorded it; the interval's end is their mean,
 * so the CPUs' cpu-clock adds up to exactly ncpu x dt whatever delayed
 * an IPI or preempted us (falls back to t, taken after the flush).
 */
static void session__flush_time(struct session *s, double t)
{
	int fd = bpf_map__fd(s->skel->maps.flush_ns);
	double sum = 0, lo = 0, hi = 0;
	__u64 *ns = s->pcpu_buf;
	__u32 z = 0;
	int n = 0;

	s->flush_t = t;
	s->flush_spread = 0;
	if (bpf_map_lookup_elem(fd, &z, ns)) {
		for (int cpu = 0; cpu < s->ncpus; cpu++)
			s->cpu[cpu].flush_ns = s->cpu[cpu].dt = 0;
		return;
	}
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		struct session_cpu *c = &s->cpu[cpu];
		__u64 prev = c->flush_ns;
		double v = ns[cpu] / 1e9;

		/* each CPU's time between reads, for the clock check */
		c->flush_ns = c->flushed ? ns[cpu] : 0;
		c->dt = prev && c->flush_ns > prev ? (c->flush_ns - prev) / 1e9 : 0;
		if (!c->flushed || !ns[cpu])
			continue;
		sum += v;
		lo = n && lo < v ? lo : v;
		hi = n && hi > v ? hi : v;
		n++;
	}
	if (n) {
		s->flush_t = sum / n;
		s->flush_spread = hi - lo;
	}
}

/* Run the flush program on every possible CPU; offline ones refuse. */
static int session__flush(struct session *s)
{
	int flushed = 0, err;

	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		err = session__flush_cpu(s, cpu);
		if (err && err != -ENXIO)
			return err;
		s->cpu[cpu].was_flushed = s->cpu[cpu].flushed;
		s->cpu[cpu].flushed = !err;
		flushed += !err;
	}
	session__flush_time(s, session__now());
	return flushed ? 0 : -ENXIO;
}

/* Read one slot of a per-CPU array of counts into out[cpu] and zero it. */
static int session__take_slot(struct session *s, int fd, __u32 slot,
			      struct counts *out)
{
	/* each CPU's value: nr_events counts (session__size_maps) */
	size_t stride = sizeof(struct emon_count) * s->nr_events;
	char *v = s->pcpu_buf;

	if (bpf_map_lookup_elem(fd, &slot, v))
		return -errno;
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		memcpy(out[cpu].c, v + cpu * stride, stride);
		counts__window(out[cpu].c, s->nr_events);
	}
	memset(v, 0, stride * s->ncpus);
	if (bpf_map_update_elem(fd, &slot, v, BPF_ANY))
		return -errno;
	return 0;
}

/* The same for sched_cpu (indexed as cpu_counts) into out[cpu].s. */
static int session__take_sched(struct session *s, __u32 slot, struct counts *out)
{
	int fd = bpf_map__fd(s->skel->maps.sched_cpu);
	struct emon_sched *v = s->pcpu_buf;

	if (!s->sched)
		return 0;
	if (bpf_map_lookup_elem(fd, &slot, v))
		return -errno;
	for (int cpu = 0; cpu < s->ncpus; cpu++)
		out[cpu].s = v[cpu];
	memset(v, 0, sizeof(*v) * s->ncpus);
	if (bpf_map_update_elem(fd, &slot, v, BPF_ANY))
		return -errno;
	return 0;
}

static int session__take_pcpu(struct session *s, __u32 slot, struct counts *out)
{
	int err = session__take_slot(s, bpf_map__fd(s->skel->maps.cpu_counts), slot, out);

	return err ?: session__take_sched(s, slot, out);
}

/* Each tree's part of the process overflow row, for the trees in use. */
static int session__take_trees(struct session *s, struct session_read *r, __u32 par)
{
	int fd = bpf_map__fd(s->skel->maps.tree_ovf), err = 0;
	size_t n = (size_t)s->max_trees * s->ncpus;

	if (!s->max_trees)
		return 0;
	if (!r->ovf_tree) {
		r->ovf_tree = calloc(n, sizeof(*r->ovf_tree));
		if (!r->ovf_tree)
			return -ENOMEM;
		r->ntrees = s->max_trees;
	}
	memset(r->ovf_tree, 0, n * sizeof(*r->ovf_tree));
	for (int t = 0; t < s->max_trees && !err; t++)
		if (s->trees & (1ULL << t))
			err = session__take_slot(s, fd, par * EMON_MAX_TREES + t,
						 &r->ovf_tree[(size_t)t * s->ncpus]);
	return err;
}

/*
 * Room for need entries, the new ones zeroed: each take_*() below writes
 * only the session's events and its scheduler view when on, the same
 * fields of every entry every time, so what it never writes stays zero
 * without a memset of the whole block (560 bytes) per entry per read.
 */
static int grow_zeroed(void *arrp, size_t *cap, size_t need, size_t elem)
{
	size_t old = *cap;
	int err = array__grow(arrp, cap, need, elem);

	if (!err && *cap > old)
		memset((char *)*(void **)arrp + old * elem, 0, (*cap - old) * elem);
	return err;
}

/* A slot's scheduler view, after its counts (when on). */
static void take_sched(struct counts *c, const void *counts, int nr, bool on)
{
	if (on)
		memcpy(&c->s, (const char *)counts + sizeof(struct emon_count) * nr,
		       sizeof(c->s));
}

static void take_cgrp(struct session_read *r, const void *slot, int nr, bool sched)
{
	const struct emon_cgrp_hdr *h = slot;
	struct sess_cgrp *e = &r->cgrp[r->nr_cgrp++];

	e->cgid = h->key.cgid;
	e->cpu = h->key.cpu;
	memcpy(e->c.c, (const char *)slot + sizeof(*h), sizeof(struct emon_count) * nr);
	counts__window(e->c.c, nr);
	take_sched(&e->c, (const char *)slot + sizeof(*h), nr, sched);
}

/*
 * trees: the trees in use now. A slot BPF marked before its tree was let
 * go keeps the bit until this read takes it: not the tree's any more (its
 * next user's, after this read, starts with none of it).
 */
static void take_proc(struct session_read *r, const void *slot, int nr, bool sched,
		      __u64 trees)
{
	const struct emon_proc_hdr *h = slot;
	struct sess_proc *e = &r->proc[r->nr_proc++];

	e->tgid = h->key.tgid;
	e->cpu = h->key.cpu;
	e->start = h->key.start;
	memcpy(e->comm, h->comm, sizeof(e->comm));
	e->comm[sizeof(e->comm) - 1] = '\0';
	e->flags = h->flags;
	e->trees = h->trees & trees;
	memcpy(e->c.c, (const char *)slot + sizeof(*h), sizeof(struct emon_count) * nr);
	counts__window(e->c.c, nr);
	take_sched(&e->c, (const char *)slot + sizeof(*h), nr, sched);
}

static void take_thrd(struct session_read *r, const void *slot, int nr)
{
	const struct emon_thrd_hdr *h = slot;
	struct sess_thrd *e = &r->thrd[r->nr_thrd++];

	e->tid = h->key.tid;
	e->cpu = h->key.cpu;
	e->start = h->key.start;
	e->tgid = h->tgid;
	memcpy(e->comm, h->comm, sizeof(e->comm));
	e->comm[sizeof(e->comm) - 1] = '\0';
	memcpy(e->c.c, (const char *)slot + sizeof(*h), sizeof(struct emon_count) * nr);
	counts__window(e->c.c, nr);
}

/* how many slots ahead session__drain hints the next ones */
#define DRAIN_AHEAD 8

/*
 * Read the used slots of a quiescent buffer straight from the mmap'ed
 * array, zero them for its next turn and hand its slots back: no syscall.
 */
static int session__drain(struct session *s, struct session_read *r,
			  enum emon_kind kind, __u32 par)
{
	struct session_array *a = &s->data[kind];
	volatile __u32 *used = &s->skel->bss->used[EMON_USED(kind, par)];
	__u32 n = *used;
	char *base;
	int err;

	if (n > a->max)		/* BPF counts on past max once it is full */
		n = a->max;
	base = (char *)a->mem + (size_t)par * a->max * a->stride;
	if (kind == EMON_KIND_CGRP)
		err = grow_zeroed(&r->cgrp, &r->cap_cgrp, r->nr_cgrp + n, sizeof(*r->cgrp));
	else if (kind == EMON_KIND_PROC)
		err = grow_zeroed(&r->proc, &r->cap_proc, r->nr_proc + n, sizeof(*r->proc));
	else
		err = grow_zeroed(&r->thrd, &r->cap_thrd, r->nr_thrd + n, sizeof(*r->thrd));
	if (err)
		return err;
	for (__u32 i = 0; i < n; i++) {
		const void *slot = base + (size_t)i * a->stride;

		/* slots and rows a few ahead: 20,000 rows of 600 bytes a read
		 * at 10,000 processes, each row a miss when taken cold */
		if (i + DRAIN_AHEAD < n) {
			__builtin_prefetch(slot + DRAIN_AHEAD * a->stride);
			__builtin_prefetch(slot + DRAIN_AHEAD * a->stride + 64);
			if (kind == EMON_KIND_PROC) {
				struct sess_proc *row = &r->proc[r->nr_proc + DRAIN_AHEAD];

				__builtin_prefetch(row, 1);
				__builtin_prefetch(&row->c, 1);
				__builtin_prefetch(&row->c.c[1], 1);
			}
		}
		if (kind == EMON_KIND_CGRP)
			take_cgrp(r, slot, s->nr_events, s->sched);
		else if (kind == EMON_KIND_PROC)
			take_proc(r, slot, s->nr_events, s->sched, s->trees);
		else
			take_thrd(r, slot, s->nr_events);
	}
	memset(base, 0, (size_t)n * a->stride);
	__atomic_store_n(used, 0, __ATOMIC_SEQ_CST);
	return 0;
}

static int session__read_stats(struct session *s, struct session_read *r)
{
	int fd = bpf_map__fd(s->skel->maps.stats);
	__u64 *v = s->pcpu_buf;

	for (__u32 slot = 0; slot < EMON_STAT_NR; slot++) {
		__u64 sum = 0;

		if (bpf_map_lookup_elem(fd, &slot, v))
			return -errno;
		for (int cpu = 0; cpu < s->ncpus; cpu++)
			sum += v[cpu];
		r->stats[slot] = sum - s->stats_prev[slot];
		s->stats_prev[slot] = sum;
	}
	return 0;
}

int session__interval(struct session *s, struct session_read *r)
{
	__u32 par;
	int err;

	s->epoch++;
	__atomic_store_n(&s->skel->bss->epoch, s->epoch, __ATOMIC_SEQ_CST);
	err = session__flush(s);
	if (err)
		return err;
	par = (s->epoch - 1) & 1;
	r->t = s->flush_t;
	r->spread = s->flush_spread;

	r->nr_cgrp = r->nr_proc = r->nr_thrd = 0;
	err = session__take_pcpu(s, par, r->cpu);
	err = err ?: session__take_pcpu(s, 2 + par * EMON_OVF_NR + EMON_OVF_CGRP, r->ovf_cgrp);
	err = err ?: session__take_pcpu(s, 2 + par * EMON_OVF_NR + EMON_OVF_PROC, r->ovf_proc);
	if (s->max_tids)
		err = err ?: session__take_slot(s, bpf_map__fd(s->skel->maps.cpu_counts),
						2 + par * EMON_OVF_NR + EMON_OVF_THRD,
						r->ovf_thrd);
	err = err ?: session__take_trees(s, r, par);
	err = err ?: session__drain(s, r, EMON_KIND_CGRP, par);
	err = err ?: session__drain(s, r, EMON_KIND_PROC, par);
	if (s->max_tids)
		err = err ?: session__drain(s, r, EMON_KIND_THRD, par);
	err = err ?: session__read_stats(s, r);
	for (int cpu = 0; cpu < s->ncpus; cpu++)
		r->cpu_dt[cpu] = s->cpu[cpu].live ? s->cpu[cpu].dt : 0;
	if (!err)
		session__track_cpus(s, r);
	return err;
}

int session__start(struct session *s)
{
	struct session_read r;
	int err;

	err = session__flush(s);	/* baseline readings */
	if (err)
		return err;
	err = session_read__init(&r, s->ncpus);
	if (err)
		return err;
	err = session__interval(s, &r);
	session_read__exit(&r);
	return err;
}
