// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * check's validation: for each of the engine's two read paths (events
 * taken from the switch itself, and EMON_SWITCH_EVENTS=counters: every
 * event read from its per-CPU perf_event, the path hardware events
 * take), an own engine counts the workload's cgroup from a snapshot
 * taken just before the workload starts to one just after it ended,
 * while the per-task reference counts the workload itself.
 *
 * Like with like: cpu-clock against the reference's task-clock (the
 * same clock; cpu.stat's usage runs 3-5% below both under heavy
 * switching), context-switches against the reference's count (the
 * workload's rusage is printed beside it). Tolerances are the rows'.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/check/check.h"
#include "cli/check/check_energy.h"
#include "cli/check/check_work.h"
#include "common/log.h"
#include "common/sigwake.h"
#include "engine/session/session.h"
#include "front/source.h"
#include "pmu/event.h"
#include "rapl/files.h"

#define SWITCH_ENV "EMON_SWITCH_EVENTS"

/*
 * cpu-clock: both sides time the same slices, at slightly different
 * points of the switch; 2% holds on a loaded machine (0.05-0.7% measured
 * here, idle and with a burner per CPU), a lost or doubled slice is
 * tens of percent. Switches: a few at the edges of the window (the
 * barrier's wake-up, the exits) on 20,000.
 */
static const struct check_tol tol_clock = { 2.0, 5.0, 0 };
static const struct check_tol tol_switches = { 1.0, 3.0, 10 };
static const struct check_tol tol_hw = { 3.0, 10.0, 0 };
static const struct check_tol tol_energy = { 2.0, 5.0, 0 };

/* Is root a tree a VM's host writes (serve --vm-energy): its zone named
 * vm-host? The reference reads it as any tree. */
static bool tree__vm_host(const char *root)
{
	char path[PATH_MAX], name[16];

	if (!root || rapl__path(path, sizeof(path), "%s/intel-rapl:0/name", root) ||
	    rapl__read_str(path, name, sizeof(name)))
		return false;
	return !strcmp(name, "vm-host\n") || !strcmp(name, "vm-host");
}

struct run_path {
	const char *name;	/* in the rows' names */
	const char *env;	/* EMON_SWITCH_EVENTS, NULL: unset */
};

static const struct run_path paths[] = {
	{ "switch", NULL },
	{ "counters", "counters" },
};

struct run {
	const struct run_path *path;
	struct source *src;
	struct snapshot first, last;
	bool have_first, have_last;
	struct check_work work;
	struct energy_ref eref;
	bool energy;		/* compare energy in this run */
};

/* An own engine whose events come the path's way; 0 or an exit status
 * (said). The environment is put back as it was. */
static int run__open(struct run *r, const struct check_host *h,
		     const struct check_opts *o)
{
	char events[128] = "cpu-clock,context-switches", *saved = NULL;
	struct source_opts so = { .no_daemon = true, .scopes = EMON_SNAP_CGROUPS };
	const char *was = getenv(SWITCH_ENV);
	int ret;

	if (h->has_cycles)
		strcat(events, ",cycles");
	if (h->has_instructions)
		strcat(events, ",instructions");
	so.eng.events = events;
	so.eng.energy = !r->energy ? "none" : tree__vm_host(o->powercap_root) ?
			"vm-host" : "powercap";
	so.eng.powercap_root = o->powercap_root;
	if (was && !(saved = strdup(was)))
		return -ENOMEM;
	if (r->path->env)
		setenv(SWITCH_ENV, r->path->env, 1);
	else
		unsetenv(SWITCH_ENV);
	ret = source__open(&r->src, &so);
	if (saved)
		setenv(SWITCH_ENV, saved, 1);
	else
		unsetenv(SWITCH_ENV);
	free(saved);
	return ret;
}

/* Tick the engine until the workload is gone; -EINTR on a signal. */
static int run__wait(struct run *r, double limit)
{
	int err;

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = sigwake.fd, .events = POLLIN },
			{ .fd = r->work.done_fd, .events = POLLIN },
		};
		double now = session__now(), wake = r->src->ops->next_tick(r->src);

		if (sigwake.count)
			return -EINTR;
		if (now >= limit)
			return -ETIMEDOUT;
		if (now >= wake) {
			err = r->src->ops->tick(r->src);
			if (err)
				return err;
			continue;
		}
		wake = wake < limit ? wake : limit;
		if (poll(pfd, 2, (int)((wake - now) * 1e3) + 1) > 0) {
			sigwake__drain();
			if (pfd[1].revents)
				return 0;
		}
	}
}

static const struct snap_entry *snap__cgroup(const struct snapshot *s, __u64 id)
{
	for (size_t i = 0; i < s->nr_cgrp; i++)
		if (s->cgrp[i].id == id)
			return &s->cgrp[i];
	return NULL;
}

/* The cgroup's count of event name over the window; false: not counted. */
static bool run__count(const struct run *r, const char *name, double *v)
{
	const struct snap_entry *a = snap__cgroup(&r->first, r->work.cgid);
	const struct snap_entry *b = snap__cgroup(&r->last, r->work.cgid);
	int pos = source__event_pos(r->src, name);
	struct counts zero = { 0 }, d;
	double ratio;

	if (pos < 0)
		return false;
	if (!b) {
		*v = 0;
		return true;
	}
	counts__delta(&d, &b->c, a ? &a->c : &zero, r->last.nr_events);
	return count__scaled(&d.c[pos], v, &ratio);
}

/* How a row shows its figure: value / scale, prec decimals, unit. */
struct figure_fmt {
	double scale;
	int prec;
	const char *unit;
};

static const struct figure_fmt fig_s = { 1e9, 3, "s" };
static const struct figure_fmt fig_count = { 1, 0, "" };
static const struct figure_fmt fig_watts = { 1, 2, "W" };

static void row__compare(struct check_report *rep, const char *name,
			 double got, double ref, const struct figure_fmt *f,
			 const struct check_tol *tol, const char *how)
{
	struct check_row *row;
	enum check_status st;
	char slack[32] = "";
	double pct;

	if (tol->abs_slack)
		snprintf(slack, sizeof(slack), " + %.*f%s%s", f->prec,
			 tol->abs_slack / f->scale, *f->unit ? " " : "", f->unit);
	st = check__judge(got, ref, tol, &pct);
	row = check__add(rep, st, name, "%s; ok within %g%%%s, warn within %g%%%s",
			 how, tol->ok_pct, slack, tol->warn_pct, slack);
	if (row)
		check_row__figure(row, got / f->scale, f->unit, "%.*f vs %.*f%s%s (%+.2f%%)",
				  f->prec, got / f->scale, f->prec, ref / f->scale,
				  *f->unit ? " " : "", f->unit, pct);
}

static void run__hw_rows(struct check_report *rep, const struct run *r,
			 const struct check_host *h)
{
	static const struct { const char *ev; enum check_ref ref; } hw[] = {
		{ "cycles", REF_CYCLES }, { "instructions", REF_INSTRUCTIONS },
	};
	char name[40];
	double got;

	for (size_t i = 0; i < sizeof(hw) / sizeof(hw[0]); i++) {
		bool cyc = hw[i].ref == REF_CYCLES;
		bool has = cyc ? h->has_cycles : h->has_instructions;

		snprintf(name, sizeof(name), "%s [%s]", hw[i].ev, r->path->name);
		if (!has)
			check__add(rep, CHECK_SKIP, name, "%s",
				   cyc ? h->cycles_reason : h->instructions_reason);
		else if (r->work.ref_err[hw[i].ref])
			check__add(rep, CHECK_SKIP, name, "the reference %s did not count: %s",
				   hw[i].ev, strerror(-r->work.ref_err[hw[i].ref]));
		else if (!run__count(r, hw[i].ev, &got))
			check__add(rep, CHECK_FAIL, name, "emon-perf did not count %s",
				   hw[i].ev);
		else
			row__compare(rep, name, got, r->work.ref[hw[i].ref], &fig_count,
				     &tol_hw, "against the per-task reference");
	}
}

static void run__sw_rows(struct check_report *rep, const struct run *r)
{
	const struct check_work *w = &r->work;
	char name[40], how[160];
	double got;

	/*
	 * Time whose owner the engine estimated (slices after switches the
	 * kernel did not trace: tasks kept out of tracepoints, such as a
	 * sandbox's agent; docs/stat.md): up to that much can land in the
	 * workload's cgroup or leave it. 0 where every switch is traced.
	 */
	struct check_tol tol = tol_clock;
	double unt = r->have_first && r->have_last ?
		     (double)(r->last.stats[EMON_STAT_UNTRACED_NS] -
			      r->first.stats[EMON_STAT_UNTRACED_NS]) : 0;

	snprintf(name, sizeof(name), "cpu-clock [%s]", r->path->name);
	snprintf(how, sizeof(how), "against the reference task-clock%s",
		 unt > 0 ? " (the slack: time after untraced switches, its owner estimated)" : "");
	tol.abs_slack = unt;
	if (!run__count(r, "cpu-clock", &got))
		check__add(rep, CHECK_FAIL, name, "emon-perf did not count cpu-clock");
	else
		row__compare(rep, name, got, w->ref[REF_TASK_CLOCK], &fig_s, &tol, how);
	snprintf(name, sizeof(name), "context-switches [%s]", r->path->name);
	snprintf(how, sizeof(how),
		 "against the reference (rusage: %ld; %d ping-pong round trips)",
		 w->ru.ru_nvcsw + w->ru.ru_nivcsw, w->rounds);
	if (w->ref_err[REF_SWITCHES])
		check__add(rep, CHECK_FAIL, name, "the reference did not count: %s",
			   strerror(-w->ref_err[REF_SWITCHES]));
	else if (!run__count(r, "context-switches", &got))
		check__add(rep, CHECK_FAIL, name, "emon-perf did not count context-switches");
	else
		row__compare(rep, name, got, w->ref[REF_SWITCHES], &fig_count,
			     &tol_switches, how);
}

/* The engine's measured energy over the window against the reference's,
 * as power: the two windows differ by the moments between their reads. */
static void run__energy_row(struct check_report *rep, const struct run *r)
{
	double j = 0, dt = r->last.t - r->first.t;
	double ref_w, got_w;
	char how[160];

	for (int p = 0; p < r->last.npkg; p++)
		j += r->last.pkg_energy[p] - r->first.pkg_energy[p];
	got_w = dt > 0 ? j / dt : 0;
	ref_w = r->eref.t1 > r->eref.t0 ?
		r->eref.joules / (r->eref.t1 - r->eref.t0) : 0;
	snprintf(how, sizeof(how), "powercap through emon-perf (%.2f J in %.2f s) against %s",
		 j, dt, r->eref.ops->name);
	row__compare(rep, "energy", got_w, ref_w, &fig_watts, &tol_energy, how);
}

static int run__snapshot(struct run *r, struct snapshot *s, bool *have)
{
	int err = r->src->ops->snapshot(r->src, s);

	*have = !err;
	return err;
}

/* Workload, engine and reference for one path; rows added. */
static int run__measure(struct run *r, struct check_report *rep,
			const struct check_host *h, const struct check_opts *o)
{
	char err[256] = "";
	double limit;
	int ret;

	ret = check_work__prepare(&r->work, h->cgroot, o->duration_s,
				  h->has_cycles || h->has_instructions, err, sizeof(err));
	if (!ret && r->energy && energy_ref__open(&r->eref, o->powercap_root, err,
						  sizeof(err)))
		r->energy = false;
	ret = ret ?: r->energy ? energy_ref__mark(&r->eref) : 0;
	ret = ret ?: run__snapshot(r, &r->first, &r->have_first);
	ret = ret ?: check_work__start(&r->work);
	/* a bound against a hang only: 10,000 round trips take seconds on
	 * an emulated CPU (a TCG guest) where a host takes a tenth */
	limit = o->duration_s * 3 + 60;
	ret = ret ?: run__wait(r, session__now() + limit);
	if (ret == -ETIMEDOUT && !err[0])
		snprintf(err, sizeof(err), "the workload did not end within %.0f s", limit);
	ret = ret ?: run__snapshot(r, &r->last, &r->have_last);
	ret = ret ?: r->energy ? energy_ref__mark(&r->eref) : 0;
	ret = ret ?: check_work__finish(&r->work);
	if (ret == -EINTR)
		return ret;
	if (ret) {
		check__add(rep, CHECK_FAIL, r->path->name, "%s",
			   err[0] ? err : strerror(-ret));
		return 0;
	}
	run__sw_rows(rep, r);
	run__hw_rows(rep, r, h);
	if (r->energy)
		run__energy_row(rep, r);
	else if (r->path == &paths[0])
		check__add(rep, CHECK_SKIP, "energy", "%s", err[0] ? err : h->energy_reason);
	return 0;
}

static void run__close(struct run *r)
{
	check_work__cleanup(&r->work);
	energy_ref__close(&r->eref);
	if (r->have_first)
		snapshot__free(&r->first);
	if (r->have_last)
		snapshot__free(&r->last);
	source__close(r->src);
}

int check_run__all(struct check_report *rep, const struct check_host *h,
		   const struct check_opts *o)
{
	int ret = 0;

	if (!h->cgroot[0]) {
		check__add(rep, CHECK_SKIP, "validation", "no cgroup2 mount to run it in");
		return 0;
	}
	check_row__figure(check__add(rep, CHECK_INFO, "workload", "a fork of emon-perf: "
				     "%d pipe round trips with a child, then CPU burn, "
				     "in a temporary cgroup; once per read path", WORK_ROUNDS),
			  o->duration_s, "s", "%.1f s x 2", o->duration_s);
	check__add(rep, CHECK_INFO, "reference", "per-task inherited counters on the "
		   "workload (perf stat -- cmd's way): a few hundred ns on each of its "
		   "switches, none on other tasks; its cycles and instructions take "
		   "hardware counters of their own while it runs");
	for (size_t i = 0; !ret && i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct run r = { .path = &paths[i] };

		/* energy once, in the first path: the source is the same */
		r.energy = !i && (o->powercap_root || (h->has_powercap && h->has_power_pmu));
		if (run__open(&r, h, o))
			check__add(rep, CHECK_FAIL, paths[i].name,
				   "emon-perf cannot count here (said above)");
		else
			ret = run__measure(&r, rep, h, o);
		if (sigwake.count)
			ret = -EINTR;
		run__close(&r);
	}
	return ret;
}
