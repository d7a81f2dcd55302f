// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Multiplexing one slice at a time: include/emon_scale.h, the very code
 * the BPF program runs on every slice (bpf/account.bpf.h), from two raw
 * readings of (counter, enabled, running) as the program takes them (a
 * key's estimate from its slices: tests/unit/cli/test_counts.c).
 */
#include <linux/types.h>
#include "emon.h"
#include "emon_scale.h"
#include "helpers.h"

#define U64_MAX UINT64_MAX

struct slice_case {
	const char *what;
	/* the readings at the slice's start and end: counter, enabled, running */
	__u64 prev[3], cur[3];
	__u64 counter, unrun;	/* the slice as added to its keys */
};

static const struct slice_case slice_cases[] = {
	{ "ran all the time", { 0, 0, 0 }, { 1000, 100, 100 }, 1000, 0 },
	{ "running > enabled", { 0, 0, 0 }, { 1000, 100, 150 }, 1000, 0 },
	{ "read without times", { 5, 0, 0 }, { 1005, 0, 0 }, 1000, 0 },
	/* the count raw, the time not running kept for the key's estimate */
	{ "ran half", { 0, 0, 0 }, { 1000, 200, 100 }, 1000, 100 },
	{ "ran a third", { 0, 0, 0 }, { 1000, 300, 100 }, 1000, 200 },
	{ "ran, counted 0", { 0, 0, 0 }, { 0, 200, 50 }, 0, 150 },
	{ "never ran", { 70, 1000, 400 }, { 70, 1500, 400 }, 0, 500 },
	{ "never ran, counter", { 0, 0, 0 }, { 5, 500, 0 }, 5, 500 },
	/* the deltas of readings that wrapped are modulo 2^64 */
	{ "counter wrapped", { U64_MAX - 5, 0, 0 }, { 10, 4, 2 }, 16, 2 },
	{ "all three wrapped", { U64_MAX - 5, U64_MAX - 9, U64_MAX - 4 },
	  { 10, 30, 5 }, 16, 30 },
};

/* One slice as account() takes it: the deltas, then the scaling. */
static void test_slice(void **state)
{
	const struct slice_case *c = *state;
	struct emon_count d = {
		.counter = c->cur[0] - c->prev[0],
		.enabled = c->cur[1] - c->prev[1],
		.running = c->cur[2] - c->prev[2],
	};
	__u64 enabled = d.enabled, running = d.running;

	emon_scale__slice(&d);
	assert_int_equal(d.counter, c->counter);
	assert_int_equal(d.unrun, c->unrun);
	/* the times go on raw: perf's percentage is running / enabled */
	assert_int_equal(d.enabled, enabled);
	assert_int_equal(d.running, running);
}

int main(void)
{
	return tests__run(NULL, 0, test_slice, slice_cases, ARRAY_SIZE(slice_cases),
			  sizeof(slice_cases[0]), offsetof(struct slice_case, what));
}
