// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The daemon's own figures on /metrics: what the caller gives (struct
 * metrics_self, or none), the snapshot's overflow counts, the series and
 * folds, build info in either format, process_* from /proc/self.
 */
#include "metrics_fix.h"

static void fix__energy(struct fix *f)
{
	fix__standard(f, true);
}

static void fix__overflow(struct fix *f)
{
	fix__standard(f, false);
	f->s.stats[EMON_STAT_CGRP_FULL] = 5;
	f->s.stats[EMON_STAT_PROC_FULL] = 1234567890123ULL;
}

/* self-monitoring off: no emon_threads, emon_thread_slots */
static const struct metrics_self no_threads = {
	.flushes = 7,
	.version = "1.2.3",
};

/* Zeros, version unknown: what a render without self figures gives. */
static const struct metrics_self none = {};

static const struct body_case self_cases[] = {
	{ .what = "self figures", .fix = fix__energy, .want = {
		/* the version as a label, escaped */
		{ LINE, "# TYPE emon_build_info gauge" },
		{ LINE, "emon_build_info{version=\"1.2.3 \\\"dev\\\"\"} 1" },
		/* the caller's */
		{ LINE, "emon_scrape_duration_seconds 0.0125" },
		{ LINE, "emon_flushes_total 42" },
		{ LINE, "emon_scrape_flushes_total 5" },
		{ LINE, "emon_start_time_seconds 1700000000.5" },
		{ LINE, "emon_clients 2" },
		/* self-monitoring on */
		{ LINE, "emon_threads 3" },
		{ LINE, "emon_thread_slots 32" },
		/* this render's and the snapshot's */
		{ LINE, "emon_folded_cgroups 0" },
		{ LINE, "emon_cgroup_folds_total 0" },
		{ LINE, "emon_untraced_seconds_total 0" },
		/* /proc/self */
		{ AT_LEAST_0, "process_cpu_seconds_total" },
		{ ABOVE_0, "process_resident_memory_bytes" },
	} },
	{ .what = "overflow stats", .fix = fix__overflow, .want = {
		{ LINE, "emon_overflow_total{scope=\"cgroup\"} 5" },
		{ LINE, "emon_overflow_total{scope=\"process\"} 1234567890123" },
	} },
	{ .what = "OpenMetrics", .fix = fix__energy, .om = true, .want = {
		/* an info family */
		{ LINE, "# TYPE emon_build info" },
		{ LINE, "emon_build_info{version=\"1.2.3 \\\"dev\\\"\"} 1" },
		/* counters named without _total, units */
		{ LINE, "# TYPE emon_flushes counter" },
		{ LINE, "emon_flushes_total 42" },
		{ LINE, "# TYPE process_cpu_seconds counter" },
		{ LINE, "# UNIT emon_start_time_seconds seconds" },
	} },
	{ .what = "0.0.4 after OpenMetrics", .fix = fix__energy,
	  .earlier = EARLIER_OM, .want = {
		{ LINE, "# TYPE emon_flushes_total counter" },
		{ HAS_NOT, "# UNIT" },
	} },
	{ .what = "no threads", .fix = fix__energy, .want = {
		{ LINE, "emon_flushes_total 7" },
		{ LINE, "emon_build_info{version=\"1.2.3\"} 1" },
		{ HAS_NOT, "emon_thread" },
	}, .self = &no_threads },
	{ .what = "no self figures", .fix = fix__energy, .want = {
		{ LINE, "emon_build_info{version=\"unknown\"} 1" },
		{ LINE, "emon_flushes_total 0" },
		{ LINE, "emon_scrape_flushes_total 0" },
		{ LINE, "emon_clients 0" },
		{ HAS_NOT, "emon_thread" },
	}, .self = &none },
};

/* No struct metrics_self at all: the same as one of zeros. */
static void test_self_null(void **state)
{
	struct metrics *m = metrics(0, 0);
	struct fix f;
	char *body;

	(void)state;
	fix__standard(&f, true);
	body = render_self(m, &f, NULL, false);
	assert_line(body, "emon_build_info{version=\"unknown\"} 1");
	assert_line(body, "emon_scrape_duration_seconds 0");
	assert_no_line(body, "emon_threads 0");
	check_body(body, false);
	free(body);
	metrics__free(m);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_null),
	};

	return run_tests_and_cases(tests, test_body, self_cases, what);
}
