// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf stat report: a perf.data of stat record (emon-perf's or
 * perf's, front/perf_data.h) printed as emon-perf stat prints its counts:
 * each round's counts (the difference from the round before with -I, as
 * perf's counters are cumulative), summed over the CPUs into the system
 * row, a row per CPU when recorded with -A, the command's row for a
 * command's counters; perf's scaling (val * ena / run) where an event
 * ran part of the time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli/stat/stat.h"
#include "common/log.h"
#include "common/opts.h"
#include "front/errors.h"
#include "front/output.h"
#include "front/perf_data.h"

struct report {
	const char *input;
	const char *sep;
	struct perf_data_file f;
	struct output out;
	char names[EMON_MAX_EVENTS][PERF_DATA_NAME_LEN];
	char keys[PERF_DATA_MAX_CPUS][12];
	char target[512];
	struct row *rows;
	struct perf_record_stat *now, *prev;	/* [event][CPU] val, ena, run */
};

static void report_usage(FILE *f)
{
	fprintf(f,
"Usage: emon-perf stat report [-i FILE] [-x SEP]\n"
"\n"
"Prints the counts of a perf.data that 'emon-perf stat record' or perf's\n"
"'perf stat record' wrote, as emon-perf stat prints them (on stderr).\n"
"\n"
"  -i, --input FILE          the file (default perf.data)\n"
"  -x, --field-separator S   CSV output with separator S, perf's columns\n"
"  -v, --verbose             more messages\n"
"  -h, --help                this text\n");
}

static const struct option report_opts[] = {
	{ "input",		required_argument, NULL, 'i' },
	{ "field-separator",	required_argument, NULL, 'x' },
	{ "verbose",		no_argument,	   NULL, 'v' },
	{ "help",		no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static int report_one(void *ctx, int c, const char *arg)
{
	struct report *r = ctx;

	switch (c) {
	case 'i':
		r->input = arg;
		return 0;
	case 'x':
		if (!*arg) {
			pr_err("empty field separator for -x");
			return -EINVAL;
		}
		r->sep = arg;
		return 0;
	default:
		return -EINVAL;
	}
}

/* what the file's counters were for, as stat's header names it */
static void report_target(struct report *r)
{
	const struct perf_data_desc *d = &r->f.d;
	const char *dash = d->cmdline ? strstr(d->cmdline, " -- ") : NULL;

	if (d->nr_cpus) {
		r->out.target = "system wide";
		return;
	}
	snprintf(r->target, sizeof(r->target), "%s",
		 dash ? dash + 4 : d->cmdline ? d->cmdline : "");
	r->out.target = r->target;
}

static int report_events(struct report *r)
{
	const struct perf_data_desc *d = &r->f.d;
	struct output *o = &r->out;

	if (d->nr_events > EMON_MAX_EVENTS) {
		pr_err("%s: %d events, stat report reads %d", r->input, d->nr_events,
		       EMON_MAX_EVENTS);
		return -EINVAL;
	}
	for (int i = 0; i < d->nr_events; i++) {
		const struct perf_data_event *e = &d->ev[i];
		struct row_event *re = &o->ev[i];

		if (e->name[0])
			snprintf(r->names[i], sizeof(r->names[i]), "%s", e->name);
		else
			perf_data__attr_name(&e->attr, r->names[i], sizeof(r->names[i]));
		re->name = r->names[i];
		re->is_time = !strcmp(e->unit, "msec") ||
			      (e->attr.type == PERF_TYPE_SOFTWARE &&
			       (e->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
				e->attr.config == PERF_COUNT_SW_TASK_CLOCK));
		re->bpf_idx = i;
		re->lead_idx = -1;
		/* a counter that never had a stat was not opened */
		for (int k = 0; k < r->f.nr_rounds && !re->supported; k++)
			for (int j = 0; j < r->f.rounds[k].nr && !re->supported; j++)
				re->supported = r->f.rounds[k].st[j].ev == i;
	}
	o->nr_events = d->nr_events;
	return 0;
}

/* One round's rows: CPU rows with -A's AGGR_NONE, else one row. */
static int report_round(struct report *r, const struct perf_data_round *rd,
			int *nrows)
{
	const struct perf_data_desc *d = &r->f.d;
	int nc = d->nr_cpus ?: 1, ne = d->nr_events;
	bool per_cpu = d->nr_cpus && d->aggr_mode == AGGR_NONE;
	int nr = per_cpu ? nc : 1;

	for (int j = 0; j < rd->nr; j++) {
		const struct perf_data_stat *s = &rd->st[j];
		struct perf_record_stat *p = &r->now[s->ev * nc + s->idx];

		p->val = s->val;
		p->ena = s->ena;
		p->run = s->run;
	}
	memset(r->rows, 0, nr * sizeof(*r->rows));
	for (int k = 0; k < nr; k++) {
		struct row *rw = &r->rows[k];

		rw->scope = per_cpu ? SCOPE_CPU : d->nr_cpus ? SCOPE_SYSTEM : SCOPE_COMMAND;
		rw->key = per_cpu ? r->keys[k] : d->nr_cpus ? "all" : r->keys[0];
		rw->nr_cpus = per_cpu ? 1 : d->nr_cpus;
	}
	for (int e = 0; e < ne; e++)
		for (int idx = 0; idx < nc; idx++) {
			const struct perf_record_stat *a = &r->now[e * nc + idx];
			const struct perf_record_stat *b = &r->prev[e * nc + idx];
			struct emon_count *c = &r->rows[per_cpu ? idx : 0].counts.c[e];
			bool delta = d->interval_ms;

			c->counter += a->val - (delta ? b->val : 0);
			c->enabled += a->ena - (delta ? b->ena : 0);
			c->running += a->run - (delta ? b->run : 0);
		}
	for (int k = 0; k < nr; k++)
		for (int e = 0; e < ne; e++) {
			struct emon_count *c = &r->rows[k].counts.c[e];

			/* perf's scaling: val * ena / run */
			c->unrun = c->running && c->running < c->enabled ?
				   c->enabled - c->running : 0;
		}
	memcpy(r->prev, r->now, (size_t)ne * nc * sizeof(*r->now));
	*nrows = nr;
	return 0;
}

static int report_print(struct report *r)
{
	const struct perf_data_desc *d = &r->f.d;
	int nc = d->nr_cpus ?: 1;
	double t_prev = 0, t = 0;

	r->rows = calloc(nc, sizeof(*r->rows));
	r->now = calloc((size_t)d->nr_events * nc, sizeof(*r->now));
	r->prev = calloc((size_t)d->nr_events * nc, sizeof(*r->prev));
	if (!r->rows || !r->now || !r->prev)
		return -ENOMEM;
	for (int k = 0; k < nc; k++)
		snprintf(r->keys[k], sizeof(r->keys[k]), "%d",
			 d->nr_cpus ? d->cpus[k] : d->pid);
	r->out.ops->begin(&r->out);
	for (int k = 0; k < r->f.nr_rounds; k++) {
		const struct perf_data_round *rd = &r->f.rounds[k];
		int n = 0;

		t = rd->time / 1e9;
		report_round(r, rd, &n);
		r->out.ops->interval(&r->out, t, t - t_prev, r->rows, n);
		t_prev = t;
	}
	r->out.ops->end(&r->out, t);
	fflush(r->out.f);
	return 0;
}

int stat__report(int argc, char **argv)
{
	struct report *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return cli__exit_status(-ENOMEM);
	r->input = "perf.data";
	ret = opts__parse(argc, argv, "+i:x:vh", report_opts, "stat report",
			  report_usage, report_one, r);
	if (ret) {
		ret = cli__parse_status(ret);
		goto out;
	}
	if (optind < argc) {
		ret = cli__fail(-EINVAL, "stat report: unexpected '%s'", argv[optind]);
		goto out;
	}
	ret = perf_data__read(&r->f, r->input);
	if (ret) {
		ret = cli__fail(ret == -ENOMEM ? ret : -EINVAL, "%s: %s", r->input,
				ret == -EINVAL && r->f.why[0] ? r->f.why : strerror(-ret));
		goto out;
	}
	r->out.f = stderr;
	r->out.ops = r->sep ? &output_csv_ops : &output_text_ops;
	r->out.sep = r->sep;
	r->out.interval_mode = r->f.d.interval_ms > 0;
	r->out.ncpus = r->f.d.nr_cpus ?: 1;
	r->out.scopes = 1u << (!r->f.d.nr_cpus ? SCOPE_COMMAND :
			       r->f.d.aggr_mode == AGGR_NONE ? SCOPE_CPU : SCOPE_SYSTEM);
	report_target(r);
	if (r->f.d.nr_cpus && r->f.d.aggr_mode != AGGR_NONE &&
	    r->f.d.aggr_mode != AGGR_GLOBAL)
		pr_warn("%s: recorded with perf's aggregation mode %d: printed for the whole system",
			r->input, r->f.d.aggr_mode);
	ret = report_events(r);
	ret = ret ?: report_print(r);
	ret = cli__exit_status(ret);
out:
	perf_data__free(&r->f);
	free(r->rows);
	free(r->now);
	free(r->prev);
	free(r);
	return ret;
}
