// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf list: the kernel's PMUs as sysfs has them, which PMU counts
 * on which CPUs and what each names (-e PMU/alias/, -e PMU/term=value/).
 * A machine of several core PMUs (hybrid, big.LITTLE) shows each one.
 */
#include <stdio.h>
#include "pmu/sysfs.h"

#define LIST_COL 50

static void pmu_sysfs__print(FILE *out, const struct pmu_sysfs *pmu,
			     bool verbose)
{
	char where[PMU_NAME_LEN + 48], cpus[64];

	if (pmu->has_cpus) {
		pmu_cpus__format(&pmu->cpus, cpus, sizeof(cpus));
		snprintf(where, sizeof(where), "core PMU, CPUs %s", cpus);
	} else {
		snprintf(where, sizeof(where), "%s", pmu->is_core ?
			 "core PMU, every CPU" : pmu->is_uncore ?
			 "uncore PMU, not countable per CPU" : "every CPU");
	}
	fprintf(out, "  %-*s [%s, type %u, %d event%s]\n", LIST_COL, pmu->name,
		where, pmu->type, pmu->nr_aliases,
		pmu->nr_aliases == 1 ? "" : "s");
	if (!verbose)
		return;
	fprintf(out, "    terms:");
	for (int i = 0; i < pmu->nr_formats; i++)
		fprintf(out, " %s", pmu->formats[i].name);
	fputc('\n', out);
	for (int i = 0; i < pmu->nr_aliases; i++)
		fprintf(out, "    %s/%s/ (%s)\n", pmu->name,
			pmu->aliases[i].name, pmu->aliases[i].terms);
}

void pmus__list(FILE *out, bool verbose)
{
	const struct pmus *p = pmus__get();
	int nr = 0;

	fprintf(out, "\nKernel PMUs (sysfs; -e PMU/alias/ or -e PMU/term=value,.../):\n\n");
	for (int i = 0; i < p->nr; i++) {
		/* software, tracepoint...: nothing to write between slashes */
		if (!p->pmu[i].nr_formats && !p->pmu[i].nr_aliases)
			continue;
		pmu_sysfs__print(out, &p->pmu[i], verbose);
		nr++;
	}
	if (!nr)
		fprintf(out, "  none with format or events\n");
}
