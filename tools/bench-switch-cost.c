// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Cost breakdown of the sched_switch program, on the engine's own object
 * (bpf/emon.bpf.c, through the engine's session): for each step named, a
 * session is opened with the program cut after that step (its steps knob,
 * which the verifier prunes), run for SECONDS while something switches
 * (tools/bench.sh runs a ping-pong meanwhile) with a flush every 100 ms as
 * the engine does, and on_switch's mean run time printed.
 *
 *   bench-switch-cost [-e EVENTS] [-d SECONDS] [-c] [-T N] STEP...
 *   STEP: none (the bpf_stats floor), read (the slice's deltas), cpu (+ the
 *   CPU row), cgrp (+ the cgroup row), all (+ the process row: the engine)
 *   -c: every event from a counter, none from the switch itself
 *       (EMON_SWITCH_EVENTS=counters: how the engine counted before)
 *   -T N: the thread scope on, N slots (stat -t, --per-thread: --max-tids)
 * prints per step: "step=NAME events=N from=switch|counters runs=R ns_per_run=X"
 *
 *   bench-switch-cost -S
 * holds run-time statistics on until it is killed: for a measurement of
 * another process's programs that another tool turning
 * kernel.bpf_stats_enabled off meanwhile (its sysctl) cannot spoil.
 *
 * Run-time statistics are switched on with BPF_ENABLE_STATS, which holds
 * them on only while its fd is open: they go off again when this exits,
 * however it exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "engine/session/session.h"
#include "emon.skel.h"
#include "tools/tool.h"

#define FLUSH_S 0.1
#define WARM_S 0.1	/* first-seen inserts, cold caches */

static const char *const step_names[] = {
	[EMON_STEP_NONE] = "none",
	[EMON_STEP_READ] = "read",
	[EMON_STEP_CPU] = "cpu",
	[EMON_STEP_CGRP] = "cgrp",
	[EMON_STEP_ALL] = "all",
};

struct cost_run {
	const char *events;
	bool counters;
	double secs;
	int ncpus;
	bool *online;
	__u32 max_tids;		/* -T: the thread scope's slots, 0: off */
};

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN)
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static int step__parse(const char *name)
{
	for (int i = EMON_STEP_NONE; i <= EMON_STEP_ALL; i++)
		if (!strcmp(name, step_names[i]))
			return i;
	return -1;
}

/* cpuN/online is absent for CPUs that cannot go offline (cpu0). */
static bool cpu_online(int cpu)
{
	char path[64];
	int c = '1';
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	f = fopen(path, "re");
	if (!f)
		return access(path, F_OK) != 0 && errno == ENOENT;
	c = fgetc(f);
	fclose(f);
	return c == '1';
}

static int prog__stats(int fd, __u64 *ns, __u64 *cnt)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	*ns = info.run_time_ns;
	*cnt = info.run_cnt;
	return 0;
}

/* Flush every FLUSH_S until secs have passed, as the engine would. */
static int session__run_for(struct session *s, struct session_read *r, double secs)
{
	struct timespec ts = { 0, (long)(FLUSH_S * 1e9) };
	double end = tool_mono_s() + secs;
	int err = 0;

	while (!err && tool_mono_s() < end) {
		nanosleep(&ts, NULL);
		err = session__interval(s, r);
	}
	return err;
}

/* One step: open the events and a session cut there, time on_switch. */
static int cost_run__step(const struct cost_run *c, int step)
{
	struct session_opts so = { .ncpus = c->ncpus, .online = c->online, .steps = step,
				   .max_tids = c->max_tids };
	__u64 ns0 = 0, n0 = 0, ns1 = 0, n1 = 0;
	struct pmu_event_list ev = {};
	struct session s = {};
	struct session_read r;
	char err[512] = "";
	int ret, fd;

	ret = session_read__init(&r, c->ncpus);
	ret = ret ?: pmu_event_list__parse(&ev, c->events, err, sizeof(err));
	for (int i = 0; !ret && i < ev.nr; i++) {
		ret = pmu_event__open(&ev.ev[i], c->ncpus, c->online, err, sizeof(err));
		if (!ret && !ev.ev[i].supported) {
			snprintf(err, sizeof(err), "%s: %s", ev.ev[i].name,
				 pmu_event__strerror(ev.ev[i].open_err));
			ret = -EOPNOTSUPP;
		}
		so.events[so.nr_events++] = &ev.ev[i];
	}
	ret = ret ?: session__open(&s, &so, err, sizeof(err));
	ret = ret ?: session__start(&s);
	ret = ret ?: session__run_for(&s, &r, WARM_S);
	if (ret)
		goto out;
	fd = bpf_program__fd(s.skel->progs.on_switch);
	ret = prog__stats(fd, &ns0, &n0);
	ret = ret ?: session__run_for(&s, &r, c->secs);
	ret = ret ?: prog__stats(fd, &ns1, &n1);
	if (!ret)
		printf("step=%s events=%d from=%s runs=%llu ns_per_run=%.1f\n",
		       step_names[step], ev.nr, c->counters ? "counters" : "switch",
		       (unsigned long long)(n1 - n0),
		       n1 > n0 ? (double)(ns1 - ns0) / (n1 - n0) : 0.0);
	fflush(stdout);
out:
	if (ret)
		fprintf(stderr, "bench-switch-cost: %s: %s\n", step_names[step],
			*err ? err : strerror(-ret));
	if (s.skel)
		session__close(&s);
	for (int i = 0; i < ev.nr; i++)
		pmu_event__close(&ev.ev[i]);
	session_read__exit(&r);
	return ret;
}

int main(int argc, char **argv)
{
	struct cost_run c = { .events = "cpu-clock", .secs = 1 };
	int opt, stats_fd = -1, ret = 1;
	bool hold = false;

	while ((opt = getopt(argc, argv, "e:d:cST:")) != -1) {
		switch (opt) {
		case 'e': c.events = optarg; break;
		case 'd': c.secs = atof(optarg); break;
		case 'c': c.counters = true; break;
		case 'S': hold = true; break;
		case 'T': c.max_tids = atoi(optarg); break;
		default: goto usage;
		}
	}
	if ((optind == argc) != hold || c.secs <= 0)
		goto usage;
	for (int i = optind; i < argc; i++) {
		if (step__parse(argv[i]) < 0) {
			fprintf(stderr, "bench-switch-cost: unknown step '%s'\n", argv[i]);
			goto usage;
		}
	}
	if (c.counters)
		setenv("EMON_SWITCH_EVENTS", "counters", 1);
	libbpf_set_print(libbpf_quiet);
	c.ncpus = libbpf_num_possible_cpus();
	c.online = calloc(c.ncpus > 0 ? c.ncpus : 1, sizeof(*c.online));
	if (c.ncpus <= 0 || !c.online)
		return 1;
	for (int cpu = 0; cpu < c.ncpus; cpu++)
		c.online[cpu] = cpu_online(cpu);
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0) {
		fprintf(stderr, "bench-switch-cost: BPF_ENABLE_STATS: %s\n", strerror(errno));
		goto out;
	}
	ret = 0;
	if (hold) {
		printf("holding\n");
		fflush(stdout);
		pause();	/* until a signal ends it: the fd closes with it */
	}
	for (int i = optind; i < argc && !ret; i++)
		ret = cost_run__step(&c, step__parse(argv[i])) ? 1 : 0;
out:
	if (stats_fd >= 0)
		close(stats_fd);
	free(c.online);
	return ret;
usage:
	fprintf(stderr, "usage: bench-switch-cost [-e EVENTS] [-d SECONDS] [-c] [-T N] "
		"none|read|cpu|cgrp|all...\n       bench-switch-cost -S\n");
	return 2;
}
