// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * stat -M: every formula of the table on known inputs, what a missing
 * input makes of it (<not supported> names the event, <not counted>,
 * never 0), zero denominators; the events -M adds to a list; a metric
 * of a row from its scaled counts, a group's members scaled by their
 * leader's one enabled/running pair.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "front/output_formula.h"
#include "helpers.h"

#define OK(v) { FORMULA_OK, (v) }
#define NS { FORMULA_NOT_SUPPORTED, 0 }
#define NC { FORMULA_NOT_COUNTED, 0 }

struct formula_case {
	const char *name, *metric;
	struct formula_input in[FORMULA_MAX_INPUTS];
	double dt, energy_j;	/* energy NAN: no energy source */
	enum formula_state state;
	double want;		/* FORMULA_OK: within 1e-9 relative */
	const char *why;	/* not supported: names this */
};

static const struct formula_case formula_cases[] = {
	{ "IPC", "IPC", { OK(3e9), OK(2e9) }, 1, NAN, FORMULA_OK, 1.5 },
	{ "CPI", "cpi", { OK(2e9), OK(4e9) }, 1, NAN, FORMULA_OK, 0.5 },
	{ "frequency", "frequency", { OK(3e9), OK(1e9) }, 1, NAN, FORMULA_OK, 3.0 },
	{ "branch misses", "branch_miss_rate", { OK(25), OK(1000) }, 1, NAN,
	  FORMULA_OK, 2.5 },
	{ "cache misses", "cache_miss_rate", { OK(1), OK(8) }, 1, NAN,
	  FORMULA_OK, 12.5 },
	{ "L1 misses", "L1_miss_rate", { OK(5), OK(50) }, 1, NAN, FORMULA_OK, 10 },
	{ "LLC misses", "LLC_miss_rate", { OK(3), OK(4) }, 1, NAN, FORMULA_OK, 75 },
	{ "CPUs utilized", "CPUs_utilized", { OK(3e9) }, 2, NAN, FORMULA_OK, 1.5 },
	{ "watts", "W", {}, 0.5, 20, FORMULA_OK, 40 },
	{ "nJ per insn", "J_per_insn", { OK(4e9) }, 1, 2, FORMULA_OK, 0.5 },

	/* an input the PMU cannot count: <not supported>, naming it */
	{ "IPC no cycles", "IPC", { OK(3e9), NS }, 1, NAN,
	  FORMULA_NOT_SUPPORTED, NAN, "cycles" },
	{ "IPC no instructions", "IPC", { NS, NC }, 1, NAN,
	  FORMULA_NOT_SUPPORTED, NAN, "instructions" },
	{ "LLC none", "LLC_miss_rate", { NS, NS }, 1, NAN,
	  FORMULA_NOT_SUPPORTED, NAN, "LLC-load-misses" },
	{ "watts no energy", "W", {}, 1, NAN, FORMULA_NOT_SUPPORTED, NAN,
	  "no energy source" },
	{ "J/insn no energy", "J_per_insn", { OK(1e9) }, 1, NAN,
	  FORMULA_NOT_SUPPORTED, NAN, "no energy source" },
	{ "J/insn no insn", "J_per_insn", { NS }, 1, 3, FORMULA_NOT_SUPPORTED,
	  NAN, "instructions" },

	/* did not run, or nothing to divide by: not counted, never 0 */
	{ "IPC not counted", "IPC", { NC, OK(1) }, 1, NAN, FORMULA_NOT_COUNTED },
	{ "IPC 0 cycles", "IPC", { OK(10), OK(0) }, 1, NAN, FORMULA_NOT_COUNTED },
	{ "CPI 0 insn", "CPI", { OK(10), OK(0) }, 1, NAN, FORMULA_NOT_COUNTED },
	{ "0 branches", "branch_miss_rate", { OK(0), OK(0) }, 1, NAN,
	  FORMULA_NOT_COUNTED },
	{ "0 interval", "CPUs_utilized", { OK(1e6) }, 0, NAN, FORMULA_NOT_COUNTED },
	{ "frequency 0 time", "frequency", { OK(5), OK(0) }, 1, NAN,
	  FORMULA_NOT_COUNTED },
	{ "watts no reading", "W", {}, 1, NAN, FORMULA_NOT_COUNTED },
	{ "0 misses", "cache_miss_rate", { OK(0), OK(9) }, 1, NAN, FORMULA_OK, 0 },
};

static void test_formula(void **state)
{
	const struct formula_case *c = *state;
	const struct formula_def *m = formula__find(c->metric);
	struct formula_row r = {
		.dt = c->dt,
		/* "no reading" has a source whose reading failed */
		.has_energy = !isnan(c->energy_j) || !strcmp(c->name, "watts no reading"),
		.energy_j = c->energy_j,
	};
	struct formula_value v;

	assert_non_null(m);
	formula__compute(m, c->in, &r, &v);
	print_message("%s: state %d value %g why %s\n", c->name, v.state,
		      v.value, v.why ? v.why : "-");
	assert_int_equal(v.state, c->state);
	if (c->state == FORMULA_OK)
		assert_true(fabs(v.value - c->want) <= 1e-9 * fabs(c->want));
	else
		assert_true(isnan(v.value));
	if (c->why)
		assert_non_null(strstr(v.why, c->why));
}

/* Every metric of the table has a case above, and a unit and formula. */
static void test_every_metric_tested(void **state)
{
	(void)state;
	for (size_t i = 0; i < nr_formula_defs; i++) {
		bool found = false;

		for (size_t k = 0; k < ARRAY_SIZE(formula_cases); k++)
			found |= formula__find(formula_cases[k].metric) == &formula_defs[i] &&
				 formula_cases[k].state == FORMULA_OK;
		if (!found)
			fail_msg("metric %s has no formula case", formula_defs[i].name);
		assert_true(*formula_defs[i].unit && *formula_defs[i].formula);
	}
}

/* ---- the events -M adds ---- */

struct parse_case {
	const char *name, *events, *metrics;
	int ret, nr;
	const char *want;	/* the event list afterwards */
};

static const struct parse_case parse_cases[] = {
	{ "group", "", "IPC", 0, 1, "{instructions,cycles}" },
	{ "dedup", "cpu-clock", "IPC,CPI,ipc", 0, 2, "cpu-clock,{instructions,cycles}" },
	{ "half there", "cycles", "IPC", 0, 1, "cycles,instructions" },
	{ "no group", "", "frequency", 0, 1, "cycles,cpu-clock" },
	{ "in a group", "{cycles,instructions}", "CPI", 0, 1, "{cycles,instructions}" },
	{ "software", "cpu-clock", "CPUs_utilized,W", 0, 2, "cpu-clock" },
	{ "modifier", "cycles:u", "frequency", 0, 1, "cycles:u,cycles,cpu-clock" },
	{ "unknown", "", "IPC,nope", -EINVAL, 1, "{instructions,cycles}" },
	{ "empty", "", "", -EINVAL, 0, "" },
};

static void test_parse(void **state)
{
	const struct parse_case *c = *state;
	const struct formula_def *defs[FORMULA_MAX];
	char events[256];
	int nr = 0;

	snprintf(events, sizeof(events), "%s", c->events);
	assert_int_equal(formulas__parse(c->metrics, events, sizeof(events),
					 defs, &nr), c->ret);
	assert_int_equal(nr, c->nr);
	assert_string_equal(events, c->want);
}

static void test_parse_full(void **state)
{
	const struct formula_def *defs[FORMULA_MAX];
	char events[16] = "cpu-clock";
	int nr = 0;

	(void)state;
	assert_int_equal(formulas__parse("IPC", events, sizeof(events), defs, &nr),
			 -E2BIG);
	assert_string_equal(events, "cpu-clock");
}

/* ---- a row's metric, from its scaled counts ---- */

static void output__init(struct output *o, const struct formula_def **defs)
{
	static const char *names[] = { "cycles", "instructions", "cpu-clock" };

	memset(o, 0, sizeof(*o));
	o->nr_events = 3;
	for (int i = 0; i < 3; i++) {
		o->ev[i].name = names[i];
		o->ev[i].supported = true;
		o->ev[i].bpf_idx = i;
		o->ev[i].lead_idx = -1;
	}
	o->ev[2].is_time = true;
	defs[0] = formula__find("IPC");
	defs[1] = formula__find("CPUs_utilized");
	o->metrics = defs;
	o->nr_metrics = 2;
}

static void test_row_metric(void **state)
{
	const struct formula_def *defs[2];
	struct output o;
	struct row r = { .scope = SCOPE_CGROUP, .key = "/a" };
	struct formula_value v;

	(void)state;
	output__init(&o, defs);
	/* cycles' slices scaled in BPF to 4e9, and half its enabled time in
	 * slices it never ran: estimated as 8e9; instructions 6e9 */
	r.counts.c[0] = (struct emon_count){ 4000000000, 100, 25, 50 };
	r.counts.c[1] = (struct emon_count){ 6000000000, 100, 100, 0 };
	r.counts.c[2] = (struct emon_count){ 500000000, 0, 0, 0 };
	row__metric(&o, &r, 0.25, defs[0], &v);
	assert_int_equal(v.state, FORMULA_OK);
	assert_true(fabs(v.value - 0.75) < 1e-9);
	row__metric(&o, &r, 0.25, defs[1], &v);
	assert_true(fabs(v.value - 2.0) < 1e-9);
	assert_ptr_equal(output__metric_at(&o, 1), defs[0]);
	assert_ptr_equal(output__metric_at(&o, 2), defs[1]);
	assert_null(output__metric_at(&o, 0));

	/* in one group, instructions is estimated with cycles' times and
	 * unrun slices: 1.2e10 */
	o.ev[1].grouped = true;
	o.ev[1].lead_idx = 0;
	row__metric(&o, &r, 0.25, defs[0], &v);
	assert_true(fabs(v.value - 1.5) < 1e-9);

	/* cycles not supported: IPC is, whatever instructions counted */
	o.ev[0].supported = false;
	row__metric(&o, &r, 0.25, defs[0], &v);
	assert_int_equal(v.state, FORMULA_NOT_SUPPORTED);
	assert_string_equal(v.why, "cycles");
	/* never ran (enabled 0 and a count of 0): not counted */
	o.ev[0].supported = true;
	r.counts.c[0] = (struct emon_count){ 0, 100, 0, 100 };
	row__metric(&o, &r, 0.25, defs[0], &v);
	assert_int_equal(v.state, FORMULA_NOT_COUNTED);
}

/* The formats' words for each state */
static void test_format(void **state)
{
	struct formula_value v = { FORMULA_OK, 1.23456, NULL };
	char buf[32];

	(void)state;
	formula_value__format(&v, 2, buf, sizeof(buf));
	assert_string_equal(buf, "1.23");
	v.state = FORMULA_NOT_SUPPORTED;
	formula_value__format(&v, 2, buf, sizeof(buf));
	assert_string_equal(buf, "<not supported>");
	v.state = FORMULA_NOT_COUNTED;
	formula_value__format(&v, 2, buf, sizeof(buf));
	assert_string_equal(buf, "<not counted>");
}

int main(void)
{
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_every_metric_tested),
		cmocka_unit_test(test_parse_full),
		cmocka_unit_test(test_row_metric),
		cmocka_unit_test(test_format),
	};
	const struct CMUnitTest none[] = {};

	return run_tests_and_cases(fixed, test_formula, formula_cases, name) |
	       run_tests_and_cases(none, test_parse, parse_cases, name);
}
