// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf stat's setup: the -G paths, the events (checked before -o
 * truncates a file), the output, then the source of snapshots (the
 * daemon, or an own engine), what the rows need of it and the first
 * snapshot. Each step prints its one-line error and returns the exit
 * status, cli__fail()'s or cli__exit_status()'s. Its undo, front_run__cleanup(),
 * is the one cleanup of stat and top.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "common/log.h"
#include "front/errors.h"
#include "front/output_formula.h"
#include "front/run.h"
#include "pmu/event.h"

static int check_cgroups(struct front_run *st)
{
	__u64 id;
	int ret;

	/* the host's lack, not the command line's: 1 (its -ENOENT would be 2) */
	if (cgroup__find_mount("/proc/mounts", st->cgroot, sizeof(st->cgroot)))
		return cli__fail(-ENODEV, "no cgroup2 file system mounted "
				 "(see /proc/mounts)");
	for (int i = 0; i < st->o.nr_cgroups; i++) {
		ret = cgroup__id(st->cgroot, st->o.cgroups[i], &id);
		if (ret)
			return cli__fail(-ENOENT, "cgroup '%s' not found under %s: %s",
					 st->o.cgroups[i], st->cgroot, strerror(-ret));
	}
	return 0;
}

static int check_events(struct front_run *st)
{
	char err[512];

	/* a bad event is the command line's, whatever the errno (-ENODEV
	 * too: libpfm4 cannot resolve it here) */
	if (pmu_event_list__parse(&st->events, st->o.events, err, sizeof(err)))
		return cli__fail(-EINVAL, "%s", err);
	return 0;
}

/*
 * Counts go where perf stat puts them: -o FILE, else stderr, so that a
 * command's stdout holds its own output only. stderr gets a stream of its
 * own (a dup), fully buffered and flushed at each interval, while
 * messages keep the unbuffered stderr and appear when said.
 */
FILE *front_run__open_output(const struct front_opts *so)
{
	int fd;
	FILE *f;

	if (so->output && !so->quiet) {	/* perf -q creates no file */
		time_t now = time(NULL);

		f = fopen(so->output, so->append ? "ae" : "we");
		/* perf's first line in its -o file (ctime's ends the line);
		 * not before JSON lines, whose readers take every line */
		if (f && !so->json)
			fprintf(f, "# started on %s\n", ctime(&now));
		return f;
	}
	/* perf --log-fd N: to that fd instead, without -o's header */
	fd = fcntl(so->log_fd ? so->log_fd - 1 : STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f)
		close(fd);
	return f;
}

static int setup_output(struct front_run *st)
{
	struct output *o = &st->out;

	if (st->quiet) {
		/* -r's runs: stat__repeat opens the real output for the mean */
		o->f = fopen("/dev/null", "we");
		if (!o->f)
			return cli__fail(-EIO, "cannot write /dev/null: %s", strerror(errno));
	} else {
		/* -o's file is the command line's: 2 whatever the errno
		 * (EISDIR, EROFS too) */
		o->f = front_run__open_output(&st->o);
		if (!o->f)
			return cli__fail(-EINVAL, "cannot write '%s': %s",
					 st->o.output ?: "stderr", strerror(errno));
	}
	/* each interval ends with a flush: one write for thousands of rows */
	setvbuf(o->f, NULL, _IOFBF, 1 << 16);
	o->ops = st->o.quiet ? &output_none_ops : st->o.json ? &output_json_ops :
		 st->o.perf_json ? &output_perf_json_ops :
		 st->o.sep ? &output_csv_ops : &output_text_ops;
	o->sep = st->o.sep;
	o->interval_mode = st->o.interval_ms > 0;
	o->interval_s = st->o.interval_ms / 1e3;
	if (st->o.tg.nr_pids) {
		o->target_what = "process id ";
		o->target = st->o.tg.pid_list;
	} else if (st->o.tg.nr_tids) {
		o->target_what = "thread id ";
		o->target = st->o.tg.tid_list;
	} else if (st->o.tg.has_cpus) {	/* perf -C's header */
		snprintf(st->target, sizeof(st->target), "CPU(s) %s", st->o.tg.cpu_list);
		o->target = st->target;
	} else if (st->o.cmd && !st->o.all_cpus && !st->o.nr_cgroups) {
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

static unsigned int wanted_scopes(const struct front_run *st)
{
	unsigned int s = 0;

	if (st->out.scopes & ((1u << SCOPE_CGROUP) | (1u << SCOPE_CONTAINER) |
			      (1u << SCOPE_POD) | (1u << SCOPE_NAMESPACE)))
		s |= EMON_SNAP_CGROUPS;
	if (st->out.scopes & (1u << SCOPE_PROCESS) ||
	    (st->o.tg.nr_pids && !st->o.tg.per_thread))
		s |= st->sc.command_mode ? EMON_SNAP_PROCS_TREE : EMON_SNAP_PROCS;
	if (st->o.tg.nr_tids || st->o.tg.per_thread)
		s |= EMON_SNAP_THREADS;
	return s;
}

static int setup_source(struct front_run *st, bool hist)
{
	struct source_opts so = {
		.eng = st->o.eng,
		.socket = st->o.socket,
		.no_daemon = st->o.no_daemon,
		.own_options = st->o.eng.energy || st->o.eng.powercap_root ||
			       st->o.eng.split_by || st->o.eng.idle_watts,
		.scopes = wanted_scopes(st),
		.tree = st->sc.command_mode,
		.threads = st->o.tg.nr_tids || st->o.tg.per_thread,
		.follow = st->o.tg.nr_pids > 0,
		.no_hist = !hist,
	};

	so.eng.events = st->o.events;
	return cli__exit_status(source__open(&st->src, &so));
}

/*
 * -p: an own engine follows the processes and what they fork from now on
 * (perf -p's counters are inherited); the daemon follows only commands
 * its clients forked, so attached, -p sums the processes' own rows.
 */
static int setup_follow(struct front_run *st)
{
	int err;

	if (!st->o.tg.nr_pids || !st->src->ops->follow)
		return 0;
	/* the engine's failure, not the command line's: 1 whatever the
	 * errno (a full BPF map's -E2BIG too) */
	err = st->src->ops->follow(st->src, st->o.tg.pids, st->o.tg.nr_pids);
	if (err)
		return cli__fail(-EIO, "following the processes of -p %s: %s",
				 st->o.tg.pid_list, strerror(-err));
	st->sc.p_tree = true;
	return 0;
}

/*
 * The name counted event i prints: as given where emon-perf changed it
 * (--all-user's :u left out, perf's :W kept: front_opts' shown), else
 * its own
 */
static const char *event_shown(struct front_run *st, int i)
{
	char *name = st->events.ev[i].name, *m;
	size_t len = strlen(name);

	if (st->o.shown[i][0])
		return st->o.shown[i];
	if (!(st->o.strip_mod & (1u << i)) || len < 2)
		return name;
	snprintf(st->shown[i], sizeof(st->shown[i]), "%s", name);
	m = st->shown[i] + len - 2;
	if (*m == ':')
		*m = '\0';		/* cycles:u */
	else
		m[1] = '\0';		/* cpu/cycles/u */
	return st->shown[i];
}

/* Each event as the outputs show it: where it is in the snapshots; an
 * event given twice shown twice (front_opts' dups); none with -n alone. */
static void setup_events(struct front_run *st)
{
	const struct pmu_event_list *l = &st->events;
	const struct pmu_event *lead;
	int d = 0, n = 0;

	for (int i = 0; i < l->nr && n < EMON_MAX_EVENTS; i++, n++) {
		struct row_event *re = &st->out.ev[n];
		int pos = source__event_pos(st->src, l->ev[i].name);

		for (; d < st->o.nr_dups && st->o.dups[d].at == n; d++, n++, re++)
			;	/* filled below, from the one they repeat */
		if (n >= EMON_MAX_EVENTS)
			break;
		re->name = event_shown(st, i);
		re->is_time = l->ev[i].is_time;
		re->supported = pos >= 0;
		re->bpf_idx = pos >= 0 ? pos : -1;
		lead = pmu_event__scale_leader(&l->ev[i]);
		re->grouped = lead != &l->ev[i];
		re->lead_idx = source__event_pos(st->src, lead->name);
		st->ev_out[i] = n;
	}
	for (; d < st->o.nr_dups && st->o.dups[d].at == n && n < EMON_MAX_EVENTS; d++)
		n++;	/* repeats at the end */
	for (d = 0; d < st->o.nr_dups; d++)
		if (st->o.dups[d].at < n)
			st->out.ev[st->o.dups[d].at] = st->out.ev[st->ev_out[st->o.dups[d].of]];
	st->out.nr_events = st->o.hide_events ? 0 : n;
	/* perf -G after -e: each event's cgroup, NULL: system-wide */
	st->out.cg_paired = st->o.cg_paired;
	st->out.cg_keys = st->o.cgroups;
	st->out.cg_names = st->o.cg_given;
	st->out.nr_cg = st->o.nr_cgroups;
	for (int i = 0; st->o.cg_paired && i < st->out.nr_events; i++)
		st->out.ev_cgroup[i] = st->o.cg_of[i] ? st->o.cgroups[st->o.cg_of[i] - 1] : NULL;
	st->out.thousands_sep = st->o.no_big_num ? "" : output__locale_thousands_sep();
	st->out.null_run = st->o.null_run;
}

/* The event of l that metric input name is, by output_formula.c's rules */
static const struct pmu_event *formula__event(const struct front_run *st,
					      const char *name)
{
	int o = output__metric_input(&st->out, name);

	for (int i = 0; o >= 0 && i < st->events.nr; i++)
		if (st->ev_out[i] == o)
			return &st->events.ev[i];
	return NULL;
}

/*
 * -M: say once why a metric is <not supported>: the event it needs that
 * cannot be counted here, with the kernel's reason (a probe on the first
 * online CPU), or the energy source it lacks.
 */
static void setup_metrics(struct front_run *st)
{
	const struct snap_meta *m = &st->src->meta;

	st->out.metrics = st->o.metrics;
	st->out.nr_metrics = st->o.nr_metrics;
	st->out.metric_only = st->o.metric_only;
	/* perf's own metric table (--metric-only alone) says nothing */
	for (int k = 0; !st->o.metrics_implied && k < st->o.nr_metrics; k++) {
		const struct formula_def *d = st->o.metrics[k];

		if (d->energy && !m->energy_on)
			pr_warn("metric %s is <not supported>: no energy source (--energy)",
				d->name);
		for (int i = 0; i < FORMULA_MAX_INPUTS && d->events[i]; i++) {
			const struct pmu_event *e = formula__event(st, d->events[i]);
			int err, cpu = sched_getcpu();	/* one online */

			if (e && st->out.ev[st->ev_out[e - st->events.ev]].supported)
				continue;
			err = e ? pmu_event__probe(e, cpu < 0 ? 0 : cpu) : -ENOENT;
			pr_warn("metric %s is <not supported>: '%s' cannot be counted here (%s)",
				d->name, d->events[i], err ? pmu_event__strerror(err) :
				"not counted by this source");
			break;
		}
	}
}

static void setup_energy(struct front_run *st)
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
static void setup_sched(struct front_run *st)
{
	const struct snap_meta *m = &st->src->meta;

	st->out.sched = st->o.eng.sched && m->sched_on;
	st->out.sched_hist = st->out.sched && st->o.sched_hist;
	st->out.sched_ms = m->sched_ms;
}

/* Dies and cores from sysfs, when their rows are asked for: the front
 * end reads them, on the host the source counts (the daemon's too). */
static int setup_places(struct front_run *st)
{
	int ncpus = st->src->meta.ncpus;

	if (!(st->o.by & (1u << SCOPE_DIE | 1u << SCOPE_CORE | 1u << SCOPE_NODE)))
		return 0;
	st->place = calloc(ncpus, sizeof(*st->place));
	if (!st->place)
		return cli__exit_status(-ENOMEM);
	for (int cpu = 0; cpu < ncpus; cpu++) {
		/* an offline CPU has no topology/ and gets no row */
		if (cpu_place__read(NULL, cpu, &st->place[cpu]))
			st->place[cpu] = (struct cpu_place){ -1, -1, -1 };
	}
	st->sc.place = st->place;
	return 0;
}

/*
 * A daemon's tenant sees its own processes and cgroups only
 * (docs/security.md): another's target would print zeros, not counts,
 * so it is refused with the rule, as perf refuses what the kernel would
 * not let it count (thread rows, -t and --per-thread, the daemon refuses
 * itself). The daemon knows a client by SO_PEERCRED's uid: the
 * effective one. The daemon enforces this whatever a client does; this
 * is the client saying why.
 */
static int check_tenant_targets(const struct front_run *st)
{
	static const char admin[] = "or be an administrator of the daemon: "
				    "root, or in serve --admin-group";
	uid_t me = geteuid();
	char path[PATH_MAX + 16];
	struct stat sb;

	if (!st->prev.tenant)
		return 0;
	for (int i = 0; i < st->o.tg.nr_pids; i++) {
		snprintf(path, sizeof(path), "/proc/%d", (int)st->o.tg.pids[i]);
		if (!stat(path, &sb) && sb.st_uid != me)
			return cli__fail(-EACCES, "-p %d: uid %u's process: a tenant "
					 "sees its own uid's processes only (perf -p "
					 "needs ptrace access to it); %s",
					 (int)st->o.tg.pids[i], (unsigned int)sb.st_uid,
					 admin);
	}
	for (int i = 0; st->prev.no_sys && i < st->o.nr_cgroups; i++) {
		snprintf(path, sizeof(path), "%s/%s", st->cgroot, st->o.cgroups[i]);
		if (!stat(path, &sb) && sb.st_uid != me)
			return cli__fail(-EACCES, "-G %s: uid %u's cgroup: a tenant sees "
					 "the cgroups it owns only (another's is CPU-wide "
					 "counting, which perf_event_paranoid allows "
					 "administrators only); %s", st->o.cgroups[i],
					 (unsigned int)sb.st_uid, admin);
	}
	return 0;
}

static void setup_ctx(struct front_run *st)
{
	const struct snap_meta *m = &st->src->meta;

	st->sc.opts = &st->o;
	st->sc.tg = &st->o.tg;
	st->sc.ncpus = m->ncpus;
	st->sc.cpu_pkg = m->cpu_pkg;
	st->sc.pkg_id = m->pkg_id;
	st->sc.npkg = m->npkg;
	st->sc.sort_idx = -1;
	for (int i = 0; i < st->out.nr_events && st->sc.sort_idx < 0; i++)
		if (st->out.ev[i].supported)
			st->sc.sort_idx = st->out.ev[i].bpf_idx;
}

int front_run__setup(struct front_run *st, bool hist)
{
	int ret, nr = 0;

	st->out.scopes = st->o.by | (st->sc.command_mode ||
				     ((st->o.tg.nr_pids || st->o.tg.nr_tids) &&
				      !st->o.tg.per_thread) ? 1u << SCOPE_COMMAND : 0);
	ret = check_cgroups(st);
	ret = ret ?: check_events(st);
	ret = ret ?: setup_output(st);
	/* perf's --per-thread rows: the targets' threads as they are now */
	if (!ret && st->o.tg.per_thread)
		ret = cli__exit_status(targets__start_threads(&st->o.tg, "/proc"));
	ret = ret ?: setup_source(st, hist);
	ret = ret ?: setup_follow(st);
	if (ret)
		return ret;
	setup_events(st);
	setup_energy(st);
	setup_metrics(st);
	setup_sched(st);
	setup_ctx(st);
	ret = setup_places(st);
	if (ret)
		return ret;
	for (int i = 0; i < EMON_MAX_EVENTS; i++)
		nr += !!(st->src->req.events & (1u << i));
	ret = aggregate__init(&st->agg, st->src->meta.ncpus, st->src->meta.npkg,
			      st->src->meta.cpu_pkg, nr);
	ret = ret ?: aggregate__init_trees(&st->agg, 1);
	if (ret)
		return cli__exit_status(ret);
	st->agg_init = true;
	/* counting starts here: the first snapshot */
	ret = st->src->ops->snapshot(st->src, &st->prev);
	if (ret)	/* a view the daemon refuses is the user's to fix: 2 */
		return cli__fail(ret, "taking the first snapshot: %s",
				 st->src->why[0] ? st->src->why : strerror(-ret));
	return check_tenant_targets(st);
}

void front_run__cleanup(struct front_run *st)
{
	command__stop(&st->cmd);
	source__close(st->src);
	if (st->out.f)
		fclose(st->out.f);
	row_set__exit(&st->rows);
	free(st->place);
	if (st->agg_init)
		aggregate__exit(&st->agg);
	if (st->have_last && st->last.mem != st->prev.mem)
		snapshot__free(&st->last);
	if (st->have_first && st->first.mem != st->prev.mem &&
	    (!st->have_last || st->first.mem != st->last.mem))
		snapshot__free(&st->first);
	snapshot__free(&st->prev);
	targets__exit(&st->o.tg);
	front_opts__free(&st->o);
}
