// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * /metrics text from hand-made snapshots (metrics_fix.h), its scopes and
 * families: family names and units, labels and their escaping, HELP/TYPE
 * on every family, the scopes' sums, containers, OpenMetrics, process
 * series, the scheduler view's counters and histogram; bad input;
 * promtool's lint on a realistic body when promtool is installed.
 * Folding: test_metrics_fold.c; the daemon's own figures:
 * test_metrics_self.c; the text buffer: test_metrics_buf.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>
#include "metrics_fix.h"

static void test_event_name(void **state)
{
	static const struct {
		const char *in;
		size_t len;
		const char *out;
	} cases[] = {
		{ "cpu-clock", 64, "cpu_clock" },
		{ "context-switches", 64, "context_switches" },
		{ "L1-dcache-load-misses", 64, "l1_dcache_load_misses" },
		{ "cycles:u", 64, "cycles_u" },
		{ "cpu/event=0x3c,umask=0/", 64, "cpu_event_0x3c_umask_0_" },
		{ "INST_RETIRED.ANY_P", 64, "inst_retired_any_p" },
		{ "caf\xc3\xa9", 64, "caf__" },
		{ "abcdef", 4, "abc" },		/* cut to len - 1 */
		{ "", 64, "" },
	};
	char out[64];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		metrics__event_name(cases[i].in, out, cases[i].len);
		assert_string_equal(out, cases[i].out);
	}
	out[0] = 'x';
	metrics__event_name("abc", out, 0);	/* nothing written */
	assert_int_equal(out[0], 'x');
}

/* ---- bodies: what a render of a fixture must hold ---- */

static void fix__energy(struct fix *f)
{
	fix__standard(f, true);
}

static void fix__no_energy(struct fix *f)
{
	fix__standard(f, false);
}

/* Two containers whose ids differ in their last digit only. */
static void fix__container_ids(struct fix *f)
{
	fix__init(f, false);
	fix__cgroup(f, 60, "/system.slice/docker-" ZEROS "7.scope", SEC, 1, 0);
	fix__cgroup(f, 61, "/system.slice/docker-" ZEROS "8.scope", 2 * SEC, 2, 0);
}

/* Two cgroups of one path (removed, made again, the old one not gone
 * yet). */
static void fix__same_path(struct fix *f)
{
	fix__init(f, false);
	fix__cgroup(f, 50, "/svc", SEC, 1, 0);
	fix__cgroup(f, 51, "/svc", 2 * SEC, 2, 0);
}

/* DOCKER/init leaves the standard fixture. */
static void fix__docker_init_leaves(struct fix *f)
{
	f->cgrp[3] = f->cgrp[--f->s.nr_cgrp];
}

/* The scheduler view of the standard fixture: the CPUs' and /a's. */
static void fix__sched(struct fix *f)
{
	fix__standard(f, false);
	f->meta.sched_on = true;
	f->cpu[0].s.on_cpu_ns = 1500000000;
	f->cpu[0].s.runq_wait_ns = 3000;
	f->cpu[0].s.migrations = 2;
	f->cpu[0].s.hist[0] = 1;
	f->cpu[0].s.hist[2] = 2;
	f->cpu[0].s.hist[EMON_SCHED_SLOTS - 1] = 1;
	f->cpu[1].s.hist[0] = 1;
	f->cpu[1].s.invol_switches = 4;
	f->cgrp[1].c.s.hist[1] = 4;
	f->cgrp[1].c.s.runq_wait_ns = 7000;
}

static void fix__sched_ms(struct fix *f)
{
	fix__sched(f);
	f->meta.sched_ms = true;
}

static const struct body_case body_cases[] = {
	{ "names", fix__energy, 0, false, NONE, NULL, {
		/* time events in seconds, exactly; others as integers */
		{ LINE, "emon_cgroup_cpu_clock_seconds_total{cgroup=\"/a\"} 1.5" },
		{ LINE, "emon_cgroup_context_switches_total{cgroup=\"/a\"} 3" },
		/* backslash, double quote and newline escaped */
		{ LINE, "emon_cgroup_cpu_clock_seconds_total"
			"{cgroup=\"/we\\\"ird\\\\name\\nx\"} 0.000000007" },
		{ LINE, "emon_cgroup_cpu_clock_seconds_total{cgroup=\"/\"} 0.5" },
		/* the system is the sum of the CPUs; the package of its CPUs */
		{ LINE, "emon_system_cpu_clock_seconds_total 5" },
		{ LINE, "emon_system_context_switches_total 17" },
		{ LINE, "emon_package_cpu_clock_seconds_total{package=\"1\"} 5" },
		{ LINE, "emon_package_context_switches_total{package=\"1\"} 17" },
		/* energy: attributed, and per measured zone for the package */
		{ LINE, "emon_system_energy_joules_total{zone=\"package\"} 14.75" },
		{ LINE, "emon_cgroup_energy_joules_total{cgroup=\"/a\",zone=\"package\"} 2.5" },
		{ LINE, "emon_package_energy_joules_total{package=\"1\",zone=\"package\"} 20" },
		{ LINE, "emon_package_energy_joules_total{package=\"1\",zone=\"core\"} 5" },
		{ LINE, "emon_package_energy_joules_total{package=\"1\",zone=\"dram\"} 3" },
		{ HAS_NOT, "zone=\"uncore\"" },
		{ HAS_NOT, "zone=\"psys\"" },
		/* HELP and TYPE name the sample in 0.0.4 */
		{ LINE, "# TYPE emon_cgroup_cpu_clock_seconds_total counter" },
		{ HAS, "# HELP emon_cgroup_cpu_clock_seconds_total cpu-clock" },
		/* no process series without top_procs */
		{ HAS_NOT, "emon_process_" },
	} },
	/* Not supported (not in the snapshot) or never counted: no series,
	 * never a 0; a cgroup that did not count an event has no series
	 * for it. */
	{ "not counted", fix__energy, 3, false, NONE, NULL, {
		{ HAS_NOT, "cycles" },
		{ HAS_NOT, "instructions" },
		{ LINE, "emon_cgroup_cpu_clock_seconds_total{cgroup=\"/b\"} 0.249999993" },
		{ HAS_NOT, "emon_cgroup_context_switches_total{cgroup=\"/b\"}" },
		{ LINE, "emon_cgroup_context_switches_total{cgroup=\"/\"} 2" },
	} },
	/* no energy source: no energy series */
	{ "no energy", fix__no_energy, 2, false, NONE, NULL, {
		{ HAS_NOT, "energy" },
	} },
	{ "containers", fix__energy, 0, false, NONE, NULL, {
		/* docker: its scope and init add up; the label is the
		 * shortest path */
		{ LINE, "emon_container_cpu_clock_seconds_total{container_id=\""
			ID1 "\",runtime=\"docker\",pod_uid=\"\",cgroup=\"" DOCKER "\"" NONAMES "} 2.5" },
		{ LINE, "emon_container_context_switches_total{container_id=\""
			ID1 "\",runtime=\"docker\",pod_uid=\"\",cgroup=\"" DOCKER "\"" NONAMES "} 6" },
		{ LINE, "emon_container_energy_joules_total{container_id=\""
			ID1 "\",runtime=\"docker\",pod_uid=\"\",cgroup=\"" DOCKER
			"\"" NONAMES ",zone=\"package\"} 3.5" },
		{ LINE, "emon_container_cpu_clock_seconds_total{container_id=\""
			ID3 "\",runtime=\"containerd\",pod_uid=\"" UID "\",cgroup=\""
			KUBE "\",name=\"k8s_web_shop-0\",image=\"nginx:1.25\","
			"namespace=\"prod\",pod=\"shop-0\",container=\"we\\\"b\"} 0.25" },
		/* the cgroups keep their own series */
		{ LINE, "emon_cgroup_cpu_clock_seconds_total{cgroup=\"" DOCKER "/init\"} 0.5" },
	} },
	/* two series, each with its own cgroup */
	{ "container ids", fix__container_ids, 0, false, NONE, NULL, {
		{ LINE, "emon_container_cpu_clock_seconds_total{container_id=\""
			ZEROS "7\",runtime=\"docker\",pod_uid=\"\",cgroup=\""
			"/system.slice/docker-" ZEROS "7.scope\"" NONAMES "} 1" },
		{ LINE, "emon_container_cpu_clock_seconds_total{container_id=\""
			ZEROS "8\",runtime=\"docker\",pod_uid=\"\",cgroup=\""
			"/system.slice/docker-" ZEROS "8.scope\"" NONAMES "} 2" },
	} },
	/* a container's cgroup that leaves keeps its totals in the container */
	{ "container not backwards", fix__no_energy, 0, false, EARLIER_TEXT,
	  fix__docker_init_leaves, {
		{ LINE, "emon_container_cpu_clock_seconds_total{container_id=\""
			ID1 "\",runtime=\"docker\",pod_uid=\"\",cgroup=\"" DOCKER "\"" NONAMES "} 2.5" },
		{ HAS_NOT, DOCKER "/init" },
	} },
	{ "OpenMetrics", fix__energy, 2, true, NONE, NULL, {
		{ LINE, "# TYPE emon_cgroup_cpu_clock_seconds counter" },
		{ LINE, "# UNIT emon_cgroup_cpu_clock_seconds seconds" },
		{ HAS_NOT, "# TYPE emon_cgroup_cpu_clock_seconds_total" },
		{ LINE, "emon_cgroup_cpu_clock_seconds_total{cgroup=\"/a\"} 1.5" },
		{ LINE, "# TYPE emon_cgroup_energy_joules counter" },
		/* HELP escapes the double quote in OpenMetrics only */
		{ HAS, "cgroup=\\\"other\\\"" },
	} },
	{ "0.0.4 after OpenMetrics", fix__energy, 2, false, EARLIER_OM, NULL, {
		{ HAS_NOT, "# UNIT" },
		{ LINE, "# TYPE emon_cgroup_cpu_clock_seconds_total counter" },
	} },
	{ "top 2 processes", fix__no_energy, 2, false, NONE, NULL, {
		/* the top 2 by cpu-clock, the idle task included */
		{ LINE, "emon_process_cpu_clock_seconds_total{pid=\"100\",comm=\"burn\"} 2" },
		{ LINE, "emon_process_context_switches_total{pid=\"0\",comm=\"swapper\"} 9" },
		{ HAS_NOT, "pid=\"200\"" },
		{ LINE, "# HELP emon_process_cpu_clock_seconds_total cpu-clock "
			"in seconds per process, for the 2 with the most cpu-clock" },
	} },
	/* one series per pid (the larger of a reused pid's entries); comms
	 * that are not UTF-8 are made valid */
	{ "top 10 processes", fix__no_energy, 10, false, NONE, NULL, {
		{ LINE, "emon_process_cpu_clock_seconds_total"
			"{pid=\"300\",comm=\"b\xef\xbf\xbd\xef\xbf\xbd" "d\"} 0.4" },
		{ LINE, "emon_process_cpu_clock_seconds_total{pid=\"200\",comm=\"sh\"} 0.5" },
		{ HAS_NOT, "pid=\"100\",comm=\"burn\"} 0.000001" },
	} },
	/* cgroups of one path: one series, their sum */
	{ "same path", fix__same_path, 0, false, NONE, NULL, {
		{ LINE, "emon_cgroup_cpu_clock_seconds_total{cgroup=\"/svc\"} 3" },
	} },
	/* --sched: eight counters and runqlat's histogram on every scope but
	 * the packages; buckets cumulative, +Inf every wait, _sum the
	 * run-queue wait */
	{ "sched", fix__sched, 2, false, NONE, NULL, {
		/* counters: times in seconds, counts as integers */
		{ LINE, "emon_system_on_cpu_seconds_total 1.5" },
		{ LINE, "emon_system_runqueue_wait_seconds_total 0.000003" },
		{ LINE, "emon_system_migrations_total 2" },
		{ LINE, "emon_system_involuntary_switches_total 4" },
		/* bucket i: waits under 2^(i+1) us, cumulative */
		{ LINE, "# TYPE emon_system_runqueue_latency_seconds histogram" },
		{ LINE, "emon_system_runqueue_latency_seconds_bucket{le=\"2e-06\"} 2" },
		{ LINE, "emon_system_runqueue_latency_seconds_bucket{le=\"4e-06\"} 2" },
		{ LINE, "emon_system_runqueue_latency_seconds_bucket{le=\"8e-06\"} 4" },
		/* the last bucket's waits in +Inf only; _sum the run-queue wait */
		{ LINE, "emon_system_runqueue_latency_seconds_bucket{le=\"33.554432\"} 4" },
		{ LINE, "emon_system_runqueue_latency_seconds_bucket{le=\"+Inf\"} 5" },
		{ LINE, "emon_system_runqueue_latency_seconds_sum 0.000003" },
		{ LINE, "emon_system_runqueue_latency_seconds_count 5" },
		/* le after a row's labels */
		{ LINE, "emon_cgroup_runqueue_latency_seconds_bucket"
			"{cgroup=\"/a\",le=\"2e-06\"} 0" },
		{ LINE, "emon_cgroup_runqueue_latency_seconds_bucket"
			"{cgroup=\"/a\",le=\"4e-06\"} 4" },
		{ LINE, "emon_cgroup_runqueue_latency_seconds_sum{cgroup=\"/a\"} 0.000007" },
		{ LINE, "emon_container_runqueue_latency_seconds_count{container_id=\""
			ID1 "\",runtime=\"docker\",pod_uid=\"\",cgroup=\"" DOCKER "\"" NONAMES "} 0" },
		{ LINE, "emon_process_runqueue_latency_seconds_count"
			"{pid=\"100\",comm=\"burn\"} 0" },
		{ HAS, "# HELP emon_cgroup_on_cpu_seconds_total Time on a CPU per cgroup" },
		{ HAS_NOT, "emon_package_on_cpu" },
		{ HAS_NOT, "emon_package_runqueue" },
	} },
	{ "sched in ms", fix__sched_ms, 0, true, NONE, NULL, {
		{ LINE, "# UNIT emon_system_runqueue_latency_seconds seconds" },
		{ LINE, "emon_system_runqueue_latency_seconds_bucket{le=\"0.002\"} 2" },
		{ LINE, "emon_system_runqueue_latency_seconds_bucket{le=\"33554.432\"} 4" },
	} },
};

static void test_bad_input(void **state)
{
	struct metrics_opts bad = { .top_procs = -1 };
	struct metrics *m = metrics(0, 0), *m2 = NULL;
	char *out = NULL;
	size_t len = 0;
	struct fix f;

	(void)state;
	assert_int_equal(metrics__new(&m2, &bad), -EINVAL);
	assert_int_equal(metrics__new(NULL, NULL), -EINVAL);
	fix__standard(&f, true);
	assert_int_equal(metrics__render(NULL, &f.meta, &f.s, NULL, false, &out, &len), -EINVAL);
	assert_int_equal(metrics__render(m, NULL, &f.s, NULL, false, &out, &len), -EINVAL);
	assert_int_equal(metrics__render(m, &f.meta, &f.s, NULL, false, NULL, &len), -EINVAL);
	f.s.ev[1] = 9;		/* no such event */
	assert_int_equal(metrics__render(m, &f.meta, &f.s, NULL, false, &out, &len), -EINVAL);
	f.s.ev[1] = EV_CS;
	f.s.nr_events = EMON_MAX_EVENTS + 1;
	assert_int_equal(metrics__render(m, &f.meta, &f.s, NULL, false, &out, &len), -EINVAL);
	f.s.nr_events = 3;
	f.s.ncpus = 3;		/* more than meta's */
	assert_int_equal(metrics__render(m, &f.meta, &f.s, NULL, false, &out, &len), -EINVAL);
	metrics__free(m);
	metrics__free(NULL);
}

/* promtool's lint: prints every problem (counter without _total, no
 * HELP, ...), nothing when the body is fine. */
static void test_promtool(void **state)
{
	char path[] = "/tmp/emon-metrics-XXXXXX", cmd[256], out[4096];
	struct metrics *m = metrics(0, 5);
	size_t n = 0, len;
	struct fix f;
	char *body;
	FILE *p;
	int fd;

	(void)state;
	if (system("command -v promtool >/dev/null 2>&1")) {
		printf("SKIP promtool check: promtool not installed (Debian: prometheus)\n");
		metrics__free(m);
		return;
	}
	fix__standard(&f, true);
	body = render(m, &f, false);
	len = strlen(body);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, body, len), (ssize_t)len);
	close(fd);
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s 2>&1", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	assert_int_equal(pclose(p), 0);
	unlink(path);
	if (n)
		fail_msg("promtool check metrics: %s", out);
	printf("promtool check metrics: clean (%zu bytes)\n", len);
	free(body);
	metrics__free(m);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_name),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_promtool),
	};

	return run_tests_and_cases(tests, test_body, body_cases, what);
}
