// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the engine hands out: cgroup names, the retention of keys, command
 * trees, and snapshots of the totals encoded as include/emon_proto.h says.
 *
 * Retention keeps memory bounded while totals never go backwards: a key
 * leaves only with its final totals added to its kind's gone entry, so a
 * front end's difference of two snapshots stays exact (snapshot__diff).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "engine/engine_int.h"
#include "common/log.h"

/* How often the daemon's retention pass runs. */
#define RETAIN_EVERY_S 5.0

void engine__name_cgroups(struct engine *e)
{
	if (!e->o.name_cgroups)
		return;
	e->names.gen++;
	for (size_t i = 0; i < e->rd.nr_cgrp; i++) {
		__u64 id = e->rd.cgrp[i].cgid;
		struct agg_entry *a = idmap__get(&e->agg.cgrps, id, 0);
		const char *p;

		if (!a || a->name)
			continue;
		p = cgroup_names__path(&e->names, id, session__cgroup_info, &e->sess);
		a->name = strdup(p ? p : "[unknown]");
		cont_cache__see(&e->conts, a->name, &e->o.runtime_roots, e->last_t);
	}
	cont_cache__retry(&e->conts, &e->o.runtime_roots, e->last_t);
	/* our paths are copies: the names of cgroups gone a while can go */
	cgroup_names__prune(&e->names, 2);
}

void engine__free_names(struct engine *e)
{
	struct idmap_slot *s;
	size_t it = 0;

	while ((s = idmap__next(&e->agg.cgrps, &it))) {
		struct agg_entry *a = s->val;

		free((char *)a->name);
		a->name = NULL;
	}
	cont_cache__exit(&e->conts);
}

static struct agg_entry **gone_of(struct engine *e, bool cgrp)
{
	return cgrp ? &e->gone_cgrp : &e->gone_proc;
}

/* Take the entry of (id, id2) out of m, its totals into gone. */
static int engine__drop(struct engine *e, struct idmap *m, __u64 id, __u64 id2)
{
	bool cgrp = m == &e->agg.cgrps;
	struct agg_entry **g = gone_of(e, cgrp), *a;

	if (!*g) {
		*g = calloc(1, sizeof(**g));
		if (!*g)
			return -ENOMEM;
	}
	a = idmap__del(m, id, id2);
	if (!a)
		return 0;
	counts__add(&(*g)->total, &a->total, e->agg.nr_events);
	(*g)->energy_j += a->energy_j;
	free((char *)a->name);
	free(a);
	return 0;
}

/* Is the cgroup or process of an entry gone from the system? */
static bool entry__gone(const struct engine *e, bool cgrp,
			const struct idmap_slot *s)
{
	const struct agg_entry *a = s->val;
	char path[PATH_MAX * 2];
	struct stat st;

	if (cgrp) {
		if (!a->name || a->name[0] != '/')
			return true;
		snprintf(path, sizeof(path), "%s%s", e->cgroot, a->name);
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
static int engine__retain_map(struct engine *e, struct idmap *m, double before,
			      bool check, size_t max)
{
	bool cgrp = m == &e->agg.cgrps;
	struct victim *v = malloc((m->nr + 1) * sizeof(*v));
	struct idmap_slot *s;
	size_t it = 0, n = 0, keep;
	int err = 0;

	if (!v)
		return -ENOMEM;
	while ((s = idmap__next(m, &it))) {
		const struct agg_entry *a = s->val;

		if (a->seen_t < before && (!check || entry__gone(e, cgrp, s)))
			v[n++] = (struct victim){ s->key.a, s->key.b, a->seen_t };
	}
	for (size_t i = 0; i < n && !err; i++)
		err = engine__drop(e, m, v[i].id, v[i].id2);
	if (!err && max && m->nr > max) {
		keep = max - max / 8;	/* room for a while */
		n = 0;
		it = 0;
		while ((s = idmap__next(m, &it)))
			v[n++] = (struct victim){ s->key.a, s->key.b,
						  ((struct agg_entry *)s->val)->seen_t };
		qsort(v, n, sizeof(*v), victim__cmp);
		pr_debug("%zu %s kept, at most %zu: the %zu unchanged the longest leave",
			 n, cgrp ? "cgroups" : "processes", max, n - keep);
		for (size_t i = 0; i + keep < n && !err; i++)
			err = engine__drop(e, m, v[i].id, v[i].id2);
	}
	free(v);
	return err;
}

int engine__retain(struct engine *e)
{
	double before;
	bool check = e->o.retain_s >= 0;
	int err;

	if (check) {
		if (e->last_t - e->pruned_t < RETAIN_EVERY_S)
			return 0;
		e->pruned_t = e->last_t;
		before = e->last_t - e->o.retain_s;
	} else {
		/* keys unchanged since the last snapshot: it has their totals */
		before = e->snap_t;
		if (before < 0)
			return 0;
		before += 1e-9;	/* seen at that very read: unchanged since */
	}
	err = engine__retain_map(e, &e->agg.cgrps, before, check, e->o.max_keys);
	cont_cache__prune(&e->conts, &e->agg.cgrps, e->last_t);
	return err ?: engine__retain_map(e, &e->agg.procs, before, check, e->o.max_keys);
}

/* A tree id no one uses and whose last user's bits are gone, -1: none. */
static int engine__tree_free_id(const struct engine *e, bool *waiting)
{
	*waiting = false;
	for (int t = 0; t < e->o.max_trees; t++) {
		if (e->trees & (1ULL << t))
			continue;
		if (e->seq >= e->tree_clean_seq[t])
			return t;
		*waiting = true;
	}
	return -1;
}

int engine__tree_new(struct engine *e, pid_t pid)
{
	size_t sz = sizeof(struct agg_entry) + e->agg.npkg * sizeof(struct counts);
	bool waiting;
	int t, err;

	t = engine__tree_free_id(e, &waiting);
	if (t < 0 && waiting) {	/* rare: every free id was let go this read */
		err = engine__tick(e);
		if (err)
			return err;
		t = engine__tree_free_id(e, &waiting);
	}
	if (t < 0)
		return -EBUSY;
	memset(e->agg.tree[t], 0, sz);
	memset(e->agg.ovf_tree[t], 0, sz);
	err = session__tree_add(&e->sess, pid, t);
	if (err)
		return err;
	e->trees |= 1ULL << t;
	e->tree_root[t] = pid;
	return t;
}

/*
 * The command ran between its fork and its being added to the tree map
 * (waiting for the go to exec): the slot BPF gave it then, used for the
 * rest of that read, says no tree. Its pid cannot be another process's
 * meanwhile (its parent has not reaped it), so its entries are the tree's.
 */
void engine__mark_roots(struct engine *e)
{
	/* the trees in use (few) outside, the read's processes inside */
	for (int t = 0; e->trees && t < e->o.max_trees; t++) {
		if (!(e->trees & (1ULL << t)))
			continue;
		for (size_t i = 0; i < e->rd.nr_proc; i++)
			if (e->rd.proc[i].tgid == e->tree_root[t])
				e->rd.proc[i].trees |= 1ULL << t;
	}
}

void engine__tree_free(struct engine *e, int tree)
{
	struct idmap_slot *s;
	size_t it = 0;
	int err;

	if (tree < 0 || tree >= e->o.max_trees || !(e->trees & (1ULL << tree)))
		return;
	e->trees &= ~(1ULL << tree);
	e->tree_root[tree] = 0;
	/*
	 * BPF marks a process's slot with its trees when the slot is taken,
	 * at its first slice of the interval: the slots taken so far in the
	 * buffer being written keep this tree's bit until the next read
	 * empties that buffer. A new user of the id before then would get
	 * this user's processes' slices of that read.
	 */
	e->tree_clean_seq[tree] = e->seq + 1;
	err = session__tree_release(&e->sess, tree);
	if (err)
		pr_warn("releasing command tree %d: %s", tree, strerror(-err));
	/* its next user starts with none of these processes */
	while ((s = idmap__next(&e->agg.procs, &it)))
		((struct agg_entry *)s->val)->trees &= ~(1ULL << tree);
}

/* --- encoding --------------------------------------------------------------- */

struct enc {
	char *p, *end;
	char *str;		/* the string table */
	__u32 str_off;
	const int *ev;
	int nr;
	bool sched;		/* an emon_sched after each block's counts */
};

static void enc__counts(struct enc *x, const struct counts *c)
{
	struct emon_count *out = (struct emon_count *)x->p;

	for (int i = 0; i < x->nr; i++)
		out[i] = c ? c->c[x->ev[i]] : (struct emon_count){ 0 };
	x->p += x->nr * sizeof(struct emon_count);
	if (x->sched) {
		if (c)
			memcpy(x->p, &c->s, sizeof(c->s));
		else
			memset(x->p, 0, sizeof(c->s));
		x->p += sizeof(c->s);
	}
}

static __u32 enc__str(struct enc *x, const char *s)
{
	__u32 off = x->str_off;
	size_t n;

	if (!s)
		return EMON_NO_NAME;
	n = strlen(s) + 1;
	memcpy(x->str + off, s, n);
	x->str_off += n;
	return off;
}

static void enc__entry(struct enc *x, __u64 id, __u64 id2, const char *name,
		       __u32 flags, const struct agg_entry *a)
{
	struct emon_snap_entry *h = (struct emon_snap_entry *)x->p;

	h->id = id;
	h->id2 = id2;
	h->name = enc__str(x, name);
	h->flags = flags;
	h->energy_j = a ? a->energy_j : 0;
	x->p += sizeof(*h);
	enc__counts(x, a ? &a->total : NULL);
}

static bool proc_wanted(const struct emon_snap_req *req, int tree,
			const struct agg_entry *a)
{
	if (req->scopes & EMON_SNAP_PROCS)
		return true;
	return (req->scopes & EMON_SNAP_PROCS_TREE) && tree >= 0 &&
	       (a->trees & (1ULL << tree));
}

static size_t enc__size(const struct engine *e, const struct emon_snap_req *req,
			int tree, int nr, size_t *nc, size_t *np, size_t *nk,
			size_t *strs)
{
	size_t blk = nr * sizeof(struct emon_count) +
		     (e->meta.sched_on ? sizeof(struct emon_sched) : 0);
	size_t ent = sizeof(struct emon_snap_entry) + blk;
	struct idmap_slot *s;
	size_t it = 0;

	*nc = *np = *nk = *strs = 0;
	if (req->scopes & EMON_SNAP_CGROUPS) {
		*nk = cont_cache__count(&e->conts, strs);
		while ((s = idmap__next(&e->agg.cgrps, &it))) {
			const struct agg_entry *a = s->val;

			(*nc)++;
			*strs += a->name ? strlen(a->name) + 1 : 0;
		}
	}
	it = 0;
	while ((s = idmap__next(&e->agg.procs, &it))) {
		const struct agg_entry *a = s->val;

		if (!proc_wanted(req, tree, a))
			continue;
		(*np)++;
		*strs += strnlen(a->comm, sizeof(a->comm)) + 1;
	}
	return sizeof(struct emon_snap_hdr) +
	       e->ncpus * (sizeof(struct emon_snap_cpu) + blk) +
	       e->agg.npkg * sizeof(struct emon_snap_pkg) +
	       (EMON_SNAP_FIXED + *nc + *np) * ent +
	       *nk * sizeof(struct emon_snap_cont) + *strs;
}

static void enc__header(const struct engine *e, const struct emon_snap_req *req,
			int tree, struct enc *x, size_t nc, size_t np, size_t nk,
			size_t strs)
{
	struct emon_snap_hdr *h = (struct emon_snap_hdr *)x->p;

	memset(h, 0, sizeof(*h));
	h->seq = e->seq;
	h->t = e->last_t;
	h->ncpus = e->ncpus;
	h->npkg = e->agg.npkg;
	h->nr_events = x->nr;
	h->scopes = req->scopes;
	h->nr_cgrp = nc;
	h->nr_proc = np;
	h->nr_cont = nk;
	h->flags = (tree >= 0 ? EMON_SNAP_TREE : 0) |
		   (x->sched ? EMON_SNAP_SCHED : 0);
	h->strings = strs;
	h->energy_reads = e->energy_reads;
	for (int i = 0; i < EMON_STAT_NR && i < EMON_SNAP_STATS; i++)
		h->stats[i] = e->agg.stats[i];
	for (int i = 0; i < x->nr; i++)
		h->ev[i] = x->ev[i];
	x->p += sizeof(*h);
}

static void enc__cpus_pkgs(const struct engine *e, struct enc *x)
{
	const struct aggregate *a = &e->agg;

	for (int cpu = 0; cpu < e->ncpus; cpu++) {
		struct emon_snap_cpu *c = (struct emon_snap_cpu *)x->p;

		c->online = e->online[cpu];
		c->pad = 0;
		c->energy_j = a->cpu_energy[cpu];
		x->p += sizeof(*c);
		enc__counts(x, &a->cpu[cpu]);
	}
	for (int p = 0; p < a->npkg; p++) {
		struct emon_snap_pkg *k = (struct emon_snap_pkg *)x->p;

		memset(k, 0, sizeof(*k));
		k->energy_j = a->pkg_energy[p];
		for (int z = 0; z < 4; z++)
			k->zone_j[z] = a->pkg_zone[p * AGG_ZONES + z];
		k->zone_mask = a->pkg_zone_mask[p];
		x->p += sizeof(*k);
	}
}

static void enc__keys(const struct engine *e, const struct emon_snap_req *req,
		      int tree, struct enc *x)
{
	struct idmap_slot *s;
	size_t it = 0;

	enc__entry(x, 0, 0, NULL, 0, e->agg.ovf_cgrp);
	enc__entry(x, 0, 0, NULL, 0, e->agg.ovf_proc);
	enc__entry(x, 0, 0, NULL, 0, e->gone_cgrp);
	enc__entry(x, 0, 0, NULL, 0, e->gone_proc);
	enc__entry(x, tree, 0, NULL, 0, tree >= 0 ? e->agg.tree[tree] : NULL);
	enc__entry(x, tree, 0, NULL, 0, tree >= 0 ? e->agg.ovf_tree[tree] : NULL);
	if (req->scopes & EMON_SNAP_CGROUPS) {
		while ((s = idmap__next(&e->agg.cgrps, &it))) {
			const struct agg_entry *a = s->val;

			enc__entry(x, s->key.a, 0, a->name, 0, a);
		}
	}
	it = 0;
	while ((s = idmap__next(&e->agg.procs, &it))) {
		const struct agg_entry *a = s->val;
		char comm[EMON_COMM_LEN + 1];
		__u32 flags = a->flags & ~EMON_PROC_IN_TREE;

		if (!proc_wanted(req, tree, a))
			continue;
		if (tree >= 0 && (a->trees & (1ULL << tree)))
			flags |= EMON_PROC_IN_TREE;
		snprintf(comm, sizeof(comm), "%.*s", EMON_COMM_LEN, a->comm);
		enc__entry(x, s->key.a, s->key.b, comm, flags, a);
	}
}

int engine__encode(struct engine *e, const struct emon_snap_req *req,
		   void **bufp, size_t *lenp)
{
	int ev[EMON_MAX_EVENTS], nr = 0, tree = req->tree, err;
	__u32 mask = req->events ? req->events : ~0u;
	size_t nc, np, nk, strs, len;
	struct enc x = {};
	char *buf;

	/* one front end: keys go once it has their totals (the daemon's
	 * rule runs at its ticks, clients or not) */
	if (e->o.retain_s < 0) {
		err = engine__retain(e);
		if (err)
			return err;
	}
	if (tree < 0 || tree >= e->o.max_trees || !(e->trees & (1ULL << tree)))
		tree = -1;
	for (int i = 0; i < e->meta.nr_events; i++)
		if (mask & (1u << i))
			ev[nr++] = i;
	len = enc__size(e, req, tree, nr, &nc, &np, &nk, &strs);
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	x.p = buf;
	x.end = buf + len;
	x.str = buf + len - strs;
	x.ev = ev;
	x.nr = nr;
	x.sched = e->meta.sched_on;
	enc__header(e, req, tree, &x, nc, np, nk, strs);
	enc__cpus_pkgs(e, &x);
	enc__keys(e, req, tree, &x);
	if (nk)
		cont_cache__encode(&e->conts, x.p, x.str, &x.str_off);
	e->snap_t = e->last_t;
	*bufp = buf;
	*lenp = len;
	return 0;
}
