/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A CPU's place in the machine, from sysfs (cpuN/topology/): its package,
 * die and core ids, as perf's --per-socket, --per-die and --per-core
 * group CPUs. Read by rapl (packages) and the front ends (dies, cores).
 */
#ifndef COMMON_CPU_TOPO_H
#define COMMON_CPU_TOPO_H

#include <stdbool.h>

#define CPU_TOPO_ROOT "/sys/devices/system/cpu"

struct cpu_place {
	int pkg;	/* physical_package_id */
	int die;	/* die_id: 0 on kernels without it (before 5.2) */
	int core;	/* core_id, unique within its die */
	int node;	/* the NUMA node of its cpuN/nodeM link; 0 without one */
};

/* cpuN/topology/NAME under root as an int: 0 with *id set, -ENOENT when
 * absent (an offline CPU), -EINVAL when not a number. */
int cpu_topo__read_id(const char *root, int cpu, const char *name, int *id);
/* Package, die and core of cpu under root (NULL: CPU_TOPO_ROOT); 0 or -errno. */
int cpu_place__read(const char *root, int cpu, struct cpu_place *p);
/* root/online ("0-3,8-11", root NULL: CPU_TOPO_ROOT): online[cpu] set
 * for each online CPU below ncpus; 0, or -errno (-EINVAL: none, or not a
 * CPU list). */
int cpu_topo__read_online(const char *root, bool *online, int ncpus);

#endif
