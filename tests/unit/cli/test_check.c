// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* emon-perf check's judgement of a figure against its reference, and its
 * report's rows. */
#include <math.h>
#include "cli/check/check.h"
#include "helpers.h"

static void test_judge(void **state)
{
	static const struct check_tol tol = { 2.0, 5.0, 0 };
	static const struct check_tol slack = { 1.0, 3.0, 10 };
	static const struct {
		const char *what;
		const struct check_tol *tol;
		double got, ref;
		enum check_status want;
		double want_pct;
	} cases[] = {
		{ "equal",			&tol, 100, 100, CHECK_OK, 0 },
		{ "within ok, above",		&tol, 102, 100, CHECK_OK, 2 },
		{ "within ok, below",		&tol, 98.5, 100, CHECK_OK, -1.5 },
		{ "past ok: warn",		&tol, 103, 100, CHECK_WARN, 3 },
		{ "at warn's edge",		&tol, 95, 100, CHECK_WARN, -5 },
		{ "past warn: fail",		&tol, 106, 100, CHECK_FAIL, 6 },
		{ "a lost half: fail",		&tol, 50, 100, CHECK_FAIL, -50 },
		{ "both zero",			&tol, 0, 0, CHECK_OK, 0 },
		{ "zero reference",		&tol, 5, 0, CHECK_FAIL, INFINITY },
		{ "nothing counted",		&tol, 0, 100, CHECK_FAIL, -100 },
		{ "slack covers a few",		&slack, 48, 40, CHECK_OK, 20 },
		{ "past the slack",		&slack, 60, 40, CHECK_FAIL, 50 },
		{ "slack, percent wins",	&slack, 20100, 20000, CHECK_OK, 0.5 },
		{ "percent and slack add up",	&slack, 20205, 20000, CHECK_OK, 1.025 },
		{ "past both: warn",		&slack, 20300, 20000, CHECK_WARN, 1.5 },
		{ "NaN",			&tol, NAN, 100, CHECK_FAIL, NAN },
		{ "infinite",			&tol, INFINITY, 100, CHECK_FAIL, INFINITY },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		double pct;
		enum check_status st = check__judge(cases[i].got, cases[i].ref,
						    cases[i].tol, &pct);

		if (st != cases[i].want)
			fail_msg("%s: %s, want %s", cases[i].what, check_status__name(st),
				 check_status__name(cases[i].want));
		if (isnan(cases[i].want_pct) ? !isnan(pct) :
		    isinf(cases[i].want_pct) ? !isinf(pct) :
		    fabs(pct - cases[i].want_pct) > 1e-9)
			fail_msg("%s: %g%%, want %g%%", cases[i].what, pct,
				 cases[i].want_pct);
	}
}

static void test_rows(void **state)
{
	static struct check_report r;
	struct check_row *row;

	(void)state;
	row = check__add(&r, CHECK_OK, "cpu-clock [switch]", "within %g%%", 2.0);
	assert_non_null(row);
	check_row__figure(row, 2.5, "s", "%.3f vs %.3f s", 2.5, 2.49);
	assert_string_equal(row->reason, "within 2%");
	assert_string_equal(row->figure, "2.500 vs 2.490 s");
	assert_string_equal(row->unit, "s");
	assert_true(row->value == 2.5);
	row = check__add(&r, CHECK_SKIP, "a name longer than the row keeps, by far", "x");
	assert_int_equal(strlen(row->name), sizeof(row->name) - 1);
	assert_true(isnan(row->value));
	/* a full report drops rows, and a figure for none is a no-op */
	while (r.nr < CHECK_MAX_ROWS)
		check__add(&r, CHECK_INFO, "filler", "-");
	assert_null(check__add(&r, CHECK_FAIL, "one too many", "-"));
	check_row__figure(NULL, 1, "", "%d", 1);
	assert_int_equal(r.nr, CHECK_MAX_ROWS);
	assert_string_equal(check_status__name(CHECK_FAIL), "fail");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
