// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * CSV (-x SEP): perf stat -x's lines, field for field as perf 6.1 prints
 * them, so that scripts written for perf parse emon-perf's. No header, one
 * line per row per event:
 *
 *   [TIME,][AGGR,]VALUE,UNIT,EVENT,[CGROUP,]RUN,PCT,METRIC,FORMULA_UNIT
 *
 * TIME         with -I only: seconds since the start at the interval's
 *              end, "%16.9f" (blank-padded, as perf's)
 * AGGR         what perf's aggregation flags put first: CPU3 (-A, --by
 *              cpu); S0,NR (--per-socket); S0-D0,NR (--per-die);
 *              S0-D0-C1,NR (--per-core), NR the CPUs counted in the row;
 *              COMM-PID (process rows), COMM-TID (thread rows, perf's
 *              --per-thread). System and
 *              command rows have none (perf stat -a, perf stat CMD).
 * VALUE        the count scaled by enabled/running; time events in msec,
 *              "%.2f"; "<not counted>" or "<not supported>"
 * UNIT         "msec" for time events, else empty
 * EVENT        the event name as given to -e
 * CGROUP       cgroup rows only (perf -G): the cgroup path; container rows
 *              put their key here: the id, then, after a space, the
 *              container's NAMESPACE/POD/CONTAINER or runtime name; with
 *              -G's pairs (perf's -G after -e), empty on the other rows
 * NOISE        -r N (N > 1) only: perf's spread, 100 * the standard
 *              deviation of the mean / the mean, "%.2f%%"
 * RUN          ns the event ran (summed over the row's CPUs); 0 when not
 *              counted or not supported
 * PCT          100 * running / enabled, "%.2f" (100.00 when not counted)
 * METRIC,      perf's shadow metric: CPUs utilized, insn per cycle, GHz,
 * FORMULA_UNIT  K/sec..., both empty when there is none
 *
 * Lines perf has no layout for take perf's -G layout, with the row's
 * cgroup or container key in CGROUP (empty for other rows) and RUN and
 * PCT empty:
 *
 *   energy      ...,JOULES,J,energy,CGROUP,,,WATTS,Watts
 *   sub-zones   ...,JOULES,J,energy-core,CGROUP,,,,    (uncore, dram, psys)
 *   epi         ...,NJ,nJ/instr,epi,CGROUP,,,,         (empty without
 *                                                       instructions)
 *   --sched     ...,VALUE,ns,on_cpu_ns,CGROUP,,,,      (runq_wait_ns,
 *               ...,VALUE,,migrations,CGROUP,,,,        sleep_ns,
 *                                                       blocked_ns;
 *                                                       wakeups,
 *                                                       vol_switches,
 *                                                       invol_switches)
 *
 * With -M, a line per metric after the events, in the same -G layout:
 *
 *   metrics     ...,VALUE,UNIT,NAME,CGROUP,,,,    (VALUE "%.6f", or
 *                                                  <not supported> /
 *                                                  <not counted>; UNIT
 *                                                  perf's text, "insn per
 *                                                  cycle"); --metric-only
 *                                                  prints these alone
 *
 * Quoting, RFC 4180: a field that contains SEP, '"', CR or LF is written
 * between double quotes with its double quotes doubled (perf writes it
 * bare and the line falls apart), so with -x, a cgroup "/a,b" keeps its
 * line's field count. Numbers are quoted too when SEP occurs in them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "front/output.h"
#include "front/output_formula.h"
#include "front/output_sched.h"

#define CSV_MAX_FIELDS	16

/* One line being assembled: its fields, and storage for their text. */
struct csv_line {
	const char *f[CSV_MAX_FIELDS];
	int n;
	int head;		/* fields before VALUE: time, aggregation */
	char ts[32], aggr[1200], nr[16];
};

static const char *csv__sep(const struct output *o)
{
	return o->sep && *o->sep ? o->sep : ",";
}

static bool csv__needs_quotes(const char *s, const char *sep)
{
	return strstr(s, sep) || strpbrk(s, "\"\r\n");
}

static void csv__field(struct output *o, const char *s)
{
	if (!csv__needs_quotes(s, csv__sep(o))) {
		fputs(s, o->f);
		return;
	}
	fputc('"', o->f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', o->f);
		fputc(*s, o->f);
	}
	fputc('"', o->f);
}

static void csv_line__add(struct csv_line *l, const char *s)
{
	if (l->n < CSV_MAX_FIELDS)
		l->f[l->n++] = s ? s : "";
}

static void csv_line__print(struct output *o, const struct csv_line *l)
{
	for (int i = 0; i < l->n; i++) {
		if (i)
			fputs(csv__sep(o), o->f);
		csv__field(o, l->f[i]);
	}
	fputc('\n', o->f);
}

/* The fields every line of row r starts with: -I's time, perf's AGGR. */
static void csv_line__head(struct csv_line *l, const struct output *o,
			   const struct row *r, double t)
{
	const char *key = r->key ? r->key : "";

	l->n = 0;
	if (o->interval_mode) {
		snprintf(l->ts, sizeof(l->ts), "%16.9f", t);
		csv_line__add(l, l->ts);
	} else if (o->csv_lead) {
		snprintf(l->ts, sizeof(l->ts), "%16s", o->csv_lead);
		csv_line__add(l, l->ts);
	}
	snprintf(l->nr, sizeof(l->nr), "%d", r->nr_cpus);
	switch (r->scope) {
	case SCOPE_CPU:
		snprintf(l->aggr, sizeof(l->aggr), "CPU%s", key);
		csv_line__add(l, l->aggr);
		break;
	case SCOPE_SOCKET:
	case SCOPE_NODE:
		snprintf(l->aggr, sizeof(l->aggr), "%s%s", r->scope == SCOPE_NODE ?
			 "N" : "S", key);
		csv_line__add(l, l->aggr);
		csv_line__add(l, l->nr);
		break;
	case SCOPE_DIE:
	case SCOPE_CORE:
		csv_line__add(l, key);
		csv_line__add(l, l->nr);
		break;
	case SCOPE_PROCESS:
	case SCOPE_THREAD:
		snprintf(l->aggr, sizeof(l->aggr), "%s-%s",
			 r->comm ? r->comm : "", key);
		csv_line__add(l, output__escape(l->aggr, sizeof(l->aggr)));
		break;
	default:
		break;
	}
	l->head = l->n;
}

/* What -G's CGROUP field holds for row r, control bytes escaped (no raw
 * one reaches a terminal); NULL: the row has none. */
static const char *csv__cgroup(const struct output *o, const struct row *r,
			       char *buf, size_t size)
{
	char label[1024];

	if (r->scope != SCOPE_CGROUP && r->scope != SCOPE_CONTAINER)
		return NULL;
	if (r->scope == SCOPE_CONTAINER && row__cont_label(r, label, sizeof(label)))
		snprintf(buf, size, "%s %s", r->key, label);
	else
		snprintf(buf, size, "%s", r->key ? output__cgroup_name(o, r->key) : "");
	return output__escape(buf, size);
}

/* perf's CSV metric: the text's number, blanks and trailing text cut. */
static void csv__metric(char *val, const char *text)
{
	size_t len;

	text += strspn(text, " ");
	len = strspn(text, "0123456789.");
	memmove(val, text, len);
	val[len] = '\0';
}

/*
 * perf's RUN: the ns the event's perf_events ran. An event counted from
 * the switches themselves has none; it runs whenever its row can: the
 * interval on each of a row of CPUs, or the row's own time (cpu-clock) on
 * a cgroup, container, process or command row, as a perf -G or a perf
 * stat CMD event runs only while its tasks do.
 */
static double csv__run(const struct output *o, const struct row_values *rv,
		       const struct row *r, int i, double dt)
{
	const struct emon_count *c = &r->counts.c[o->ev[i].bpf_idx];

	if (c->enabled || c->running)
		return c->running;
	if (r->nr_cpus)
		return dt * 1e9 * r->nr_cpus;
	if (rv->time_idx >= 0 && rv->v[rv->time_idx].state == VALUE_COUNTED)
		return rv->v[rv->time_idx].value;
	return 0;
}

static void csv__event(struct output *o, const struct row_values *rv,
		       const struct row *r, int i, struct csv_line *l,
		       const char *cgroup, double dt)
{
	const struct row_event *ev = &o->ev[i];
	const struct row_value *v = &rv->v[i];
	char value[64], run[32] = "0", pct[32] = "100.00", mval[64] = "";
	char mtext[64], munit[32] = "", noise[32] = "";

	l->n = l->head;
	if (v->state == VALUE_NOT_SUPPORTED) {
		snprintf(value, sizeof(value), "<not supported>");
	} else if (v->state == VALUE_NOT_COUNTED) {
		snprintf(value, sizeof(value), "<not counted>");
	} else {
		if (ev->is_time)
			snprintf(value, sizeof(value), "%.2f", v->value / 1e6);
		else
			snprintf(value, sizeof(value), "%llu",
				 (unsigned long long)v->count);
		snprintf(run, sizeof(run), "%.0f", csv__run(o, rv, r, i, dt));
		snprintf(pct, sizeof(pct), "%.2f", v->ratio * 100.0);
	}
	if (row_values__metric(rv, o, i, dt, mtext, sizeof(mtext), munit,
			       sizeof(munit)))
		csv__metric(mval, mtext);
	else
		munit[0] = '\0';
	csv_line__add(l, value);
	csv_line__add(l, ev->is_time ? "msec" : "");
	csv_line__add(l, ev->name);
	if (cgroup)
		csv_line__add(l, cgroup);
	if (o->runs > 1) {	/* -r: perf's spread, before the run time */
		if (r->noise)
			snprintf(noise, sizeof(noise), "%.2f%%", r->noise[i]);
		csv_line__add(l, noise);
	}
	csv_line__add(l, run);
	csv_line__add(l, pct);
	csv_line__add(l, mval);
	csv_line__add(l, munit + strspn(munit, " "));
	csv_line__print(o, l);
}

/* A line of perf's -G layout for what perf does not count. */
static void csv__extra(struct output *o, struct csv_line *l,
		       const char *value, const char *unit, const char *event,
		       const char *cgroup, const char *mval, const char *munit)
{
	l->n = l->head;
	csv_line__add(l, value);
	csv_line__add(l, unit);
	csv_line__add(l, event);
	csv_line__add(l, cgroup);
	csv_line__add(l, "");
	csv_line__add(l, "");
	csv_line__add(l, mval);
	csv_line__add(l, munit);
	csv_line__print(o, l);
}

static void csv__fixed(char *buf, size_t size, double v, int prec)
{
	buf[0] = '\0';
	if (isfinite(v))
		snprintf(buf, size, "%.*f", prec, v);
}

static void csv__energy(struct output *o, const struct row *r,
			struct csv_line *l, const char *cgroup)
{
	char joules[64], watts[64], epi[64];
	struct row_metrics m;

	csv__fixed(joules, sizeof(joules), r->energy_j, 6);
	csv__fixed(watts, sizeof(watts), r->power_w, 3);
	csv__extra(o, l, joules, "J", "energy", cgroup, watts,
		   watts[0] ? "Watts" : "");
	for (int z = 0; z < 4; z++) {
		char name[32];

		if (!(r->zone_mask & (1u << z)))
			continue;
		snprintf(name, sizeof(name), "energy-%s", row_zone_names[z]);
		csv__fixed(joules, sizeof(joules), r->zone_j[z], 6);
		csv__extra(o, l, joules, "J", name, cgroup, "", "");
	}
	row__metrics(o, r, &m);
	csv__fixed(epi, sizeof(epi), m.epi_nj, 3);
	csv__extra(o, l, epi, "nJ/instr", "epi", cgroup, "", "");
}

/* -M: a line per metric in perf's -G layout, its name as the event,
 * its unit perf's text ("insn per cycle") */
static void csv__metrics(struct output *o, const struct row *r, double dt,
			 struct csv_line *l, const char *cgroup)
{
	struct formula_value v;
	char value[64];

	for (int k = 0; k < o->nr_metrics; k++) {
		row__metric(o, r, dt, o->metrics[k], &v);
		formula_value__format(&v, 6, value, sizeof(value));
		csv__extra(o, l, value, o->metrics[k]->unit, o->metrics[k]->name,
			   cgroup, "", "");
	}
}

/* A row's lines past its events: -M's, --sched's, energy's
 * (--metric-only: -M's alone). */
static void csv__extras(struct output *o, double t, double dt,
			const struct row *r)
{
	char buf[4096];
	const char *cgroup = csv__cgroup(o, r, buf, sizeof(buf));
	struct csv_line l;

	csv_line__head(&l, o, r, t);
	csv__metrics(o, r, dt, &l, cgroup);
	if (o->metric_only)
		return;
	for (int i = 0; o->sched && i < SCHED_NR_FIELDS; i++) {
		char value[32];

		snprintf(value, sizeof(value), "%llu",
			 (unsigned long long)sched_field__get(&r->counts.s, i));
		csv__extra(o, &l, value, sched_fields[i].is_time ? "ns" : "",
			   sched_fields[i].name, cgroup, "", "");
	}
	if (r->has_energy)
		csv__energy(o, r, &l, cgroup);
	if (r->has_gpu) {	/* --gpu: its part of the GPUs' energy, SM time */
		char joules[64], util[64];

		csv__fixed(joules, sizeof(joules), r->gpu_energy_j, 6);
		csv__fixed(util, sizeof(util), r->gpu_util, 3);
		csv__extra(o, &l, joules, "J", "gpu-energy", cgroup, util,
			   util[0] ? "GPUs utilized" : "");
	}
}

static void csv__row(struct output *o, double t, double dt,
		     const struct row *r)
{
	struct csv_line l;
	struct row_values rv;
	char buf[4096];
	const char *cgroup = csv__cgroup(o, r, buf, sizeof(buf));
	int i;

	if (!cgroup && o->cg_paired)	/* perf -G's event of no cgroup */
		cgroup = "";
	csv_line__head(&l, o, r, t);
	row_values__init(&rv, o, r);
	for (i = 0; !o->metric_only && i < o->nr_events && i < EMON_MAX_EVENTS; i++)
		if (output__shows(o, i))
			csv__event(o, &rv, r, i, &l, cgroup, dt);
	if (!o->no_extras)
		csv__extras(o, t, dt, r);
}

static void csv__begin(struct output *o)
{
	(void)o;
}

/*
 * perf -A prints event by event, each on every CPU; the other
 * aggregations print row by row. CPU rows come in one run (front/row_build.c).
 */
static int csv__cpus(struct output *o, double t, double dt,
		     const struct row *rows, int n)
{
	struct row_values rv;
	struct csv_line l;
	int k, nr;

	for (nr = 0; nr < n && rows[nr].scope == SCOPE_CPU; nr++)
		;
	for (int i = 0; !o->metric_only && i < o->nr_events && i < EMON_MAX_EVENTS; i++) {
		for (k = 0; output__shows(o, i) && k < nr; k++) {
			csv_line__head(&l, o, &rows[k], t);
			row_values__init(&rv, o, &rows[k]);
			csv__event(o, &rv, &rows[k], i, &l,
				   o->cg_paired ? "" : NULL, dt);
		}
	}
	for (k = 0; k < nr; k++) {
		if (!o->no_extras)
			csv__extras(o, t, dt, &rows[k]);
		o->rows_printed++;
	}
	return nr;
}

/*
 * perf --per-thread prints event by event too, each event's threads
 * sorted by its count, the largest first (<not counted> last). Thread
 * rows come in one run (front/rows_thread.c).
 */
static int csv__threads(struct output *o, double t, double dt,
			const struct row *rows, int n)
{
	struct output_ord *ord;
	struct row_values rv;
	struct csv_line l;
	int k, nr;

	for (nr = 0; nr < n && rows[nr].scope == SCOPE_THREAD; nr++)
		;
	ord = calloc(nr, sizeof(*ord));
	for (int i = 0; ord && !o->metric_only && i < o->nr_events && i < EMON_MAX_EVENTS; i++) {
		output__by_count(o, rows, nr, i, false, ord);
		for (k = 0; k < nr; k++) {
			csv_line__head(&l, o, ord[k].r, t);
			row_values__init(&rv, o, ord[k].r);
			csv__event(o, &rv, ord[k].r, i, &l, NULL, dt);
		}
	}
	free(ord);
	for (k = 0; k < nr; k++) {
		csv__extras(o, t, dt, &rows[k]);
		o->rows_printed++;
	}
	return nr;
}

static void csv__rows(struct output *o, double t, double dt,
		      const struct row *rows, int n)
{
	for (int k = 0; k < n; k++) {
		if (rows[k].scope == SCOPE_CPU) {
			k += csv__cpus(o, t, dt, &rows[k], n - k) - 1;
			continue;
		}
		if (rows[k].scope == SCOPE_THREAD) {
			k += csv__threads(o, t, dt, &rows[k], n - k) - 1;
			continue;
		}
		csv__row(o, t, dt, &rows[k]);
		o->rows_printed++;
	}
}

static void csv__interval(struct output *o, double t, double dt,
			  const struct row *rows, int n)
{
	output__rows(o, t, dt, rows, n, csv__rows);
}

static void csv__end(struct output *o, double elapsed)
{
	(void)o;
	(void)elapsed;
}

const struct output_ops output_csv_ops = {
	.name		= "csv",
	.begin		= csv__begin,
	.interval	= csv__interval,
	.end		= csv__end,
};
