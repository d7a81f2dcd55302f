// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * perf's JSON (-j, --json-output): perf stat -j's lines, key for key and
 * in its order, as perf 6.1 prints them (tools/perf/util/stat-display.c),
 * so that a script written for perf's JSON reads emon-perf's. One object
 * per line, one line per row per event:
 *
 *   {["interval" : T, ][AGGR, ]"counter-value" : "V", "unit" : "U",
 *    "event" : "E", ["cgroup" : "G", ]["variance" : P, ]
 *    "event-runtime" : RUN, "pcnt-running" : PCT,
 *    "metric-value" : M, "metric-unit" : "MU"}
 *
 * interval       with -I only: seconds since the start at the interval's
 *                end, "%.9f"
 * AGGR           -A: "cpu" : "3"; --per-socket: "socket" : "S0",
 *                "aggregate-number" : NR; --per-die: "die" : "S0-D0", and
 *                NR; --per-core: "core" : "S0-D0-C1", and NR (NR: the CPUs
 *                in the row); --per-thread: "thread" : "COMM-TID". System
 *                and command rows have none (perf stat -a, perf stat CMD)
 * counter-value  a string: the count scaled by enabled/running, "%f" (time
 *                events in msec), or "<not counted>" / "<not supported>"
 * unit           "msec" for time events, else ""
 * cgroup         in every line of a run with -G (perf's -G and
 *                --for-each-cgroup): the row's cgroup, "" on a row of none
 * variance       -r N (N > 1) only: perf's spread, 100 * the standard
 *                deviation of the mean / the mean, "%.2f"
 * event-runtime  ns the event ran (0 when not counted or not supported)
 * pcnt-running   100 * running / enabled, integer division as perf's, "%.2f"
 * metric-value,  perf's shadow metric, "%f": CPUs utilized (with -I, of the
 * metric-unit    -I period, as perf), insn per cycle, GHz, K/sec...;
 *                0.000000 and "" when not counted or not supported, and
 *                0.000000 and "(null)" when a counted event has no metric
 *                (no time event to rate it by): perf prints a NULL unit so
 *
 * As perf, -A and --per-thread print event by event (each event on every
 * CPU, each event's threads by count, the largest first), the other
 * modes row by row; a cgroup that ran nothing in the window is
 * <not counted>, as perf's -G events that never ran are. No line for the
 * elapsed time, no begin or end line.
 *
 * emon-perf's own rows take perf's nearest layout, as -x's do: a process
 * (--by process) is a --per-thread line, "thread" : "COMM-PID"; a
 * container, pod or namespace a -G line with its key in "cgroup". Lines
 * perf has no event for (energy, --sched's fields, -M's metrics) take the
 * event line's keys, with event-runtime 0:
 *
 *   energy  "counter-value" : "JOULES", "unit" : "Joules", "event" :
 *           "energy", ..., "metric-value" : WATTS, "metric-unit" : "Watts"
 *   -M      "counter-value" : "VALUE", "unit" : UNIT, "event" : NAME, ...
 *
 * emon-perf's JSON rows, with names, scopes and the scheduler's
 * histogram, are --json-rows (output_json.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "front/output.h"
#include "front/output_formula.h"
#include "front/output_sched.h"

#define PJ_CGROUP_SCOPES ((1u << SCOPE_CGROUP) | (1u << SCOPE_CONTAINER) | \
			  (1u << SCOPE_POD) | (1u << SCOPE_NAMESPACE))

/* What every line of one row shares: its time and aggregation keys. */
struct pj_line {
	struct output *o;
	const struct row *r;
	double t, dt;
	struct row_values rv;
	bool not_run;		/* a cgroup that ran nothing: <not counted> */
};

static void pj__str(FILE *f, const char *key, const char *val)
{
	fprintf(f, "\"%s\" : ", key);
	output__json_string(f, val ? val : "");
	fputs(", ", f);
}

/* "{", -I's time, perf's aggregation keys */
static void pj__head(const struct pj_line *l)
{
	const struct row *r = l->r;
	FILE *f = l->o->f;
	char buf[1200];

	putc('{', f);
	if (l->o->interval_mode)
		fprintf(f, "\"interval\" : %.9f, ", l->t);
	switch (r->scope) {
	case SCOPE_CPU:
		pj__str(f, "cpu", r->key);
		break;
	case SCOPE_SOCKET:
		snprintf(buf, sizeof(buf), "S%s", r->key ? r->key : "");
		pj__str(f, "socket", buf);
		fprintf(f, "\"aggregate-number\" : %d, ", r->nr_cpus);
		break;
	case SCOPE_DIE:
	case SCOPE_CORE:
		pj__str(f, r->scope == SCOPE_DIE ? "die" : "core", r->key);
		fprintf(f, "\"aggregate-number\" : %d, ", r->nr_cpus);
		break;
	case SCOPE_PROCESS:
	case SCOPE_THREAD:
		snprintf(buf, sizeof(buf), "%s-%s", r->comm ? r->comm : "",
			 r->key ? r->key : "");
		pj__str(f, "thread", buf);
		break;
	default:
		break;
	}
}

/* value, unit and event; then -G's cgroup and -r's variance */
static void pj__event(const struct pj_line *l, const char *value,
		      const char *unit, const char *event, double variance)
{
	const struct row *r = l->r;
	FILE *f = l->o->f;
	char buf[1200];

	pj__str(f, "counter-value", value);
	pj__str(f, "unit", unit);
	pj__str(f, "event", event ? event : "?");
	if (l->o->scopes & PJ_CGROUP_SCOPES) {
		const char *cg = "";
		char label[1024];

		if (r->scope == SCOPE_CONTAINER &&
		    row__cont_label(r, label, sizeof(label))) {
			snprintf(buf, sizeof(buf), "%s %s", r->key, label);
			cg = buf;
		} else if (r->scope == SCOPE_CGROUP) {
			cg = output__cgroup_name(l->o, r->key);
		} else if ((1u << r->scope) & PJ_CGROUP_SCOPES) {
			cg = r->key;
		}
		pj__str(f, "cgroup", cg);
	}
	if (l->o->runs > 1)
		fprintf(f, "\"variance\" : %.2f, ", variance);
}

/* the end of every line: run time, share running, perf's metric */
static void pj__tail(FILE *f, double run, double pct, double m,
		     const char *munit)
{
	fprintf(f, "\"event-runtime\" : %.0f, \"pcnt-running\" : %.2f, ",
		run, pct);
	fprintf(f, "\"metric-value\" : %f, \"metric-unit\" : ", m);
	output__json_string(f, munit);
	fputs("}\n", f);
}

/*
 * perf's event-runtime: the ns the event's perf_events ran. An event
 * counted from the switches themselves has none; it runs whenever its row
 * can: the window on each of a row's CPUs, or the row's own time
 * (cpu-clock) on a cgroup, process or command row, as a perf -G or a perf
 * stat CMD event runs only while its tasks do. -r's rows hold means whose
 * times are not kept: those rules for every event.
 */
static double pj__run(const struct pj_line *l, int i)
{
	const struct output *o = l->o;
	const struct emon_count *c = &l->r->counts.c[o->ev[i].bpf_idx];
	const struct row_values *rv = &l->rv;

	if (o->runs <= 1 && (c->enabled || c->running))
		return c->running;
	if (l->r->nr_cpus)
		return l->dt * 1e9 * l->r->nr_cpus;
	if (rv->time_idx >= 0 && rv->v[rv->time_idx].state == VALUE_COUNTED)
		return rv->v[rv->time_idx].value;
	return 0;
}

static void pj__line(const struct pj_line *l, int i)
{
	const struct output *o = l->o;
	const struct row_event *ev = &o->ev[i];
	const struct row_value *v = &l->rv.v[i];
	double noise = l->r->noise ? l->r->noise[i] : 0, m = 0;
	double tdt = o->interval_mode && o->interval_s > 0 ? o->interval_s : l->dt;
	char value[64], munit[32] = "(null)";
	const char *unit = ev->is_time ? "msec" : "";

	pj__head(l);
	if (v->state == VALUE_NOT_SUPPORTED ||
	    v->state == VALUE_NOT_COUNTED || l->not_run) {
		pj__event(l, v->state == VALUE_NOT_SUPPORTED ? "<not supported>" :
			  "<not counted>", unit, ev->name, 0);
		pj__tail(o->f, 0, 100, 0, "");
		return;
	}
	snprintf(value, sizeof(value), "%f",
		 ev->is_time ? v->value / 1e6 : (double)v->count);
	pj__event(l, value, unit, ev->name, noise);
	if (!row_values__metric_value(&l->rv, o, i, tdt, &m, munit, sizeof(munit))) {
		m = 0;
		/* perf 6.1: instructions always say IPC, 0 without cycles */
		snprintf(munit, sizeof(munit), "%s",
			 i == l->rv.ins_idx ? "insn per cycle" : "(null)");
	}
	pj__tail(o->f, pj__run(l, i), floor(v->ratio * 100.0 + 1e-9), m, munit);
}

/* A line for what perf has no event for: energy, --sched, -M. */
static void pj__extra(const struct pj_line *l, const char *value,
		      const char *unit, const char *event, double m,
		      const char *munit)
{
	pj__head(l);
	pj__event(l, value, unit, event, 0);
	pj__tail(l->o->f, 0, 100, isfinite(m) ? m : 0, munit);
}

static void pj__num(char *buf, size_t size, double v)
{
	if (isfinite(v))
		snprintf(buf, size, "%f", v);
	else
		snprintf(buf, size, "<not counted>");
}

static void pj__extras(const struct pj_line *l)
{
	const struct output *o = l->o;
	const struct row *r = l->r;
	char value[64];

	for (int k = 0; k < o->nr_metrics; k++) {
		struct formula_value v;

		row__metric(o, r, l->dt, o->metrics[k], &v);
		formula_value__format(&v, 6, value, sizeof(value));
		pj__extra(l, value, o->metrics[k]->unit, o->metrics[k]->name,
			  0, "");
	}
	if (o->metric_only)
		return;
	for (int i = 0; o->sched && i < SCHED_NR_FIELDS; i++) {
		snprintf(value, sizeof(value), "%f",
			 (double)sched_field__get(&r->counts.s, i));
		pj__extra(l, value, sched_fields[i].is_time ? "ns" : "",
			  sched_fields[i].name, 0, "");
	}
	if (!r->has_energy)
		return;
	pj__num(value, sizeof(value), r->energy_j);
	pj__extra(l, value, "Joules", "energy", r->power_w,
		  isfinite(r->power_w) ? "Watts" : "");
	for (int z = 0; z < 4; z++) {
		char name[32];

		if (!(r->zone_mask & (1u << z)))
			continue;
		snprintf(name, sizeof(name), "energy-%s", row_zone_names[z]);
		pj__num(value, sizeof(value), r->zone_j[z]);
		pj__extra(l, value, "Joules", name, 0, "");
	}
}

/* a cgroup's (container's, pod's) row in which nothing ran */
static bool pj__not_run(const struct output *o, const struct row *r)
{
	if (r->not_run)
		return true;
	if (!((1u << r->scope) & PJ_CGROUP_SCOPES))
		return false;
	for (int i = 0; i < o->nr_events && i < EMON_MAX_EVENTS; i++) {
		const struct emon_count *c;

		if (!o->ev[i].supported || o->ev[i].bpf_idx < 0)
			continue;
		c = &r->counts.c[o->ev[i].bpf_idx];
		if (c->counter || c->enabled || c->running)
			return false;
	}
	return true;
}

static void pj_line__init(struct pj_line *l, struct output *o,
			  const struct row *r, double t, double dt)
{
	l->o = o;
	l->r = r;
	l->t = t;
	l->dt = dt;
	row_values__init(&l->rv, o, r);
	l->not_run = pj__not_run(o, r);
}

static void pj__row(struct output *o, double t, double dt, const struct row *r)
{
	struct pj_line l;

	pj_line__init(&l, o, r, t, dt);
	for (int i = 0; !o->metric_only && i < o->nr_events && i < EMON_MAX_EVENTS; i++)
		if (output__shows(o, i))
			pj__line(&l, i);
	if (!o->no_extras)
		pj__extras(&l);
}

/*
 * -A and --per-thread: event by event over the run of rows of one scope
 * (CPU rows, thread rows: front/row_build.c and rows_thread.c make each
 * one run), threads sorted by the event's count; returns the run's length.
 */
static int pj__by_event(struct output *o, double t, double dt,
			const struct row *rows, int n)
{
	enum scope scope = rows[0].scope;
	struct output_ord *ord;
	struct pj_line l;
	int k, nr;

	for (nr = 0; nr < n && rows[nr].scope == scope; nr++)
		;
	ord = calloc(nr, sizeof(*ord));
	for (int i = 0; ord && !o->metric_only && i < o->nr_events && i < EMON_MAX_EVENTS; i++) {
		if (!output__shows(o, i))
			continue;
		if (scope == SCOPE_THREAD)	/* CPU rows: in their order */
			output__by_count(o, rows, nr, i, true, ord);
		for (k = 0; k < nr; k++) {
			pj_line__init(&l, o, scope == SCOPE_THREAD ? ord[k].r : &rows[k], t, dt);
			pj__line(&l, i);
		}
	}
	free(ord);
	for (k = 0; k < nr; k++) {
		pj_line__init(&l, o, &rows[k], t, dt);
		if (!o->no_extras)
			pj__extras(&l);
		o->rows_printed++;
	}
	return nr;
}

static void pj__begin(struct output *o)
{
	(void)o;
}

static void pj__rows(struct output *o, double t, double dt,
		     const struct row *rows, int n)
{
	for (int k = 0; k < n; k++) {
		if (rows[k].scope == SCOPE_CPU || rows[k].scope == SCOPE_THREAD) {
			k += pj__by_event(o, t, dt, &rows[k], n - k) - 1;
			continue;
		}
		pj__row(o, t, dt, &rows[k]);
		o->rows_printed++;
	}
}

static void pj__interval(struct output *o, double t, double dt,
			 const struct row *rows, int n)
{
	output__rows(o, t, dt, rows, n, pj__rows);
}

static void pj__end(struct output *o, double elapsed)
{
	(void)o;
	(void)elapsed;
}

const struct output_ops output_perf_json_ops = {
	.name		= "perf-json",
	.begin		= pj__begin,
	.interval	= pj__interval,
	.end		= pj__end,
};
