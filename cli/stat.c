// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf stat: check the input, open one event per CPU per metric, load
 * and attach the BPF side, then end an interval every read period (at most
 * 1 s, so maps hold at most a second of keys however long the run), sum the
 * reads and print at every -I or at the end.
 *
 * Every exit path goes through one cleanup: links destroyed, maps and
 * perf_event fds closed, the command ended and reaped (cli/command.c).
 * The kernel drops BPF links and perf events with the last fd, so even
 * SIGKILL leaves nothing attached.
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
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "engine/attribute.h"
#include "cli/command.h"
#include "cli/commands.h"
#include "cli/stat.h"
#include "cli/stat_run.h"
#include "rapl/energy.h"

#define READ_PERIOD_MS 1000
#define MIN_PERIOD_MS 50


static int sig_pipe[2] = { -1, -1 };
static volatile sig_atomic_t stop_signal, stop_by_kernel, nr_signals;

static void on_signal(int sig, siginfo_t *info, void *uc)
{
	int saved = errno;

	(void)uc;
	if (sig != SIGCHLD) {
		stop_signal = sig;
		/* the terminal's (Ctrl-C): its foreground group has it too */
		stop_by_kernel = info && info->si_code == SI_KERNEL;
		nr_signals++;
	}
	if (write(sig_pipe[1], "x", 1) < 0) {
		/* the pipe is full: a wakeup is already pending */
	}
	errno = saved;
}

static int setup_signals(void)
{
	struct sigaction sa = { .sa_sigaction = on_signal };
	int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD };

	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART | SA_SIGINFO;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);	/* EPIPE on write stops the run instead */
	return 0;
}

static double now_s(void)
{
	return session__now();
}

/* Before the command's exec: its tree is followed from its first step. */
static void follow_command(pid_t pid, void *arg)
{
	struct stat_run *st = arg;
	int err;

	st->sc.tree_root = pid;
	err = session__tree_add(&st->sess, pid);
	if (err)
		pr_warn("cannot follow the command's tree: %s", strerror(-err));
}

static int spawn_command(struct stat_run *st)
{
	int err;

	/*
	 * Stopped while loading: the command is not started, rather than
	 * given the signal in its first steps, where a shell may lose it
	 * (dash, caught while forking a child, waits for that child anyway).
	 */
	if (nr_signals)
		return 128 + stop_signal;
	err = command__spawn(&st->cmd, st->o.cmd, follow_command, st);
	if (err && st->cmd.exec_failed) {
		pr_err("cannot run '%s': %s", st->o.cmd[0], strerror(-err));
		return 2;
	}
	if (err) {
		pr_err("cannot start the command: %s", strerror(-err));
		return 1;
	}
	return 0;
}

static void warn_overflow(struct stat_run *st)
{
	__u64 cg = st->agg.stats[EMON_STAT_CGRP_FULL];
	__u64 pr = st->agg.stats[EMON_STAT_PROC_FULL];

	if (cg && !st->ovf_warned[0]++)
		pr_warn("cgroup map full (--max-cgroups %u): %llu slices counted in the 'overflow' cgroup row",
			st->sess.max_cgroups, (unsigned long long)cg);
	if (pr && !st->ovf_warned[1]++)
		pr_warn("process map full (--max-procs %u): %llu slices counted in the 'overflow' process row",
			st->sess.max_procs, (unsigned long long)pr);
	if (st->agg.stats[EMON_STAT_READ_ERR])
		pr_debug("%llu failed counter reads",
			 (unsigned long long)st->agg.stats[EMON_STAT_READ_ERR]);
	if (st->agg.stats[EMON_STAT_UNTRACED])
		pr_debug("%llu slices (%.3f ms of cpu-clock) followed context switches the kernel did not trace (tasks hidden from tracepoints): each split by CFS run time where known, else counted for the task that ran last",
			 (unsigned long long)st->agg.stats[EMON_STAT_UNTRACED],
			 st->agg.stats[EMON_STAT_UNTRACED_NS] / 1e6);
}

/* Short of the time between reads by more than this: said (check_clock). */
#define CLOCK_SHORT 0.01

/*
 * A per-CPU cpu-clock event counts all the time its CPU is online, so one
 * that counted less than the time between two reads was stopped. The
 * kernel does that at every cgroup switch to each event of a PMU context
 * holding cgroup events (another tool's: perf stat -G), and they do not
 * count in between: every count of that PMU falls short, ours too. Said
 * once, after two read periods in a row on one CPU (a single one can be
 * a CPU going offline in mid-period); the figure is in every -v line.
 */
static void check_clock(struct stat_run *st)
{
	double short_by;
	int cpu;

	if (st->clock_idx < 0)
		return;
	short_by = clock__deficit(st->rd.cpu, st->clock_idx, st->rd.cpu_dt,
				  st->ncpus, &cpu);
	if (cpu < 0 || short_by <= CLOCK_SHORT) {
		st->clock_short_cpu = -1;
		return;
	}
	pr_debug("cpu-clock on cpu%d counted %.1f%% less than the time between its reads",
		 cpu, short_by * 100);
	if (cpu == st->clock_short_cpu && !st->clock_warned) {
		st->clock_warned = true;
		pr_warn("cpu-clock on cpu%d counted %.1f%% less than the time between reads: something stops this CPU's events (another tool's cgroup perf_events on the same PMU, such as perf stat -G with cpu-clock, do at every cgroup switch); counts may be that much low",
			cpu, short_by * 100);
	}
	st->clock_short_cpu = cpu;
}

/* Read the energy of the period that just ended and split it. */
static int read_energy(struct stat_run *st, double dt)
{
	int err;

	if (st->out.energy_estimated)
		session_read__busy_ns(&st->rd, &st->agg, st->clock_idx, st->busy_ns);
	err = energy_source__read(st->energy, dt, st->busy_ns, &st->es);
	if (err)
		pr_err("reading energy: %s", strerror(-err));
	return err;
}

/* Split the period's energy (read before the flush, see take_interval). */
static int take_energy(struct stat_run *st, double t)
{
	double dt = t - st->last_read;
	int err;

	st->last_read = t;
	if (!st->energy)
		return 0;
	/* the model needs the period's busy time: it reads after the flush */
	if (st->out.energy_estimated && read_energy(st, dt))
		return -EIO;
	if (st->es.warning[0])
		pr_warn("energy: %s", st->es.warning);
	st->attr.static_j = st->o.idle_watts * dt;
	err = aggregate__add_energy(&st->agg, &st->rd, &st->attr);
	if (err)
		pr_err("splitting energy: %s", strerror(-err));
	return err;
}

/*
 * Name the cgroups of a read while BPF's record of them is fresh: rows are
 * built at the print, which without -I is the end of the run, and a
 * cgroup removed meanwhile would by then be known by id only (its record
 * is in an LRU sized for one interval's cgroups).
 */
static void name_cgroups(struct stat_run *st)
{
	if (!(st->out.scopes & ((1u << SCOPE_CGROUP) | (1u << SCOPE_CONTAINER))))
		return;
	for (size_t i = 0; i < st->rd.nr_cgrp; i++)
		cgroup_names__path(&st->names, st->rd.cgrp[i].cgid,
				   session__cgroup_info, &st->sess);
}

/* A flush this long after the energy read before it: read again after it. */
#define ENERGY_LATE_S 0.001

/*
 * A measured source is read right before the flush that ends an interval.
 * When the flush comes late (emon-perf preempted in between: seen for
 * 0.8 s on a loaded VM), the energy up to it is partly in the next read:
 * read again now, give this interval the part of that step up to the
 * flush, by time, and the next one the rest. No energy moves between
 * intervals, and none is lost or counted twice.
 */
static int late_energy(struct stat_run *st, double t0)
{
	double t1, k;
	int err;

	if (!st->energy || st->out.energy_estimated || st->rd.t - t0 <= ENERGY_LATE_S)
		return 0;
	t1 = now_s();
	err = energy_source__read(st->energy, t1 - t0, st->busy_ns, &st->carry);
	if (err) {
		pr_err("reading energy: %s", strerror(-err));
		return err;
	}
	t1 = (t1 + now_s()) / 2;	/* when it read, as near as we know */
	k = t1 > t0 ? (st->rd.t - t0) / (t1 - t0) : 1;
	k = k > 1 ? 1 : k < 0 ? 0 : k;
	pr_debug("energy: the flush came %.1f ms after the energy read: %.0f%% of a second read goes to this interval",
		 (st->rd.t - t0) * 1e3, k * 100);
	energy_sample__add(&st->es, &st->carry, k);
	st->carry.warning[0] = '\0';	/* said with this interval's */
	st->carry_k = 1 - k;
	return 0;
}

/*
 * End an interval in BPF and add it, and its energy, to the sums; *t gets
 * its end (the middle of the flush). A measured source is read right
 * before the flush, so both end at the same moment (late_energy()).
 */
static int take_interval(struct stat_run *st, double *t)
{
	double t0 = now_s(), te = t0;	/* te: when the energy was read */
	int err;

	if (st->energy && !st->out.energy_estimated) {
		if (read_energy(st, t0 - st->last_read))
			return -EIO;
		te = (t0 + now_s()) / 2;
		if (st->carry_k > 0)	/* the rest of a late flush's read */
			energy_sample__add(&st->es, &st->carry, st->carry_k);
		st->carry_k = 0;
	}
	err = session__interval(&st->sess, &st->rd);
	pr_debug("interval: flush of %.0f us, flush + read of %zu cgroup and %zu process entries in %.0f us",
		 st->rd.spread * 1e6, st->rd.nr_cgrp, st->rd.nr_proc, (now_s() - t0) * 1e6);
	if (!err)
		err = aggregate__add(&st->agg, &st->rd);
	if (err) {
		pr_err("reading the BPF maps: %s", strerror(-err));
		return err;
	}
	name_cgroups(st);
	check_clock(st);
	*t = st->rd.t;
	err = late_energy(st, te);
	return err ?: take_energy(st, *t);
}

static int print_interval(struct stat_run *st, double t, double dt)
{
	int err = stat_rows__build(&st->sc, &st->agg, dt, &st->rows);

	if (err) {
		pr_err("building rows: %s", strerror(-err));
		return err;
	}
	warn_overflow(st);
	st->out.ops->interval(&st->out, t, dt, st->rows.rows, st->rows.nr);
	aggregate__reset(&st->agg);
	if (fflush(st->out.f) || ferror(st->out.f)) {
		if (errno == EPIPE)
			return -EPIPE;
		pr_err("writing the output: %s", strerror(errno));
		return -EIO;
	}
	return 0;
}

static void drain_signal_pipe(void)
{
	char buf[64];

	while (read(sig_pipe[0], buf, sizeof(buf)) > 0)
		;
}

/* Signals and the command: true when the run should end now. */
static bool stat_should_end(struct stat_run *st, double now, double deadline)
{
	bool done = command__poll(&st->cmd);

	/* the command decides how it ends; a second signal ends us */
	if (nr_signals && !st->forwarded &&
	    command__forward(&st->cmd, stop_signal, stop_by_kernel))
		st->forwarded = nr_signals;
	return done || (deadline && now >= deadline) ||
	       (nr_signals && nr_signals > st->forwarded);
}

/*
 * A storm of short processes can fill a map within a period: read sooner
 * while a map came back more than half full, and go back to the full
 * period once it is quiet (under an eighth full).
 */
static double adapt_period(const struct stat_run *st, double period, double full)
{
	double fill = (double)st->rd.nr_proc / st->sess.max_procs;
	double cfill = (double)st->rd.nr_cgrp / st->sess.max_cgroups;

	if (cfill > fill)
		fill = cfill;
	if (fill > 0.5 && period > MIN_PERIOD_MS / 1e3) {
		period /= 2;
		pr_debug("maps %.0f%% full: reading every %.0f ms", fill * 100, period * 1e3);
	} else if (fill < 0.125 && period < full) {
		period = period * 2 < full ? period * 2 : full;
	}
	return period;
}

/*
 * Reads come every period (at most 1 s, so the maps never hold more than a
 * second of keys; less under a storm, see adapt_period), prints at every
 * -I mark counted from the start, the last one at the end; whichever is
 * next wakes the loop.
 */
static int stat_loop(struct stat_run *st)
{
	double t0 = st->last_read, last_print = t0, next_read, next_print, deadline;
	double period = READ_PERIOD_MS / 1e3, ival = st->o.interval_ms / 1e3, full;
	int err;

	if (ival && ival < period)
		period = ival;
	full = period;
	/* start short: a storm already running must not fill the first one */
	period = full / 8 > MIN_PERIOD_MS / 1e3 ? full / 8 : MIN_PERIOD_MS / 1e3;
	if (period > full)
		period = full;
	next_read = t0 + period;
	next_print = ival ? t0 + ival : 0;
	deadline = st->o.timeout_ms ? t0 + st->o.timeout_ms / 1e3 : 0;
	st->out.ops->begin(&st->out);

	for (;;) {
		struct pollfd pfd = { .fd = sig_pipe[0], .events = POLLIN };
		double now = now_s(), wake = next_read;
		bool ending = stat_should_end(st, now, deadline);

		if (next_print && next_print < wake)
			wake = next_print;
		if (deadline && deadline < wake)
			wake = deadline;
		if (!ending && now < wake) {
			if (poll(&pfd, 1, (int)((wake - now) * 1e3) + 1) > 0)
				drain_signal_pipe();
			continue;
		}
		err = take_interval(st, &now);	/* now: the interval's end */
		if (err)
			return err;
		period = adapt_period(st, period, full);
		next_read = now + period;	/* late: no burst of catch-up reads */
		if (ending) {
			if (!ival || st->agg.reads)
				err = print_interval(st, now - t0, now - last_print);
			st->out.ops->end(&st->out, now - t0);
			fflush(st->out.f);
			return err;
		}
		if (next_print && now >= next_print - 1e-3) {
			err = print_interval(st, now - t0, now - last_print);
			if (err)
				return err;
			last_print = now;
			while (next_print <= now + 1e-3)
				next_print += ival;
		}
	}
}

static int stat_setup(struct stat_run *st)
{
	struct session_opts so = {};
	char err[512];
	int ret;

	if (!stat__have_privileges()) {
		pr_err("need root, or CAP_BPF and CAP_PERFMON (try sudo)");
		return 2;
	}
	st->out.scopes = st->o.by | (st->sc.command_mode ? 1u << SCOPE_COMMAND : 0);
	ret = stat__setup_inputs(st, &so);
	if (ret)
		return ret;

	so.ncpus = st->ncpus;
	so.online = st->online;	/* CPU rows: those that come online join */
	so.max_cgroups = st->o.max_cgroups;
	so.max_procs = st->o.max_procs;
	so.follow_tree = st->sc.command_mode;
	session__setup_libbpf();
	ret = session__open(&st->sess, &so, err, sizeof(err));
	if (ret) {
		pr_err("%s", err);
		return 1;
	}
	st->sess_open = true;
	if (session_read__init(&st->rd, st->ncpus) ||
	    aggregate__init(&st->agg, st->ncpus, st->topo.nr_packages, st->cpu_pkg,
			    so.nr_events))
		return 1;

	st->sc.opts = &st->o;
	st->sc.sess = &st->sess;
	st->sc.names = &st->names;
	st->sc.ncpus = st->ncpus;
	st->sc.online = st->online;
	st->sc.cpu_pkg = st->cpu_pkg;
	st->sc.pkg_id = st->topo.pkg_id;
	st->sc.npkg = st->topo.nr_packages;
	st->sc.sort_idx = -1;
	st->sc.energy_on = st->energy != NULL;
	for (int i = 0; i < st->events.nr && st->sc.sort_idx < 0; i++)
		if (st->out.ev[i].supported)
			st->sc.sort_idx = st->out.ev[i].bpf_idx;

	if (st->energy)
		cgroup__id(st->cgroot, "/", &st->attr.root_cgid);
	ret = session__start(&st->sess);
	if (ret) {
		pr_err("cannot flush the CPUs: %s", strerror(-ret));
		return 1;
	}
	st->last_read = st->sess.flush_t;
	/* the baseline, as close to the counting start as can be; it brings
	 * what the source found while opening (zones left out, wraps it
	 * cannot tell from errors): said here, once */
	if (st->energy) {
		energy_source__read(st->energy, 0, NULL, &st->es);
		if (st->es.warning[0])
			pr_warn("energy: %s", st->es.warning);
		st->es.warning[0] = '\0';
	}
	return st->o.cmd ? spawn_command(st) : 0;
}

static void stat_cleanup(struct stat_run *st)
{
	command__stop(&st->cmd);
	if (st->sess_open)
		session__close(&st->sess);
	for (int i = 0; i < st->events.nr; i++)
		pmu_event__close(&st->events.ev[i]);
	if (st->out.f && st->out.f != stdout)
		fclose(st->out.f);
	row_set__exit(&st->rows);
	aggregate__exit(&st->agg);
	session_read__exit(&st->rd);
	if (st->names.root)
		cgroup_names__exit(&st->names);
	energy_source__close(st->energy);
	free(st->busy_ns);
	cpu_topology__free(&st->topo);
	free(st->online);
	free(st->cpu_pkg);
	stat_opts__free(&st->o);
}

int cmd_stat(int argc, char **argv)
{
	struct stat_run *st = calloc(1, sizeof(*st));
	int ret;

	if (!st)
		return 1;
	st->clock_short_cpu = -1;
	ret = stat_opts__parse(&st->o, argc, argv);
	if (ret) {
		ret = ret > 0 ? 0 : 2;
		goto out;
	}
	st->sc.command_mode = st->o.cmd && !st->o.all_cpus && !st->o.nr_cgroups;
	if (!st->o.by) {
		if (!st->sc.command_mode)
			st->o.by = 1u << SCOPE_SYSTEM;
		if (st->o.nr_cgroups)
			st->o.by |= 1u << SCOPE_CGROUP;
	}
	if (setup_signals()) {
		ret = 1;
		goto out;
	}
	ret = stat_setup(st);
	if (!ret) {
		ret = stat_loop(st);
		if (ret == -EPIPE)
			ret = 128 + SIGPIPE;	/* the reader went away: as if killed by it */
		else if (ret)
			ret = 1;
		else if (st->energy_note[0])
			pr_warn("%s", st->energy_note);
	}
	if (!ret && command__poll(&st->cmd))
		ret = st->cmd.status;
out:
	stat_cleanup(st);
	free(st);
	return ret;
}
