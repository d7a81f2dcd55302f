// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Which attr each core PMU counts an event with, as perf plans it
 * (tools/perf/util/parse-events.c, pmus.c): on a machine of two or more
 * core PMUs a generic hardware or cache event is opened on each, the
 * PMU named by the extended type in config's high 32 bits (x86 hybrid
 * since 5.13, Arm since 6.6); a raw one with each PMU's type; an event
 * written for one PMU (cpu_atom/event=0xc0/) on that PMU's CPUs. With one
 * core PMU, or none (a VM), the event keeps its one attr for every CPU,
 * as before.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "pmu/event.h"
#include "pmu/terms.h"

static struct pmu_event_variant *event__add_variant(struct pmu_event *e,
						    const struct pmu_sysfs *pmu)
{
	struct pmu_event_variant *v;

	if (e->nr_variants == PMU_EVENT_MAX_VARIANTS)
		return NULL;	/* its CPUs count nothing: fds -1 */
	v = &e->variant[e->nr_variants++];
	memset(v, 0, sizeof(*v));
	v->pmu = pmu;
	v->attr = e->attr;
	return v;
}

/* One variant per core PMU, its attr made for it by how e is typed. */
static void event__plan_each_core(struct pmu_event *e, const struct pmus *p)
{
	struct pmu_event_variant *v;

	for (int i = 0; i < p->nr; i++) {
		if (!p->pmu[i].is_core)
			continue;
		v = event__add_variant(e, &p->pmu[i]);
		if (!v)
			break;
		if (e->attr.type == PERF_TYPE_RAW)
			v->attr.type = p->pmu[i].type;
		else
			v->attr.config = pmu__hw_config(e->attr.config,
							p->pmu[i].type,
							p->nr_core);
	}
}

int pmu_event__plan(struct pmu_event *e, const struct pmus *p,
		    const struct pmu_sysfs *pmu, char *err, size_t errlen)
{
	__u32 type = e->attr.type;

	e->nr_variants = 0;
	if (pmu && pmu->is_uncore) {
		snprintf(err, errlen,
			 "event '%s' is on uncore PMU '%s'; emon-perf counts per-CPU core events only",
			 e->name, pmu->name);
		return -EINVAL;
	}
	if (pmu) {
		/* one PMU chosen: its CPUs alone, when it has some of its own */
		if (pmu->is_core && (pmu->has_cpus || p->nr_core > 1))
			event__add_variant(e, pmu);
		return 0;
	}
	if (p->nr_core < 2)
		return 0;
	if (type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE ||
	    type == PERF_TYPE_RAW)
		event__plan_each_core(e, p);
	return 0;
}
