// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * perf-stat-like text, column for column what perf 6.1 prints:
 *
 *  [TIME ][AGGR ]COUNT UNIT EVENT [KEY] [# METRIC UNIT] [(XX.XX% running)]
 *
 * AGGR is perf's aggregation as its aggr_printout() prints it: CPU0
 * (-A, event by event on every CPU), S0 and its CPUs, S0-D0, S0-D0-C1,
 * N0, COMM-TID (--per-thread);
 * TIME is "%16.9f " with -I only, COUNT is right-aligned in 18 with
 * the locale's thousands separators, as perf's %' (time events in msec,
 * 2 decimals), UNIT is "msec"
 * or blank in 4, EVENT is left-aligned in 32, KEY (emon-perf's own rows:
 * a cgroup path, "ID [NAME] (runtime)", "pid 1234 (comm)") follows
 * the name as perf -G prints the cgroup, and the metric comment is padded
 * to 35 so that the running percentage lines up. Unlike perf, no trailing
 * blanks.
 */
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include "front/output.h"
#include "front/output_formula.h"
#include "front/output_sched.h"
#include "rapl/energy.h"

#define COUNTS_LEN	18
#define UNIT_LEN	4
#define EVNAME_LEN	32
#define FORMULA_LEN	35
#define KEY_LEN		16	/* the key column's least width */
#define KEY_MAX_LEN	48	/* and most: longer keys push the comment out */
#define LINE_LEN	8192

struct line {
	size_t len;
	char buf[LINE_LEN];
};

static void line__printf(struct line *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void line__printf(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->len, sizeof(l->buf) - l->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len += n;
	if (l->len >= sizeof(l->buf))
		l->len = sizeof(l->buf) - 1;
}

/* perf pads every column to the end of the line; drop the trailing blanks. */
static void line__flush(struct line *l, FILE *f)
{
	while (l->len && l->buf[l->len - 1] == ' ')
		l->len--;
	l->buf[l->len] = '\0';
	fprintf(f, "%s\n", l->buf);
	l->len = 0;
}

/*
 * "1234567.50" -> "1,234,567.50". Grouped by hand rather than with "%'":
 * printf groups only under a locale that says so, and the output must not
 * change with the environment it runs in.
 */
/* the print's thousands separator (output's thousands_sep), "": none */
static const char *thousands_sep = ",";
/* the key column of this print: its width, and whether any row has a key */
static int key_width;
static bool key_shown;

static void num__group(char *dst, size_t size, const char *num)
{
	size_t int_len, i, o = 0, seplen = strlen(thousands_sep);

	if (*num == '-' && size > 1) {
		dst[o++] = '-';
		num++;
	}
	int_len = strspn(num, "0123456789");
	for (i = 0; i < int_len && o + seplen + 2 < size; i++) {
		if (i && (int_len - i) % 3 == 0) {
			memcpy(dst + o, thousands_sep, seplen);
			o += seplen;
		}
		dst[o++] = num[i];
	}
	snprintf(dst + o, size - o, "%s", num + int_len);
}

static void num__put(char *dst, size_t size, const char *num)
{
	size_t n = strlen(num);

	if (*thousands_sep) {
		num__group(dst, size, num);
		return;
	}
	if (n >= size)
		n = size - 1;
	memcpy(dst, num, n);
	dst[n] = '\0';
}

static void num__fmt_u64(char *dst, size_t size, __u64 v)
{
	char tmp[32];

	snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v);
	num__put(dst, size, tmp);
}

static void num__fmt_fixed(char *dst, size_t size, double v, int prec)
{
	char tmp[400];	/* "%.2f" of DBL_MAX is 312 characters */

	snprintf(tmp, sizeof(tmp), "%.*f", prec, v);
	num__put(dst, size, tmp);
}

/* One row being printed, with what its lines share. */
struct text_row {
	struct output *o;
	const struct row *r;
	double dt;
	char prefix[128];	/* "%16.9f " with -I, then aggr */
	char aggr[64];		/* perf's aggregation field (CPU0, S0 2...) */
	char key[4096];
	int key_width;		/* the widest key of this print, capped */
	struct row_values rv;
};

static bool str__is_number(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

static void text_row__key(struct text_row *tr)
{
	const struct row *r = tr->r;
	const char *key = r->key ? r->key : "?";
	size_t size = sizeof(tr->key);
	char *buf = tr->key;

	tr->aggr[0] = buf[0] = '\0';
	/* perf's aggregations lead the line, as perf's aggr_printout() */
	switch (r->scope) {
	case SCOPE_CPU:
		snprintf(tr->aggr, sizeof(tr->aggr), "CPU%-7s ", key);
		return;
	case SCOPE_SOCKET:
	case SCOPE_NODE:
		snprintf(tr->aggr, sizeof(tr->aggr), "%s%-5s %4d ",
			 r->scope == SCOPE_NODE ? "N" : "S", key, r->nr_cpus);
		return;
	case SCOPE_DIE:
	case SCOPE_CORE:	/* S0-D0 / S0-D0-C1: the last id padded to 8 */
		snprintf(tr->aggr, sizeof(tr->aggr), "%-*s %4d ",
			 (int)(strrchr(key, '-') ? strrchr(key, '-') - key + 2 : 0) + 8,
			 key, r->nr_cpus);
		return;
	case SCOPE_THREAD:	/* perf --per-thread's comm-tid */
		snprintf(tr->aggr, sizeof(tr->aggr), "%16s-%-8s ", r->comm ? r->comm : "", key);
		output__escape(tr->aggr, sizeof(tr->aggr));
		return;
	default:
		break;
	}
	switch (r->scope) {
	case SCOPE_SYSTEM:
	case SCOPE_COMMAND:	/* like perf stat CMD: the target line names it */
		buf[0] = '\0';
		break;
	case SCOPE_PROCESS:
		snprintf(buf, size, "%s%s%s%s%s", str__is_number(key) ?
			 "pid " : "", key, r->comm ? " (" : "",
			 r->comm ? r->comm : "", r->comm ? ")" : "");
		break;
	case SCOPE_CONTAINER: {
		/* 12 digits of a 64-hex id, as docker ps shows them; JSON and
		 * CSV keep the whole id */
		int len = strlen(key) == 64 && strspn(key, "0123456789abcdef") == 64 ?
			  12 : (int)strlen(key);
		const char *rt = r->runtime && strcmp(r->runtime, key) ? r->runtime : NULL;
		char lb[1024];
		const char *label = row__cont_label(r, lb, sizeof(lb));
		int n = snprintf(buf, size, "%.*s%s%s", len, key, label ? " " : "",
				 label ? label : "");

		if (n < 0 || (size_t)n >= size)
			break;
		if (rt && r->pod_uid)
			snprintf(buf + n, size - n, " (%s, pod %s)", rt, r->pod_uid);
		else if (rt)
			snprintf(buf + n, size - n, " (%s)", rt);
		break;
	}
	case SCOPE_CGROUP:	/* a -G name as given, as perf's */
		snprintf(buf, size, "%s", output__cgroup_name(tr->o, key));
		break;
	default:
		snprintf(buf, size, "%s", key);
		break;
	}
	output__escape(buf, size);
}

static void text_row__init(struct text_row *tr, struct output *o,
			   const struct row *r, double t, double dt)
{

	tr->o = o;
	tr->r = r;
	tr->dt = dt;
	tr->prefix[0] = '\0';
	text_row__key(tr);
	if (o->interval_mode)
		snprintf(tr->prefix, sizeof(tr->prefix), "%16.9f %s", t, tr->aggr);
	else
		snprintf(tr->prefix, sizeof(tr->prefix), "%s", tr->aggr);
	row_values__init(&tr->rv, o, r);
}

static void text_row__start(const struct text_row *tr, struct line *l,
			    const char *count, const char *unit,
			    const char *name)
{
	line__printf(l, "%s%*s %-*s %-*s", tr->prefix, COUNTS_LEN, count,
		     UNIT_LEN, unit, EVNAME_LEN, name);
	if (tr->key[0])
		line__printf(l, " %-*s", tr->key_width, tr->key);
}

/* perf's " # VALUE UNIT", padded so the running percentage lines up. */
static void line__metric(struct line *l, const char *val, const char *unit)
{
	int pad = FORMULA_LEN - 3 - (int)strlen(val) - 1;

	line__printf(l, " # %s %-*s", val, pad > 0 ? pad : 0, unit);
}

static void text_row__event(const struct text_row *tr, int i)
{
	const struct row_event *ev = &tr->o->ev[i];
	const struct row_value *v = &tr->rv.v[i];
	char count[64], val[64], unit[32];
	const struct formula_def *m;
	struct formula_value mv;
	struct line l;

	l.len = 0;
	if (v->state == VALUE_NOT_SUPPORTED)
		snprintf(count, sizeof(count), "<not supported>");
	else if (v->state == VALUE_NOT_COUNTED)
		snprintf(count, sizeof(count), "<not counted>");
	else if (ev->is_time)
		num__fmt_fixed(count, sizeof(count), v->value / 1e6, 2);
	else
		num__fmt_u64(count, sizeof(count), v->count);
	text_row__start(tr, &l, count, ev->is_time ? "msec" : "",
			ev->name ? ev->name : "?");
	if ((m = output__metric_at(tr->o, i))) {	/* -M's, as perf puts it */
		row__metric(tr->o, tr->r, tr->dt, m, &mv);
		formula_value__format(&mv, 3, unit, sizeof(unit));
		snprintf(val, sizeof(val), "%8s", unit);
		line__metric(&l, val, m->unit);
	} else if (row_values__metric(&tr->rv, tr->o, i, tr->dt, val, sizeof(val),
				      unit, sizeof(unit)))
		line__metric(&l, val, unit);
	else
		line__printf(&l, "%*s", FORMULA_LEN, "");
	/* perf prints no spread of 0 */
	if (tr->r->noise && tr->r->noise[i])
		line__printf(&l, "  ( +-%6.2f%% )", tr->r->noise[i]);
	if (v->state != VALUE_NOT_SUPPORTED && v->ratio < 1.0)
		line__printf(&l, "  (%.2f%%)", v->ratio * 100.0);
	line__flush(&l, tr->o->f);
}

/* A line of joules (<not counted> when unknown) named event, with its
 * metric (NAN: none), not flushed. */
static void text_row__joules(const struct text_row *tr, struct line *l, double j,
			     const char *event, double metric, const char *metric_name)
{
	char count[64], val[64];

	l->len = 0;
	if (isnan(j))
		snprintf(count, sizeof(count), "<not counted>");
	else
		num__fmt_fixed(count, sizeof(count), j, 2);
	text_row__start(tr, l, count, "J", event);
	if (!isnan(metric)) {
		snprintf(val, sizeof(val), "%8.3f", metric);
		line__metric(l, val, metric_name);
	}
}

/* --gpu: the row's part of the GPUs' energy, its SM time as GPUs used. */
static void text_row__gpu(const struct text_row *tr)
{
	struct line l;

	text_row__joules(tr, &l, tr->r->gpu_energy_j, "gpu-energy", tr->r->gpu_util,
			 "GPUs utilized");
	line__flush(&l, tr->o->f);
}

/* Joules with Watts as its metric, then nJ/instr on a metric-only line. */
static void text_row__energy(const struct text_row *tr)
{
	const struct row *r = tr->r;
	struct row_metrics m;
	char count[64], val[64];
	size_t key_len;
	struct line l;

	text_row__joules(tr, &l, r->energy_j, tr->o->energy_estimated ?
			 "energy (estimated)" : "energy", r->power_w, "Watts");
	line__flush(&l, tr->o->f);
	for (int z = 0; z < 4; z++) {	/* a socket's measured sub-zones */
		char name[32];

		if (!(r->zone_mask & (1u << z)))
			continue;
		num__fmt_fixed(count, sizeof(count), r->zone_j[z], 2);
		snprintf(name, sizeof(name), "energy-%s", row_zone_names[z]);
		text_row__start(tr, &l, count, "J", name);
		line__flush(&l, tr->o->f);
	}

	row__metrics(tr->o, r, &m);
	if (isnan(m.epi_nj))
		return;
	line__printf(&l, "%s%*s", tr->prefix,
		     COUNTS_LEN + 1 + UNIT_LEN + 1 + EVNAME_LEN, "");
	if (tr->key[0]) {
		key_len = strlen(tr->key);
		line__printf(&l, "%*s", 1 + (int)(key_len > (size_t)tr->key_width ?
						 key_len : (size_t)tr->key_width), "");
	}
	snprintf(val, sizeof(val), "%8.3f", m.epi_nj);
	line__metric(&l, val, "nJ/instr");
	line__flush(&l, tr->o->f);
}

/*
 * --sched: its fields as event lines (times in msec), then with
 * --sched-hist the run-queue latency histogram as runqlat prints it.
 */
static void text_row__sched(const struct text_row *tr)
{
	const struct emon_sched *s = &tr->r->counts.s;
	char count[64];
	struct line l;

	l.len = 0;
	for (int i = 0; i < SCHED_NR_FIELDS; i++) {
		__u64 v = sched_field__get(s, i);

		if (sched_fields[i].is_time)
			num__fmt_fixed(count, sizeof(count), v / 1e6, 2);
		else
			num__fmt_u64(count, sizeof(count), v);
		text_row__start(tr, &l, count, sched_fields[i].is_time ? "msec" : "",
				sched_fields[i].label);
		line__flush(&l, tr->o->f);
	}
	if (tr->o->sched_hist) {
		fputc('\n', tr->o->f);
		sched_hist__print(tr->o->f, s, tr->o->sched_ms, tr->prefix);
		fputc('\n', tr->o->f);
	}
}

static void text__energy_note(struct output *o, const char *lead)
{
	fprintf(o->f, "%senergy source %s%s", lead, o->energy_source,
		o->energy_estimated ? " (estimated)" : "");
	if (o->split_by)
		fprintf(o->f, ", energy split by %s", o->split_by);
	if (energy_source__scopes_of(o->energy_source))
		fprintf(o->f, " (scope %s)", energy_source__scopes_of(o->energy_source));
	fputc('\n', o->f);
}

/* The -I header labels the key column after the events one. */
static const char *text__key_label(unsigned int scopes)
{
	unsigned int keyed = scopes & ~(1u << SCOPE_SYSTEM | 1u << SCOPE_COMMAND);
	int s;

	if (!keyed)
		return NULL;
	if (keyed & (keyed - 1))
		return "key";
	for (s = 0; !(keyed & (1u << s)); s++)
		;
	return scope__name(s);
}

/* perf's -I header of its aggregations (print_interval()'s), NULL: none */
static const char *text__aggr_header(unsigned int scopes)
{
	switch (scopes & ~(1u << SCOPE_SYSTEM | 1u << SCOPE_COMMAND)) {
	case 1u << SCOPE_CPU:
		return "CPU       ";
	case 1u << SCOPE_SOCKET:
		return "socket cpus";
	case 1u << SCOPE_DIE:
		return "die          cpus";
	case 1u << SCOPE_CORE:
		return "core            cpus";
	case 1u << SCOPE_NODE:
		return "node   cpus";
	case 1u << SCOPE_THREAD:
		return "            comm-pid     ";
	}
	return NULL;
}

static void text__begin(struct output *o)
{
	/* perf -G's pairs: its header names no cgroup column */
	unsigned int scopes = o->scopes & ~(o->cg_paired ? 1u << SCOPE_CGROUP : 0);
	const char *label = text__key_label(scopes);
	const char *aggr = text__aggr_header(scopes);
	struct line l;

	if (!o->interval_mode)
		return;
	if (o->energy_source)
		text__energy_note(o, "# ");
	if (o->metric_only)
		return;		/* each print has its metrics' header */
	l.len = 0;
	if (aggr) {
		line__printf(&l, "#%15s %s %*s %*s events", "time", aggr, COUNTS_LEN,
			     "counts", UNIT_LEN, "unit");
		line__flush(&l, o->f);
		return;
	}
	line__printf(&l, "#%15s %*s %*s %-*s", "time", COUNTS_LEN, "counts",
		     UNIT_LEN, "unit", EVNAME_LEN, "events");
	if (label)
		line__printf(&l, " %s", label);
	line__flush(&l, o->f);
}

/*
 * perf -A prints event by event, each on every CPU (its text as its
 * CSV); then each CPU row's extras. CPU rows come in one run
 * (front/row_build.c). Returns how many rows it printed.
 */
static int text__cpus(struct output *o, double t, double dt,
		      const struct row *rows, int n, int width)
{
	struct text_row tr;
	int k, nr;

	for (nr = 0; nr < n && rows[nr].scope == SCOPE_CPU; nr++)
		;
	for (int i = 0; i < o->nr_events && i < EMON_MAX_EVENTS; i++)
		for (k = 0; output__shows(o, i) && k < nr; k++) {
			text_row__init(&tr, o, &rows[k], t, dt);
			tr.key_width = width;
			text_row__event(&tr, i);
		}
	for (k = 0; k < nr; k++) {
		text_row__init(&tr, o, &rows[k], t, dt);
		tr.key_width = width;
		if (o->sched && !o->no_extras)
			text_row__sched(&tr);
		if (rows[k].has_energy && !o->no_extras)
			text_row__energy(&tr);
		o->rows_printed++;
	}
	return nr;
}

/* The rows' lines, their keys as wide as key_width (the whole print's) */
static void text__rows(struct output *o, double t, double dt,
		       const struct row *rows, int n)
{
	struct text_row tr;
	int k, i, width = key_width;
	bool keyed = key_shown;

	for (k = 0; k < n; k++) {
		if (rows[k].scope == SCOPE_CPU && !o->metric_only) {
			k += text__cpus(o, t, dt, &rows[k], n - k, width) - 1;
			continue;
		}
		text_row__init(&tr, o, &rows[k], t, dt);
		tr.key_width = width;
		if (o->metric_only) {	/* perf's table: units over values */
			if (!k)
				output_formula__text_header(o, tr.prefix,
							   keyed ? width : 0);
			output_formula__text_row(o, tr.prefix, tr.key,
						keyed ? width : 0, &rows[k], dt);
			o->rows_printed++;
			continue;
		}
		for (i = 0; i < o->nr_events && i < EMON_MAX_EVENTS; i++)
			if (output__shows(o, i) &&
			    (o->ev[i].supported || !o->unsup_once ||
			     !(SCOPES_OWN & (1u << rows[k].scope))))
				text_row__event(&tr, i);
		if (o->no_extras)
			continue;
		if (o->sched)
			text_row__sched(&tr);
		if (rows[k].has_energy)
			text_row__energy(&tr);
		if (rows[k].has_gpu)
			text_row__gpu(&tr);
		o->rows_printed++;
	}
}

static void text__interval(struct output *o, double t, double dt,
			   const struct row *rows, int n)
{
	struct text_row tr = { .o = o };
	int k, width = KEY_LEN;
	bool keyed = false;

	thousands_sep = o->thousands_sep ? o->thousands_sep : ",";
	if (!o->interval_mode)
		fprintf(o->f, "\n Performance counter stats for %s'%s'",
			o->target_what ? o->target_what : "",
			o->target ? o->target : "system wide");
	if (!o->interval_mode && o->runs > 1)
		fprintf(o->f, " (%d runs)", o->runs);
	if (!o->interval_mode)
		fprintf(o->f, ":\n\n");
	/* one key column for the whole print, as wide as its widest key */
	for (k = 0; k < n; k++) {
		tr.r = &rows[k];
		text_row__key(&tr);
		keyed |= tr.key[0] != '\0';
		if ((int)strlen(tr.key) > width)
			width = strlen(tr.key);
	}
	if (width > KEY_MAX_LEN)
		width = KEY_MAX_LEN;
	key_width = width;
	key_shown = keyed;
	output__rows(o, t, dt, rows, n, text__rows);
}

static void text__end(struct output *o, double elapsed)
{
	if (o->interval_mode)
		return;
	if (o->energy_source)
		text__energy_note(o, "\n ");
	if (o->runs > 1) {
		/* perf: at most 2 more significant digits than the spread */
		double sd = o->elapsed_sd;
		int prec = (sd > 1 ? 0 : (int)lround(ceil(-log10(sd)))) + 2;

		fprintf(o->f, "\n %17.*f +- %.*f seconds time elapsed", prec,
			elapsed, prec, sd);
		if (elapsed && sd)
			fprintf(o->f, "  ( +-%6.2f%% )", 100.0 * sd / elapsed);
		fprintf(o->f, "\n\n");
		return;
	}
	/* perf: -n prints no blank line before it; a command's times after
	 * it, and two more blank lines */
	fprintf(o->f, "%s %17.9f seconds time elapsed\n\n", o->null_run ? "" : "\n",
		elapsed);
	if (o->ru_display)
		fprintf(o->f, " %17.9f seconds user\n %17.9f seconds sys\n\n\n",
			o->ru_user, o->ru_sys);
}

const struct output_ops output_text_ops = {
	.name		= "text",
	.begin		= text__begin,
	.interval	= text__interval,
	.end		= text__end,
};
