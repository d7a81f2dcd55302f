/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kernel's PMUs as sysfs describes them: each directory of
 * /sys/bus/event_source/devices with its perf type, the CPUs it counts
 * on, the bit fields its events are made of (format/) and the events it
 * names (events/). perf plans hybrid and heterogeneous machines from the
 * same files.
 */
#ifndef PMU_SYSFS_H
#define PMU_SYSFS_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define PMU_SYSFS_ROOT "/sys/bus/event_source/devices"
#define PMU_NAME_LEN 64
#define PMU_TERM_LEN 32
#define PMU_MAX_CPUS 4096

/* A cpu set, "0-15,24" in sysfs */
struct pmu_cpus {
	__u64 bits[PMU_MAX_CPUS / 64];
};

/* format/NAME "config1:0-7,32-35": the bits of one attr word a term sets */
struct pmu_format {
	char name[PMU_TERM_LEN];
	int word;		/* 0: config, 1: config1, 2: config2 */
	__u64 mask;		/* its bits; a value fills them low to high */
};

/* events/NAME "event=0xc0,umask=0x00": a name for a list of terms */
struct pmu_alias {
	char name[PMU_NAME_LEN];
	char *terms;
};

struct pmu_sysfs {
	char name[PMU_NAME_LEN];
	__u32 type;
	bool is_core;		/* "cpu", or a PMU with a cpus file */
	bool has_cpus;		/* cpus file (hybrid, Arm): only those CPUs */
	bool is_uncore;		/* cpumask file: counts for a socket or die */
	struct pmu_cpus cpus;	/* with has_cpus */
	struct pmu_format *formats;
	int nr_formats;
	struct pmu_alias *aliases;	/* sorted by name */
	int nr_aliases;
	size_t cap_formats, cap_aliases;	/* common/array.h's */
};

struct pmus {
	struct pmu_sysfs *pmu;	/* sorted by name */
	int nr;
	int nr_core;
	size_t cap;
};

/*
 * Read every PMU under root (PMU_SYSFS_ROOT when NULL). A PMU whose type
 * file cannot be read is left out; a missing root gives no PMUs. Returns
 * 0 or -ENOMEM; call pmus__free() in every case.
 */
int pmus__load(struct pmus *p, const char *root);
void pmus__free(struct pmus *p);

/*
 * The process's PMUs, read once from the root pmus__set_root() chose
 * (tests point it at a fixture tree; NULL: PMU_SYSFS_ROOT). Never NULL:
 * a tree that cannot be read has no PMUs.
 */
const struct pmus *pmus__get(void);
void pmus__set_root(const char *root);

const struct pmu_sysfs *pmus__find(const struct pmus *p, const char *name);
const struct pmu_sysfs *pmus__core_of_cpu(const struct pmus *p, int cpu);

const struct pmu_format *pmu_sysfs__format(const struct pmu_sysfs *pmu,
					   const char *name);
const struct pmu_alias *pmu_sysfs__alias(const struct pmu_sysfs *pmu,
					 const char *name);
/* Does pmu count on cpu: a core PMU without a cpus file counts on all. */
bool pmu_sysfs__has_cpu(const struct pmu_sysfs *pmu, int cpu);

/* emon-perf list: each PMU with a format or events, -v with them */
void pmus__list(FILE *out, bool verbose);

/* "0-15,24" -> set; 0 or -EINVAL (bad syntax, a CPU past PMU_MAX_CPUS) */
int pmu_cpus__parse(struct pmu_cpus *set, const char *list);
bool pmu_cpus__has(const struct pmu_cpus *set, int cpu);
/* set as a cpu list again ("0-15,24"), for messages */
void pmu_cpus__format(const struct pmu_cpus *set, char *buf, size_t len);

/* "config1:0-7,32-35" -> f's word and mask; 0 or -EINVAL */
int pmu_format__parse(struct pmu_format *f, const char *spec);

#endif
