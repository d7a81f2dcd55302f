// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A key's sums as stat prints them: struct emon_count (slices scaled in
 * BPF, unrun left to estimate) through count__scaled() and the text and
 * JSON printers: the value, perf's percentage, <not counted>; and the
 * NMI watchdog hint that follows a run with such an event.
 */
#include <stdio.h>
#include <unistd.h>
#include "front/output.h"
#include "cli/stat/stat_hint.h"
#include "helpers.h"

struct out_case {
	const char *what;
	struct emon_count c;
	const char *text;	/* the count column */
	const char *pct;	/* NULL: no percentage on the line */
	/* "counters":{...} and "ratio":{...}; no "ratio" where the event
	 * ran all its enabled time (the row ends there) */
	const char *json;
	bool under;		/* rows__undercounted() */
};

static const struct out_case out_cases[] = {
	{ "ran all the time", { 1000000, 1000, 1000, 0 }, "1,000,000", NULL,
	  "\"counters\":{\"cycles\":1000000}}", false },
	{ "ran half, scaled in BPF", { 2000000, 1000, 500, 0 }, "2,000,000",
	  "  (50.00%)",
	  "\"counters\":{\"cycles\":2000000},\"ratio\":{\"cycles\":0.5}", true },
	{ "half of it unrun", { 1000000, 1000, 500, 500 }, "2,000,000",
	  "  (50.00%)",
	  "\"counters\":{\"cycles\":2000000},\"ratio\":{\"cycles\":0.5}", true },
	/* ran a quarter of the half it ran in: 1/8 running, x2 estimated */
	{ "scaled and unrun", { 1000000, 4000, 500, 2000 }, "2,000,000",
	  "  (12.50%)",
	  "\"counters\":{\"cycles\":2000000},\"ratio\":{\"cycles\":0.125}", true },
	{ "never ran", { 0, 1000, 0, 1000 }, "<not counted>", "  (0.00%)",
	  "\"counters\":{\"cycles\":null},\"ratio\":{\"cycles\":0.0}", true },
	/* --no-scale: raw, unrun 0, the percentage all the same */
	{ "raw, ran half", { 1000000, 1000, 500, 0 }, "1,000,000", "  (50.00%)",
	  "\"counters\":{\"cycles\":1000000},\"ratio\":{\"cycles\":0.5}", true },
	{ "raw, never ran", { 0, 1000, 0, 0 }, "<not counted>", "  (0.00%)",
	  "\"counters\":{\"cycles\":null},\"ratio\":{\"cycles\":0.0}", true },
	{ "read without times", { 42, 0, 0, 0 }, "42", NULL,
	  "\"counters\":{\"cycles\":42}}", false },
	{ "running > enabled", { 100, 10, 20, 0 }, "100", NULL,
	  "\"counters\":{\"cycles\":100}}", false },
	{ "ran 99.99%", { 999, 10000, 9999, 0 }, "999", "  (99.99%)",
	  "\"counters\":{\"cycles\":999},\"ratio\":{\"cycles\":0.9999}", true },
	/* 3 * 3 / 2 = 4.5: the integer shown rounds half up */
	{ "estimate rounded", { 3, 3, 2, 1 }, "5", "  (66.67%)",
	  "\"counters\":{\"cycles\":5},\"ratio\":{\"cycles\":0.666667}", true },
};

/* One event, cycles, counted as c in the system row. */
static void out__one(struct output *o, struct row *r, const struct output_ops *ops,
		     const struct emon_count *c)
{
	*o = (struct output){ .ops = ops, .sep = ",", .target = "system wide",
			      .ncpus = 1, .nr_events = 1 };
	o->ev[0] = (struct row_event){ "cycles", true, false, 0 };
	*r = (struct row){ .scope = SCOPE_SYSTEM, .key = "all" };
	r->counts.c[0] = *c;
}

/* The interval's lines alone, no header or footer, into buf. */
static void out__print(const struct output_ops *ops, const struct emon_count *c,
		       char *buf, size_t size)
{
	struct output o;
	struct row r;

	out__one(&o, &r, ops, c);
	memset(buf, 0, size);
	o.f = fmemopen(buf, size - 1, "w");
	assert_non_null(o.f);
	ops->interval(&o, 1.0, 1.0, &r, 1);
	fclose(o.f);
}

static void test_out(void **state)
{
	const struct out_case *c = *state;
	char buf[1024], want[128], *line;
	struct output o;
	struct row r;

	out__print(&output_text_ops, &c->c, buf, sizeof(buf));
	snprintf(want, sizeof(want), "%s      cycles", c->text);
	line = strstr(buf, want);
	if (!line)
		fail_msg("%s: no '%s' in:\n%s", c->what, want, buf);
	line[strcspn(line, "\n")] = 0;
	if (c->pct && !strstr(line, c->pct))
		fail_msg("%s: no '%s' in '%s'", c->what, c->pct, line);
	/* perf's place for it: the line's end */
	if (c->pct && strcmp(line + strlen(line) - strlen(c->pct), c->pct))
		fail_msg("%s: '%s' does not end '%s'", c->what, c->pct, line);
	if (!c->pct && strchr(line, '%'))
		fail_msg("%s: a percentage in '%s'", c->what, line);

	out__print(&output_json_ops, &c->c, buf, sizeof(buf));
	if (!strstr(buf, c->json))
		fail_msg("%s: no '%s' in:\n%s", c->what, c->json, buf);

	out__one(&o, &r, &output_text_ops, &c->c);
	assert_int_equal(rows__undercounted(&o, &r, 1), c->under);
}

static void test_nmi_watchdog(void **state)
{
	static const struct {
		const char *content;	/* NULL: no such file */
		bool on;
	} cases[] = {
		{ "1\n", true },
		{ "0\n", false },
		{ "", false },
		{ NULL, false },
	};
	char path[] = "/tmp/emon-test-nmi-XXXXXX";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		FILE *f;

		if (!cases[k].content) {
			unlink(path);
		} else {
			f = fopen(path, "w");
			assert_non_null(f);
			fputs(cases[k].content, f);
			fclose(f);
		}
		assert_int_equal(nmi_watchdog__on(path), cases[k].on);
	}
}

static void test_hint_stream(void **state)
{
	static const struct {
		const struct output_ops *ops;
		bool data_there;	/* the data goes to the hint's stream */
		bool printed;
	} cases[] = {
		{ &output_text_ops, true, true },	/* after the footer, as perf */
		{ &output_json_ops, true, false },	/* not among --json-rows' lines */
		{ &output_perf_json_ops, true, false },	/* nor -j's */
		{ &output_csv_ops, true, false },
		{ &output_json_ops, false, true },	/* --json-rows -o FILE: stderr is free */
	};
	char buf[512];

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		struct output o = { .ops = cases[k].ops };
		FILE *f;

		memset(buf, 0, sizeof(buf));
		f = fmemopen(buf, sizeof(buf) - 1, "w");
		assert_non_null(f);
		o.f = cases[k].data_there ? f : stdout;
		stat_hint__print(f, &o);
		fclose(f);
		assert_int_equal(strstr(buf, "Try disabling the NMI watchdog:\n"
					"\techo 0 > /proc/sys/kernel/nmi_watchdog\n") != NULL,
				 cases[k].printed);
	}
}

int main(void)
{
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_nmi_watchdog),
		cmocka_unit_test(test_hint_stream),
	};

	return tests__run(fixed, ARRAY_SIZE(fixed), test_out, out_cases,
			  ARRAY_SIZE(out_cases), sizeof(out_cases[0]),
			  offsetof(struct out_case, what));
}
