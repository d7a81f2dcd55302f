// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf top: a live table of who uses the CPUs and the energy, over
 * the same snapshots as stat (front/source.h: the daemon when its socket
 * answers, else an own engine) through a front-end run (front/run.h).
 * Every -d seconds the difference of two snapshots becomes the rows stat
 * prints too (front/row_build.c), then one table per view
 * (cli/top/top_model.c), which the keys sort, filter and fold
 * (cli/top/top_state.c) and ncurses paints (cli/top/top_draw.c).
 *
 * One cleanup path: the terminal given back first (its modes restored),
 * then the source closed (own events and BPF programs, or the daemon's
 * connection); messages written while the screen was ours are printed
 * after it. SIGINT, SIGTERM and SIGHUP end the loop and take that path.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/commands.h"
#include "front/errors.h"
#include "front/shared_opts.h"
#include "common/sigwake.h"
#include "front/run.h"
#include "cli/top/top_draw.h"
#include "cli/top/top_model.h"
#include "engine/session/session.h"
#include "rapl/energy.h"

#define TOP_EVENTS "cycles,instructions,cpu-clock"
#define FIRST_DELAY_S 0.5

enum {
	OPT_VIEW = 256,
	OPT_BY,
};

struct top_run {
	struct front_run st;		/* its setup, source, rows (no command) */
	double delay;			/* -d */
	struct top_state state;
	struct top_table tab[TOP_VIEW_NR];
	struct top_summary sum;
	struct top_header hdr;
	bool screen;			/* the terminal is ours */
	bool attached;			/* to the daemon */
	FILE *errlog;			/* stderr while it is */
	int saved_stderr;
	char gone[512];			/* why the daemon went, for the user */
};

static const struct option long_opts[] = {
	{ "delay",	required_argument, NULL, 'd' },
	{ "view",	required_argument, NULL, OPT_VIEW },
	{ "by",		required_argument, NULL, OPT_BY },
	ENGINE_LONG_OPTIONS,
	DAEMON_LONG_OPTIONS,
	COMMON_LONG_OPTIONS
};

static void top_usage(FILE *f)
{
	fprintf(f,
"Usage: emon-perf top [options]\n"
"\n"
"A live table of power, CPU and counters per container, cgroup (a tree of\n"
"subtree sums), process, Kubernetes pod or namespace (each the sum of its\n"
"containers), refreshed every -d seconds. Counts\n"
TOP_EVENTS "; columns this host cannot count show '-'.\n"
"Needs a terminal.\n"
"\n"
"  -d, --delay SECONDS       refresh interval (0.1 to 3600, default 1)\n"
"      --view VIEW           first view: containers, cgroups (default),\n"
"                            processes, pods, namespaces\n"
"      --by SCOPE            the same in stat's and report's words: container,\n"
"                            cgroup, process, pod, namespace (one: top shows one\n"
"                            view at a time)\n"
ENERGY_OPTIONS_USAGE
RUNTIME_ROOT_USAGE
"      --max-cgroups N       BPF map entries (cgroup x CPU) per interval\n"
"      --max-procs N         BPF map entries (process x CPU) per interval\n"
"      --sched               the scheduler view's columns too: WAIT%% (run-queue\n"
"                            wait) and BLK%% (blocked, D), 100 = one task all\n"
"                            the time, and MIGR/s (migrations a second)\n"
NO_SCALE_USAGE
DAEMON_OPTIONS_USAGE
"  -v, --verbose             libbpf and decision messages (shown at exit)\n"
"  -h, --help                this text\n"
"\n"
"Keys: c g p P N views (containers, cgroups, processes, pods, namespaces);\n"
"< > or 1..9, 0 sort by a column (again: reverse), r reverse; / filter by\n"
"name (a pod is namespace/pod: 'prod/' keeps that namespace, not preprod),\n"
"Esc clears it;\n"
"arrows, PgUp, PgDn select; Left, Right, Enter fold and unfold a cgroup;\n"
"space pauses the display; h help; q quits.\n"
"\n"
"Like stat, top attaches to 'emon-perf serve' when its socket answers (no\n"
"events or BPF programs of its own; with --sched, a daemon with --sched),\n"
"else counts with its own. Exit status: 0, 1 runtime failure (such as a\n"
"lost daemon), 2 bad usage or no terminal.\n");
}

static int parse_view(const char *arg, enum top_view *v)
{
	for (int i = 0; i < TOP_VIEW_NR; i++)
		if (!strcmp(arg, top_view__name(i))) {
			*v = i;
			return 0;
		}
	pr_err("unknown view '%s' for --view (containers, cgroups, processes, pods, namespaces)",
	       arg);
	return -EINVAL;
}

/* --by: stat's scope names (scope__parse), the view of that scope */
static int parse_by(const char *arg, enum top_view *v)
{
	int scope = scope__parse(arg);

	for (int i = 0; scope >= 0 && i < TOP_VIEW_NR; i++)
		if (top_view__scope(i) == (enum scope)scope) {
			*v = i;
			return 0;
		}
	pr_err("%s '%s' for --by: top shows one of container, cgroup, process, "
	       "pod, namespace at a time (keys c g p P N switch)",
	       strchr(arg, ',') ? "more than one scope" : "unknown scope", arg);
	return -EINVAL;
}

static int top_opts__one(void *ctx, int c, const char *arg)
{
	struct top_run *tr = ctx;
	struct front_opts *o = &tr->st.o;
	int r;

	if (c == OPT_SCHED_MS) {
		pr_err("top shows no run-queue histogram: --sched-ms is stat's and serve's (use --sched)");
		return -EINVAL;
	}
	if (c == OPT_MAX_TIDS) {
		pr_err("top shows no threads: --max-tids is stat's and serve's (stat -t, --per-thread)");
		return -EINVAL;
	}
	r = opts__engine(&o->eng, c, arg) ?: front_opts__daemon(o, c, arg);
	if (r)
		return r < 0 ? r : 0;
	switch (c) {
	case 'd':
		return opts__double("-d", arg, 0.1, 3600, &tr->delay);
	case OPT_VIEW:
		return parse_view(arg, &tr->state.view);
	case OPT_BY:
		return parse_by(arg, &tr->state.view);
	}
	return -EINVAL;
}

/* 0, 1 after --help, -EINVAL after a one-line error. */
static int top_opts__parse(struct top_run *tr, int argc, char **argv)
{
	int err = opts__parse(argc, argv, "+d:vh", long_opts, "top", top_usage,
			      top_opts__one, tr);

	if (err)
		return err;
	if (optind < argc) {
		pr_err("unexpected argument '%s' (top takes options only)", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/* What the header says of the source, its energy and its events. */
static void setup_header(struct top_run *tr)
{
	const struct source *src = tr->st.src;
	const struct snap_meta *m = &src->meta;
	struct top_header *h = &tr->hdr;
	size_t n = 0;

	tr->attached = src->ops->fd((struct source *)src) >= 0;
	if (tr->attached)
		snprintf(h->source, sizeof(h->source), "attached to the daemon (pid %u, %s)",
			 m->pid, src->path);
	else
		snprintf(h->source, sizeof(h->source), "own events (pid %d)", getpid());
	h->energy_source = m->energy_on ? m->energy_source : NULL;
	h->energy_estimated = m->energy_estimated;
	h->split_by = m->split_by;
	/* one line that fits 80 columns and names the way to energy (every
	 * source tried and why: stat -v's) */
	h->no_energy = !src->energy_note[0] ?
		       "no energy source (the daemon has none: serve --energy model:IDLE_W:MAX_W)" :
		       energy__on_vm() ?
		       "no energy source on this VM: --energy model:IDLE_W:MAX_W estimates it" :
		       "no energy source (no RAPL): --energy model:IDLE_W:MAX_W estimates it";
	for (int i = 0; i < tr->st.out.nr_events; i++)
		if (!tr->st.out.ev[i].supported)
			n += snprintf(h->unsupported + n, sizeof(h->unsupported) - n,
				      "%s%s", n ? ", " : "", tr->st.out.ev[i].name);
	if (n)
		snprintf(h->unsupported + n, sizeof(h->unsupported) - n,
			 " not countable here");
	h->delay = tr->delay;
	h->sum = &tr->sum;
}

static int top_setup(struct top_run *tr)
{
	struct front_run *st = &tr->st;
	int ret;

	strcpy(st->o.events, TOP_EVENTS);
	st->o.all_cpus = true;
	st->o.by = 1u << SCOPE_SYSTEM | 1u << SCOPE_SOCKET | 1u << SCOPE_CGROUP |
		   1u << SCOPE_CONTAINER | 1u << SCOPE_PROCESS | 1u << SCOPE_POD |
		   1u << SCOPE_NAMESPACE;
	ret = front_run__setup(st, false);
	if (ret)
		return ret;
	/* the columns, before the first interval fills the tables */
	for (int v = 0; v < TOP_VIEW_NR; v++)
		tr->tab[v].sched = st->out.sched;
	setup_header(tr);
	return 0;
}

/* The interval from the last snapshot to a new one, into the tables
 * (while paused only the snapshot moves on). Each snapshot is an engine
 * tick, its own or the daemon's, which reads the energy right before its
 * flush: counts and energy cover the same interval. */
static int top_refresh(struct top_run *tr)
{
	struct front_run *st = &tr->st;
	struct snapshot cur;
	struct top_input in;
	int err = st->src->ops->snapshot(st->src, &cur);

	if (err)
		return err;
	if (tr->state.paused)
		goto out;
	aggregate__reset(&st->agg);
	err = snapshot__diff(&cur, &st->prev, &st->agg);
	st->sc.online = cur.online;
	st->out.ncpus = 0;
	for (int cpu = 0; cpu < cur.ncpus; cpu++)
		st->out.ncpus += cur.online[cpu];
	in = (struct top_input){ &st->out, NULL, 0, cur.t - st->prev.t };
	err = err ?: row_set__build(&st->sc, &st->agg, in.dt, &st->rows);
	in.rows = st->rows.rows;
	in.nr = st->rows.nr;
	for (int v = 0; !err && v < TOP_VIEW_NR; v++)
		err = top_table__build(&tr->tab[v], v, &in);
	if (!err) {
		top_summary__build(&tr->sum, &in);
		tr->hdr.dt = in.dt;
		tr->hdr.no_sys = cur.no_sys;
	}
out:
	snapshot__free(&st->prev);
	st->prev = cur;
	return err;
}

static void top_paint(struct top_run *tr)
{
	struct top_table *t = &tr->tab[tr->state.view];

	top_table__arrange(t, &tr->state, top_draw__rows());
	top_draw__paint(&tr->hdr, t, &tr->state);
}

/* Keys waiting: 1 to quit, 0 to go on; *dirty when the screen changed. */
static int top_keys(struct top_run *tr, bool *dirty)
{
	int k;

	while ((k = top_draw__key()) != -1) {
		const struct top_table *t = &tr->tab[tr->state.view];
		enum top_action a;

		if (k == TOP_KEY_RESIZE) {
			*dirty = true;
			continue;
		}
		a = top_state__key(&tr->state, t, k, top_draw__rows());
		if (a == TOP_ACT_QUIT)
			return 1;
		/* the next key (typed ahead) acts on the table as this one left it */
		if (a != TOP_ACT_NONE)
			top_table__arrange(&tr->tab[tr->state.view], &tr->state,
					   top_draw__rows());
		*dirty |= a != TOP_ACT_NONE;
	}
	return 0;
}

/* Refreshes every delay, the first one sooner (an empty table for a whole
 * -d is no use); an own engine ticks every read period; keys, signals
 * and the daemon's end wake the loop. 0 when a key, a signal or the
 * terminal ended it, else -errno (and tr->gone, the daemon's end or the
 * snapshot's error). */
static int top_loop(struct top_run *tr)
{
	struct source *src = tr->st.src;
	double next = tr->st.prev.t + fmin(tr->delay, FIRST_DELAY_S);
	bool dirty = true;
	int err;

	for (;;) {
		struct pollfd pfd[3] = {
			{ .fd = STDIN_FILENO, .events = POLLIN },
			{ .fd = sigwake.fd, .events = POLLIN },
			{ .fd = src->ops->fd(src), .events = POLLIN },
		};
		double now = session__now(), wake = fmin(next, src->ops->next_tick(src));

		if (dirty)
			top_paint(tr);
		dirty = false;
		if (now < wake)
			poll(pfd, pfd[2].fd >= 0 ? 3 : 2, (int)((wake - now) * 1e3) + 1);
		sigwake__drain();
		/* a signal, or the terminal gone (its hangup may come later) */
		if (sigwake.last || (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL)))
			return 0;
		if (pfd[2].revents) {
			snprintf(tr->gone, sizeof(tr->gone), "%s", src->why[0] ? src->why :
				 "it went away");
			return -ECONNRESET;
		}
		if (top_keys(tr, &dirty))
			return 0;
		now = session__now();
		if (now >= src->ops->next_tick(src) && (err = src->ops->tick(src)))
			return err;
		if (now < next)
			continue;
		err = top_refresh(tr);
		if (err) {
			snprintf(tr->gone, sizeof(tr->gone), "%s", src->why[0] ? src->why :
				 strerror(-err));
			return err;
		}
		next = now + tr->delay;
		dirty = true;
	}
}

/* While the screen is ours, stderr (if it is the terminal) goes to a file
 * that is printed after: a message would tear the table. */
static void hold_stderr(struct top_run *tr)
{
	tr->saved_stderr = -1;
	if (!isatty(STDERR_FILENO) || !(tr->errlog = tmpfile()))
		return;
	fflush(stderr);
	tr->saved_stderr = dup(STDERR_FILENO);
	if (tr->saved_stderr < 0 || dup2(fileno(tr->errlog), STDERR_FILENO) < 0) {
		fclose(tr->errlog);
		tr->errlog = NULL;
	}
}

static void release_stderr(struct top_run *tr)
{
	char buf[4096];
	size_t n;

	if (!tr->errlog)
		return;
	fflush(stderr);
	dup2(tr->saved_stderr, STDERR_FILENO);
	close(tr->saved_stderr);
	rewind(tr->errlog);
	while ((n = fread(buf, 1, sizeof(buf), tr->errlog)) > 0)
		fwrite(buf, 1, n, stderr);
	fclose(tr->errlog);
	tr->errlog = NULL;
}

static int top_run(struct top_run *tr)
{
	int ret = top_setup(tr);

	if (ret)
		return ret;
	hold_stderr(tr);
	if (top_draw__open()) {
		release_stderr(tr);
		/* a TERM that curses does not know: the user's to fix */
		return cli__fail(-EINVAL, "cannot drive the terminal (TERM=%s)",
				 getenv("TERM") ?: "");
	}
	tr->screen = true;
	/* the table was up: a failure now is the run's, 1 whatever the errno */
	ret = top_loop(tr) ? cli__exit_status(-EIO) : 0;
	top_draw__close();
	tr->screen = false;
	release_stderr(tr);
	if (tr->gone[0] && tr->attached)
		pr_err("lost the daemon (pid %u, %s): %s", tr->st.src->meta.pid,
		       tr->st.src->path, tr->gone);
	else if (tr->gone[0])
		pr_err("taking a snapshot: %s", tr->gone);
	return ret;
}

static void top_cleanup(struct top_run *tr)
{
	if (tr->screen)
		top_draw__close();
	release_stderr(tr);
	front_run__cleanup(&tr->st);
	for (int v = 0; v < TOP_VIEW_NR; v++)
		top_table__exit(&tr->tab[v]);
	top_state__exit(&tr->state);
}

int cmd_top(int argc, char **argv)
{
	struct top_run *tr = calloc(1, sizeof(*tr));
	int ret;

	if (!tr)
		return cli__exit_status(-ENOMEM);
	top_state__init(&tr->state);
	for (int v = 0; v < TOP_VIEW_NR; v++)
		tr->tab[v].view = v;	/* empty until the first interval */
	tr->delay = 1;
	ret = top_opts__parse(tr, argc, argv);
	if (ret) {
		ret = cli__parse_status(ret);
		goto out;
	}
	/* bad input, 2 (ENOTTY would be 1) */
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		ret = cli__fail(-EINVAL, "top needs a terminal: its standard %s is not one (for a recording use 'emon-perf stat -I')",
				!isatty(STDOUT_FILENO) ? "output" : "input");
		goto out;
	}
	ret = sigwake__setup((int[]){ SIGINT, SIGTERM, SIGHUP }, 3, false);
	ret = ret ? cli__exit_status(ret) : top_run(tr);
out:
	top_cleanup(tr);
	free(tr);
	return ret;
}
