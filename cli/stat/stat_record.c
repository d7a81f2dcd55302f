// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf stat record: a run of stat whose counts also go to a
 * perf.data (front/perf_data.h) that perf 6.1's `perf stat report` reads,
 * as `perf stat record` writes it: system-wide, a stat per event per CPU
 * (the CPU rows, built for the file and printed only with -A); for a
 * command, one per event (the CPU "-1", the command's pid the thread
 * map); -p's and -t's total as the first of their thread map's;
 * --per-thread's per thread, deferred to the end (front/perf_data.h), the
 * thread map every thread that had a row. With --per-socket... the CPU
 * rows still, the aggregation and the topology in the file for perf's
 * report to group them. -G's: an event per perf evsel (each event in its
 * cgroup or none; --for-each-cgroup's copy per cgroup), a cgroup's total
 * (not kept per CPU) the first CPU's stat. Each stat is the count since
 * the start (perf's counters are cumulative, its report takes each
 * round's difference), a round after each -I print, or one final round
 * with the run's time.
 *
 * The counts in the file are emon-perf's own as it printed them: val is
 * the scaled count, ena = run the time the event was enabled, so perf
 * scales nothing again (it shows no multiplexing percentage: emon-perf
 * estimated the count already). An event not counted in a round gets its
 * enabled time and no running time, perf's <not counted>; one this
 * machine cannot count gets no stat, perf's <not supported>.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "cli/stat/stat.h"
#include "common/array.h"
#include "common/cpu_topo.h"
#include "common/log.h"
#include "common/version.h"
#include "front/errors.h"
#include "front/output.h"
#include "front/perf_data.h"

struct cum {
	__u64 val, ena, run;
};

struct record {
	struct perf_data_desc d;
	struct perf_data_writer w;
	const char *path;
	const struct output_ops *inner;
	bool hide_cpu;		/* CPU rows for the file only (no -A) */
	bool task;		/* a command's, -p's or -t's counters */
	bool per_thread;	/* --per-thread: a cell per thread */
	bool described;
	bool interval;
	struct cum *cum;	/* [cell][event]: the CPU map's, or threads */
	size_t cum_cap, thr_cap;
	int nr_cells;
	/* output event i in cgroup c (-1: none) -> desc event, -1:
	 * map[(c + 1) * EMON_MAX_EVENTS + i] */
	int *map;
	bool one_cell[PERF_DATA_MAX_EVENTS];	/* a cgroup's: the first CPU's */
	struct row *tmp;
	size_t tmp_cap;
	int err;
	struct front_run *st;
};

/* the one recording of this process: the output's ops find it here */
static struct record *rec_now;

static void rec_begin(struct output *o)
{
	rec_now->inner->begin(o);
}

static int cpu_index(const struct perf_data_desc *d, const char *key)
{
	char *end;
	long cpu = strtol(key, &end, 10);

	for (int i = 0; !*end && i < d->nr_cpus; i++)
		if (d->cpus[i] == cpu)
			return i;
	return -1;
}

static void rec_describe(struct record *r)
{
	if (r->described)
		return;
	r->described = true;
	if (r->task && !r->d.threads)
		r->d.pid = r->st->cmd.pid ?: -1;
	/* --per-thread's: at the end, with every thread */
	if (!r->err && !r->w.body)
		r->err = perf_data__describe(&r->w, &r->d);
}

/*
 * The time a switch-counted event was enabled, which it has none of its
 * own (the CSV's RUN, front/output_csv.c): the interval on each of a
 * row's CPUs, or a command's own time (perf's task counters are enabled
 * while its tasks run), the interval where that is 0.
 */
static __u64 rec_ena(const struct row_values *rv, const struct row *rw, double dt)
{
	/* a command that did not run in the interval counted 0, not
	 * "<not counted>" (perf's for no running time): the interval */
	if (rw->nr_cpus || rv->time_idx < 0 ||
	    rv->v[rv->time_idx].state != VALUE_COUNTED || rv->v[rv->time_idx].value < 1)
		return (__u64)(dt * 1e9 * (rw->nr_cpus ?: 1) + 0.5);
	return (__u64)(rv->v[rv->time_idx].value + 0.5);
}

/*
 * --per-thread's thread of a row (COMM-TID): its index in the thread
 * map, a new one added with its cell; -1 for the map-full row, or out
 * of memory (r->err).
 */
static int thread_index(struct record *r, const struct row *rw)
{
	struct perf_data_desc *d = &r->d;
	char *end;
	long tid = strtol(rw->key, &end, 10);
	int i;

	if (*end || end == rw->key)
		return -1;
	for (i = 0; i < d->nr_threads; i++)
		if (d->threads[i].tid == tid)
			break;
	/* the map's name: the thread's last while it ran (after an exec,
	 * the new one); a row that did not run has the start's */
	if (i < d->nr_threads) {
		if (rw->comm && !rw->not_run)
			snprintf(d->threads[i].comm, sizeof(d->threads[i].comm), "%s", rw->comm);
		return i;
	}
	if (i == PERF_DATA_MAX_THREADS ||
	    array__grow(&d->threads, &r->thr_cap, i + 1, sizeof(*d->threads)) ||
	    array__grow(&r->cum, &r->cum_cap, (size_t)(i + 1) * d->nr_events + 1,
			sizeof(*r->cum))) {
		r->err = r->err ?: -ENOMEM;
		return -1;
	}
	d->threads[i] = (struct perf_data_thread){ .tid = tid };
	snprintf(d->threads[i].comm, sizeof(d->threads[i].comm), "%s", rw->comm ?: "");
	memset(&r->cum[(size_t)i * d->nr_events], 0, d->nr_events * sizeof(*r->cum));
	d->nr_threads = ++r->nr_cells;
	return i;
}

/* One row's events (map: its cgroup's row of r->map) into the running
 * totals of cell idx. */
static void rec_row(struct record *r, const struct output *o, const struct row *rw,
		    const int *map, int idx, double dt)
{
	struct row_values rv;

	row_values__init(&rv, o, rw);
	for (int i = 0; i < o->nr_events; i++) {
		const struct row_value *v = &rv.v[i];
		const struct emon_count *ec;
		struct cum *c;
		__u64 ena;

		if (map[i] < 0)
			continue;
		c = &r->cum[(size_t)idx * r->d.nr_events + map[i]];
		ec = &rw->counts.c[o->ev[i].grouped && o->ev[i].lead_idx >= 0 ?
				   o->ev[i].lead_idx : o->ev[i].bpf_idx];
		ena = ec->enabled ?: rec_ena(&rv, rw, dt);
		c->ena += ena;
		if (v->state == VALUE_COUNTED) {
			c->val += v->count;
			c->run += ena;
		}
	}
}

/* -G's row: its cgroup's row of r->map into *map, and cell 0 (the total
 * as the first CPU's stat); -1 for a cgroup not of -G */
static int cgroup_map(const struct record *r, const struct row *rw, const int **map)
{
	for (int c = 0; rw->key && c < r->st->o.nr_cgroups; c++)
		if (!strcmp(rw->key, r->st->o.cgroups[c])) {
			*map = r->map + (size_t)(c + 1) * EMON_MAX_EVENTS;
			return 0;
		}
	return -1;
}

static void rec_interval(struct output *o, double t, double dt,
			 const struct row *rows, int n)
{
	struct record *r = rec_now;
	int m = 0;

	rec_describe(r);
	for (int i = 0; i < n; i++) {
		const struct row *rw = &rows[i];
		const int *map = r->map;
		int idx = -1;

		if (!r->task && rw->scope == SCOPE_CPU)
			idx = cpu_index(&r->d, rw->key);
		else if (!r->task && rw->scope == SCOPE_CGROUP)
			idx = cgroup_map(r, rw, &map);
		else if (r->task && !r->per_thread && rw->scope == SCOPE_COMMAND)
			idx = 0;
		else if (r->per_thread && rw->scope == SCOPE_THREAD)
			idx = thread_index(r, rw);
		if (idx >= 0)
			rec_row(r, o, rw, map, idx, dt);
	}
	for (int e = 0; e < r->d.nr_events; e++)
		for (int idx = 0; idx < (r->one_cell[e] ? 1 : r->nr_cells); idx++) {
			const struct cum *c = &r->cum[(size_t)idx * r->d.nr_events + e];

			perf_data__stat(&r->w, &r->d, e, idx, c->val, c->ena, c->run);
		}
	if (r->interval)
		perf_data__round(&r->w, PERF_STAT_ROUND_TYPE__INTERVAL, (__u64)(t * 1e9 + 0.5));
	if (!r->hide_cpu) {
		r->inner->interval(o, t, dt, rows, n);
		return;
	}
	if (array__grow(&r->tmp, &r->tmp_cap, n, sizeof(*r->tmp))) {
		r->err = r->err ?: -ENOMEM;
		return;
	}
	for (int i = 0; i < n; i++)
		if (rows[i].scope != SCOPE_CPU)
			r->tmp[m++] = rows[i];
	r->inner->interval(o, t, dt, r->tmp, m);
}

static void rec_end(struct output *o, double elapsed)
{
	struct record *r = rec_now;
	int err;

	rec_describe(r);
	if (!r->interval)
		perf_data__round(&r->w, PERF_STAT_ROUND_TYPE__FINAL,
				 (__u64)(elapsed * 1e9 + 0.5));
	err = perf_data__finish(&r->w, &r->d);
	r->err = r->err ?: err;
	o->ops = r->inner;
	r->inner->end(o, elapsed);
}

static const struct output_ops record_ops = {
	.name = "perf.data",
	.begin = rec_begin,
	.interval = rec_interval,
	.end = rec_end,
};

/* uname's and the command line's strings, as perf's header has them */
static int rec_env(struct perf_data_desc *d, char **argv, int argc)
{
	struct utsname u;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t len, off;

	exe[n > 0 ? n : 0] = '\0';
	if (!uname(&u)) {
		snprintf(d->hostname, sizeof(d->hostname), "%s", u.nodename);
		snprintf(d->osrelease, sizeof(d->osrelease), "%s", u.release);
		snprintf(d->arch, sizeof(d->arch), "%s", u.machine);
	}
	snprintf(d->version, sizeof(d->version), "emon-perf %s", EMON_VERSION);
	/* the words, each ended by its NUL, then an empty one */
	len = strlen(exe) + 2;
	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	d->cmdline = calloc(1, len + 1);
	if (!d->cmdline)
		return -ENOMEM;
	off = sprintf(d->cmdline, "%s", exe[0] ? exe : "emon-perf") + 1;
	for (int i = 0; i < argc; i++)
		off += sprintf(d->cmdline + off, "%s", argv[i]) + 1;
	return 0;
}

/* perf's aggregation mode of the file: what its report prints unless
 * told otherwise */
static int rec_aggr_mode(unsigned int aggr)
{
	return aggr & (1u << SCOPE_CPU) ? AGGR_NONE :
	       aggr & (1u << SCOPE_SOCKET) ? AGGR_SOCKET :
	       aggr & (1u << SCOPE_DIE) ? AGGR_DIE :
	       aggr & (1u << SCOPE_CORE) ? AGGR_CORE :
	       aggr & (1u << SCOPE_NODE) ? AGGR_NODE : AGGR_GLOBAL;
}

/*
 * Each possible CPU's socket, die, core and node from sysfs, as perf
 * writes them for its report's --per-socket, --per-die, --per-core and
 * --per-node (an offline CPU's -1, perf's).
 */
static int rec_places(struct perf_data_desc *d, int ncpus)
{
	d->nr_cpus_avail = ncpus < PERF_DATA_MAX_CPUS ? ncpus : PERF_DATA_MAX_CPUS;
	d->place = calloc(d->nr_cpus_avail ?: 1, sizeof(*d->place));
	if (!d->place)
		return -ENOMEM;
	for (int cpu = 0; cpu < d->nr_cpus_avail; cpu++) {
		struct cpu_place p;

		if (cpu_place__read(NULL, cpu, &p))
			p = (struct cpu_place){ -1, -1, -1, -1 };
		d->place[cpu] = (struct perf_data_place){ p.pkg, p.die, p.core, p.node };
	}
	return 0;
}

/* a file event of pe, as perf's attr: its counts with times */
static void rec_event(struct perf_data_event *e, const struct pmu_event *pe)
{
	snprintf(e->name, sizeof(e->name), "%s", pe->name);
	e->attr = pe->attr;
	e->attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			      PERF_FORMAT_TOTAL_TIME_RUNNING;
	e->attr.sample_type = PERF_SAMPLE_IDENTIFIER;
	e->attr.inherit = 1;
	e->scale = 1;
	if (pe->is_time) {
		snprintf(e->unit, sizeof(e->unit), "msec");
		e->scale = 1e-6;
	}
}

/* -p's processes or -t's threads, the thread map (their total is the
 * first's stat, perf's report sums them), with their names */
static int rec_targets(struct perf_data_desc *d, const struct targets *tg)
{
	int n = tg->nr_pids ?: tg->nr_tids;

	d->threads = calloc(n, sizeof(*d->threads));
	if (!d->threads)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		struct perf_data_thread *t = &d->threads[i];
		char path[64];
		FILE *f;

		t->tid = tg->nr_pids ? tg->pids[i] : tg->tids[i];
		snprintf(path, sizeof(path), "/proc/%d/comm", t->tid);
		f = fopen(path, "re");
		if (f && fgets(t->comm, sizeof(t->comm), f))
			t->comm[strcspn(t->comm, "\n")] = '\0';
		if (f)
			fclose(f);
	}
	d->nr_threads = n;
	d->pid = d->threads[0].tid;
	return 0;
}

/* The run's events and CPUs, the file created: before counting starts. */
static int rec_hook(struct front_run *st, void *arg)
{
	struct record *r = arg;
	struct perf_data_desc *d = &r->d;
	int err;

	r->st = st;
	r->task = st->sc.command_mode || st->o.tg.nr_pids || st->o.tg.nr_tids;
	r->per_thread = st->o.tg.per_thread;
	r->interval = st->o.interval_ms > 0;
	d->aggr_mode = r->per_thread ? AGGR_THREAD : rec_aggr_mode(st->o.aggr);
	d->interval_ms = st->o.interval_ms;
	d->scale = true;
	d->pid = -1;
	for (int cpu = 0; !r->task && cpu < st->src->meta.ncpus; cpu++) {
		if (!st->prev.online || !st->prev.online[cpu] ||
		    (st->o.tg.has_cpus && !pmu_cpus__has(&st->o.tg.cpus, cpu)) ||
		    d->nr_cpus == PERF_DATA_MAX_CPUS)
			continue;
		d->cpus[d->nr_cpus++] = cpu;
	}
	if (!r->task && rec_places(d, st->src->meta.ncpus))
		return cli__exit_status(-ENOMEM);
	r->map = malloc((st->o.nr_cgroups + 1) * sizeof(int[EMON_MAX_EVENTS]));
	if (!r->map)
		return cli__exit_status(-ENOMEM);
	memset(r->map, 0xff, (st->o.nr_cgroups + 1) * sizeof(int[EMON_MAX_EVENTS]));
	/* perf's evsels: -G after -e, each event in its cgroup or none;
	 * --for-each-cgroup, each cgroup's copy of every event */
	for (int c = st->o.nr_cgroups && !st->o.cg_paired ? 0 : -1;
	     c < (st->o.cg_paired ? 0 : st->o.nr_cgroups); c++)
		for (int i = 0; i < st->out.nr_events; i++) {
			int cg = st->o.cg_paired ? st->o.cg_of[i] - 1 : c;

			if (!st->out.ev[i].supported)
				continue;
			if (d->nr_events == PERF_DATA_MAX_EVENTS)
				return cli__fail(-EINVAL, "stat record: over %d events in all "
						 "(each cgroup's copy of each counts)",
						 PERF_DATA_MAX_EVENTS);
			r->map[(cg + 1) * EMON_MAX_EVENTS + i] = d->nr_events;
			r->one_cell[d->nr_events] = cg >= 0;
			rec_event(&d->ev[d->nr_events++], &st->events.ev[i]);
		}
	r->nr_cells = r->per_thread ? 0 : d->nr_cpus ?: 1;
	if (array__grow(&r->cum, &r->cum_cap, (size_t)d->nr_events * r->nr_cells + 1,
			sizeof(*r->cum)) ||
	    (r->task && !st->sc.command_mode && !r->per_thread && rec_targets(d, &st->o.tg)))
		return cli__exit_status(-ENOMEM);
	memset(r->cum, 0, r->cum_cap * sizeof(*r->cum));
	err = perf_data__create(&r->w, r->path, d);
	err = err ?: r->per_thread ? perf_data__defer(&r->w) : 0;
	if (err)
		return cli__fail(-EINVAL, "cannot write '%s': %s", r->path, strerror(-err));
	r->inner = st->out.ops;
	st->out.ops = &record_ops;
	if (r->hide_cpu)
		st->out.scopes &= ~(1u << SCOPE_CPU);
	rec_now = r;
	return 0;
}

/* What perf stat record does that this one does not: one line, exit 2. */
static int rec_check(const struct front_opts *o)
{
	const unsigned int aggr = o->aggr & ~(1u << SCOPE_THREAD);
	const char *what = o->tg.repeat > 1 ? "-r" :
			   o->by ? "--by" :
			   NULL;
	const char *flag = aggr & (1u << SCOPE_CPU) ? "-A" :
			   aggr & (1u << SCOPE_SOCKET) ? "--per-socket" :
			   aggr & (1u << SCOPE_DIE) ? "--per-die" :
			   aggr & (1u << SCOPE_CORE) ? "--per-core" : "--per-node";

	if (what && o->tg.repeat > 1) {
		pr_err("stat record: -r is not recorded (perf 6.1's: \"Cannot use -r option "
		       "with perf stat record\")");
		return -EINVAL;
	}
	/* perf 6.1 records it, and its report of the file fails */
	if (!what && o->nr_cgroups && aggr) {
		pr_err("stat record: -G with %s: emon-perf keeps a cgroup's counts whole, "
		       "not per CPU", flag);
		return -EINVAL;
	}
	if (!what && o->tg.per_thread && !o->tg.nr_pids && !o->tg.nr_tids) {
		pr_err("stat record: --per-thread needs -p or -t (perf 6.1's own record of "
		       "-a --per-thread: its report fails, \"failed to process type: 0\")");
		return -EINVAL;
	}
	if (!what && (aggr & (aggr - 1))) {
		pr_err("stat record: one of -A, --per-socket, --per-die, --per-core and --per-node, "
		       "the file's one aggregation");
		return -EINVAL;
	}
	/* perf's refuses -A so, and records nothing with --per-socket */
	if (!what && aggr && !o->all_cpus) {
		pr_err("stat record: %s needs -a or -C, as perf's", flag);
		return -EINVAL;
	}
	if (!what)
		return 0;
	pr_err("stat record: %s is not recorded (what it records: -a, -C, -A, --per-socket, "
	       "--per-die, --per-core, --per-node, -p, -t, --per-thread, -G, -I and a command)",
	       what);
	return -EINVAL;
}

int stat__record(int argc, char **argv, char **full_argv, int full_argc)
{
	struct front_run *st = calloc(1, sizeof(*st));
	struct record *r = calloc(1, sizeof(*r));
	int ret;

	if (!st || !r) {
		ret = cli__exit_status(-ENOMEM);
		goto out;
	}
	ret = stat_opts__parse(&st->o, argc, argv);
	ret = ret ?: rec_check(&st->o);
	if (ret) {
		ret = cli__parse_status(ret);
		goto out;
	}
	/* perf's: -o names the data file; the counts go to stderr */
	r->path = st->o.output ?: "perf.data";
	st->o.output = NULL;
	ret = rec_env(&r->d, full_argv, full_argc);
	if (ret) {
		ret = cli__exit_status(ret);
		goto out;
	}
	if ((!st->o.cmd || st->o.all_cpus || st->o.nr_cgroups) && !st->o.tg.nr_pids &&
	    !st->o.tg.nr_tids) {
		/* system-wide: a stat per CPU, from the CPU rows; the rows
		 * printed those of the aggregation, the system's without
		 * (-G's: its cgroups', and the system's for an event of
		 * none) */
		r->hide_cpu = !(st->o.aggr & (1u << SCOPE_CPU));
		st->o.by = 1u << SCOPE_CPU | st->o.aggr |
			   (st->o.aggr || (st->o.nr_cgroups && !st->o.cg_sys) ?
			    0 : 1u << SCOPE_SYSTEM) |
			   (st->o.nr_cgroups ? 1u << SCOPE_CGROUP : 0);
	}
	ret = stat__run_with(st, rec_hook, r);
	if (!ret && r->err)
		ret = cli__fail(-EIO, "writing '%s': %s", r->path, strerror(-r->err));
	if (!ret && command__poll(&st->cmd))
		ret = st->cmd.status;
out:
	if (r && r->w.f)	/* a run that failed before its end */
		fclose(r->w.f);
	if (r && r->w.body)
		fclose(r->w.body);
	if (st)
		front_run__cleanup(st);
	if (r) {
		perf_data__desc_free(&r->d);
		free(r->cum);
		free(r->map);
		free(r->tmp);
	}
	free(r);
	free(st);
	rec_now = NULL;
	return ret;
}
