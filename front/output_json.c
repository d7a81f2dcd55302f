// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf's JSON rows (--json-rows; -j up to 0.2.0): one object per row per
 * interval, the DESIGN.md contract;
 * no begin or end lines, so every line parses on its own.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "common/utf8.h"
#include "engine/aggregate.h"
#include "front/output.h"
#include "front/output_formula.h"
#include "front/output_sched.h"
#include "rapl/energy.h"

/*
 * Rows are written straight to the stream (a DOM per row cost most of
 * emon-perf's own CPU with thousands of cgroups). Strings are escaped per
 * RFC 8259, and bytes that are not UTF-8 (cgroup names and comms are any
 * bytes) become U+FFFD, so every line is valid JSON. "/" is not escaped.
 */


void output__json_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	putc('"', f);
	while (*s) {
		const unsigned char *run = s;
		int n;

		/* the common case: a run of printable ASCII, written at once */
		while (*s >= 0x20 && *s < 0x7f && *s != '"' && *s != '\\')
			s++;
		if (s > run)
			fwrite(run, 1, s - run, f);
		if (!*s)
			break;
		n = utf8_len(s);

		if (!n) {
			fputs("\\ufffd", f);
			s++;
			continue;
		}
		if (n > 1) {
			fwrite(s, 1, n, f);
			s += n;
			continue;
		}
		switch (*s) {
		case '"':  fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		default:
			if (*s < 0x20 || *s == 0x7f)
				fprintf(f, "\\u%04x", *s);
			else
				putc(*s, f);
		}
		s++;
	}
	putc('"', f);
}

/* A string, or null. */
static void json__string(FILE *f, const char *s)
{
	if (s)
		output__json_string(f, s);
	else
		fputs("null", f);
}

/*
 * A float that parses back as one ("1.0", not "1"), or null: NAN and
 * infinities are not JSON.
 */
static void json__double(FILE *f, double v, int prec)
{
	char buf[64];

	if (!isfinite(v)) {
		fputs("null", f);
		return;
	}
	if (v == 1.0) {		/* every unscaled count's ratio */
		fputs("1.0", f);
		return;
	}
	snprintf(buf, sizeof(buf), "%.*g", prec, v);
	fputs(buf, f);
	if (!strpbrk(buf, ".e"))
		fputs(".0", f);
}

static void json__u64(FILE *f, __u64 v)
{
	char buf[24], *p = buf + sizeof(buf);

	*--p = '\0';
	do {
		*--p = '0' + v % 10;
		v /= 10;
	} while (v);
	fputs(p, f);
}

/* Numbers for cpu, socket, process, thread and command (pid) keys, strings
 * otherwise. */
static void json__key(FILE *f, const struct row *r)
{
	long long v;
	char *end;

	if (r->scope == SCOPE_SYSTEM) {
		fputs("\"all\"", f);
		return;
	}
	if (r->key && (r->scope == SCOPE_CPU || r->scope == SCOPE_SOCKET ||
		       r->scope == SCOPE_PROCESS || r->scope == SCOPE_COMMAND ||
		       r->scope == SCOPE_THREAD)) {
		errno = 0;
		v = strtoll(r->key, &end, 10);
		if (*r->key && !*end && !errno) {
			fprintf(f, "%lld", v);
			return;
		}
	}
	json__string(f, r->key);
}

static void json__counters(const struct output *o, const struct row *r, FILE *f)
{
	struct row_value v[EMON_MAX_EVENTS];
	int n = o->nr_events < EMON_MAX_EVENTS ? o->nr_events : EMON_MAX_EVENTS;
	int i;

	fputs(",\"counters\":{", f);
	for (i = 0; i < n; i++) {
		row__value(o, r, i, &v[i]);
		if (i)
			putc(',', f);
		json__string(f, o->ev[i].name ? o->ev[i].name : "?");
		putc(':', f);
		if (v[i].state == VALUE_COUNTED)
			json__u64(f, v[i].count);
		else
			fputs("null", f);
	}
	putc('}', f);
	/* the share of its enabled time each event ran: only for a row in
	 * which one ran part of it (multiplexed, not counted); absent, every
	 * counted event ran all of it (1.0), as software events always do */
	for (i = 0; i < n; i++)
		if (v[i].state != VALUE_NOT_SUPPORTED && v[i].ratio != 1.0)
			break;
	if (i == n)
		return;
	fputs(",\"ratio\":{", f);
	for (i = 0; i < n; i++) {
		if (i)
			putc(',', f);
		json__string(f, o->ev[i].name ? o->ev[i].name : "?");
		putc(':', f);
		json__double(f, v[i].ratio, 6);
	}
	putc('}', f);
}

static void json__energy(const struct output *o, const struct row *r, FILE *f)
{
	struct row_metrics m;

	row__metrics(o, r, &m);
	fputs(",\"energy_j\":", f);
	json__double(f, r->energy_j, 10);
	fputs(",\"power_w\":", f);
	json__double(f, r->power_w, 10);
	fputs(",\"epi_nj\":", f);
	json__double(f, m.epi_nj, 6);
	fputs(",\"ipc\":", f);
	json__double(f, m.ipc, 6);
	if (r->zone_mask) {	/* a socket's measured sub-zones */
		bool first = true;

		fputs(",\"zones_j\":{", f);
		for (int i = 0; i < 4; i++) {
			if (!(r->zone_mask & (1u << i)))
				continue;
			if (!first)
				putc(',', f);
			first = false;
			json__string(f, row_zone_names[i]);
			putc(':', f);
			json__double(f, r->zone_j[i], 10);
		}
		putc('}', f);
	}
}

/* --gpu: the row's part of the GPUs' energy and SM time; the system row
 * each GPU's (null: no valid read in the interval) */
static void json__gpu(const struct row *r, FILE *f)
{
	fputs(",\"gpu_energy_j\":", f);
	json__double(f, r->gpu_energy_j, 10);
	fputs(",\"gpu_util\":", f);
	json__double(f, r->gpu_util, 6);
	if (!r->gpus)
		return;
	fputs(",\"gpus\":[", f);
	for (int i = 0; i < r->nr_gpus; i++) {
		const struct agg_gpu *g = &r->gpus[i];
		bool v = g->valid;

		fprintf(f, "%s{\"gpu\":%d,\"name\":", i ? "," : "", i);
		json__string(f, g->name);
		fputs(",\"energy_j\":", f);
		json__double(f, v ? g->energy_j : NAN, 10);
		fputs(",\"idle_j\":", f);
		json__double(f, v ? g->idle_j : NAN, 10);
		fputs(",\"util\":", f);
		json__double(f, v ? g->util : NAN, 6);
		fprintf(f, ",\"lost\":%s}", g->lost ? "true" : "false");
	}
	putc(']', f);
}

/* "sched": the issue-12 names; the histogram as [upper bound, count]
 * pairs up to its last non-empty bucket, runqlat's bounds */
static void json__sched(const struct output *o, const struct row *r, FILE *f)
{
	const struct emon_sched *s = &r->counts.s;
	int last = sched_hist__last(s);

	fputs(",\"sched\":{", f);
	for (int i = 0; i < SCHED_NR_FIELDS; i++) {
		fprintf(f, "%s\"%s\":", i ? "," : "", sched_fields[i].name);
		json__u64(f, sched_field__get(s, i));
	}
	fprintf(f, ",\"runq_latency_%s\":[", o->sched_ms ? "ms" : "us");
	for (int i = 0; i <= last; i++) {
		fputs(i ? ",[" : "[", f);
		json__u64(f, sched_hist__upper(i));
		putc(',', f);
		json__u64(f, s->hist[i]);
		putc(']', f);
	}
	putc(']', f);
	/* a process that ended in this interval: its final row */
	if (r->scope == SCOPE_PROCESS && s->exit_life_ns) {
		fputs(",\"exit\":{\"lifetime_ns\":", f);
		json__u64(f, s->exit_life_ns);
		fputs(",\"exit_code\":", f);
		json__u64(f, (s->exit_code >> 8) & 0xff);
		fputs(",\"signal\":", f);
		json__u64(f, s->exit_code & 0x7f);
		putc('}', f);
	}
	putc('}', f);
}

/* A container's runtime, pod uid (under Kubernetes) and names (null where
 * the runtime's files did not say; cAdvisor's label names). */
static void json__container(FILE *f, const struct row *r)
{
	const struct {
		const char *key, *val;
		bool always;
	} fields[] = {
		{ "runtime", r->runtime, true },
		{ "pod_uid", r->pod_uid, false },
		{ "name", r->name, true },
		{ "image", r->image, true },
		{ "namespace", r->ns, true },
		{ "pod", r->pod, true },
		{ "container", r->container, true },
	};

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (!fields[i].val && !fields[i].always)
			continue;
		fprintf(f, ",\"%s\":", fields[i].key);
		json__string(f, fields[i].val);
	}
}

/* A pod's namespace, name and uid (each null where unknown: a pod known by
 * its uid only, or "host"); a namespace's name. */
static void json__pod(FILE *f, const struct row *r)
{
	fputs(",\"namespace\":", f);
	json__string(f, r->ns);
	if (r->scope != SCOPE_POD)
		return;
	fputs(",\"pod\":", f);
	json__string(f, r->pod);
	fputs(",\"pod_uid\":", f);
	json__string(f, r->pod_uid);
}

/* -M: "metrics":{NAME:VALUE}, null where not supported or not counted */
static void json__metrics(const struct output *o, const struct row *r,
			  double dt, FILE *f)
{
	struct formula_value v;

	fputs(",\"metrics\":{", f);
	for (int k = 0; k < o->nr_metrics; k++) {
		row__metric(o, r, dt, o->metrics[k], &v);
		if (k)
			putc(',', f);
		json__string(f, o->metrics[k]->name);
		putc(':', f);
		json__double(f, v.value, 6);
	}
	putc('}', f);
}

/* head: '{"interval":T,"scope":', the same for every row of an interval */
static void json__row(const struct output *o, const char *head,
		      const struct row *r, double dt)
{
	FILE *f = o->f;

	fputs(head, f);
	json__string(f, scope__name(r->scope));
	fputs(",\"key\":", f);
	json__key(f, r);
	if (r->scope == SCOPE_THREAD && r->pid)	/* its process, when known */
		fprintf(f, ",\"pid\":%u", r->pid);
	else if (r->scope == SCOPE_THREAD)
		fputs(",\"pid\":null", f);
	if (r->scope == SCOPE_PROCESS || r->scope == SCOPE_THREAD) {
		fputs(",\"comm\":", f);
		json__string(f, r->comm);
	}
	if (r->scope == SCOPE_CONTAINER)
		json__container(f, r);
	if (r->scope == SCOPE_POD || r->scope == SCOPE_NAMESPACE)
		json__pod(f, r);
	json__counters(o, r, f);
	if (o->nr_metrics)
		json__metrics(o, r, dt, f);
	if (o->sched)
		json__sched(o, r, f);
	if (r->has_energy)
		json__energy(o, r, f);
	if (r->has_gpu)
		json__gpu(r, f);
	/* the system row names the source; with the model every row with
	 * energy does, so no estimate is ever mistaken for a measurement */
	if (o->energy_source && (r->scope == SCOPE_SYSTEM ||
				 (o->energy_estimated && r->has_energy))) {
		fputs(",\"energy_source\":", f);
		json__string(f, o->energy_source);
		fputs(",\"split_by\":", f);
		json__string(f, o->split_by);
		/* where its joules were measured (rapl/energy.h's scopes) */
		if (energy_source__scopes_of(o->energy_source)) {
			fputs(",\"energy_scope\":", f);
			json__string(f, energy_source__scopes_of(o->energy_source));
		}
	}
	/* only on kernels that keep tasks out of tracepoints (docs/stat.md) */
	if (r->untraced_ns) {
		fputs(",\"untraced_ns\":", f);
		json__u64(f, r->untraced_ns);
	}
	fputs("}\n", f);
}

static void json__begin(struct output *o)
{
	(void)o;
}

static void json__interval(struct output *o, double t, double dt,
			   const struct row *rows, int n)
{
	char head[64];

	snprintf(head, sizeof(head), "{\"interval\":%.6f,\"scope\":", t);
	for (int k = 0; k < n; k++) {
		json__row(o, head, &rows[k], dt);
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
