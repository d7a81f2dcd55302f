// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* emon-perf report: parsing recordings, totals, ranking, errors, HTML. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/commands.h"
#include "cli/report/report.h"
#include "helpers.h"

#define EPS 1e-9

/* cmocka 1.1 compares floats only; counts need doubles. */
#define assert_near(a, b, eps) near((a), (b), (eps), #a, __LINE__)
static void near(double a, double b, double eps, const char *what, int line)
{
	if (!(fabs(a - b) <= eps))
		fail_msg("line %d: %s = %.12g, want %.12g", line, what, a, b);
}

/* Two 1 s intervals (-I 1000), two containers plus host, energy by cycles.
 * Totals: c1 3+5 J, 2e9+3e9 instructions, 1e9+2e9 cycles; c2 1+1 J, 1e9+1e9
 * instructions, 1e9+1e9 cycles; host 1 J in interval 1 only; system 5+6 J. */
#define CID1 "3f2a1b9c8d7e00112233445566778899aabbccddeeff00112233445566778899"
#define CID2 "9c1d2e3f4a5b00112233445566778899aabbccddeeff00112233445566778899"
static const char rec_intervals[] =
"{\"interval\": 1.0, \"scope\": \"system\", \"key\": \"all\", \"counters\": {\"cycles\": 2000000000, \"instructions\": 3000000000, \"cpu-clock\": 2000000000}, \"energy_j\": 5.0, \"power_w\": 5.0, \"energy_source\": \"powercap\", \"split_by\": \"cycles\"}\n"
"{\"interval\": 1.0, \"scope\": \"container\", \"key\": \"" CID1 "\", \"runtime\": \"docker\", \"name\": \"web\", \"counters\": {\"cycles\": 1000000000, \"instructions\": 2000000000, \"cpu-clock\": 900000000}, \"energy_j\": 3.0}\n"
"{\"interval\": 1.0, \"scope\": \"container\", \"key\": \"" CID2 "\", \"runtime\": \"cri-o\", \"counters\": {\"cycles\": 1000000000, \"instructions\": 1000000000, \"cpu-clock\": 500000000}, \"energy_j\": 1.0}\n"
"{\"interval\": 1.0, \"scope\": \"container\", \"key\": \"host\", \"counters\": {\"cycles\": 0, \"instructions\": 0, \"cpu-clock\": 600000000}, \"energy_j\": 1.0}\n"
"\n"
"{\"interval\": 2.0, \"scope\": \"system\", \"key\": \"all\", \"counters\": {\"cycles\": 4000000000, \"instructions\": 4000000000, \"cpu-clock\": 3000000000}, \"energy_j\": 6.0}\n"
"{\"interval\": 2.0, \"scope\": \"container\", \"key\": \"" CID1 "\", \"runtime\": \"docker\", \"counters\": {\"cycles\": 2000000000, \"instructions\": 3000000000, \"cpu-clock\": 1000000000}, \"energy_j\": 5.0}\n"
"{\"interval\": 2.0, \"scope\": \"container\", \"key\": \"" CID2 "\", \"runtime\": \"cri-o\", \"name\": null, \"namespace\": \"data\", \"pod\": \"pg-0\", \"container\": \"db\", \"counters\": {\"cycles\": 1000000000, \"instructions\": 1000000000, \"cpu-clock\": 700000000}, \"energy_j\": 1.0}\n";

/* No -I: one interval of 4 s; no energy; cycles and instructions cannot be
 * counted (a VM), so they are null. */
static const char rec_whole_run[] =
"{\"interval\": 4.0, \"scope\": \"system\", \"key\": \"all\", \"counters\": {\"cycles\": null, \"instructions\": null, \"cpu-clock\": 8000000000}}\n"
"{\"interval\": 4.0, \"scope\": \"cgroup\", \"key\": \"/a\", \"counters\": {\"cycles\": null, \"instructions\": null, \"cpu-clock\": 1000000000}}\n"
"{\"interval\": 4.0, \"scope\": \"cgroup\", \"key\": \"/b\", \"counters\": {\"cycles\": null, \"instructions\": null, \"cpu-clock\": 4000000000}}\n"
"{\"interval\": 4.0, \"scope\": \"process\", \"key\": \"42\", \"comm\": \"<script>x\", \"counters\": {\"cycles\": null, \"instructions\": null, \"cpu-clock\": 2000000000}}\n";

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/test_report.XXXXXX");
	size_t len = strlen(text);
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

/* Load text as a recording and select scope (-1: the default). */
static void load(struct report *r, char **path, const char *text, int scope,
		 int top)
{
	*path = write_tmp(text);
	report__init(r, *path, &report_file_source);
	assert_int_equal(report__load(r, NULL), 0);
	assert_int_equal(report__select(r, scope, top), 0);
}

static void unload(struct report *r, char *path)
{
	report__exit(r);
	unlink(path);
	free(path);
}

static void test_intervals_totals(void **state)
{
	struct report_metrics m;
	struct report r;
	char *path;

	(void)state;
	load(&r, &path, rec_intervals, -1, 10);
	assert_int_equal(r.scope, SCOPE_CONTAINER);	/* the default */
	assert_int_equal(r.rank, RANK_ENERGY);
	assert_int_equal(r.nr_times, 2);
	assert_near(r.duration, 2.0, EPS);
	assert_string_equal(r.energy_source, "powercap");
	assert_string_equal(r.split_by, "cycles");
	assert_int_equal(r.nr_sorted, 3);
	assert_int_equal(r.top, 3);

	/* by energy: c1 8 J, c2 2 J, host 1 J */
	assert_string_equal(r.sorted[0]->key, CID1);
	assert_string_equal(r.sorted[1]->key, CID2);
	assert_string_equal(r.sorted[2]->key, "host");
	assert_string_equal(r.sorted[0]->runtime, "docker");
	/* names: the runtime's, Kubernetes' (written once they were read) */
	assert_string_equal(r.sorted[0]->names, "web");
	assert_string_equal(r.sorted[1]->names, "data/pg-0/db");
	assert_null(r.sorted[2]->names);

	report__metrics(&r, r.sorted[0], &m);
	assert_near(m.energy_j, 8.0, EPS);
	assert_near(m.power_w, 4.0, EPS);
	assert_near(m.instructions, 5e9, 1);
	assert_near(m.cycles, 3e9, 1);
	assert_near(m.ipc, 5.0 / 3.0, EPS);
	assert_near(m.epi_nj, 8.0 * 1e9 / 5e9, EPS);
	assert_near(m.share, 8.0 / 11.0, EPS);
	assert_near(m.cpu_ms, 1900.0, EPS);

	/* host: no instructions, so IPC and EPI are unknown, not 0 or inf */
	report__metrics(&r, r.sorted[2], &m);
	assert_near(m.energy_j, 1.0, EPS);
	assert_true(isnan(m.ipc));
	assert_true(isnan(m.epi_nj));

	report__metrics(&r, report__system(&r), &m);
	assert_near(m.energy_j, 11.0, EPS);
	assert_near(m.share, 1.0, EPS);
	unload(&r, path);
}

static void test_whole_run_null_counters(void **state)
{
	struct report_metrics m;
	struct report r;
	char cell[64], *path;

	(void)state;
	load(&r, &path, rec_whole_run, -1, 10);
	assert_int_equal(r.scope, SCOPE_CGROUP);	/* no container rows */
	assert_false(r.has_energy);
	assert_int_equal(r.rank, RANK_CPU_CLOCK);
	assert_int_equal(r.nr_times, 1);
	assert_near(r.duration, 4.0, EPS);
	assert_string_equal(r.sorted[0]->key, "/b");

	report__metrics(&r, r.sorted[0], &m);
	assert_true(isnan(m.energy_j));
	assert_true(isnan(m.instructions));
	assert_true(isnan(m.cycles));
	assert_true(isnan(m.ipc));
	assert_near(m.cpu_ms, 4000.0, EPS);
	assert_near(m.share, 0.5, EPS);		/* of the system's */

	report__cell(&r, r.sorted[0], COL_INSTRUCTIONS, cell, sizeof(cell));
	assert_string_equal(cell, "-");
	report__cell(&r, r.sorted[0], COL_CPU_MS, cell, sizeof(cell));
	assert_string_equal(cell, "4000.00");
	report__cell(&r, r.sorted[0], COL_SHARE, cell, sizeof(cell));
	assert_string_equal(cell, "50.00%");
	unload(&r, path);
}

static void test_default_scope_process(void **state)
{
	static const char text[] =
	"{\"interval\": 1, \"scope\": \"system\", \"key\": \"all\", \"counters\": {\"cpu-clock\": 10}}\n"
	"{\"interval\": 1, \"scope\": \"process\", \"key\": 7, \"comm\": \"a\", \"counters\": {\"cpu-clock\": 4}}\n";
	struct report r;
	char *path;

	(void)state;
	load(&r, &path, text, -1, 10);
	assert_int_equal(r.scope, SCOPE_PROCESS);
	assert_string_equal(r.sorted[0]->key, "7");	/* a numeric key */
	assert_string_equal(r.sorted[0]->comm, "a");
	unload(&r, path);
}

static void test_top_order(void **state)
{
	static const char text[] =
	"{\"interval\": 1, \"scope\": \"cgroup\", \"key\": \"/low\", \"counters\": {}, \"energy_j\": 1}\n"
	"{\"interval\": 1, \"scope\": \"cgroup\", \"key\": \"/none\", \"counters\": {}, \"energy_j\": null}\n"
	"{\"interval\": 1, \"scope\": \"cgroup\", \"key\": \"/high\", \"counters\": {}, \"energy_j\": 9}\n"
	"{\"interval\": 1, \"scope\": \"cgroup\", \"key\": \"/tie-b\", \"counters\": {}, \"energy_j\": 5}\n"
	"{\"interval\": 1, \"scope\": \"cgroup\", \"key\": \"/tie-a\", \"counters\": {}, \"energy_j\": 5}\n"
	"{\"interval\": 2, \"scope\": \"cgroup\", \"key\": \"/low\", \"counters\": {}, \"energy_j\": 7}\n";
	static const char *const want[] = {
		"/high", "/low", "/tie-a", "/tie-b", "/none",
	};
	struct report r;
	char *path;
	int i;

	(void)state;
	load(&r, &path, text, SCOPE_CGROUP, 3);
	assert_int_equal(r.nr_sorted, 5);
	assert_int_equal(r.top, 3);
	for (i = 0; i < 5; i++)
		assert_string_equal(r.sorted[i]->key, want[i]);
	assert_int_equal(report__select(&r, SCOPE_CGROUP, 0), 0);
	assert_int_equal(r.top, 5);			/* --top 0: all */
	assert_int_equal(report__select(&r, SCOPE_CONTAINER, 3), -ENOENT);
	assert_non_null(strstr(r.err, "no container rows"));
	unload(&r, path);
}

/* stat --by pod,namespace: each a table of its own, keyed by name. */
static void test_pods_namespaces(void **state)
{
	static const char text[] =
	"{\"interval\": 1, \"scope\": \"pod\", \"key\": \"prod/shop-0\", \"namespace\": \"prod\", \"pod\": \"shop-0\", \"pod_uid\": null, \"counters\": {}, \"energy_j\": 2}\n"
	"{\"interval\": 1, \"scope\": \"pod\", \"key\": \"data/pg-0\", \"namespace\": \"data\", \"pod\": \"pg-0\", \"pod_uid\": null, \"counters\": {}, \"energy_j\": 5}\n"
	"{\"interval\": 1, \"scope\": \"namespace\", \"key\": \"prod\", \"namespace\": \"prod\", \"counters\": {}, \"energy_j\": 2}\n"
	"{\"interval\": 1, \"scope\": \"namespace\", \"key\": \"data\", \"namespace\": \"data\", \"counters\": {}, \"energy_j\": 5}\n"
	"{\"interval\": 2, \"scope\": \"namespace\", \"key\": \"prod\", \"namespace\": \"prod\", \"counters\": {}, \"energy_j\": 4}\n";
	struct report r;
	char *path;

	(void)state;
	load(&r, &path, text, SCOPE_NAMESPACE, 10);
	assert_int_equal(r.nr_sorted, 2);
	assert_string_equal(r.sorted[0]->key, "prod");	/* 6 J over 5 */
	assert_int_equal(report__select(&r, SCOPE_POD, 10), 0);
	assert_string_equal(r.sorted[0]->key, "data/pg-0");
	unload(&r, path);
}

static void test_bad_input(void **state)
{
	static const char good[] =
		"{\"interval\": 1, \"scope\": \"system\", \"key\": \"all\", \"counters\": {}}\n";
	static const struct {
		const char *text;
		int err;
		int line;
		const char *what;
	} cases[] = {
		{ "", -ENODATA, 0, "empty" },
		{ "\n  \n", -ENODATA, 0, "empty" },
		{ "%s%snot json\n", -EINVAL, 3, "not JSON" },
		{ "%s{\"interval\": 1, \"scope\"\n", -EINVAL, 2, "truncated" },
		{ "%s%s%s[1, 2]\n", -EINVAL, 4, "not a JSON object" },
		{ "%s{} {}\n", -EINVAL, 2, "text after" },
		{ "{\"scope\": \"system\", \"key\": \"all\", \"counters\": {}}\n", -EINVAL, 1, "\"interval\"" },
		{ "{\"interval\": \"1\", \"scope\": \"system\", \"key\": \"all\", \"counters\": {}}\n", -EINVAL, 1, "\"interval\"" },
		{ "{\"interval\": -1, \"scope\": \"system\", \"key\": \"all\", \"counters\": {}}\n", -EINVAL, 1, "\"interval\"" },
		{ "%s{\"interval\": 1, \"scope\": \"planet\", \"key\": \"all\", \"counters\": {}}\n", -EINVAL, 2, "\"scope\"" },
		{ "%s{\"interval\": 1, \"scope\": \"system\", \"counters\": {}}\n", -EINVAL, 2, "\"key\"" },
		{ "%s{\"interval\": 1, \"scope\": \"system\", \"key\": \"all\"}\n", -EINVAL, 2, "\"counters\"" },
		{ "%s{\"interval\": 1, \"scope\": \"system\", \"key\": \"all\", \"counters\": {\"cycles\": \"7\"}}\n", -EINVAL, 2, "\"cycles\"" },
		{ "%s{\"interval\": 1, \"scope\": \"system\", \"key\": \"all\", \"counters\": {}, \"energy_j\": true}\n", -EINVAL, 2, "\"energy_j\"" },
	};
	char text[512], *path;
	struct report r;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		snprintf(text, sizeof(text), cases[i].text, good, good, good);
#pragma GCC diagnostic pop
		path = write_tmp(text);
		report__init(&r, path, &report_file_source);
		assert_int_equal(report__load(&r, NULL), cases[i].err);
		assert_int_equal(r.err_line, cases[i].line);
		if (!strstr(r.err, cases[i].what) || !strstr(r.err, path))
			fail_msg("case %zu: '%s' lacks '%s' or the path", i,
				 r.err, cases[i].what);
		if (cases[i].line) {
			char where[64];

			snprintf(where, sizeof(where), ":%d: ", cases[i].line);
			assert_non_null(strstr(r.err, where));
		}
		unload(&r, path);
	}
	report__init(&r, "/nonexistent/recording.jsonl", &report_file_source);
	assert_int_equal(report__load(&r, NULL), -ENOENT);
	assert_non_null(strstr(r.err, "/nonexistent/recording.jsonl"));
	report__exit(&r);
}

/* Lines out of time order still give sorted intervals and series. */
static void test_series(void **state)
{
	static const char text[] =
	"{\"interval\": 3, \"scope\": \"system\", \"key\": \"all\", \"counters\": {}, \"energy_j\": 8}\n"
	"{\"interval\": 3, \"scope\": \"container\", \"key\": \"c\", \"counters\": {}, \"energy_j\": 6}\n"
	"{\"interval\": 1, \"scope\": \"system\", \"key\": \"all\", \"counters\": {}, \"energy_j\": 2}\n"
	"{\"interval\": 1, \"scope\": \"container\", \"key\": \"c\", \"counters\": {}, \"energy_j\": 1}\n";
	const struct report_key *sys;
	struct report r;
	char *path;

	(void)state;
	load(&r, &path, text, -1, 10);
	assert_int_equal(r.nr_times, 2);
	assert_near(r.times[0], 1, EPS);
	assert_near(r.times[1], 3, EPS);
	assert_int_equal(report__load_series(&r), 0);
	assert_near(report__series_rate(&r, r.sorted[0], 0), 1.0, EPS);
	assert_near(report__series_rate(&r, r.sorted[0], 1), 3.0, EPS);
	sys = report__system(&r);
	assert_near(report__series_rate(&r, sys, 1), 4.0, EPS);
	unload(&r, path);
}

static int count(const char *haystack, const char *needle)
{
	int n = 0;

	for (; (haystack = strstr(haystack, needle)); haystack++)
		n++;
	return n;
}

static char *html_of(struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report__load_series(r), 0);
	assert_int_equal(report__write_html(r, f), 0);
	fclose(f);
	return buf;
}

static void test_html_energy(void **state)
{
	struct report r;
	char *path, *html;

	(void)state;
	load(&r, &path, rec_intervals, -1, 10);
	html = html_of(&r);
	/* energy: 3 bars; EPI: 2 (host has no instructions, shown as n/a) */
	assert_int_equal(count(html, "class=\"bar\""), 5);
	assert_int_equal(count(html, "<polyline"), 4);	/* 3 keys + system */
	assert_non_null(strstr(html, "Energy per instruction"));
	assert_non_null(strstr(html, "3f2a1b9c8d7e"));
	/* the charts' legends name containers as the table does: the
	 * runtime's name, else namespace/pod/container */
	assert_true(count(html, "3f2a1b9c8d7e web") >= 2);
	assert_true(count(html, "9c1d2e3f4a5b data/pg-0/db") >= 2);
	assert_null(strstr(html, "http"));		/* nothing fetched */
	assert_null(strstr(html, "<script"));
	free(html);
	unload(&r, path);
}

static void test_html_no_energy_escapes(void **state)
{
	struct report r;
	char *path, *html;

	(void)state;
	load(&r, &path, rec_whole_run, SCOPE_PROCESS, 10);
	html = html_of(&r);
	assert_null(strstr(html, "<script"));
	assert_non_null(strstr(html, "&lt;script&gt;x"));
	assert_non_null(strstr(html, "No energy in this recording"));
	assert_non_null(strstr(html, "CPU share"));
	assert_int_equal(count(html, "class=\"bar\""), 2);	/* ms and share */
	free(html);
	unload(&r, path);
}

/* Keys, comms and names are any bytes: the text table (a terminal)
 * gets no control byte from them, and the HTML none either. */
/* report__scrub: C0, DEL and C1 controls masked, other UTF-8 kept */
static void test_scrub_c1(void **state)
{
	char s[] = "a\xc2\x9b[2Jb\x1b" "c\x7f" "d\xc3\xa9";

	(void)state;
	report__scrub(s);
	assert_string_equal(s, "a??[2Jb?c?d\xc3\xa9");
}

static void test_control_bytes(void **state)
{
	static const char text[] =
	"{\"interval\": 1, \"scope\": \"cgroup\", \"key\": \"/a\\u001b[2J\\u001b]0;pwned\\u0007\", \"counters\": {\"cpu-clock\": 10}}\n"
	"{\"interval\": 1, \"scope\": \"process\", \"key\": 7, \"comm\": \"x\\u001b[31m\", \"counters\": {\"cpu-clock\": 4}}\n"
	"{\"interval\": 1, \"scope\": \"container\", \"key\": \"" CID1 "\", \"runtime\": \"docker\", \"name\": \"w\\u009b\\u001b[1m\", \"counters\": {\"cpu-clock\": 3}}\n";
	static const int scopes[] = { SCOPE_CGROUP, SCOPE_PROCESS, SCOPE_CONTAINER };
	struct report r;
	char *path, *out, *html;
	size_t len;
	FILE *f;

	(void)state;
	for (size_t i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++) {
		load(&r, &path, text, scopes[i], 10);
		f = open_memstream(&out, &len);
		assert_non_null(f);
		assert_int_equal(report__print_text(&r, f), 0);
		fclose(f);
		for (size_t j = 0; j < len; j++)
			if (out[j] != '\n')
				assert_false((unsigned char)out[j] < ' ' || out[j] == 0x7f);
		assert_non_null(strstr(out, "?[")); /* the escape shown as '?' */
		assert_null(strstr(out, "\xc2\x9b"));	/* nor U+009B, a CSI */
		html = html_of(&r);
		assert_null(strchr(html, 0x1b));
		free(html);
		free(out);
		unload(&r, path);
	}
}

static void test_nice_step(void **state)
{
	static const struct {
		double max;
		int want;
		double step;
	} cases[] = {
		{ 261.4, 5, 100 }, { 10, 5, 2 }, { 0.9, 5, 0.2 }, { 30, 8, 5 },
		{ 1, 5, 0.2 }, { 0, 5, 1 }, { -3, 5, 1 }, { NAN, 5, 1 },
		{ 7e9, 5, 2e9 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		assert_near(report__nice_step(cases[i].max, cases[i].want),
				    cases[i].step, cases[i].step * 1e-9);
}

/* cmd_report with stdout sent to /dev/null: the exit statuses. */
static int run(int argc, char **argv)
{
	int saved = dup(STDOUT_FILENO), null = open("/dev/null", O_WRONLY);
	int ret;

	fflush(stdout);
	dup2(null, STDOUT_FILENO);
	ret = cmd_report(argc, argv);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(null);
	return ret;
}

static void test_cmd_exit_status(void **state)
{
	char *path = write_tmp(rec_intervals), html[] = "/tmp/test_report_html.XXXXXX";
	char *ok[] = { "report", path, "--top", "2", "--html", html, NULL };
	char *by_bad[] = { "report", path, "--by", "galaxy", NULL };
	char *by_none[] = { "report", path, "--by", "socket", NULL };
	char *top_bad[] = { "report", path, "--top", "ten", NULL };
	char *missing[] = { "report", "/nonexistent.jsonl", NULL };
	char *no_file[] = { "report", NULL };
	int fd = mkstemp(html);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(run(6, ok), 0);
	assert_int_equal(access(html, R_OK), 0);
	assert_int_equal(run(4, by_bad), 2);
	assert_int_equal(run(4, by_none), 2);
	assert_int_equal(run(4, top_bad), 2);
	assert_int_equal(run(2, missing), 2);
	assert_int_equal(run(1, no_file), 2);
	unlink(html);
	unlink(path);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intervals_totals),
		cmocka_unit_test(test_whole_run_null_counters),
		cmocka_unit_test(test_default_scope_process),
		cmocka_unit_test(test_top_order),
		cmocka_unit_test(test_pods_namespaces),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_series),
		cmocka_unit_test(test_html_energy),
		cmocka_unit_test(test_html_no_energy_escapes),
		cmocka_unit_test(test_control_bytes),
		cmocka_unit_test(test_scrub_c1),
		cmocka_unit_test(test_nice_step),
		cmocka_unit_test(test_cmd_exit_status),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
