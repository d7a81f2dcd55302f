// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Retention (retain.h). The daemon's rule lets a key go once it is
 * unchanged for retain_s and its cgroup or process is gone; one front end
 * in the same process lets go what its last snapshot holds. Either way,
 * past max_keys the keys unchanged the longest go too, whatever they are.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "engine/retain.h"
#include "common/log.h"

/* How often the daemon's retention pass runs. */
#define RETAIN_EVERY_S 5.0

/* What a pass works on: one map of the totals and its gone entry. */
struct retain_map {
	struct idmap *m;
	struct agg_entry **gone;
	bool cgrp;
	int nr_events;
	const char *cgroot;
};

/* Take the entry of (id, id2) out of the map, its totals into gone. */
static int retain_map__drop(struct retain_map *rm, __u64 id, __u64 id2)
{
	struct agg_entry **g = rm->gone, *a;

	if (!*g) {
		*g = calloc(1, sizeof(**g));
		if (!*g)
			return -ENOMEM;
	}
	a = idmap__del(rm->m, id, id2);
	if (!a)
		return 0;
	counts__add(&(*g)->total, &a->total, rm->nr_events);
	(*g)->energy_j += a->energy_j;
	free((char *)a->name);
	free(a);
	return 0;
}

/* Is the cgroup or process of an entry gone from the system? */
static bool entry__gone(const struct retain_map *rm, const struct idmap_slot *s)
{
	const struct agg_entry *a = s->val;
	char path[PATH_MAX * 2];
	struct stat st;

	if (rm->cgrp) {
		if (!a->name || a->name[0] != '/')
			return true;
		snprintf(path, sizeof(path), "%s%s", rm->cgroot, a->name);
		return stat(path, &st) != 0;
	}
	/* a reused pid keeps a gone process a while longer: harmless */
	return s->key.a && kill((pid_t)s->key.a, 0) && errno == ESRCH;
}

struct victim {
	__u64 id, id2;
	double seen_t;
};

static int victim__cmp(const void *x, const void *y)
{
	const struct victim *a = x, *b = y;

	return a->seen_t < b->seen_t ? -1 : a->seen_t > b->seen_t;
}

/*
 * Drop the keys of m that the rule lets go: unchanged since before
 * `before`, and (when check) gone from the system; then, while m holds
 * more than max, the ones unchanged the longest, whatever they are.
 */
static int retain_map__run(struct retain_map *rm, double before, bool check,
			   size_t max)
{
	struct idmap *m = rm->m;
	struct victim *v = malloc((m->nr + 1) * sizeof(*v));
	struct idmap_slot *s;
	size_t it = 0, n = 0, keep;
	int err = 0;

	if (!v)
		return -ENOMEM;
	while ((s = idmap__next(m, &it))) {
		const struct agg_entry *a = s->val;

		if (a->seen_t < before && (!check || entry__gone(rm, s)))
			v[n++] = (struct victim){ s->key.a, s->key.b, a->seen_t };
	}
	for (size_t i = 0; i < n && !err; i++)
		err = retain_map__drop(rm, v[i].id, v[i].id2);
	if (!err && max && m->nr > max) {
		keep = max - max / 8;	/* room for a while */
		n = 0;
		it = 0;
		while ((s = idmap__next(m, &it)))
			v[n++] = (struct victim){ s->key.a, s->key.b,
						  ((struct agg_entry *)s->val)->seen_t };
		qsort(v, n, sizeof(*v), victim__cmp);
		pr_debug("%zu %s kept, at most %zu: the %zu unchanged the longest leave",
			 n, rm->cgrp ? "cgroups" : "processes", max, n - keep);
		for (size_t i = 0; i + keep < n && !err; i++)
			err = retain_map__drop(rm, v[i].id, v[i].id2);
	}
	free(v);
	return err;
}

int retain__run(struct retain *r, struct aggregate *agg, const char *cgroot,
		const struct engine_opts *o, double now, double snap_t)
{
	struct retain_map cg = { &agg->cgrps, &r->gone_cgrp, true, agg->nr_events, cgroot };
	struct retain_map pr = { &agg->procs, &r->gone_proc, false, agg->nr_events, cgroot };
	struct retain_map th = { &agg->thrds, &r->gone_thrd, false, agg->nr_events, cgroot };
	bool check = o->retain_s >= 0;
	double before;
	int err;

	if (check) {
		if (now - r->pruned_t < RETAIN_EVERY_S)
			return 0;
		r->pruned_t = now;
		before = now - o->retain_s;
	} else {
		/* keys unchanged since the last snapshot: it has their totals */
		before = snap_t;
		if (before < 0)
			return 0;
		before += 1e-9;	/* seen at that very read: unchanged since */
	}
	err = retain_map__run(&cg, before, check, o->max_keys);
	err = err ?: retain_map__run(&pr, before, check, o->max_keys);
	return err ?: retain_map__run(&th, before, check, o->max_keys);
}

void retain__exit(struct retain *r)
{
	free(r->gone_cgrp);
	free(r->gone_proc);
	free(r->gone_thrd);
	r->gone_cgrp = r->gone_proc = r->gone_thrd = NULL;
}
