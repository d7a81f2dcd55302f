// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The CSV output rendered into memory: columns survive a separator in a
 * key (output_fix.h sets up the rows).
 */
#include "output_fix.h"

/* ---- CSV ---- */

#define CSV_MAX 16
#define CSV_FIELD 256

/* RFC 4180 split of one line; the number of fields, -1 if malformed. */
static int csv__split(const char *p, const char *sep,
		      char out[CSV_MAX][CSV_FIELD])
{
	size_t seplen = strlen(sep), len;
	int n = 0;

	for (;;) {
		if (n == CSV_MAX)
			return -1;
		len = 0;
		if (*p == '"') {
			for (p++; !(*p == '"' && p[1] != '"'); p++) {
				if (!*p || len + 1 >= CSV_FIELD)
					return -1;
				if (*p == '"')
					p++;
				out[n][len++] = *p;
			}
			p++;
		} else {
			while (*p && strncmp(p, sep, seplen) &&
			       len + 1 < CSV_FIELD)
				out[n][len++] = *p++;
		}
		out[n++][len] = '\0';
		if (!*p)
			return n;
		if (strncmp(p, sep, seplen))
			return -1;
		p += seplen;
	}
}

/* Split every line of out; returns the number of lines. */
static int csv__lines(char *out, const char *sep,
		      char fields[][CSV_MAX][CSV_FIELD], int *nfields, int max)
{
	char *save = NULL, *line;
	int n = 0;

	for (line = strtok_r(out, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		nfields[n] = csv__split(line, sep, fields[n]);
		n++;
	}
	return n;
}

static char csv_fields[32][CSV_MAX][CSV_FIELD];
static int csv_nfields[32];

/* Every line of out split, each with nfields fields: the line count. */
static int csv__check(char *out, const char *sep, int nfields)
{
	int n = csv__lines(out, sep, csv_fields, csv_nfields, 32);

	for (int i = 0; i < n; i++)
		assert_int_equal(csv_nfields[i], nfields);
	return n;
}

static void csv__want(int line, const char *const *want, int nfields)
{
	for (int j = 0; j < nfields; j++) {
		if (strcmp(csv_fields[line][j], want[j]))
			print_message("line %d field %d: '%s', want '%s'\n", line,
				      j, csv_fields[line][j], want[j]);
		assert_string_equal(csv_fields[line][j], want[j]);
	}
}

/* perf 6.1's -x: value,unit,event,run,pct,metric,metric unit */
static void test_csv_columns(void **state)
{
	static const char *const want[][8] = {
		{ "1500.00", "msec", "cpu-clock", "1500000000", "100.00",
		  "0.600", "CPUs utilized" },
		{ "2000", "", "context-switches", "100", "50.00", "1.333",
		  "K/sec" },
		{ "<not supported>", "", "cycles", "0", "100.00", "", "" },
		/* -A: CPU first; not counted: no metric; no time: no rate */
		{ "CPU7", "<not counted>", "msec", "cpu-clock", "0", "100.00",
		  "", "" },
		{ "CPU7", "3", "", "context-switches", "10", "100.00", "", "" },
		{ "CPU7", "<not supported>", "", "cycles", "0", "100.00", "",
		  "" },
	};
	struct output o;
	struct row r[2];
	char *out;
	int n, i;

	(void)state;
	output__setup(&o, &output_csv_ops);
	row__setup(&r[0], SCOPE_SYSTEM, "ignored", 3 * SEC / 2, 0);
	r[0].counts.c[1] = (struct emon_count){ 2000, 200, 100, 0 };	/* scaled in BPF */
	row__setup(&r[1], SCOPE_CPU, "7", 0, 3);
	r[1].counts.c[0] = (struct emon_count){ 0, 100, 0 };
	r[1].counts.c[1] = (struct emon_count){ 3, 10, 10 };
	out = render(&o, 2.5, 2.5, r, 2, 2.5);
	n = csv__lines(out, ",", csv_fields, csv_nfields, 32);
	assert_int_equal(n, (int)ARRAY_SIZE(want));
	for (i = 0; i < n; i++) {
		assert_int_equal(csv_nfields[i], i < 3 ? 7 : 8);
		csv__want(i, want[i], csv_nfields[i]);
	}
	assert_int_equal(o.rows_printed, 2);
	free(out);
}

/* What perf's aggregation flags put first, -I's time before it. */
static void test_csv_aggregation(void **state)
{
	static const struct {
		struct row r;
		const char *head[3];
		int nhead;
	} cases[] = {
		{ { .scope = SCOPE_CPU, .key = "3", .nr_cpus = 1 }, { "CPU3" }, 1 },
		{ { .scope = SCOPE_SOCKET, .key = "1", .nr_cpus = 2 },
		  { "S1", "2" }, 2 },
		{ { .scope = SCOPE_DIE, .key = "S0-D1", .nr_cpus = 4 },
		  { "S0-D1", "4" }, 2 },
		{ { .scope = SCOPE_CORE, .key = "S0-D0-C5", .nr_cpus = 2 },
		  { "S0-D0-C5", "2" }, 2 },
		{ { .scope = SCOPE_PROCESS, .key = "42", .comm = "bash" },
		  { "bash-42" }, 1 },
		{ { .scope = SCOPE_COMMAND, .key = "42" }, { NULL }, 0 },
	};
	struct output o;
	struct row r;
	char *out;

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		const int nf = 1 + cases[k].nhead + 7;

		output__setup(&o, &output_csv_ops);
		o.interval_mode = true;
		r = cases[k].r;
		row__setup(&r, r.scope, r.key, SEC, 10);
		r.comm = cases[k].r.comm;
		r.nr_cpus = cases[k].r.nr_cpus;
		out = render(&o, 1.5, 1.0, &r, 1, 1.5);
		assert_int_equal(csv__check(out, ",", nf), 3);
		for (int i = 0; i < 3; i++) {
			assert_string_equal(csv_fields[i][0], "     1.500000000");
			for (int j = 0; j < cases[k].nhead; j++)
				assert_string_equal(csv_fields[i][1 + j],
						    cases[k].head[j]);
		}
		/* RUN: a switch-counted event runs on every CPU of a row */
		assert_string_equal(csv_fields[0][1 + cases[k].nhead + 2],
				    "cpu-clock");
		free(out);
	}
}

/* -A: perf prints each event on every CPU, then the next event. */
static void test_csv_cpus_by_event(void **state)
{
	static const char *const want[][2] = {
		{ "CPU0", "cpu-clock" }, { "CPU1", "cpu-clock" },
		{ "CPU0", "context-switches" }, { "CPU1", "context-switches" },
		{ "CPU0", "cycles" }, { "CPU1", "cycles" },
	};
	struct output o;
	struct row r[3];
	char *out;

	(void)state;
	output__setup(&o, &output_csv_ops);
	row__setup(&r[0], SCOPE_CPU, "0", SEC, 1);
	row__setup(&r[1], SCOPE_CPU, "1", SEC, 2);
	row__setup(&r[2], SCOPE_CGROUP, "/a", SEC, 3);
	out = render(&o, 1.0, 1.0, r, 3, 1.0);
	assert_int_equal(csv__lines(out, ",", csv_fields, csv_nfields, 32), 9);
	for (int i = 0; i < 6; i++) {
		assert_string_equal(csv_fields[i][0], want[i][0]);
		assert_string_equal(csv_fields[i][3], want[i][1]);
	}
	assert_string_equal(csv_fields[6][3], "/a");
	assert_int_equal(o.rows_printed, 3);
	free(out);
}

/*
 * --per-thread: perf prints event by event, each event's threads by its
 * count, the largest first; a thread that did not run is <not counted>
 * (last), with RUN 0; the key is COMM-TID.
 */
static void test_csv_threads_by_event(void **state)
{
	static const char *const want[][3] = {
		{ "w-11", "30.00", "cpu-clock" }, { "w-12", "20.00", "cpu-clock" },
		{ "main-10", "<not counted>", "cpu-clock" },
		{ "w-12", "9", "context-switches" }, { "w-11", "5", "context-switches" },
		{ "main-10", "<not counted>", "context-switches" },
	};
	struct output o;
	struct row r[3];
	char *out;

	(void)state;
	output__setup(&o, &output_csv_ops);
	o.nr_events = 2;
	row__setup(&r[0], SCOPE_THREAD, "10", 0, 0);
	r[0].comm = "main";
	r[0].not_run = true;
	row__setup(&r[1], SCOPE_THREAD, "11", 30 * 1000000ULL, 5);
	r[1].comm = "w";
	row__setup(&r[2], SCOPE_THREAD, "12", 20 * 1000000ULL, 9);
	r[2].comm = "w";
	for (int i = 0; i < 3; i++)
		r[i].pid = 10;
	out = render(&o, 1.0, 1.0, r, 3, 1.0);
	assert_int_equal(csv__lines(out, ",", csv_fields, csv_nfields, 32), 6);
	for (int i = 0; i < 6; i++) {
		/* AGGR,VALUE,UNIT,EVENT,RUN,PCT,METRIC,FORMULA_UNIT: perf's 8 */
		assert_int_equal(csv_nfields[i], 8);
		assert_string_equal(csv_fields[i][0], want[i][0]);
		assert_string_equal(csv_fields[i][1], want[i][1]);
		assert_string_equal(csv_fields[i][3], want[i][2]);
	}
	assert_string_equal(csv_fields[2][4], "0");		/* RUN */
	assert_string_equal(csv_fields[2][5], "100.00");	/* PCT, as perf */
	assert_int_equal(o.rows_printed, 3);
	free(out);
	/* JSON: scope thread, the tid a number, its process and name; null
	 * counts for the thread that did not run */
	output__setup(&o, &output_json_ops);
	o.nr_events = 2;
	out = render(&o, 1.0, 1.0, r, 2, 1.0);
	assert_non_null(strstr(out, "\"scope\":\"thread\",\"key\":10,\"pid\":10,\"comm\":\"main\""));
	assert_non_null(strstr(out, "\"counters\":{\"cpu-clock\":null,\"context-switches\":null}"));
	assert_non_null(strstr(out, "\"key\":11,\"pid\":10,\"comm\":\"w\",\"counters\":{\"cpu-clock\":30000000,"));
	free(out);
	/* text: the key COMM-TID after the event, as for every scope */
	r[1].scope = SCOPE_THREAD;
	out = render_text(&r[1], 1.0);
	assert_non_null(strstr(out, "w-11"));
	free(out);
}

/* perf -G: the cgroup after the event; a container's key there too. */

/* -r 3: perf's spread column after the event name, on every event line */
static void test_csv_repeat(void **state)
{
	char *out = render_repeat(&output_csv_ops);
	int n = csv__lines(out, ",", csv_fields, csv_nfields, 32);

	(void)state;
	assert_int_equal(n, 3);
	/* perf's VALUE,UNIT,EVENT,NOISE,RUN,PCT,METRIC,FORMULA_UNIT */
	for (int i = 0; i < n; i++)
		assert_int_equal(csv_nfields[i], 8);
	assert_string_equal(csv_fields[0][2], "cpu-clock");
	assert_string_equal(csv_fields[0][3], "1.50%");
	assert_string_equal(csv_fields[1][3], "0.00%");
	free(out);
}

static void test_csv_separator_in_key(void **state)
{
	static const struct {
		const char *sep;
		const char *key;
		const char *raw;	/* the key as written */
	} cases[] = {
		{ ",", "/plain", ",/plain," },
		{ ",", "/a,b", ",\"/a,b\"," },
		{ ";", "/a;b", ";\"/a;b\";" },
		{ ",", "/a;b", ",/a;b," },
		{ ",", "/say \"hi\"", ",\"/say \"\"hi\"\"\"," },
		{ "::", "/a::b", "::\"/a::b\"::" },
		{ "::", "/a:b", "::/a:b::" },
		/* a tab in a key is escaped (\x09: test_output_escape.c),
		 * so a tab separator needs no quotes */
		{ "\t", "/a b", "\t/a b\t" },
	};
	struct output o;
	struct row r;
	char *out;
	size_t k;
	int i;

	(void)state;
	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		output__setup(&o, &output_csv_ops);
		o.sep = cases[k].sep;
		row__setup(&r, SCOPE_CGROUP, cases[k].key, SEC, 10);
		out = render(&o, 1.0, 1.0, &r, 1, 1.0);
		assert_non_null(strstr(out, cases[k].raw));
		assert_int_equal(csv__check(out, cases[k].sep, 8), 3);
		for (i = 0; i < 3; i++)
			assert_string_equal(csv_fields[i][3], cases[k].key);
		free(out);
	}
	output__setup(&o, &output_csv_ops);
	row__setup(&r, SCOPE_CONTAINER, "9d", SEC, 10);
	r.ns = "kv";
	r.pod = "cache-0";
	r.container = "redis";
	out = render(&o, 1.0, 1.0, &r, 1, 1.0);
	assert_int_equal(csv__check(out, ",", 8), 3);
	assert_string_equal(csv_fields[0][3], "9d kv/cache-0/redis");
	free(out);
}

static void test_csv_number_with_separator(void **state)
{
	static const char *const want[] = {
		"1000.00", "msec", "cpu-clock", "1000000000", "100.00",
		"1.000", "CPUs utilized",
	};
	struct output o;
	struct row r;
	char *out;

	(void)state;
	output__setup(&o, &output_csv_ops);
	o.sep = ".";	/* perf allows any separator: numbers get quoted */
	row__setup(&r, SCOPE_SYSTEM, "all", SEC, 10);
	out = render(&o, 1.0, 1.0, &r, 1, 1.0);
	assert_int_equal(csv__check(out, ".", 7), 3);
	csv__want(0, want, 7);
	free(out);
}

static void test_csv_energy(void **state)
{
	static const char *const want[][8] = {
		{ "12.500000", "J", "energy", "", "", "", "6.250", "Watts" },
		{ "", "nJ/instr", "epi", "", "", "", "", "" },	/* no instructions */
	};
	struct output o;
	struct row r[2];
	char *out;
	int n, i;

	(void)state;
	output__setup(&o, &output_csv_ops);
	row__setup(&r[0], SCOPE_SYSTEM, "all", SEC, 1);
	r[0].has_energy = true;
	r[0].energy_j = 12.5;
	r[0].power_w = 6.25;
	row__setup(&r[1], SCOPE_CGROUP, "/a", SEC, 1);
	out = render(&o, 2.0, 2.0, r, 2, 2.0);
	n = csv__lines(out, ",", csv_fields, csv_nfields, 32);
	assert_int_equal(n, 3 + 2 + 3);	/* energy lines for r[0] only */
	for (i = 0; i < 2; i++) {
		assert_int_equal(csv_nfields[3 + i], 8);
		csv__want(3 + i, want[i], 8);
	}
	assert_string_equal(csv_fields[5][3], "/a");
	free(out);
}

/*
 * perf -G after -e: each event in its cgroup's row alone, or in the
 * system row alone with an empty cgroup field, in the events' order; a
 * row's extras after its last part; a cgroup no event pairs with left out
 */
static void test_csv_paired(void **state)
{
	static const char *const want[][3] = {
		{ "cpu-clock", "/b" }, { "context-switches", "" }, { "cycles", "/b" },
		{ "energy", "/b" }, { "epi", "/b" },
	};
	struct output o;
	struct row r[3];
	char *out;
	int n, i;

	(void)state;
	output__setup(&o, &output_csv_ops);
	o.cg_paired = true;
	o.ev_cgroup[EV_CLOCK] = o.ev_cgroup[EV_CYCLES] = "/b";
	row__setup(&r[0], SCOPE_SYSTEM, "all", SEC, 7);
	row__setup(&r[1], SCOPE_CGROUP, "/a", SEC, 1);
	row__setup(&r[2], SCOPE_CGROUP, "/b", SEC / 2, 2);
	r[2].has_energy = true;
	r[2].energy_j = 1.5;
	r[2].power_w = 0.75;
	out = render(&o, 2.0, 2.0, r, 3, 2.0);
	n = csv__lines(out, ",", csv_fields, csv_nfields, 32);
	assert_int_equal(n, (int)ARRAY_SIZE(want));
	for (i = 0; i < n; i++) {
		assert_int_equal(csv_nfields[i], 8);
		assert_string_equal(csv_fields[i][2], want[i][0]);
		assert_string_equal(csv_fields[i][3], want[i][1]);
	}
	assert_string_equal(csv_fields[0][0], "500.00");
	assert_string_equal(csv_fields[1][0], "7");		/* the system's */
	/* no metric from the time event of another cgroup: perf's */
	assert_string_equal(csv_fields[1][6], "");
	assert_int_equal(o.ev_hide, 0);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_columns),
		cmocka_unit_test(test_csv_aggregation),
		cmocka_unit_test(test_csv_cpus_by_event),
		cmocka_unit_test(test_csv_threads_by_event),
		cmocka_unit_test(test_csv_repeat),
		cmocka_unit_test(test_csv_separator_in_key),
		cmocka_unit_test(test_csv_number_with_separator),
		cmocka_unit_test(test_csv_energy),
		cmocka_unit_test(test_csv_paired),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
