// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cli__exit_status(): the -errno of a failed command to its exit status,
 * the statuses the integration tests pin (bad_input, serve_bad_input,
 * report_prometheus) next to the runtime failures that must stay 1.
 */
#include <errno.h>
#include "front/errors.h"
#include "helpers.h"

static void test_exit_status(void **state)
{
	static const struct { int err, status; const char *what; } cases[] = {
		{ 0,		0, "success" },
		{ -EINVAL,	2, "a bad event, option value, line or query" },
		{ -ENOENT,	2, "a missing energy source, file or socket" },
		{ -E2BIG,	2, "too many events, too many points" },
		{ -EPERM,	2, "no CAP_BPF + CAP_PERFMON" },
		{ -EACCES,	2, "a file's mode" },
		{ -ENODATA,	2, "a recording or window without rows" },
		{ -ECONNREFUSED, 2, "no daemon at --socket" },
		{ -EPROTO,	2, "no Prometheus API at the URL" },
		{ -ENOMEM,	1, "out of memory" },
		{ -EIO,		1, "a read or write failed, a kernel refused" },
		{ -EOPNOTSUPP,	1, "none of the events can be counted here" },
		{ -ENODEV,	1, "no cgroup2 mounted" },
		{ -EMFILE,	1, "out of file descriptors" },
		{ -EHOSTUNREACH, 1, "a Prometheus server that does not answer" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		if (cli__exit_status(cases[i].err) != cases[i].status)
			fail_msg("%s (%d): %d, want %d", cases[i].what, cases[i].err,
				 cli__exit_status(cases[i].err), cases[i].status);
	}
}

/* An option parser's 0, 1 after --help, -errno after its line. */
static void test_parse_status(void **state)
{
	(void)state;
	assert_int_equal(cli__parse_status(0), 0);
	assert_int_equal(cli__parse_status(1), 0);
	assert_int_equal(cli__parse_status(-EINVAL), 2);
	assert_int_equal(cli__parse_status(-ENOMEM), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_status),
		cmocka_unit_test(test_parse_status),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
