// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf report --prometheus, the pure side: range query results
 * (matrices of counter values at every step of the window) turned into
 * the report's keys, totals and per-step series, and the containers'
 * names into their pods' and namespaces' keys. No I/O: the HTTP side is
 * report_prom.c, durations and times report_prom_time.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/report/report_prom.h"

const struct report_prom_scope report_prom_scopes[REPORT_PROM_SCOPES] = {
	{ SCOPE_SYSTEM,    "system",    NULL,           "",			true },
	{ SCOPE_SOCKET,    "package",   "package",      "package",		true },
	{ SCOPE_CGROUP,    "cgroup",    "cgroup",       "cgroup",		true },
	/* not by cgroup: a container's cgroup label can change under it */
	{ SCOPE_CONTAINER, "container", "container_id", "container_id,runtime,pod_uid", true },
	/* --processes top:N: a process enters the top with its whole past */
	{ SCOPE_PROCESS,   "process",   "pid",          "pid,comm",		false },
};

const struct report_prom_fam report_prom_fams[RF_NR] = {
	[RF_CYCLES]		= { "cycles_total",		NULL,			1 },
	[RF_INSTRUCTIONS]	= { "instructions_total",	NULL,			1 },
	[RF_CPU_CLOCK]		= { "cpu_clock_seconds_total",	NULL,			1e9 },
	/* the other zones are a package's measured parts */
	[RF_ENERGY]		= { "energy_joules_total",	"zone=\"package\"",	1 },
};

struct report_prom {
	double start, step;
	int n;
	struct json_object *res[SCOPE_NR][RF_NR];
	/* where a series went down: its labels (JSON text) -> the highest
	 * value within each step (max_over_time), to see what the old
	 * counter gained after the last step before the reset */
	struct json_object *peaks[SCOPE_NR][RF_NR];
	struct json_object *host_first;	/* host -> first point with a value */
	/* "host\ncontainer_id" -> the container's labels with the most
	 * names (name, image, namespace, pod, container) in the window */
	struct json_object *names;
	long values;			/* valid values seen */
};

/* The source's state in the model, made by the first call that keeps a
 * result (r->src is report_prom_source: report_prom.c). */
static struct report_prom *report__prom(struct report *r)
{
	if (!r->src_priv)
		r->src_priv = calloc(1, sizeof(struct report_prom));
	return r->src_priv;
}

int report__prom_window(struct report *r, double start, double step, int n)
{
	struct report_prom *p = report__prom(r);
	int i;

	if (!p)
		return -ENOMEM;
	if (n < 1 || n >= REPORT_PROM_MAX_POINTS || !(step > 0))
		return -EINVAL;
	free(r->times);
	r->times = calloc(n, sizeof(*r->times));
	if (!r->times)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		r->times[i] = (i + 1) * step;
	r->nr_times = r->alloc_times = n;
	r->duration = n * step;
	p->start = start;
	p->step = step;
	p->n = n;
	return 0;
}

static const struct report_prom_scope *prom_scope__find(enum scope scope)
{
	for (int i = 0; i < REPORT_PROM_SCOPES; i++)
		if (report_prom_scopes[i].scope == scope)
			return &report_prom_scopes[i];
	return NULL;
}

int report__prom_add(struct report *r, enum scope scope, enum report_fam fam,
		     struct json_object *result)
{
	struct report_prom *p = report__prom(r);

	if (!p) {
		json_object_put(result);
		return -ENOMEM;
	}
	if (!prom_scope__find(scope) || fam < 0 || fam >= RF_NR) {
		json_object_put(result);
		return -EINVAL;
	}
	json_object_put(p->res[scope][fam]);
	p->res[scope][fam] = result;
	return 0;
}

void report_prom__free(void *priv)
{
	struct report_prom *p = priv;

	if (!p)
		return;
	for (int s = 0; s < SCOPE_NR; s++) {
		for (int f = 0; f < RF_NR; f++) {
			json_object_put(p->res[s][f]);
			json_object_put(p->peaks[s][f]);
		}
	}
	json_object_put(p->host_first);
	json_object_put(p->names);
	free(p);
}

static const char *label__get(struct json_object *metric, const char *name)
{
	struct json_object *v;

	if (!json_object_object_get_ex(metric, name, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* The host a series is about: its host label, else the scraped instance. */
static const char *series__host(struct json_object *metric)
{
	return label__get(metric, "host") ?: label__get(metric, "instance") ?: "";
}

/* Value i of a series: its point (0..n) and value. -ERANGE: outside the
 * window (skip it), -EINVAL: not [time, "value"]. */
static int series__point(const struct report_prom *p, struct json_object *values,
			 size_t i, int *k, double *v)
{
	struct json_object *pt = json_object_array_get_idx(values, i), *ts, *val;
	const char *s;
	char *end;
	double x;

	if (!json_object_is_type(pt, json_type_array) ||
	    json_object_array_length(pt) != 2)
		return -EINVAL;
	ts = json_object_array_get_idx(pt, 0);
	val = json_object_array_get_idx(pt, 1);
	if ((!json_object_is_type(ts, json_type_double) &&
	     !json_object_is_type(ts, json_type_int)) ||
	    !json_object_is_type(val, json_type_string))
		return -EINVAL;
	s = json_object_get_string(val);
	*v = strtod(s, &end);
	if (end == s || *end)
		return -EINVAL;
	x = (json_object_get_double(ts) - p->start) / p->step;
	if (!(x > -0.5 && x < p->n + 0.5))
		return -ERANGE;
	*k = lround(x);
	return 0;
}

/* A series' metric labels and values; -EINVAL when it is not one. */
static int series__parts(struct json_object *series, struct json_object **metric,
			 struct json_object **values)
{
	if (!json_object_object_get_ex(series, "metric", metric) ||
	    !json_object_is_type(*metric, json_type_object) ||
	    !json_object_object_get_ex(series, "values", values) ||
	    !json_object_is_type(*values, json_type_array))
		return -EINVAL;
	return 0;
}

bool report__prom_resets(const struct report *r, enum scope scope,
			 enum report_fam fam)
{
	const struct report_prom *p = r->src_priv;
	struct json_object *res = p ? p->res[scope][fam] : NULL, *metric, *values;
	size_t i, j;
	double v, prev;
	int pt;

	for (i = 0; json_object_is_type(res, json_type_array) &&
		    i < json_object_array_length(res); i++) {
		if (series__parts(json_object_array_get_idx(res, i), &metric, &values))
			continue;
		prev = NAN;
		for (j = 0; j < json_object_array_length(values); j++) {
			if (series__point(p, values, j, &pt, &v) || !isfinite(v))
				continue;
			if (v < prev)
				return true;
			prev = v;
		}
	}
	return false;
}

int report__prom_add_peaks(struct report *r, enum scope scope,
			   enum report_fam fam, struct json_object *result)
{
	struct report_prom *p = r->src_priv;
	struct json_object *index = NULL, *metric, *values;
	int err = -EINVAL;
	size_t i;

	if (!p || !prom_scope__find(scope) || fam < 0 || fam >= RF_NR ||
	    !json_object_is_type(result, json_type_array))
		goto out;
	err = -ENOMEM;
	index = json_object_new_object();
	if (!index)
		goto out;
	for (i = 0; i < json_object_array_length(result); i++) {
		if (series__parts(json_object_array_get_idx(result, i), &metric, &values))
			continue;
		if (json_object_object_add(index,
				json_object_to_json_string_ext(metric, JSON_C_TO_STRING_PLAIN),
				json_object_get(values)))
			goto out;
	}
	json_object_put(p->peaks[scope][fam]);
	p->peaks[scope][fam] = index;
	index = NULL;
	err = 0;
out:
	json_object_put(index);
	json_object_put(result);
	return err;
}

/* A container's entry in the names: its host and id; -EINVAL without an id. */
static int names__key(struct json_object *metric, char *buf, size_t len)
{
	const char *id = label__get(metric, "container_id");

	if (!id)
		return -EINVAL;
	snprintf(buf, len, "%s\n%s", series__host(metric), id);
	return 0;
}

/* How much a set of labels says: a pod's names beat a name alone (the
 * names a runtime wrote after its container's first scrape). */
static int names__score(struct json_object *metric)
{
	const char *pod = label__get(metric, "pod"), *name = label__get(metric, "name");

	return (pod && *pod ? 2 : 0) + (name && *name ? 1 : 0);
}

int report__prom_add_names(struct report *r, struct json_object *result)
{
	struct report_prom *p = report__prom(r);
	struct json_object *metric, *old;
	char key[512];
	int err = -ENOMEM;
	size_t i;

	if (!p || (!p->names && !(p->names = json_object_new_object())))
		goto out;
	err = -EINVAL;
	if (!json_object_is_type(result, json_type_array))
		goto out;
	for (i = 0; i < json_object_array_length(result); i++) {
		if (!json_object_object_get_ex(json_object_array_get_idx(result, i),
					       "metric", &metric) ||
		    !json_object_is_type(metric, json_type_object))
			goto out;
		if (names__key(metric, key, sizeof(key)) ||
		    (json_object_object_get_ex(p->names, key, &old) &&
		     names__score(old) >= names__score(metric)))
			continue;
		if (json_object_object_add(p->names, key, json_object_get(metric))) {
			err = -ENOMEM;
			goto out;
		}
	}
	err = 0;
out:
	json_object_put(result);
	return err;
}

/*
 * The keys a container's series counts for besides its own: its pod on
 * its host (namespace/pod from its names, else its pod_uid label) and
 * its namespace over the fleet (a namespace spans hosts); NULL where it
 * has none. The container's key gets its names. 0 or -ENOMEM.
 */
static int container__pods(struct report *r, struct json_object *metric,
			   struct report_key *k, struct report_key **ks)
{
	struct report_prom *p = r->src_priv;
	struct json_object *names = NULL;
	const char *host = series__host(metric), *ns = NULL, *pod = NULL;
	const char *uid = label__get(metric, "pod_uid");
	char key[512];

	if (p->names && !names__key(metric, key, sizeof(key)))
		json_object_object_get_ex(p->names, key, &names);
	if (names) {
		ns = label__get(names, "namespace");
		pod = label__get(names, "pod");
		if (!r->series_pass &&
		    report_key__set_names(k, label__get(names, "name"), ns, pod,
					  label__get(names, "container")))
			return -ENOMEM;
	}
	if (pod && *pod) {
		snprintf(key, sizeof(key), "%s/%s", ns && *ns ? ns : "?", pod);
		if (!(ks[0] = report__key(r, SCOPE_POD, host, key)))
			return -ENOMEM;
	} else if (uid && *uid && !(ks[0] = report__key(r, SCOPE_POD, host, uid))) {
		return -ENOMEM;
	}
	if (pod && *pod && ns && *ns &&
	    !(ks[1] = report__key(r, SCOPE_NAMESPACE, NULL, ns)))
		return -ENOMEM;
	return 0;
}

/* host_first: the first point at which Prometheus had each host. */
static int report_prom__hosts(struct report_prom *p, struct json_object *res)
{
	struct json_object *metric, *values, *old;
	size_t i, j, n = json_object_array_length(res);
	const char *host;
	double v;
	int k;

	for (i = 0; i < n; i++) {
		if (series__parts(json_object_array_get_idx(res, i), &metric, &values))
			return -EINVAL;
		host = series__host(metric);
		for (j = 0; j < json_object_array_length(values); j++) {
			int err = series__point(p, values, j, &k, &v);

			if (err == -ERANGE || (!err && !isfinite(v)))
				continue;
			if (err)
				return err;
			if (!json_object_object_get_ex(p->host_first, host, &old) ||
			    json_object_get_int(old) > k)
				if (json_object_object_add(p->host_first, host,
							   json_object_new_int(k)))
					return -ENOMEM;
			break;
		}
	}
	return 0;
}

static enum report_fam rank__fam(enum report_rank rank)
{
	switch (rank) {
	case RANK_ENERGY:	return RF_ENERGY;
	case RANK_CPU_CLOCK:	return RF_CPU_CLOCK;
	case RANK_CYCLES:	return RF_CYCLES;
	case RANK_INSTRUCTIONS:	return RF_INSTRUCTIONS;
	}
	return RF_NR;
}

/* A known value of a key: it was counted, even if it did not move. */
static void report_key__counted(struct report *r, struct report_key *k,
				enum report_fam fam)
{
	if (fam == RF_ENERGY)
		k->has_energy = r->has_energy = true;
	else
		k->counted |= 1u << fam;
}

static void report_key__add(struct report *r, struct report_key *k,
			    enum report_fam fam, int point, double inc)
{
	if (r->series_pass) {
		if (k->series && point >= 1)
			k->series[point - 1] += inc;
	} else if (fam == RF_ENERGY) {
		k->energy_j += inc;
	} else {
		k->count[fam] += inc;
	}
}

/* The key a series is about, with its comm or runtime (pass 1). */
static struct report_key *series__key(struct report *r,
				      const struct report_prom_scope *ps,
				      struct json_object *metric)
{
	const char *key = ps->key ? label__get(metric, ps->key) : "all";
	struct report_key *k;

	if (!key)
		return NULL;
	/* the system is the whole fleet: one key over every host */
	k = report__key(r, ps->scope, ps->scope == SCOPE_SYSTEM ? NULL :
			series__host(metric), key);
	if (k && !r->series_pass &&
	    (report__strset(&k->comm, label__get(metric, "comm")) ||
	     report__strset(&k->runtime, label__get(metric, "runtime"))))
		return NULL;
	return k;
}

/* What a counter that restarted between points from and to had gained
 * after from, before its reset: its highest value in between (the
 * counter after the reset stays below the value at from) less the
 * value at from; 0 without the peaks. */
static double series__gain(const struct report_prom *p, enum scope scope,
			   enum report_fam fam, struct json_object *metric,
			   int from, int to, double at_from)
{
	struct json_object *values;
	double v, peak = at_from;
	size_t j;
	int pt;

	if (!p->peaks[scope][fam] ||
	    !json_object_object_get_ex(p->peaks[scope][fam],
				       json_object_to_json_string_ext(metric, JSON_C_TO_STRING_PLAIN),
				       &values))
		return 0;
	for (j = 0; j < json_object_array_length(values); j++) {
		if (series__point(p, values, j, &pt, &v) || !isfinite(v))
			continue;
		if (pt > from && pt <= to && v > peak)
			peak = v;
	}
	return peak - at_from;
}

/* One series' increases, step by step, into its key. */
static int report__prom_walk(struct report *r, const struct report_prom_scope *ps,
			     enum report_fam fam, struct json_object *series)
{
	struct report_prom *p = r->src_priv;
	struct json_object *metric, *values, *first;
	double prev = NAN, v, inc, scale = report_prom_fams[fam].scale;
	struct report_key *k, *ks[3] = { NULL };
	int err, pt, prev_pt = 0;
	size_t j;

	if (series__parts(series, &metric, &values))
		return -EINVAL;
	k = series__key(r, ps, metric);
	if (!k)
		return ps->key && !label__get(metric, ps->key) ? -EINVAL : -ENOMEM;
	/* a container counts for its pod and namespace too */
	if (ps->scope == SCOPE_CONTAINER && container__pods(r, metric, k, ks))
		return -ENOMEM;
	ks[2] = k;
	for (j = 0; j < json_object_array_length(values); j++) {
		err = series__point(p, values, j, &pt, &v);
		if (err == -ERANGE || (!err && !(isfinite(v) && v >= 0)))
			continue;
		if (err)
			return err;
		if (isnan(prev))	/* born here, from zero, or a baseline */
			inc = ps->births && pt > 0 &&
			      json_object_object_get_ex(p->host_first,
							series__host(metric), &first) &&
			      pt > json_object_get_int(first) ? v : 0;
		else if (v >= prev)
			inc = v - prev;
		else			/* a counter that went down restarted */
			inc = v + series__gain(p, ps->scope, fam, metric,
					       prev_pt, pt, prev);
		prev = v;
		prev_pt = pt;
		p->values++;
		for (int i = 0; i < 3; i++) {
			if (!ks[i])
				continue;
			if (!r->series_pass)
				report_key__counted(r, ks[i], fam);
			if (inc > 0)
				report_key__add(r, ks[i], fam, pt, inc * scale);
		}
	}
	return 0;
}

static int report__prom_fail(struct report *r, int err, const struct report_prom_scope *ps,
			     enum report_fam fam)
{
	if (err == -ENOMEM)
		return report__fail(r, 0, err, "out of memory");
	return report__fail(r, 0, err,
			    "a malformed answer for emon_%s_%s (not a matrix of [time, \"value\"] per series%s%s)",
			    ps->name, report_prom_fams[fam].name,
			    ps->key ? ", or no label " : "", ps->key ?: "");
}

/* Every series of every scope and family, in pass 1 or pass 2. */
static int report__prom_walk_all(struct report *r)
{
	struct report_prom *p = r->src_priv;
	int i, f, err;

	for (i = 0; i < REPORT_PROM_SCOPES; i++) {
		const struct report_prom_scope *ps = &report_prom_scopes[i];

		for (f = 0; f < RF_NR; f++) {
			struct json_object *res = p->res[ps->scope][f];
			size_t j;

			if (!res)
				continue;
			if (r->series_pass && f != (int)rank__fam(r->rank))
				continue;
			if (!json_object_is_type(res, json_type_array))
				return report__prom_fail(r, -EINVAL, ps, f);
			for (j = 0; j < json_object_array_length(res); j++) {
				err = report__prom_walk(r, ps, f,
					json_object_array_get_idx(res, j));
				if (err)
					return report__prom_fail(r, err, ps, f);
			}
		}
	}
	return 0;
}

int report__prom_sum(struct report *r)
{
	struct report_prom *p = r->src_priv;
	int i, f, err;

	if (!p || !p->n)
		return -EINVAL;
	json_object_put(p->host_first);
	p->host_first = json_object_new_object();
	if (!p->host_first)
		return -ENOMEM;
	for (i = 0; i < REPORT_PROM_SCOPES; i++) {
		for (f = 0; f < RF_NR; f++) {
			struct json_object *res = p->res[report_prom_scopes[i].scope][f];

			if (!res)
				continue;
			if (!json_object_is_type(res, json_type_array) ||
			    (err = report_prom__hosts(p, res)))
				return report__prom_fail(r, -EINVAL, &report_prom_scopes[i], f);
		}
	}
	r->nr_hosts = json_object_object_length(p->host_first);
	r->series_pass = false;
	p->values = 0;
	err = report__prom_walk_all(r);
	if (!err && !p->values)
		err = report__fail(r, 0, -ENODATA, "no emon-perf data in this window");
	return err;
}

int report__prom_series(struct report *r)
{
	if (!r->src_priv)
		return -EINVAL;
	r->series_pass = true;
	return report__prom_walk_all(r);
}
