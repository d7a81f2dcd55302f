// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The -M table. Each metric says which events it needs; -M adds those
 * to the event list, so a metric is counted like every event, per CPU,
 * cgroup, container and process. The formulas are perf's (its
 * stat-shadow.c): rates in percent, frequency in GHz of the clock's
 * time, CPUs utilized of the interval.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/log.h"
#include "front/formulas.h"

/* a / b, NAN for a zero or missing denominator: no value, not 0 */
static double ratio(double a, double b)
{
	return b > 0 && !isnan(a) ? a / b : NAN;
}

static double m_ratio(const double *in, const struct formula_row *r)
{
	(void)r;
	return ratio(in[0], in[1]);
}

static double m_percent(const double *in, const struct formula_row *r)
{
	(void)r;
	return 100.0 * ratio(in[0], in[1]);
}

static double m_ghz(const double *in, const struct formula_row *r)
{
	(void)r;
	return ratio(in[0], in[1]);	/* cycles per ns */
}

static double m_cpus(const double *in, const struct formula_row *r)
{
	return ratio(in[0], r->dt * 1e9);
}

static double m_watts(const double *in, const struct formula_row *r)
{
	(void)in;
	return ratio(r->energy_j, r->dt);
}

static double m_nj_per_insn(const double *in, const struct formula_row *r)
{
	return ratio(r->energy_j * 1e9, in[0]);
}

/* name, unit, formula, events, group, energy, compute: a metric a line */
const struct formula_def formula_defs[] = {
	{ "IPC", "insn per cycle", "instructions / cycles", { "instructions", "cycles" }, true, false, m_ratio },
	{ "CPI", "cycles per insn", "cycles / instructions", { "cycles", "instructions" }, true, false, m_ratio },
	{ "frequency", "GHz", "cycles / cpu-clock (ns)", { "cycles", "cpu-clock" }, false, false, m_ghz },
	{ "branch_miss_rate", "% of all branches", "100 * branch-misses / branches", { "branch-misses", "branches" }, true, false, m_percent },
	{ "cache_miss_rate", "% of all cache refs", "100 * cache-misses / cache-references", { "cache-misses", "cache-references" }, true, false, m_percent },
	{ "L1_miss_rate", "% of all L1-dcache accesses", "100 * L1-dcache-load-misses / L1-dcache-loads", { "L1-dcache-load-misses", "L1-dcache-loads" }, true, false, m_percent },
	{ "LLC_miss_rate", "% of all LL-cache accesses", "100 * LLC-load-misses / LLC-loads", { "LLC-load-misses", "LLC-loads" }, true, false, m_percent },
	{ "CPUs_utilized", "CPUs utilized", "cpu-clock (ns) / interval (ns)", { "cpu-clock" }, false, false, m_cpus },
	{ "W", "Watts", "energy (J) / interval (s)", { NULL }, false, true, m_watts },
	{ "J_per_insn", "nJ per insn", "1e9 * energy (J) / instructions", { "instructions" }, false, true, m_nj_per_insn },
};

const size_t nr_formula_defs = sizeof(formula_defs) / sizeof(formula_defs[0]);

const struct formula_def *formula__find(const char *name)
{
	for (size_t i = 0; i < nr_formula_defs; i++)
		if (!strcasecmp(formula_defs[i].name, name))
			return &formula_defs[i];
	return NULL;
}

void formula__compute(const struct formula_def *m, const struct formula_input *in,
		      const struct formula_row *r, struct formula_value *out)
{
	double v[FORMULA_MAX_INPUTS] = { 0 };
	bool counted = true;

	out->state = FORMULA_OK;
	out->value = NAN;
	out->why = NULL;
	if (m->energy && !r->has_energy) {
		out->state = FORMULA_NOT_SUPPORTED;
		out->why = "no energy source (--energy)";
		return;
	}
	for (int i = 0; i < FORMULA_MAX_INPUTS && m->events[i]; i++) {
		if (in[i].state == FORMULA_NOT_SUPPORTED) {
			out->state = FORMULA_NOT_SUPPORTED;
			out->why = m->events[i];
			return;
		}
		counted &= in[i].state == FORMULA_OK;
		v[i] = in[i].value;
	}
	if (counted)
		out->value = m->compute(v, r);
	if (isnan(out->value))
		out->state = FORMULA_NOT_COUNTED;
}

/* Is event name in the comma list events? */
static bool events__has(const char *events, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = events; (p = strstr(p, name)); p += len) {
		bool start = p == events || strchr(",{ ", p[-1]);
		bool end = !p[len] || strchr(",} ", p[len]);

		if (start && end)
			return true;
	}
	return false;
}

/* m's events missing from events, appended ({a,b} for a group of two) */
static int formula__add_events(const struct formula_def *m, char *events,
			       size_t size)
{
	const char *add[FORMULA_MAX_INPUTS];
	size_t len = strlen(events);
	int n = 0, w;

	for (int i = 0; i < FORMULA_MAX_INPUTS && m->events[i]; i++)
		if (!events__has(events, m->events[i]))
			add[n++] = m->events[i];
	if (!n)
		return 0;
	if (n > 1 && m->group)
		w = snprintf(events + len, size - len, "%s{%s,%s}", len ? "," : "",
			     add[0], add[1]);
	else if (n > 1)
		w = snprintf(events + len, size - len, "%s%s,%s", len ? "," : "",
			     add[0], add[1]);
	else
		w = snprintf(events + len, size - len, "%s%s", len ? "," : "", add[0]);
	if (w < 0 || (size_t)w >= size - len) {
		events[len] = '\0';
		pr_err("event list too long for -M %s", m->name);
		return -E2BIG;
	}
	return 0;
}

int formulas__parse(const char *list, char *events, size_t size,
		    const struct formula_def **defs, int *nr)
{
	char *dup = strdup(list), *p = dup, *tok;
	int err = 0;

	if (!dup)
		return -ENOMEM;
	while (!err && (tok = strsep(&p, ",")) != NULL) {
		const struct formula_def *m = formula__find(tok);
		bool dup_name = false;

		for (int i = 0; m && i < *nr; i++)
			dup_name |= defs[i] == m;
		if (!m) {
			pr_err("unknown metric '%s' for -M (see 'emon-perf list metrics')",
			       tok);
			err = -EINVAL;
		} else if (dup_name) {
			continue;
		} else if (*nr == FORMULA_MAX) {
			pr_err("too many metrics for -M: at most %d", FORMULA_MAX);
			err = -EINVAL;
		} else {
			defs[(*nr)++] = m;
			err = formula__add_events(m, events, size);
		}
	}
	free(dup);
	return err;
}
