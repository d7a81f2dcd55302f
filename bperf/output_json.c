// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * JSON lines (-j): one object per row per interval, the DESIGN.md contract.
 * Built with json-c so that keys (cgroup paths, comms) are escaped right;
 * no begin or end lines, so every line parses on its own.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "bperf/output.h"

/* Plain, and "/a/b" rather than json-c's default "\/a\/b". */
#define JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/*
 * A float that parses back as one ("1.0", not json-c's "1" or the
 * "0.10000000000000001" of its %.17g), or NULL, which json-c prints as
 * null: NAN and infinities are not JSON.
 */
static struct json_object *json__double(double v, int prec)
{
	char buf[64];

	if (!isfinite(v))
		return NULL;
	snprintf(buf, sizeof(buf), "%.*g", prec, v);
	if (!strpbrk(buf, ".e"))
		strncat(buf, ".0", sizeof(buf) - strlen(buf) - 1);
	return json_object_new_double_s(v, buf);
}

/* Numbers for cpu, socket, process and command (pid) keys, strings
 * otherwise. */
static struct json_object *json__key(const struct row *r)
{
	long long v;
	char *end;

	if (r->scope == SCOPE_SYSTEM)
		return json_object_new_string("all");
	if (!r->key)
		return NULL;
	if (r->scope == SCOPE_CPU || r->scope == SCOPE_SOCKET ||
	    r->scope == SCOPE_PROCESS || r->scope == SCOPE_COMMAND) {
		errno = 0;
		v = strtoll(r->key, &end, 10);
		if (*r->key && !*end && !errno)
			return json_object_new_int64(v);
	}
	return json_object_new_string(r->key);
}

static struct json_object *json__string(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static void json__counters(const struct output *o, const struct row *r,
			   struct json_object *obj)
{
	struct json_object *counters = json_object_new_object();
	struct json_object *ratio = json_object_new_object();
	struct row_value v;
	const char *name;
	int i;

	for (i = 0; i < o->nr_events && i < EMON_MAX_EVENTS; i++) {
		name = o->ev[i].name ? o->ev[i].name : "?";
		row__value(o, r, i, &v);
		json_object_object_add(counters, name,
				       v.state == VALUE_COUNTED ?
				       json_object_new_uint64(v.count) : NULL);
		json_object_object_add(ratio, name, json__double(v.ratio, 6));
	}
	json_object_object_add(obj, "counters", counters);
	json_object_object_add(obj, "ratio", ratio);
}

static void json__energy(const struct output *o, const struct row *r,
			 struct json_object *obj)
{
	struct row_metrics m;

	row__metrics(o, r, &m);
	json_object_object_add(obj, "energy_j", json__double(r->energy_j, 10));
	json_object_object_add(obj, "power_w", json__double(r->power_w, 10));
	json_object_object_add(obj, "epi_nj", json__double(m.epi_nj, 6));
	json_object_object_add(obj, "ipc", json__double(m.ipc, 6));
	if (r->zone_mask) {	/* a socket's measured sub-zones */
		struct json_object *z = json_object_new_object();

		for (int i = 0; i < 4; i++)
			if (r->zone_mask & (1u << i))
				json_object_object_add(z, row_zone_names[i],
						       json__double(r->zone_j[i], 10));
		json_object_object_add(obj, "zones_j", z);
	}
}

static struct json_object *json__row(const struct output *o, double t,
				     const struct row *r)
{
	struct json_object *obj = json_object_new_object();
	char interval[64];

	if (!obj)
		return NULL;
	snprintf(interval, sizeof(interval), "%.6f", t);
	json_object_object_add(obj, "interval",
			       json_object_new_double_s(t, interval));
	json_object_object_add(obj, "scope",
			       json_object_new_string(scope__name(r->scope)));
	json_object_object_add(obj, "key", json__key(r));
	if (r->scope == SCOPE_PROCESS)
		json_object_object_add(obj, "comm", json__string(r->comm));
	if (r->scope == SCOPE_CONTAINER) {
		json_object_object_add(obj, "runtime",
				       json__string(r->runtime));
		if (r->pod_uid)
			json_object_object_add(obj, "pod_uid",
					       json__string(r->pod_uid));
	}
	json__counters(o, r, obj);
	if (r->has_energy)
		json__energy(o, r, obj);
	/* the system row names the source; with the model every row with
	 * energy does, so no estimate is ever mistaken for a measurement */
	if (o->energy_source && (r->scope == SCOPE_SYSTEM ||
				 (o->energy_estimated && r->has_energy))) {
		json_object_object_add(obj, "energy_source",
				       json__string(o->energy_source));
		json_object_object_add(obj, "split_by",
				       json__string(o->split_by));
	}
	return obj;
}

static void json__begin(struct output *o)
{
	(void)o;
}

static void json__interval(struct output *o, double t, double dt,
			   const struct row *rows, int n)
{
	struct json_object *obj;
	int k;

	(void)dt;
	for (k = 0; k < n; k++) {
		obj = json__row(o, t, &rows[k]);
		if (!obj)
			continue;
		fprintf(o->f, "%s\n",
			json_object_to_json_string_ext(obj, JSON_FLAGS));
		json_object_put(obj);
		o->rows_printed++;
	}
}

static void json__end(struct output *o, double elapsed)
{
	(void)o;
	(void)elapsed;
}

const struct output_ops output_json_ops = {
	.name		= "json",
	.begin		= json__begin,
	.interval	= json__interval,
	.end		= json__end,
};
