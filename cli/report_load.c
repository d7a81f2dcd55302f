// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf report, the reading side: parse a JSON-lines recording line by
 * line (json-c), sum every scope's keys over all intervals, choose and sort
 * one scope's keys, and collect the series the charts draw.
 */
#define _GNU_SOURCE	/* asprintf */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "cli/report.h"
#include "cli/report_prom.h"
/* One row of the recording, pointing into the parsed JSON object. */
struct report_row {
	double t;
	int scope;
	const char *key;
	char keybuf[24];	/* a key given as a number */
	const char *comm;
	const char *runtime;
	double count[RC_NR];
	unsigned int counted;
	bool has_energy;
	double energy_j;
	const char *energy_source;
	const char *split_by;
	const char *bad_counter;	/* the counter that is not a number */
};

static const char *const count_names[RC_NR] = {
	[RC_CYCLES]		= "cycles",
	[RC_INSTRUCTIONS]	= "instructions",
	[RC_CPU_CLOCK]		= "cpu-clock",
	[RC_RUNQ_WAIT]		= "runq_wait_ns",
	[RC_SLEEP]		= "sleep_ns",
	[RC_BLOCKED]		= "blocked_ns",
};

/* The counter a ranking sorts by; RANK_ENERGY has none. */
static const int rank_count[] = {
	[RANK_ENERGY]		= -1,
	[RANK_CPU_CLOCK]	= RC_CPU_CLOCK,
	[RANK_CYCLES]		= RC_CYCLES,
	[RANK_INSTRUCTIONS]	= RC_INSTRUCTIONS,
};

static int report__fail(struct report *r, int line, int err,
			const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int report__fail(struct report *r, int line, int err,
			const char *fmt, ...)
{
	char msg[192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->err_line = line;
	if (line)
		snprintf(r->err, sizeof(r->err), "%s:%d: %s", r->path, line, msg);
	else
		snprintf(r->err, sizeof(r->err), "%s: %s", r->path, msg);
	return err;
}

void report__init(struct report *r, const char *path)
{
	memset(r, 0, sizeof(*r));
	r->path = path;
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
	report_prom__free(r->prom);
	memset(r, 0, sizeof(*r));
}

/* A number, or null (*known = false); -EINVAL for anything else. */
static int json__number(struct json_object *v, double *out, bool *known)
{
	enum json_type type = json_object_get_type(v);

	*known = false;
	if (type == json_type_null)
		return 0;
	if (type != json_type_int && type != json_type_double)
		return -EINVAL;
	*out = json_object_get_double(v);
	if (!isfinite(*out))
		return -EINVAL;
	*known = true;
	return 0;
}

static const char *json__string(struct json_object *o, const char *name)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, name, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* counters: "counters" (RC_CYCLES up to RC_COUNTERS) or "sched" (the rest) */
static int report_row__counters(struct report_row *row,
				struct json_object *counters, bool sched)
{
	struct json_object *v;
	bool known;
	int i;

	for (i = sched ? RC_COUNTERS : 0; i < (sched ? RC_NR : RC_COUNTERS); i++) {
		const char *name = count_names[i];

		/* perf's name for the same clock in command mode */
		if (i == RC_CPU_CLOCK &&
		    !json_object_object_get_ex(counters, name, NULL))
			name = "task-clock";
		if (!json_object_object_get_ex(counters, name, &v))
			continue;
		if (json__number(v, &row->count[i], &known)) {
			row->bad_counter = name;
			return -EINVAL;
		}
		if (known)
			row->counted |= 1u << i;
	}
	return 0;
}

/* Fill row from one parsed line; *why names what is wrong. */
static int report_row__parse(struct report_row *row, struct json_object *o,
			     const char **why)
{
	struct json_object *v;
	bool known;

	memset(row, 0, sizeof(*row));
	*why = "\"interval\" (seconds) missing or not a number";
	if (!json_object_object_get_ex(o, "interval", &v) ||
	    json__number(v, &row->t, &known) || !known || row->t < 0)
		return -EINVAL;
	*why = "\"scope\" missing or not a known scope";
	row->scope = scope__parse(json__string(o, "scope"));
	if (row->scope < 0)
		return -EINVAL;
	*why = "\"key\" missing";
	if (!json_object_object_get_ex(o, "key", &v))
		return -EINVAL;
	if (json_object_is_type(v, json_type_string)) {
		row->key = json_object_get_string(v);
	} else if (json_object_is_type(v, json_type_int)) {
		snprintf(row->keybuf, sizeof(row->keybuf), "%" PRId64,
			 json_object_get_int64(v));
		row->key = row->keybuf;
	} else {
		return -EINVAL;
	}
	*why = "\"counters\" missing or not an object";
	if (!json_object_object_get_ex(o, "counters", &v) ||
	    !json_object_is_type(v, json_type_object))
		return -EINVAL;
	*why = "a counter is neither a number nor null";
	if (report_row__counters(row, v, false))
		return -EINVAL;
	*why = "\"sched\" is not an object, or a field of it not a number";
	if (json_object_object_get_ex(o, "sched", &v) &&
	    (!json_object_is_type(v, json_type_object) ||
	     report_row__counters(row, v, true)))
		return -EINVAL;
	*why = "\"energy_j\" is neither a number nor null";
	if (json_object_object_get_ex(o, "energy_j", &v) &&
	    json__number(v, &row->energy_j, &row->has_energy))
		return -EINVAL;
	row->comm = json__string(o, "comm");
	row->runtime = json__string(o, "runtime");
	row->energy_source = json__string(o, "energy_source");
	row->split_by = json__string(o, "split_by");
	return 0;
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
	if (t->nr == t->alloc) {
		int alloc = t->alloc ? t->alloc * 2 : 16;

		k = realloc(t->keys, alloc * sizeof(*k));
		if (!k)
			return NULL;
		t->keys = k;
		t->alloc = alloc;
	}
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
struct report_key *report__key(struct report *r, enum scope scope,
			       const char *host, const char *key)
{
	struct report_table *t = &r->tab[scope];
	struct report_key *k;
	char *id = NULL;

	if (host && asprintf(&id, "%s\x1f%s", host, key) < 0)
		return NULL;
	k = report_table__find(t, id ?: key);
	if (!k)
		k = report_table__add(t, id ?: key, host, key);
	free(id);
	return k;
}

static int report__add_time(struct report *r, double t)
{
	double *times;

	if (r->nr_times && r->times[r->nr_times - 1] == t)
		return 0;
	if (r->nr_times == r->alloc_times) {
		int alloc = r->alloc_times ? r->alloc_times * 2 : 64;

		times = realloc(r->times, alloc * sizeof(*times));
		if (!times)
			return -ENOMEM;
		r->times = times;
		r->alloc_times = alloc;
	}
	r->times[r->nr_times++] = t;
	return 0;
}

/* Pass 1: add one row to its key's sums. */
static int report__add_row(struct report *r, const struct report_row *row)
{
	struct report_key *k;
	int i;

	k = report__key(r, row->scope, NULL, row->key);
	if (!k)
		return -ENOMEM;
	for (i = 0; i < RC_NR; i++) {
		if (row->counted & (1u << i))
			k->count[i] += row->count[i];
	}
	k->counted |= row->counted;
	if (row->has_energy) {
		k->energy_j += row->energy_j;
		k->has_energy = true;
		r->has_energy = true;
	}
	if (report__strset(&k->comm, row->comm) || report__strset(&k->runtime, row->runtime))
		return -ENOMEM;
	if (!r->energy_source && report__strset(&r->energy_source, row->energy_source))
		return -ENOMEM;
	if (!r->split_by && report__strset(&r->split_by, row->split_by))
		return -ENOMEM;
	if (row->t > r->duration)
		r->duration = row->t;
	return report__add_time(r, row->t);
}

static int double__cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Pass 2: add one row to the series of a drawn key. */
static void report__add_series(struct report *r, const struct report_row *row)
{
	struct report_key *k;
	double *t;

	k = report_table__find(&r->tab[row->scope], row->key);
	if (!k || !k->series)
		return;
	t = bsearch(&row->t, r->times, r->nr_times, sizeof(*r->times),
		    double__cmp);
	if (!t)		/* the file grew since pass 1 */
		return;
	if (r->rank == RANK_ENERGY)
		k->series[t - r->times] += row->has_energy ? row->energy_j : 0;
	else if (row->counted & (1u << rank_count[r->rank]))
		k->series[t - r->times] += row->count[rank_count[r->rank]];
}

static int report__line(struct report *r, struct json_tokener *tok,
			const char *line, size_t len, int lineno)
{
	struct report_row row;
	struct json_object *o;
	const char *why;
	size_t end;
	int err;

	json_tokener_reset(tok);
	o = json_tokener_parse_ex(tok, line, len);
	if (!o) {
		enum json_tokener_error jerr = json_tokener_get_error(tok);

		return report__fail(r, lineno, -EINVAL, "not JSON (%s)",
				    jerr == json_tokener_continue ?
				    "truncated" : json_tokener_error_desc(jerr));
	}
	end = json_tokener_get_parse_end(tok);
	if (end < len && line[end + strspn(line + end, " \t\r\n")]) {
		err = report__fail(r, lineno, -EINVAL, "text after the JSON object");
		goto out;
	}
	if (!json_object_is_type(o, json_type_object)) {
		err = report__fail(r, lineno, -EINVAL, "not a JSON object");
		goto out;
	}
	err = report_row__parse(&row, o, &why);
	if (err) {
		if (row.bad_counter)
			report__fail(r, lineno, err, "counter \"%s\" is neither a number nor null",
				     row.bad_counter);
		else
			report__fail(r, lineno, err, "%s", why);
		goto out;
	}
	r->nr_rows++;
	if (r->series_pass)
		report__add_series(r, &row);
	else if ((err = report__add_row(r, &row)))
		report__fail(r, lineno, err, "out of memory");
out:
	json_object_put(o);
	return err;
}

static int report__read(struct report *r)
{
	struct json_tokener *tok = NULL;
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, err = 0;
	ssize_t len;
	FILE *f;

	f = fopen(r->path, "r");
	if (!f)
		return report__fail(r, 0, -errno, "%s", strerror(errno));
	tok = json_tokener_new();
	if (!tok) {
		err = report__fail(r, 0, -ENOMEM, "out of memory");
		goto out;
	}
	r->nr_rows = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (!line[strspn(line, " \t\r\n")])
			continue;	/* blank lines are allowed */
		err = report__line(r, tok, line, len, lineno);
		if (err)
			goto out;
	}
	if (ferror(f))
		err = report__fail(r, 0, -EIO, "read error");
	else if (!r->nr_rows)
		err = report__fail(r, 0, -ENODATA,
				   "empty recording (no rows; make one with 'emon-perf stat -j -o FILE')");
out:
	free(line);
	if (tok)
		json_tokener_free(tok);
	fclose(f);
	return err;
}

int report__load(struct report *r)
{
	int i, n = 0;
	int err;

	r->series_pass = false;
	err = report__read(r);
	if (err)
		return err;
	/* distinct interval ends, in time order whatever the line order */
	qsort(r->times, r->nr_times, sizeof(*r->times), double__cmp);
	for (i = 0; i < r->nr_times; i++) {
		if (!n || r->times[n - 1] != r->times[i])
			r->times[n++] = r->times[i];
	}
	r->nr_times = n;
	return 0;
}

const struct report_key *report__system(const struct report *r)
{
	const struct report_table *t = &r->tab[SCOPE_SYSTEM];

	return t->nr ? &t->keys[0] : NULL;
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

/* Where the rows of scope are missing from, and why when it is known. */
static const char *report__no_rows(const struct report *r, int scope)
{
	if (!r->prom)
		return "in this recording";
	if (scope == SCOPE_CPU || scope == SCOPE_COMMAND)
		return "from Prometheus (the daemon exports no cpu or command scope)";
	if (scope == SCOPE_PROCESS)
		return "in this window (the daemon exports processes with --processes top:N)";
	return "in this window";
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
				    report__no_rows(r, scope));
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
	return r->prom ? report__prom_series(r) : report__read(r);
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
