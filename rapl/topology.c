// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * CPU -> package from sysfs. Packages get dense indexes in
 * physical_package_id order, so per-package arrays stay small whatever the
 * ids are (some platforms number sockets sparsely, some report -1, which
 * is then an id like any other).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/cpu_topo.h"
#include "rapl/files.h"
#include "rapl/topology.h"

static void cpu_topology__reindex(struct cpu_topology *t)
{
	int cpu, i;

	for (i = 0; i < t->nr_packages; i++)
		t->nr_cpus[i] = 0;
	for (cpu = 0; cpu < t->ncpus; cpu++) {
		i = -1;
		if (t->phys_of_cpu[cpu] != CPU_TOPOLOGY_UNKNOWN)
			i = cpu_topology__index(t, t->phys_of_cpu[cpu]);
		if (i < 0)
			i = -1;
		t->pkg_of_cpu[cpu] = i;
		if (i >= 0)
			t->nr_cpus[i]++;
	}
}

int cpu_topology__index(const struct cpu_topology *t, int phys_id)
{
	int i;

	for (i = 0; i < t->nr_packages; i++)
		if (t->pkg_id[i] == phys_id)
			return i;
	return -ENOENT;
}

static int cpu_topology__insert(struct cpu_topology *t, int phys_id)
{
	int i = cpu_topology__index(t, phys_id);

	if (i >= 0)
		return i;
	if (t->nr_packages == ENERGY_MAX_PACKAGES)
		return -E2BIG;
	for (i = t->nr_packages; i > 0 && t->pkg_id[i - 1] > phys_id; i--)
		t->pkg_id[i] = t->pkg_id[i - 1];
	t->pkg_id[i] = phys_id;
	t->nr_packages++;
	return i;
}

int cpu_topology__add_package(struct cpu_topology *t, int phys_id)
{
	int i = cpu_topology__insert(t, phys_id);

	if (i >= 0)
		cpu_topology__reindex(t);
	return i;
}

int cpu_topology__load(struct cpu_topology *t, const char *cpu_root, int ncpus,
		       char *err, size_t errlen)
{
	int cpu, id, known = 0, ret = 0;

	memset(t, 0, sizeof(*t));
	if (!cpu_root)
		cpu_root = ENERGY_CPU_ROOT;
	if (ncpus <= 0) {
		snprintf(err, errlen, "bad CPU count %d", ncpus);
		ret = -EINVAL;
		goto out;
	}
	t->ncpus = ncpus;
	t->phys_of_cpu = calloc(ncpus, sizeof(*t->phys_of_cpu));
	t->pkg_of_cpu = calloc(ncpus, sizeof(*t->pkg_of_cpu));
	if (!t->phys_of_cpu || !t->pkg_of_cpu) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	for (cpu = 0; cpu < ncpus; cpu++) {
		t->phys_of_cpu[cpu] = CPU_TOPOLOGY_UNKNOWN;
		/* offline CPUs have no topology directory: unknown */
		if (cpu_topo__read_id(cpu_root, cpu, "physical_package_id", &id))
			continue;
		ret = cpu_topology__insert(t, id);
		if (ret < 0) {
			snprintf(err, errlen, "more than %d packages under %s",
				 ENERGY_MAX_PACKAGES, cpu_root);
			goto out;
		}
		ret = 0;
		t->phys_of_cpu[cpu] = id;
		known++;
	}
	if (!known) {
		snprintf(err, errlen,
			 "no CPU topology under %s (cpuN/topology/physical_package_id)",
			 cpu_root);
		ret = -ENOENT;
		goto out;
	}
	cpu_topology__reindex(t);
out:
	if (ret)
		cpu_topology__free(t);
	return ret;
}

void cpu_topology__free(struct cpu_topology *t)
{
	free(t->phys_of_cpu);
	free(t->pkg_of_cpu);
	memset(t, 0, sizeof(*t));
}
