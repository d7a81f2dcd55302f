// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Multiplexing one slice at a time: include/emon_scale.h, the very code
 * the BPF program runs on every slice (bpf/account.bpf.h), from two raw
 * readings of (counter, enabled, running) as the program takes them.
 */
#include <linux/types.h>
#include <math.h>
#include "emon.h"
#include "emon_scale.h"
#include "helpers.h"

#define U64_MAX UINT64_MAX
#define U32_MAX 0xffffffffULL

struct slice_case {
	const char *what;
	/* the readings at the slice's start and end: counter, enabled, running */
	__u64 prev[3], cur[3];
	__u64 counter, unrun;	/* the slice as added to its keys */
	/* 0: exact; else the largest error allowed, relative */
	double tol;
};

static const struct slice_case slice_cases[] = {
	{ "ran all the time", { 0, 0, 0 }, { 1000, 100, 100 }, 1000, 0 },
	{ "running > enabled", { 0, 0, 0 }, { 1000, 100, 150 }, 1000, 0 },
	{ "read without times", { 5, 0, 0 }, { 1005, 0, 0 }, 1000, 0 },
	{ "ran half", { 0, 0, 0 }, { 1000, 200, 100 }, 2000, 0 },
	{ "ran a third", { 0, 0, 0 }, { 1000, 300, 100 }, 3000, 0 },
	/* 1.5 and 4.5 are rounded down, as perf's (u64) cast does */
	{ "rounds down 1.5", { 0, 0, 0 }, { 1, 3, 2 }, 1, 0 },
	{ "rounds down 4.5", { 0, 0, 0 }, { 3, 3, 2 }, 4, 0 },
	{ "ran, counted 0", { 0, 0, 0 }, { 0, 200, 50 }, 0, 0 },
	/* nothing to scale: its enabled time is left to the estimate */
	{ "never ran", { 70, 1000, 400 }, { 70, 1500, 400 }, 0, 500 },
	{ "never ran, counter", { 0, 0, 0 }, { 5, 500, 0 }, 5, 500 },
	/* the deltas of readings that wrapped are modulo 2^64 */
	{ "counter wrapped", { U64_MAX - 5, 0, 0 }, { 10, 4, 2 }, 32, 0 },
	{ "all three wrapped", { U64_MAX - 5, U64_MAX - 9, U64_MAX - 4 },
	  { 10, 30, 5 }, 64, 0 },
	/* the bounds of the exact path: r < 2^32 with any c and e */
	{ "r just under 2^32", { 0, 0, 0 }, { (1ULL << 40) + 12345, U32_MAX,
					       1ULL << 31 }, 2199023279729ULL, 0 },
	{ "e past 2^32", { 0, 0, 0 }, { 123456789012345ULL, 1000000000007ULL,
					 3000000001ULL }, 41152262990685644ULL, 0 },
	{ "1 ns of 2^60", { 0, 0, 0 }, { 7, 1ULL << 60, 1 }, 7ULL << 60, 0 },
	{ "c near 2^63, x1.5", { 0, 0, 0 }, { (1ULL << 62) + 1, 3000000000000000000ULL,
					       2000000000000000000ULL },
	  6917529027641081857ULL, 0 },
	{ "2^63 x 1.5", { 0, 0, 0 }, { 1ULL << 63, 3, 2 }, 3ULL << 62, 0 },
	/* past 2^64: saturates, never wraps to a small count */
	{ "2^63 x 2.5", { 0, 0, 0 }, { 1ULL << 63, 5, 2 }, U64_MAX, 0 },
	{ "U64_MAX x e/(e-1)", { 0, 0, 0 }, { U64_MAX, U32_MAX, U32_MAX - 1 },
	  U64_MAX, 0 },
	/* ran 2^33 ns and more in one slice: r's low bits dropped */
	{ "r past 2^32", { 0, 0, 0 }, { 1000000000000000ULL, (1ULL << 33) + 5,
					 (1ULL << 33) + 3 }, 1000000000232830ULL, 0, 0x1p-30 },
	{ "r 2^39, e 2^40", { 0, 0, 0 }, { 1000000000000ULL, (1ULL << 40) + 7,
					    (1ULL << 39) + 3 }, 2000000000001ULL, 0, 0x1p-30 },
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
	if (c->tol) {
		double err = fabs((double)d.counter - (double)c->counter) / c->counter;

		if (err > c->tol)
			fail_msg("%s: %llu, want %llu within %g", c->what,
				 (unsigned long long)d.counter,
				 (unsigned long long)c->counter, c->tol);
	} else if (d.counter != c->counter) {
		fail_msg("%s: %llu, want %llu", c->what, (unsigned long long)d.counter,
			 (unsigned long long)c->counter);
	}
	assert_int_equal(d.unrun, c->unrun);
	/* the times go on raw: perf's percentage is running / enabled */
	assert_int_equal(d.enabled, enabled);
	assert_int_equal(d.running, running);
}

/* The product test behind the saturation, at its edges. */
static void test_mul(void **state)
{
	static const struct {
		__u64 a, b, want;
		int ok;
	} cases[] = {
		{ 0, U64_MAX, 0, 1 },
		{ U64_MAX, 1, U64_MAX, 1 },
		{ U32_MAX, U32_MAX, 0xfffffffe00000001ULL, 1 },
		{ 1ULL << 32, 1ULL << 31, 1ULL << 63, 1 },
		{ 1ULL << 32, 1ULL << 32, 0, 0 },
		{ (1ULL << 33) - 1, 1ULL << 31, 0xffffffff80000000ULL, 1 },
		{ 3, 1ULL << 63, 0, 0 },
		{ U64_MAX, 2, 0, 0 },
	};

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		__u64 p = 0;
		int ok = emon_scale__mul(cases[k].a, cases[k].b, &p);

		if (ok != cases[k].ok || (ok && p != cases[k].want))
			fail_msg("case %zu: %d %llu", k, ok, (unsigned long long)p);
	}
}

int main(void)
{
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_mul),
	};

	return tests__run(fixed, ARRAY_SIZE(fixed), test_slice, slice_cases,
			  ARRAY_SIZE(slice_cases), sizeof(slice_cases[0]),
			  offsetof(struct slice_case, what));
}
