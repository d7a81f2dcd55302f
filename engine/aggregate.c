// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/array.h"
#include "engine/aggregate.h"

static struct agg_entry *agg_entry__new(void)
{
	return calloc(1, sizeof(struct agg_entry));
}

int aggregate__init(struct aggregate *a, int ncpus, int npkg,
		    const int *cpu_pkg, int nr_events)
{
	memset(a, 0, sizeof(*a));
	a->ncpus = ncpus;
	a->npkg = npkg;
	a->cpu_pkg = cpu_pkg;
	a->nr_events = nr_events;
	a->cpu = calloc(ncpus, sizeof(*a->cpu));
	a->ovf_cgrp = agg_entry__new();
	a->ovf_proc = agg_entry__new();
	a->ovf_thrd = agg_entry__new();
	a->cpu_energy = calloc(ncpus, sizeof(*a->cpu_energy));
	a->pkg_energy = calloc(npkg, sizeof(*a->pkg_energy));
	a->pkg_zone = calloc(npkg * AGG_ZONES, sizeof(*a->pkg_zone));
	a->pkg_zone_mask = calloc(npkg, sizeof(*a->pkg_zone_mask));
	if (!a->cpu || !a->ovf_cgrp || !a->ovf_proc || !a->ovf_thrd || !a->cpu_energy ||
	    !a->pkg_energy || !a->pkg_zone || !a->pkg_zone_mask) {
		aggregate__exit(a);
		return -ENOMEM;
	}
	return 0;
}

int aggregate__init_trees(struct aggregate *a, int ntrees)
{
	a->tree = calloc(ntrees, sizeof(*a->tree));
	a->ovf_tree = calloc(ntrees, sizeof(*a->ovf_tree));
	if (!a->tree || !a->ovf_tree)
		return -ENOMEM;
	a->ntrees = ntrees;
	for (int t = 0; t < ntrees; t++) {
		a->tree[t] = agg_entry__new();
		a->ovf_tree[t] = agg_entry__new();
		if (!a->tree[t] || !a->ovf_tree[t])
			return -ENOMEM;
	}
	return 0;
}

static void agg_entry__put(void *ctx, void *val)
{
	struct aggregate *a = ctx;
	struct agg_entry *e = val;

	e->next_free = a->free_list;
	a->free_list = e;
}

void aggregate__exit(struct aggregate *a)
{
	while (a->free_list) {
		struct agg_entry *e = a->free_list;

		a->free_list = e->next_free;
		free(e);
	}
	idmap__clear(&a->cgrps, free);
	idmap__clear(&a->procs, free);
	idmap__clear(&a->thrds, free);
	free(a->cpu);
	free(a->ovf_cgrp);
	free(a->ovf_proc);
	free(a->ovf_thrd);
	for (int t = 0; t < a->ntrees; t++) {
		free(a->tree[t]);
		free(a->ovf_tree[t]);
	}
	free(a->tree);
	free(a->ovf_tree);
	free(a->cpu_energy);
	free(a->pkg_energy);
	free(a->pkg_zone);
	free(a->pkg_zone_mask);
	free(a->fresh_cgrp);
	free(a->fresh_proc);
	memset(a, 0, sizeof(*a));
}

static void entry__add(const struct aggregate *a, struct agg_entry *e,
		       const struct counts *c)
{
	if (a->sched_off)
		counts__add_events(&e->total, c, a->nr_events);
	else
		counts__add(&e->total, c, a->nr_events);
}

/* Note entry e of (id, id2) in a fresh list (see struct aggregate). */
static int fresh__push(struct agg_fresh **arr, size_t *nr, size_t *cap,
		       __u64 id, __u64 id2, struct agg_entry *e, bool exec)
{
	int err = array__grow(arr, cap, *nr + 1, sizeof(**arr));

	if (err)
		return err;
	(*arr)[(*nr)++] = (struct agg_fresh){ id, id2, e, exec };
	return 0;
}

struct agg_entry *aggregate__entry(struct aggregate *a, struct idmap *m,
				   __u64 id, __u64 id2)
{
	struct agg_entry *e = idmap__get(m, id, id2);

	if (e)
		return e;
	if (a->free_list) {
		e = a->free_list;
		a->free_list = e->next_free;
		memset(e, 0, sizeof(*e));
	} else {
		e = agg_entry__new();
		if (!e)
			return NULL;
	}
	if (idmap__put(m, id, id2, e)) {
		agg_entry__put(a, e);
		return NULL;
	}
	return e;
}

/* how far ahead aggregate__add takes the processes' entries */
#define AGG_AHEAD 16

int aggregate__add(struct aggregate *a, const struct session_read *r)
{
	a->nr_fresh_cgrp = a->nr_fresh_proc = 0;
	for (int cpu = 0; cpu < a->ncpus; cpu++) {
		counts__add(&a->cpu[cpu], &r->cpu[cpu], a->nr_events);
		entry__add(a, a->ovf_cgrp, &r->ovf_cgrp[cpu]);
		entry__add(a, a->ovf_proc, &r->ovf_proc[cpu]);
		if (r->ovf_thrd)
			entry__add(a, a->ovf_thrd, &r->ovf_thrd[cpu]);
		for (int t = 0; r->ovf_tree && t < a->ntrees && t < r->ntrees; t++) {
			const struct counts *c = &r->ovf_tree[(size_t)t * a->ncpus + cpu];

			entry__add(a, a->ovf_tree[t], c);
			entry__add(a, a->tree[t], c);
		}
	}
	for (size_t i = 0; i < r->nr_cgrp; i++) {
		const struct sess_cgrp *c = &r->cgrp[i];
		struct agg_entry *e = aggregate__entry(a, &a->cgrps, c->cgid, 0);

		if (!e)
			return -ENOMEM;
		entry__add(a, e, &c->c);
		e->seen_t = r->t;
		if ((((a->fresh & AGG_FRESH_NAMES) && !e->name) ||
		     ((a->fresh & AGG_FRESH_OWNERS) && !e->owned)) &&
		    fresh__push(&a->fresh_cgrp, &a->nr_fresh_cgrp, &a->cap_fresh_cgrp,
				c->cgid, 0, e, false))
			return -ENOMEM;
	}
	/*
	 * The processes' entries are taken AGG_AHEAD rows ahead, their map
	 * slots hinted twice as far: each is a cache miss (10,000 scattered
	 * entries a read), now overlapped, where one at a time they were
	 * most of this function's time.
	 */
	struct agg_entry *ahead[AGG_AHEAD];

	for (size_t i = 0; i < r->nr_proc + AGG_AHEAD; i++) {
		const struct sess_proc *p;
		struct agg_entry *e;

		if (i + 2 * AGG_AHEAD < r->nr_proc)
			idmap__prefetch(&a->procs, r->proc[i + 2 * AGG_AHEAD].tgid,
					r->proc[i + 2 * AGG_AHEAD].start);
		/* row i - AGG_AHEAD's entry, in the place row i's takes next */
		e = i >= AGG_AHEAD ? ahead[i % AGG_AHEAD] : NULL;
		if (i < r->nr_proc) {
			struct agg_entry *next;

			p = &r->proc[i];
			next = aggregate__entry(a, &a->procs, p->tgid, p->start);
			if (!next)
				return -ENOMEM;
			__builtin_prefetch(next);
			__builtin_prefetch((char *)next + 64);
			__builtin_prefetch(&next->total);
			__builtin_prefetch(&next->total.c[1]);
			/* and the row's counts, a line or two past its key */
			__builtin_prefetch(&p->c);
			__builtin_prefetch(&p->c.c[1]);
			ahead[i % AGG_AHEAD] = next;
		}
		if (!e)
			continue;
		p = &r->proc[i - AGG_AHEAD];
		/*
		 * The name: this read's over earlier reads'; within a read,
		 * the one an exec gave over those seen before it (one entry
		 * per CPU, in no order).
		 */
		if (!e->comm[0] || e->comm_read != a->reads ||
		    (p->flags & EMON_PROC_EXEC) >= (e->comm_flags & EMON_PROC_EXEC)) {
			memcpy(e->comm, p->comm, sizeof(e->comm));
			e->comm_flags = p->flags;
			e->comm_read = a->reads;
		}
		if ((a->fresh & AGG_FRESH_OWNERS) &&
		    (!e->owned || (p->flags & EMON_PROC_EXEC)) &&
		    fresh__push(&a->fresh_proc, &a->nr_fresh_proc, &a->cap_fresh_proc,
				p->tgid, p->start, e, p->flags & EMON_PROC_EXEC))
			return -ENOMEM;
		e->flags |= p->flags;
		e->trees |= p->trees;
		entry__add(a, e, &p->c);
		e->seen_t = r->t;
		for (int t = 0; p->trees && t < a->ntrees; t++)
			if (p->trees & (1ULL << t))
				entry__add(a, a->tree[t], &p->c);
	}
	for (size_t i = 0; i < r->nr_thrd; i++) {
		const struct sess_thrd *t = &r->thrd[i];
		struct agg_entry *e = aggregate__entry(a, &a->thrds, t->tid,
						       (__u64)t->tgid << 32 | t->start);

		if (!e)
			return -ENOMEM;
		if (!e->comm[0] || e->comm_read <= a->reads) {	/* the latest name */
			memcpy(e->comm, t->comm, sizeof(e->comm));
			e->comm_read = a->reads;
		}
		entry__add(a, e, &t->c);
		e->seen_t = r->t;
	}
	for (int i = 0; i < EMON_STAT_NR; i++)
		a->stats[i] += r->stats[i];
	a->reads++;
	return 0;
}

void aggregate__reset(struct aggregate *a)
{
	size_t sz = sizeof(struct agg_entry);

	idmap__reset(&a->cgrps, agg_entry__put, a);
	idmap__reset(&a->procs, agg_entry__put, a);
	idmap__reset(&a->thrds, agg_entry__put, a);
	memset(a->cpu, 0, a->ncpus * sizeof(*a->cpu));
	memset(a->ovf_cgrp, 0, sz);
	memset(a->ovf_proc, 0, sz);
	memset(a->ovf_thrd, 0, sz);
	for (int t = 0; t < a->ntrees; t++) {
		memset(a->tree[t], 0, sz);
		memset(a->ovf_tree[t], 0, sz);
	}
	memset(a->stats, 0, sizeof(a->stats));
	a->reads = 0;
	a->energy_valid = false;
	a->energy_gap = false;
	a->energy_total = 0;
	memset(a->cpu_energy, 0, a->ncpus * sizeof(*a->cpu_energy));
	memset(a->pkg_energy, 0, a->npkg * sizeof(*a->pkg_energy));
	memset(a->pkg_zone, 0, a->npkg * AGG_ZONES * sizeof(*a->pkg_zone));
	memset(a->pkg_zone_mask, 0, a->npkg * sizeof(*a->pkg_zone_mask));
}

void aggregate__system(const struct aggregate *a, struct counts *out)
{
	memset(out, 0, sizeof(*out));
	for (int cpu = 0; cpu < a->ncpus; cpu++)
		counts__add(out, &a->cpu[cpu], a->nr_events);
}
