// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The daemon's check that no thread holds more than it kept: a task's
 * /proc status against the kept set (the HTTP thread of the security
 * issue, started before the drop, among good and malformed texts), and
 * the check of every task on a real thread started before this thread
 * set no_new_privs, which it must name. No root needed: no_new_privs is
 * per thread and anyone may set it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "daemon/privs.h"
#include "helpers.h"

#define PERFMON (1ULL << PRIVS_CAP_PERFMON)

/* A status text from the sets (hex) and NoNewPrivs, or raw when set. */
struct status_case {
	const char *name;
	const char *eff, *prm, *bnd, *amb, *nnp;
	const char *raw;
	int err;
	const char *why;	/* a part of what it says, or NULL */
};

static const struct status_case cases[] = {
	{ "after the drop, as root: CAP_PERFMON alone", "4000000000", "4000000000", "4000000000", "0", "1", NULL, 0, NULL },
	{ "no capability at all", "0", "0", "4000000000", "0", "1", NULL, 0, NULL },
	/* the MHD-single, started inside set-up as root */
	{ "a thread started before the drop", "1fffeffffff", "1fffeffffff", "1ffffffffff", "0", "0", NULL, -EPERM, "CapPrm 39 capabilities (0x1bffeffffff)" },
	{ "the same: no_new_privs said", "1fffeffffff", "1fffeffffff", "1ffffffffff", "0", "0", NULL, -EPERM, "NoNewPrivs 0" },
	{ "CAP_BPF kept too", "c000000000", "c000000000", "4000000000", "0", "1", NULL, -EPERM, "CapEff cap_bpf" },
	{ "only no_new_privs missing", "4000000000", "4000000000", "4000000000", "0", "0", NULL, -EPERM, "NoNewPrivs 0" },
	{ "a wider bounding set than the main thread's", "4000000000", "4000000000", "200000", "0", "1", NULL, -EPERM, "CapBnd cap_sys_admin" },
	{ "an ambient capability", "0", "0", "0", "8000000000", "1", NULL, -EPERM, "CapAmb cap_bpf" },
	{ "no NoNewPrivs line (an old kernel)", .raw = "Name:\tx\nCapInh:\t0\nCapPrm:\t0\nCapEff:\t0\nCapBnd:\t0\nCapAmb:\t0\n", .err = -EINVAL },
	{ "no CapAmb line", .raw = "Name:\tx\nCapInh:\t0\nCapPrm:\t0\nCapEff:\t0\nCapBnd:\t0\nNoNewPrivs:\t1\n", .err = -EINVAL },
	{ "garbage in CapEff", .raw = "CapInh:\t0\nCapPrm:\t0\nCapEff:\tzz\nCapBnd:\t0\nCapAmb:\t0\nNoNewPrivs:\t1\n", .err = -EINVAL },
	{ "empty", .raw = "", .err = -EINVAL },
};

static void test_status_case(void **state)
{
	const struct status_case *c = *state;
	char status[512], why[512];
	int err;

	if (c->raw)
		snprintf(status, sizeof(status), "%s", c->raw);
	else
		snprintf(status, sizeof(status),
			 "Name:\temon-perf\nUmask:\t0077\nCapInh:\t0000000000000000\n"
			 "CapPrm:\t%s\nCapEff:\t%s\nCapBnd:\t%s\nCapAmb:\t%s\n"
			 "NoNewPrivs:\t%s\nSeccomp:\t0\n",
			 c->prm, c->eff, c->bnd, c->amb, c->nnp);
	err = privs__task_excess(status, PERFMON, PERFMON, why, sizeof(why));
	if (err != c->err)
		fail_msg("%s: %d, want %d (%s)", c->name, err, c->err, why);
	if (c->why && !strstr(why, c->why))
		fail_msg("%s: '%s' does not say '%s'", c->name, why, c->why);
	if (!err && why[0])
		fail_msg("%s: a pass that says '%s'", c->name, why);
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int stage;	/* 1: the thread runs, 2: it may set no_new_privs, 3: it did */

static void stage__wait(int want)
{
	pthread_mutex_lock(&lock);
	while (stage < want)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
}

static void stage__set(int s)
{
	pthread_mutex_lock(&lock);
	stage = s;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

static void *early_thread(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "early", 0, 0, 0);
	stage__set(1);
	stage__wait(2);
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	stage__set(3);
	stage__wait(4);
	return NULL;
}

/* Whatever this test process holds stays allowed (keep and bnd: all),
 * so that only no_new_privs, set here after the thread started, differs. */
static void test_early_thread_caught(void **state)
{
	char why[512], want[64];
	pthread_t t;
	pid_t tid;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, early_thread, NULL), 0);
	stage__wait(1);
	assert_int_equal(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
	assert_int_equal(privs__check_tasks(~0ULL, ~0ULL, why, sizeof(why)), -EPERM);
	tid = gettid();
	snprintf(want, sizeof(want), "thread %d ", (int)tid);
	if (!strstr(why, "(early) holds NoNewPrivs 0") || strstr(why, want))
		fail_msg("the early thread, not this one (%d): '%s'", (int)tid, why);
	stage__set(2);
	stage__wait(3);
	assert_int_equal(privs__check_tasks(~0ULL, ~0ULL, why, sizeof(why)), 0);
	stage__set(4);
	pthread_join(t, NULL);
}

static void test_format(void **state)
{
	char buf[128];

	(void)state;
	privs__format(PERFMON | (1ULL << PRIVS_CAP_BPF), buf, sizeof(buf));
	assert_string_equal(buf, "cap_perfmon,cap_bpf");
	privs__format(0, buf, sizeof(buf));
	assert_string_equal(buf, "none");
	privs__format(1ULL << 50, buf, sizeof(buf));
	assert_string_equal(buf, "cap_50");
}

int main(void)
{
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_early_thread_caught),
		cmocka_unit_test(test_format),
	};

	return tests__run(fixed, ARRAY_SIZE(fixed), test_status_case, cases,
			  ARRAY_SIZE(cases), sizeof(cases[0]),
			  offsetof(struct status_case, name));
}
