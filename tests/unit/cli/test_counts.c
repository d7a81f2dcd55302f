// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Counter arithmetic: deltas across wrap, sums, scaling, ratios, scopes. */
#include <math.h>
#include <string.h>
#include "engine/counts.h"
#include "emon_scale.h"
#include "front/rows.h"
#include "helpers.h"

#define U64_MAX UINT64_MAX

static void count__set(struct emon_count *c, __u64 v)
{
	c->counter = v;
	c->enabled = v;
	c->running = v;
	c->unrun = v;
}

static void test_delta(void **state)
{
	static const struct {
		const char *what;
		__u64 cur, prev, want;
	} cases[] = {
		{ "plain",		1000, 400, 600 },
		{ "equal",		77, 77, 0 },
		{ "from zero",		U64_MAX, 0, U64_MAX },
		{ "wrap by one",	0, U64_MAX, 1 },
		{ "wrap",		10, U64_MAX - 5, 16 },
		{ "wrap, big",		1ULL << 40, U64_MAX - (1ULL << 40) + 1,
					1ULL << 41 },
	};
	struct counts cur, prev, dst;
	size_t k;
	int i;

	(void)state;
	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		memset(&dst, 0xaa, sizeof(dst));
		for (i = 0; i < EMON_MAX_EVENTS; i++) {
			count__set(&cur.c[i], cases[k].cur);
			count__set(&prev.c[i], cases[k].prev);
		}
		/* a different value per field catches a field mix-up */
		cur.c[0].enabled += 1;
		cur.c[0].running += 2;
		cur.c[0].unrun += 3;
		counts__delta(&dst, &cur, &prev, 3);
		assert_int_equal(dst.c[0].counter, cases[k].want);
		assert_int_equal(dst.c[0].enabled, cases[k].want + 1);
		assert_int_equal(dst.c[0].running, cases[k].want + 2);
		assert_int_equal(dst.c[0].unrun, cases[k].want + 3);
		assert_int_equal(dst.c[2].counter, cases[k].want);
		/* entries past nr are left alone */
		assert_int_equal(dst.c[3].counter, 0xaaaaaaaaaaaaaaaaULL);
	}
}

static void test_delta_nr_bounds(void **state)
{
	struct counts cur, prev, dst;

	(void)state;
	memset(&cur, 0, sizeof(cur));
	memset(&prev, 0, sizeof(prev));
	cur.c[EMON_MAX_EVENTS - 1].counter = 9;

	memset(&dst, 0x55, sizeof(dst));
	counts__delta(&dst, &cur, &prev, -1);	/* bad nr: touches nothing */
	assert_int_equal(dst.c[0].counter, 0x5555555555555555ULL);

	counts__delta(&dst, &cur, &prev, EMON_MAX_EVENTS + 100);
	assert_int_equal(dst.c[EMON_MAX_EVENTS - 1].counter, 9);
	assert_int_equal(dst.c[0].counter, 0);

	/* in place: dst may be cur */
	cur.c[0].counter = 50;
	prev.c[0].counter = 20;
	counts__delta(&cur, &cur, &prev, 1);
	assert_int_equal(cur.c[0].counter, 30);
}

static void test_add(void **state)
{
	struct counts a, b;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.c[0] = (struct emon_count){ 1, 2, 3, 4 };
	b.c[0] = (struct emon_count){ 10, 20, 30, 40 };
	a.c[1].counter = U64_MAX;
	b.c[1].counter = 2;
	b.c[2].counter = 99;	/* past nr */
	counts__add(&a, &b, 2);
	assert_int_equal(a.c[0].counter, 11);
	assert_int_equal(a.c[0].enabled, 22);
	assert_int_equal(a.c[0].running, 33);
	assert_int_equal(a.c[0].unrun, 44);
	assert_int_equal(a.c[1].counter, 1);	/* modulo 2^64, like the kernel */
	assert_int_equal(a.c[2].counter, 0);
	counts__add(&a, &b, 0);
	assert_int_equal(a.c[0].counter, 11);
}

static void test_is_zero(void **state)
{
	struct counts c;

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_true(counts__is_zero(&c, EMON_MAX_EVENTS));
	assert_true(counts__is_zero(&c, 0));
	c.c[1].enabled = 1;	/* ran nothing, but was enabled */
	assert_false(counts__is_zero(&c, 2));
	assert_true(counts__is_zero(&c, 1));	/* past nr does not count */
	c.c[1].enabled = 0;
	c.c[0].running = 1;
	assert_false(counts__is_zero(&c, 1));
	c.c[0].running = 0;
	c.c[0].counter = 1;
	assert_false(counts__is_zero(&c, 1));
	c.c[0].counter = 0;
	c.c[0].unrun = 1;
	assert_false(counts__is_zero(&c, 1));
}

/*
 * Past COUNTS_MAX_EVENTS_SCHED events the block has no scheduler view:
 * events 8 and up, which share its bytes, are added once, as events; at
 * 8 or fewer the view is carried along. A row costs the same either way.
 */
static void test_sched_shares_block(void **state)
{
	struct counts a, b, d;

	(void)state;
	assert_int_equal(sizeof(struct counts),
			 COUNTS_MAX_EVENTS_SCHED * sizeof(struct emon_count) +
			 sizeof(struct emon_sched) + sizeof(struct gpu_count));
	assert_true(sizeof(struct counts) >= EMON_MAX_EVENTS * sizeof(struct emon_count));
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	for (int i = 0; i < EMON_MAX_EVENTS; i++)
		b.c[i] = (struct emon_count){ 100 + i, 1, 1, 0 };
	counts__add(&a, &b, EMON_MAX_EVENTS);
	for (int i = 0; i < EMON_MAX_EVENTS; i++)
		assert_int_equal(a.c[i].counter, 100 + i);	/* once each */
	counts__delta(&d, &a, &b, EMON_MAX_EVENTS);
	assert_true(counts__is_zero(&d, EMON_MAX_EVENTS));
	a.c[COUNTS_MAX_EVENTS_SCHED + 1].counter++;
	counts__delta(&d, &a, &b, EMON_MAX_EVENTS);
	assert_false(counts__is_zero(&d, EMON_MAX_EVENTS));
	assert_int_equal(d.c[COUNTS_MAX_EVENTS_SCHED + 1].counter, 1);

	/* 8 events and the view */
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	b.c[COUNTS_MAX_EVENTS_SCHED - 1].counter = 3;
	b.s.on_cpu_ns = 7;
	b.s.hist[2] = 1;
	a.s.on_cpu_ns = 5;
	counts__add(&a, &b, COUNTS_MAX_EVENTS_SCHED);
	assert_int_equal(a.c[COUNTS_MAX_EVENTS_SCHED - 1].counter, 3);
	assert_int_equal(a.s.on_cpu_ns, 12);
	assert_int_equal(a.s.hist[2], 1);
	counts__delta(&d, &a, &b, COUNTS_MAX_EVENTS_SCHED);
	assert_int_equal(d.s.on_cpu_ns, 5);
	memset(&d, 0, sizeof(d));
	d.s.wakeups = 1;
	assert_false(counts__is_zero(&d, 4));	/* the view counts */
}

static void test_scaled(void **state)
{
	static const struct {
		const char *what;
		struct emon_count c;
		bool ok;
		double value, ratio;
	} cases[] = {
		/* counter: the slices' sum, each scaled in BPF already */
		{ "ran all the time",	{ 1000, 100, 100, 0 }, true, 1000, 1.0 },
		{ "ran half, scaled",	{ 2000, 200, 100, 0 }, true, 2000, 0.5 },
		{ "ran a quarter",	{ 4000, 400, 100, 0 }, true, 4000, 0.25 },
		{ "ran, counted 0",	{ 0, 100, 50, 0 }, true, 0, 0.5 },
		/* half the enabled time in slices it never ran in: doubled */
		{ "half unrun",		{ 1000, 200, 100, 100 }, true, 2000, 0.5 },
		{ "3/4 unrun",		{ 1000, 400, 100, 300 }, true, 4000, 0.25 },
		/* ran a quarter of the half it ran in: the slices scaled
		 * 250 -> 1000, the unrun half estimated from them */
		{ "scaled and unrun",	{ 1000, 400, 50, 200 }, true, 2000, 0.125 },
		{ "never ran",		{ 0, 100, 0, 100 }, false, 0, 0.0 },
		{ "never ran, counter",	{ 5, 100, 0, 100 }, false, 0, 0.0 },
		/* --no-scale: unrun stays 0, never ran is still not counted */
		{ "never ran, raw",	{ 0, 100, 0, 0 }, false, 0, 0.0 },
		{ "raw, ran half",	{ 1000, 200, 100, 0 }, true, 1000, 0.5 },
		{ "nothing enabled",	{ 42, 0, 0, 0 }, true, 42, 1.0 },
		{ "all zero",		{ 0, 0, 0, 0 }, true, 0, 1.0 },
		{ "enabled 0, running",	{ 42, 0, 7, 0 }, true, 42, 1.0 },
		{ "running > enabled",	{ 100, 10, 20, 0 }, true, 100, 1.0 },
		/* split rounding: unrun at or past enabled is not an estimate */
		{ "unrun == enabled",	{ 100, 10, 5, 10 }, true, 100, 0.5 },
		{ "unrun > enabled",	{ 100, 10, 5, 11 }, true, 100, 0.5 },
		/* counter * enabled = 2^80: u64 multiplication would wrap */
		{ "2^40 x 2^40 / 2^39",	{ 1ULL << 40, 1ULL << 40, 1ULL << 39,
					  1ULL << 39 }, true, 2199023255552.0, 0.5 },
		{ "near 2^63, x1.5",	{ 1ULL << 62, 3000000000000000000ULL,
					  2000000000000000000ULL,
					  1000000000000000000ULL },
					true, 6917529027641081856.0,
					2.0 / 3.0 },
	};
	double value, ratio;
	size_t k;
	bool ok;

	(void)state;
	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		value = -1;
		ratio = -1;
		ok = count__scaled(&cases[k].c, &value, &ratio);
		if (ok != cases[k].ok || ratio != cases[k].ratio ||
		    (ok && value != cases[k].value))
			print_message("case '%s'\n", cases[k].what);
		assert_int_equal(ok, cases[k].ok);
		assert_true(fabs(ratio - cases[k].ratio) < 1e-12);
		if (ok)
			assert_true(fabs(value - cases[k].value) <=
				    cases[k].value * 1e-15);
	}
	/* either output may be omitted */
	assert_true(count__scaled(&cases[0].c, NULL, NULL));
	assert_false(count__scaled(&cases[7].c, &value, NULL));
}

static void test_scaled_u64(void **state)
{
	static const struct {
		const char *what;
		struct emon_count c;
		bool ok;
		__u64 want;
	} cases[] = {
		{ "exact above 2^53",	{ (1ULL << 53) + 1, 7, 7, 0 }, true,
					(1ULL << 53) + 1 },
		/* scaled in BPF, nothing left to estimate: exact too */
		{ "exact, multiplexed",	{ (1ULL << 53) + 1, 7, 3, 0 }, true,
					(1ULL << 53) + 1 },
		{ "U64_MAX unscaled",	{ U64_MAX, 0, 0, 0 }, true, U64_MAX },
		{ "rounds half up",	{ 3, 3, 2, 1 }, true, 5 },	/* 4.5 */
		{ "rounds down",	{ 10, 3, 2, 1 }, true, 15 },
		{ "rounds 1/3",		{ 1, 3, 1, 2 }, true, 3 },
		{ "2^40 x 2^40 / 2^39",	{ 1ULL << 40, 1ULL << 40, 1ULL << 39,
					  1ULL << 39 }, true, 1ULL << 41 },
		{ "overflow saturates",	{ U64_MAX, 2, 1, 1 }, true, U64_MAX },
		{ "never ran",		{ 5, 100, 0, 100 }, false, 0 },
	};
	size_t k;
	__u64 v;
	bool ok;

	(void)state;
	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		v = 12345;
		ok = count__scaled_u64(&cases[k].c, &v);
		if (ok != cases[k].ok || v != cases[k].want)
			print_message("case '%s'\n", cases[k].what);
		assert_int_equal(ok, cases[k].ok);
		assert_int_equal(v, cases[k].want);
	}
}

static void test_metric_ratio(void **state)
{
	static const struct {
		double a, b, want;	/* want NAN: not computable */
	} cases[] = {
		{ 6, 3, 2 },
		{ 0, 5, 0 },
		{ 2.5e9, 1e9, 2.5 },
		{ 1, 0, NAN },
		{ 0, 0, NAN },
		{ NAN, 1, NAN },
		{ 1, NAN, NAN },
	};
	size_t k;
	double r;

	(void)state;
	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		r = metric__ratio(cases[k].a, cases[k].b);
		if (isnan(cases[k].want))
			assert_true(isnan(r));
		else
			assert_true(fabs(r - cases[k].want) < 1e-12);
	}
}

static void test_scope_parse(void **state)
{
	static const struct {
		const char *s;
		int want;
	} cases[] = {
		{ "system", SCOPE_SYSTEM },
		{ "cpu", SCOPE_CPU },
		{ "socket", SCOPE_SOCKET },
		{ "cgroup", SCOPE_CGROUP },
		{ "container", SCOPE_CONTAINER },
		{ "process", SCOPE_PROCESS },
		{ "command", SCOPE_COMMAND },
		{ "unknown", -1 },
		{ "", -1 },
		{ "CPU", -1 },
		{ "cgroups", -1 },
		{ "cg", -1 },
		{ "cpu ", -1 },
		{ NULL, -1 },
	};
	size_t k;
	int s;

	(void)state;
	for (k = 0; k < ARRAY_SIZE(cases); k++)
		assert_int_equal(scope__parse(cases[k].s), cases[k].want);
	for (s = 0; s < SCOPE_NR; s++)
		assert_int_equal(scope__parse(scope__name(s)), s);
	assert_string_equal(scope__name(SCOPE_NR), "unknown");
	assert_string_equal(scope__name((enum scope)-1), "unknown");
}

static void test_clock_deficit(void **state)
{
	static const struct {
		const char *what;
		__u64 clock[3];		/* ns counted, event 1 */
		double dt[3];		/* s between reads */
		int want_cpu;
		double want;
	} cases[] = {
		{ "all counted",	{ 1000000000, 500000000, 0 }, { 1.0, 0.5, 0 }, 0, 0 },
		{ "cpu1 stopped 12%",	{ 1000000000, 880000000, 0 }, { 1.0, 1.0, 0 }, 1, 0.12 },
		{ "worst of two",	{ 950000000, 900000000, 990000000 }, { 1.0, 1.0, 1.0 }, 1, 0.10 },
		{ "offline: not known",	{ 0, 0, 0 }, { 0, 0, 0 }, -1, 0 },
		{ "under 10 ms: left out", { 0, 1000000000, 0 }, { 0.005, 1.0, 0 }, 1, 0 },
		{ "a late read: over", { 1010000000, 0, 0 }, { 1.0, 0, 0 }, 0, -0.01 },
		{ "NaN dt: left out",	{ 0, 0, 0 }, { NAN, 0, 0 }, -1, 0 },
	};
	struct counts cpu[3];
	size_t k;
	int worst;

	(void)state;
	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		double got;

		memset(cpu, 0, sizeof(cpu));
		for (int i = 0; i < 3; i++)
			cpu[i].c[1].counter = cases[k].clock[i];
		got = clock__deficit(cpu, 1, cases[k].dt, 3, &worst);
		if (worst != cases[k].want_cpu || fabs(got - cases[k].want) > 1e-9)
			fail_msg("%s: cpu %d, %g; want cpu %d, %g", cases[k].what,
				 worst, got, cases[k].want_cpu, cases[k].want);
	}
}

static void add(struct emon_count *sum, __u64 counter, __u64 enabled, __u64 running)
{
	struct emon_count d = { .counter = counter, .enabled = enabled, .running = running };

	emon_scale__slice(&d);
	sum->counter += d.counter;
	sum->enabled += d.enabled;
	sum->running += d.running;
	sum->unrun += d.unrun;
}

/*
 * A key's estimate is its slices' count over their running time, times
 * their enabled time, as perf's over a window: a slice in which the event
 * ran only a short, unlike part (a switch's kernel-mode tail) weighs that
 * part's time, not the slice's. Two slices of 1000 ns: one ran all of it
 * (1000 counted), one only 10 ns (50 counted, a busier tail): 1050 over
 * 1010 ns of 2000, 2079; each slice scaled by its own running time would
 * give 1000 + 5000.
 */
static void test_key(void **state)
{
	struct emon_count sum = {};
	double v, ratio;

	(void)state;
	add(&sum, 1000, 1000, 1000);
	add(&sum, 50, 1000, 10);
	assert_true(count__scaled(&sum, &v, &ratio));
	assert_int_equal((__u64)v, 2079);
	assert_true(ratio > 0.504 && ratio < 0.506);
	/* unmultiplexed: the count as is */
	sum = (struct emon_count){};
	add(&sum, 1000, 1000, 1000);
	add(&sum, 7, 20, 20);
	assert_true(count__scaled(&sum, &v, &ratio));
	assert_int_equal((__u64)v, 1007);
	assert_true(ratio == 1.0);
}

/*
 * Windows (reads) of one key, each estimated on its own and then summed
 * (counts__window): the total never falls, where the estimate over raw
 * sums does when the key's running share rises. Window 1: 100 counted in
 * 10 of 1000 ns (estimate 10,000); window 2: 1000 in 1000 of 1000. Raw
 * sums give 1100 * 2000 / 1010 = 2178, below window 1's 10,000; folded,
 * 10,000 then 11,000. A window that never ran keeps unrun, estimated from
 * the others: + 1000 ns of nothing gives 11,000 * 3000 / 2000 = 16,500.
 */
static void test_window(void **state)
{
	struct emon_count w[3] = {
		{ .counter = 100, .enabled = 1000, .running = 10, .unrun = 990 },
		{ .counter = 1000, .enabled = 1000, .running = 1000 },
		{ .counter = 0, .enabled = 1000, .running = 0, .unrun = 1000 },
	};
	struct emon_count raw = {}, sum = {};
	double v, prev = 0;

	(void)state;
	for (int i = 0; i < 2; i++) {
		raw.counter += w[i].counter, raw.enabled += w[i].enabled;
		raw.running += w[i].running, raw.unrun += w[i].unrun;
	}
	assert_true(count__scaled(&raw, &v, NULL));
	assert_int_equal((__u64)(v + 0.5), 2178);
	for (int i = 0; i < 3; i++) {
		struct emon_count c = w[i];

		counts__window(&c, 1);
		sum.counter += c.counter, sum.enabled += c.enabled;
		sum.running += c.running, sum.unrun += c.unrun;
		assert_true(count__scaled(&sum, &v, NULL));
		assert_true(v >= prev);
		prev = v;
		if (i == 0)
			assert_int_equal(c.counter, 10000);
	}
	assert_int_equal(sum.counter, 11000);
	assert_int_equal(sum.unrun, 1000);
	assert_int_equal((__u64)(v + 0.5), 16500);
	/* unmultiplexed and never-ran windows are left as they are */
	w[1].unrun = 0;
	counts__window(&w[1], 1);
	assert_int_equal(w[1].counter, 1000);
	counts__window(&w[2], 1);
	assert_int_equal(w[2].unrun, 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delta),
		cmocka_unit_test(test_delta_nr_bounds),
		cmocka_unit_test(test_add),
		cmocka_unit_test(test_is_zero),
		cmocka_unit_test(test_sched_shares_block),
		cmocka_unit_test(test_scaled),
		cmocka_unit_test(test_scaled_u64),
		cmocka_unit_test(test_key),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_metric_ratio),
		cmocka_unit_test(test_scope_parse),
		cmocka_unit_test(test_clock_deficit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
