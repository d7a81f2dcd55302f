// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libemon's read path against slots in plain memory (no daemon): totals,
 * the running slice of time events, the states a slot can be in, a
 * handle used by another thread, and a writer that keeps the slot moving
 * while a reader must never see it torn. Also the daemon's check of a
 * registration request, its choice of a slot (never in another uid's
 * array) and an open with no daemon to talk to.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "daemon/threads.h"
#include "daemon/socket/server.h"
#include "libemon/selfmon_int.h"
#include "helpers.h"

static struct emon_self_slot slot;

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* A handle on slot: 2 events, event 0 a time event, event 1 switches. */
static void handle(struct emon_self *s)
{
	memset(s, 0, sizeof(*s));
	memset(&slot, 0, sizeof(slot));
	slot.state = EMON_SELF_LIVE;
	slot.gen = 7;
	s->slot = &slot;
	s->gen = 7;
	s->nr = 2;
	s->time_mask = 1;
	s->switch_mask = 2;
	s->owner = pthread_self();
	strcpy(s->name[0], "cpu-clock");
	strcpy(s->name[1], "context-switches");
}

static void test_totals(void **state)
{
	struct emon_self s;
	uint64_t v[4] = { 0 };

	(void)state;
	handle(&s);
	slot.total[0] = 1000;
	slot.total[1] = 5;
	s.base[0] = 400;
	s.base[1] = 2;
	/* not running: the finished slices, less the values at open */
	assert_int_equal(emon_self_read(&s, v, 4), 2);
	assert_int_equal(v[0], 600);
	assert_int_equal(v[1], 3);
	/* fewer asked for than counted */
	v[1] = 99;
	assert_int_equal(emon_self_read(&s, v, 1), 1);
	assert_int_equal(v[1], 99);
	assert_int_equal(emon_self_read(&s, NULL, 0), 0);
	assert_int_equal(emon_self_read(&s, NULL, 2), -EINVAL);
	assert_int_equal(emon_self_read(&s, v, -1), -EINVAL);
	assert_int_equal(emon_self_read(NULL, v, 2), -EINVAL);
}

static void test_running(void **state)
{
	struct emon_self s;
	uint64_t v[2], t0, t1;

	(void)state;
	handle(&s);
	slot.total[0] = 1000;
	slot.total[1] = 5;
	slot.start[1] = 123;	/* counters: as of the switch, no slice added */
	t0 = mono();
	slot.start_ns = t0 - 2000000;	/* running for 2 ms */
	assert_int_equal(emon_self_read(&s, v, 2), 2);
	t1 = mono();
	assert_true(v[0] >= 1000 + 2000000);
	assert_true(v[0] <= 1000 + 2000000 + (t1 - t0));
	assert_int_equal(v[1], 5);
	/* a start in the future (another CPU's clock) adds nothing */
	slot.start_ns = mono() + 1000000000;
	assert_int_equal(emon_self_read(&s, v, 2), 2);
	assert_int_equal(v[0], 1000);
}

static void test_states(void **state)
{
	static const struct {
		const char *what;
		__u32 state;
		__u64 gen;
		int want;
	} cases[] = {
		{ "live, its own",		EMON_SELF_LIVE, 7, 2 },
		{ "the daemon stopped",		EMON_SELF_GONE, 7, -ESHUTDOWN },
		{ "taken back",			EMON_SELF_FREE, 7, -ESTALE },
		{ "another thread's since",	EMON_SELF_LIVE, 8, -ESTALE },
		{ "gone, whoever's",		EMON_SELF_GONE, 8, -ESHUTDOWN },
	};
	struct emon_self s;
	uint64_t v[2];

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		handle(&s);
		slot.state = cases[k].state;
		slot.gen = cases[k].gen;
		if (emon_self_read(&s, v, 2) != cases[k].want)
			fail_msg("%s: %d, want %d", cases[k].what, emon_self_read(&s, v, 2),
				 cases[k].want);
	}
}

static void test_names_and_exact(void **state)
{
	struct emon_self s;

	(void)state;
	handle(&s);
	assert_int_equal(emon_self_nevents(&s), 2);
	assert_string_equal(emon_self_event(&s, 1), "context-switches");
	assert_null(emon_self_event(&s, 2));
	assert_null(emon_self_event(&s, -1));
	assert_int_equal(emon_self_exact(&s, 0), 1);	/* time */
	assert_int_equal(emon_self_exact(&s, 1), 1);	/* switches */
	s.switch_mask = 0;
	slot.pmc_idx[1] = 3;
	assert_int_equal(emon_self_exact(&s, 1), 0);	/* rdpmc not allowed */
	assert_int_equal(emon_self_exact(&s, 2), -1);
	assert_int_equal(emon_self_nevents(NULL), 0);
}

static void *other_thread(void *arg)
{
	uint64_t v[2];

	return (void *)(intptr_t)emon_self_read(arg, v, 2);
}

static void test_other_thread(void **state)
{
	struct emon_self s;
	pthread_t t;
	void *r;

	(void)state;
	handle(&s);
	assert_int_equal(pthread_create(&t, NULL, other_thread, &s), 0);
	pthread_join(t, &r);
	assert_int_equal((int)(intptr_t)r, -EINVAL);
}

static volatile int writing;

/* BPF's way: seq odd, both totals to the same new value, seq even. */
static void *writer(void *arg)
{
	(void)arg;
	for (__u64 k = 1; writing; k++) {
		__atomic_fetch_add(&slot.seq, 1, __ATOMIC_SEQ_CST);
		__atomic_store_n(&slot.total[0], k, __ATOMIC_RELAXED);
		for (volatile int d = 0; d < 50; d++)
			;	/* a window for a torn read */
		__atomic_store_n(&slot.total[1], k, __ATOMIC_RELAXED);
		__atomic_fetch_add(&slot.seq, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

static void test_never_torn(void **state)
{
	struct emon_self s;
	__u64 v[EMON_MAX_EVENTS];
	long reads = 0, torn = 0;
	pthread_t t;
	uint64_t end;

	(void)state;
	handle(&s);
	s.time_mask = 0;
	writing = 1;
	assert_int_equal(pthread_create(&t, NULL, writer, NULL), 0);
	end = mono() + 300000000ULL;
	while (mono() < end) {
		int r = emon__self_raw(&s, v);

		if (r == -EAGAIN)	/* the writer held it through every try */
			continue;
		assert_int_equal(r, 0);
		reads++;
		torn += v[0] != v[1];
	}
	writing = 0;
	pthread_join(t, NULL);
	print_message("%ld reads while the slot was being written, %ld torn\n", reads, torn);
	assert_true(reads > 0);
	assert_int_equal(torn, 0);
}

static void test_open_no_daemon(void **state)
{
	char longpath[200];

	(void)state;
	errno = 0;
	assert_null(emon_self_open("/nonexistent/emon.sock"));
	assert_int_equal(errno, ENOENT);
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	assert_null(emon_self_open(longpath));
	assert_int_equal(errno, ENAMETOOLONG);
	setenv("EMON_PERF_SOCKET", "/nonexistent/env.sock", 1);
	errno = 0;
	assert_null(emon_self_open(NULL));
	assert_int_equal(errno, ENOENT);
	emon_self_close(NULL);
}

static void test_parse_self_req(void **state)
{
	struct emon_msg_hdr h = { EMON_PROTO_MAGIC, EMON_PROTO_VERSION, EMON_MSG_SELF_REQ,
				  sizeof(struct emon_self_req), 0 };
	struct emon_self_req r = { 1234, 0 };
	char err[128];

	(void)state;
	assert_int_equal(server__parse_request(&h, &r, err, sizeof(err)), EMON_MSG_SELF_REQ);
	h.len = sizeof(r) - 1;
	assert_int_equal(server__parse_request(&h, &r, err, sizeof(err)), -EPROTO);
	h.len = sizeof(r);
	h.version = 1;	/* before SELF messages */
	assert_int_equal(server__parse_request(&h, &r, err, sizeof(err)), -EPROTO);
}

/* 3 arrays of 2 slots; busy[i]: slot i is taken */
static bool busy[6];

static bool slot_free(const void *ctx, __u32 i)
{
	(void)ctx;
	return !busy[i];
}

/* Register (uid, want: the slot chosen, -1 none) in turn, binding as the
 * daemon does; "free" steps give a slot back. */
static void test_pick(void **state)
{
	static const struct {
		const char *what;
		int uid;	/* -1: free slot `want` */
		int want;
	} steps[] = {
		{ "uid 1000's first thread: array 0, its first slot", 1000, 0 },
		{ "uid 65534's first: not in 1000's array, array 1", 65534, 2 },
		{ "1000's second: its own array", 1000, 1 },
		{ "1000's third (an administrator's): a new array of its own", 1000, 4 },
		{ "65534's second: its array's free slot", 65534, 3 },
		{ "uid 7 when every array is bound: none, though slot 5 is free", 7, -1 },
		{ "1000 gives slot 0 back", -1, 0 },
		{ "65534's array is full and none is unbound: never 1000's slot 0", 65534, -1 },
		{ "nor to uid 7", 7, -1 },
		{ "1000 gets its own freed slot again", 1000, 0 },
		{ "and its spare one in array 2", 1000, 5 },
	};
	struct selfmon_array arr[3] = { 0 };

	(void)state;
	memset(busy, 0, sizeof(busy));
	for (size_t k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
		int i;

		if (steps[k].uid < 0) {
			busy[steps[k].want] = false;
			arr[steps[k].want / 2].used--;
			continue;
		}
		i = selfmon__pick(arr, 3, 2, steps[k].uid, slot_free, NULL);
		print_message("%s: %d\n", steps[k].what, i);
		assert_int_equal(i, steps[k].want);
		if (i < 0)
			continue;
		assert_false(busy[i]);
		assert_true(!arr[i / 2].bound || arr[i / 2].uid == (uid_t)steps[k].uid);
		busy[i] = true;
		arr[i / 2] = (struct selfmon_array){ true, steps[k].uid, arr[i / 2].used + 1 };
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_totals),
		cmocka_unit_test(test_running),
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_names_and_exact),
		cmocka_unit_test(test_other_thread),
		cmocka_unit_test(test_never_torn),
		cmocka_unit_test(test_open_no_daemon),
		cmocka_unit_test(test_parse_self_req),
		cmocka_unit_test(test_pick),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
