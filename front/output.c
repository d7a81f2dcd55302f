// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the three formats share: one event's value as shown (scaled, or not
 * counted, or not supported) and the derived metrics, so that text, CSV
 * and JSON print the same numbers from the same rows. The formats live in
 * output_text.c, output_csv.c and output_json.c.
 */
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "front/output.h"
#include "common/utf8.h"

const char *output__locale_thousands_sep(void)
{
	static char sep[8];
	static bool known;
	locale_t loc;

	if (known)
		return sep;
	known = true;
	loc = newlocale(LC_NUMERIC_MASK, "", (locale_t)0);
	if (!loc)
		return sep;
	snprintf(sep, sizeof(sep), "%s", nl_langinfo_l(THOUSEP, loc));
	if (strlen(sep) == sizeof(sep) - 1)
		sep[0] = '\0';		/* cut: none rather than half of one */
	freelocale(loc);
	return sep;
}

int output__event_index(const struct output *o, const char *name)
{
	int i;

	if (!name)
		return -1;
	for (i = 0; i < o->nr_events && i < EMON_MAX_EVENTS; i++) {
		if (o->ev[i].name && !strcmp(o->ev[i].name, name))
			return i;
	}
	return -1;
}

/* name is base, or base with perf/libpfm4 modifiers ("cycles:u"). */
static bool event_name__is(const char *name, const char *base)
{
	size_t len = strlen(base);

	return !strncmp(name, base, len) &&
	       (name[len] == '\0' || name[len] == ':');
}

static int output__find(const struct output *o, const char *base,
			const char *alias)
{
	int i;

	for (i = 0; i < o->nr_events && i < EMON_MAX_EVENTS; i++) {
		const char *name = o->ev[i].name;

		if (!name || !o->ev[i].supported)
			continue;
		if (event_name__is(name, base) ||
		    (alias && event_name__is(name, alias)))
			return i;
	}
	return -1;
}

int output__cycles_index(const struct output *o)
{
	return output__find(o, "cycles", "cpu-cycles");
}

int output__instructions_index(const struct output *o)
{
	return output__find(o, "instructions", NULL);
}

int output__time_index(const struct output *o)
{
	int i;

	for (i = 0; i < o->nr_events && i < EMON_MAX_EVENTS; i++) {
		if (o->ev[i].supported && o->ev[i].is_time)
			return i;
	}
	return -1;
}

static int output_ord__cmp(const void *a, const void *b)
{
	const struct output_ord *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? 1 : -1;
	return x->r < y->r ? -1 : x->r > y->r;	/* ties: the rows' own order */
}

void output__by_count(const struct output *o, const struct row *rows, int nr,
		      int i, bool not_run_last, struct output_ord *ord)
{
	for (int k = 0; k < nr; k++) {
		struct row_value v;

		row__value(o, &rows[k], i, &v);
		ord[k].r = &rows[k];
		ord[k].v = v.state == VALUE_COUNTED &&
			   !(not_run_last && rows[k].not_run) ? v.value : -1;
	}
	qsort(ord, nr, sizeof(*ord), output_ord__cmp);
}

void row__value(const struct output *o, const struct row *r, int i,
		struct row_value *v)
{
	const struct emon_count *c;
	struct emon_count group_c;
	int idx = -1;

	if (i >= 0 && i < o->nr_events && i < EMON_MAX_EVENTS &&
	    o->ev[i].supported)
		idx = o->ev[i].bpf_idx;
	if (idx < 0 || idx >= EMON_MAX_EVENTS) {
		v->state = VALUE_NOT_SUPPORTED;
		v->value = NAN;
		v->count = 0;
		v->ratio = NAN;
		return;
	}
	c = &r->counts.c[idx];
	if (o->ev[i].grouped && o->ev[i].lead_idx >= 0 &&
	    o->ev[i].lead_idx < EMON_MAX_EVENTS) {
		const struct emon_count *lead = &r->counts.c[o->ev[i].lead_idx];

		/* the kernel schedules a group whole: the leader's times,
		 * and its unrun slices, are every member's */
		group_c = (struct emon_count){ c->counter, lead->enabled,
					       lead->running, lead->unrun };
		c = &group_c;
	}
	v->state = count__scaled(c, &v->value, &v->ratio) && !r->not_run ?
		   VALUE_COUNTED : VALUE_NOT_COUNTED;
	count__scaled_u64(c, &v->count);
	if (v->state != VALUE_COUNTED)
		v->value = NAN;
}

/* Scaled value of event i, NAN when absent, unsupported or not counted. */
static double row__scaled(const struct output *o, const struct row *r, int i)
{
	struct row_value v;

	if (i < 0)
		return NAN;
	row__value(o, r, i, &v);
	return v.value;
}

void row__metrics(const struct output *o, const struct row *r,
		  struct row_metrics *m)
{
	double ins = row__scaled(o, r, output__instructions_index(o));
	double cyc = row__scaled(o, r, output__cycles_index(o));

	m->ipc = metric__ratio(ins, cyc);
	m->epi_nj = r->has_energy ? metric__ratio(r->energy_j * 1e9, ins) : NAN;
}

/* 12345.0 -> 12.345 and 'K', as perf's convert_unit_double(). */
static double rate__scale(double v, char *unit)
{
	*unit = ' ';
	if (v > 1e9) {
		*unit = 'G';
		return v / 1e9;
	}
	if (v > 1e6) {
		*unit = 'M';
		return v / 1e6;
	}
	if (v > 1e3) {
		*unit = 'K';
		return v / 1e3;
	}
	return v;
}

void row_values__init(struct row_values *rv, const struct output *o,
		      const struct row *r)
{
	for (int i = 0; i < o->nr_events && i < EMON_MAX_EVENTS; i++)
		row__value(o, r, i, &rv->v[i]);
	rv->time_idx = output__time_index(o);
	rv->cycles_idx = output__cycles_index(o);
	rv->ins_idx = output__instructions_index(o);
}

/* perf -G's pairs: events i and j are in one cgroup (or both in none),
 * as perf's metrics need (its shadow counts are kept per cgroup) */
static bool paired__same(const struct output *o, int i, int j)
{
	const char *a = o->ev_cgroup[i], *b = o->ev_cgroup[j];

	return !o->cg_paired || a == b || (a && b && !strcmp(a, b));
}

bool row_values__metric_value(const struct row_values *rv,
			      const struct output *o, int i, double dt,
			      double *m, char *unit, size_t usize)
{
	const struct row_value *v = &rv->v[i];
	double time = NAN;
	char prefix;

	if (v->state != VALUE_COUNTED)
		return false;
	if (rv->time_idx >= 0 && paired__same(o, i, rv->time_idx))
		time = rv->v[rv->time_idx].value;	/* NAN: not counted */
	if (o->ev[i].is_time) {
		*m = dt > 0 ? v->value / (dt * 1e9) : NAN;
		snprintf(unit, usize, "CPUs utilized");
	} else if (i == rv->ins_idx && rv->cycles_idx >= 0 &&
		   paired__same(o, i, rv->cycles_idx) &&
		   rv->v[rv->cycles_idx].state == VALUE_COUNTED) {
		*m = metric__ratio(v->value, rv->v[rv->cycles_idx].value);
		snprintf(unit, usize, "insn per cycle");
	} else if (isnan(time)) {
		return false;
	} else if (i == rv->cycles_idx) {
		*m = time > 0 ? v->value / time : 0;
		snprintf(unit, usize, "GHz");
	} else {
		*m = rate__scale(time > 0 ? 1e9 * v->value / time : 0, &prefix);
		if (prefix == ' ')
			snprintf(unit, usize, "/sec");
		else
			snprintf(unit, usize, "%c/sec", prefix);
	}
	return !isnan(*m);
}

bool row_values__metric(const struct row_values *rv, const struct output *o,
			int i, double dt, char *val, size_t size, char *unit,
			size_t usize)
{
	double m;

	if (!row_values__metric_value(rv, o, i, dt, &m, unit, usize))
		return false;
	/* IPC: perf's "%7.2f " */
	snprintf(val, size, strcmp(unit, "insn per cycle") ? "%8.3f" : "%7.2f ", m);
	return true;
}

const char *row__cont_label(const struct row *r, char *buf, size_t size)
{
	if (r->scope != SCOPE_CONTAINER || !size)
		return NULL;
	if (r->pod)
		snprintf(buf, size, "%s/%s%s%s", r->ns ? r->ns : "?", r->pod,
			 r->container ? "/" : "", r->container ? r->container : "");
	else if (r->name)
		snprintf(buf, size, "%s", r->name);
	else
		return NULL;
	utf8_mask_controls(buf);
	return buf;
}

static void none__begin(struct output *o)
{
	(void)o;
}

static void none__interval(struct output *o, double t, double dt,
			   const struct row *rows, int n)
{
	(void)o, (void)t, (void)dt, (void)rows, (void)n;
}

static void none__end(struct output *o, double elapsed)
{
	(void)o, (void)elapsed;
}

const struct output_ops output_none_ops = {
	.name		= "none",
	.begin		= none__begin,
	.interval	= none__interval,
	.end		= none__end,
};

char *output__escape(char *s, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p;
	unsigned char *src;
	size_t j = 0;

	for (p = (const unsigned char *)s; *p && !utf8_control_len(p); p += utf8_step(p))
		;
	if (!*p || !size)
		return s;
	src = (unsigned char *)strdup(s);
	if (!src) {
		utf8_mask_controls(s);	/* no memory: '?' in place */
		return s;
	}
	for (p = src; *p;) {
		int n = utf8_control_len(p), step = utf8_step(p);

		/* cut to fit: whole escapes and characters, never half */
		if (j + (n ? 4 * n : step) >= size)
			break;
		for (; n; n--, p++, step--) {
			s[j++] = '\\';
			s[j++] = 'x';
			s[j++] = hex[*p >> 4];
			s[j++] = hex[*p & 15];
		}
		for (; step > 0; step--)
			s[j++] = *p++;
	}
	s[j] = '\0';
	free(src);
	return s;
}

const char *output__cgroup_name(const struct output *o, const char *key)
{
	for (int i = 0; key && i < o->nr_cg; i++)
		if (o->cg_names[i] && !strcmp(o->cg_keys[i], key))
			return o->cg_names[i];
	return key;
}

/* Where event i prints with perf -G's pairs: rows [*start, *start + *nr) */
static void paired__rows(const struct output *o, const struct row *rows,
			 int n, int i, int *start, int *nr)
{
	const char *cg = o->ev_cgroup[i];
	int k;

	*start = *nr = 0;
	for (k = 0; k < n; k++) {
		bool is_cg = rows[k].scope == SCOPE_CGROUP;

		if (cg ? is_cg && rows[k].key && !strcmp(rows[k].key, cg) : !is_cg)
			break;
	}
	if (k == n)
		return;
	*start = k;
	if (cg)
		*nr = 1;
	else
		while (k + *nr < n && rows[k + *nr].scope != SCOPE_CGROUP)
			(*nr)++;
}

void output__rows(struct output *o, double t, double dt,
		  const struct row *rows, int n, output_rows_fn rows_fn)
{
	int nev = o->nr_events < EMON_MAX_EVENTS ? o->nr_events : EMON_MAX_EVENTS;

	if (!o->cg_paired) {
		rows_fn(o, t, dt, rows, n);
		return;
	}

	for (int i = 0, j; i < nev; i = j) {
		unsigned int mask = 0;
		bool later = false;
		int s, c, s2, c2;

		paired__rows(o, rows, n, i, &s, &c);
		for (j = i; j < nev; j++) {
			paired__rows(o, rows, n, j, &s2, &c2);
			if (s2 != s || c2 != c)
				break;
			mask |= 1u << j;
		}
		for (int k = j; k < nev && !later; k++) {
			paired__rows(o, rows, n, k, &s2, &c2);
			later = s2 == s && c2 == c;
		}
		if (!c)
			continue;
		o->ev_hide = ~mask;
		o->no_extras = later;
		rows_fn(o, t, dt, rows + s, c);
	}
	o->ev_hide = 0;
	o->no_extras = false;
}
