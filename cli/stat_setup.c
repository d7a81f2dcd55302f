// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf stat's setup: the -G paths, the events (checked before -o
 * truncates a file), the output, then the source of snapshots (the
 * daemon, or an own engine), what the rows need of it and the first
 * snapshot. Each step prints its one-line error and returns the exit
 * status. Its undo, stat__cleanup(), is the one cleanup of stat and top.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/stat_run.h"
#include "pmu/event.h"

static int check_cgroups(struct stat_run *st)
{
	__u64 id;
	int ret;

	if (cgroup__find_mount("/proc/mounts", st->cgroot, sizeof(st->cgroot))) {
		pr_err("no cgroup2 file system mounted (see /proc/mounts)");
		return 1;
	}
	for (int i = 0; i < st->o.nr_cgroups; i++) {
		ret = cgroup__id(st->cgroot, st->o.cgroups[i], &id);
		if (ret) {
			pr_err("cgroup '%s' not found under %s: %s", st->o.cgroups[i],
			       st->cgroot, strerror(-ret));
			return 2;
		}
	}
	return 0;
}

static int check_events(struct stat_run *st)
{
	char err[512];

	if (pmu_event_list__parse(&st->events, st->o.events, err, sizeof(err))) {
		pr_err("%s", err);
		return 2;
	}
	return 0;
}

static int setup_output(struct stat_run *st)
{
	struct output *o = &st->out;

	o->f = stdout;
	if (st->o.output) {
		o->f = fopen(st->o.output, "we");
		if (!o->f) {
			pr_err("cannot write '%s': %s", st->o.output, strerror(errno));
			o->f = NULL;
			return 2;
		}
	}
	/* each interval ends with a flush: one write for thousands of rows */
	setvbuf(o->f, NULL, _IOFBF, 1 << 16);
	o->ops = st->o.json ? &output_json_ops :
		 st->o.sep ? &output_csv_ops : &output_text_ops;
	o->sep = st->o.sep;
	o->interval_mode = st->o.interval_ms > 0;
	if (st->o.cmd) {
		size_t n = 0;

		for (char **a = st->o.cmd; *a && n < sizeof(st->target) - 1; a++)
			n += snprintf(st->target + n, sizeof(st->target) - n, "%s%s",
				      a == st->o.cmd ? "" : " ", *a);
		o->target = st->target;
	} else {
		o->target = "system wide";
	}
	return 0;
}

static unsigned int wanted_scopes(const struct stat_run *st)
{
	unsigned int s = 0;

	if (st->out.scopes & ((1u << SCOPE_CGROUP) | (1u << SCOPE_CONTAINER)))
		s |= EMON_SNAP_CGROUPS;
	if (st->out.scopes & (1u << SCOPE_PROCESS))
		s |= st->sc.command_mode ? EMON_SNAP_PROCS_TREE : EMON_SNAP_PROCS;
	return s;
}

static int setup_source(struct stat_run *st)
{
	struct source_opts so = {
		.eng = st->o.eng,
		.socket = st->o.socket,
		.no_daemon = st->o.no_daemon,
		.own_options = st->o.eng.energy || st->o.eng.powercap_root ||
			       st->o.eng.split_by || st->o.eng.idle_watts,
		.scopes = wanted_scopes(st),
		.tree = st->sc.command_mode,
		.no_hist = st->no_hist,
	};

	so.eng.events = st->o.events;
	return cli__exit_status(source__open(&st->src, &so));
}

/* Each event as the outputs show it: where it is in the snapshots. */
static void setup_events(struct stat_run *st)
{
	const struct pmu_event_list *l = &st->events;

	for (int i = 0; i < l->nr; i++) {
		struct row_event *re = &st->out.ev[i];
		int pos = source__event_pos(st->src, l->ev[i].name);

		re->name = l->ev[i].name;
		re->is_time = l->ev[i].is_time;
		re->supported = pos >= 0;
		re->bpf_idx = pos >= 0 ? pos : -1;
	}
	st->out.nr_events = l->nr;
}

static void setup_energy(struct stat_run *st)
{
	const struct snap_meta *m = &st->src->meta;

	if (!m->energy_on)
		return;
	st->out.energy_source = m->energy_source;
	st->out.split_by = m->split_by;
	st->out.energy_estimated = m->energy_estimated;
	st->sc.energy_on = true;
}

/* The source has the view when it was asked for (source__open). */
static void setup_sched(struct stat_run *st)
{
	const struct snap_meta *m = &st->src->meta;

	st->out.sched = st->o.eng.sched && m->sched_on;
	st->out.sched_hist = st->out.sched && st->o.sched_hist;
	st->out.sched_ms = m->sched_ms;
}

static void setup_ctx(struct stat_run *st)
{
	const struct snap_meta *m = &st->src->meta;

	st->sc.opts = &st->o;
	st->sc.ncpus = m->ncpus;
	st->sc.cpu_pkg = m->cpu_pkg;
	st->sc.pkg_id = m->pkg_id;
	st->sc.npkg = m->npkg;
	st->sc.sort_idx = -1;
	for (int i = 0; i < st->out.nr_events && st->sc.sort_idx < 0; i++)
		if (st->out.ev[i].supported)
			st->sc.sort_idx = st->out.ev[i].bpf_idx;
}

int stat__setup(struct stat_run *st)
{
	int ret, nr = 0;

	st->out.scopes = st->o.by | (st->sc.command_mode ? 1u << SCOPE_COMMAND : 0);
	ret = check_cgroups(st);
	ret = ret ?: check_events(st);
	ret = ret ?: setup_output(st);
	ret = ret ?: setup_source(st);
	if (ret)
		return ret;
	setup_events(st);
	setup_energy(st);
	setup_sched(st);
	setup_ctx(st);
	for (int i = 0; i < EMON_MAX_EVENTS; i++)
		nr += !!(st->src->req.events & (1u << i));
	if (aggregate__init(&st->agg, st->src->meta.ncpus, st->src->meta.npkg,
			    st->src->meta.cpu_pkg, nr) ||
	    aggregate__init_trees(&st->agg, 1))
		return 1;
	st->agg_init = true;
	/* counting starts here: the first snapshot */
	ret = st->src->ops->snapshot(st->src, &st->prev);
	if (ret)	/* a view the daemon refuses is the user's to fix: 2 */
		return cli__fail(ret, "taking the first snapshot: %s",
				 st->src->why[0] ? st->src->why : strerror(-ret));
	return 0;
}

void stat__cleanup(struct stat_run *st)
{
	command__stop(&st->cmd);
	source__close(st->src);
	if (st->out.f && st->out.f != stdout)
		fclose(st->out.f);
	row_set__exit(&st->rows);
	if (st->agg_init)
		aggregate__exit(&st->agg);
	if (st->have_last && st->last.mem != st->prev.mem)
		snapshot__free(&st->last);
	snapshot__free(&st->prev);
	stat_opts__free(&st->o);
}
