// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Output formats rendered into memory: perf-like text (exact lines),
 * CSV (columns survive a separator in a key), JSON lines (parsed back with
 * json-c against the DESIGN.md contract).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "cli/output.h"
#include "helpers.h"

enum { EV_CLOCK, EV_CS, EV_CYCLES, EV_INS };

/* cpu-clock, context-switches, cycles (not supported: a VM). */
static void output__setup(struct output *o, const struct output_ops *ops)
{
	memset(o, 0, sizeof(*o));
	o->ops = ops;
	o->sep = ",";
	o->target = "system wide";
	o->ncpus = 4;
	o->nr_events = 3;
	o->ev[EV_CLOCK] = (struct row_event){ "cpu-clock", true, true, 0 };
	o->ev[EV_CS] = (struct row_event){ "context-switches", true, false, 1 };
	o->ev[EV_CYCLES] = (struct row_event){ "cycles", false, false, -1 };
}

/* A PMU machine: cycles and instructions counted too. */
static void output__add_hw(struct output *o)
{
	o->nr_events = 4;
	o->ev[EV_CYCLES] = (struct row_event){ "cycles", true, false, 2 };
	o->ev[EV_INS] = (struct row_event){ "instructions", true, false, 3 };
}

static void row__setup(struct row *r, enum scope scope, const char *key,
		       __u64 clock_ns, __u64 cs)
{
	memset(r, 0, sizeof(*r));
	r->scope = scope;
	r->key = key;
	r->counts.c[0] = (struct emon_count){ clock_ns, clock_ns, clock_ns };
	r->counts.c[1] = (struct emon_count){ cs, clock_ns, clock_ns };
}

/* cycles 2e9, instructions 5e9, in a second's run: 2 GHz, 2.5 per cycle */
static void row__add_hw(struct row *r)
{
	r->counts.c[2] = (struct emon_count){ 2 * SEC, SEC, SEC };
	r->counts.c[3] = (struct emon_count){ 5 * SEC, SEC, SEC };
}

/* r[0] the system with the hardware counts and energy (12.5 J, 12.49 W),
 * r[1] the same as cgroup /a. */
static void rows__energy(struct row *r, __u64 cs)
{
	row__setup(&r[0], SCOPE_SYSTEM, "all", SEC, cs);
	row__add_hw(&r[0]);
	r[0].has_energy = true;
	r[0].energy_j = 12.5;
	r[0].power_w = 12.49;
	r[1] = r[0];
	r[1].scope = SCOPE_CGROUP;
	r[1].key = "/a";
}

/* begin, one interval, end into a string the caller frees. */
static char *render(struct output *o, double t, double dt,
		    const struct row *rows, int n, double elapsed)
{
	char *buf = NULL;
	size_t len = 0;

	o->f = open_memstream(&buf, &len);
	assert_non_null(o->f);
	o->ops->begin(o);
	o->ops->interval(o, t, dt, rows, n);
	o->ops->end(o, elapsed);
	fclose(o->f);
	o->f = NULL;
	return buf;
}

static int str__count(const char *s, const char *what)
{
	int n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

/* The line of out that contains what, copied into line. */
static bool line__find(const char *out, const char *what, char *line,
		       size_t size)
{
	const char *p = strstr(out, what), *start, *end;

	if (!p)
		return false;
	for (start = p; start > out && start[-1] != '\n'; start--)
		;
	end = strchr(p, '\n');
	if (!end)
		end = p + strlen(p);
	snprintf(line, size, "%.*s", (int)(end - start), start);
	return true;
}

/* A line of out that has line, with has in it and not has_not (NULL:
 * nothing to check). */
struct line_want {
	const char *line, *has[2], *has_not;
};

static void lines__check(const char *out, const struct line_want *w,
			 size_t n)
{
	char line[512];

	for (; n--; w++) {
		if (!line__find(out, w->line, line, sizeof(line)))
			fail_msg("no line of '%s' in:\n%s", w->line, out);
		for (size_t i = 0; i < ARRAY_SIZE(w->has) && w->has[i]; i++)
			if (!strstr(line, w->has[i]))
				fail_msg("no '%s' in '%s'", w->has[i], line);
		if (w->has_not && strstr(line, w->has_not))
			fail_msg("'%s' in '%s'", w->has_not, line);
	}
}

/* r alone as text, an interval of dt in a run of 1 s: a string the caller
 * frees. */
static char *render_text(const struct row *r, double dt)
{
	struct output o;

	output__setup(&o, &output_text_ops);
	return render(&o, 1.0, dt, r, 1, 1.0);
}

/* The line of r rendered alone as text that has what. */
static void render_line(const struct row *r, const char *what, char *line,
			size_t size)
{
	char *out = render_text(r, 1.0);

	if (!line__find(out, what, line, size))
		fail_msg("no line of '%s' in:\n%s", what, out);
	free(out);
}

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
	} cases[] = {
		{ { .scope = SCOPE_CPU, .key = "3" }, " CPU3 " },
		{ { .scope = SCOPE_SOCKET, .key = "0" }, " S0 " },
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

/* One system row of a -r 3 run: cpu-clock's spread 1.5%, the others' 0,
 * the elapsed time's standard deviation 2 ms. */
static char *render_repeat(const struct output_ops *ops)
{
	static const double noise[EMON_MAX_EVENTS] = { 1.5, 0 };
	struct output o;
	struct row r;

	output__setup(&o, ops);
	o.runs = 3;
	o.elapsed_sd = 0.002;
	row__setup(&r, SCOPE_SYSTEM, "all", SEC, 7);
	r.noise = noise;
	return render(&o, 1.0, 1.0, &r, 1, 1.0);
}

/* -r 3: "(3 runs)", each event's spread when not 0, perf's elapsed line */
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

/* ---- CSV ---- */

#define CSV_MAX 16
#define CSV_FIELD 256

/* RFC 4180 split of one line; the number of fields, -1 if malformed. */
static int csv__split(const char *p, const char *sep,
		      char out[CSV_MAX][CSV_FIELD])
{
	size_t seplen = strlen(sep), len;
	int n = 0;

	for (;;) {
		if (n == CSV_MAX)
			return -1;
		len = 0;
		if (*p == '"') {
			for (p++; !(*p == '"' && p[1] != '"'); p++) {
				if (!*p || len + 1 >= CSV_FIELD)
					return -1;
				if (*p == '"')
					p++;
				out[n][len++] = *p;
			}
			p++;
		} else {
			while (*p && strncmp(p, sep, seplen) &&
			       len + 1 < CSV_FIELD)
				out[n][len++] = *p++;
		}
		out[n++][len] = '\0';
		if (!*p)
			return n;
		if (strncmp(p, sep, seplen))
			return -1;
		p += seplen;
	}
}

/* Split every line of out; returns the number of lines. */
static int csv__lines(char *out, const char *sep,
		      char fields[][CSV_MAX][CSV_FIELD], int *nfields, int max)
{
	char *save = NULL, *line;
	int n = 0;

	for (line = strtok_r(out, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		nfields[n] = csv__split(line, sep, fields[n]);
		n++;
	}
	return n;
}

static char csv_fields[32][CSV_MAX][CSV_FIELD];
static int csv_nfields[32];

/* Every line of out split, each with nfields fields: the line count. */
static int csv__check(char *out, const char *sep, int nfields)
{
	int n = csv__lines(out, sep, csv_fields, csv_nfields, 32);

	for (int i = 0; i < n; i++)
		assert_int_equal(csv_nfields[i], nfields);
	return n;
}

static void csv__want(int line, const char *const *want, int nfields)
{
	for (int j = 0; j < nfields; j++) {
		if (strcmp(csv_fields[line][j], want[j]))
			print_message("line %d field %d: '%s', want '%s'\n", line,
				      j, csv_fields[line][j], want[j]);
		assert_string_equal(csv_fields[line][j], want[j]);
	}
}

/* perf 6.1's -x: value,unit,event,run,pct,metric,metric unit */
static void test_csv_columns(void **state)
{
	static const char *const want[][8] = {
		{ "1500.00", "msec", "cpu-clock", "1500000000", "100.00",
		  "0.600", "CPUs utilized" },
		{ "2000", "", "context-switches", "100", "50.00", "1.333",
		  "K/sec" },
		{ "<not supported>", "", "cycles", "0", "100.00", "", "" },
		/* -A: CPU first; not counted: no metric; no time: no rate */
		{ "CPU7", "<not counted>", "msec", "cpu-clock", "0", "100.00",
		  "", "" },
		{ "CPU7", "3", "", "context-switches", "10", "100.00", "", "" },
		{ "CPU7", "<not supported>", "", "cycles", "0", "100.00", "",
		  "" },
	};
	struct output o;
	struct row r[2];
	char *out;
	int n, i;

	(void)state;
	output__setup(&o, &output_csv_ops);
	row__setup(&r[0], SCOPE_SYSTEM, "ignored", 3 * SEC / 2, 0);
	r[0].counts.c[1] = (struct emon_count){ 2000, 200, 100, 0 };	/* scaled in BPF */
	row__setup(&r[1], SCOPE_CPU, "7", 0, 3);
	r[1].counts.c[0] = (struct emon_count){ 0, 100, 0 };
	r[1].counts.c[1] = (struct emon_count){ 3, 10, 10 };
	out = render(&o, 2.5, 2.5, r, 2, 2.5);
	n = csv__lines(out, ",", csv_fields, csv_nfields, 32);
	assert_int_equal(n, (int)ARRAY_SIZE(want));
	for (i = 0; i < n; i++) {
		assert_int_equal(csv_nfields[i], i < 3 ? 7 : 8);
		csv__want(i, want[i], csv_nfields[i]);
	}
	assert_int_equal(o.rows_printed, 2);
	free(out);
}

/* What perf's aggregation flags put first, -I's time before it. */
static void test_csv_aggregation(void **state)
{
	static const struct {
		struct row r;
		const char *head[3];
		int nhead;
	} cases[] = {
		{ { .scope = SCOPE_CPU, .key = "3", .nr_cpus = 1 }, { "CPU3" }, 1 },
		{ { .scope = SCOPE_SOCKET, .key = "1", .nr_cpus = 2 },
		  { "S1", "2" }, 2 },
		{ { .scope = SCOPE_DIE, .key = "S0-D1", .nr_cpus = 4 },
		  { "S0-D1", "4" }, 2 },
		{ { .scope = SCOPE_CORE, .key = "S0-D0-C5", .nr_cpus = 2 },
		  { "S0-D0-C5", "2" }, 2 },
		{ { .scope = SCOPE_PROCESS, .key = "42", .comm = "bash" },
		  { "bash-42" }, 1 },
		{ { .scope = SCOPE_COMMAND, .key = "42" }, { NULL }, 0 },
	};
	struct output o;
	struct row r;
	char *out;

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		const int nf = 1 + cases[k].nhead + 7;

		output__setup(&o, &output_csv_ops);
		o.interval_mode = true;
		r = cases[k].r;
		row__setup(&r, r.scope, r.key, SEC, 10);
		r.comm = cases[k].r.comm;
		r.nr_cpus = cases[k].r.nr_cpus;
		out = render(&o, 1.5, 1.0, &r, 1, 1.5);
		assert_int_equal(csv__check(out, ",", nf), 3);
		for (int i = 0; i < 3; i++) {
			assert_string_equal(csv_fields[i][0], "     1.500000000");
			for (int j = 0; j < cases[k].nhead; j++)
				assert_string_equal(csv_fields[i][1 + j],
						    cases[k].head[j]);
		}
		/* RUN: a switch-counted event runs on every CPU of a row */
		assert_string_equal(csv_fields[0][1 + cases[k].nhead + 2],
				    "cpu-clock");
		free(out);
	}
}

/* -A: perf prints each event on every CPU, then the next event. */
static void test_csv_cpus_by_event(void **state)
{
	static const char *const want[][2] = {
		{ "CPU0", "cpu-clock" }, { "CPU1", "cpu-clock" },
		{ "CPU0", "context-switches" }, { "CPU1", "context-switches" },
		{ "CPU0", "cycles" }, { "CPU1", "cycles" },
	};
	struct output o;
	struct row r[3];
	char *out;

	(void)state;
	output__setup(&o, &output_csv_ops);
	row__setup(&r[0], SCOPE_CPU, "0", SEC, 1);
	row__setup(&r[1], SCOPE_CPU, "1", SEC, 2);
	row__setup(&r[2], SCOPE_CGROUP, "/a", SEC, 3);
	out = render(&o, 1.0, 1.0, r, 3, 1.0);
	assert_int_equal(csv__lines(out, ",", csv_fields, csv_nfields, 32), 9);
	for (int i = 0; i < 6; i++) {
		assert_string_equal(csv_fields[i][0], want[i][0]);
		assert_string_equal(csv_fields[i][3], want[i][1]);
	}
	assert_string_equal(csv_fields[6][3], "/a");
	assert_int_equal(o.rows_printed, 3);
	free(out);
}

/*
 * --per-thread: perf prints event by event, each event's threads by its
 * count, the largest first; a thread that did not run is <not counted>
 * (last), with RUN 0; the key is COMM-TID.
 */
static void test_csv_threads_by_event(void **state)
{
	static const char *const want[][3] = {
		{ "w-11", "30.00", "cpu-clock" }, { "w-12", "20.00", "cpu-clock" },
		{ "main-10", "<not counted>", "cpu-clock" },
		{ "w-12", "9", "context-switches" }, { "w-11", "5", "context-switches" },
		{ "main-10", "<not counted>", "context-switches" },
	};
	struct output o;
	struct row r[3];
	char *out;

	(void)state;
	output__setup(&o, &output_csv_ops);
	o.nr_events = 2;
	row__setup(&r[0], SCOPE_THREAD, "10", 0, 0);
	r[0].comm = "main";
	r[0].not_run = true;
	row__setup(&r[1], SCOPE_THREAD, "11", 30 * 1000000ULL, 5);
	r[1].comm = "w";
	row__setup(&r[2], SCOPE_THREAD, "12", 20 * 1000000ULL, 9);
	r[2].comm = "w";
	for (int i = 0; i < 3; i++)
		r[i].pid = 10;
	out = render(&o, 1.0, 1.0, r, 3, 1.0);
	assert_int_equal(csv__lines(out, ",", csv_fields, csv_nfields, 32), 6);
	for (int i = 0; i < 6; i++) {
		/* AGGR,VALUE,UNIT,EVENT,RUN,PCT,METRIC,METRIC_UNIT: perf's 8 */
		assert_int_equal(csv_nfields[i], 8);
		assert_string_equal(csv_fields[i][0], want[i][0]);
		assert_string_equal(csv_fields[i][1], want[i][1]);
		assert_string_equal(csv_fields[i][3], want[i][2]);
	}
	assert_string_equal(csv_fields[2][4], "0");		/* RUN */
	assert_string_equal(csv_fields[2][5], "100.00");	/* PCT, as perf */
	assert_int_equal(o.rows_printed, 3);
	free(out);
	/* JSON: scope thread, the tid a number, its process and name; null
	 * counts for the thread that did not run */
	output__setup(&o, &output_json_ops);
	o.nr_events = 2;
	out = render(&o, 1.0, 1.0, r, 2, 1.0);
	assert_non_null(strstr(out, "\"scope\":\"thread\",\"key\":10,\"pid\":10,\"comm\":\"main\""));
	assert_non_null(strstr(out, "\"counters\":{\"cpu-clock\":null,\"context-switches\":null}"));
	assert_non_null(strstr(out, "\"key\":11,\"pid\":10,\"comm\":\"w\",\"counters\":{\"cpu-clock\":30000000,"));
	free(out);
	/* text: the key COMM-TID after the event, as for every scope */
	r[1].scope = SCOPE_THREAD;
	out = render_text(&r[1], 1.0);
	assert_non_null(strstr(out, "w-11"));
	free(out);
}

/* perf -G: the cgroup after the event; a container's key there too. */

/* -r 3: perf's spread column after the event name, on every event line */
static void test_csv_repeat(void **state)
{
	char *out = render_repeat(&output_csv_ops);
	int n = csv__lines(out, ",", csv_fields, csv_nfields, 32);

	(void)state;
	assert_int_equal(n, 3);
	/* perf's VALUE,UNIT,EVENT,NOISE,RUN,PCT,METRIC,METRIC_UNIT */
	for (int i = 0; i < n; i++)
		assert_int_equal(csv_nfields[i], 8);
	assert_string_equal(csv_fields[0][2], "cpu-clock");
	assert_string_equal(csv_fields[0][3], "1.50%");
	assert_string_equal(csv_fields[1][3], "0.00%");
	free(out);
}

static void test_csv_separator_in_key(void **state)
{
	static const struct {
		const char *sep;
		const char *key;
		const char *raw;	/* the key as written */
	} cases[] = {
		{ ",", "/plain", ",/plain," },
		{ ",", "/a,b", ",\"/a,b\"," },
		{ ";", "/a;b", ";\"/a;b\";" },
		{ ",", "/a;b", ",/a;b," },
		{ ",", "/say \"hi\"", ",\"/say \"\"hi\"\"\"," },
		{ "::", "/a::b", "::\"/a::b\"::" },
		{ "::", "/a:b", "::/a:b::" },
		/* a tab in a key is escaped (\x09: test_output_escape.c),
		 * so a tab separator needs no quotes */
		{ "\t", "/a b", "\t/a b\t" },
	};
	struct output o;
	struct row r;
	char *out;
	size_t k;
	int i;

	(void)state;
	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		output__setup(&o, &output_csv_ops);
		o.sep = cases[k].sep;
		row__setup(&r, SCOPE_CGROUP, cases[k].key, SEC, 10);
		out = render(&o, 1.0, 1.0, &r, 1, 1.0);
		assert_non_null(strstr(out, cases[k].raw));
		assert_int_equal(csv__check(out, cases[k].sep, 8), 3);
		for (i = 0; i < 3; i++)
			assert_string_equal(csv_fields[i][3], cases[k].key);
		free(out);
	}
	output__setup(&o, &output_csv_ops);
	row__setup(&r, SCOPE_CONTAINER, "9d", SEC, 10);
	r.ns = "kv";
	r.pod = "cache-0";
	r.container = "redis";
	out = render(&o, 1.0, 1.0, &r, 1, 1.0);
	assert_int_equal(csv__check(out, ",", 8), 3);
	assert_string_equal(csv_fields[0][3], "9d kv/cache-0/redis");
	free(out);
}

static void test_csv_number_with_separator(void **state)
{
	static const char *const want[] = {
		"1000.00", "msec", "cpu-clock", "1000000000", "100.00",
		"1.000", "CPUs utilized",
	};
	struct output o;
	struct row r;
	char *out;

	(void)state;
	output__setup(&o, &output_csv_ops);
	o.sep = ".";	/* perf allows any separator: numbers get quoted */
	row__setup(&r, SCOPE_SYSTEM, "all", SEC, 10);
	out = render(&o, 1.0, 1.0, &r, 1, 1.0);
	assert_int_equal(csv__check(out, ".", 7), 3);
	csv__want(0, want, 7);
	free(out);
}

static void test_csv_energy(void **state)
{
	static const char *const want[][8] = {
		{ "12.500000", "J", "energy", "", "", "", "6.250", "Watts" },
		{ "", "nJ/instr", "epi", "", "", "", "", "" },	/* no instructions */
	};
	struct output o;
	struct row r[2];
	char *out;
	int n, i;

	(void)state;
	output__setup(&o, &output_csv_ops);
	row__setup(&r[0], SCOPE_SYSTEM, "all", SEC, 1);
	r[0].has_energy = true;
	r[0].energy_j = 12.5;
	r[0].power_w = 6.25;
	row__setup(&r[1], SCOPE_CGROUP, "/a", SEC, 1);
	out = render(&o, 2.0, 2.0, r, 2, 2.0);
	n = csv__lines(out, ",", csv_fields, csv_nfields, 32);
	assert_int_equal(n, 3 + 2 + 3);	/* energy lines for r[0] only */
	for (i = 0; i < 2; i++) {
		assert_int_equal(csv_nfields[3 + i], 8);
		csv__want(3 + i, want[i], 8);
	}
	assert_string_equal(csv_fields[5][3], "/a");
	free(out);
}

/* ---- JSON ---- */

#define JSON_MAX 16

static int json__lines(const char *out, struct json_object **objs, int max)
{
	const char *p = out, *nl;
	char line[4096];
	int n = 0;

	while (*p && n < max) {
		nl = strchr(p, '\n');
		assert_non_null(nl);	/* every object ends its line */
		assert_true((size_t)(nl - p) < sizeof(line));
		snprintf(line, sizeof(line), "%.*s", (int)(nl - p), p);
		objs[n] = json_tokener_parse(line);
		if (!objs[n])
			print_message("not JSON: %s\n", line);
		assert_non_null(objs[n]);
		n++;
		p = nl + 1;
	}
	return n;
}

static void json__put_all(struct json_object **objs, int n)
{
	while (n--)
		json_object_put(objs[n]);
}

/* The member name of obj, which must exist; NULL when it is null. */
static struct json_object *json__get(struct json_object *obj,
				     const char *name)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(obj, name, &v))
		print_message("missing \"%s\" in %s\n", name,
			      json_object_to_json_string(obj));
	assert_true(json_object_object_get_ex(obj, name, &v));
	return v;
}

static bool json__has(struct json_object *obj, const char *name)
{
	return json_object_object_get_ex(obj, name, NULL);
}

/* obj's member name: null when want is NAN, else want within 1e-9 */
static void json__want_near(struct json_object *obj, const char *name,
			    double want)
{
	struct json_object *v = json__get(obj, name);

	if (isnan(want))
		assert_null(v);
	else
		assert_true(fabs(json_object_get_double(v) - want) < 1e-9);
}

static void test_json_rows(void **state)
{
	static const struct {
		struct row r;
		enum json_type key_type;
		const char *key;	/* as a string, or the number's */
	} cases[] = {
		{ { .scope = SCOPE_SYSTEM, .key = "whatever" }, json_type_string,
		  "all" },
		/* time whose owner BPF estimated (a kernel hiding switches) */
		{ { .scope = SCOPE_SYSTEM, .key = "all",
		    .untraced_ns = 47971627 }, json_type_string, "all" },
		{ { .scope = SCOPE_CPU, .key = "12" }, json_type_int, "12" },
		{ { .scope = SCOPE_SOCKET, .key = "1" }, json_type_int, "1" },
		{ { .scope = SCOPE_CGROUP, .key = "/" }, json_type_string, "/" },
		{ { .scope = SCOPE_CGROUP, .key = "/system.slice/x.scope" },
		  json_type_string, "/system.slice/x.scope" },
		{ { .scope = SCOPE_CONTAINER, .key = "3f2a", .runtime = "docker" },
		  json_type_string, "3f2a" },
		{ { .scope = SCOPE_CONTAINER, .key = "9c", .runtime = "cri-o",
		    .pod_uid = "u-1" }, json_type_string, "9c" },
		{ { .scope = SCOPE_CONTAINER, .key = "9d", .runtime = "containerd",
		    .name = "n\033", .image = "redis:7", .ns = "kv", .pod = "cache-0",
		    .container = "redis" }, json_type_string, "9d" },
		{ { .scope = SCOPE_PROCESS, .key = "4321", .comm = "ba\"sh" },
		  json_type_int, "4321" },
		/* not a number: stays a string rather than becoming 0 */
		{ { .scope = SCOPE_PROCESS, .key = "overflow", .comm = "?" },
		  json_type_string, "overflow" },
		/* the command's pid */
		{ { .scope = SCOPE_COMMAND, .key = "42" }, json_type_int, "42" },
		/* pods: by name, by uid only; a namespace */
		{ { .scope = SCOPE_POD, .key = "kv/cache-0", .ns = "kv",
		    .pod = "cache-0", .pod_uid = "u-1" }, json_type_string,
		  "kv/cache-0" },
		{ { .scope = SCOPE_POD, .key = "u-2", .pod_uid = "u-2" },
		  json_type_string, "u-2" },
		{ { .scope = SCOPE_NAMESPACE, .key = "kv", .ns = "kv" },
		  json_type_string, "kv" },
		{ { .scope = SCOPE_NAMESPACE, .key = "none" }, json_type_string,
		  "none" },
	};
	struct json_object *objs[JSON_MAX], *obj, *v;
	struct row rows[ARRAY_SIZE(cases)];
	struct output o;
	char *out;
	size_t k;
	int n;

	(void)state;
	output__setup(&o, &output_json_ops);
	for (k = 0; k < ARRAY_SIZE(cases); k++)
		rows[k] = cases[k].r;
	out = render(&o, 3.25, 1.0, rows, ARRAY_SIZE(cases), 3.25);
	n = json__lines(out, objs, JSON_MAX);
	assert_int_equal(n, ARRAY_SIZE(cases));
	assert_int_equal(o.rows_printed, n);
	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		obj = objs[k];
		v = json__get(obj, "interval");
		assert_int_equal(json_object_get_type(v), json_type_double);
		assert_true(fabs(json_object_get_double(v) - 3.25) < 1e-9);
		assert_string_equal(json_object_get_string(json__get(obj, "scope")),
				    scope__name(cases[k].r.scope));
		v = json__get(obj, "key");
		assert_int_equal(json_object_get_type(v), cases[k].key_type);
		assert_string_equal(json_object_get_string(v), cases[k].key);
		assert_int_equal(json__has(obj, "comm"),
				 cases[k].r.scope == SCOPE_PROCESS);
		if (cases[k].r.comm)
			assert_string_equal(json_object_get_string(
				json__get(obj, "comm")), cases[k].r.comm);
		assert_int_equal(json__has(obj, "runtime"),
				 cases[k].r.scope == SCOPE_CONTAINER);
		assert_int_equal(json__has(obj, "pod_uid"),
				 cases[k].r.pod_uid != NULL ||
				 cases[k].r.scope == SCOPE_POD);
		/* a container's names, a pod's namespace and pod, a
		 * namespace's: null where unknown */
		for (size_t f = 0; f < 5; f++) {
			static const char *const names[] = {
				"name", "image", "namespace", "pod", "container" };
			const struct row *cr = &cases[k].r;
			const char *want = (const char *[]){ cr->name, cr->image,
				cr->ns, cr->pod, cr->container }[f];
			bool has = cr->scope == SCOPE_CONTAINER ||
				   (cr->scope == SCOPE_POD && (f == 2 || f == 3)) ||
				   (cr->scope == SCOPE_NAMESPACE && f == 2);

			assert_int_equal(json__has(obj, names[f]), has);
			if (!has)
				continue;
			v = json__get(obj, names[f]);
			if (want)
				assert_string_equal(json_object_get_string(v), want);
			else
				assert_null(v);
		}
		/* only where there was some: absent on kernels tracing all */
		assert_int_equal(json__has(obj, "untraced_ns"),
				 cases[k].r.untraced_ns != 0);
		if (cases[k].r.untraced_ns)
			assert_int_equal(json_object_get_int64(
				json__get(obj, "untraced_ns")), cases[k].r.untraced_ns);
		/* no energy source: no energy fields */
		assert_false(json__has(obj, "energy_j"));
		assert_false(json__has(obj, "epi_nj"));
		assert_false(json__has(obj, "energy_source"));
	}
	json__put_all(objs, n);
	free(out);
}

static void test_json_counters(void **state)
{
	struct json_object *objs[JSON_MAX], *counters, *ratio, *v;
	struct output o;
	struct row r;
	char *out;

	(void)state;
	output__setup(&o, &output_json_ops);
	o.nr_events = 4;
	o.ev[3] = (struct row_event){ "page-faults", true, false, 3 };
	row__setup(&r, SCOPE_CGROUP, "/a", 3 * SEC / 4, 0);
	/* ran 100 of 200 ns enabled, all in slices of 100 ns enabled (1001
	 * counted), none in the other 100 (unrun): 2002 estimated */
	r.counts.c[1] = (struct emon_count){ 1001, 200, 100, 100 };
	r.counts.c[3] = (struct emon_count){ 7, 300, 0, 300 };	/* never ran */
	out = render(&o, 1.0, 1.0, &r, 1, 1.0);
	assert_int_equal(json__lines(out, objs, JSON_MAX), 1);
	counters = json__get(objs[0], "counters");
	ratio = json__get(objs[0], "ratio");

	v = json__get(counters, "cpu-clock");	/* nanoseconds, integer */
	assert_int_equal(json_object_get_type(v), json_type_int);
	assert_int_equal(json_object_get_int64(v), 750000000);
	v = json__get(counters, "context-switches");
	assert_int_equal(json_object_get_type(v), json_type_int);
	assert_int_equal(json_object_get_int64(v), 2002);
	assert_null(json__get(counters, "cycles"));	/* not supported */
	assert_null(json__get(counters, "page-faults"));	/* not counted */

	v = json__get(ratio, "cpu-clock");
	assert_int_equal(json_object_get_type(v), json_type_double);
	assert_true(json_object_get_double(v) == 1.0);
	v = json__get(ratio, "context-switches");
	assert_int_equal(json_object_get_type(v), json_type_double);
	assert_true(json_object_get_double(v) == 0.5);
	assert_null(json__get(ratio, "cycles"));
	v = json__get(ratio, "page-faults");
	assert_true(json_object_get_double(v) == 0.0);
	json__put_all(objs, 1);
	free(out);
}

static void test_json_big_count(void **state)
{
	struct json_object *objs[JSON_MAX], *v;
	struct output o;
	struct row r;
	char *out;

	(void)state;
	output__setup(&o, &output_json_ops);
	row__setup(&r, SCOPE_SYSTEM, "all", SEC, 0);
	/* above 2^53 a double would print 9007199254740992 */
	r.counts.c[1] = (struct emon_count){ (1ULL << 53) + 1, 5, 5 };
	out = render(&o, 1.0, 1.0, &r, 1, 1.0);
	assert_non_null(strstr(out, "\"context-switches\":9007199254740993"));
	assert_int_equal(json__lines(out, objs, JSON_MAX), 1);
	v = json__get(json__get(objs[0], "counters"), "context-switches");
	assert_int_equal(json_object_get_int64(v), (1LL << 53) + 1);
	json__put_all(objs, 1);
	free(out);
}

static void test_json_energy(void **state)
{
	static const struct {
		bool hw;		/* cycles and instructions counted */
		double epi, ipc;	/* NAN: null */
	} cases[] = {
		{ false, NAN, NAN },
		{ true, 2.5, 2.5 },
	};
	struct json_object *objs[JSON_MAX], *v;
	struct output o;
	struct row r[3];
	size_t k;
	char *out;
	int n, i;

	(void)state;
	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		output__setup(&o, &output_json_ops);
		if (cases[k].hw)
			output__add_hw(&o);
		o.energy_source = "powercap";
		o.split_by = "cycles";
		rows__energy(r, 1);
		r[2] = r[1];
		r[2].has_energy = false;
		out = render(&o, 1.0, 1.0, r, 3, 1.0);
		n = json__lines(out, objs, JSON_MAX);
		assert_int_equal(n, 3);
		for (i = 0; i < 2; i++) {
			v = json__get(objs[i], "energy_j");
			assert_true(json_object_get_double(v) == 12.5);
			v = json__get(objs[i], "power_w");
			assert_true(json_object_get_double(v) == 12.49);
			json__want_near(objs[i], "epi_nj", cases[k].epi);
			json__want_near(objs[i], "ipc", cases[k].ipc);
		}
		/* the source is said once, on the system row */
		assert_string_equal(json_object_get_string(
			json__get(objs[0], "energy_source")), "powercap");
		assert_string_equal(json_object_get_string(
			json__get(objs[0], "split_by")), "cycles");
		assert_false(json__has(objs[1], "energy_source"));
		assert_false(json__has(objs[2], "energy_j"));
		assert_false(json__has(objs[2], "epi_nj"));
		json__put_all(objs, n);
		free(out);
	}
}

/* Keys escaped where JSON needs it only (paths stay greppable); bytes
 * that are not UTF-8 (a cgroup or comm can hold any) become U+FFFD,
 * control characters \u00XX: the line stays valid JSON. */
static void test_json_keys(void **state)
{
	static const struct {
		const char *key, *want;		/* want NULL: the key */
	} cases[] = {
		{ "/a/b" },
		{ "/quote\"d" },
		{ "/back\\slash" },
		{ "/new\nline" },
		{ "/tab\there" },
		{ "/caf\xc3\xa9" },
		{ "/bad\xff", "/bad\xef\xbf\xbd" },
		{ "/cut\xc3", "/cut\xef\xbf\xbd" },
		{ "/over\xc0\xaflong", "/over\xef\xbf\xbd\xef\xbf\xbdlong" },
		{ "/sur\xed\xa0\x80", "/sur\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "/ctl\x01\x1f\x7f", "/ctl\x01\x1f\x7f" },
		{ "/emoji\xf0\x9f\x94\xa5", "/emoji\xf0\x9f\x94\xa5" },
	};
	struct json_object *objs[JSON_MAX];
	struct row r[ARRAY_SIZE(cases)];
	struct output o;
	size_t k;
	char *out;
	int n;

	(void)state;
	output__setup(&o, &output_json_ops);
	for (k = 0; k < ARRAY_SIZE(cases); k++)
		row__setup(&r[k], SCOPE_CGROUP, cases[k].key, SEC, 1);
	out = render(&o, 1.0, 1.0, r, ARRAY_SIZE(cases), 1.0);
	assert_null(strstr(out, "\\/"));	/* paths stay greppable */
	assert_non_null(strstr(out, "\"key\":\"/a/b\""));
	assert_non_null(strstr(out, "\\u0001\\u001f\\u007f"));
	n = json__lines(out, objs, JSON_MAX);
	assert_int_equal(n, ARRAY_SIZE(cases));
	for (k = 0; k < ARRAY_SIZE(cases); k++)
		assert_string_equal(json_object_get_string(
			json__get(objs[k], "key")),
			cases[k].want ? cases[k].want : cases[k].key);
	json__put_all(objs, n);
	free(out);
}

static void test_json_no_begin_end(void **state)
{
	struct output o;
	char *out;

	(void)state;
	output__setup(&o, &output_json_ops);
	o.interval_mode = true;
	out = render(&o, 1.0, 1.0, NULL, 0, 1.0);
	assert_string_equal(out, "");
	assert_int_equal(o.rows_printed, 0);
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
		cmocka_unit_test(test_csv_columns),
		cmocka_unit_test(test_csv_aggregation),
		cmocka_unit_test(test_csv_cpus_by_event),
		cmocka_unit_test(test_csv_threads_by_event),
		cmocka_unit_test(test_csv_repeat),
		cmocka_unit_test(test_text_repeat),
		cmocka_unit_test(test_csv_separator_in_key),
		cmocka_unit_test(test_csv_number_with_separator),
		cmocka_unit_test(test_csv_energy),
		cmocka_unit_test(test_json_rows),
		cmocka_unit_test(test_json_counters),
		cmocka_unit_test(test_json_big_count),
		cmocka_unit_test(test_json_energy),
		cmocka_unit_test(test_json_keys),
		cmocka_unit_test(test_json_no_begin_end),
		cmocka_unit_test(test_event_index_metrics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
