// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf report, the recording source: parse a JSON-lines recording
 * (stat --json-rows'; stat -j's up to 0.2.0, the same lines) line by line
 * (json-c), sum every scope's keys over all intervals into
 * the model (report_model.c), and, read a second time, collect the series
 * the charts draw.
 */
#define _GNU_SOURCE	/* getline */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "common/array.h"
#include "cli/report/report.h"

/* One row of the recording, pointing into the parsed JSON object. */
struct report_row {
	double t;
	int scope;
	const char *key;
	char keybuf[24];	/* a key given as a number */
	const char *comm;
	const char *runtime;
	const char *name, *ns, *pod, *container;	/* container rows */
	double count[RC_NR];
	unsigned int counted;
	bool has_energy;
	double energy_j;
	bool has_gpu;
	double gpu_j;
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
	*why = "\"gpu_energy_j\" is neither a number nor null";
	if (json_object_object_get_ex(o, "gpu_energy_j", &v) &&
	    json__number(v, &row->gpu_j, &row->has_gpu))
		return -EINVAL;
	row->comm = json__string(o, "comm");
	row->runtime = json__string(o, "runtime");
	if (row->scope == SCOPE_CONTAINER) {
		row->name = json__string(o, "name");
		row->ns = json__string(o, "namespace");
		row->pod = json__string(o, "pod");
		row->container = json__string(o, "container");
	}
	row->energy_source = json__string(o, "energy_source");
	row->split_by = json__string(o, "split_by");
	return 0;
}

static int report__add_time(struct report *r, double t)
{
	if (r->nr_times && r->times[r->nr_times - 1] == t)
		return 0;
	if (array__grow(&r->times, &r->alloc_times, r->nr_times + 1,
			sizeof(*r->times)))
		return -ENOMEM;
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
	if (row->has_gpu) {
		k->gpu_j += row->gpu_j;
		k->has_gpu = r->has_gpu = true;
	}
	if (report__strset(&k->comm, row->comm) || report__strset(&k->runtime, row->runtime) ||
	    report_key__set_names(k, row->name, row->ns, row->pod, row->container))
		return -ENOMEM;
	if (!r->energy_source && report__strset(&r->energy_source, row->energy_source))
		return -ENOMEM;
	if (!r->split_by && report__strset(&r->split_by, row->split_by))
		return -ENOMEM;
	report__scrub(r->energy_source);
	report__scrub(r->split_by);
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
	int rc = report_rank__count(r->rank);
	struct report_key *k;
	double *t;

	k = report__find(r, row->scope, NULL, row->key);
	if (!k || !k->series)
		return;
	t = bsearch(&row->t, r->times, r->nr_times, sizeof(*r->times),
		    double__cmp);
	if (!t)		/* the file grew since pass 1 */
		return;
	if (r->rank == RANK_ENERGY)
		k->series[t - r->times] += row->has_energy ? row->energy_j : 0;
	else if (row->counted & (1u << rc))
		k->series[t - r->times] += row->count[rc];
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
		/* perf's JSON, stat -j's after 0.2.0: a line per event with no
		 * scope or key to sum; refused, with what to record instead */
		if (json_object_object_get_ex(o, "counter-value", NULL) &&
		    json_object_object_get_ex(o, "event", NULL))
			report__fail(r, lineno, err,
				     "perf's JSON (stat -j), not emon-perf's rows: record with 'emon-perf stat --json-rows -o FILE'");
		else if (row.bad_counter)
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
		/* stat -o's first line (perf's, before -x and -j output) */
		if (!strncmp(line, "# started on ", 13))
			continue;
		err = report__line(r, tok, line, len, lineno);
		if (err)
			goto out;
	}
	if (ferror(f))
		err = report__fail(r, 0, -EIO, "read error");
	else if (!r->nr_rows)
		err = report__fail(r, 0, -ENODATA,
				   "empty recording (no rows; make one with 'emon-perf stat --json-rows -o FILE')");
out:
	free(line);
	if (tok)
		json_tokener_free(tok);
	fclose(f);
	return err;
}

static int file__load(struct report *r, const void *arg)
{
	int i, n = 0;
	int err;

	(void)arg;
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

/* "in this recording (it has container and process rows: ...)": the
 * scopes it has, since a recording holds only its stat's --by scopes. */
static const char *file__no_rows(const struct report *r, int scope)
{
	static char buf[512];
	size_t n = 0;
	int s, k = 0;

	(void)scope;
	n = snprintf(buf, sizeof(buf), "in this recording (it has");
	for (s = 0; s < SCOPE_NR && n < sizeof(buf); s++) {
		if (r->tab[s].nr)
			n += snprintf(buf + n, sizeof(buf) - n, "%s %s", k++ ? "," : "",
				      scope__name(s));
	}
	if (n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - n, "%s; stat --json-rows records the scopes of its --by)",
			 k ? " rows" : " no rows");
	return buf;
}

const struct report_source report_file_source = {
	.name		= "recording",
	.load		= file__load,
	.load_series	= report__read,	/* the same lines, r->series_pass set */
	.no_rows	= file__no_rows,
};
