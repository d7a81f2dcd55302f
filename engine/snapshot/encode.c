// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Snapshots of the totals encoded as include/emon_proto.h says: sized
 * first, then written in one buffer, the strings in a table at its end.
 * Front ends difference two snapshots (snapshot__diff), which the gone
 * entries keep exact while keys leave (engine/retain.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/snapshot/encode.h"

struct enc {
	char *p, *end;
	char *str;		/* the string table */
	__u32 str_off;
	const int *ev;
	int nr;
	bool sched;		/* an emon_sched after each block's counts */
	bool energy;		/* the entries' energy (else 0: RAPL is root's) */
	bool gpu;		/* an emon_gpu_count after each block */
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
	if (x->gpu) {
		struct emon_gpu_count g = {};

		/* the GPUs' energy is the system's, as RAPL's: a tenant's
		 * view gets zeros (docs/security.md) */
		if (c && x->energy)
			g = (struct emon_gpu_count){ c->gpu.uj, c->gpu.sm_ns };
		memcpy(x->p, &g, sizeof(g));
		x->p += sizeof(g);
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
	h->energy_j = a && x->energy ? a->energy_j : 0;
	x->p += sizeof(*h);
	enc__counts(x, a ? &a->total : NULL);
}

/* What CPU-wide counting shows: the system, CPUs, packages, energy. */
static bool view_sys(const struct snap_src *src)
{
	return src->view->all || src->view->cpu_wide;
}

static bool view_owns(const struct snap_src *src, const struct agg_entry *a)
{
	return a->owned && a->owner == src->view->uid;
}

/* A process: its owner's (a tree's process is its client's own command's). */
static bool proc_wanted(const struct snap_src *src, const struct emon_snap_req *req,
			int tree, const struct agg_entry *a)
{
	bool in_tree = tree >= 0 && (a->trees & (1ULL << tree));

	if (!src->view->all && !in_tree && !view_owns(src, a))
		return false;
	if (req->scopes & EMON_SNAP_PROCS)
		return true;
	return (req->scopes & EMON_SNAP_PROCS_TREE) && in_tree;
}

static bool cgrp_wanted(const struct snap_src *src, const struct agg_entry *a)
{
	return view_sys(src) || view_owns(src, a);
}

/* Threads: an administrator's only (their owners are not kept). */
static bool thrds_wanted(const struct snap_src *src, const struct emon_snap_req *req)
{
	return (req->scopes & EMON_SNAP_THREADS) && src->view->all;
}

static size_t enc__size(const struct snap_src *src, const struct emon_snap_req *req,
			int tree, int nr, size_t *nc, size_t *np, size_t *nk,
			size_t *nt, size_t *strs)
{
	size_t blk = nr * sizeof(struct emon_count) +
		     (src->sched ? sizeof(struct emon_sched) : 0) +
		     (src->gpus ? sizeof(struct emon_gpu_count) : 0);
	size_t ent = sizeof(struct emon_snap_entry) + blk;
	struct idmap_slot *s;
	size_t it = 0;

	*nc = *np = *nk = *nt = *strs = 0;
	if (req->scopes & EMON_SNAP_CGROUPS) {
		*nk = src->conts && view_sys(src) ? cont_cache__count(src->conts, strs) : 0;
		while ((s = idmap__next(&src->agg->cgrps, &it))) {
			const struct agg_entry *a = s->val;

			if (!cgrp_wanted(src, a))
				continue;
			(*nc)++;
			*strs += a->name ? strlen(a->name) + 1 : 0;
		}
	}
	it = 0;
	while ((s = idmap__next(&src->agg->procs, &it))) {
		const struct agg_entry *a = s->val;

		if (!proc_wanted(src, req, tree, a))
			continue;
		(*np)++;
		*strs += strnlen(a->comm, sizeof(a->comm)) + 1;
	}
	it = 0;
	while (thrds_wanted(src, req) && (s = idmap__next(&src->agg->thrds, &it))) {
		const struct agg_entry *a = s->val;

		(*nt)++;
		*strs += strnlen(a->comm, sizeof(a->comm)) + 1;
	}
	return sizeof(struct emon_snap_hdr) +
	       src->ncpus * (sizeof(struct emon_snap_cpu) + blk) +
	       src->agg->npkg * sizeof(struct emon_snap_pkg) +
	       (EMON_SNAP_FIXED + *nc + *np) * ent +
	       (req->scopes & EMON_SNAP_THREADS ? 2 + *nt : 0) * ent +
	       *nk * sizeof(struct emon_snap_cont) +
	       (src->gpus ? src->nr_gpu : 0) * sizeof(struct emon_snap_gpu) + *strs;
}

static void enc__header(const struct snap_src *src, const struct emon_snap_req *req,
			int tree, struct enc *x, size_t nc, size_t np, size_t nk,
			size_t nt, size_t strs)
{
	struct emon_snap_hdr *h = (struct emon_snap_hdr *)x->p;

	memset(h, 0, sizeof(*h));
	h->seq = src->seq;
	h->t = src->t;
	h->ncpus = src->ncpus;
	h->npkg = src->agg->npkg;
	h->nr_events = x->nr;
	h->scopes = req->scopes;
	h->nr_cgrp = nc;
	h->nr_proc = np;
	h->nr_cont = nk;
	h->nr_thrd = nt;
	h->flags = (tree >= 0 ? EMON_SNAP_TREE : 0) |
		   (x->sched ? EMON_SNAP_SCHED : 0) |
		   (view_sys(src) ? 0 : EMON_SNAP_NO_SYS) |
		   (src->view->all ? 0 : EMON_SNAP_TENANT) |
		   (x->gpu ? EMON_SNAP_GPU : 0);
	h->nr_gpu = x->gpu ? src->nr_gpu : 0;
	h->strings = strs;
	h->energy_reads = src->energy_reads;
	for (int i = 0; view_sys(src) && i < EMON_STAT_NR && i < EMON_SNAP_STATS; i++)
		h->stats[i] = src->agg->stats[i];
	for (int i = 0; i < x->nr; i++)
		h->ev[i] = x->ev[i];
	x->p += sizeof(*h);
}

static void enc__cpus_pkgs(const struct snap_src *src, struct enc *x)
{
	const struct aggregate *a = src->agg;
	bool sys = view_sys(src);	/* else: zeros */

	for (int cpu = 0; cpu < src->ncpus; cpu++) {
		struct emon_snap_cpu *c = (struct emon_snap_cpu *)x->p;

		c->online = src->online[cpu];
		c->pad = 0;
		c->energy_j = sys ? a->cpu_energy[cpu] : 0;
		x->p += sizeof(*c);
		enc__counts(x, sys ? &a->cpu[cpu] : NULL);
	}
	for (int p = 0; p < a->npkg; p++) {
		struct emon_snap_pkg *k = (struct emon_snap_pkg *)x->p;

		memset(k, 0, sizeof(*k));
		x->p += sizeof(*k);
		if (!sys)
			continue;
		k->energy_j = a->pkg_energy[p];
		for (int z = 0; z < 4; z++)
			k->zone_j[z] = a->pkg_zone[p * AGG_ZONES + z];
		k->zone_mask = a->pkg_zone_mask[p];
	}
}

static void enc__keys(const struct snap_src *src, const struct emon_snap_req *req,
		      int tree, struct enc *x)
{
	struct idmap_slot *s;
	size_t it = 0;

	bool sys = view_sys(src);

	enc__entry(x, 0, 0, NULL, 0, sys ? src->agg->ovf_cgrp : NULL);
	enc__entry(x, 0, 0, NULL, 0, sys ? src->agg->ovf_proc : NULL);
	enc__entry(x, 0, 0, NULL, 0, sys ? src->gone_cgrp : NULL);
	enc__entry(x, 0, 0, NULL, 0, sys ? src->gone_proc : NULL);
	enc__entry(x, tree, 0, NULL, 0, tree >= 0 ? src->agg->tree[tree] : NULL);
	enc__entry(x, tree, 0, NULL, 0, tree >= 0 ? src->agg->ovf_tree[tree] : NULL);
	if (req->scopes & EMON_SNAP_CGROUPS) {
		while ((s = idmap__next(&src->agg->cgrps, &it))) {
			const struct agg_entry *a = s->val;

			if (cgrp_wanted(src, a))
				enc__entry(x, s->key.a, 0, a->name, 0, a);
		}
	}
	it = 0;
	while ((s = idmap__next(&src->agg->procs, &it))) {
		const struct agg_entry *a = s->val;
		char comm[EMON_COMM_LEN + 1];
		__u32 flags = a->flags & ~EMON_PROC_IN_TREE;

		if (!proc_wanted(src, req, tree, a))
			continue;
		if (tree >= 0 && (a->trees & (1ULL << tree)))
			flags |= EMON_PROC_IN_TREE;
		snprintf(comm, sizeof(comm), "%.*s", EMON_COMM_LEN, a->comm);
		enc__entry(x, s->key.a, s->key.b, comm, flags, a);
	}
}

/* The thread scope's entries: its overflow and gone entries, then each
 * thread (id tid, id2 tgid << 32 | start). */
static void enc__thrds(const struct snap_src *src, const struct emon_snap_req *req,
		       struct enc *x)
{
	bool all = thrds_wanted(src, req);
	struct idmap_slot *s;
	size_t it = 0;

	if (!(req->scopes & EMON_SNAP_THREADS))
		return;
	enc__entry(x, 0, 0, NULL, 0, all ? src->agg->ovf_thrd : NULL);
	enc__entry(x, 0, 0, NULL, 0, all ? src->gone_thrd : NULL);
	while (all && (s = idmap__next(&src->agg->thrds, &it))) {
		const struct agg_entry *a = s->val;
		char comm[EMON_COMM_LEN + 1];

		snprintf(comm, sizeof(comm), "%.*s", EMON_COMM_LEN, a->comm);
		enc__entry(x, s->key.a, s->key.b, comm, 0, a);
	}
}

/* The GPUs, after the containers: zeros where the view may not see them. */
static void enc__gpus(const struct snap_src *src, struct enc *x)
{
	for (int i = 0; x->gpu && i < src->nr_gpu; i++) {
		struct emon_snap_gpu *g = (struct emon_snap_gpu *)x->p;
		const struct snap_gpu *s = &src->gpus[i];

		memset(g, 0, sizeof(*g));
		snprintf(g->name, sizeof(g->name), "%s", s->name);
		if (x->energy) {
			g->uj = s->uj;
			g->idle_uj = s->idle_uj;
			g->sm_ns = s->sm_ns;
			g->reads = s->reads;
		}
		g->lost = s->lost;
		x->p += sizeof(*g);
	}
}

int snap_src__encode(const struct snap_src *src, const struct emon_snap_req *req,
		     int tree, void **bufp, size_t *lenp)
{
	int ev[EMON_MAX_EVENTS], nr = 0;
	__u32 mask = req->events ? req->events : ~0u;
	size_t nc, np, nk, nt, strs, len;
	struct enc x = {};
	char *buf;

	for (int i = 0; i < src->nr_events; i++)
		if (mask & (1u << i))
			ev[nr++] = i;
	len = enc__size(src, req, tree, nr, &nc, &np, &nk, &nt, &strs);
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	x.p = buf;
	x.end = buf + len;
	x.str = buf + len - strs;
	x.ev = ev;
	x.nr = nr;
	x.sched = src->sched;
	x.energy = view_sys(src);
	x.gpu = src->gpus != NULL;
	enc__header(src, req, tree, &x, nc, np, nk, nt, strs);
	enc__cpus_pkgs(src, &x);
	enc__keys(src, req, tree, &x);
	enc__thrds(src, req, &x);
	if (nk)
		cont_cache__encode(src->conts, x.p, x.str, &x.str_off);
	x.p += nk * sizeof(struct emon_snap_cont);
	enc__gpus(src, &x);
	*bufp = buf;
	*lenp = len;
	return 0;
}
