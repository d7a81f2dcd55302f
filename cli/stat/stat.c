// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf stat: check the input, find a source of snapshots (the daemon
 * when it runs and counts what is asked, else an own engine: one event
 * per CPU per metric and the BPF side), take a first snapshot, and print
 * the difference to the next one at every -I or at the end.
 *
 * Every exit path goes through one cleanup: the source closed (links
 * destroyed, maps and perf_event fds closed, or the daemon's connection,
 * which frees its command tree), the command ended and reaped
 * (front/command.c). The kernel drops BPF links and perf events with the
 * last fd, so even SIGKILL leaves nothing attached.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <math.h>
#include "front/command.h"
#include "cli/commands.h"
#include "front/errors.h"
#include "front/heap.h"
#include "common/sigwake.h"
#include "cli/stat/stat.h"
#include "cli/stat/stat_hint.h"
#include "rapl/energy.h"
#include "engine/session/session.h"


/*
 * Before the command's exec: its tree is followed from its first step.
 * A tree the daemon will not follow (a uid's --max-trees-per-uid, the
 * tree map full) would leave the command uncounted: it does not start.
 */
static int follow_command(pid_t pid, void *arg)
{
	struct front_run *st = arg;
	int err;

	st->sc.tree_root = pid;
	if (!st->sc.command_mode)	/* with -a or -G it only sets the time */
		return 0;
	err = st->src->ops->track(st->src, pid);
	if (err)
		pr_err("the command is not started: its tree cannot be followed: %s",
		       st->src->why[0] ? st->src->why : strerror(-err));
	return err;
}

static int spawn_command(struct front_run *st)
{
	int err;

	/*
	 * Stopped while loading: the command is not started, rather than
	 * given the signal in its first steps, where a shell may lose it
	 * (dash, caught while forking a child, waits for that child anyway).
	 */
	if (sigwake.count)
		return 128 + sigwake.last;
	err = command__spawn(&st->cmd, st->o.cmd, follow_command, st);
	/* a command that cannot run: perf's line and status (its
	 * run_perf_stat returns -1, which exits 255), no counts */
	if (err && st->cmd.exec_failed) {
		fprintf(stderr, "Workload failed: %s\n", strerror(-err));
		return STAT_WORKLOAD_FAILED;
	}
	if (err && st->cmd.not_started)	/* follow_command said why */
		return cli__exit_status(err);
	if (err)	/* pipe2 or fork */
		return cli__fail(err, "cannot start the command: %s", strerror(-err));
	return 0;
}

/* The newest snapshot replaces the one kept in st->last. */
static int take_snapshot(struct front_run *st)
{
	struct snapshot s;
	int err = st->src->ops->snapshot(st->src, &s);

	if (err)
		return err;
	if (st->have_last && st->last.mem != st->prev.mem)
		snapshot__free(&st->last);
	st->last = s;
	st->have_last = true;
	return 0;
}

/* The rows of the interval from prev to last (dt seconds). */
static int build_rows(struct front_run *st, double dt)
{
	int err;

	aggregate__reset(&st->agg);
	err = snapshot__diff(&st->last, &st->prev, &st->agg);
	if (err) {
		pr_err("reading the counts: %s", strerror(-err));
		return err;
	}
	st->sc.online = st->last.online;
	st->out.ncpus = 0;
	for (int cpu = 0; cpu < st->last.ncpus; cpu++)
		st->out.ncpus += st->last.online[cpu];
	err = row_set__build(&st->sc, &st->agg, dt, &st->rows);
	if (err) {
		pr_err("building rows: %s", strerror(-err));
		return err;
	}
	row_set__top(&st->rows, st->sc.sort_idx, st->o.top);
	return 0;
}

/* last becomes prev (the first snapshot stays, for --summary) */
static void advance_prev(struct front_run *st)
{
	if (!st->have_first || st->prev.mem != st->first.mem)
		snapshot__free(&st->prev);
	st->prev = st->last;
}

/* The last print's time: with --control, prev may be later (a span) */
static double print_t;

/* The interval from prev to last, printed; last becomes prev. */
static int print_interval(struct front_run *st, double t0)
{
	double t = st->last.t, dt = t - st->prev.t;
	int err = build_rows(st, dt);

	if (err)
		return err;
	/* --control, -D -1: the enabled spans of the interval alone, whose
	 * rates are of the whole interval, as perf's */
	if (st->o.control || st->o.tg.delay_ms < 0) {
		stat_control__rows(&st->rows, st->agg.nr_events);
		dt = t - print_t;
	}
	print_t = t;
	if (st->agg.no_sys && !st->said_no_sys &&
	    (st->o.by & (1u << SCOPE_SYSTEM | 1u << SCOPE_CPU | 1u << SCOPE_SOCKET |
			    1u << SCOPE_DIE | 1u << SCOPE_CORE) || st->sc.energy_on)) {
		pr_warn("the daemon shows this user its own processes and cgroups only: "
			"no system, CPU or socket rows and no energy (docs/security.md: "
			"serve --admin-group, or perf_event_paranoid <= 0)");
		st->said_no_sys = true;
	}
	st->out.ops->interval(&st->out, t - t0, dt, st->rows.rows, st->rows.nr);
	st->undercounted |= rows__undercounted(&st->out, st->rows.rows, st->rows.nr);
	advance_prev(st);
	heap__trim();
	if (fflush(st->out.f) || ferror(st->out.f)) {
		if (errno == EPIPE)
			return -EPIPE;
		pr_err("writing the output: %s", strerror(errno));
		return -EIO;
	}
	return 0;
}


/*
 * perf --summary: after -I's last print, the whole run as without -I
 * (CSV's lines led by "summary", unless --no-csv-summary).
 */
static int print_summary(struct front_run *st)
{
	double dt = st->prev.t - st->first.t;
	int err;

	aggregate__reset(&st->agg);
	err = snapshot__diff(&st->prev, &st->first, &st->agg);
	err = err ?: row_set__build(&st->sc, &st->agg, dt, &st->rows);
	if (err) {
		pr_err("the summary's counts: %s", strerror(-err));
		return err;
	}
	row_set__top(&st->rows, st->sc.sort_idx, st->o.top);
	st->out.interval_mode = false;
	st->out.csv_lead = st->o.no_csv_summary ? NULL : "summary";
	st->out.ops->interval(&st->out, dt, dt, st->rows.rows, st->rows.nr);
	return 0;
}

/* Signals and the command: true when the run should end now. */
static bool stat_should_end(struct front_run *st, double now, double deadline)
{
	bool done = command__poll(&st->cmd);

	/* the command decides how it ends; a second signal ends us */
	if (sigwake.count && !st->forwarded &&
	    command__forward(&st->cmd, sigwake.last, sigwake.by_kernel))
		st->forwarded = sigwake.count;
	st->late_wake = command__forward_late(&st->cmd);
	/* perf -p ends with its processes; with a command, that decides */
	if (!st->o.cmd && targets__pids_gone(&st->o.tg))
		done = true;
	return done || (deadline && now >= deadline) ||
	       (sigwake.count && sigwake.count > st->forwarded);
}

/*
 * The daemon went away (or stopped answering): print what we have, the
 * counts up to its last answer, and say why. Exit status 1.
 */
static int daemon_gone(struct front_run *st, double t0, int err)
{
	const char *why = st->src->why[0] ? st->src->why :
			  err == -ECONNRESET || err == -EPIPE ? "it went away" :
			  strerror(-err);

	if (st->last.seq > st->prev.seq && st->last.mem != st->prev.mem)
		print_interval(st, t0);
	st->out.ops->end(&st->out, st->prev.t - t0);
	fflush(st->out.f);
	pr_err("lost the daemon (pid %u, %s): %s; counts up to %.3f s printed",
	       st->src->meta.pid, st->src->path, why, st->prev.t - t0);
	return -ECONNRESET;
}

/*
 * perf's "seconds user" and "seconds sys": the command's rusage, and its
 * children's that it waited for (wait4's), once it has exited; not
 * printed when it is still running (--timeout, a second signal).
 */
static void stat_rusage(struct front_run *st)
{
	struct rusage ru;

	if (!st->out.ru_display)
		return;
	if (command__reap(&st->cmd, &ru)) {
		st->out.ru_display = false;
		return;
	}
	st->out.ru_user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	st->out.ru_sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/*
 * --control's commands: "disable" keeps the enabled span's rows (from
 * prev to now) for the next print and starts a new span; "enable" starts
 * one, dropping the disabled span. Each is answered "ack", as perf.
 */
static int stat_control(struct front_run *st)
{
	int cmd, err;

	while ((cmd = stat_control__next()) != STAT_CTL_NONE) {
		bool off = cmd == STAT_CTL_DISABLE;

		if ((cmd == STAT_CTL_ENABLE || off) && off != stat_control__disabled()) {
			err = take_snapshot(st);
			if (!err && off)
				err = build_rows(st, st->last.t - st->prev.t) ?:
				      stat_control__keep(&st->rows, st->agg.nr_events);
			if (err)
				return err;
			advance_prev(st);
			stat_control__set(off);
		}
		stat_control__ack();
	}
	return 0;
}

/*
 * The run's end: counting is over (the last snapshot taken); perf's
 * --post runs (its failure said, and the counts printed all the same,
 * as perf), then the last interval (last), --summary's, the end.
 */
static int stat_finish(struct front_run *st, double t0, bool last)
{
	int err = 0;

	stat_rusage(st);
	stat_compat__hook("--post", st->o.post_cmd);
	if (last)
		err = print_interval(st, t0);
	if (!err && st->have_first)
		err = print_summary(st);
	st->out.ops->end(&st->out, st->prev.t - t0);
	fflush(st->out.f);
	return err;
}

/*
 * An own engine is ticked every read period (its maps hold one period
 * of keys); the daemon ticks itself and is asked for a snapshot every
 * second, so a daemon that dies leaves its last one to print. Prints
 * come at every -I mark counted from the start, the last one at the end.
 */
static int stat_loop(struct front_run *st)
{
	double t0 = st->t0 = st->prev.t, next_print, deadline, next_poll;
	double ival = st->o.interval_ms / 1e3;
	bool attached = st->src->ops->fd(st->src) >= 0;
	int err;

	next_print = ival ? t0 + ival : 0;
	print_t = t0;
	next_poll = attached ? t0 + 1 : INFINITY;
	deadline = st->o.timeout_ms ? t0 + st->o.timeout_ms / 1e3 : 0;
	st->out.ops->begin(&st->out);

	for (;;) {
		struct pollfd pfd[3] = {
			{ .fd = sigwake.fd, .events = POLLIN },
			{ .fd = st->src->ops->fd(st->src), .events = POLLIN },
			{ .fd = stat_control__fd(), .events = POLLIN },
		};
		double now = session__now(), wake = st->src->ops->next_tick(st->src);
		bool ending = stat_should_end(st, now, deadline);

		if (next_print && next_print < wake)
			wake = next_print;
		if (deadline && deadline < wake)
			wake = deadline;
		if (next_poll < wake)
			wake = next_poll;
		if (st->late_wake && st->late_wake < wake)
			wake = st->late_wake;
		if (!ending && now < wake) {
			double ms = (wake - now) * 1e3 + 1;

			if (poll(pfd, 3, ms > 60000 ? 60000 : (int)ms) > 0) {
				sigwake__drain();
				/* the daemon says nothing unasked: that is its end */
				if (attached && pfd[1].revents)
					return daemon_gone(st, t0, -ECONNRESET);
				if (pfd[2].revents && (err = stat_control(st)))
					return attached ? daemon_gone(st, t0, err) : err;
			}
			continue;
		}
		if (!ending && now >= st->src->ops->next_tick(st->src)) {
			err = st->src->ops->tick(st->src);
			if (err)
				return err;
		}
		if (ending || (next_print && now >= next_print - 1e-3) || now >= next_poll) {
			err = take_snapshot(st);
			if (err)
				return attached ? daemon_gone(st, t0, err) : err;
			next_poll = attached ? now + 1 : INFINITY;
		}
		if (ending) {
			return stat_finish(st, t0, !st->printed_all &&
					   (!ival || st->last.seq > st->prev.seq));
		}
		if (next_print && now >= next_print - 1e-3) {
			err = print_interval(st, t0);
			if (err)
				return err;
			/*
			 * --interval-count: the last print ends the run; with a
			 * command, as perf, the run waits for it, printing no more
			 */
			if (st->o.tg.interval_count && ++st->prints == st->o.tg.interval_count) {
				if (!st->o.cmd)
					return stat_finish(st, t0, false);
				st->printed_all = true;
			}
			while (next_print <= now + 1e-3)
				next_print += ival;
			if (st->printed_all)
				next_print = 0;
		}
	}
}

/*
 * Why auto found no energy source: worth a line when energy was asked
 * for (an energy option) or with -v. With emon-perf's own rows (--by
 * container, pod, namespace or process: energy's home) one line names
 * the choices for this kind of machine; perf's habits (no such rows, -x
 * or -j) get no line. A source that is there
 * shows in the output itself.
 */
static void stat_energy_note(const struct front_run *st)
{
	const unsigned int own = 1u << SCOPE_CONTAINER | 1u << SCOPE_POD |
				 1u << SCOPE_NAMESPACE | 1u << SCOPE_PROCESS;
	const struct engine_opts *eo = &st->o.eng;

	if (st->src->ops->fd(st->src) >= 0 || !st->src->energy_note[0])
		return;
	if (eo->energy || eo->powercap_root || eo->split_by || eo->idle_watts) {
		pr_warn("%s", st->src->energy_note);
		return;
	}
	pr_debug("%s", st->src->energy_note);
	if ((st->o.by & own) && !st->o.sep && !st->o.perf_json)
		pr_warn("%s", energy__choices());
}

/*
 * -D: counting starts MS after the command did (perf enables its events
 * then): the engine ticks meanwhile, and the snapshot at the end of the
 * delay is the new start. perf's two lines on stderr say when.
 */
static int stat_delay(struct front_run *st)
{
	double end = session__now() + st->o.tg.delay_ms / 1e3;
	int err;

	fprintf(stderr, "Events disabled\n");
	for (;;) {
		double now = session__now(), wake = st->src->ops->next_tick(st->src);

		if (stat_should_end(st, now, end))
			break;
		if (now >= wake) {
			err = st->src->ops->tick(st->src);
			if (err)
				return err;
			continue;
		}
		if (wake > end)
			wake = end;
		if (poll(&(struct pollfd){ .fd = sigwake.fd, .events = POLLIN }, 1,
			 (int)((wake - now) * 1e3) + 1) > 0)
			sigwake__drain();
	}
	fprintf(stderr, "Events enabled\n");
	err = take_snapshot(st);
	if (err)
		return err;
	snapshot__free(&st->prev);
	st->prev = st->last;
	return 0;
}

/*
 * Events this source cannot count (a VM has no PMU: cycles, instructions,
 * branches...): text keeps their <not supported> lines in the system and
 * command rows, as perf, and not on each of emon-perf's own rows
 * (cgroups, containers, processes: thousands of lines saying nothing);
 * one line says which, and what counts here instead.
 */
static void stat_unsup_note(struct front_run *st)
{
	struct output *o = &st->out;
	char names[512];
	size_t n = 0;
	int t;

	if (o->ops != &output_text_ops || o->metric_only || !(st->o.by & SCOPES_OWN))
		return;
	names[0] = '\0';
	for (int i = 0; i < o->nr_events && n < sizeof(names); i++)
		if (!o->ev[i].supported)
			n += snprintf(names + n, sizeof(names) - n, "%s%s",
				      n ? ", " : "", o->ev[i].name);
	if (!n)
		return;
	o->unsup_once = true;
	t = output__time_index(o);
	pr_info("not supported here: %s (no PMU for them, a VM?), left out of the %s rows; %s%s and --sched count where the time goes",
		names, st->o.by & (1u << SCOPE_PROCESS) ? "cgroup and process" : "cgroup and container",
		t >= 0 ? o->ev[t].name : "cpu-clock", t >= 0 ? "" : " (-e)");
}

static int stat_start(struct front_run *st, stat_hook_fn hook, void *arg)
{
	int ret = front_run__setup(st, true);

	ret = ret ?: hook ? hook(st, arg) : 0;
	if (ret)
		return ret;
	if (!st->quiet)
		stat_unsup_note(st);
	st->last = st->prev;
	st->have_last = true;
	ret = st->o.cmd ? spawn_command(st) : 0;
	if (!ret && st->o.tg.delay_ms > 0 && stat_delay(st))
		return cli__fail(-EIO, "reading the counts after -D's delay failed");
	if (!ret && (st->o.control || st->o.tg.delay_ms < 0))
		stat_control__start(st->o.tg.delay_ms < 0);	/* perf -D -1: until "enable" */
	/* --summary: the whole run's counts from here, after -I's */
	if (!ret && st->o.summary && st->o.interval_ms) {
		st->first = st->prev;
		st->have_first = true;
	}
	return ret;
}

int stat__run(struct front_run *st)
{
	return stat__run_with(st, NULL, NULL);
}

int stat__run_with(struct front_run *st, stat_hook_fn hook, void *arg)
{
	int ret;

	st->sc.command_mode = st->o.cmd && !st->o.all_cpus && !st->o.nr_cgroups &&
			      !st->o.tg.nr_pids && !st->o.tg.nr_tids;
	/* perf --per-thread: thread rows, instead of the system's */
	if (st->o.tg.per_thread)
		st->o.aggr |= 1u << SCOPE_THREAD;
	if (!st->o.by) {
		/* perf -A, --per-*: those rows instead of the system's; perf
		 * -a -G: the cgroups' rows alone (--by system,cgroup: both) */
		if (!st->sc.command_mode && !st->o.tg.nr_pids && !st->o.tg.nr_tids &&
		    !st->o.aggr && !st->o.nr_cgroups)
			st->o.by = 1u << SCOPE_SYSTEM;
		if (st->o.nr_cgroups)
			st->o.by |= 1u << SCOPE_CGROUP;
		/* perf -G after -e: an event of no cgroup is system-wide */
		if (st->o.cg_sys && !st->o.aggr)
			st->o.by |= 1u << SCOPE_SYSTEM;
	}
	st->o.by |= st->o.aggr;
	/*
	 * A recording (--json-rows) of emon-perf's own rows has the system row too,
	 * what report's cpu% and energy% and its share charts divide by;
	 * not in command mode or with -p or -t (their row is the target's)
	 */
	if (st->o.json && (st->o.by & SCOPES_OWN) && !st->sc.command_mode &&
	    !st->o.tg.nr_pids && !st->o.tg.nr_tids)
		st->o.by |= 1u << SCOPE_SYSTEM;
	/* SIGCHLD: the command ended; EPIPE on a write stops the run */
	ret = sigwake__setup((int[]){ SIGINT, SIGTERM, SIGHUP }, 3, true);
	if (ret)
		return cli__exit_status(ret);
	/* perf prints a command's times when it forked it alone, and
	 * prints the run whole (no -I, or --summary after it) */
	st->out.ru_display = st->sc.command_mode &&
			     (!st->o.interval_ms || st->o.summary);
	/* perf --pre: before counting; its failure ends the run uncounted */
	if (stat_compat__hook("--pre", st->o.pre_cmd))
		return 1;
	stat_control__close();	/* a run before this one's (-r) */
	if (st->o.control && stat_control__open(st->o.control))
		return 2;
	ret = stat_start(st, hook, arg);
	if (ret)
		return ret;
	ret = stat_loop(st);
	if (ret == -EPIPE)
		return 128 + SIGPIPE;	/* the reader went away: as if killed by it */
	/* counting had started: a failure now is the run's, 1 whatever
	 * the errno */
	if (ret)
		return cli__exit_status(-EIO);
	if (!st->quiet)
		stat_energy_note(st);
	if (!st->quiet && st->undercounted && nmi_watchdog__on(NMI_WATCHDOG_PATH))
		stat_hint__print(stderr, &st->out);
	return 0;
}
