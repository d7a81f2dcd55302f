// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The cgroup and container rows of /metrics, and the state they keep
 * across renders (struct track, keyed by cgroup id): the cgroups folded
 * into "other" and those of containers, with their totals as last seen.
 * A tracked cgroup that left the snapshot leaves those totals in "other"
 * or in its container, so neither goes backwards. Folding: while there
 * are more series than max_series, the smallest cgroups go into "other",
 * for good.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon/exporter/metrics_render.h"
#include "engine/names/container.h"
#include "engine/names/container_meta.h"

/* A cgroup folded into "other" or in a container, as last seen. */
struct track {
	struct counts last;
	double energy_j;
	struct cont *cont;
	__u32 epoch;			/* the render that last saw it */
	bool folded;
};

struct cont {
	char id[CONTAINER_ID_LEN + 1];
	const char *runtime;
	char pod_uid[CONTAINER_POD_UID_LEN + 1];
	struct counts acc, live;	/* its cgroups that left; still there */
	double acc_j, live_j;
	const char *path;		/* shortest live cgroup (this render) */
	__u32 epoch;
	/* its names, copied the first time a snapshot had them: a label set
	 * that changed with every render would make new series */
	struct container_meta meta;
	bool named;
};

/* ---- cgroups, the fold state, containers ---- */

static __u64 hex64(const char *s)
{
	__u64 v = 0;

	for (int i = 0; i < 16 && s[i]; i++)
		v = v << 4 | (s[i] <= '9' ? s[i] - '0' : s[i] - 'a' + 10);
	return v;
}

/*
 * The container of id (64 hex digits): keyed by all of them folded into
 * 128 bits, the next key on the rare id that folds like another.
 */
static struct cont *cont__get(struct metrics *m, const struct container_info *ci)
{
	__u64 a = hex64(ci->id) ^ hex64(ci->id + 32);
	__u64 b = hex64(ci->id + 16) ^ hex64(ci->id + 48);
	struct cont *c;

	while ((c = idmap__get(&m->conts, a, b)) &&
	       memcmp(c->id, ci->id, sizeof(c->id)))
		b++;
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c || idmap__put(&m->conts, a, b, c)) {
			free(c);
			return NULL;
		}
		memcpy(c->id, ci->id, sizeof(c->id));
		memcpy(c->pod_uid, ci->pod_uid, sizeof(c->pod_uid));
		c->runtime = ci->runtime;
	}
	if (c->epoch != m->epoch) {
		memset(&c->live, 0, sizeof(c->live));
		c->live_j = 0;
		c->path = NULL;
		c->epoch = m->epoch;
	}
	return c;
}

static struct track *track__get(struct metrics *m, __u64 id, bool create)
{
	struct track *t = idmap__get(&m->track, id, 0);

	if (t || !create)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t || idmap__put(&m->track, id, 0, t)) {
		free(t);
		return NULL;
	}
	return t;
}

static void track__see(struct metrics *m, struct track *t,
		       const struct snap_entry *e)
{
	t->last = e->c;
	t->energy_j = e->energy_j;
	t->epoch = m->epoch;
}

static bool path__shorter(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	return la < lb || (la == lb && strcmp(a, b) < 0);
}

/* One cgroup of the snapshot: its container, and its track if it has one. */
static int cgroup__note(struct render *r, size_t k)
{
	const struct snap_entry *e = r->m->ents[k];
	const char *name = entry__name(e);
	struct container_info ci;
	struct cont *c = NULL;
	struct track *t;

	if (!container__parse(name, &ci)) {
		c = cont__get(r->m, &ci);
		if (!c)
			return -ENOMEM;
		counts__add(&c->live, &e->c, r->nev);
		c->live_j += e->energy_j;
		if (!c->path || path__shorter(name, c->path))
			c->path = name;
	}
	t = track__get(r->m, e->id, c != NULL);
	if (c && !t)
		return -ENOMEM;
	r->m->efold[k] = t && t->folded;
	if (!t)
		return 0;
	t->cont = c;
	track__see(r->m, t, e);
	if (t->folded) {
		counts__add(&r->other_live, &e->c, r->nev);
		r->other_live_j += e->energy_j;
		r->m->folded++;
	}
	return 0;
}

/* Tracked cgroups that left: their totals stay in "other" or their
 * container. Then containers with no cgroup left go. */
static int track__sweep(struct metrics *m, int nev)
{
	struct idmap_slot *sl;
	size_t it = 0, n = 0;

	if (array__grow(&m->gone, &m->gone_cap, m->track.nr + m->conts.nr,
		 sizeof(*m->gone)))
		return -ENOMEM;
	while ((sl = idmap__next(&m->track, &it)))
		if (((struct track *)sl->val)->epoch != m->epoch)
			m->gone[n++] = sl->key;
	for (size_t i = 0; i < n; i++) {
		struct track *t = idmap__del(&m->track, m->gone[i].a, 0);

		if (t->folded) {
			counts__add(&m->other_acc, &t->last, nev);
			m->other_acc_j += t->energy_j;
		}
		if (t->cont) {
			counts__add(&t->cont->acc, &t->last, nev);
			t->cont->acc_j += t->energy_j;
		}
		free(t);
	}
	n = 0;
	it = 0;
	while ((sl = idmap__next(&m->conts, &it)))
		if (((struct cont *)sl->val)->epoch != m->epoch)
			m->gone[n++] = sl->key;
	for (size_t i = 0; i < n; i++)
		free(idmap__del(&m->conts, m->gone[i].a, m->gone[i].b));
	return 0;
}

static int ent__cmp(const void *a, const void *b)
{
	const struct snap_entry *x = *(const struct snap_entry *const *)a;
	const struct snap_entry *y = *(const struct snap_entry *const *)b;
	int d = strcmp(entry__name(x), entry__name(y));

	if (d)
		return d;
	return x->id < y->id ? -1 : x->id > y->id;
}

static void cgroup__row(struct render *r, size_t first, size_t n)
{
	struct metrics *m = r->m;
	struct mrow *w = NULL;

	for (size_t k = first; k < first + n; k++) {
		if (m->efold[k])
			continue;
		if (!w) {
			w = row__add(r, MS_CGROUP);
			w->first = first;
			w->n = n;
			w->l[0] = entry__name(m->ents[k]);
		}
		counts__add(&w->sum, &m->ents[k]->c, r->nev);
		w->energy_j += m->ents[k]->energy_j;
	}
	if (w)
		w->key = row__key(r, w->c);
}

static void other__update(struct render *r)
{
	struct metrics *m = r->m;
	struct mrow *w = r->other;

	if (!w) {
		w = row__add(r, MS_CGROUP);
		w->l[0] = "other";
		r->other = w;
	}
	w->sum = m->other_acc;
	counts__add(&w->sum, &r->other_live, r->nev);
	w->energy_j = m->other_acc_j + r->other_live_j;
}

/* Rows per path (two cgroups of one path, one removed and one made
 * again, add up), without the folded ones, and "other" last once any
 * cgroup was folded. */
int cgroups__build(struct render *r)
{
	const struct snapshot *s = r->s;
	struct metrics *m = r->m;
	size_t i, j, nr = s->nr_cgrp;
	int err;

	if (array__grow(&m->ents, &m->ents_cap, nr, sizeof(*m->ents)) ||
	    array__grow(&m->efold, &m->efold_cap, nr, sizeof(*m->efold)) ||
	    !rows__get(r, MS_CGROUP, nr + 1))
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		m->ents[i] = &s->cgrp[i];
	qsort(m->ents, nr, sizeof(*m->ents), ent__cmp);
	m->folded = 0;
	for (i = 0; i < nr; i++) {
		err = cgroup__note(r, i);
		if (err)
			return err;
	}
	err = track__sweep(m, r->nev);
	if (err)
		return err;
	for (i = 0; i < nr; i = j) {
		const char *name = entry__name(m->ents[i]);

		for (j = i + 1; j < nr && !strcmp(entry__name(m->ents[j]), name); j++)
			;
		cgroup__row(r, i, j - i);
	}
	if (m->folds)
		other__update(r);
	return 0;
}

static void cont__name(struct cont *c, const struct snapshot *s)
{
	const struct snap_cont *n;

	if (c->named)
		return;
	n = snap_cont__find(s->cont, s->nr_cont, c->id);
	if (!n)
		return;
#define COPY(f, v) snprintf(c->meta.f, sizeof(c->meta.f), "%s", (v) ? (v) : "")
	COPY(name, n->name);
	COPY(image, n->image);
	COPY(ns, n->ns);
	COPY(pod, n->pod);
	COPY(container, n->container);
#undef COPY
	/* a bare id's runtime was a guess; the one with its files says */
	if (container_runtime__name(n->runtime))
		c->runtime = container_runtime__name(n->runtime);
	c->named = true;
}

static int cont__cmp(const void *a, const void *b)
{
	return strcmp((*(struct cont *const *)a)->id, (*(struct cont *const *)b)->id);
}

int containers__build(struct render *r)
{
	struct metrics *m = r->m;
	struct idmap_slot *sl;
	size_t it = 0, n = 0;

	if (array__grow(&m->contv, &m->contv_cap, m->conts.nr, sizeof(*m->contv)) ||
	    !rows__get(r, MS_CONTAINER, m->conts.nr))
		return -ENOMEM;
	while ((sl = idmap__next(&m->conts, &it)))
		m->contv[n++] = sl->val;
	qsort(m->contv, n, sizeof(*m->contv), cont__cmp);
	for (size_t i = 0; i < n; i++) {
		struct cont *c = m->contv[i];
		struct mrow *w = row__add(r, MS_CONTAINER);

		w->sum = c->acc;
		counts__add(&w->sum, &c->live, r->nev);
		w->energy_j = c->acc_j + c->live_j;
		w->l[0] = c->id;
		w->l[1] = c->runtime;
		w->l[2] = c->pod_uid;
		w->l[3] = c->path;
		cont__name(c, r->s);
		w->l[4] = c->meta.name;
		w->l[5] = c->meta.image;
		w->l[6] = c->meta.ns;
		w->l[7] = c->meta.pod;
		w->l[8] = c->meta.container;
	}
	return 0;
}

/* ---- folding ---- */

static int order__cmp(const void *a, const void *b, void *arg)
{
	const struct mrow *rows = arg;
	const struct mrow *x = &rows[*(const size_t *)a], *y = &rows[*(const size_t *)b];

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	/* equal: the later path first, for a stable choice */
	return *(const size_t *)a < *(const size_t *)b ? 1 : -1;
}

static int row__fold(struct render *r, struct mrow *w)
{
	struct metrics *m = r->m;

	for (size_t k = w->first; k < w->first + w->n; k++) {
		const struct snap_entry *e = m->ents[k];
		struct track *t;

		if (m->efold[k])
			continue;
		t = track__get(m, e->id, true);
		if (!t)
			return -ENOMEM;
		t->folded = true;
		track__see(m, t, e);
		m->efold[k] = true;
		counts__add(&r->other_live, &e->c, r->nev);
		r->other_live_j += e->energy_j;
		m->folded++;
		m->folds++;
	}
	w->folded = true;
	return 0;
}

/* The smallest cgroups into "other" until the series fit. */
int cgroups__fold(struct render *r)
{
	struct mscope *sc = &r->sc[MS_CGROUP];
	size_t n = sc->nr - (r->other ? 1 : 0), *order;
	struct metrics *m = r->m;
	unsigned int before;
	int err;

	if (array__grow(&m->order, &m->order_cap, n, sizeof(*m->order)))
		return -ENOMEM;
	order = m->order;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), order__cmp, sc->rows);
	for (size_t i = 0; i < n && r->total > m->o.max_series; i++) {
		struct mrow *w = &sc->rows[order[i]];

		err = row__fold(r, w);
		if (err)
			return err;
		r->total -= w->nser;
		before = r->other ? r->other->nser : 0;
		other__update(r);
		row__count(r, MS_CGROUP, r->other);
		r->total += r->other->nser - before;
	}
	return 0;
}

void fold__free(struct metrics *m)
{
	idmap__clear(&m->track, free);
	idmap__clear(&m->conts, free);
}
