// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf serve's options: the table, --help, each option's checks and
 * the defaults that depend on others (the per-uid shares, the kept
 * capabilities).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "common/log.h"
#include "common/version.h"
#include "front/shared_opts.h"
#include "daemon/serve_opts.h"
#include "daemon/exporter/http.h"
#include "daemon/exporter/metrics.h"
#include "daemon/threads.h"
#include "daemon/socket/server.h"
#include "front/source.h"

/* perf stat -a's default set, so that stat -a without -e attaches */
#define DEFAULT_EVENTS "cpu-clock,context-switches,cpu-migrations,page-faults," \
		       "cycles,instructions,branches,branch-misses"
#define DEFAULT_LISTEN "127.0.0.1:9464"
/* At most 10 scrape-driven flushes a second (--min-flush-ms allows 100),
 * and an answer at most 0.1 s old: a tenth of the shortest interval
 * Prometheus is run with (1 s), so every scrape of one server gets a
 * flush of its own; the scrapes of an HA pair, or a burst, share one. */
#define DEFAULT_MIN_SCRAPE_MS "100"

enum {
	OPT_SOCKET = 256,
	OPT_SOCKET_GROUP,
	OPT_LISTEN,
	OPT_PROCESSES,
	OPT_MAX_SERIES,
	OPT_MAX_CLIENTS,
	OPT_MAX_HELD,
	OPT_MAX_KEYS,
	OPT_RETAIN,
	OPT_MIN_FLUSH,
	OPT_MIN_SCRAPE,
	OPT_WEB_CONFIG,
	OPT_THREADS,
	OPT_PIN_DIR,
	OPT_USER,
	OPT_ADMIN_GROUP,
	OPT_METRICS_GROUP,
	OPT_IDLE_TIMEOUT,
	OPT_MAX_CLIENTS_UID,
	OPT_MAX_TREES_UID,
	OPT_MAX_THREADS_UID,
	OPT_MAX_THREAD_UIDS,
	OPT_NO_SECCOMP,
	OPT_VM_ENERGY,
	OPT_VM_ENERGY_MS,
};

static const struct option long_opts[] = {
	{ "event",		required_argument, NULL, 'e' },
	ENGINE_LONG_OPTIONS,
	{ "socket",		required_argument, NULL, OPT_SOCKET },
	{ "socket-group",	required_argument, NULL, OPT_SOCKET_GROUP },
	{ "listen",		required_argument, NULL, OPT_LISTEN },
	{ "web-config",		required_argument, NULL, OPT_WEB_CONFIG },
	{ "processes",		required_argument, NULL, OPT_PROCESSES },
	{ "max-series",		required_argument, NULL, OPT_MAX_SERIES },
	{ "max-held-mb",	required_argument, NULL, OPT_MAX_HELD },
	{ "max-clients",	required_argument, NULL, OPT_MAX_CLIENTS },
	{ "max-keys",		required_argument, NULL, OPT_MAX_KEYS },
	{ "retain",		required_argument, NULL, OPT_RETAIN },
	{ "min-flush-ms",	required_argument, NULL, OPT_MIN_FLUSH },
	{ "min-scrape-ms",	required_argument, NULL, OPT_MIN_SCRAPE },
	{ "threads",		required_argument, NULL, OPT_THREADS },
	{ "pin-dir",		required_argument, NULL, OPT_PIN_DIR },
	{ "user",		required_argument, NULL, OPT_USER },
	{ "admin-group",	required_argument, NULL, OPT_ADMIN_GROUP },
	{ "metrics-group",	required_argument, NULL, OPT_METRICS_GROUP },
	{ "idle-timeout",	required_argument, NULL, OPT_IDLE_TIMEOUT },
	{ "max-clients-per-uid", required_argument, NULL, OPT_MAX_CLIENTS_UID },
	{ "max-trees-per-uid",	required_argument, NULL, OPT_MAX_TREES_UID },
	{ "max-threads-per-uid", required_argument, NULL, OPT_MAX_THREADS_UID },
	{ "max-thread-uids",	required_argument, NULL, OPT_MAX_THREAD_UIDS },
	{ "no-seccomp",		no_argument,	   NULL, OPT_NO_SECCOMP },
	{ "vm-energy",		required_argument, NULL, OPT_VM_ENERGY },
	{ "vm-energy-ms",	required_argument, NULL, OPT_VM_ENERGY_MS },
	COMMON_LONG_OPTIONS
};

static void serve_usage(FILE *f)
{
	fprintf(f,
"Usage: emon-perf serve [options]\n"
"\n"
"Counts for the whole host, from its start, in the foreground (logs on\n"
"stderr): system, packages, every cgroup, container and process, with one\n"
"set of per-CPU events and BPF programs that every consumer shares.\n"
"'emon-perf stat' attaches to it by itself; Prometheus scrapes /metrics.\n"
"\n"
"  -e, --event LIST          events, at most 16, 8 with --sched or --threads\n"
"                            (default perf stat -a's: cpu-clock,\n"
"                            context-switches, cpu-migrations, page-faults,\n"
"                            cycles, instructions, branches, branch-misses)\n"
"      --energy SOURCE       auto (default), powercap, perf, model:IDLE_W:MAX_W, none\n"
"      --powercap-root DIR   powercap tree (default /sys/class/powercap)\n"
"      --split-by EVENT      event that splits energy (default cycles, else cpu-clock)\n"
"      --idle-watts W        static power per package, kept out of the split\n"
GPU_USAGE
RUNTIME_ROOT_USAGE
"      --max-cgroups N       BPF map entries (cgroup x CPU) per read\n"
"      --max-procs N         BPF map entries (process x CPU) per read\n"
"      --max-tids N          count threads too, N map entries (thread x CPU) per\n"
"                            read: stat -t and --per-thread attach (root's)\n"
"      --sched               the scheduler view: on-CPU, run-queue wait, sleep,\n"
"                            blocked, migrations, wakeups, switches and run-queue\n"
"                            latency histograms, per scope (clients and /metrics)\n"
"      --sched-ms            --sched, with the histograms in milliseconds\n"
NO_SCALE_USAGE
"      --socket PATH         the local API's socket (default " EMON_DEFAULT_SOCKET ");\n"
"                            directory 0750, socket 0660\n"
"      --socket-group NAME   the group that may use the socket\n"
"      --admin-group NAME    its members see every process, cgroup and the\n"
"                            system, as root does; others see their own\n"
"                            (docs/security.md)\n"
"      --listen ADDR:PORT    HTTP for /metrics (default " DEFAULT_LISTEN "); none: off.\n"
"                            Without --web-config: loopback only, for root and\n"
"                            --metrics-group's members (403 to other users)\n"
"      --metrics-group NAME  who may read plain /metrics on loopback besides root\n"
"                            (default: --admin-group's members; a local Prometheus\n"
"                            runs as one of them)\n"
"      --web-config FILE     TLS and basic auth for /metrics: Prometheus\n"
"                            exporter-toolkit's web configuration (YAML)\n"
"      --processes top:N     process series in /metrics: the top N by time\n"
"      --max-series N        /metrics series at most (default 20000): beyond,\n"
"                            the smallest cgroups fold into cgroup=\"other\"\n"
"      --max-clients N       socket clients at once (default 1024)\n"
"      --max-clients-per-uid N  of them one uid's (default a quarter)\n"
"      --max-trees-per-uid N    command trees one uid follows (default 16 of 64)\n"
"      --max-threads-per-uid N  thread slots one uid holds (default a quarter)\n"
"      --max-thread-uids N  uids whose threads hold slots, each in a slot array\n"
"                            of its own for the daemon's life (default 16, or\n"
"                            enough for --threads)\n"
"      --idle-timeout S      a client with no whole request S s after it\n"
"                            connected is closed (default 60)\n"
"      --max-held-mb MB      memory for answers clients have not read yet\n"
"                            (default 256): past it, requests wait\n"
"      --max-keys N          cgroups and processes kept (default 100000)\n"
"      --retain S            a removed cgroup or exited process keeps its final\n"
"                            totals this long (default 300 s)\n"
"      --min-flush-ms MS     flushes at least this far apart (default 10)\n"
"      --min-scrape-ms MS    a scrape this soon after the last flush (any) is\n"
"                            answered from it (default " DEFAULT_MIN_SCRAPE_MS "; 0: off)\n"
"      --threads N           thread self-monitoring (libemon): slots for N\n"
"                            registered threads at once (default 0: off)\n"
"      --pin-dir DIR         where the slots are pinned, on a bpf file system\n"
"                            (default " SELFMON_DEFAULT_PIN_DIR "; removed at exit)\n"
"      --user NAME|UID       after set-up, run as that user (its primary group\n"
"                            and --socket-group's), with the runtime capability;\n"
"                            the directories it makes are the user's\n"
"      --vm-energy CGROUP=DIR  a VM's energy (its cgroup's, as -G names it) for\n"
"                            its guest: DIR/intel-rapl:0, a zone named vm-host,\n"
"                            rewritten each --vm-energy-ms; DIR shared into the\n"
"                            guest (docs/vm-energy.md); repeatable\n"
"      --vm-energy-ms MS     how often (default 1000; each a flush)\n"
"      --no-seccomp          no seccomp allowlist of the daemon's own after\n"
"                            set-up (for debugging: strace, a new call)\n"
"  -v, --verbose             more messages\n"
"  -h, --help                this text\n"
"\n"
"SIGTERM or SIGINT: a clean exit (socket removed, programs detached).\n"
"Exit status: 0, 1 runtime failure, 2 bad usage or input.\n");
}

/* Checked here, before anything is loaded: a bad group is bad input. */
static int parse_group(const char *opt, const char *name, gid_t *gid)
{
	struct group *g = getgrnam(name);

	if (!g) {
		pr_err("unknown group '%s' for %s", name, opt);
		return -EINVAL;
	}
	*gid = g->gr_gid;
	return 0;
}

static int serve_opts__one(void *ctx, int c, const char *arg)
{
	struct serve_opts *o = ctx;
	int r = opts__engine(&o->eng, c, arg);
	double d;
	long v;

	if (r)
		return r < 0 ? r : 0;
	switch (c) {
	case 'e':
		return opts__events(o->events, sizeof(o->events), arg);
	case OPT_SOCKET:
		o->socket = arg;
		return 0;
	case OPT_SOCKET_GROUP:
		return parse_group("--socket-group", arg, &o->gid);
	case OPT_ADMIN_GROUP:
		return parse_group("--admin-group", arg, &o->admin_gid);
	case OPT_METRICS_GROUP:
		return parse_group("--metrics-group", arg, &o->metrics_gid);
	case OPT_NO_SECCOMP:
		o->no_seccomp = true;
		return 0;
	case OPT_IDLE_TIMEOUT:
		return opts__double("--idle-timeout", arg, 0.1, 86400, &o->idle_timeout_s);
	case OPT_MAX_CLIENTS_UID:
		return opts__long("--max-clients-per-uid", arg, 1, 4000, &o->max_clients_per_uid);
	case OPT_MAX_TREES_UID:
		return opts__long("--max-trees-per-uid", arg, 1, EMON_MAX_TREES,
				  &o->max_trees_per_uid);
	case OPT_MAX_THREADS_UID:
		return opts__long("--max-threads-per-uid", arg, 1, 1 << 20,
				  &o->max_threads_per_uid);
	case OPT_MAX_THREAD_UIDS:
		return opts__long("--max-thread-uids", arg, 1, 1 << 16, &o->max_thread_uids);
	case OPT_LISTEN:
		o->listen = arg;
		return 0;
	case OPT_PROCESSES:
		if (strncmp(arg, "top:", 4)) {
			pr_err("bad value '%s' for --processes: top:N", arg);
			return -EINVAL;
		}
		if (opts__long("--processes", arg + 4, 1, 100000, &v))
			return -EINVAL;
		o->top_procs = v;
		return 0;
	case OPT_MAX_SERIES:
		return opts__long("--max-series", arg, 100, 10000000, &o->max_series);
	case OPT_MAX_CLIENTS:
		return opts__long("--max-clients", arg, 1, 4000, &o->max_clients);
	case OPT_MAX_HELD:
		return opts__long("--max-held-mb", arg, 1, 1 << 20, &o->max_held_mb);
	case OPT_MAX_KEYS:
		if (opts__long("--max-keys", arg, 100, 1 << 26, &v))
			return -EINVAL;
		o->eng.max_keys = v;
		return 0;
	case OPT_RETAIN:
		return opts__double("--retain", arg, 0, 86400 * 7, &o->eng.retain_s);
	case OPT_MIN_FLUSH:
		if (opts__double("--min-flush-ms", arg, 1, 10000, &d))
			return -EINVAL;
		o->min_flush_ms = d;
		return 0;
	case OPT_VM_ENERGY_MS:
		return opts__double("--vm-energy-ms", arg, 10, 60000, &o->vm_energy_ms);
	case OPT_MIN_SCRAPE:
		return opts__double("--min-scrape-ms", arg, 0, 60000, &o->min_scrape_ms);
	case OPT_WEB_CONFIG:
		o->web_config = arg;
		return 0;
	case OPT_THREADS:
		return opts__long("--threads", arg, 1, 1 << 20, &o->threads);
	case OPT_PIN_DIR:
		if (arg[0] != '/' || strlen(arg) >= 200) {
			pr_err("bad --pin-dir '%s': an absolute path under 200 bytes", arg);
			return -EINVAL;
		}
		o->pin_dir = arg;
		return 0;
	case OPT_VM_ENERGY: {
		char cg[PATH_MAX], dir[PATH_MAX], err[PATH_MAX + 128];

		if (vm_energy__parse(arg, cg, sizeof(cg), dir, sizeof(dir), err,
				     sizeof(err))) {
			pr_err("%s", err);
			return -EINVAL;
		}
		if (o->nr_vm_energy == VM_ENERGY_MAX) {
			pr_err("more than %d --vm-energy", VM_ENERGY_MAX);
			return -EINVAL;
		}
		o->vm_energy[o->nr_vm_energy++] = arg;
		return 0;
	}
	case OPT_USER:
		if (privs__user(arg, &o->u)) {
			pr_err("unknown user '%s' for --user", arg);
			return -EINVAL;
		}
		o->user = arg;
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * --listen and --web-config: a bad value or file is bad input, and so is
 * an address off loopback whose clients the web config does not
 * authenticate (basic auth, or required client certificates: TLS alone
 * names no client).
 */
static int serve_opts__web(struct serve_opts *o)
{
	struct sockaddr_storage ss;
	socklen_t sslen;
	char err[512];
	int ret;

	if (!strcmp(o->listen, "none")) {
		if (o->web_config)
			pr_warn("--web-config %s is unused with --listen none", o->web_config);
		return 0;
	}
	if (http__parse_listen(o->listen, &ss, &sslen, err, sizeof(err))) {
		pr_err("bad value '%s' for --listen: %s", o->listen, err);
		return -EINVAL;
	}
	if (o->web_config) {
		/* bad input, 2, whatever the errno (-EFBIG, -EIO, -ENOMEM too) */
		ret = webcfg__load(&o->web, o->web_config, err, sizeof(err));
		if (ret) {
			pr_err("bad --web-config: %s", err);
			return -EINVAL;
		}
		webcfg__warn_readable(&o->web, o->web_config);
	}
	/* /metrics of unauthenticated clients: loopback only, where the
	 * uid check holds (TLS alone encrypts, it names no client) */
	if (!webcfg__authenticates(o->web_config ? &o->web : NULL) &&
	    !http__loopback(&ss)) {
		pr_err("--listen %s is not loopback: /metrics there needs its clients "
		       "authenticated (--web-config FILE with basic_auth_users, or TLS with "
		       "client_auth_type RequireAndVerifyClientCert), or listen on "
		       "127.0.0.1 or [::1]", o->listen);
		webcfg__free(&o->web);
		return -EINVAL;
	}
	if (o->web.nr_users && !o->web.cert_file)
		pr_warn("--web-config %s: basic auth without TLS sends passwords "
			"in clear", o->web_config);
	return 0;
}

/*
 * What the runtime keeps: PRIVS_RUNTIME, or a subset of it from
 * EMON_PERF_KEEP_CAPS (the measurement in docs/capabilities.md), never
 * more. 0 or -EINVAL.
 */
static int keep_mask(__u64 *keep)
{
	const char *env = getenv("EMON_PERF_KEEP_CAPS");
	char *end;

	*keep = PRIVS_RUNTIME;
	if (!env)
		return 0;
	errno = 0;
	*keep = strtoull(env, &end, 0);
	if (errno || end == env || *end || (*keep & ~PRIVS_RUNTIME)) {
		pr_err("bad EMON_PERF_KEEP_CAPS '%s': a subset of %#llx", env,
		       (unsigned long long)PRIVS_RUNTIME);
		return -EINVAL;
	}
	return 0;
}

/*
 * What one uid may hold, by default a quarter of each (at least one):
 * four tenants at their most still leave room, and one alone cannot
 * starve the others, root's tools included. Administrators are not
 * limited: they can stop the daemon anyway.
 */
static void serve_opts__shares(struct serve_opts *o)
{
	if (!o->max_clients_per_uid)
		o->max_clients_per_uid = o->max_clients / 4 ?: 1;
	if (!o->max_trees_per_uid)
		o->max_trees_per_uid = EMON_MAX_TREES / 4;
	if (!o->max_threads_per_uid)
		o->max_threads_per_uid = (o->threads + 3) / 4;
}

/*
 * Thread slots: one array per uid (an administrator past its share takes
 * another), --max-threads-per-uid slots each, all made at start-up
 * (engine/session/self.c). By default 16 uids, or as many arrays as
 * --threads fills, fewer when there are fewer threads than that.
 */
static void serve_opts__arrays(struct serve_opts *o)
{
	long per = o->max_threads_per_uid < o->threads ? o->max_threads_per_uid : o->threads;

	if (!o->threads)
		return;
	if (!o->max_thread_uids) {
		o->max_thread_uids = o->threads < 16 ? o->threads : 16;
		if (o->max_thread_uids < (o->threads + per - 1) / per)
			o->max_thread_uids = (o->threads + per - 1) / per;
	}
	o->eng.self_arrays = o->max_thread_uids;
	o->eng.self_array_slots = per;
}

int serve_opts__parse(struct serve_opts *o, int argc, char **argv)
{
	int ret;

	memset(o, 0, sizeof(*o));
	o->socket = EMON_DEFAULT_SOCKET;
	o->gid = (gid_t)-1;
	o->admin_gid = (gid_t)-1;
	o->metrics_gid = (gid_t)-2;	/* not given: --admin-group's */
	o->idle_timeout_s = 60;
	o->listen = DEFAULT_LISTEN;
	o->max_series = 20000;
	o->max_clients = 1024;
	o->max_held_mb = 256;
	o->min_flush_ms = 10;
	o->vm_energy_ms = 1000;
	o->min_scrape_ms = atof(DEFAULT_MIN_SCRAPE_MS);
	o->eng.retain_s = 300;
	o->eng.max_keys = 100000;
	o->pin_dir = SELFMON_DEFAULT_PIN_DIR;
	ret = opts__parse(argc, argv, "+e:vh", long_opts, "serve", serve_usage,
			  serve_opts__one, o);
	if (ret)
		return ret;
	if (optind < argc) {
		pr_err("unexpected argument '%s' (see 'emon-perf serve --help')", argv[optind]);
		return -EINVAL;
	}
	if (server__check_path(o->socket))
		return -EINVAL;
	if (!o->events[0])
		strcpy(o->events, DEFAULT_EVENTS);
	ret = serve_opts__web(o);
	if (ret)
		return ret;
	o->eng.events = o->events;
	o->eng.max_trees = EMON_MAX_TREES;
	o->eng.max_threads = o->threads;
	o->eng.name_cgroups = true;
	o->u.extra = o->gid;
	o->eng.owners = true;	/* each client sees its own: server_peer.c */
	serve_opts__shares(o);
	serve_opts__arrays(o);
	ret = keep_mask(&o->keep);
	if (ret)
		webcfg__free(&o->web);
	return ret;
}
