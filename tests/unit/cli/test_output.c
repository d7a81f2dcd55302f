// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Output formats rendered into memory: perf-like text (exact lines) and
 * what every format shares; CSV in test_output_csv.c, JSON lines in
 * test_output_json.c.
 */
#include "output_fix.h"

/* ---- text ---- */

static void test_text_exact(void **state)
{
	static const char want[] =
		"\n"
		" Performance counter stats for 'system wide':\n"
		"\n"
		"          2,000.00 msec cpu-clock                        #    2.000 CPUs utilized\n"
		"         1,234,567      context-switches                 #  617.284 K/sec\n"
		"   <not supported>      cycles\n"
		"\n"
		"       1.000000000 seconds time elapsed\n"
		"\n";
	struct output o;
	struct row r;
	char *out;

	(void)state;
	output__setup(&o, &output_text_ops);
	row__setup(&r, SCOPE_SYSTEM, "all", 2 * SEC, 1234567);
	out = render(&o, 1.0, 1.0, &r, 1, 1.0);
	assert_string_equal(out, want);
	assert_int_equal(o.rows_printed, 1);
	free(out);
}

static void test_text_numbers(void **state)
{
	static const struct {
		int ev;
		__u64 value;
		const char *want;
	} cases[] = {
		{ EV_CS, 0, "                 0      context-switches" },
		{ EV_CS, 999, "               999      context-switches" },
		{ EV_CS, 1000, "             1,000      context-switches" },
		{ EV_CS, 1234567890123ULL,
		  " 1,234,567,890,123      context-switches" },
		{ EV_CS, UINT64_MAX,
		  "18,446,744,073,709,551,615      context-switches" },
		{ EV_CLOCK, 0, "              0.00 msec cpu-clock" },
		{ EV_CLOCK, 999999, "              1.00 msec cpu-clock" },
		{ EV_CLOCK, 1234567891ULL, "          1,234.57 msec cpu-clock" },
		{ EV_CLOCK, 3600 * SEC, "      3,600,000.00 msec cpu-clock" },
	};
	struct row r;
	size_t k;
	char *out;

	(void)state;
	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		row__setup(&r, SCOPE_SYSTEM, "all", SEC, 1);
		/* enabled == 0: the raw counter, unscaled and exact */
		r.counts.c[cases[k].ev] =
			(struct emon_count){ cases[k].value, 0, 0 };
		out = render_text(&r, 1.0);
		if (!strstr(out, cases[k].want))
			print_message("want '%s' in:\n%s", cases[k].want, out);
		assert_non_null(strstr(out, cases[k].want));
		free(out);
	}
}

static void test_text_states(void **state)
{
	static const struct line_want lines[] = {
		{ "CPU1" },
		{ "   2,000      context-switches",
		  { "#    2.000 K/sec", "  (50.00%)" } },
		{ "<not counted>      context-switches", { "CPU1", "(0.00%)" } },
		/* 100% running shows no percentage */
		{ "cpu-clock", .has_not = "%)" },
	};
	struct output o;
	struct row r[2];
	char *out;

	(void)state;
	output__setup(&o, &output_text_ops);
	o.interval_mode = true;
	row__setup(&r[0], SCOPE_SYSTEM, "all", SEC, 0);
	/* multiplexed: ran half its enabled time; BPF scaled its slices'
	 * 1000 counted to 2000, and the share is still shown */
	r[0].counts.c[1] = (struct emon_count){ 2000, 200, 100, 0 };
	row__setup(&r[1], SCOPE_CPU, "1", SEC, 0);
	/* enabled but never running: not counted, never 0 */
	r[1].counts.c[1] = (struct emon_count){ 0, 500, 0 };
	out = render(&o, 1.0, 1.0, r, 2, 1.0);

	lines__check(out, lines, ARRAY_SIZE(lines));
	assert_int_equal(str__count(out, "   <not supported>      cycles"), 2);
	/* no line ends in a blank */
	assert_null(strstr(out, " \n"));
	assert_int_equal(o.rows_printed, 2);
	free(out);
}

static void test_text_cpus_utilized(void **state)
{
	static const struct {
		__u64 ns;
		double dt;
		struct line_want want;
	} cases[] = {
		{ 2 * SEC, 1.0, { "cpu-clock", { "#    2.000 CPUs utilized" } } },
		{ 3 * SEC / 2, 0.5, { "cpu-clock", { "#    3.000 CPUs utilized" } } },
		{ SEC / 1000, 1.0, { "cpu-clock", { "#    0.001 CPUs utilized" } } },
		{ 0, 1.0, { "cpu-clock", { "#    0.000 CPUs utilized" } } },
		/* no duration, no rate: no metric */
		{ SEC, 0.0, { "cpu-clock", .has_not = "#" } },
	};
	struct row r;
	size_t k;
	char *out;

	(void)state;
	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		row__setup(&r, SCOPE_SYSTEM, "all", cases[k].ns, 0);
		out = render_text(&r, cases[k].dt);
		lines__check(out, &cases[k].want, 1);
		free(out);
	}
}

static void test_text_keys(void **state)
{
	static const struct {
		struct row r;
		const char *want;	/* NULL: the key nowhere */
		bool lead;		/* perf's aggregations lead the line */
	} cases[] = {
		{ { .scope = SCOPE_CPU, .key = "3" }, "CPU3 ", true },
		{ { .scope = SCOPE_SOCKET, .key = "0", .nr_cpus = 2 }, "S0        2 ", true },
		{ { .scope = SCOPE_CGROUP, .key = "/system.slice/a b" },
		  " /system.slice/a b " },
		{ { .scope = SCOPE_PROCESS, .key = "1234", .comm = "bash" },
		  " pid 1234 (bash) " },
		{ { .scope = SCOPE_PROCESS, .key = "77" }, " pid 77 " },
		{ { .scope = SCOPE_CONTAINER, .key = "3f2a", .runtime = "docker" },
		  " 3f2a (docker) " },
		{ { .scope = SCOPE_CONTAINER, .key = "9c", .runtime = "containerd",
		    .pod_uid = "u-1" }, " 9c (containerd, pod u-1) " },
		/* names from the runtime's files: Kubernetes' first, control
		 * bytes never raw on a terminal */
		{ { .scope = SCOPE_CONTAINER, .key = "9d", .runtime = "containerd",
		    .pod_uid = "u-2", .name = "n", .ns = "kv", .pod = "cache-0",
		    .container = "redis" }, " 9d kv/cache-0/redis (containerd, pod u-2) " },
		{ { .scope = SCOPE_CONTAINER, .key = "3f2b", .runtime = "docker",
		    .name = "we\033[2Jb" }, " 3f2b we?[2Jb (docker) " },
		{ { .scope = SCOPE_PROCESS, .key = "overflow", .comm = "[map full]" },
		  " overflow ([map full]) " },
		/* a command row is the target of the header line: no key
		 * column */
		{ { .scope = SCOPE_COMMAND, .key = "4242" }, NULL },
	};
	struct row r;
	char line[512];
	size_t k;

	(void)state;
	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		r = cases[k].r;
		r.counts.c[0] = (struct emon_count){ SEC, SEC, SEC };
		render_line(&r, "msec cpu-clock", line, sizeof(line));
		if (!cases[k].want) {
			assert_null(strstr(line, r.key));
			continue;
		}
		/* perf's aggr_printout(): CPU3, 'S0        2' first */
		if (cases[k].lead) {
			if (strncmp(line, cases[k].want, strlen(cases[k].want)))
				print_message("want '%s' leading '%s'\n", cases[k].want, line);
			assert_int_equal(strncmp(line, cases[k].want, strlen(cases[k].want)), 0);
			continue;
		}
		/* the key follows the event name, as perf -G prints it */
		if (!strstr(line, cases[k].want))
			print_message("want '%s' in '%s'\n", cases[k].want,
				      line);
		assert_non_null(strstr(line, cases[k].want));
		assert_true(strstr(line, cases[k].want) > strstr(line, "cpu-clock"));
	}
}

static void test_text_interval_header(void **state)
{
	static const struct {
		unsigned int scopes;
		const char *want;
	} cases[] = {
		{ 0, "#           time             counts unit events\n" },
		{ 1u << SCOPE_SYSTEM,
		  "#           time             counts unit events\n" },
		{ 1u << SCOPE_SYSTEM | 1u << SCOPE_CGROUP,
		  "#           time             counts unit events"
		  "                           cgroup\n" },
		{ 1u << SCOPE_CPU | 1u << SCOPE_CGROUP,
		  "#           time             counts unit events"
		  "                           key\n" },
	};
	struct output o;
	struct row r;
	char *out, *second;
	size_t k;

	(void)state;
	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		output__setup(&o, &output_text_ops);
		o.interval_mode = true;
		o.scopes = cases[k].scopes;
		row__setup(&r, SCOPE_SYSTEM, "all", SEC / 2, 10);
		out = render(&o, 1.5, 0.5, &r, 1, 1.5);
		assert_memory_equal(out, cases[k].want, strlen(cases[k].want));
		second = out + strlen(cases[k].want);
		assert_string_equal(second,
			"     1.500000000             500.00 msec cpu-clock                        #    1.000 CPUs utilized\n"
			"     1.500000000                 10      context-switches                 #   20.000 /sec\n"
			"     1.500000000    <not supported>      cycles\n");
		free(out);
	}
}

static void test_text_ipc_energy(void **state)
{
	static const struct line_want lines[] = {
		{ "instructions", { "#    2.50  insn per cycle" } },
		{ "cycles ", { "#    2.000 GHz" } },
		{ "12.50 J    energy (estimated)", { "#   12.490 Watts" } },
	};
	struct output o;
	struct row r[2];
	char *out;

	(void)state;
	output__setup(&o, &output_text_ops);
	output__add_hw(&o);
	o.energy_source = "model";
	o.split_by = "cycles";
	o.energy_estimated = true;
	rows__energy(r, 5);
	out = render(&o, 1.0, 1.0, r, 2, 1.0);
	lines__check(out, lines, ARRAY_SIZE(lines));
	/* 12.5 J over 5e9 instructions */
	assert_int_equal(str__count(out, "#    2.500 nJ/instr"), 2);
	assert_int_equal(str__count(out, "energy split by cycles"), 1);
	assert_non_null(strstr(out, "energy source model (estimated)"));
	assert_int_equal(o.rows_printed, 2);
	free(out);
}

static void test_text_elapsed(void **state)
{
	static const char want[] = "\n      12.345678900 seconds time elapsed\n\n";
	struct output o;
	char *out;
	size_t len;

	(void)state;
	output__setup(&o, &output_text_ops);
	out = render(&o, 12.3456789, 12.3456789, NULL, 0, 12.3456789);
	len = strlen(out);
	assert_true(len >= strlen(want));
	assert_string_equal(out + len - strlen(want), want);
	free(out);

	o.interval_mode = true;	/* -I: perf prints no footer */
	out = render(&o, 1.0, 1.0, NULL, 0, 1.0);
	assert_null(strstr(out, "elapsed"));
	assert_null(strstr(out, "Performance counter stats"));
	free(out);
}

static void test_text_repeat(void **state)
{
	static const struct line_want want[] = {
		{ "Performance counter stats for", { "(3 runs):" } },
		{ "cpu-clock", { "( +-  1.50% )" } },
		{ "context-switches", { "" }, "( +-" },
		{ "seconds time elapsed", { "   1.00000 +- 0.00200 seconds time elapsed",
					    "( +-  0.20% )" } },
	};
	char *out = render_repeat(&output_text_ops);

	(void)state;
	lines__check(out, want, ARRAY_SIZE(want));
	free(out);
}

/* ---- shared ---- */

static void test_event_index_metrics(void **state)
{
	static const struct {
		const char *cycles, *ins;
		bool cycles_ok;
		double ipc;
	} cases[] = {
		{ "cycles", "instructions", true, 2.5 },
		{ "cpu-cycles", "instructions:u", true, 2.5 },
		{ "cycles:k", "instructions", true, 2.5 },
		{ "cyclesx", "instructions", false, NAN },
		{ "ref-cycles", "instructions", false, NAN },
	};
	struct row_metrics m;
	struct output o;
	struct row r;
	size_t k;

	(void)state;
	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		output__setup(&o, &output_json_ops);
		output__add_hw(&o);
		o.ev[EV_CYCLES].name = cases[k].cycles;
		o.ev[EV_INS].name = cases[k].ins;
		row__setup(&r, SCOPE_SYSTEM, "all", SEC, 1);
		row__add_hw(&r);
		assert_int_equal(output__event_index(&o, cases[k].cycles),
				 EV_CYCLES);
		assert_int_equal(output__cycles_index(&o),
				 cases[k].cycles_ok ? EV_CYCLES : -1);
		row__metrics(&o, &r, &m);
		if (isnan(cases[k].ipc))
			assert_true(isnan(m.ipc));
		else
			assert_true(fabs(m.ipc - cases[k].ipc) < 1e-12);
		assert_true(isnan(m.epi_nj));	/* no energy on this row */
	}
	assert_int_equal(output__event_index(&o, "nope"), -1);
	assert_int_equal(output__event_index(&o, NULL), -1);
	assert_int_equal(output__time_index(&o), EV_CLOCK);
	o.ev[EV_CLOCK].supported = false;
	assert_int_equal(output__time_index(&o), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_exact),
		cmocka_unit_test(test_text_numbers),
		cmocka_unit_test(test_text_states),
		cmocka_unit_test(test_text_cpus_utilized),
		cmocka_unit_test(test_text_keys),
		cmocka_unit_test(test_text_interval_header),
		cmocka_unit_test(test_text_ipc_energy),
		cmocka_unit_test(test_text_elapsed),
		cmocka_unit_test(test_text_repeat),
		cmocka_unit_test(test_event_index_metrics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
