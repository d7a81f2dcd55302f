/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Event names -> perf_event_attr (libpfm4: generic, PMU-specific, raw,
 * modifiers) and the per-CPU counting events the BPF side reads.
 */
#ifndef PMU_EVENT_H
#define PMU_EVENT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include "emon.h"
#include "pmu/sysfs.h"

#define PMU_EVENT_NAME_LEN 128
#define PMU_EVENT_MAX_VARIANTS 8	/* core PMUs of one machine */

/*
 * Where an event's counts come from: its per-CPU perf_events, or the
 * sched_switch program itself, which sees every switch, its time and the
 * CPU a task comes in on: those need no perf_event and no read. Only
 * software events without modifiers are taken from the switch (a
 * modifier filters what perf counts). Other software events but the
 * clocks keep a count the kernel adds to in place: BPF loads it instead
 * of calling the read helper. EMON_SWITCH_EVENTS=counters in the
 * environment reads every event through the helper (how the engine
 * counted before: to compare, or to time both).
 */
enum pmu_event_from {
	PMU_FROM_COUNTER = 0,	/* read with the helper */
	PMU_FROM_IN_PLACE,	/* a software event's count, loaded in place */
	PMU_FROM_CLOCK,		/* cpu-clock, task-clock: switch timestamps */
	PMU_FROM_SWITCHES,	/* context-switches: the switches */
	PMU_FROM_MIGRATIONS,	/* cpu-migrations: CPU changes at switch-in */
};

/*
 * The event as one core PMU counts it, on that PMU's CPUs: a hybrid or
 * big.LITTLE machine opens each CPU's perf_event with the attr of the PMU
 * that covers it, and the counts add up into the event's one row.
 */
struct pmu_event_variant {
	const struct pmu_sysfs *pmu;	/* in pmus__get(): lives as long */
	struct perf_event_attr attr;
	bool absent;		/* the plan knows this PMU has no such event */
	int open_err;		/* -errno: this PMU cannot count it; or 0 */
};

struct pmu_event {
	char name[PMU_EVENT_NAME_LEN];	/* as the user wrote it */
	struct perf_event_attr attr;	/* where no variant covers a CPU */
	/* none: attr on every CPU; else only the CPUs of their PMUs count */
	int nr_variants;
	struct pmu_event_variant variant[PMU_EVENT_MAX_VARIANTS];
	bool is_time;		/* software clock: counts nanoseconds */
	enum pmu_event_from from;	/* a counter, or the switch itself */
	bool supported;		/* opened on every online CPU its PMUs cover */
	int open_err;		/* -errno of the first failed open, or 0 */
	int *fds;		/* [ncpus possible], -1 where not open */
	int nr_fds;		/* entries in fds: ncpus given to open */
	/*
	 * perf's {a,b} groups: the offset (<= 0) from this event to the
	 * first of its group in the list, and on that first one how many
	 * the group has (1: in no group). Offsets, not pointers: a list can
	 * be copied.
	 */
	int group_off;
	int group_nr;
};

struct pmu_event_list {
	int nr;
	struct pmu_event ev[EMON_MAX_EVENTS];
};

/*
 * Parse a comma-separated event list ("cycles,instructions:u,cpu-clock",
 * "INST_RETIRED:ANY_P", "r01c2", perf's groups "{cycles,instructions}:u")
 * and resolve every name with libpfm4. Each member of a group counts
 * against EMON_MAX_EVENTS. Appends to l, all or nothing: on error l->nr
 * is unchanged. Returns 0, or -EINVAL / -E2BIG with a one-line message
 * naming the culprit in err ("unknown event 'foo'", "too many events: 9
 * given, at most 8").
 */
int pmu_event_list__parse(struct pmu_event_list *l, const char *spec,
			  char *err, size_t errlen);

/* Does e need its per-CPU perf_events (not counted from the switch)? */
static inline bool pmu_event__has_counter(const struct pmu_event *e)
{
	return e->from == PMU_FROM_COUNTER || e->from == PMU_FROM_IN_PLACE;
}

/*
 * Resolve one event name (no commas) into e, which is reset first: attr set
 * up for counting (no sampling, TOTAL_TIME_ENABLED|RUNNING), is_time for
 * cpu-clock and task-clock. Returns 0 or -EINVAL with the reason in err.
 */
int pmu_event__resolve(struct pmu_event *e, const char *name,
		       char *err, size_t errlen);

/*
 * Plan e on the machine's core PMUs (the variants): a generic hardware
 * event on each through the extended type, a raw one with each PMU's
 * type, an event of PMU pmu (the PMU/term=value/ syntax; NULL for
 * others) on that PMU's CPUs alone. One core PMU (or none, as in a VM)
 * needs no variant. 0, or -EINVAL with the reason in err (an uncore PMU).
 */
int pmu_event__plan(struct pmu_event *e, const struct pmus *p,
		    const struct pmu_sysfs *pmu, char *err, size_t errlen);

/*
 * Open one counting event per online CPU (pid = -1), with the attr of the
 * variant covering the CPU; an event counted
 * from the switch (!pmu_event__has_counter()) opens nothing and is
 * supported, all its fds -1. An event no PMU
 * can count (ENOENT, EOPNOTSUPP, ENODEV...) is left !supported with
 * open_err set and returns 0; one that some core PMUs count and others
 * cannot is supported, fds -1 on the others' CPUs, their variants'
 * open_err set and said in one warning per PMU. EACCES/EPERM and others
 * return -errno with advice in err. ncpus = possible CPUs, online[cpu] says which to open.
 * Afterwards fds, when not NULL, has ncpus entries, -1 where not open,
 * even after an error: call pmu_event__close() in every case.
 */
int pmu_event__open(struct pmu_event *e, int ncpus, const bool *online,
		    char *err, size_t errlen);
void pmu_event__close(struct pmu_event *e);

/*
 * pmu_event__open() for each event of l, a group's members on each CPU
 * with the fd of its leader (the group's first event that has a counter)
 * as group_fd, so that the kernel schedules them together, as perf does.
 * A group one of whose events cannot be counted is <not supported> as a
 * whole: every one of its events is closed, !supported, and carries that
 * event's open_err. Returns 0 or the first -errno (err says it).
 */
int pmu_event_list__open(struct pmu_event_list *l, int ncpus,
			 const bool *online, char *err, size_t errlen);

/*
 * The event whose enabled and running times scale e's count: its
 * group's leader (members are scheduled with it, one pair for all), e
 * itself outside a group or when it leads.
 */
const struct pmu_event *pmu_event__scale_leader(const struct pmu_event *e);

/*
 * cpu came (back) online: close e's event there, if any, and open a new
 * one with the same attr (nothing for an event counted from the switch,
 * or on a CPU whose PMU cannot count it); a group's member joins its
 * leader's new one there, so leaders are reopened first. An event whose CPU went offline never counts
 * again, even once the CPU is back. Returns 0 or -errno (-ENODEV: cpu is
 * offline); fds[cpu] is -1 after a failure.
 */
int pmu_event__reopen_cpu(struct pmu_event *e, int cpu);

/*
 * Can e be counted on cpu? Opens it there (pid = -1) and closes it at once;
 * an event counted from the switch always can.
 * Returns 0 or -errno; e is not changed.
 */
int pmu_event__probe(const struct pmu_event *e, int cpu);

/*
 * The attr e opens with on cpu, NULL where it does not count: no
 * variant's PMU covers cpu, or that PMU cannot count e (*err then says
 * why, -ENOENT for no PMU).
 */
const struct perf_event_attr *pmu_event__attr_on(const struct pmu_event *e,
						 int cpu, int *err);

/*
 * How events are opened and closed: the system calls, or a test's
 * stand-ins that record the attrs each CPU gets and fail chosen opens.
 * open returns a descriptor or -1 with errno set, as the syscall does.
 */
struct pmu_sys_ops {
	int (*open)(const struct perf_event_attr *attr, pid_t pid, int cpu,
		    int group_fd, unsigned long flags);
	int (*close)(int fd);
	/* PERF_EVENT_IOC_ENABLE: a group's leader once its members joined */
	int (*enable)(int fd);
};

/* NULL: the system calls again */
void pmu_sys__set_ops(const struct pmu_sys_ops *ops);

/* Human reason for an open_err ("not supported on this PMU (a VM?)"). */
const char *pmu_event__strerror(int open_err);

/* pfm_initialize(), once per process; 0 or -errno with the reason in err. */
int pmu__init(char *err, size_t errlen);

/* emon-perf list: what this machine can count, one per line. */
int pmu__list(FILE *out, bool verbose);
/* For a libpfm4 PMU named like RAPL (amd64_rapl, rapl), list's marker:
 * whether this host has it (sysfs_root's power PMU, or powercap_root's
 * intel-rapl:0 zone), as check finds; NULL for any other PMU. */
const char *pmu__rapl_marker(const char *pmu, const char *sysfs_root,
			     const char *powercap_root);

#endif
