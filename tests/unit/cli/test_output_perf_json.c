// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * perf's JSON (-j) rendered into memory: perf 6.1's lines byte for byte
 * where this machine's perf printed them (a global row, <not supported>,
 * <not counted>, no time event), its keys in its order per aggregation,
 * -I and -r's keys, the order of -A's and --per-thread's lines, and
 * perf's integer percentage (output_fix.h sets up the rows).
 */
#include "output_fix.h"

/* The keys of one line, in order, comma-separated, into buf. */
static void keys__of(const char *line, char *buf, size_t size)
{
	struct json_object *o = json_tokener_parse(line);
	size_t n = 0;

	if (!o || !json_object_is_type(o, json_type_object))
		fail_msg("not a JSON object: '%s'", line);
	buf[0] = '\0';
	json_object_object_foreach(o, k, v) {
		(void)v;
		n += snprintf(buf + n, size - n, "%s%s", n ? "," : "", k);
	}
	json_object_put(o);
}

#define TAIL "event-runtime,pcnt-running,metric-value,metric-unit"

/* Every line of out has keys want; returns the number of lines. */
static int lines__keys(const char *out, const char *want)
{
	char *dup = strdup(out), *save = NULL, *line, keys[512];
	int n = 0;

	for (line = strtok_r(dup, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), n++) {
		keys__of(line, keys, sizeof(keys));
		if (strcmp(keys, want))
			fail_msg("line %d: keys '%s', want '%s': %s", n, keys, want, line);
	}
	free(dup);
	return n;
}

/* perf 6.1 on this machine: perf stat -j -a -e cpu-clock,context-switches,cycles */
static void test_pj_global(void **state)
{
	struct output o;
	struct row r;
	char *out;

	(void)state;
	output__setup(&o, &output_perf_json_ops);
	row__setup(&r, SCOPE_SYSTEM, "all", 2 * SEC, 3000);
	r.nr_cpus = 2;
	out = render(&o, 1.0, 1.0, &r, 1, 1.0);
	assert_string_equal(out,
		"{\"counter-value\" : \"2000.000000\", \"unit\" : \"msec\", \"event\" : \"cpu-clock\", "
		"\"event-runtime\" : 2000000000, \"pcnt-running\" : 100.00, \"metric-value\" : 2.000000, "
		"\"metric-unit\" : \"CPUs utilized\"}\n"
		"{\"counter-value\" : \"3000.000000\", \"unit\" : \"\", \"event\" : \"context-switches\", "
		"\"event-runtime\" : 2000000000, \"pcnt-running\" : 100.00, \"metric-value\" : 1.500000, "
		"\"metric-unit\" : \"K/sec\"}\n"
		"{\"counter-value\" : \"<not supported>\", \"unit\" : \"\", \"event\" : \"cycles\", "
		"\"event-runtime\" : 0, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, "
		"\"metric-unit\" : \"\"}\n");
	free(out);
}

/* -A: "cpu" first, event by event; -I's "interval" before it, %.9f */
static void test_pj_cpus(void **state)
{
	struct output o;
	struct row r[2];
	char *out, line[512];

	(void)state;
	output__setup(&o, &output_perf_json_ops);
	o.interval_mode = true;
	o.interval_s = 0.5;
	row__setup(&r[0], SCOPE_CPU, "0", SEC / 4, 10);
	row__setup(&r[1], SCOPE_CPU, "1", SEC / 2, 20);
	r[0].nr_cpus = r[1].nr_cpus = 1;
	out = render(&o, 1.25, 0.5, r, 2, 1.25);
	assert_int_equal(lines__keys(out, "interval,cpu,counter-value,unit,event," TAIL), 6);
	/* event by event: cpu-clock on 0 and 1, then context-switches */
	assert_true(strstr(out, "\"cpu\" : \"1\", \"counter-value\" : \"500.000000\"") <
		    strstr(out, "\"cpu\" : \"0\", \"counter-value\" : \"10.000000\""));
	assert_true(line__find(out, "\"cpu\" : \"0\", \"counter-value\" : \"250", line, sizeof(line)));
	/* CPUs utilized of -I's period, as perf's */
	assert_non_null(strstr(line, "{\"interval\" : 1.250000000, "));
	assert_non_null(strstr(line, "\"metric-value\" : 0.500000, \"metric-unit\" : \"CPUs utilized\""));
	free(out);
}

static void test_pj_aggr_keys(void **state)
{
	static const struct {
		enum scope scope;
		const char *key, *keys, *has;
	} cases[] = {
		{ SCOPE_SOCKET, "0", "socket,aggregate-number,",
		  "{\"socket\" : \"S0\", \"aggregate-number\" : 2, \"counter-value\"" },
		{ SCOPE_DIE, "S0-D0", "die,aggregate-number,",
		  "{\"die\" : \"S0-D0\", \"aggregate-number\" : 2, " },
		{ SCOPE_CORE, "S0-D0-C1", "core,aggregate-number,",
		  "{\"core\" : \"S0-D0-C1\", \"aggregate-number\" : 2, " },
		{ SCOPE_COMMAND, "42", "", "{\"counter-value\" : \"1000.000000\"" },
		{ SCOPE_PROCESS, "42", "thread,", "{\"thread\" : \"work-42\", " },
	};
	char keys[256];

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		struct output o;
		struct row r;
		char *out;

		output__setup(&o, &output_perf_json_ops);
		row__setup(&r, cases[k].scope, cases[k].key, SEC, 5);
		r.nr_cpus = cases[k].scope == SCOPE_COMMAND ||
			    cases[k].scope == SCOPE_PROCESS ? 0 : 2;
		r.comm = "work";
		out = render(&o, 1.0, 1.0, &r, 1, 1.0);
		snprintf(keys, sizeof(keys), "%scounter-value,unit,event," TAIL,
			 cases[k].keys);
		assert_int_equal(lines__keys(out, keys), 3);
		if (!strstr(out, cases[k].has))
			fail_msg("no '%s' in:\n%s", cases[k].has, out);
		free(out);
	}
}

/* -G: "cgroup" on every line ("" on a row of none); a cgroup that ran
 * nothing is <not counted>, its unit kept */
static void test_pj_cgroup(void **state)
{
	struct output o;
	struct row r[3];
	char *out;

	(void)state;
	output__setup(&o, &output_perf_json_ops);
	o.scopes = 1u << SCOPE_SYSTEM | 1u << SCOPE_CGROUP;
	row__setup(&r[0], SCOPE_SYSTEM, "all", SEC, 5);
	row__setup(&r[1], SCOPE_CGROUP, "/a", SEC / 2, 5);
	row__setup(&r[2], SCOPE_CGROUP, "/idle", 0, 0);
	out = render(&o, 1.0, 1.0, r, 3, 1.0);
	assert_int_equal(lines__keys(out, "counter-value,unit,event,cgroup," TAIL), 9);
	assert_non_null(strstr(out, "\"event\" : \"cpu-clock\", \"cgroup\" : \"\", "));
	assert_non_null(strstr(out, "\"counter-value\" : \"500.000000\", \"unit\" : \"msec\", "
			       "\"event\" : \"cpu-clock\", \"cgroup\" : \"/a\", "));
	assert_non_null(strstr(out,
		"{\"counter-value\" : \"<not counted>\", \"unit\" : \"msec\", \"event\" : \"cpu-clock\", "
		"\"cgroup\" : \"/idle\", \"event-runtime\" : 0, \"pcnt-running\" : 100.00, "
		"\"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\n"));
	free(out);
}

/* --per-thread: event by event, each event's threads by count, the most
 * first, <not counted> last (perf's sort) */
static void test_pj_threads(void **state)
{
	struct output o;
	struct row r[3];
	char *out;

	(void)state;
	output__setup(&o, &output_perf_json_ops);
	row__setup(&r[0], SCOPE_THREAD, "11", SEC / 10, 1);
	row__setup(&r[1], SCOPE_THREAD, "12", 0, 0);
	row__setup(&r[2], SCOPE_THREAD, "13", SEC / 2, 9);
	r[1].not_run = true;
	for (int i = 0; i < 3; i++)
		r[i].comm = "w";
	out = render(&o, 1.0, 1.0, r, 3, 1.0);
	assert_int_equal(lines__keys(out, "thread,counter-value,unit,event," TAIL), 9);
	assert_true(strstr(out, "{\"thread\" : \"w-13\", \"counter-value\" : \"500") <
		    strstr(out, "{\"thread\" : \"w-11\", \"counter-value\" : \"100"));
	assert_true(strstr(out, "{\"thread\" : \"w-11\", \"counter-value\" : \"100") <
		    strstr(out, "{\"thread\" : \"w-12\", \"counter-value\" : \"<not counted>\", \"unit\" : \"msec\""));
	free(out);
}

/* -r: "variance" before the run time, on every line */
static void test_pj_repeat(void **state)
{
	char *out = render_repeat(&output_perf_json_ops);

	(void)state;
	assert_int_equal(lines__keys(out, "counter-value,unit,event,variance," TAIL), 3);
	assert_non_null(strstr(out, "\"event\" : \"cpu-clock\", \"variance\" : 1.50, \"event-runtime\""));
	assert_non_null(strstr(out, "\"event\" : \"cycles\", \"variance\" : 0.00, \"event-runtime\" : 0"));
	free(out);
}

/* multiplexed: the scaled count, perf's integer percentage (100 * run /
 * ena in u64); no time event: perf's NULL unit, "(null)" */
static void test_pj_scaled_and_no_time(void **state)
{
	struct output o;
	struct row r;
	char *out;

	(void)state;
	output__setup(&o, &output_perf_json_ops);
	o.nr_events = 1;
	o.ev[0] = (struct row_event){ "context-switches", true, false, 1 };
	row__setup(&r, SCOPE_SYSTEM, "all", SEC, 0);
	r.counts.c[1] = (struct emon_count){ 999, 10000, 9999, 0 };
	out = render(&o, 1.0, 1.0, &r, 1, 1.0);
	assert_string_equal(out,
		"{\"counter-value\" : \"999.000000\", \"unit\" : \"\", \"event\" : \"context-switches\", "
		"\"event-runtime\" : 9999, \"pcnt-running\" : 99.00, \"metric-value\" : 0.000000, "
		"\"metric-unit\" : \"(null)\"}\n");
	free(out);
}

/* a name of any bytes still makes valid JSON */
static void test_pj_escaped(void **state)
{
	struct output o;
	struct row r;
	char *out;

	(void)state;
	output__setup(&o, &output_perf_json_ops);
	o.scopes = 1u << SCOPE_CGROUP;
	row__setup(&r, SCOPE_CGROUP, "/a\"b\n\xff", SEC, 1);
	out = render(&o, 1.0, 1.0, &r, 1, 1.0);
	assert_int_equal(lines__keys(out, "counter-value,unit,event,cgroup," TAIL), 3);
	assert_non_null(strstr(out, "\"cgroup\" : \"/a\\\"b\\n\\ufffd\""));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pj_global),
		cmocka_unit_test(test_pj_cpus),
		cmocka_unit_test(test_pj_aggr_keys),
		cmocka_unit_test(test_pj_cgroup),
		cmocka_unit_test(test_pj_threads),
		cmocka_unit_test(test_pj_repeat),
		cmocka_unit_test(test_pj_scaled_and_no_time),
		cmocka_unit_test(test_pj_escaped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
