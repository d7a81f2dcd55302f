// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * "PMU/term=value,.../" -> perf_event_attr, as perf's parse-events.c and
 * pmu.c do it: each term names a format/ file whose bit ranges say where
 * its value goes in config, config1 or config2 (the ranges may be split:
 * AMD's event is config:0-7,32-35); a term without a value is an events/
 * alias (itself a list of terms) or a one-bit field set to 1. Terms apply
 * in order, so "cpu/cpu-cycles,cmask=1/" narrows an alias.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmu/terms.h"

#define TERMS_LEN 512

/* perf's generic hardware events, usable as cpu_core/cycles/ */
static const struct {
	const char *name;
	__u64 config;
} hw_names[] = {
	{ "cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_COUNT_HW_BUS_CYCLES },
	{ "ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES },
};

/* Where one term's parse stands: what it sets and whom to name */
struct terms_ctx {
	const struct pmus *pmus;
	const struct pmu_sysfs *pmu;
	struct perf_event_attr *attr;
	const char *event;	/* as the user wrote it */
	bool hw;		/* a generic hardware name was given */
	int nr_set;		/* terms that set bits */
	char *err;
	size_t errlen;
};

bool pmu_terms__is_pmu_event(const char *name)
{
	return strchr(name, '/') != NULL;
}

__u64 pmu__hw_config(__u64 config, __u32 type, int nr_core)
{
	if (nr_core < 2)
		return config;
	return (config & PERF_HW_EVENT_MASK) | (__u64)type << PERF_PMU_TYPE_SHIFT;
}

int pmu_format__encode(const struct pmu_format *f, __u64 value, __u64 *word)
{
	__u64 out = 0;
	int bit, nbits = __builtin_popcountll(f->mask), i = 0;

	if (nbits < 64 && value >> nbits)
		return -ERANGE;
	for (bit = 0; bit < 64; bit++) {
		if (f->mask >> bit & 1)
			out |= (value >> i++ & 1) << bit;
	}
	*word = (*word & ~f->mask) | out;
	return 0;
}

static __u64 *attr__word(struct perf_event_attr *attr, int word)
{
	return word == 0 ? &attr->config :
	       word == 1 ? &attr->config1 : &attr->config2;
}

__attribute__((format(printf, 2, 3)))
static int terms__fail(struct terms_ctx *c, const char *fmt, ...)
{
	size_t n = snprintf(c->err, c->errlen, "event '%s': ", c->event);
	va_list ap;

	va_start(ap, fmt);
	if (n < c->errlen)
		vsnprintf(c->err + n, c->errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int terms__apply(struct terms_ctx *c, char *list, bool in_alias);

/* A term without a value: an alias, a generic event, or a 1-bit field */
static int terms__apply_name(struct terms_ctx *c, const char *key,
			     bool in_alias)
{
	const struct pmu_alias *a = pmu_sysfs__alias(c->pmu, key);
	const struct pmu_format *f;
	char list[TERMS_LEN];

	if (a && !in_alias) {
		snprintf(list, sizeof(list), "%s", a->terms);
		return terms__apply(c, list, true);
	}
	for (size_t i = 0; c->pmu->is_core && i < sizeof(hw_names) / sizeof(hw_names[0]); i++) {
		if (strcmp(key, hw_names[i].name))
			continue;
		c->attr->type = PERF_TYPE_HARDWARE;
		c->attr->config = pmu__hw_config(hw_names[i].config,
						 c->pmu->type,
						 c->pmus->nr_core);
		c->hw = true;
		return 0;
	}
	f = pmu_sysfs__format(c->pmu, key);
	if (f)
		return pmu_format__encode(f, 1, attr__word(c->attr, f->word));
	return terms__fail(c, "unknown term '%s' for PMU '%s' (see %s/%s/format and events)",
			   key, c->pmu->name, PMU_SYSFS_ROOT, c->pmu->name);
}

static int terms__apply_one(struct terms_ctx *c, char *term, bool in_alias)
{
	char *eq = strchr(term, '='), *end;
	const struct pmu_format *f;
	__u64 value;
	int ret;

	if (!eq)
		return terms__apply_name(c, term, in_alias);
	*eq = '\0';
	if (!strcmp(term, "name"))	/* the user's spelling names it anyway */
		return 0;
	if (!strcmp(term, "period") || !strcmp(term, "freq"))
		return terms__fail(c, "%s= is for sampling; emon-perf counts", term);
	if (!strcmp(term, "cpu"))
		return terms__fail(c, "%s= is not supported, events count on every CPU", term);
	if (!strcmp(eq + 1, "?"))	/* a parameter perf asks for: none here */
		return in_alias ? 0 : terms__fail(c, "term '%s' needs a number", term);
	value = strtoull(eq + 1, &end, 0);
	if (end == eq + 1 || *end || eq[1] == '-')
		return terms__fail(c, "term '%s' needs a number", term);
	for (int w = 0; w < 3; w++) {
		static const char *const words[] = { "config", "config1", "config2" };

		if (!strcmp(term, words[w])) {
			*attr__word(c->attr, w) = value;
			c->nr_set++;
			return 0;
		}
	}
	f = pmu_sysfs__format(c->pmu, term);
	if (!f)
		return terms__fail(c, "unknown term '%s' for PMU '%s' (see %s/%s/format)",
				   term, c->pmu->name, PMU_SYSFS_ROOT, c->pmu->name);
	ret = pmu_format__encode(f, value, attr__word(c->attr, f->word));
	if (ret)
		return terms__fail(c, "value %s too big for term '%s' of PMU '%s' (%d bits)",
				   eq + 1, term, c->pmu->name,
				   __builtin_popcountll(f->mask));
	c->nr_set++;
	return 0;
}

/* list is written to (split at commas) */
static int terms__apply(struct terms_ctx *c, char *list, bool in_alias)
{
	char *term, *save = NULL;
	int ret = 0;

	for (term = strtok_r(list, ",", &save); term && !ret;
	     term = strtok_r(NULL, ",", &save))
		ret = terms__apply_one(c, term, in_alias);
	return ret;
}

/* perf's modifiers after the last slash: u, k, h, each once */
static int terms__apply_modifiers(struct terms_ctx *c, const char *mod)
{
	bool u = false, k = false, h = false;

	for (const char *p = mod; *p; p++) {
		bool *seen = *p == 'u' ? &u : *p == 'k' ? &k : *p == 'h' ? &h : NULL;

		if (!seen || *seen)
			return terms__fail(c, "bad modifier '%s' (u, k, h)", mod);
		*seen = true;
	}
	if (*mod) {
		c->attr->exclude_user = !u;
		c->attr->exclude_kernel = !k;
		c->attr->exclude_hv = !h;
	}
	return 0;
}

int pmu_terms__resolve(const struct pmus *pmus, const char *name,
		       struct perf_event_attr *attr,
		       const struct pmu_sysfs **pmu, char *err, size_t errlen)
{
	struct terms_ctx c = { .pmus = pmus, .attr = attr, .event = name,
			       .err = err, .errlen = errlen };
	const char *slash = strchr(name, '/'), *last = strrchr(name, '/');
	char pmu_name[PMU_NAME_LEN], list[TERMS_LEN];
	size_t n = slash - name;

	memset(attr, 0, sizeof(*attr));
	if (last == slash || n >= sizeof(pmu_name) || !n ||
	    (size_t)(last - slash) >= sizeof(list))
		return terms__fail(&c, "not in the PMU/term=value,.../ syntax");
	memcpy(pmu_name, name, n);
	pmu_name[n] = '\0';
	c.pmu = pmus__find(pmus, pmu_name);
	if (!c.pmu) {
		snprintf(err, errlen, "event '%s': unknown PMU '%s' (see %s)",
			 name, pmu_name, PMU_SYSFS_ROOT);
		return -EINVAL;
	}
	attr->type = c.pmu->type;
	memcpy(list, slash + 1, last - slash - 1);
	list[last - slash - 1] = '\0';
	if (!*list)
		return terms__fail(&c, "no terms (want PMU/term=value,.../)");
	if (terms__apply(&c, list, false) ||
	    terms__apply_modifiers(&c, last + 1))
		return -EINVAL;
	if (c.hw && c.nr_set)
		return terms__fail(&c, "a generic hardware event takes no other terms");
	*pmu = c.pmu;
	return 0;
}
