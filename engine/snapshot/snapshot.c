// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Snapshots as front ends see them: the meta and snapshot payloads of
 * include/emon_proto.h decoded (every size and offset checked: the bytes
 * may come from another process), and the interval between two of them.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "emon_proto.h"
#include "common/utf8.h"
#include "engine/aggregate.h"
#include "engine/snapshot/snapshot.h"

int snap_meta__encode(const struct snap_meta *m, void **bufp, size_t *lenp)
{
	size_t len = sizeof(struct emon_hello) + (m->ncpus + m->npkg) * sizeof(__s32);
	struct emon_hello *h = calloc(1, len);
	__s32 *cpu_pkg, *pkg_id;
	int n = 0;

	if (!h)
		return -ENOMEM;
	h->pid = m->pid;
	h->ncpus = m->ncpus;
	h->npkg = m->npkg;
	h->flags = (m->energy_on ? EMON_HELLO_ENERGY : 0) |
		   (m->energy_estimated ? EMON_HELLO_ESTIMATED : 0) |
		   (m->sched_on ? EMON_HELLO_SCHED : 0) |
		   (m->sched_ms ? EMON_HELLO_SCHED_MS : 0) |
		   (m->no_scale ? EMON_HELLO_NO_SCALE : 0) |
		   (m->threads_on ? EMON_HELLO_THREADS : 0) |
		   (m->gpu_on ? EMON_HELLO_GPU : 0);
	h->max_trees = m->max_trees;
	h->start_t = m->start_t;
	memcpy(h->energy_source, m->energy_source, sizeof(h->energy_source));
	memcpy(h->split_by, m->split_by, sizeof(h->split_by));
	for (int i = 0; i < m->nr_events && n < EMON_MAX_EVENTS; i++, n++) {
		memcpy(h->ev[n].name, m->ev_name[i], EMON_PROTO_NAME_LEN);
		h->ev[n].flags = EMON_EV_SUPPORTED | (m->ev_is_time[i] ? EMON_EV_TIME : 0);
		h->ev[n].idx = i;
	}
	for (int i = 0; i < m->nr_unsup && n < EMON_MAX_EVENTS; i++, n++) {
		memcpy(h->ev[n].name, m->unsup_name[i], EMON_PROTO_NAME_LEN);
		h->ev[n].idx = -1;
	}
	h->nr_events = n;
	cpu_pkg = (__s32 *)(h + 1);
	pkg_id = cpu_pkg + m->ncpus;
	for (int cpu = 0; cpu < m->ncpus; cpu++)
		cpu_pkg[cpu] = m->cpu_pkg[cpu];
	for (int p = 0; p < m->npkg; p++)
		pkg_id[p] = m->pkg_id[p];
	*bufp = h;
	*lenp = len;
	return 0;
}

/*
 * A fixed-size name field holds a NUL, and no control byte before it:
 * the front ends print these names as they are (a terminal escape in a
 * daemon's energy source would reach the user's terminal).
 */
static bool name_ok(const char *s, size_t n)
{
	const char *end = memchr(s, '\0', n);

	if (!end)
		return false;
	/* no C0, DEL or C1 control (U+009B is a CSI to a terminal) */
	for (const unsigned char *p = (const unsigned char *)s; p < (const unsigned char *)end;
	     p += utf8_step(p))
		if (utf8_control_len(p))
			return false;
	return true;
}

int snap_meta__decode(struct snap_meta *m, const void *buf, size_t len)
{
	const struct emon_hello *h = buf;
	const __s32 *cpu_pkg;

	memset(m, 0, sizeof(*m));
	if (len < sizeof(*h) || !h->ncpus || h->ncpus > 1 << 16 || !h->npkg ||
	    h->npkg > 1 << 12 || h->nr_events > EMON_MAX_EVENTS ||
	    h->max_trees > EMON_MAX_TREES ||
	    len != sizeof(*h) + (h->ncpus + h->npkg) * sizeof(__s32) ||
	    !name_ok(h->energy_source, sizeof(h->energy_source)) ||
	    !name_ok(h->split_by, sizeof(h->split_by)) || !isfinite(h->start_t))
		return -EBADMSG;
	m->pid = h->pid;
	m->ncpus = h->ncpus;
	m->npkg = h->npkg;
	m->max_trees = h->max_trees;
	m->start_t = h->start_t;
	m->energy_on = h->flags & EMON_HELLO_ENERGY;
	m->gpu_on = h->flags & EMON_HELLO_GPU;
	m->energy_estimated = h->flags & EMON_HELLO_ESTIMATED;
	m->sched_on = h->flags & EMON_HELLO_SCHED;
	m->sched_ms = h->flags & EMON_HELLO_SCHED_MS;
	m->no_scale = h->flags & EMON_HELLO_NO_SCALE;
	m->threads_on = h->flags & EMON_HELLO_THREADS;
	memcpy(m->energy_source, h->energy_source, sizeof(m->energy_source));
	memcpy(m->split_by, h->split_by, sizeof(m->split_by));
	for (__u32 i = 0; i < h->nr_events; i++) {
		const struct emon_hello_event *ev = &h->ev[i];

		if (!name_ok(ev->name, sizeof(ev->name)))
			return -EBADMSG;
		if (!(ev->flags & EMON_EV_SUPPORTED)) {
			memcpy(m->unsup_name[m->nr_unsup++], ev->name, SNAP_EVENT_NAME_LEN);
			continue;
		}
		/* counted events come first, in their index order */
		if (ev->idx != m->nr_events)
			return -EBADMSG;
		memcpy(m->ev_name[m->nr_events], ev->name, SNAP_EVENT_NAME_LEN);
		m->ev_is_time[m->nr_events++] = ev->flags & EMON_EV_TIME;
	}
	m->cpu_pkg = calloc(m->ncpus, sizeof(*m->cpu_pkg));
	m->pkg_id = calloc(m->npkg, sizeof(*m->pkg_id));
	if (!m->cpu_pkg || !m->pkg_id) {
		snap_meta__free(m);
		return -ENOMEM;
	}
	cpu_pkg = (const __s32 *)(h + 1);
	for (int cpu = 0; cpu < m->ncpus; cpu++) {
		if (cpu_pkg[cpu] < 0 || cpu_pkg[cpu] >= m->npkg) {
			snap_meta__free(m);
			return -EBADMSG;
		}
		m->cpu_pkg[cpu] = cpu_pkg[cpu];
	}
	for (int p = 0; p < m->npkg; p++)
		m->pkg_id[p] = cpu_pkg[m->ncpus + p];
	return 0;
}

void snap_meta__free(struct snap_meta *m)
{
	free(m->cpu_pkg);
	free(m->pkg_id);
	m->cpu_pkg = NULL;
	m->pkg_id = NULL;
}

/* --- snapshots ---------------------------------------------------------------- */

struct dec {
	const char *p, *end;
	const char *str;	/* the string table, strs bytes */
	size_t strs;
	int nr;
	bool sched;		/* an emon_sched after each block's counts */
	bool gpu;		/* an emon_gpu_count after it */
};

static void dec__counts(struct dec *d, struct counts *c)
{
	memset(c, 0, sizeof(*c));
	memcpy(c->c, d->p, d->nr * sizeof(struct emon_count));
	d->p += d->nr * sizeof(struct emon_count);
	if (d->sched) {
		memcpy(&c->s, d->p, sizeof(c->s));
		d->p += sizeof(c->s);
	}
	if (d->gpu) {
		struct emon_gpu_count g;

		memcpy(&g, d->p, sizeof(g));
		c->gpu = (struct gpu_count){ g.uj, g.sm_ns };
		d->p += sizeof(g);
	}
}

static int dec__entry(struct dec *d, struct snap_entry *e)
{
	const struct emon_snap_entry *h = (const struct emon_snap_entry *)d->p;

	e->id = h->id;
	e->id2 = h->id2;
	e->flags = h->flags;
	e->energy_j = h->energy_j;
	e->name = NULL;
	if (h->name != EMON_NO_NAME) {
		if (h->name >= d->strs)
			return -EBADMSG;
		e->name = d->str + h->name;
	}
	d->p += sizeof(*h);
	dec__counts(d, &e->c);
	return 0;
}

static int snapshot__alloc(struct snapshot *s, size_t strs)
{
	size_t n = s->ncpus, k = s->npkg;
	size_t sz = n * (sizeof(bool) + sizeof(struct counts) + sizeof(double)) +
		    k * (sizeof(double) * (1 + SNAP_ZONES) + sizeof(unsigned int)) +
		    (s->nr_cgrp + s->nr_proc + s->nr_thrd) * sizeof(struct snap_entry) +
		    s->nr_cont * sizeof(struct snap_cont) + strs + 64;
	char *p = calloc(1, sz);

	if (!p)
		return -ENOMEM;
	s->mem = p;
	/* most aligned first */
	s->cpu = (struct counts *)p;
	p += n * sizeof(struct counts);
	s->cgrp = (struct snap_entry *)p;
	p += s->nr_cgrp * sizeof(struct snap_entry);
	s->proc = (struct snap_entry *)p;
	p += s->nr_proc * sizeof(struct snap_entry);
	s->thrd = (struct snap_entry *)p;
	p += s->nr_thrd * sizeof(struct snap_entry);
	s->cont = (struct snap_cont *)p;
	p += s->nr_cont * sizeof(struct snap_cont);
	s->cpu_energy = (double *)p;
	p += n * sizeof(double);
	s->pkg_energy = (double *)p;
	p += k * sizeof(double);
	s->pkg_zone = (double *)p;
	p += k * SNAP_ZONES * sizeof(double);
	s->pkg_zone_mask = (unsigned int *)p;
	p += k * sizeof(unsigned int);
	s->online = (bool *)p;
	return 0;
}

static int dec__cpus_pkgs(struct dec *d, struct snapshot *s)
{
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		const struct emon_snap_cpu *c = (const struct emon_snap_cpu *)d->p;

		s->online[cpu] = c->online;
		s->cpu_energy[cpu] = c->energy_j;
		d->p += sizeof(*c);
		dec__counts(d, &s->cpu[cpu]);
	}
	for (int p = 0; p < s->npkg; p++) {
		const struct emon_snap_pkg *k = (const struct emon_snap_pkg *)d->p;

		s->pkg_energy[p] = k->energy_j;
		for (int z = 0; z < SNAP_ZONES; z++)
			s->pkg_zone[p * SNAP_ZONES + z] = k->zone_j[z];
		s->pkg_zone_mask[p] = k->zone_mask;
		d->p += sizeof(*k);
	}
	return 0;
}

static int dec__keys(struct dec *d, struct snapshot *s)
{
	struct snap_entry *fixed[EMON_SNAP_FIXED] = {
		[EMON_SNAP_OVF_CGRP] = &s->ovf_cgrp,
		[EMON_SNAP_OVF_PROC] = &s->ovf_proc,
		[EMON_SNAP_GONE_CGRP] = &s->gone_cgrp,
		[EMON_SNAP_GONE_PROC] = &s->gone_proc,
		[EMON_SNAP_TREE_ALL] = &s->tree,
		[EMON_SNAP_TREE_OVF] = &s->tree_ovf,
	};
	int err = 0;

	for (int i = 0; i < EMON_SNAP_FIXED && !err; i++)
		err = dec__entry(d, fixed[i]);
	for (size_t i = 0; i < s->nr_cgrp && !err; i++)
		err = dec__entry(d, &s->cgrp[i]);
	for (size_t i = 0; i < s->nr_proc && !err; i++)
		err = dec__entry(d, &s->proc[i]);
	if (!(s->scopes & EMON_SNAP_THREADS))
		return err;
	err = err ?: dec__entry(d, &s->ovf_thrd);
	err = err ?: dec__entry(d, &s->gone_thrd);
	for (size_t i = 0; i < s->nr_thrd && !err; i++)
		err = dec__entry(d, &s->thrd[i]);
	return err;
}

static int dec__str(const struct dec *d, __u32 off, const char **out)
{
	*out = NULL;
	if (off == EMON_NO_NAME)
		return 0;
	if (off >= d->strs)
		return -EBADMSG;
	*out = d->str + off;
	return 0;
}

static int snap_cont__cmp(const void *a, const void *b)
{
	return strcmp(((const struct snap_cont *)a)->id,
		      ((const struct snap_cont *)b)->id);
}

/* Containers' names; every one has an id. */
static int dec__conts(struct dec *d, struct snapshot *s)
{
	int err = 0;

	for (size_t i = 0; i < s->nr_cont && !err; i++) {
		const struct emon_snap_cont *k = (const struct emon_snap_cont *)d->p;
		struct snap_cont *c = &s->cont[i];

		err = dec__str(d, k->id, &c->id);
		err = err ?: dec__str(d, k->name, &c->name);
		err = err ?: dec__str(d, k->image, &c->image);
		err = err ?: dec__str(d, k->ns, &c->ns);
		err = err ?: dec__str(d, k->pod, &c->pod);
		err = err ?: dec__str(d, k->container, &c->container);
		err = err ?: dec__str(d, k->runtime, &c->runtime);
		if (!err && !c->id)
			err = -EBADMSG;
		d->p += sizeof(*k);
	}
	if (!err)
		qsort(s->cont, s->nr_cont, sizeof(*s->cont), snap_cont__cmp);
	return err;
}

/* The GPUs; every name is a string of its field. */
static int dec__gpus(struct dec *d, struct snapshot *s)
{
	for (int i = 0; i < s->nr_gpu; i++) {
		const struct emon_snap_gpu *g = (const struct emon_snap_gpu *)d->p;
		struct snap_gpu *o = &s->gpus[i];

		if (!name_ok(g->name, sizeof(g->name)))
			return -EBADMSG;
		memcpy(o->name, g->name, sizeof(o->name));
		o->uj = g->uj;
		o->idle_uj = g->idle_uj;
		o->sm_ns = g->sm_ns;
		o->reads = g->reads;
		o->lost = g->lost;
		d->p += sizeof(*g);
	}
	return 0;
}

const struct snap_cont *snap_cont__find(const struct snap_cont *t, size_t nr,
					const char *id)
{
	struct snap_cont key = { .id = id };

	if (!t || !nr || !id)
		return NULL;
	return bsearch(&key, t, nr, sizeof(*t), snap_cont__cmp);
}

int snapshot__decode(struct snapshot *s, const struct snap_meta *meta,
		     const void *buf, size_t len)
{
	const struct emon_snap_hdr *h = buf;
	size_t ent, need, blk;
	struct dec d;
	int err;

	memset(s, 0, sizeof(*s));
	if (len < sizeof(*h) || h->ncpus != (__u32)meta->ncpus ||
	    h->npkg != (__u32)meta->npkg || h->nr_events > EMON_MAX_EVENTS ||
	    h->nr_cgrp > 1u << 26 || h->nr_proc > 1u << 26 || h->nr_cont > 1u << 26 ||
	    h->nr_thrd > 1u << 26 || (h->nr_thrd && !(h->scopes & EMON_SNAP_THREADS)) ||
	    !isfinite(h->t) || h->t < 0 ||
	    /* entries without events cost their decoded size for nothing */
	    (meta->nr_events && !h->nr_events))
		return -EBADMSG;
	if (h->nr_gpu > SNAP_GPU_MAX || (h->nr_gpu && !(h->flags & EMON_SNAP_GPU)))
		return -EBADMSG;
	blk = h->nr_events * sizeof(struct emon_count) +
	      (h->flags & EMON_SNAP_SCHED ? sizeof(struct emon_sched) : 0) +
	      (h->flags & EMON_SNAP_GPU ? sizeof(struct emon_gpu_count) : 0);
	ent = sizeof(struct emon_snap_entry) + blk;
	need = sizeof(*h) +
	       (size_t)h->ncpus * (sizeof(struct emon_snap_cpu) + blk) +
	       (size_t)h->npkg * sizeof(struct emon_snap_pkg) +
	       (EMON_SNAP_FIXED + (size_t)h->nr_cgrp + h->nr_proc) * ent +
	       (h->scopes & EMON_SNAP_THREADS ? 2 + (size_t)h->nr_thrd : 0) * ent +
	       (size_t)h->nr_cont * sizeof(struct emon_snap_cont) +
	       (size_t)h->nr_gpu * sizeof(struct emon_snap_gpu) + h->strings;
	if (need != len)
		return -EBADMSG;
	/* the names end in a NUL: every offset into them is a string */
	if (h->strings && ((const char *)buf)[len - 1] != '\0')
		return -EBADMSG;
	*s = (struct snapshot){
		.seq = h->seq, .t = h->t, .ncpus = h->ncpus, .npkg = h->npkg,
		.nr_events = h->nr_events, .scopes = h->scopes,
		.nr_cgrp = h->nr_cgrp, .nr_proc = h->nr_proc, .nr_cont = h->nr_cont,
		.nr_thrd = h->nr_thrd,
		.has_tree = h->flags & EMON_SNAP_TREE, .sched = h->flags & EMON_SNAP_SCHED,
		.no_sys = h->flags & EMON_SNAP_NO_SYS,
		.tenant = h->flags & EMON_SNAP_TENANT,
		.energy_reads = h->energy_reads,
		.gpu = h->flags & EMON_SNAP_GPU, .nr_gpu = h->nr_gpu,
	};
	for (int i = 0; i < EMON_STAT_NR && i < EMON_SNAP_STATS; i++)
		s->stats[i] = h->stats[i];
	for (int i = 0; i < s->nr_events; i++) {
		if (h->ev[i] >= meta->nr_events)
			return -EBADMSG;
		s->ev[i] = h->ev[i];
	}
	err = snapshot__alloc(s, h->strings);
	if (err)
		return err;
	d = (struct dec){
		.p = (const char *)(h + 1),
		.end = (const char *)buf + len,
		.strs = h->strings,
		.nr = h->nr_events,
		.sched = s->sched,
		.gpu = s->gpu,
	};
	/* names are copied: the snapshot outlives buf */
	d.str = (char *)s->online + s->ncpus;
	memcpy((char *)d.str, (const char *)buf + len - h->strings, h->strings);
	err = dec__cpus_pkgs(&d, s);
	err = err ?: dec__keys(&d, s);
	err = err ?: dec__conts(&d, s);
	err = err ?: dec__gpus(&d, s);
	if (err)
		snapshot__free(s);
	return err;
}

void snapshot__free(struct snapshot *s)
{
	free(s->mem);
	memset(s, 0, sizeof(*s));
}

/* --- the interval between two snapshots --------------------------------------- */

static void entry__delta(struct counts *out, const struct snap_entry *cur,
			 const struct snap_entry *prev, int nr)
{
	static const struct counts zero;

	counts__delta(out, &cur->c, prev ? &prev->c : &zero, nr);
}

/* prev's entries by key, for the lookups of cur's */
static int index_entries(struct idmap *m, const struct snap_entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (idmap__put(m, e[i].id, e[i].id2, (void *)&e[i]))
			return -ENOMEM;
	return 0;
}

/*
 * One kind of key: each of cur's that changed gets an entry of the
 * interval; what prev's keys missing from cur had is taken from gone's
 * difference (they left with it), the rest of which goes to ovf.
 */
static int diff_keys(struct aggregate *a, struct idmap *into,
		     const struct snap_entry *cur, size_t ncur,
		     const struct snap_entry *prev, size_t nprev,
		     const struct snap_entry *gone_cur,
		     const struct snap_entry *gone_prev, struct agg_entry *ovf,
		     bool procs, bool full)
{
	struct idmap seen = {};
	struct counts gone;
	double gone_j;
	int nr = a->nr_events, err;

	err = index_entries(&seen, prev, nprev);
	for (size_t i = 0; i < ncur && !err; i++) {
		const struct snap_entry *p = idmap__get(&seen, cur[i].id, cur[i].id2);
		struct counts d;
		double j = cur[i].energy_j - (p ? p->energy_j : 0);
		struct agg_entry *e;

		if (p)
			idmap__del(&seen, cur[i].id, cur[i].id2);
		entry__delta(&d, &cur[i], p, nr);
		if (p && counts__is_zero(&d, nr) && j == 0)
			continue;
		e = aggregate__entry(a, into, cur[i].id, cur[i].id2);
		if (!e) {
			err = -ENOMEM;
			break;
		}
		e->total = d;
		e->energy_j = j;
		e->flags = cur[i].flags;
		e->name = procs ? NULL : cur[i].name;
		if (procs && cur[i].name)
			strncpy(e->comm, cur[i].name, sizeof(e->comm) - 1);
	}
	/* gone's growth, less what the keys that left had at prev; only
	 * snapshots of every key of the kind tell which keys left */
	if (!full) {
		idmap__clear(&seen, NULL);
		return err;
	}
	entry__delta(&gone, gone_cur, gone_prev, nr);
	gone_j = gone_cur->energy_j - (gone_prev ? gone_prev->energy_j : 0);
	for (size_t it = 0; !err;) {
		struct idmap_slot *s = idmap__next(&seen, &it);
		const struct snap_entry *p;

		if (!s)
			break;
		p = s->val;
		counts__delta(&gone, &gone, &p->c, nr);
		gone_j -= p->energy_j;
	}
	counts__add(&ovf->total, &gone, nr);
	ovf->energy_j += gone_j;
	idmap__clear(&seen, NULL);
	return err;
}

static void diff_fixed(struct agg_entry *out, const struct snap_entry *cur,
		       const struct snap_entry *prev, int nr)
{
	struct counts d;

	entry__delta(&d, cur, prev, nr);
	counts__add(&out->total, &d, nr);
	out->energy_j += cur->energy_j - (prev ? prev->energy_j : 0);
}

static void diff_cpus(const struct snapshot *cur, const struct snapshot *prev,
		      struct aggregate *a)
{
	int nr = a->nr_events;

	for (int cpu = 0; cpu < a->ncpus; cpu++) {
		struct counts d;

		counts__delta(&d, &cur->cpu[cpu], prev ? &prev->cpu[cpu] : &(struct counts){}, nr);
		a->cpu[cpu] = d;
		a->cpu_energy[cpu] = cur->cpu_energy[cpu] - (prev ? prev->cpu_energy[cpu] : 0);
	}
	for (int p = 0; p < a->npkg; p++) {
		a->pkg_energy[p] = cur->pkg_energy[p] - (prev ? prev->pkg_energy[p] : 0);
		a->energy_total += a->pkg_energy[p];
		a->pkg_zone_mask[p] = cur->pkg_zone_mask[p];
		for (int z = 0; z < SNAP_ZONES; z++)
			a->pkg_zone[p * AGG_ZONES + z] = cur->pkg_zone[p * SNAP_ZONES + z] -
				(prev ? prev->pkg_zone[p * SNAP_ZONES + z] : 0);
	}
	/* energy the viewer may not see was sent as zeros: not a reading */
	a->energy_valid = !cur->no_sys &&
			  cur->energy_reads > (prev ? prev->energy_reads : 0);
	a->gpu_on = cur->gpu;
	a->gpu_valid = false;
	a->nr_gpu = cur->nr_gpu;
	for (int i = 0; i < cur->nr_gpu; i++) {
		const struct snap_gpu *c = &cur->gpus[i];
		const struct snap_gpu *p = prev && i < prev->nr_gpu ? &prev->gpus[i] : NULL;
		struct agg_gpu *g = &a->gpu[i];

		g->name = c->name;
		g->lost = c->lost;
		g->valid = !cur->no_sys && c->reads > (p ? p->reads : 0);
		g->energy_j = (c->uj - (p ? p->uj : 0)) / 1e6;
		g->idle_j = (c->idle_uj - (p ? p->idle_uj : 0)) / 1e6;
		g->sm_s = (c->sm_ns - (p ? p->sm_ns : 0)) / 1e9;
		g->util = prev && cur->t > prev->t ? g->sm_s / (cur->t - prev->t) : NAN;
		a->gpu_valid |= g->valid;
	}
}

int snapshot__diff(const struct snapshot *cur, const struct snapshot *prev,
		   struct aggregate *a)
{
	int nr = a->nr_events, err;

	if (cur->ncpus != a->ncpus || cur->npkg != a->npkg || cur->nr_events != nr ||
	    (prev && (prev->ncpus != cur->ncpus || prev->nr_events != nr)))
		return -EINVAL;
	diff_cpus(cur, prev, a);
	a->no_sys = cur->no_sys;
	a->conts = cur->cont;
	a->nr_conts = cur->nr_cont;
	for (int i = 0; i < EMON_STAT_NR; i++)
		a->stats[i] = cur->stats[i] - (prev ? prev->stats[i] : 0);
	diff_fixed(a->ovf_cgrp, &cur->ovf_cgrp, prev ? &prev->ovf_cgrp : NULL, nr);
	diff_fixed(a->ovf_proc, &cur->ovf_proc, prev ? &prev->ovf_proc : NULL, nr);
	if (a->ntrees && cur->has_tree) {
		bool same = prev && prev->has_tree && prev->tree.id == cur->tree.id;

		diff_fixed(a->tree[0], &cur->tree, same ? &prev->tree : NULL, nr);
		diff_fixed(a->ovf_tree[0], &cur->tree_ovf, same ? &prev->tree_ovf : NULL, nr);
	}
	err = diff_keys(a, &a->cgrps, cur->cgrp, cur->nr_cgrp,
			prev ? prev->cgrp : NULL, prev ? prev->nr_cgrp : 0,
			&cur->gone_cgrp, prev ? &prev->gone_cgrp : NULL, a->ovf_cgrp, false,
			cur->scopes & EMON_SNAP_CGROUPS);
	err = err ?: diff_keys(a, &a->procs, cur->proc, cur->nr_proc,
			       prev ? prev->proc : NULL, prev ? prev->nr_proc : 0,
			       &cur->gone_proc, prev ? &prev->gone_proc : NULL,
			       a->ovf_proc, true, cur->scopes & EMON_SNAP_PROCS);
	if (cur->scopes & EMON_SNAP_THREADS) {
		bool th = prev && (prev->scopes & EMON_SNAP_THREADS);

		diff_fixed(a->ovf_thrd, &cur->ovf_thrd, th ? &prev->ovf_thrd : NULL, nr);
		err = err ?: diff_keys(a, &a->thrds, cur->thrd, cur->nr_thrd,
				       th ? prev->thrd : NULL, th ? prev->nr_thrd : 0,
				       &cur->gone_thrd, th ? &prev->gone_thrd : NULL,
				       a->ovf_thrd, true, true);
	}
	a->reads++;
	return err;
}
