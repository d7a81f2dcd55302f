// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The thread scope's rows (engine_opts.max_tids): perf --per-thread's
 * COMM-TID rows, and -t's sum. Which threads: -t's, -p's processes'
 * (every thread they run, the ones started later too), else every thread
 * that ran (not the idle tasks, tid 0). perf's rows for -p and -t are the threads there were when it
 * started, and one that did not run in an interval is <not counted>
 * there: so are those here (targets.start_thr), with -a only the
 * threads that ran, as perf skips the zeros then. Rows come by their
 * first event's count, the largest first, as perf's text has them (CSV
 * sorts each event's lines by its own count, as perf's does).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "front/row_set.h"

struct thrd_ref {
	__u32 tid, pid;
	const struct agg_entry *e;	/* NULL: a thread of the start that never ran */
	const char *comm;
	double sort;		/* the first event's count, -1: never ran */
};

static int thrd_ref__cmp(const void *a, const void *b)
{
	const struct thrd_ref *x = a, *y = b;

	if (x->sort != y->sort)
		return x->sort < y->sort ? 1 : -1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static bool thread_wanted(const struct targets *tg, __u32 tid, __u32 pid)
{
	if (tg->nr_tids)
		return targets__has_tid(tg, tid);
	if (tg->nr_pids)
		return targets__has_pid(tg, pid);
	return true;
}

/* Has the interval a thread of (tid, pid) among refs[0..n)? */
static bool refs__have(const struct thrd_ref *refs, size_t n, __u32 tid, __u32 pid)
{
	for (size_t i = 0; i < n; i++)
		if (refs[i].tid == tid && refs[i].pid == pid)
			return true;
	return false;
}

/* The interval's threads of the targets, then the start's that did not run. */
static struct thrd_ref *collect_thrds(const struct row_ctx *sc,
				      const struct aggregate *a, size_t *nr)
{
	const struct targets *tg = sc->tg;
	size_t cap = a->thrds.nr + (tg ? tg->nr_start_thr : 0) + 1, n = 0, ran;
	struct thrd_ref *refs = calloc(cap, sizeof(*refs));
	struct idmap_slot *s;
	size_t it = 0;
	double ratio;

	if (!refs)
		return NULL;
	while ((s = idmap__next(&a->thrds, &it))) {
		const struct agg_entry *e = s->val;
		__u32 pid = s->key.b >> 32;

		/* the idle tasks are no thread perf shows */
		if (!s->key.a || (tg && !thread_wanted(tg, s->key.a, pid)))
			continue;
		if (counts__is_zero(&e->total, a->nr_events))
			continue;
		refs[n] = (struct thrd_ref){ s->key.a, pid, e, e->comm, 0 };
		if (sc->sort_idx >= 0)
			count__scaled(&e->total.c[sc->sort_idx], &refs[n].sort, &ratio);
		n++;
	}
	ran = n;
	for (int i = 0; tg && i < tg->nr_start_thr; i++) {
		const struct target_thread *t = &tg->start_thr[i];

		if (!refs__have(refs, ran, t->tid, t->pid))
			refs[n++] = (struct thrd_ref){ t->tid, t->pid, NULL, t->comm, -1 };
	}
	qsort(refs, n, sizeof(*refs), thrd_ref__cmp);
	*nr = n;
	return refs;
}

int row_set__threads(const struct row_ctx *sc, const struct aggregate *a,
		     struct row_set *rs)
{
	size_t n;
	struct thrd_ref *refs = collect_thrds(sc, a, &n);
	struct row *r;
	int err = 0;

	if (!refs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		r = row_set__add(rs, SCOPE_THREAD, row_set__key(rs, "%u", refs[i].tid));
		if (!r) {
			err = -ENOMEM;
			goto out;
		}
		r->comm = refs[i].comm;
		r->pid = refs[i].pid;
		if (refs[i].e)
			r->counts = refs[i].e->total;
		r->not_run = !refs[i].e;
	}
	/* slices of a full thread map: whose, no one knows */
	if (!counts__is_zero(&a->ovf_thrd->total, a->nr_events)) {
		r = row_set__add(rs, SCOPE_THREAD, "overflow");
		if (!r) {
			err = -ENOMEM;
			goto out;
		}
		r->comm = "[map full]";
		r->counts = a->ovf_thrd->total;
	}
out:
	free(refs);
	return err;
}

int row_set__tid_sum(const struct row_ctx *sc, const struct aggregate *a,
		     struct row_set *rs)
{
	struct row *r = row_set__add(rs, SCOPE_COMMAND, sc->tg->tid_list);
	struct idmap_slot *s;
	size_t it = 0;

	if (!r)
		return -ENOMEM;
	while ((s = idmap__next(&a->thrds, &it)))
		if (targets__has_tid(sc->tg, s->key.a))
			counts__add(&r->counts, &((struct agg_entry *)s->val)->total,
				    a->nr_events);
	/* perf: <not counted> when none of them ran */
	r->not_run = counts__is_zero(&r->counts, a->nr_events);
	return 0;
}
