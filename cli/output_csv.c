// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * CSV (-x SEP): no header, one line per row per event, seven columns:
 *
 *   interval SEP scope SEP key SEP value SEP unit SEP event SEP ratio_percent
 *
 * interval       seconds since the start at the interval's end, "%.9f"
 *                (without -I: the whole run; the column stays for uniformity)
 * scope          system | cpu | socket | cgroup | container | process | command
 * key            "all" for system, the CPU or socket number, the cgroup path
 *                ("/" is the root), the container id (then, after a space,
 *                NAMESPACE/POD/CONTAINER under Kubernetes or the runtime's
 *                name for the container, when its files had them), the pid
 *                (comm, runtime, pod uid and image are in JSON only)
 * value          the count scaled by enabled/running, an integer; time events
 *                in msec with 6 decimals (exact to the ns); "<not supported>"
 *                or "<not counted>" as perf -x prints them
 * unit           "msec" for time events, empty for counts
 * event          the event name as given to -e
 * ratio_percent  100 * running / enabled, "%.2f": 100.00 unless the event
 *                was multiplexed; empty for <not supported>
 *
 * A row with energy adds three lines after its events, ratio_percent empty:
 *
 *   ...SEP ENERGY_J SEP J SEP energy SEP
 *   ...SEP POWER_W SEP W SEP power SEP
 *   ...SEP EPI_NJ SEP nJ/instr SEP epi SEP     (empty value without
 *                                               instructions)
 *
 * With --sched, eight lines after the events (ratio_percent empty): the
 * scheduler view's fields as JSON names them, times in ns (unit "ns"):
 *
 *   ...SEP VALUE SEP ns SEP on_cpu_ns SEP      (runq_wait_ns, sleep_ns,
 *   ...SEP VALUE SEP SEP migrations SEP         blocked_ns; wakeups,
 *                                               vol_switches, invol_switches)
 *
 * Quoting, RFC 4180: any field that contains SEP, '"', CR or LF is written
 * between double quotes with its double quotes doubled, so with -x, a
 * cgroup "/a,b" prints as "/a,b" in quotes and the line keeps 7 columns.
 * Numbers are quoted too when SEP occurs in them (-x .).
 */
#include <math.h>
#include <string.h>
#include "cli/output.h"
#include "cli/output_sched.h"

enum csv_col {
	CSV_INTERVAL,
	CSV_SCOPE,
	CSV_KEY,
	CSV_VALUE,
	CSV_UNIT,
	CSV_EVENT,
	CSV_RATIO,
	CSV_NR,
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

static void csv__line(struct output *o, const char *const col[CSV_NR])
{
	int i;

	for (i = 0; i < CSV_NR; i++) {
		if (i)
			fputs(csv__sep(o), o->f);
		csv__field(o, col[i] ? col[i] : "");
	}
	fputc('\n', o->f);
}

static void csv__event(struct output *o, const struct row *r, int i,
		       const char *col[CSV_NR])
{
	const struct row_event *ev = &o->ev[i];
	char value[64], ratio[32] = "";
	struct row_value v;

	row__value(o, r, i, &v);
	if (v.state == VALUE_NOT_SUPPORTED)
		snprintf(value, sizeof(value), "<not supported>");
	else if (v.state == VALUE_NOT_COUNTED)
		snprintf(value, sizeof(value), "<not counted>");
	else if (ev->is_time)
		snprintf(value, sizeof(value), "%.6f", v.value / 1e6);
	else
		snprintf(value, sizeof(value), "%llu",
			 (unsigned long long)v.count);
	if (v.state != VALUE_NOT_SUPPORTED)
		snprintf(ratio, sizeof(ratio), "%.2f", v.ratio * 100.0);
	col[CSV_VALUE] = value;
	col[CSV_UNIT] = ev->is_time ? "msec" : "";
	col[CSV_EVENT] = ev->name;
	col[CSV_RATIO] = ratio;
	csv__line(o, col);
}

static void csv__energy_line(struct output *o, const char *col[CSV_NR],
			     double v, int prec, const char *unit,
			     const char *event)
{
	char value[64] = "";

	if (isfinite(v))
		snprintf(value, sizeof(value), "%.*f", prec, v);
	col[CSV_VALUE] = value;
	col[CSV_UNIT] = unit;
	col[CSV_EVENT] = event;
	col[CSV_RATIO] = "";
	csv__line(o, col);
}

static void csv__row(struct output *o, double t, const struct row *r)
{
	const char *col[CSV_NR] = { NULL };
	char interval[64], label[1024], key[4096 + 1024];
	struct row_metrics m;
	int i;

	snprintf(interval, sizeof(interval), "%.9f", t);
	col[CSV_INTERVAL] = interval;
	col[CSV_SCOPE] = scope__name(r->scope);
	snprintf(key, sizeof(key), "%s", r->scope == SCOPE_SYSTEM ? "all" :
		 r->key ? r->key : "");
	if (row__cont_label(r, label, sizeof(label)))
		snprintf(key, sizeof(key), "%s %s", r->key, label);
	col[CSV_KEY] = output__escape(key, sizeof(key));
	for (i = 0; i < o->nr_events && i < EMON_MAX_EVENTS; i++)
		csv__event(o, r, i, col);
	for (i = 0; o->sched && i < SCHED_NR_FIELDS; i++) {
		char value[32];

		snprintf(value, sizeof(value), "%llu",
			 (unsigned long long)sched_field__get(&r->counts.s, i));
		col[CSV_VALUE] = value;
		col[CSV_UNIT] = sched_fields[i].is_time ? "ns" : "";
		col[CSV_EVENT] = sched_fields[i].name;
		col[CSV_RATIO] = "";
		csv__line(o, col);
	}
	if (!r->has_energy)
		return;
	row__metrics(o, r, &m);
	csv__energy_line(o, col, r->energy_j, 6, "J", "energy");
	csv__energy_line(o, col, r->power_w, 6, "W", "power");
	csv__energy_line(o, col, m.epi_nj, 3, "nJ/instr", "epi");
	for (i = 0; i < 4; i++) {
		char name[32];

		if (!(r->zone_mask & (1u << i)))
			continue;
		snprintf(name, sizeof(name), "energy-%s", row_zone_names[i]);
		csv__energy_line(o, col, r->zone_j[i], 6, "J", name);
	}
}

static void csv__begin(struct output *o)
{
	(void)o;
}

static void csv__interval(struct output *o, double t, double dt,
			  const struct row *rows, int n)
{
	int k;

	(void)dt;
	for (k = 0; k < n; k++) {
		csv__row(o, t, &rows[k]);
		o->rows_printed++;
	}
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
