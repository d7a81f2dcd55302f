// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Names are any bytes: text and CSV print a process's or cgroup's control
 * bytes as \xNN (output__escape), never raw on a terminal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "front/output.h"
#include "helpers.h"

/* In, the buffer's size, what it becomes. */
static const char *const escape_cases[][3] = {
	{ "plain", "64", "plain" },
	{ "", "64", "" },
	{ "/system.slice/serial\\x2dgetty", "64", "/system.slice/serial\\x2dgetty" },
	{ "\033[2Jx", "64", "\\x1b[2Jx" },
	{ "a\nb\tc\x7f", "64", "a\\x0ab\\x09c\\x7f" },
	{ "caf\xc3\xa9", "64", "caf\xc3\xa9" },	/* UTF-8 stays */
	/* C1 controls: U+009B (CSI) in UTF-8, and a lone 0x9b byte, which a
	 * terminal not in UTF-8 takes for CSI */
	{ "a\xc2\x9b" "2J", "64", "a\\xc2\\x9b2J" },
	{ "a\x9b" "2J\xc3\xa9", "64", "a\\x9b2J\xc3\xa9" },
	{ "\xc2\xa0\x1b", "64", "\xc2\xa0\\x1b" },	/* U+00A0 is no control */
	/* never half a character */
	{ "\x1b\xc3\xa9", "6", "\\x1b" },
	{ "\x1b\xc3\xa9", "7", "\\x1b\xc3\xa9" },
	/* cut to fit: whole escapes only, never half of one */
	{ "ab\033c", "6", "ab" },
	{ "ab\033c", "7", "ab\\x1b" },
	{ "\033\033", "4", "" },
};

static void test_escape_table(void **state)
{
	char buf[64];

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(escape_cases); k++) {
		snprintf(buf, sizeof(buf), "%s", escape_cases[k][0]);
		assert_string_equal(output__escape(buf, atoi(escape_cases[k][1])),
				    escape_cases[k][2]);
	}
}

static char *render(const struct output_ops *ops, const struct row *r)
{
	struct output o = { .ops = ops, .sep = ",", .target = "system wide",
			    .ncpus = 1, .nr_events = 1 };
	char *buf = NULL;
	size_t len = 0;

	o.ev[0] = (struct row_event){ "cpu-clock", true, true, 0 };
	o.f = open_memstream(&buf, &len);
	assert_non_null(o.f);
	o.ops->begin(&o);
	o.ops->interval(&o, 1.0, 1.0, r, 1);
	o.ops->end(&o, 1.0);
	fclose(o.f);
	return buf;
}

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < ' ' && *s != '\n' && *s != '\t')
			return true;
		else if (*s == 0x7f)
			return true;
	return false;
}

/* A process and a cgroup named with escape sequences, in text and CSV. */
static void test_escape_outputs(void **state)
{
	const struct output_ops *ops[] = { &output_text_ops, &output_csv_ops };
	struct row rows[] = {
		{ .scope = SCOPE_PROCESS, .key = "77", .comm = "\033]0;x\007\033[2J" },
		{ .scope = SCOPE_CGROUP, .key = "/user.slice/\033[31mred\r" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ops); i++) {
		for (size_t k = 0; k < ARRAY_SIZE(rows); k++) {
			char *out;

			rows[k].counts.c[0] = (struct emon_count){ SEC, SEC, SEC };
			out = render(ops[i], &rows[k]);
			if (has_control(out))
				fail_msg("%s: a control byte in:\n%s", ops[i]->name, out);
			/* CSV has no comm: the pid alone */
			if (i == 0 || rows[k].scope == SCOPE_CGROUP)
				assert_non_null(strstr(out, "\\x1b"));
			free(out);
		}
	}
}

/* A container's label (names from the runtime's files, any bytes):
 * each byte of a control character is '?' (common/utf8.h), UTF-8 stays. */
static void test_cont_label(void **state)
{
	struct row r = { .scope = SCOPE_CONTAINER, .key = "c",
			 .ns = "prod\x1b[2J", .pod = "web\xc2\x9b" "2J",
			 .container = "caf\xc3\xa9\x9b\x7f" };
	char buf[64];

	(void)state;
	assert_string_equal(row__cont_label(&r, buf, sizeof(buf)),
			    "prod?[2J/web??2J/caf\xc3\xa9??");
	r = (struct row){ .scope = SCOPE_CONTAINER, .key = "c", .name = "a\tb" };
	assert_string_equal(row__cont_label(&r, buf, sizeof(buf)), "a?b");
	r.scope = SCOPE_CGROUP;
	assert_null(row__cont_label(&r, buf, sizeof(buf)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape_table),
		cmocka_unit_test(test_escape_outputs),
		cmocka_unit_test(test_cont_label),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
