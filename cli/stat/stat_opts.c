// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* emon-perf stat's options: perf stat's names, checked up front so that bad
 * input is a one-line error before anything is loaded. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/commands.h"
#include "front/shared_opts.h"
#include "cli/stat/stat.h"

#define CPU_ONLINE_PATH "/sys/devices/system/cpu/online"
/* perf 6.1's default events, in its order: cpu-clock for a CPU target
 * (-a, -C, and the system-wide run without a target), task-clock for a
 * command, -p or -t (builtin-stat.c's default_attrs0) */
#define DEFAULT_REST "context-switches,cpu-migrations,page-faults," \
		     "cycles,instructions,branches,branch-misses"

enum {
	OPT_BY = 256,
	OPT_TIMEOUT,
	OPT_SCHED_HIST,
	OPT_APPEND,
	OPT_PER_SOCKET,
	OPT_PER_DIE,
	OPT_PER_CORE,
	OPT_INTERVAL_COUNT,
	OPT_METRIC_ONLY,
	OPT_PER_THREAD,
	OPT_TOP,
	OPT_JSON_ROWS,
	/* perf's, as perf does them (stat_compat.c) */
	OPT_PER_NODE,
	OPT_NO_MERGE,
	OPT_BIG_NUM,
	OPT_NO_BIG_NUM,
	OPT_PRE,
	OPT_POST,
	OPT_ALL_USER,
	OPT_ALL_KERNEL,
	OPT_SUMMARY,
	OPT_NO_CSV_SUMMARY,
	OPT_SCALE,
	OPT_LOG_FD,
	OPT_METRIC_NO_GROUP,
	OPT_PERCORE_SHOW_THREAD,
	OPT_FOR_EACH_CGROUP,
	OPT_CONTROL,
};

static void stat_usage(FILE *f)
{
	fprintf(f,
"Usage: emon-perf stat [options] [-- command [args...]]\n"
"       emon-perf stat record [-o FILE] [options] [-- command [args...]]\n"
"       emon-perf stat report [-i FILE] [-x SEP]\n"
"\n"
"Counts events with one perf_event per CPU per event, read by a BPF program\n"
"on every context switch and split per CPU, socket, cgroup and process;\n"
"cpu-clock, task-clock, context-switches and cpu-migrations come from the\n"
"switches themselves, with no perf_event.\n"
"\n"
"  -e, --event LIST          events, comma-separated (libpfm4 names, perf's\n"
"                            generic names, raw rNNNN, PMU/term=value/),\n"
"                            {a,b}:mods opens a group (counted together);\n"
"                            at most %d events, each member of a group one\n"
"                            (8 with --sched); default perf's: task-clock\n"
"                            (cpu-clock with -a, -C, -G or no target),\n"
"                            context-switches, cpu-migrations, page-faults,\n"
"                            cycles, instructions, branches, branch-misses\n"
"  -M, --metrics LIST        metrics, comma-separated, each with the events\n"
"                            it needs ('emon-perf list metrics'); printed\n"
"                            after '#', <not supported> where an event is\n"
"      --metric-only         only the -M metrics, one column each\n"
"  -d, --detailed            also perf's L1-dcache and LLC loads and misses\n"
"                            (" FORMULA_DETAILED_EVENTS "),\n"
"                            with their miss rates\n"
"  -a, --all-cpus            whole system (the default without a command)\n"
"  -p, --pid PIDS            the processes PIDS (comma-separated), all their\n"
"                            threads and, as perf -p, the children they fork\n"
"                            from now on (own events; attached: not the\n"
"                            children); ends when they all have (a command\n"
"                            only sets the duration)\n"
"  -t, --tid TIDS            the threads TIDS (comma-separated) only, summed\n"
"                            into one row (--per-thread: a row each); ends\n"
"                            when they all have. Own events only (the\n"
"                            daemon counts threads with serve --max-tids)\n"
"  -C, --cpu LIST            with -a (implied): only CPUs LIST, perf's list\n"
"                            syntax (0-3,8); rows system, cpu and socket\n"
"                            only (cgroup and process totals are not per CPU)\n"
"  -G, --cgroup LIST         cgroups to report, paths from the cgroup2 root;\n"
"                            after -e, as perf: the Nth cgroup counts the\n"
"                            Nth event (one cgroup in all: every event)\n"
"      --for-each-cgroup LIST  every event in each cgroup (-G before any -e\n"
"                            too); each row includes its descendants\n"
"      --by LIST             scopes: system,cpu,socket,die,core,cgroup,\n"
"                            container,pod,namespace,process (default\n"
"                            system; cgroup alone with -G, as perf; the\n"
"                            command's tree in command mode). --by cgroup\n"
"                            without -G: every cgroup, its own counts only\n"
"      --top N               of each cgroup, container, pod, namespace and\n"
"                            process rows, the N busiest (by the first\n"
"                            event counted), the busiest first\n"
"  -A, --no-aggr             per CPU (--by cpu), as perf\n"
"      --per-socket          per socket (--by socket)\n"
"      --per-die             per die (--by die)\n"
"      --per-core            per core: the CPUs that share one (--by core)\n"
"      --per-thread          a row per thread, COMM-TID, as perf: with -p\n"
"                            their processes' threads, with -t those, with\n"
"                            -a (or no target) every thread that ran\n"
"  -I, --interval-print MS   print deltas every MS milliseconds (>= 10)\n"
"      --interval-count N    with -I: stop after N prints (with a command:\n"
"                            print no more and wait for it, as perf)\n"
"  -D, --delay MS            start counting MS milliseconds after the start\n"
"                            (with a command: after it started), as perf -D;\n"
"                            -1: at --control's 'enable'\n"
"  -r, --repeat N            run the command N times (1 to 1000) and print\n"
"                            the mean, each event's ( +- x%% ) (the standard\n"
"                            deviation of the mean) and the elapsed time's;\n"
"                            -x adds that percentage after the event name\n"
"  -x, --field-separator S   CSV output with separator S, perf's columns\n"
"  -j, --json-output         perf's JSON: perf stat -j's lines, key for key\n"
"      --json-rows           emon-perf's JSON rows: one object per row and\n"
"                            interval, its scope, key, names, counters,\n"
"                            energy and --sched view (what report reads;\n"
"                            what -j printed up to 0.2.0)\n"
"  -o, --output FILE         write the counts to FILE (default: stderr, as\n"
"                            perf, so that a command's stdout stays its own)\n"
"      --append              with -o: append to FILE\n"
"  -q, --quiet               print no counts (errors still)\n"
"      --timeout MS          stop after MS milliseconds\n"
"      --per-node            per NUMA node (--by node), as perf\n"
"  -n, --null                no events unless asked: the times alone\n"
"  -B, --big-num, --no-big-num  text counts with the locale's thousands\n"
"                            separators (the default), or none\n"
"      --pre CMD, --post CMD sh -c CMD before each run, and after it\n"
"      --all-user, --all-kernel  every event in user (kernel) mode only\n"
"      --summary             with -I: the whole run at the end too\n"
"      --no-csv-summary      its CSV lines without perf's 'summary' field\n"
"      --log-fd N            the counts to fd N instead of stderr\n"
"      --control fd:CTL[,ACK] | fifo:CTL[,ACK]  'enable' and 'disable'\n"
"                            from CTL (-D -1: start disabled), as perf\n"
"      --scale, --no-merge, --metric-no-group, --percore-show-thread\n"
"                            perf's, accepted (nothing to do here)\n"
ENERGY_OPTIONS_USAGE
RUNTIME_ROOT_USAGE
"      --max-cgroups N       BPF map entries (cgroup x CPU) per interval\n"
"      --max-procs N         BPF map entries (process x CPU) per interval;\n"
"                            beyond them counts go to an overflow row\n"
"      --max-tids N          BPF map entries (thread x CPU) per interval\n"
"                            with -t or --per-thread (default 32768)\n"
"      --sched               the scheduler view per row: on-CPU, run-queue\n"
"                            wait, sleep and blocked time, migrations,\n"
"                            wakeups, voluntary and involuntary switches and\n"
"                            a run-queue latency histogram (log2 us)\n"
"      --sched-hist          --sched, and text prints each row's histogram\n"
"      --sched-ms            --sched, with the histogram in milliseconds\n"
NO_SCALE_USAGE
DAEMON_OPTIONS_USAGE
"  -v, --verbose             libbpf and decision messages on stderr\n"
"  -h, --help                this text\n"
"\n"
"When 'emon-perf serve' runs (its socket answers) and counts every event\n"
"asked for, stat attaches to it: it opens no perf_event and loads no BPF\n"
"program, and says so on stderr. --energy, --powercap-root, --split-by and\n"
"--idle-watts need own events; containers' names are the daemon's (serve\n"
"--runtime-root). --no-scale and --gpu attach to a daemon started with\n"
"them only.\n"
"\n"
"With a command and no -a/-G, the command's whole process tree is counted\n"
"(children included, exited or not) and its exit status is returned. With\n"
"-a or -G a command only sets the duration. Without a command, runs until\n"
"SIGINT/SIGTERM or --timeout. Exit status: 0, the command's, 1 runtime\n"
"failure, 2 bad usage or input, 255 a command that cannot run (perf's\n"
"'Workload failed: REASON').\n"
"\n"
"stat record writes the counts to a perf.data (FILE, default perf.data) as\n"
"perf stat record does, for 'perf stat report -i FILE' and stat report:\n"
"system-wide (-a, -C, -A) or a command's, with -I's rounds; its counts go\n"
"to stderr as well. stat report prints such a file, emon-perf's or perf's.\n"
"It records --per-socket, --per-die, --per-core, --per-node (with perf's\n"
"CPU topology), -p, -t, --per-thread and -G too.\n",
		EMON_MAX_EVENTS);
}

static const struct option long_opts[] = {
	{ "event",		required_argument, NULL, 'e' },
	{ "all-cpus",		no_argument,	   NULL, 'a' },
	{ "cgroup",		required_argument, NULL, 'G' },
	{ "for-each-cgroup",	required_argument, NULL, OPT_FOR_EACH_CGROUP },
	{ "by",			required_argument, NULL, OPT_BY },
	{ "no-aggr",		no_argument,	   NULL, 'A' },
	{ "per-socket",		no_argument,	   NULL, OPT_PER_SOCKET },
	{ "per-die",		no_argument,	   NULL, OPT_PER_DIE },
	{ "per-core",		no_argument,	   NULL, OPT_PER_CORE },
	{ "interval-print",	required_argument, NULL, 'I' },
	{ "interval-count",	required_argument, NULL, OPT_INTERVAL_COUNT },
	{ "pid",		required_argument, NULL, 'p' },
	{ "tid",		required_argument, NULL, 't' },
	{ "per-thread",		no_argument,	   NULL, OPT_PER_THREAD },
	{ "top",		required_argument, NULL, OPT_TOP },
	{ "cpu",		required_argument, NULL, 'C' },
	{ "delay",		required_argument, NULL, 'D' },
	{ "repeat",		required_argument, NULL, 'r' },
	{ "field-separator",	required_argument, NULL, 'x' },
	{ "json-output",	no_argument,	   NULL, 'j' },
	{ "json",		no_argument,	   NULL, 'j' },
	{ "json-rows",		no_argument,	   NULL, OPT_JSON_ROWS },
	{ "output",		required_argument, NULL, 'o' },
	{ "append",		no_argument,	   NULL, OPT_APPEND },
	{ "quiet",		no_argument,	   NULL, 'q' },
	{ "timeout",		required_argument, NULL, OPT_TIMEOUT },
	ENGINE_LONG_OPTIONS,
	DAEMON_LONG_OPTIONS,
	{ "sched-hist",		no_argument,	   NULL, OPT_SCHED_HIST },
	{ "metrics",		required_argument, NULL, 'M' },
	{ "metric-only",	no_argument,	   NULL, OPT_METRIC_ONLY },
	{ "detailed",		no_argument,	   NULL, 'd' },
	{ "per-node",		no_argument,	   NULL, OPT_PER_NODE },
	{ "no-merge",		no_argument,	   NULL, OPT_NO_MERGE },
	{ "null",		no_argument,	   NULL, 'n' },
	{ "big-num",		no_argument,	   NULL, OPT_BIG_NUM },
	{ "no-big-num",		no_argument,	   NULL, OPT_NO_BIG_NUM },
	{ "pre",		required_argument, NULL, OPT_PRE },
	{ "post",		required_argument, NULL, OPT_POST },
	{ "all-user",		no_argument,	   NULL, OPT_ALL_USER },
	{ "all-kernel",		no_argument,	   NULL, OPT_ALL_KERNEL },
	{ "summary",		no_argument,	   NULL, OPT_SUMMARY },
	{ "no-csv-summary",	no_argument,	   NULL, OPT_NO_CSV_SUMMARY },
	{ "scale",		no_argument,	   NULL, OPT_SCALE },
	{ "log-fd",		required_argument, NULL, OPT_LOG_FD },
	{ "metric-no-group",	no_argument,	   NULL, OPT_METRIC_NO_GROUP },
	{ "percore-show-thread", no_argument,	   NULL, OPT_PERCORE_SHOW_THREAD },
	{ "control",		required_argument, NULL, OPT_CONTROL },
	COMMON_LONG_OPTIONS
};

static int parse_by(struct front_opts *o, const char *arg)
{
	char *dup = strdup(arg), *save = NULL, *tok;
	int err = 0;

	if (!dup)
		return -ENOMEM;
	if (!*arg) {
		pr_err("empty --by list");
		err = -EINVAL;
	}
	for (tok = strtok_r(dup, ",", &save); tok && !err;
	     tok = strtok_r(NULL, ",", &save)) {
		int s = scope__parse(tok);

		if (s < 0 || s == SCOPE_COMMAND) {
			pr_err("unknown scope '%s' in --by (system,cpu,socket,die,core,node,cgroup,container,pod,namespace,process)",
			       tok);
			err = -EINVAL;
			break;
		}
		o->by |= 1u << s;
	}
	free(dup);
	return err;
}

static int parse_cgroups(struct front_opts *o, const char *arg)
{
	char *dup = strdup(arg), *p, *tok;
	char norm[PATH_MAX];
	int err = 0;

	if (!dup)
		return -ENOMEM;
	p = dup;
	/* strsep, not strtok: "a,,b" has an empty element, an error */
	while (!err && (tok = strsep(&p, ",")) != NULL) {
		if (cgroup__normalize(tok, norm, sizeof(norm))) {
			pr_err("bad cgroup path '%s' for -G", tok);
			err = -EINVAL;
		} else if (o->nr_cgroups == FRONT_MAX_CGROUPS) {
			pr_err("too many cgroups for -G: at most %d", FRONT_MAX_CGROUPS);
			err = -EINVAL;
		} else if (!(o->cgroups[o->nr_cgroups] = strdup(norm)) ||
			   !(o->cg_given[o->nr_cgroups++] = strdup(tok))) {
			err = -ENOMEM;
		}
	}
	free(dup);
	return err;
}

/* perf's options that change what is printed or what runs around the
 * count (cli/stat/stat_compat.c does them) */
static int stat_opts__perf(struct front_opts *o, int c, const char *arg)
{
	long v;

	switch (c) {
	case OPT_PER_NODE:
		o->aggr |= 1u << SCOPE_NODE;
		return 0;
	case 'n':
		o->null_run = true;
		return 0;
	case 'B':
	case OPT_BIG_NUM:
		o->big_num = true;
		o->no_big_num = false;
		return 0;
	case OPT_NO_BIG_NUM:
		o->no_big_num = true;
		o->big_num = false;
		return 0;
	case OPT_PRE:
		o->pre_cmd = arg;
		return 0;
	case OPT_POST:
		o->post_cmd = arg;
		return 0;
	case OPT_ALL_USER:
		o->all_mod = 'u';
		return 0;
	case OPT_ALL_KERNEL:
		o->all_mod = 'k';
		return 0;
	case OPT_SUMMARY:
		o->summary = true;
		return 0;
	case OPT_NO_CSV_SUMMARY:
		o->no_csv_summary = true;
		return 0;
	case OPT_SCALE:		/* perf's default, and here (--no-scale: not) */
		o->eng.no_scale = false;
		return 0;
	case OPT_LOG_FD:
		if (opts__long("--log-fd", arg, 0, INT32_MAX - 1, &v))
			return -EINVAL;
		o->log_fd = v + 1;
		return 0;
	/* nothing to do here: no hybrid or uncore PMU's counts to merge, no
	 * metric groups (each -M metric is a formula over the events), and
	 * no percore event qualifier */
	case OPT_NO_MERGE:
	case OPT_METRIC_NO_GROUP:
	case OPT_PERCORE_SHOW_THREAD:
		return 0;
	case OPT_CONTROL:	/* checked, and opened, by the run */
		if (strncmp(arg, "fd:", 3) && strncmp(arg, "fifo:", 5)) {
			pr_err("bad value '%s' for --control: fd:ctl-fd[,ack-fd] or fifo:ctl-fifo[,ack-fifo]",
			       arg);
			return -EINVAL;
		}
		o->control = arg;
		return 0;
	default:
		return -EINVAL;
	}
}

static int stat_opts__one(void *ctx, int c, const char *arg)
{
	struct front_opts *o = ctx;
	int r = opts__engine(&o->eng, c, arg) ?: front_opts__daemon(o, c, arg);

	if (r)
		return r < 0 ? r : 0;
	switch (c) {
	case 'e':
		return opts__events(o->events, sizeof(o->events), arg);
	case 'a':
		o->all_cpus = true;
		return 0;
	case 'G':	/* perf's: after -e, paired with the events */
		if (o->events[0])
			return stat_compat__cgroups(o, arg);
		/* before any -e: every event in each (perf: refused) */
		__attribute__((fallthrough));
	case OPT_FOR_EACH_CGROUP:
		if (o->cg_paired) {
			pr_err("--cgroup and --for-each-cgroup cannot be used together");
			return -EINVAL;
		}
		o->cg_each = true;
		return parse_cgroups(o, arg);
	case OPT_BY:
		return parse_by(o, arg);
	case 'A':	/* perf's aggregation flags name scopes */
		o->aggr |= 1u << SCOPE_CPU;
		return 0;
	case OPT_PER_SOCKET:
		o->aggr |= 1u << SCOPE_SOCKET;
		return 0;
	case OPT_PER_DIE:
		o->aggr |= 1u << SCOPE_DIE;
		return 0;
	case OPT_PER_CORE:
		o->aggr |= 1u << SCOPE_CORE;
		return 0;
	case 'I':
		if (opts__long("-I", arg, 10, LONG_MAX, &o->interval_ms))
			return -EINVAL;
		return 0;
	case 'x':
		if (!*arg) {
			pr_err("empty field separator for -x");
			return -EINVAL;
		}
		o->sep = arg;
		return 0;
	case 'j':
		o->perf_json = true;
		return 0;
	case OPT_JSON_ROWS:
		o->json = true;
		return 0;
	case 'o':
		o->output = arg;
		return 0;
	case OPT_APPEND:
		o->append = true;
		return 0;
	case 'q':
		o->quiet = true;
		return 0;
	case OPT_TIMEOUT:
		return opts__long("--timeout", arg, 1, LONG_MAX, &o->timeout_ms);
	case 'p':
		return targets__pids(&o->tg, arg);
	case 't':
		return targets__tids(&o->tg, arg);
	case OPT_PER_THREAD:
		o->tg.per_thread = true;
		return 0;
	case 'C':
		o->all_cpus = true;	/* perf: -C is system-wide on those CPUs */
		return targets__cpus(&o->tg, arg, CPU_ONLINE_PATH);
	case 'D':	/* perf: -1 starts disabled, for --control's enable */
		return opts__long("-D", arg, -1, INT32_MAX, &o->tg.delay_ms);
	case 'r':
		return opts__long("-r", arg, 1, STAT_MAX_RUNS, &o->tg.repeat);
	case OPT_TOP: {
		long n;
		int err = opts__long("--top", arg, 1, 1000000, &n);

		o->top = n;
		return err;
	}
	case OPT_INTERVAL_COUNT:
		return opts__long("--interval-count", arg, 1, LONG_MAX,
				  &o->tg.interval_count);
	case OPT_SCHED_HIST:
		o->sched_hist = o->eng.sched = true;
		return 0;
	case 'M':
		return opts__events(o->metric_list, sizeof(o->metric_list), arg);
	case OPT_METRIC_ONLY:
		o->metric_only = true;
		return 0;
	case 'd':
		o->detailed = true;
		return 0;
	default:
		return stat_opts__perf(o, c, arg);
	}
}

/* -t and --per-thread (the thread scope): what goes with them. */
static int stat_opts__check_threads(struct front_opts *o)
{
	const struct targets *t = &o->tg;

	if (t->nr_tids && (t->nr_pids || o->all_cpus || o->nr_cgroups)) {
		pr_err("-t counts threads: it excludes -p, -a, -C and -G");
		return -EINVAL;
	}
	if (t->nr_tids && (o->by || o->aggr)) {
		pr_err("-t takes no --by and no aggregation but --per-thread");
		return -EINVAL;
	}
	if (t->nr_tids && t->repeat > 1) {
		pr_err("-r repeats a command: it excludes -t");
		return -EINVAL;
	}
	if (t->per_thread && o->cmd && !t->nr_pids && !t->nr_tids && !o->all_cpus) {
		/* perf's own rule */
		pr_err("--per-thread needs -p, -t or -a (a command's threads: -p or -a)");
		return -EINVAL;
	}
	if (t->per_thread && (o->nr_cgroups || t->has_cpus || o->aggr || o->by ||
			      t->repeat > 1)) {
		pr_err("--per-thread takes no -G, -C, -r, --by or other aggregation: its rows are threads");
		return -EINVAL;
	}
	/* the thread scope: slots of its own in BPF */
	if ((t->nr_tids || t->per_thread) && !o->eng.max_tids)
		o->eng.max_tids = STAT_DEFAULT_MAX_TIDS;
	return 0;
}

/* Which targets go together, as perf's do; each refusal says why. */
static int stat_opts__check_targets(struct front_opts *o)
{
	const unsigned int not_per_cpu = (1u << SCOPE_CGROUP) |
		(1u << SCOPE_CONTAINER) | (1u << SCOPE_PROCESS);

	if (o->tg.interval_count && !o->interval_ms) {
		pr_err("--interval-count needs -I");
		return -EINVAL;
	}
	if (o->tg.repeat > 1 && (!o->cmd || o->interval_ms || o->tg.nr_pids)) {
		pr_err("-r repeats a command: it needs one, and excludes -I and -p");
		return -EINVAL;
	}
	if (o->tg.repeat > 1 && (o->by & ((1u << SCOPE_PROCESS) | (1u << SCOPE_CONTAINER)))) {
		pr_err("-r excludes --by process and container: their rows differ from run to run");
		return -EINVAL;
	}
	if (o->tg.nr_pids && (o->all_cpus || o->nr_cgroups)) {
		pr_err("-p counts processes: it excludes -a, -C and -G");
		return -EINVAL;
	}
	if (o->tg.nr_pids && (o->by & ~(1u << SCOPE_PROCESS))) {
		pr_err("-p takes only --by process (the processes' own rows)");
		return -EINVAL;
	}
	if (o->tg.has_cpus && (o->nr_cgroups || (o->by & not_per_cpu))) {
		pr_err("-C excludes -G and --by cgroup, container and process: their totals are not kept per CPU");
		return -EINVAL;
	}
	return stat_opts__check_threads(o);
}

/*
 * The events of -d and -M join -e's: perf's default set when neither -e
 * nor -M gave any, -d's detailed set and its miss rates, then each
 * metric's events not there yet.
 */
static void stat_opts__default_events(struct front_opts *o)
{
	bool cpus = o->all_cpus || o->tg.has_cpus || o->nr_cgroups ||
		    (!o->cmd && !o->tg.nr_pids && !o->tg.nr_tids);

	snprintf(o->events, sizeof(o->events), "%s,%s",
		 cpus ? "cpu-clock" : "task-clock", DEFAULT_REST);
}

static int stat_opts__metrics(struct front_opts *o)
{
	size_t len;

	if (!o->events[0] && !o->metric_list[0])
		stat_opts__default_events(o);
	if (o->detailed) {
		len = strlen(o->events);
		snprintf(o->events + len, sizeof(o->events) - len, "%s%s",
			 len ? "," : "", FORMULA_DETAILED_EVENTS);
		if (opts__events(o->metric_list, sizeof(o->metric_list),
				 "L1_miss_rate,LLC_miss_rate"))
			return -EINVAL;
	}
	if (o->metric_only && !o->metric_list[0]) {
		stat_compat__shadow_metrics(o);
		o->metrics_implied = true;
	}
	if (!o->metric_list[0])
		return 0;
	if (formulas__parse(o->metric_list, o->events, sizeof(o->events),
			    o->metrics, &o->nr_metrics))
		return -EINVAL;
	/* metrics of energy alone (W) need no event: perf's default set */
	if (!o->events[0])
		stat_opts__default_events(o);
	return 0;
}

int stat_opts__parse(struct front_opts *o, int argc, char **argv)
{
	int err;

	memset(o, 0, sizeof(*o));
	err = opts__parse(argc, argv, "+e:aAG:I:x:jo:qp:t:C:D:r:vhM:dnB", long_opts, "stat",
			  stat_usage, stat_opts__one, o);
	if (err)
		return err;
	if (optind < argc)
		o->cmd = &argv[optind];
	/* perf -n without events: the times alone (one event is counted) */
	if (o->null_run && !o->events[0] && !o->metric_list[0] && !o->detailed) {
		snprintf(o->events, sizeof(o->events), "cpu-clock");
		o->hide_events = true;
	}
	err = stat_opts__metrics(o) ?: stat_compat__events(o) ?: stat_compat__check(o) ?:
	      stat_compat__cgroups_check(o);
	if (err)
		return err;
	if (o->sep && o->perf_json) {
		pr_err("-x and -j exclude each other");
		return -EINVAL;
	}
	if ((o->sep || o->perf_json) && o->json) {
		pr_err("--json-rows excludes -x and -j");
		return -EINVAL;
	}
	return stat_opts__check_targets(o);
}
