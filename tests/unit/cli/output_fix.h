/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the output tests share: an output and rows set up, rendered into
 * memory, and the lines of it found and checked.
 */
#ifndef EMON_TESTS_UNIT_OUTPUT_FIX_H
#define EMON_TESTS_UNIT_OUTPUT_FIX_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "front/output.h"
#include "helpers.h"

enum { EV_CLOCK, EV_CS, EV_CYCLES, EV_INS };

/* cpu-clock, context-switches, cycles (not supported: a VM). */
static __maybe_unused void output__setup(struct output *o,
					 const struct output_ops *ops)
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
static __maybe_unused void output__add_hw(struct output *o)
{
	o->nr_events = 4;
	o->ev[EV_CYCLES] = (struct row_event){ "cycles", true, false, 2 };
	o->ev[EV_INS] = (struct row_event){ "instructions", true, false, 3 };
}

static __maybe_unused void row__setup(struct row *r, enum scope scope,
				      const char *key, __u64 clock_ns, __u64 cs)
{
	memset(r, 0, sizeof(*r));
	r->scope = scope;
	r->key = key;
	r->counts.c[0] = (struct emon_count){ clock_ns, clock_ns, clock_ns };
	r->counts.c[1] = (struct emon_count){ cs, clock_ns, clock_ns };
}

/* cycles 2e9, instructions 5e9, in a second's run: 2 GHz, 2.5 per cycle */
static __maybe_unused void row__add_hw(struct row *r)
{
	r->counts.c[2] = (struct emon_count){ 2 * SEC, SEC, SEC };
	r->counts.c[3] = (struct emon_count){ 5 * SEC, SEC, SEC };
}

/* r[0] the system with the hardware counts and energy (12.5 J, 12.49 W),
 * r[1] the same as cgroup /a. */
static __maybe_unused void rows__energy(struct row *r, __u64 cs)
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
static __maybe_unused char *render(struct output *o, double t, double dt,
				   const struct row *rows, int n,
				   double elapsed)
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

static __maybe_unused int str__count(const char *s, const char *what)
{
	int n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

/* The line of out that contains what, copied into line. */
static __maybe_unused bool line__find(const char *out, const char *what,
				      char *line, size_t size)
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

static __maybe_unused void lines__check(const char *out,
					const struct line_want *w, size_t n)
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
static __maybe_unused char *render_text(const struct row *r, double dt)
{
	struct output o;

	output__setup(&o, &output_text_ops);
	return render(&o, 1.0, dt, r, 1, 1.0);
}

/* The line of r rendered alone as text that has what. */
static __maybe_unused void render_line(const struct row *r, const char *what,
				       char *line, size_t size)
{
	char *out = render_text(r, 1.0);

	if (!line__find(out, what, line, size))
		fail_msg("no line of '%s' in:\n%s", what, out);
	free(out);
}

/* One system row of a -r 3 run: cpu-clock's spread 1.5%, the others' 0,
 * the elapsed time's standard deviation 2 ms. */
static __maybe_unused char *render_repeat(const struct output_ops *ops)
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
#endif
