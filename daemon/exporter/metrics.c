// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Cumulative snapshots as Prometheus text 0.0.4 or OpenMetrics 1.0.
 *
 * A render names the snapshot's events, builds the rows of every scope
 * in mscopes[] (metrics_scope.c), counts the series they give, folds the
 * smallest cgroups into "other" while there are more than max_series
 * (metrics_fold.c), then writes each scope's families into one growing
 * buffer (doubling, sized from the last render). The fold state and the
 * scratch arrays live in struct metrics, across renders.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon/exporter/metrics_render.h"

/* ---- names ---- */

void metrics__event_name(const char *event, char *out, size_t len)
{
	size_t i;

	if (!len)
		return;
	for (i = 0; event && event[i] && i + 1 < len; i++) {
		char c = event[i];

		if (c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		out[i] = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? c : '_';
	}
	out[i] = '\0';
}

static bool fam__taken(const struct render *r, int n, const char *fam)
{
	if (!strcmp(fam, "energy_joules") || !strcmp(fam, "gpu_energy_joules") ||
	    !strcmp(fam, "gpu_sm_seconds"))
		return true;
	for (int k = 0; k < n; k++)
		if (!strcmp(r->ev[k].fam, fam))
			return true;
	return false;
}

/* The snapshot's events: names, units, the sort event. Two events with
 * one name ("cycles:u", "cycles-u") get the second's index appended. */
static void events__setup(struct render *r)
{
	const struct snapshot *s = r->s;

	r->nev = s->nr_events;
	r->key = -1;
	for (int k = 0; k < r->nev; k++) {
		struct mev *e = &r->ev[k];
		char base[SNAP_EVENT_NAME_LEN];
		size_t n;

		e->i = k;
		e->name = r->meta->ev_name[s->ev[k]];
		e->is_time = r->meta->ev_is_time[s->ev[k]];
		metrics__event_name(e->name, base, sizeof(base));
		snprintf(e->fam, sizeof(e->fam), "%s%s", base[0] ? base : "event",
			 e->is_time ? "_seconds" : "");
		if (fam__taken(r, k, e->fam)) {
			n = strlen(e->fam);
			snprintf(e->fam + n, sizeof(e->fam) - n, "_%d", k);
		}
		if (e->is_time && r->key < 0)
			r->key = k;
	}
	if (r->key < 0 && r->nev)
		r->key = 0;
}

/* ---- render ---- */

static int render__check(const struct snap_meta *meta, const struct snapshot *s)
{
	if (s->nr_events < 0 || s->nr_events > EMON_MAX_EVENTS ||
	    meta->nr_events > EMON_MAX_EVENTS || s->ncpus < 0 || s->npkg < 0 ||
	    s->ncpus > meta->ncpus || s->npkg > meta->npkg)
		return -EINVAL;
	for (int k = 0; k < s->nr_events; k++)
		if (s->ev[k] < 0 || s->ev[k] >= meta->nr_events)
			return -EINVAL;
	if ((s->ncpus && !s->cpu) || (s->nr_cgrp && !s->cgrp) ||
	    (s->nr_proc && !s->proc))
		return -EINVAL;
	return 0;
}

static void render__init(struct render *r, struct metrics *m,
			 const struct snap_meta *meta, const struct snapshot *s,
			 const struct metrics_self *self, bool om)
{
	memset(r, 0, sizeof(*r));
	r->m = m;
	r->meta = meta;
	r->s = s;
	r->self = self;
	r->om = om;
	for (int id = 0; id < MS_NR; id++) {
		r->sc[id].def = &mscopes[id];
		r->sc[id].what = mscopes[id].what;
	}
	events__setup(r);
}

/* Every scope's rows, in the table's order, then the fold if the series
 * do not fit. */
static int render__rows(struct render *r)
{
	int err;

	r->m->epoch++;
	for (int id = 0; id < MS_NR; id++) {
		err = mscopes[id].build(r);
		if (err)
			return err;
	}
	r->total = rows__count(r);
	if (r->total > r->m->o.max_series)
		return cgroups__fold(r);
	return 0;
}

static void render__emit(struct render *r)
{
	for (int id = 0; id < MS_NR; id++)
		mscopes[id].emit(r, id);
	if (r->om)
		mbuf__puts(&r->b, "# EOF\n");
}

int metrics__render(struct metrics *m, const struct snap_meta *meta,
		    const struct snapshot *s, const struct metrics_self *self,
		    bool openmetrics, char **out, size_t *len)
{
	struct render *r;
	int err;

	if (!m || !meta || !s || !out || !len)
		return -EINVAL;
	err = render__check(meta, s);
	if (err)
		return err;
	r = malloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	render__init(r, m, meta, s, self, openmetrics);
	err = render__rows(r);
	if (err)
		goto out;
	mbuf__reserve(&r->b, m->last_len + m->last_len / 8 + 4096);
	render__emit(r);
	err = r->b.err;
	if (err)
		goto out;
	r->b.p[r->b.len] = '\0';
	m->series = r->total;
	m->last_len = r->b.len;
	*out = r->b.p;
	*len = r->b.len;
	r->b.p = NULL;
out:
	free(r->b.p);
	free(r);
	return err;
}

/* ---- lifetime ---- */

int metrics__new(struct metrics **mp, const struct metrics_opts *o)
{
	struct metrics *m;

	if (!mp || (o && o->top_procs < 0))
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	if (o)
		m->o = *o;
	if (!m->o.max_series)
		m->o.max_series = METRICS_MAX_SERIES_DEFAULT;
	*mp = m;
	return 0;
}

void metrics__free(struct metrics *m)
{
	if (!m)
		return;
	fold__free(m);
	idmap__clear(&m->seen, NULL);
	for (int id = 0; id < MS_NR; id++)
		free(m->rows[id]);
	free(m->ents);
	free(m->efold);
	free(m->order);
	free(m->gone);
	free(m->contv);
	free(m->pk);
	free(m);
}

size_t metrics__series(const struct metrics *m)
{
	return m ? m->series : 0;
}

size_t metrics__folded(const struct metrics *m)
{
	return m ? m->folded : 0;
}
