// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf stat -r N: the command run N times, each a whole stat run of
 * its own (source, first snapshot, command, last snapshot) printing to
 * /dev/null; each row's events are kept as perf keeps them (util/stat.c:
 * a running mean and sum of squares per event, Welford's update), and one
 * print at the end shows the means with perf's ( +- x% ): the standard
 * deviation of the mean, 100 * sqrt(M2 / (n - 1) / n) / mean. Rows are
 * matched from run to run by scope and key (the command's by scope: its
 * key is the pid); one missing from a run is left out.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "front/errors.h"
#include "cli/stat/stat.h"
#include "common/log.h"

struct run_stats {
	int n;
	double mean, m2;
};

struct rep_row {
	enum scope scope;
	char *key;
	int runs;			/* the runs it was in */
	struct run_stats ev[EMON_MAX_EVENTS];
	struct run_stats run[EMON_MAX_EVENTS];	/* its perf_events' ns running */
	double noise[EMON_MAX_EVENTS];
};

struct repeat {
	struct rep_row *rows;
	int nr;
	struct run_stats elapsed;
};

static void run_stats__add(struct run_stats *s, double v)
{
	double delta = v - s->mean;

	s->n++;
	s->mean += delta / s->n;
	s->m2 += delta * (v - s->mean);
}

/* perf's stddev_stats(): of the mean, not of one run */
static double run_stats__sd(const struct run_stats *s)
{
	return s->n < 2 ? 0 : sqrt(s->m2 / (s->n - 1) / s->n);
}

static struct rep_row *repeat__find(struct repeat *rp, const struct row *r)
{
	const char *key = r->key ? r->key : "";

	/* the command's row is keyed by its pid, another one each run */
	for (int i = 0; i < rp->nr; i++)
		if (rp->rows[i].scope == r->scope &&
		    (r->scope == SCOPE_COMMAND || !strcmp(rp->rows[i].key, key)))
			return &rp->rows[i];
	return NULL;
}

/* The first run makes the rows; later runs add to those they have. */
static int repeat__add_run(struct repeat *rp, const struct front_run *st, bool first)
{
	const struct row_set *rs = &st->rows;

	if (first) {
		rp->rows = calloc(rs->nr + 1, sizeof(*rp->rows));
		if (!rp->rows)
			return -ENOMEM;
		for (int k = 0; k < rs->nr; k++) {
			rp->rows[k].scope = rs->rows[k].scope;
			rp->rows[k].key = strdup(rs->rows[k].key ? rs->rows[k].key : "");
			if (!rp->rows[k].key)
				return -ENOMEM;
			rp->nr++;
		}
	}
	for (int k = 0; k < rs->nr; k++) {
		struct rep_row *rr = repeat__find(rp, &rs->rows[k]);

		if (!rr)
			continue;
		rr->runs++;
		for (int i = 0; i < st->out.nr_events && i < EMON_MAX_EVENTS; i++) {
			struct row_value v;

			int idx = st->out.ev[i].bpf_idx;

			row__value(&st->out, &rs->rows[k], i, &v);
			if (v.state != VALUE_COUNTED)
				continue;
			run_stats__add(&rr->ev[i], v.value);
			if (idx >= 0 && idx < EMON_MAX_EVENTS)
				run_stats__add(&rr->run[i], rs->rows[k].counts.c[idx].running);
		}
	}
	run_stats__add(&rp->elapsed, st->prev.t - st->t0);
	return 0;
}

/* The last run's rows become the means; those not in every run go. */
static void repeat__mean_rows(struct repeat *rp, struct front_run *st, int runs)
{
	struct row_set *rs = &st->rows;
	int n = 0;

	for (int k = 0; k < rs->nr; k++) {
		struct row *r = &rs->rows[k];
		struct rep_row *rr = repeat__find(rp, r);

		if (!rr || rr->runs != runs)
			continue;
		for (int i = 0; i < st->out.nr_events && i < EMON_MAX_EVENTS; i++) {
			const struct run_stats *s = &rr->ev[i];
			int idx = st->out.ev[i].bpf_idx;
			struct emon_count *c;

			if (idx < 0 || idx >= EMON_MAX_EVENTS || !s->n)
				continue;
			c = &r->counts.c[idx];
			c->counter = llround(s->mean);
			/* the mean is scaled already: running = enabled, the mean
			 * time the event ran (perf -x's RUN with -r); 0 for one
			 * counted from the switches (CSV's RUN is then the row's
			 * time, as for one run) */
			c->enabled = c->running = llround(rr->run[i].mean);
			c->unrun = 0;
			rr->noise[i] = s->mean ? 100.0 * run_stats__sd(s) / s->mean : 0;
		}
		r->noise = rr->noise;
		rs->rows[n++] = *r;
	}
	rs->nr = n;
}

static int repeat__print(struct repeat *rp, struct front_run *st, int runs)
{
	struct output *o = &st->out;
	double elapsed = rp->elapsed.mean;

	fclose(o->f);
	o->f = front_run__open_output(&st->o);
	if (!o->f)	/* as setup_output: 2 whatever the errno */
		return cli__fail(-EINVAL, "cannot write '%s': %s",
				 st->o.output ?: "stderr", strerror(errno));
	repeat__mean_rows(rp, st, runs);
	o->runs = runs;
	o->elapsed_sd = run_stats__sd(&rp->elapsed);
	o->ops->begin(o);
	o->ops->interval(o, elapsed, elapsed, st->rows.rows, st->rows.nr);
	o->ops->end(o, elapsed);
	if (fflush(o->f) || ferror(o->f))
		return cli__fail(-EIO, "writing the output: %s", strerror(errno));
	return 0;
}

static void repeat__free(struct repeat *rp)
{
	for (int i = 0; i < rp->nr; i++)
		free(rp->rows[i].key);
	free(rp->rows);
}

int stat__repeat(int argc, char **argv, long runs)
{
	struct front_run *st = NULL;
	struct repeat rp = { 0 };
	int ret = 0;

	for (long i = 0; i < runs && !ret; i++) {
		if (st) {
			front_run__cleanup(st);
			free(st);
		}
		st = calloc(1, sizeof(*st));
		if (!st) {
			ret = cli__exit_status(-ENOMEM);
			break;
		}
		ret = stat_opts__parse(&st->o, argc, argv);
		if (ret) {
			ret = cli__exit_status(ret);
			break;
		}
		st->quiet = true;
		ret = stat__run(st);
		if (!ret)
			ret = cli__exit_status(repeat__add_run(&rp, st, i == 0));
	}
	if (!ret)
		ret = repeat__print(&rp, st, runs);
	/* perf: the last run's status */
	if (!ret && command__poll(&st->cmd))
		ret = st->cmd.status;
	repeat__free(&rp);
	if (st)
		front_run__cleanup(st);
	free(st);
	return ret;
}
