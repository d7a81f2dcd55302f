// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf stat report: a perf.data of stat record (emon-perf's or
 * perf's, front/perf_data.h) printed as emon-perf stat prints its counts:
 * each round's counts (the difference from the round before with -I, as
 * perf's counters are cumulative), summed over the CPUs into the system
 * row, a row per CPU when recorded with -A, a row per socket, die, core
 * or NUMA node when recorded with --per-socket... (or asked for here, as
 * perf stat report's flags: the file's CPU topology groups its CPUs), the
 * command's row for a command's counters; perf's scaling (val * ena /
 * run) where an event ran part of the time.
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
	int ncell;		/* counters: the CPUs, or a task's threads */
	char (*keys)[32];	/* [ncell] */
	struct row *sorted;	/* --per-thread's rows, by count */
	char target[512];
	int aggr;		/* AGGR_*: the file's, or the one asked for */
	int nr_rows;
	int *grp;		/* [CPU map index]: its row */
	struct row *rows;
	struct perf_record_stat *now, *prev;	/* [event][CPU] val, ena, run */
};

static void report_usage(FILE *f)
{
	fprintf(f,
"Usage: emon-perf stat report [-i FILE] [-x SEP] [-A | --per-socket | --per-die |\n"
"                             --per-core | --per-node]\n"
"\n"
"Prints the counts of a perf.data that 'emon-perf stat record' or perf's\n"
"'perf stat record' wrote, as emon-perf stat prints them (on stderr).\n"
"\n"
"  -i, --input FILE          the file (default perf.data)\n"
"  -x, --field-separator S   CSV output with separator S, perf's columns\n"
"  -A, --no-aggr             a row per CPU of a system-wide file\n"
"      --per-socket          a row per socket (the file's CPU topology)\n"
"      --per-die             a row per die\n"
"      --per-core            a row per core\n"
"      --per-node            a row per NUMA node\n"
"                            (default: the file's, as recorded)\n"
"  -v, --verbose             more messages\n"
"  -h, --help                this text\n");
}

static const struct option report_opts[] = {
	{ "input",		required_argument, NULL, 'i' },
	{ "field-separator",	required_argument, NULL, 'x' },
	{ "no-aggr",		no_argument,	   NULL, 'A' },
	{ "per-socket",		no_argument,	   NULL, 'S' },
	{ "per-die",		no_argument,	   NULL, 'D' },
	{ "per-core",		no_argument,	   NULL, 'C' },
	{ "per-node",		no_argument,	   NULL, 'N' },
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
	case 'A':	/* perf's: the last one given */
		r->aggr = AGGR_NONE;
		return 0;
	case 'S':
		r->aggr = AGGR_SOCKET;
		return 0;
	case 'D':
		r->aggr = AGGR_DIE;
		return 0;
	case 'C':
		r->aggr = AGGR_CORE;
		return 0;
	case 'N':
		r->aggr = AGGR_NODE;
		return 0;
	default:
		return -EINVAL;
	}
}

/* the value of option word w ("-p", "--pid") at *p: "-p 1", "-p1",
 * "--pid=1", "--pid 1" */
static const char *opt_value(const char *p, const char *shrt, const char *lng)
{
	size_t n = strlen(lng);

	if (!strncmp(p, shrt, 2))
		return p[2] ? p + 2 : NULL;
	if (!strncmp(p, lng, n) && (p[n] == '=' || !p[n]))
		return p[n] ? p + n + 1 : NULL;
	return "";
}

/*
 * What the file's counters were for, as stat's header names it: -p's
 * "process id", -t's "thread id" and -C's "CPU(s)" from the recorded
 * command line's words (before "--"), else the command, or "system wide".
 */
static void report_target(struct report *r)
{
	const struct perf_data_desc *d = &r->f.d;
	const char *dash = d->cmdline ? strstr(d->cmdline, " -- ") : NULL;
	static const char *const opt[][3] = {
		{ "-p", "--pid", "process id " }, { "-t", "--tid", "thread id " },
		{ "-C", "--cpu", "" },
	};
	char words[sizeof(r->target)], *save = NULL, *w, *next = NULL;

	snprintf(words, sizeof(words), "%.*s", dash ? (int)(dash - d->cmdline) :
		 (int)sizeof(words), d->cmdline ? d->cmdline : "");
	for (w = strtok_r(words, " ", &save); w; w = next) {
		next = strtok_r(NULL, " ", &save);
		for (int i = 0; i < 3; i++) {
			const char *v = opt_value(w, opt[i][0], opt[i][1]);

			if (v && !*v)
				continue;
			v = v ?: next;
			if (!v)
				break;
			snprintf(r->target, sizeof(r->target), "%s%s", i == 2 ? "CPU(s) " : "", v);
			r->out.target_what = opt[i][2][0] ? opt[i][2] : NULL;
			r->out.target = r->target;
			return;
		}
	}
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

/* One round's rows, r->nr_rows of them: each CPU's or thread's stats
 * into its row. */
static void report_round(struct report *r, const struct perf_data_round *rd)
{
	const struct perf_data_desc *d = &r->f.d;
	int nc = r->ncell, ne = d->nr_events, nr = r->nr_rows;

	for (int j = 0; j < rd->nr; j++) {
		const struct perf_data_stat *s = &rd->st[j];
		struct perf_record_stat *p = &r->now[s->ev * nc +
						     (d->nr_cpus ? s->idx : s->thread)];

		p->val = s->val;
		p->ena = s->ena;
		p->run = s->run;
	}
	for (int k = 0; k < nr; k++)
		memset(&r->rows[k].counts, 0, sizeof(r->rows[k].counts));
	for (int e = 0; e < ne; e++)
		for (int idx = 0; idx < nc; idx++) {
			const struct perf_record_stat *a = &r->now[e * nc + idx];
			const struct perf_record_stat *b = &r->prev[e * nc + idx];
			struct emon_count *c = &r->rows[r->grp[idx]].counts.c[e];
			bool delta = d->interval_ms;

			c->counter += a->val - (delta ? b->val : 0);
			c->enabled += a->ena - (delta ? b->ena : 0);
			c->running += a->run - (delta ? b->run : 0);
		}
	for (int k = 0; k < nr; k++) {
		/* a thread that never ran (perf's main thread in a join):
		 * <not counted>, as stat's --per-thread rows */
		r->rows[k].not_run = r->rows[k].scope == SCOPE_THREAD;
		for (int e = 0; e < ne; e++)
			r->rows[k].not_run &= !r->rows[k].counts.c[e].running;
	}
	for (int k = 0; k < nr; k++)
		for (int e = 0; e < ne; e++) {
			struct emon_count *c = &r->rows[k].counts.c[e];

			/* perf's scaling: val * ena / run; perf's <not
			 * counted> for no time at all (perf -G's counter of a
			 * cgroup that never ran: its ena too is 0) */
			if (!c->running && !c->enabled)
				c->enabled = 1;
			c->unrun = c->running && c->running < c->enabled ?
				   c->enabled - c->running : 0;
		}
	memcpy(r->prev, r->now, (size_t)ne * nc * sizeof(*r->now));
}

/* where CPU map index idx goes with r->aggr: socket, die, core, node */
static struct perf_data_place report_place(const struct report *r, int idx)
{
	const struct perf_data_desc *d = &r->f.d;
	int cpu = d->cpus[idx];
	struct perf_data_place p = d->place && cpu < d->nr_cpus_avail ? d->place[cpu] :
				   (struct perf_data_place){ -1, -1, -1, -1 };

	if (r->aggr == AGGR_NODE)
		return (struct perf_data_place){ p.node, 0, 0, p.node };
	if (r->aggr != AGGR_CORE)
		p.core = 0;
	if (r->aggr == AGGR_SOCKET)
		p.die = 0;
	p.node = 0;
	return p;
}

static int place_cmp(const struct perf_data_place *x, const struct perf_data_place *y)
{
	if (x->socket != y->socket)
		return x->socket < y->socket ? -1 : 1;
	if (x->die != y->die)
		return x->die < y->die ? -1 : 1;
	return x->core < y->core ? -1 : x->core > y->core;
}

/*
 * The rows and which CPU goes into which: a CPU each with AGGR_NONE, the
 * file's topology's groups in id order (perf's, and stat's rows) with
 * --per-socket..., else one. -EINVAL (said) when the file has no place
 * for a CPU of its map.
 */
static int report_rows(struct report *r)
{
	const struct perf_data_desc *d = &r->f.d;
	static const enum scope scope[] = {
		[AGGR_SOCKET] = SCOPE_SOCKET, [AGGR_DIE] = SCOPE_DIE,
		[AGGR_CORE] = SCOPE_CORE, [AGGR_NODE] = SCOPE_NODE,
	};
	struct perf_data_place g[PERF_DATA_MAX_CPUS];
	int nc = r->ncell, n = 0;
	bool groups = d->nr_cpus && r->aggr != AGGR_NONE && r->aggr != AGGR_GLOBAL &&
		      r->aggr != AGGR_THREAD;

	r->grp = calloc(nc, sizeof(*r->grp));
	r->rows = calloc(nc, sizeof(*r->rows));
	r->sorted = calloc(nc, sizeof(*r->sorted));
	r->keys = calloc(nc, sizeof(*r->keys));
	if (!r->grp || !r->rows || !r->sorted || !r->keys)
		return -ENOMEM;
	if (!d->nr_cpus || r->aggr == AGGR_GLOBAL || r->aggr != AGGR_NONE) {
		struct row *rw = &r->rows[0];

		rw->scope = d->nr_cpus ? SCOPE_SYSTEM : SCOPE_COMMAND;
		snprintf(r->keys[0], sizeof(r->keys[0]), "%d", d->pid);
		rw->key = d->nr_cpus ? "all" : r->keys[0];
		rw->nr_cpus = d->nr_cpus;
		r->nr_rows = 1;
	}
	if (d->nr_cpus && r->aggr == AGGR_NONE) {
		for (int k = 0; k < nc; k++) {
			snprintf(r->keys[k], sizeof(r->keys[k]), "%d", d->cpus[k]);
			r->rows[k] = (struct row){ .scope = SCOPE_CPU, .key = r->keys[k],
						   .nr_cpus = 1 };
			r->grp[k] = k;
		}
		r->nr_rows = nc;
	}
	if (!d->nr_cpus && r->aggr == AGGR_THREAD && d->threads) {
		/* perf's --per-thread: COMM-TID */
		for (int k = 0; k < nc; k++) {
			snprintf(r->keys[k], sizeof(r->keys[k]), "%d", d->threads[k].tid);
			r->rows[k] = (struct row){ .scope = SCOPE_THREAD, .key = r->keys[k],
						   .comm = d->threads[k].comm };
			r->grp[k] = k;
		}
		r->nr_rows = nc;
	}
	if (!groups)
		return 0;
	for (int k = 0; k < nc; k++) {
		struct perf_data_place p = report_place(r, k);
		int i = 0;

		if (p.socket < 0 || p.die < 0 || p.core < 0) {
			pr_err("%s: no %s of CPU %d in it (no CPU topology)", r->input,
			       r->aggr == AGGR_NODE ? "NUMA node" : "socket", d->cpus[k]);
			return -EINVAL;
		}
		while (i < n && place_cmp(&g[i], &p))
			i++;
		if (i == n)
			g[n++] = p;
	}
	/* id order: few groups, an insertion sort */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && place_cmp(&g[j - 1], &g[j]) > 0; j--) {
			struct perf_data_place t = g[j];

			g[j] = g[j - 1];
			g[j - 1] = t;
		}
	for (int i = 0; i < n; i++) {
		struct row *rw = &r->rows[i];

		if (r->aggr == AGGR_SOCKET || r->aggr == AGGR_NODE)
			snprintf(r->keys[i], sizeof(r->keys[i]), "%d", g[i].socket);
		else if (r->aggr == AGGR_DIE)
			snprintf(r->keys[i], sizeof(r->keys[i]), "S%d-D%d", g[i].socket, g[i].die);
		else
			snprintf(r->keys[i], sizeof(r->keys[i]), "S%d-D%d-C%d", g[i].socket,
				 g[i].die, g[i].core);
		*rw = (struct row){ .scope = scope[r->aggr], .key = r->keys[i] };
	}
	for (int k = 0; k < nc; k++) {
		struct perf_data_place p = report_place(r, k);
		int i = 0;

		while (place_cmp(&g[i], &p))
			i++;
		r->grp[k] = i;
		r->rows[i].nr_cpus++;
	}
	r->nr_rows = n;
	return 0;
}

/* a thread row's order, stat --per-thread's: its first event's count,
 * the largest first, uncounted last, then by tid */
static double thread_sort(const struct row *rw)
{
	const struct emon_count *c = &rw->counts.c[0];

	return rw->not_run ? -2 : !c->running ? -1 : (double)c->counter;
}

static int thread_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	double u = thread_sort(x), v = thread_sort(y);

	if (u != v)
		return u < v ? 1 : -1;
	return atoi(x->key) < atoi(y->key) ? -1 : atoi(x->key) > atoi(y->key);
}

static int report_print(struct report *r)
{
	const struct perf_data_desc *d = &r->f.d;
	int nc = r->ncell;
	double t_prev = 0, t = 0;

	r->now = calloc((size_t)d->nr_events * nc, sizeof(*r->now));
	r->prev = calloc((size_t)d->nr_events * nc, sizeof(*r->prev));
	if (!r->now || !r->prev)
		return -ENOMEM;
	r->out.ops->begin(&r->out);
	for (int k = 0; k < r->f.nr_rounds; k++) {
		const struct perf_data_round *rd = &r->f.rounds[k];

		t = rd->time / 1e9;
		report_round(r, rd);
		memcpy(r->sorted, r->rows, r->nr_rows * sizeof(*r->rows));
		if (r->rows[0].scope == SCOPE_THREAD)
			qsort(r->sorted, r->nr_rows, sizeof(*r->sorted), thread_cmp);
		r->out.ops->interval(&r->out, t, t - t_prev, r->sorted, r->nr_rows);
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
	r->aggr = -1;
	ret = opts__parse(argc, argv, "+i:x:Avh", report_opts, "stat report",
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
	if (r->aggr < 0)
		r->aggr = r->f.d.aggr_mode;
	r->ncell = r->f.d.nr_cpus ?: r->f.d.nr_threads ?: 1;
	if ((r->aggr == AGGR_THREAD && (r->f.d.nr_cpus || !r->f.d.threads)) ||
	    r->aggr == AGGR_UNSET || r->aggr > AGGR_NODE || r->aggr < 0) {
		pr_warn("%s: recorded with perf's aggregation mode %d: printed for the whole %s",
			r->input, r->aggr, r->f.d.nr_cpus ? "system" : "command");
		r->aggr = AGGR_GLOBAL;
	}
	report_target(r);
	ret = report_rows(r);
	if (ret) {
		ret = cli__exit_status(ret);
		goto out;
	}
	r->out.scopes = 1u << r->rows[0].scope;
	ret = report_events(r);
	ret = ret ?: report_print(r);
	ret = cli__exit_status(ret);
out:
	perf_data__free(&r->f);
	free(r->grp);
	free(r->rows);
	free(r->sorted);
	free(r->keys);
	free(r->now);
	free(r->prev);
	free(r);
	return ret;
}
