// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * stat -M in the outputs: a metric's inputs are the row's values of the
 * events it needs (found by name, modifiers and perf's aliases allowed),
 * so a metric is computed per CPU, cgroup, container and process as the
 * counts are. An input the PMU cannot count makes it <not supported>,
 * never 0.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "front/output_formula.h"

#define FORMULA_COL 16	/* --metric-only's least column width */

/* name is base, or base with modifiers ("cycles:u") */
static bool name__is(const char *name, const char *base)
{
	size_t len = strlen(base);

	return name && !strncmp(name, base, len) &&
	       (name[len] == '\0' || name[len] == ':');
}

int output__metric_input(const struct output *o, const char *name)
{
	int i, alias = -1;

	/* the event -M added, before one with modifiers the user gave */
	for (i = 0; i < o->nr_events && i < EMON_MAX_EVENTS; i++)
		if (o->ev[i].name && !strcmp(o->ev[i].name, name))
			return i;
	for (i = 0; i < o->nr_events && i < EMON_MAX_EVENTS; i++) {
		const char *ev = o->ev[i].name;

		if (name__is(ev, name))
			return i;
		if (alias < 0 && !strcmp(name, "cycles") && name__is(ev, "cpu-cycles"))
			alias = i;
		if (alias < 0 && !strcmp(name, "cpu-clock") && o->ev[i].is_time)
			alias = i;	/* task-clock: perf's CPUs utilized too */
	}
	return alias;
}

void row__metric(const struct output *o, const struct row *r, double dt,
		 const struct formula_def *m, struct formula_value *v)
{
	struct formula_input in[FORMULA_MAX_INPUTS] = { 0 };
	struct formula_row mr = {
		.dt = dt,
		.has_energy = r->has_energy,
		.energy_j = r->has_energy ? r->energy_j : NAN,
	};
	struct row_value rv;

	for (int i = 0; i < FORMULA_MAX_INPUTS && m->events[i]; i++) {
		int idx = output__metric_input(o, m->events[i]);

		in[i].state = FORMULA_NOT_SUPPORTED;
		if (idx < 0)
			continue;
		row__value(o, r, idx, &rv);
		in[i].value = rv.value;
		in[i].state = rv.state == VALUE_COUNTED ? FORMULA_OK :
			      rv.state == VALUE_NOT_COUNTED ? FORMULA_NOT_COUNTED :
			      FORMULA_NOT_SUPPORTED;
	}
	formula__compute(m, in, &mr, v);
}

const struct formula_def *output__metric_at(const struct output *o, int i)
{
	for (int k = 0; k < o->nr_metrics; k++) {
		const struct formula_def *m = o->metrics[k];

		if (m->events[0] && output__metric_input(o, m->events[0]) == i)
			return m;
	}
	return NULL;
}

void formula_value__format(const struct formula_value *v, int prec, char *buf,
			   size_t size)
{
	if (v->state == FORMULA_NOT_SUPPORTED)
		snprintf(buf, size, "<not supported>");
	else if (v->state == FORMULA_NOT_COUNTED)
		snprintf(buf, size, "<not counted>");
	else
		snprintf(buf, size, "%.*f", prec, v->value);
}

static int formula__width(const struct formula_def *m)
{
	int n = strlen(m->unit);

	return n > FORMULA_COL ? n : FORMULA_COL;
}

void output_formula__text_header(const struct output *o, const char *prefix,
				 int key_width)
{
	fprintf(o->f, "%s", prefix);
	if (key_width)
		fprintf(o->f, "%-*s ", key_width, "");
	for (int k = 0; k < o->nr_metrics; k++)
		fprintf(o->f, " %*s", formula__width(o->metrics[k]),
			o->metrics[k]->unit);
	fputc('\n', o->f);
}

void output_formula__text_row(const struct output *o, const char *prefix,
			      const char *key, int key_width,
			      const struct row *r, double dt)
{
	struct formula_value v;
	char buf[64];

	fprintf(o->f, "%s", prefix);
	if (key_width)
		fprintf(o->f, "%-*s ", key_width, key);
	for (int k = 0; k < o->nr_metrics; k++) {
		row__metric(o, r, dt, o->metrics[k], &v);
		formula_value__format(&v, 2, buf, sizeof(buf));
		fprintf(o->f, " %*s", formula__width(o->metrics[k]), buf);
	}
	fputc('\n', o->f);
}
