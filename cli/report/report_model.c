// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf report, the model: the keys of every scope with their sums
 * and series, found by name; the view (one scope's keys, sorted); the
 * first error. Its rows come from a source (struct report_source): a
 * recording (report_file.c) or a Prometheus server (report_prom*.c),
 * called only through r->src, so that neither is included here.
 */
#define _GNU_SOURCE	/* asprintf */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "common/array.h"
#include "common/utf8.h"
#include "cli/report/report.h"

/* The counter a ranking sorts by; RANK_ENERGY has none. */
static const int rank_count[] = {
	[RANK_ENERGY]		= -1,
	[RANK_CPU_CLOCK]	= RC_CPU_CLOCK,
	[RANK_CYCLES]		= RC_CYCLES,
	[RANK_INSTRUCTIONS]	= RC_INSTRUCTIONS,
};

int report__fail(struct report *r, int line, int err, const char *fmt, ...)
{
	char msg[sizeof(r->err) - 64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->err_line = line > 0 ? line : 0;
	if (line > 0)
		snprintf(r->err, sizeof(r->err), "%s:%d: %s", r->path, line, msg);
	else if (!line)
		snprintf(r->err, sizeof(r->err), "%s: %s", r->path, msg);
	else
		snprintf(r->err, sizeof(r->err), "%s", msg);
	return err;
}

void report__init(struct report *r, const char *path,
		  const struct report_source *src)
{
	memset(r, 0, sizeof(*r));
	r->path = path;
	r->src = src;
	r->scope = SCOPE_SYSTEM;
}

void report__exit(struct report *r)
{
	int s, i;

	for (s = 0; s < SCOPE_NR; s++) {
		struct report_table *t = &r->tab[s];

		for (i = 0; i < t->nr; i++) {
			free(t->keys[i].key);
			free(t->keys[i].host);
			free(t->keys[i].comm);
			free(t->keys[i].runtime);
			free(t->keys[i].names);
			free(t->keys[i].series);
		}
		free(t->keys);
		json_object_put(t->index);
	}
	free(r->times);
	free(r->energy_source);
	free(r->split_by);
	free(r->sorted);
	free(r->window);
	if (r->src && r->src->free)
		r->src->free(r->src_priv);
	memset(r, 0, sizeof(*r));
}

static int dt__cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int report__load(struct report *r, const void *arg)
{
	double *dt;
	int err;

	r->series_pass = false;
	err = r->src->load(r, arg);
	if (err || r->nr_times < 2)
		return err;
	dt = calloc(r->nr_times, sizeof(*dt));
	if (!dt)
		return 0;	/* every interval drawn */
	for (int i = 0; i < r->nr_times; i++)
		dt[i] = r->times[i] - (i ? r->times[i - 1] : 0);
	qsort(dt, r->nr_times, sizeof(*dt), dt__cmp);
	r->chart_min_dt = dt[r->nr_times / 2] / 2;
	free(dt);
	return 0;
}

bool report__interval_drawn(const struct report *r, int i)
{
	return r->times[i] - (i ? r->times[i - 1] : 0) >= r->chart_min_dt;
}

void report__scrub(char *s)
{
	/* C0, DEL and C1 (U+009B is a CSI to a terminal), each byte '?' */
	if (s)
		utf8_mask_controls(s);
}

int report__strset(char **dst, const char *src)
{
	char *s;

	if (!src || (*dst && !strcmp(*dst, src)))
		return 0;
	s = strdup(src);
	if (!s)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

int report_key__set_names(struct report_key *k, const char *name,
			  const char *ns, const char *pod,
			  const char *container)
{
	char buf[1024];

	if (pod && *pod)
		snprintf(buf, sizeof(buf), "%s/%s/%s", ns && *ns ? ns : "?", pod,
			 container && *container ? container : "?");
	else if (name && *name)
		snprintf(buf, sizeof(buf), "%s", name);
	else
		return 0;
	return report__strset(&k->names, buf);
}

static struct report_key *report_table__find(struct report_table *t,
					     const char *id)
{
	struct json_object *v;

	if (!t->index || !json_object_object_get_ex(t->index, id, &v))
		return NULL;
	return &t->keys[json_object_get_int(v)];
}

static struct report_key *report_table__add(struct report_table *t,
					    const char *id, const char *host,
					    const char *key)
{
	struct report_key *k;

	if (!t->index && !(t->index = json_object_new_object()))
		return NULL;
	if (array__grow(&t->keys, &t->alloc, t->nr + 1, sizeof(*k)))
		return NULL;
	k = &t->keys[t->nr];
	memset(k, 0, sizeof(*k));
	k->key = strdup(key);
	k->host = host ? strdup(host) : NULL;
	if (!k->key || (host && !k->host) ||
	    json_object_object_add(t->index, id, json_object_new_int(t->nr))) {
		free(k->key);
		free(k->host);
		return NULL;
	}
	t->nr++;
	return k;
}

/* The same key on two hosts is two keys: indexed as "host\x1fkey". */
static struct report_key *report__lookup(struct report *r, enum scope scope,
					 const char *host, const char *key,
					 bool add)
{
	struct report_table *t = &r->tab[scope];
	struct report_key *k;
	char *id = NULL;

	if (host && asprintf(&id, "%s\x1f%s", host, key) < 0)
		return NULL;
	k = report_table__find(t, id ?: key);
	if (!k && add)
		k = report_table__add(t, id ?: key, host, key);
	free(id);
	return k;
}

struct report_key *report__key(struct report *r, enum scope scope,
			       const char *host, const char *key)
{
	return report__lookup(r, scope, host, key, true);
}

struct report_key *report__find(struct report *r, enum scope scope,
				const char *host, const char *key)
{
	return report__lookup(r, scope, host, key, false);
}

const struct report_key *report__system(const struct report *r)
{
	const struct report_table *t = &r->tab[SCOPE_SYSTEM];

	return t->nr ? &t->keys[0] : NULL;
}

int report_rank__count(enum report_rank rank)
{
	return rank_count[rank];
}

const char *report__rank_name(enum report_rank rank)
{
	switch (rank) {
	case RANK_ENERGY:	return "energy";
	case RANK_CPU_CLOCK:	return "cpu-clock";
	case RANK_CYCLES:	return "cycles";
	case RANK_INSTRUCTIONS:	return "instructions";
	}
	return "?";
}

/* Energy if the scope has any, else the first counter it counted. */
static enum report_rank report_table__rank(const struct report_table *t)
{
	unsigned int counted = 0;
	int i;

	for (i = 0; i < t->nr; i++) {
		if (t->keys[i].has_energy)
			return RANK_ENERGY;
		counted |= t->keys[i].counted;
	}
	if (counted & (1u << RC_CPU_CLOCK) || !counted)
		return RANK_CPU_CLOCK;
	if (counted & (1u << RC_CYCLES))
		return RANK_CYCLES;
	return RANK_INSTRUCTIONS;
}

static double report_key__rank(const struct report_key *k,
			       enum report_rank rank)
{
	if (rank == RANK_ENERGY)
		return k->has_energy ? k->energy_j : -1;
	if (k->counted & (1u << rank_count[rank]))
		return k->count[rank_count[rank]];
	return -1;
}

/* Highest first; unknown (-1) last; ties by key so the order is stable. */
static int report_key__cmp(const void *a, const void *b)
{
	const struct report_key *x = *(struct report_key *const *)a;
	const struct report_key *y = *(struct report_key *const *)b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? 1 : -1;
	return strcmp(x->key, y->key);
}

int report__select(struct report *r, int scope, int top)
{
	static const enum scope fallback[] = {
		SCOPE_CONTAINER, SCOPE_CGROUP, SCOPE_PROCESS, SCOPE_COMMAND,
		SCOPE_SYSTEM,
	};
	struct report_table *t;
	size_t i;

	for (i = 0; scope < 0 && i < sizeof(fallback) / sizeof(*fallback); i++) {
		if (r->tab[fallback[i]].nr)
			scope = fallback[i];
	}
	if (scope < 0 || scope >= SCOPE_NR || !r->tab[scope].nr)
		return report__fail(r, 0, -ENOENT, "no %s rows %s",
				    scope < 0 ? "usable" : scope__name(scope),
				    r->src->no_rows(r, scope));
	t = &r->tab[scope];
	free(r->sorted);
	r->sorted = calloc(t->nr, sizeof(*r->sorted));
	if (!r->sorted)
		return report__fail(r, 0, -ENOMEM, "out of memory");
	r->scope = scope;
	r->rank = report_table__rank(t);
	for (i = 0; i < (size_t)t->nr; i++) {
		t->keys[i].rank = report_key__rank(&t->keys[i], r->rank);
		r->sorted[i] = &t->keys[i];
	}
	qsort(r->sorted, t->nr, sizeof(*r->sorted), report_key__cmp);
	r->nr_sorted = t->nr;
	r->top = top > 0 && top < t->nr ? top : t->nr;
	return 0;
}

int report__load_series(struct report *r)
{
	struct report_key *sys = (struct report_key *)report__system(r);
	int i, n = r->top < REPORT_MAX_LINES ? r->top : REPORT_MAX_LINES;

	for (i = 0; i <= n; i++) {
		struct report_key *k = i < n ? r->sorted[i] : sys;

		if (!k || k->series)
			continue;
		k->series = calloc(r->nr_times ? r->nr_times : 1,
				   sizeof(*k->series));
		if (!k->series)
			return report__fail(r, 0, -ENOMEM, "out of memory");
	}
	r->series_pass = true;
	return r->src->load_series(r);
}

double report__series_rate(const struct report *r, const struct report_key *k,
			   int i)
{
	double dt = r->times[i] - (i ? r->times[i - 1] : 0);

	if (!k->series || dt <= 0)
		return NAN;
	if (r->rank == RANK_CPU_CLOCK)
		return k->series[i] / 1e9 / dt;	/* ns of CPU per s: CPUs used */
	return k->series[i] / dt;		/* J/s = W, or events/s */
}
