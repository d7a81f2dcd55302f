// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* emon-perf report --prometheus, the pure side: durations, times, and
 * range query results turned into the report's model (counter resets,
 * keys born in the window, several hosts, malformed answers). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/report/report_prom.h"
#include "helpers.h"

#define EPS 1e-9

#define assert_near(a, b, eps) near((a), (b), (eps), #a, __LINE__)
static void near(double a, double b, double eps, const char *what, int line)
{
	if (!(fabs(a - b) <= eps))
		fail_msg("line %d: %s = %.12g, want %.12g", line, what, a, b);
}

static void test_duration(void **state)
{
	static const struct { const char *in; double s; } good[] = {
		{ "1h", 3600 }, { "1h30m", 5400 }, { "90s", 90 }, { "2d", 172800 },
		{ "1w", 604800 }, { "1y", 31536000 }, { "500ms", 0.5 },
		{ "1m30s", 90 }, { "1h0m5s", 3605 }, { "90", 90 }, { "1.5", 1.5 },
		{ "2m500ms", 120.5 },
	};
	static const char *const bad[] = {
		"", "0", "0s", "-5s", "1hour", "30m1h", "1h1h", "h", "1.5h", "5 m",
		"1e3", "inf", "nan", "11y", "99999999999999999999s", "1h-", "m5",
		"0x10", " 5s", "5s ",
	};
	double s;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(*good); i++) {
		s = -1;
		if (prom_duration__parse(good[i].in, &s))
			fail_msg("'%s' rejected", good[i].in);
		assert_near(s, good[i].s, EPS);
	}
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (prom_duration__parse(bad[i], &s) != -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
	assert_int_equal(prom_duration__parse(NULL, &s), -EINVAL);
}

static void test_time(void **state)
{
	static const char *const bad[] = {
		"", "yesterday", "2026-11-25T10:00:00", "2026-11-25 10:00:00Z",
		"-5", "0", "2026-11-25T10:00:00Zx", "1e9", "now",
	};
	double t;
	size_t i;

	(void)state;
	assert_int_equal(prom_time__parse("1795600000", &t), 0);
	assert_near(t, 1795600000, EPS);
	assert_int_equal(prom_time__parse("1795600000.5", &t), 0);
	assert_near(t, 1795600000.5, EPS);
	assert_int_equal(prom_time__parse("2026-11-25T10:00:00Z", &t), 0);
	assert_near(t, 1795600800, EPS);
	assert_int_equal(prom_time__parse("1970-01-02T00:00:00Z", &t), 0);
	assert_near(t, 86400, EPS);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (prom_time__parse(bad[i], &t) != -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
}

/* The window: points at 1000, 1010, ..., 1040 (4 steps of 10 s). */
#define T0 1000
#define STEP 10
#define NSTEPS 4

/* host a from the first point; host b only from point 2 (Prometheus
 * began to scrape it then). The system's energy resets at point 3 (a
 * daemon restart: 120 -> 5 counts 5). Container c2 is born at point 2
 * on host a (counts from 0: 7 + 2); c3's first value on host b is a
 * baseline (4); c1 has the same id on host b, another key. A value
 * outside the window and a NaN are skipped. */
static const char sys_energy[] = "["
"{\"metric\":{\"instance\":\"a:9464\"},\"values\":[[1000,\"100\"],[1010,\"110\"],[1020,\"120\"],[1030,\"5\"],[1040,\"15\"]]},"
"{\"metric\":{\"instance\":\"b:9464\",\"host\":\"b\"},\"values\":[[1020,\"1000\"],[1030,\"1001\"],[1040,\"1003\"]]}]";
static const char cont_energy[] = "["
"{\"metric\":{\"instance\":\"a:9464\",\"container_id\":\"c1\",\"runtime\":\"docker\"},"
"\"values\":[[990,\"1\"],[1000,\"50\"],[1010,\"60\"],[1020,\"NaN\"],[1030,\"80\"],[1040,\"90\"]]},"
"{\"metric\":{\"instance\":\"a:9464\",\"container_id\":\"c2\",\"runtime\":\"cri-o\"},\"values\":[[1020,\"7\"],[1030,\"9\"]]},"
"{\"metric\":{\"instance\":\"b:9464\",\"host\":\"b\",\"container_id\":\"c3\"},\"values\":[[1020,\"100\"],[1030,\"104\"]]},"
"{\"metric\":{\"instance\":\"b:9464\",\"host\":\"b\",\"container_id\":\"c1\"},\"values\":[[1020,\"10\"],[1040,\"11\"]]}]";
static const char cont_clock[] = "["
"{\"metric\":{\"instance\":\"a:9464\",\"container_id\":\"c1\"},\"values\":[[1000,\"1.0\"],[1010,\"1.5\"],[1020,\"2.0\"],[1030,\"2.5\"],[1040,\"3.0\"]]}]";
/* a host with a PMU: 4e10 instructions, 2e10 cycles over the window */
static const char cont_insns[] = "["
"{\"metric\":{\"instance\":\"a:9464\",\"container_id\":\"c1\"},\"values\":[[1000,\"1e10\"],[1040,\"5e10\"]]}]";
static const char cont_cycles[] = "["
"{\"metric\":{\"instance\":\"a:9464\",\"container_id\":\"c1\"},\"values\":[[1000,\"0\"],[1020,\"2e10\"]]}]";
/* a process that enters the daemon's top N at point 1: a baseline */
static const char proc_energy[] = "["
"{\"metric\":{\"instance\":\"a:9464\",\"pid\":\"42\",\"comm\":\"gcc\"},\"values\":[[1010,\"500\"],[1020,\"510\"]]}]";

static void add(struct report *r, enum scope scope, enum report_fam fam,
		const char *json)
{
	struct json_object *o = json_tokener_parse(json);

	assert_non_null(o);
	assert_int_equal(report__prom_add(r, scope, fam, o), 0);
}

static struct report_key *key(struct report *r, enum scope scope,
			      const char *host, const char *k)
{
	struct report_key *rk = report__key(r, scope, host, k);

	assert_non_null(rk);
	return rk;
}

static void load(struct report *r)
{
	report__init(r, "http://prom:9090", &report_prom_source);
	assert_int_equal(report__prom_window(r, T0, STEP, NSTEPS), 0);
	add(r, SCOPE_SYSTEM, RF_ENERGY, sys_energy);
	add(r, SCOPE_CONTAINER, RF_ENERGY, cont_energy);
	add(r, SCOPE_CONTAINER, RF_CPU_CLOCK, cont_clock);
	add(r, SCOPE_CONTAINER, RF_INSTRUCTIONS, cont_insns);
	add(r, SCOPE_CONTAINER, RF_CYCLES, cont_cycles);
	add(r, SCOPE_PROCESS, RF_ENERGY, proc_energy);
	assert_int_equal(report__prom_sum(r), 0);
}

static void test_model(void **state)
{
	struct report_metrics m;
	struct report_key *k;
	struct report r;

	(void)state;
	load(&r);
	assert_int_equal(r.nr_hosts, 2);
	assert_int_equal(r.nr_times, NSTEPS);
	assert_near(r.duration, 40, EPS);
	assert_true(r.has_energy);

	/* the fleet: host a 10 + 10 + 5 (reset) + 10, host b 1 + 2 */
	k = key(&r, SCOPE_SYSTEM, NULL, "all");
	assert_near(k->energy_j, 38, EPS);
	assert_int_equal(r.tab[SCOPE_SYSTEM].nr, 1);

	assert_int_equal(r.tab[SCOPE_CONTAINER].nr, 4);
	k = key(&r, SCOPE_CONTAINER, "a:9464", "c1");
	assert_near(k->energy_j, 40, EPS);	/* 990 and NaN skipped */
	assert_string_equal(k->runtime, "docker");
	assert_near(k->count[RC_CPU_CLOCK], 2e9, 1);	/* seconds -> ns */
	assert_true(k->counted & (1u << RC_CPU_CLOCK));
	assert_true(k->counted & (1u << RC_CYCLES));
	k = key(&r, SCOPE_CONTAINER, "a:9464", "c2");
	assert_near(k->energy_j, 9, EPS);	/* born: from 0 */
	assert_false(k->counted & (1u << RC_CPU_CLOCK));
	k = key(&r, SCOPE_CONTAINER, "b", "c3");
	assert_near(k->energy_j, 4, EPS);	/* its host's first point */
	assert_string_equal(k->host, "b");	/* host label over instance */
	k = key(&r, SCOPE_CONTAINER, "b", "c1");
	assert_near(k->energy_j, 1, EPS);
	k = key(&r, SCOPE_PROCESS, "a:9464", "42");
	assert_near(k->energy_j, 10, EPS);	/* entered the top N: baseline */
	assert_string_equal(k->comm, "gcc");

	/* the printing side sees an ordinary report, a host column first */
	assert_int_equal(report__select(&r, -1, 10), 0);
	assert_int_equal(r.scope, SCOPE_CONTAINER);
	assert_int_equal(r.rank, RANK_ENERGY);
	assert_string_equal(r.sorted[0]->key, "c1");
	report__metrics(&r, r.sorted[0], &m);
	assert_near(m.power_w, 1.0, EPS);
	assert_near(m.share, 40.0 / 38, EPS);
	/* energy per instruction and IPC from the PMU's families */
	assert_near(m.instructions, 4e10, 1);
	assert_near(m.cycles, 2e10, 1);
	assert_near(m.epi_nj, 40 * 1e9 / 4e10, EPS);
	assert_near(m.ipc, 2, EPS);
	report__metrics(&r, r.sorted[1], &m);	/* c2: no PMU counts */
	assert_true(isnan(m.cycles) && isnan(m.epi_nj));
	{
		enum report_col cols[COL_NR];
		char cell[64];

		report__columns(&r, cols);
		assert_int_equal(cols[0], COL_HOST);
		assert_int_equal(cols[1], COL_KEY);
		report__cell(&r, r.sorted[0], COL_HOST, cell, sizeof(cell));
		assert_string_equal(cell, "a:9464");
		report_key__label(&r, r.sorted[0], cell, sizeof(cell));
		assert_string_equal(cell, "a:9464 c1");
	}
	report__exit(&r);
}

static void test_series(void **state)
{
	struct report_key *k;
	struct report r;

	(void)state;
	load(&r);
	assert_int_equal(report__select(&r, SCOPE_CONTAINER, 2), 0);
	assert_int_equal(report__load_series(&r), 0);
	k = key(&r, SCOPE_CONTAINER, "a:9464", "c1");
	assert_non_null(k->series);
	/* 50 60 (NaN) 80 90: the NaN step's increase lands at the next one */
	assert_near(k->series[0], 10, EPS);
	assert_near(k->series[1], 0, EPS);
	assert_near(k->series[2], 20, EPS);
	assert_near(k->series[3], 10, EPS);
	assert_near(report__series_rate(&r, k, 0), 1.0, EPS);	/* W */
	k = key(&r, SCOPE_CONTAINER, "a:9464", "c2");
	assert_non_null(k->series);
	assert_near(k->series[0], 0, EPS);
	assert_near(k->series[1], 7, EPS);
	assert_near(k->series[2], 2, EPS);
	k = key(&r, SCOPE_SYSTEM, NULL, "all");
	assert_non_null(k->series);
	assert_near(k->series[0], 10, EPS);
	assert_near(k->series[1], 10, EPS);
	assert_near(k->series[2], 5 + 1, EPS);	/* a's reset, b's first step */
	assert_near(k->series[3], 10 + 2, EPS);
	/* not drawn (top 2): no series */
	assert_null(key(&r, SCOPE_CONTAINER, "b", "c1")->series);
	report__exit(&r);
}

/* The peaks of the system's energy (max_over_time per step): host a's
 * old counter reached 126 after the point at 1020 (120), before its
 * reset; host b has no reset, and its peaks are not looked at. */
static const char sys_peaks[] = "["
"{\"metric\":{\"instance\":\"a:9464\"},\"values\":[[1000,\"100\"],[1010,\"110\"],[1020,\"120\"],[1030,\"126\"],[1040,\"15\"]]},"
"{\"metric\":{\"instance\":\"b:9464\",\"host\":\"b\"},\"values\":[[1030,\"5000\"]]}]";

static void test_reset_peaks(void **state)
{
	struct report r;

	(void)state;
	report__init(&r, "http://prom:9090", &report_prom_source);
	assert_int_equal(report__prom_window(&r, T0, STEP, NSTEPS), 0);
	add(&r, SCOPE_SYSTEM, RF_ENERGY, sys_energy);
	add(&r, SCOPE_CONTAINER, RF_ENERGY, cont_energy);
	assert_true(report__prom_resets(&r, SCOPE_SYSTEM, RF_ENERGY));
	assert_false(report__prom_resets(&r, SCOPE_CONTAINER, RF_ENERGY));
	assert_false(report__prom_resets(&r, SCOPE_CGROUP, RF_ENERGY));	/* none added */
	assert_int_equal(report__prom_add_peaks(&r, SCOPE_SYSTEM, RF_ENERGY,
						json_tokener_parse(sys_peaks)), 0);
	assert_int_equal(report__prom_sum(&r), 0);
	/* host a: 10 + 10 + (126 - 120 before the reset, 5 after) + 10;
	 * host b: 1 + 2 */
	assert_near(key(&r, SCOPE_SYSTEM, NULL, "all")->energy_j, 41 + 3, EPS);
	assert_int_equal(report__select(&r, SCOPE_SYSTEM, 1), 0);
	assert_int_equal(report__load_series(&r), 0);
	assert_near(key(&r, SCOPE_SYSTEM, NULL, "all")->series[2], 11 + 1, EPS);
	/* peaks of a scope the daemon does not export, or not a matrix */
	assert_int_equal(report__prom_add_peaks(&r, SCOPE_CPU, RF_ENERGY,
						json_tokener_parse("[]")), -EINVAL);
	assert_int_equal(report__prom_add_peaks(&r, SCOPE_SYSTEM, RF_ENERGY,
						json_tokener_parse("{}")), -EINVAL);
	report__exit(&r);
}

/*
 * Pods and namespaces from the containers' series and their names (an
 * instant query's labels): on host a, c1 (prod/shop-0/web: its labels
 * with names beat its earlier ones without) and c4 (no names, a pod uid);
 * on host b c5 (prod/shop-1/api) and c6 (a docker name only: no pod).
 * A pod is its containers' sum on its host, a namespace its pods' over
 * the fleet, in totals and in the charts' series.
 */
static const char pods_clock[] = "["
"{\"metric\":{\"instance\":\"a:9464\",\"container_id\":\"c1\"},\"values\":[[1000,\"1\"],[1010,\"2\"],[1040,\"4\"]]},"
"{\"metric\":{\"instance\":\"a:9464\",\"container_id\":\"c4\",\"pod_uid\":\"u4\"},\"values\":[[1000,\"0\"],[1040,\"0.5\"]]},"
"{\"metric\":{\"instance\":\"b:9464\",\"container_id\":\"c5\"},\"values\":[[1000,\"5\"],[1020,\"6\"],[1040,\"6.25\"]]},"
"{\"metric\":{\"instance\":\"b:9464\",\"container_id\":\"c6\"},\"values\":[[1000,\"1\"],[1040,\"2\"]]}]";
static const char pods_names[] = "["
"{\"metric\":{\"instance\":\"a:9464\",\"container_id\":\"c1\",\"name\":\"\",\"pod\":\"shop-0\",\"namespace\":\"prod\",\"container\":\"web\"},\"value\":[1040,\"1\"]},"
"{\"metric\":{\"instance\":\"a:9464\",\"container_id\":\"c1\",\"name\":\"\",\"pod\":\"\",\"namespace\":\"\",\"container\":\"\"},\"value\":[1040,\"1\"]},"
"{\"metric\":{\"instance\":\"b:9464\",\"container_id\":\"c5\",\"pod\":\"shop-1\",\"namespace\":\"prod\",\"container\":\"api\"},\"value\":[1040,\"1\"]},"
"{\"metric\":{\"instance\":\"b:9464\",\"container_id\":\"c6\",\"name\":\"cron\"},\"value\":[1040,\"1\"]},"
"{\"metric\":{\"instance\":\"b:9464\",\"name\":\"no id\"},\"value\":[1040,\"1\"]}]";

static void test_pods(void **state)
{
	enum report_col cols[COL_NR];
	struct report_key *k;
	struct report r;
	char cell[128];
	int n;

	(void)state;
	report__init(&r, "http://prom:9090", &report_prom_source);
	assert_int_equal(report__prom_window(&r, T0, STEP, NSTEPS), 0);
	assert_int_equal(report__prom_add_names(&r, json_tokener_parse(pods_names)), 0);
	add(&r, SCOPE_CONTAINER, RF_CPU_CLOCK, pods_clock);
	assert_int_equal(report__prom_sum(&r), 0);
	assert_string_equal(key(&r, SCOPE_CONTAINER, "a:9464", "c1")->names, "prod/shop-0/web");
	assert_string_equal(key(&r, SCOPE_CONTAINER, "b:9464", "c6")->names, "cron");
	assert_null(key(&r, SCOPE_CONTAINER, "a:9464", "c4")->names);
	assert_int_equal(r.tab[SCOPE_POD].nr, 3);
	assert_near(key(&r, SCOPE_POD, "a:9464", "prod/shop-0")->count[RC_CPU_CLOCK], 3e9, 1);
	assert_near(key(&r, SCOPE_POD, "a:9464", "u4")->count[RC_CPU_CLOCK], 0.5e9, 1);
	assert_near(key(&r, SCOPE_POD, "b:9464", "prod/shop-1")->count[RC_CPU_CLOCK], 1.25e9, 1);
	assert_int_equal(r.tab[SCOPE_NAMESPACE].nr, 1);
	assert_near(key(&r, SCOPE_NAMESPACE, NULL, "prod")->count[RC_CPU_CLOCK], 4.25e9, 1);
	/* the containers' table has their names, a chart's legend too */
	assert_int_equal(report__select(&r, SCOPE_CONTAINER, 10), 0);
	n = report__columns(&r, cols);
	assert_int_equal(cols[2], COL_NAMES);
	assert_int_equal(n > 3, 1);
	report_key__label(&r, r.sorted[0], cell, sizeof(cell));
	assert_string_equal(cell, "a:9464 c1 prod/shop-0/web");
	/* the namespaces' series: c1's and c5's steps */
	assert_int_equal(report__select(&r, SCOPE_NAMESPACE, 10), 0);
	assert_int_equal(report__load_series(&r), 0);
	k = key(&r, SCOPE_NAMESPACE, NULL, "prod");
	assert_near(k->series[0], 1e9, 1);
	assert_near(k->series[1], 1e9, 1);
	assert_near(k->series[2], 0, 1);
	assert_near(k->series[3], 2.25e9, 1);
	/* not a vector */
	assert_int_equal(report__prom_add_names(&r, json_tokener_parse("{}")), -EINVAL);
	assert_int_equal(report__prom_add_names(&r, json_tokener_parse("[{\"value\":1}]")),
			 -EINVAL);
	report__exit(&r);
}

/* What a window lacks is said as it is: a Prometheus window's "no energy"
 * names the daemons, not a recording; no namespace rows from containers
 * that are no pod's says so, and so does a window of no container. */
static void test_messages(void **state)
{
	struct report r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	report__init(&r, "http://prom:9090", &report_prom_source);
	assert_int_equal(report__prom_window(&r, T0, STEP, NSTEPS), 0);
	assert_int_equal(report__select(&r, SCOPE_NAMESPACE, 10), -ENOENT);
	assert_non_null(strstr(r.err, "no namespace rows in this window (no container ran in it"));
	report__exit(&r);

	report__init(&r, "http://prom:9090", &report_prom_source);
	assert_int_equal(report__prom_window(&r, T0, STEP, NSTEPS), 0);
	r.window = strdup("from A to B, step 10 s");
	add(&r, SCOPE_CONTAINER, RF_CPU_CLOCK, cont_clock);
	assert_int_equal(report__prom_sum(&r), 0);
	assert_int_equal(report__select(&r, SCOPE_NAMESPACE, 10), -ENOENT);
	assert_non_null(strstr(r.err, "its containers are no Kubernetes pod's"));
	assert_int_equal(report__select(&r, SCOPE_CONTAINER, 10), 0);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(report__print_text(&r, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "no energy in this window (its daemons served none"));
	assert_null(strstr(buf, "recording"));
	free(buf);
	report__exit(&r);
}

static void test_bad_results(void **state)
{
	static const char *const bad[] = {
		"{}",						/* not a matrix */
		"[{\"metric\":{}}]",				/* no values */
		"[{\"metric\":{\"container_id\":\"x\"},\"values\":[[1000]]}]",
		"[{\"metric\":{\"container_id\":\"x\"},\"values\":[[1000,5]]}]",
		"[{\"metric\":{\"container_id\":\"x\"},\"values\":[[\"1000\",\"5\"]]}]",
		"[{\"metric\":{\"container_id\":\"x\"},\"values\":[[1000,\"5x\"]]}]",
		"[{\"metric\":{\"cgroup\":\"/a\"},\"values\":[[1000,\"5\"]]}]",	/* no container_id */
	};
	struct report r;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		report__init(&r, "http://prom:9090", &report_prom_source);
		assert_int_equal(report__prom_window(&r, T0, STEP, NSTEPS), 0);
		add(&r, SCOPE_CONTAINER, RF_ENERGY, bad[i]);
		if (report__prom_sum(&r) != -EINVAL)
			fail_msg("%s accepted", bad[i]);
		assert_non_null(strstr(r.err, "emon_container_energy_joules_total"));
		report__exit(&r);
	}
	/* series, but no value in the window: no data */
	report__init(&r, "http://prom:9090", &report_prom_source);
	assert_int_equal(report__prom_window(&r, T0, STEP, NSTEPS), 0);
	add(&r, SCOPE_CONTAINER, RF_ENERGY,
	    "[{\"metric\":{\"container_id\":\"x\"},\"values\":[[100,\"5\"],[1020,\"NaN\"]]}]");
	add(&r, SCOPE_CGROUP, RF_CPU_CLOCK, "[]");
	assert_int_equal(report__prom_sum(&r), -ENODATA);
	report__exit(&r);
	/* windows the server would refuse */
	report__init(&r, "http://prom:9090", &report_prom_source);
	assert_int_equal(report__prom_window(&r, T0, STEP, 0), -EINVAL);
	assert_int_equal(report__prom_window(&r, T0, 0, 5), -EINVAL);
	assert_int_equal(report__prom_window(&r, T0, STEP, REPORT_PROM_MAX_POINTS), -EINVAL);
	report__exit(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_model),
		cmocka_unit_test(test_series),
		cmocka_unit_test(test_reset_peaks),
		cmocka_unit_test(test_pods),
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_bad_results),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
