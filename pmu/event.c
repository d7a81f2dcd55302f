// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Event lists -> perf_event_attr, and the per-CPU counting events.
 *
 * Names are resolved by libpfm4 alone: its "perf" PMU knows the generic
 * names perf users type (cycles, cs, L1-dcache-load-misses...), its
 * "perf_raw" PMU the rNNNN syntax, and the CPU's own PMU tables the
 * PMU-specific names (INST_RETIRED:ANY_P). We only add what libpfm4 does
 * not do: perf's clustered modifiers (cycles:uk), list syntax, and the
 * checks that keep an event a plain per-CPU counter (no sampling, no cpu=,
 * no uncore PMU).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
/* linux/perf_event.h (via event.h) first: libpfm4 then skips its copy */
#include "pmu/event.h"
#include "pmu/terms.h"
#include <perfmon/pfmlib_perf_event.h>

/* perf's modifier letters that libpfm4 takes one per colon */
#define PERF_MODIFIERS "ukh"

int pmu__init(char *err, size_t errlen)
{
	static int pfm_ret = 1;	/* not called yet: no PFM_ code is positive */
	int ret = 0;

	if (pfm_ret > 0)
		pfm_ret = pfm_initialize();
	if (pfm_ret != PFM_SUCCESS) {
		ret = -ENODEV;
		snprintf(err, errlen, "libpfm4 initialisation failed: %s",
			 pfm_strerror(pfm_ret));
	}
	return ret;
}

/*
 * perf takes "cycles:uk"; libpfm4 wants "cycles:u:k". Rewrite a last
 * modifier made only of distinct u/k/h letters, two or more of them.
 * Returns 0 when name was rewritten into buf, -ENOENT when it has no such
 * modifier.
 */
static int event_name__expand_modifiers(const char *name, char *buf,
					size_t len)
{
	const char *mod = strrchr(name, ':');
	size_t prefix, i, n;
	int ret = -ENOENT;

	if (!mod || mod == name)
		goto out;
	prefix = mod - name;
	mod++;
	n = strlen(mod);
	if (n < 2 || n > strlen(PERF_MODIFIERS))
		goto out;
	for (i = 0; i < n; i++) {
		if (!strchr(PERF_MODIFIERS, mod[i]) ||
		    memchr(mod, mod[i], i))
			goto out;
	}
	if (prefix + 2 * n + 1 > len)
		goto out;
	memcpy(buf, name, prefix);
	for (i = 0; i < n; i++) {
		buf[prefix + 2 * i] = ':';
		buf[prefix + 2 * i + 1] = mod[i];
	}
	buf[prefix + 2 * n] = '\0';
	ret = 0;
out:
	return ret;
}

/* One libpfm4 call; returns a PFM_ERR_ code, the event index in *idx. */
static int pfm__encode(const char *name, struct perf_event_attr *attr,
		       int *idx, int *cpu)
{
	pfm_perf_encode_arg_t arg;
	int ret;

	memset(attr, 0, sizeof(*attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = attr;
	arg.size = sizeof(arg);
	arg.cpu = -1;
	ret = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3,
					PFM_OS_PERF_EVENT_EXT, &arg);
	*idx = arg.idx;
	*cpu = arg.cpu;
	return ret;
}

/* Is libpfm4 event idx on a socket-level (uncore) PMU? Its PMU name too. */
static bool pfm_event__is_uncore(int idx, const char **pmu_name)
{
	pfm_event_info_t info;
	pfm_pmu_info_t pinfo;

	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	if (pfm_get_event_info(idx, PFM_OS_NONE, &info) != PFM_SUCCESS)
		return false;
	memset(&pinfo, 0, sizeof(pinfo));
	pinfo.size = sizeof(pinfo);
	if (pfm_get_pmu_info(info.pmu, &pinfo) != PFM_SUCCESS)
		return false;
	*pmu_name = pinfo.name;
	return pinfo.type == PFM_PMU_TYPE_UNCORE;
}

/* libpfm4's refusal of name, as -EINVAL and a message naming it */
static int pfm_err__explain(int pfm_ret, const char *name, char *err,
			    size_t errlen)
{
	switch (pfm_ret) {
	case PFM_ERR_NOTFOUND:
	case PFM_ERR_INVAL:
		snprintf(err, errlen,
			 "unknown event '%s' (see 'emon-perf list')", name);
		break;
	case PFM_ERR_ATTR:
	case PFM_ERR_ATTR_VAL:
	case PFM_ERR_ATTR_SET:
	case PFM_ERR_UMASK:
	case PFM_ERR_FEATCOMB:
		snprintf(err, errlen, "bad modifier in event '%s': %s", name,
			 pfm_strerror(pfm_ret));
		break;
	case PFM_ERR_NOTSUPP:
		snprintf(err, errlen,
			 "event '%s' cannot be used here: its PMU is missing",
			 name);
		break;
	default:
		snprintf(err, errlen, "cannot resolve event '%s': %s", name,
			 pfm_strerror(pfm_ret));
		break;
	}
	return -EINVAL;
}

/*
 * What libpfm4 accepts but a per-CPU counter shared by every dimension
 * cannot honour: sampling periods, a fixed CPU, socket-level PMUs.
 */
static int event__check_counting(const struct pmu_event *e, int idx, int cpu,
				 char *err, size_t errlen)
{
	const char *pmu_name = "";
	int ret = -EINVAL;

	if (e->attr.sample_period || e->attr.freq)
		snprintf(err, errlen,
			 "event '%s': period and freq are for sampling; emon-perf counts",
			 e->name);
	else if (cpu >= 0)
		snprintf(err, errlen,
			 "event '%s': cpu= is not supported, events count on every CPU",
			 e->name);
	else if (pfm_event__is_uncore(idx, &pmu_name))
		snprintf(err, errlen,
			 "event '%s' is on uncore PMU '%s'; emon-perf counts per-CPU core events only",
			 e->name, pmu_name);
	else
		ret = 0;
	return ret;
}

/*
 * Software events that the sched_switch program sees for itself, unless
 * a modifier narrows them (:u, :k; libpfm4 always sets exclude_hv, which
 * no software event heeds) or EMON_SWITCH_EVENTS=counters asks for the
 * read helper; other software events but the clocks are loaded in place.
 */
static enum pmu_event_from event__from(const struct perf_event_attr *a)
{
	const char *env = getenv("EMON_SWITCH_EVENTS");
	enum pmu_event_from in_place = PMU_FROM_IN_PLACE;

	if (a->type != PERF_TYPE_SOFTWARE || (env && !strcmp(env, "counters")))
		return PMU_FROM_COUNTER;
	if (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK)
		in_place = PMU_FROM_COUNTER;	/* only a read brings it up to date */
	if (a->exclude_user || a->exclude_kernel || a->exclude_idle)
		return in_place;
	switch (a->config) {
	case PERF_COUNT_SW_CPU_CLOCK:
	case PERF_COUNT_SW_TASK_CLOCK:
		return PMU_FROM_CLOCK;
	case PERF_COUNT_SW_CONTEXT_SWITCHES:
		return PMU_FROM_SWITCHES;
	case PERF_COUNT_SW_CPU_MIGRATIONS:
		return PMU_FROM_MIGRATIONS;
	default:
		return in_place;
	}
}

/* Counting, not sampling; enabled and running times for the scaling. */
static void event__set_counting(struct pmu_event *e)
{
	struct perf_event_attr *a = &e->attr;

	a->size = sizeof(*a);
	a->disabled = 0;
	a->inherit = 0;
	a->sample_period = 0;
	a->sample_type = 0;
	a->freq = 0;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING;
	e->is_time = a->type == PERF_TYPE_SOFTWARE &&
		     (a->config == PERF_COUNT_SW_CPU_CLOCK ||
		      a->config == PERF_COUNT_SW_TASK_CLOCK);
	e->from = event__from(a);
}

/*
 * libpfm4's names for the core PMUs sysfs calls otherwise, so that an
 * event of one (INST_RETIRED:ANY_P on adl_glc) is looked up on the others
 * too. Alder Lake's adl_glc/adl_grt and the Cortex-A72 came in libpfm4
 * 4.14; with an older one a PMU-specific name resolves on the host's one
 * PMU that libpfm4 detects, and counts there alone.
 */
static const struct {
	const char *pfm, *sysfs;
} pfm_pmus[] = {
	{ "adl_glc", "cpu_core" }, { "adl_grt", "cpu_atom" },
	{ "mtl_rwc", "cpu_core" }, { "mtl_cmt", "cpu_atom" },
	{ "arm_ac53", "armv8_cortex_a53" }, { "arm_ac55", "armv8_cortex_a55" },
	{ "arm_ac57", "armv8_cortex_a57" }, { "arm_ac72", "armv8_cortex_a72" },
	{ "arm_ac76", "armv8_cortex_a76" },
};

/* The libpfm4 name, present here, of sysfs PMU name; NULL if none */
static const char *pfm_pmu__of_sysfs(const char *name)
{
	pfm_pmu_info_t pinfo;

	for (size_t i = 0; i < sizeof(pfm_pmus) / sizeof(pfm_pmus[0]); i++) {
		if (strcmp(pfm_pmus[i].sysfs, name))
			continue;
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		for (pfm_pmu_t p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
			if (!pfm_get_pmu_info(p, &pinfo) && pinfo.is_present &&
			    !strcmp(pinfo.name, pfm_pmus[i].pfm))
				return pfm_pmus[i].pfm;
		}
	}
	return NULL;
}

/* The core PMU libpfm4's event idx (typed type) is for, NULL if none */
static const struct pmu_sysfs *pfm_event__core_pmu(const struct pmus *p,
						   int idx, __u32 type)
{
	const char *pfm_name = "";

	for (int i = 0; i < p->nr; i++) {
		if (p->pmu[i].is_core && type >= PERF_TYPE_MAX &&
		    p->pmu[i].type == type)
			return &p->pmu[i];
	}
	pfm_event__is_uncore(idx, &pfm_name);
	for (size_t i = 0; i < sizeof(pfm_pmus) / sizeof(pfm_pmus[0]); i++) {
		const struct pmu_sysfs *pmu = pmus__find(p, pfm_pmus[i].sysfs);

		if (!strcmp(pfm_pmus[i].pfm, pfm_name) && pmu && pmu->is_core)
			return pmu;
	}
	return NULL;
}

/*
 * A PMU-specific libpfm4 event on a machine of several core PMUs: its own
 * PMU counts it as encoded, each other one under libpfm4's name for it,
 * where libpfm4 has the event there; elsewhere it is absent.
 */
static int event__plan_pfm(struct pmu_event *e, const struct pmus *p, int idx,
			   char *err, size_t errlen)
{
	const struct pmu_sysfs *own = pfm_event__core_pmu(p, idx, e->attr.type);
	const char *base = strstr(e->name, "::"), *pfm_name;
	char name[PMU_EVENT_NAME_LEN + 32];
	struct pmu_event_variant *v;
	int ret, i, vidx, cpu;

	ret = pmu_event__plan(e, p, NULL, err, errlen);
	if (ret || !own || p->nr_core < 2)
		return ret;	/* a PMU we cannot tell: raw on every core */
	base = base ? base + 2 : e->name;
	e->nr_variants = 0;
	for (i = 0; i < p->nr && e->nr_variants < PMU_EVENT_MAX_VARIANTS; i++) {
		if (!p->pmu[i].is_core)
			continue;
		v = &e->variant[e->nr_variants++];
		memset(v, 0, sizeof(*v));
		v->pmu = &p->pmu[i];
		v->attr = e->attr;
		v->attr.type = p->pmu[i].type;
		if (v->pmu == own)
			continue;
		pfm_name = pfm_pmu__of_sysfs(v->pmu->name);
		snprintf(name, sizeof(name), "%s::%s", pfm_name ?: "", base);
		v->absent = !pfm_name ||
			    pfm__encode(name, &v->attr, &vidx, &cpu) != PFM_SUCCESS;
		v->attr.type = p->pmu[i].type;
	}
	return 0;
}

/* A libpfm4 name: generic, raw, or PMU-specific */
static int event__resolve_pfm(struct pmu_event *e, const char *name,
			      char *err, size_t errlen)
{
	char expanded[PMU_EVENT_NAME_LEN * 2];
	int ret, pfm_ret, idx, cpu;

	ret = pmu__init(err, errlen);
	if (ret)
		return ret;
	pfm_ret = pfm__encode(name, &e->attr, &idx, &cpu);
	if (pfm_ret == PFM_ERR_ATTR &&
	    !event_name__expand_modifiers(name, expanded, sizeof(expanded)))
		pfm_ret = pfm__encode(expanded, &e->attr, &idx, &cpu);
	if (pfm_ret != PFM_SUCCESS)
		return pfm_err__explain(pfm_ret, name, err, errlen);
	ret = event__check_counting(e, idx, cpu, err, errlen);
	if (ret)
		return ret;
	event__set_counting(e);
	if (e->attr.type == PERF_TYPE_RAW || e->attr.type >= PERF_TYPE_MAX)
		return event__plan_pfm(e, pmus__get(), idx, err, errlen);
	return pmu_event__plan(e, pmus__get(), NULL, err, errlen);
}

int pmu_event__resolve(struct pmu_event *e, const char *name,
		       char *err, size_t errlen)
{
	const struct pmu_sysfs *pmu;
	int ret;

	memset(e, 0, sizeof(*e));
	if (strlen(name) >= sizeof(e->name)) {
		ret = -EINVAL;
		snprintf(err, errlen,
			 "event name too long: '%.32s...' (at most %zu characters)",
			 name, sizeof(e->name) - 1);
		goto out;
	}
	strcpy(e->name, name);
	if (!pmu_terms__is_pmu_event(name)) {
		ret = event__resolve_pfm(e, name, err, errlen);
		goto out;
	}
	ret = pmu_terms__resolve(pmus__get(), name, &e->attr, &pmu, err, errlen);
	if (ret)
		goto out;
	event__set_counting(e);
	ret = pmu_event__plan(e, pmus__get(), pmu, err, errlen);
out:
	return ret;
}

/*
 * Why element i of spec, ending at end, is empty: the three ways
 * users get there are a stray comma at either end or two in a row.
 */
static bool str__is_blank(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return !*s;
}

static int spec__explain_empty(const char *spec, const char *end, int i,
			       char *err, size_t errlen)
{
	if (str__is_blank(spec))
		snprintf(err, errlen, "empty event list");
	else if (!*end)
		snprintf(err, errlen, "trailing comma in event list '%s'", spec);
	else if (i == 0)
		snprintf(err, errlen, "leading comma in event list '%s'", spec);
	else
		snprintf(err, errlen,
			 "empty event name (two commas in a row) in event list '%s'",
			 spec);
	return -EINVAL;
}

/*
 * The comma ending the event at p: none inside a PMU's /terms,.../ (a
 * group's braces do not hide theirs: each member is an element)
 */
static const char *spec__next_comma(const char *p)
{
	bool in_terms = false;

	for (; *p; p++) {
		if (*p == '/')
			in_terms = !in_terms;
		else if (*p == ',' && !in_terms)
			return p;
	}
	return NULL;
}

/* An event list split up: names, and the {group} each one is in */
struct spec_names {
	char name[EMON_MAX_EVENTS][PMU_EVENT_NAME_LEN];
	int group[EMON_MAX_EVENTS];	/* index of its group's first, or -1 */
	int open;			/* first of the group not closed yet, or -1 */
	int max;			/* entries to fill */
};

/*
 * perf's {a,b}:mods: the modifiers apply to every event of the group
 * (cycles:u; after a PMU's last slash, cpu/cycles/u). Only u, k, h.
 */
static int spec__group_modifiers(struct spec_names *sn, int first, int last,
				 const char *mod, const char *spec,
				 char *err, size_t errlen)
{
	size_t n = strlen(mod), len;

	if (!n)
		return 0;
	if (*mod != ':' || n < 2 || strspn(mod + 1, PERF_MODIFIERS) != n - 1) {
		snprintf(err, errlen,
			 "bad group modifier '%s' in event list '%s' (u, k, h after a colon)",
			 mod, spec);
		return -EINVAL;
	}
	for (int i = first; i <= last && i < sn->max; i++) {
		char *name = sn->name[i];

		len = strlen(name);
		if (len + n >= PMU_EVENT_NAME_LEN) {
			snprintf(err, errlen,
				 "event name too long: '%.32s...' (at most %d characters)",
				 name, PMU_EVENT_NAME_LEN - 1);
			return -EINVAL;
		}
		strcpy(name + len, name[len - 1] == '/' ? mod + 1 : mod);
	}
	return 0;
}

/*
 * The braces of element i, p[0..*len): a '{' first opens a group, a '}'
 * closes it, its modifiers after it into mod (empty: none). Takes them
 * off p and *len; *closes says whether this element ends a group.
 */
static int spec__braces(struct spec_names *sn, int i, const char **p,
			size_t *len, char *mod, size_t modlen, bool *closes,
			const char *spec, char *err, size_t errlen)
{
	const char *close;
	size_t n;

	*closes = false;
	mod[0] = '\0';
	if (**p == '{') {
		if (sn->open >= 0)
			goto nested;
		sn->open = i;
		(*p)++;
		(*len)--;
	}
	if (memchr(*p, '{', *len))
		goto nested;
	close = memchr(*p, '}', *len);
	if (!close)
		return 0;
	if (sn->open < 0) {
		snprintf(err, errlen, "'}' without '{' in event list '%s'", spec);
		return -EINVAL;
	}
	n = *p + *len - close - 1;
	while (n && isspace((unsigned char)close[n]))
		n--;
	snprintf(mod, modlen, "%.*s", (int)n, close + 1);
	*len = close - *p;
	*closes = true;
	return 0;
nested:
	snprintf(err, errlen,
		 "misplaced '{' in event list '%s' (groups do not nest)", spec);
	return -EINVAL;
}

/* Element i, p[0..len) trimmed, into sn; 0 or -EINVAL with err set */
static int spec__element(struct spec_names *sn, int i, const char *p,
			 size_t len, const char *spec, const char *end,
			 char *err, size_t errlen)
{
	char mod[PMU_EVENT_NAME_LEN];
	bool closes;
	int ret, first;

	ret = spec__braces(sn, i, &p, &len, mod, sizeof(mod), &closes, spec,
			   err, errlen);
	if (ret)
		return ret;
	while (len && isspace((unsigned char)*p)) {
		p++;
		len--;
	}
	while (len && isspace((unsigned char)p[len - 1]))
		len--;
	if (!len && (closes || sn->open == i)) {
		snprintf(err, errlen, "empty event name in a group of event list '%s'",
			 spec);
		return -EINVAL;
	}
	if (!len)
		return spec__explain_empty(spec, end, i, err, errlen);
	if (len >= PMU_EVENT_NAME_LEN) {
		snprintf(err, errlen,
			 "event name too long: '%.32s...' (at most %d characters)",
			 p, PMU_EVENT_NAME_LEN - 1);
		return -EINVAL;
	}
	if (i < sn->max) {
		memcpy(sn->name[i], p, len);
		sn->name[i][len] = '\0';
		sn->group[i] = sn->open;
	}
	if (!closes)
		return 0;
	first = sn->open;
	sn->open = -1;
	return spec__group_modifiers(sn, first, i, mod, spec, err, errlen);
}

/*
 * Split spec at commas into sn's names, whitespace trimmed, the braces of
 * groups taken off. Counts every element in *nr, even past sn->max, so
 * that the caller can say how many were given.
 */
static int spec__split(const char *spec, struct spec_names *sn, int *nr,
		       char *err, size_t errlen)
{
	const char *p = spec, *end, *next;
	int ret = 0, i;

	sn->open = -1;
	for (i = 0; ; i++) {
		end = spec__next_comma(p);
		next = end ? end + 1 : NULL;
		if (!end)
			end = p + strlen(p);
		while (p < end && isspace((unsigned char)*p))
			p++;
		ret = spec__element(sn, i, p, end - p, spec, end, err, errlen);
		if (ret)
			goto out;
		if (!next)
			break;
		p = next;
	}
	if (sn->open >= 0) {
		ret = -EINVAL;
		snprintf(err, errlen, "'{' without '}' in event list '%s'", spec);
		goto out;
	}
	*nr = i + 1;
out:
	return ret;
}

/* Is ev[n] already in ev[0..n-1], by name or by what it counts? */
static int event_list__check_dup(const struct pmu_event *ev, int n,
				 char *err, size_t errlen)
{
	int i, ret = 0;

	for (i = 0; i < n; i++) {
		if (!strcmp(ev[i].name, ev[n].name)) {
			ret = -EINVAL;
			snprintf(err, errlen, "event '%s' given twice",
				 ev[n].name);
			goto out;
		}
		/* attrs are zeroed before libpfm4 fills them: memcmp is exact */
		if (!memcmp(&ev[i].attr, &ev[n].attr, sizeof(ev[n].attr))) {
			ret = -EINVAL;
			snprintf(err, errlen,
				 "event '%s' counts the same as '%s'",
				 ev[n].name, ev[i].name);
			goto out;
		}
	}
out:
	return ret;
}

/* The groups of names into the events resolved from them, at base */
static void event_list__set_groups(struct pmu_event_list *l,
				   const struct spec_names *sn, int nr)
{
	for (int i = 0; i < nr; i++) {
		struct pmu_event *e = &l->ev[l->nr + i];

		e->group_off = sn->group[i] < 0 ? 0 : sn->group[i] - i;
		e->group_nr = 1;
		if (sn->group[i] >= 0)
			e[e->group_off].group_nr = i - sn->group[i] + 1;
	}
}

int pmu_event_list__parse(struct pmu_event_list *l, const char *spec,
			  char *err, size_t errlen)
{
	struct spec_names sn;
	int ret, i, nr = 0;

	if (!spec) {
		ret = -EINVAL;
		snprintf(err, errlen, "empty event list");
		goto out;
	}
	sn.max = EMON_MAX_EVENTS - l->nr;
	ret = spec__split(spec, &sn, &nr, err, errlen);
	if (ret)
		goto out;
	if (l->nr + nr > EMON_MAX_EVENTS) {
		ret = -E2BIG;
		snprintf(err, errlen, "too many events: %d given, at most %d",
			 l->nr + nr, EMON_MAX_EVENTS);
		goto out;
	}
	/* resolve into the free slots; l->nr moves only when all are good */
	for (i = 0; i < nr; i++) {
		ret = pmu_event__resolve(&l->ev[l->nr + i], sn.name[i],
					 err, errlen);
		if (ret)
			goto out;
		ret = event_list__check_dup(l->ev, l->nr + i, err, errlen);
		if (ret)
			goto out;
	}
	event_list__set_groups(l, &sn, nr);
	l->nr += nr;
out:
	return ret;
}
