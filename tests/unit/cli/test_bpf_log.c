// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bpf_log__explain(): what a failed load tells the user, from libbpf's
 * own messages as libbpf 1.1 prints them (through the print callback
 * session__setup_libbpf() installs): a verifier refusal with its last
 * line, not its statistics, and exit status 1; an extern the kernel
 * lacks; EPERM, the only errno that means privileges.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "front/errors.h"
#include "engine/session/bpf_log.h"
#include "engine/session/session.h"
#include "helpers.h"

static libbpf_print_fn_t print_fn;

/* A message of libbpf's, through the installed callback. */
static void say(enum libbpf_print_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_fn(level, fmt, ap);
	va_end(ap);
}

static int setup(void **state)
{
	(void)state;
	session__setup_libbpf();
	print_fn = libbpf_set_print(NULL);
	libbpf_set_print(print_fn);
	return 0;
}

static void test_verifier(void **state)
{
	char buf[1024];
	int err;

	(void)state;
	bpf_log__capture();
	say(LIBBPF_WARN, "libbpf: prog '%s': BPF program load failed: %s\n", "on_switch",
	    "Permission denied");
	say(LIBBPF_WARN, "libbpf: prog '%s': -- BEGIN PROG LOAD LOG --\n%s-- END PROG LOAD LOG --\n",
	    "on_switch", "0: R1=ctx() R10=fp0\n"
	    "7762: (0f) r2 += r3\n7763: (61) r3 = *(u32 *)(r2 +0)\n"
	    "R2 unbounded memory access, make sure to bounds check any such access\n"
	    "processed 6515 insns (limit 1000000) max_states_per_insn 6 total_states 269\n");
	say(LIBBPF_WARN, "libbpf: prog '%s': failed to load: %d\n", "on_switch", -13);
	say(LIBBPF_WARN, "libbpf: failed to load object '%s'\n", "emon_bpf");
	say(LIBBPF_WARN, "libbpf: failed to load BPF skeleton '%s': %d\n", "emon_bpf", -13);
	bpf_log__release();
	err = bpf_log__explain(-EACCES, buf, sizeof(buf));
	assert_int_equal(cli__exit_status(err), 1);
	assert_non_null(strstr(buf, "verifier"));
	assert_non_null(strstr(buf, "'on_switch'"));
	assert_non_null(strstr(buf, ": R2 unbounded memory access, make sure to bounds check"));
	assert_null(strstr(buf, "processed"));
	assert_null(strstr(buf, "ermission"));
}

static void test_extern(void **state)
{
	char buf[1024];
	int err;

	(void)state;
	bpf_log__capture();
	say(LIBBPF_WARN, "libbpf: extern (func ksym) '%s': not found in kernel or module BTFs\n",
	    "bpf_rdonly_cast");
	say(LIBBPF_WARN, "libbpf: failed to load object '%s'\n", "emon_bpf");
	bpf_log__release();
	err = bpf_log__explain(-EINVAL, buf, sizeof(buf));
	assert_int_equal(cli__exit_status(err), 1);
	assert_non_null(strstr(buf, "extern (func ksym) 'bpf_rdonly_cast': not found"));
	assert_null(strstr(buf, "Invalid argument"));
}

static void test_privileges(void **state)
{
	char buf[1024];

	(void)state;
	bpf_log__capture();
	bpf_log__release();
	assert_int_equal(cli__exit_status(bpf_log__explain(-EPERM, buf, sizeof(buf))), 2);
	assert_non_null(strstr(buf, "CAP_BPF"));
	/* nothing kept: an errno, but never "permission" for EACCES */
	bpf_log__capture();
	bpf_log__release();
	assert_int_equal(cli__exit_status(bpf_log__explain(-EACCES, buf, sizeof(buf))), 1);
	assert_null(strstr(buf, "ermission denied: run"));
	/* a capture drops what an earlier load kept */
	bpf_log__capture();
	say(LIBBPF_WARN, "libbpf: prog 'x': -- BEGIN PROG LOAD LOG --\nbad\n-- END PROG LOAD LOG --\n");
	bpf_log__release();
	bpf_log__capture();
	bpf_log__release();
	bpf_log__explain(-EINVAL, buf, sizeof(buf));
	assert_null(strstr(buf, "verifier"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verifier),
		cmocka_unit_test(test_extern),
		cmocka_unit_test(test_privileges),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
