// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The text buffer of /metrics: the exact forms of its values (integers,
 * nanoseconds as seconds, doubles), the escaping of label values and HELP
 * text (invalid UTF-8 and control characters made valid), growth past
 * its first allocation, and a failed allocation that stops every write.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include "daemon/exporter/metrics_buf.h"
#include "helpers.h"

static void assert_buf(struct mbuf *b, const char *want)
{
	assert_int_equal(b->err, 0);
	assert_true(b->len < b->cap);
	b->p[b->len] = '\0';
	assert_string_equal(b->p, want);
	free(b->p);
	*b = (struct mbuf){};
}

/* integers, and nanoseconds as seconds exactly */
static void test_integers(void **state)
{
	static const struct {
		__u64 v;
		const char *u64, *seconds;
	} cases[] = {
		{ 0, "0", "0" },
		{ 7, "7", "0.000000007" },
		{ 1500000000, "1500000000", "1.5" },
		{ 1000000000, "1000000000", "1" },
		{ 123456789012, "123456789012", "123.456789012" },
		{ 18446744073709551615ULL, "18446744073709551615",
		  "18446744073.709551615" },
	};
	struct mbuf b = {};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		mbuf__u64(&b, cases[i].v);
		assert_buf(&b, cases[i].u64);
		mbuf__seconds(&b, cases[i].v);
		assert_buf(&b, cases[i].seconds);
	}
}

/* 15 digits, and the names Prometheus gives what is not a number */
static void test_doubles(void **state)
{
	static const struct {
		double v;
		const char *out;
	} cases[] = {
		{ NAN, "NaN" },
		{ INFINITY, "+Inf" },
		{ -INFINITY, "-Inf" },
		{ 14.75, "14.75" },
		{ 0.0125, "0.0125" },
		{ 1700000000.5, "1700000000.5" },
		{ 0.1 + 0.2, "0.3" },		/* 15 digits */
		{ -2, "-2" },
	};
	struct mbuf b = {};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		mbuf__double(&b, cases[i].v);
		assert_buf(&b, cases[i].out);
	}
}

static void test_escaped(void **state)
{
	static const struct {
		bool quote;		/* a label value, else HELP text */
		const char *in, *out;
	} cases[] = {
		{ true, "/system.slice", "/system.slice" },
		{ true, "a\\b", "a\\\\b" },
		{ true, "a\"b", "a\\\"b" },
		{ false, "a\"b", "a\"b" },		/* HELP in 0.0.4 */
		{ false, "a\nb", "a\\nb" },
		{ true, "a\tb", "a\tb" },		/* tab stays */
		{ true, "a\x01" "b", "a\xef\xbf\xbd" "b" },
		{ true, "b\xff\xfe" "d", "b\xef\xbf\xbd\xef\xbf\xbd" "d" },
		{ true, "caf\xc3\xa9", "caf\xc3\xa9" },	/* valid UTF-8 */
		{ true, "\xc0\x80", "\xef\xbf\xbd\xef\xbf\xbd" },	/* overlong */
		{ true, "\xe2\x82", "\xef\xbf\xbd\xef\xbf\xbd" },	/* cut short */
		{ true, "", "" },
	};
	struct mbuf b = {};
	char want[64];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		mbuf__escaped(&b, cases[i].in, cases[i].quote);
		mbuf__puts(&b, "|");	/* never a NULL p */
		snprintf(want, sizeof(want), "%s|", cases[i].out);
		assert_buf(&b, want);
	}
}

/* Past the first 4096 bytes, every byte kept; once an allocation failed,
 * nothing more is written. */
static void test_growth(void **state)
{
	struct mbuf b = {};
	char *p;

	(void)state;
	for (int i = 0; i < 10000; i++)
		mbuf__u64(&b, i % 10);
	assert_int_equal(b.err, 0);
	assert_int_equal(b.len, 10000);
	assert_true(b.cap > b.len);
	for (int i = 0; i < 10000; i++)
		assert_int_equal(b.p[i], '0' + i % 10);
	b.err = -ENOMEM;
	p = b.p;
	mbuf__puts(&b, "more");
	mbuf__double(&b, 1.5);
	assert_false(mbuf__reserve(&b, 1));
	assert_int_equal(b.len, 10000);
	assert_ptr_equal(b.p, p);
	free(b.p);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_doubles),
		cmocka_unit_test(test_escaped),
		cmocka_unit_test(test_growth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
