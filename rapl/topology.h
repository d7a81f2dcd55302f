/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* CPU -> package from sysfs (topology.c), for the energy sources and the
 * engine; apart from rapl/energy.h, which includes it, so that the two
 * sides do not include each other. */
#ifndef RAPL_TOPOLOGY_H
#define RAPL_TOPOLOGY_H

#include <limits.h>
#include <stddef.h>

#define ENERGY_MAX_PACKAGES 64
#define ENERGY_CPU_ROOT "/sys/devices/system/cpu"

/* --- CPU -> package, from cpuN/topology/physical_package_id ------------- */

#define CPU_TOPOLOGY_UNKNOWN INT_MIN

struct cpu_topology {
	int ncpus;
	int *phys_of_cpu;	/* [ncpus] physical_package_id or CPU_TOPOLOGY_UNKNOWN */
	int *pkg_of_cpu;	/* [ncpus] dense package index, -1 unknown */
	int nr_packages;
	int pkg_id[ENERGY_MAX_PACKAGES];	/* dense index -> physical id, sorted */
	int nr_cpus[ENERGY_MAX_PACKAGES];
};

/* Read cpu_root/cpuN/topology/physical_package_id for N < ncpus; CPUs
 * without it (offline) are unknown. 0, -ENOENT when no CPU has it (err
 * set), -E2BIG, -ENOMEM. */
int cpu_topology__load(struct cpu_topology *t, const char *cpu_root, int ncpus,
		       char *err, size_t errlen);
/* Add a package no CPU belongs to (a RAPL zone of an offline package);
 * returns its dense index (indexes above it shift) or -E2BIG. */
int cpu_topology__add_package(struct cpu_topology *t, int phys_id);
/* Dense index of phys_id, or -ENOENT. */
int cpu_topology__index(const struct cpu_topology *t, int phys_id);
void cpu_topology__free(struct cpu_topology *t);

#endif /* RAPL_TOPOLOGY_H */
