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
#include "emon.h"

#define PMU_EVENT_NAME_LEN 128

struct pmu_event {
	char name[PMU_EVENT_NAME_LEN];	/* as the user wrote it */
	struct perf_event_attr attr;
	bool is_time;		/* software clock: counts nanoseconds */
	bool supported;		/* opened on every online CPU */
	int open_err;		/* -errno of the first failed open, or 0 */
	int *fds;		/* [ncpus possible], -1 where not open */
	int nr_fds;		/* entries in fds: ncpus given to open */
};

struct pmu_event_list {
	int nr;
	struct pmu_event ev[EMON_MAX_EVENTS];
};

/*
 * Parse a comma-separated event list ("cycles,instructions:u,cpu-clock",
 * "INST_RETIRED:ANY_P", "r01c2") and resolve every name with libpfm4.
 * Appends to l, all or nothing: on error l->nr is unchanged. Returns 0, or
 * -EINVAL / -E2BIG with a one-line message naming the culprit in err
 * ("unknown event 'foo'", "too many events: 9 given, at most 8").
 */
int pmu_event_list__parse(struct pmu_event_list *l, const char *spec,
			  char *err, size_t errlen);

/*
 * Resolve one event name (no commas) into e, which is reset first: attr set
 * up for counting (no sampling, TOTAL_TIME_ENABLED|RUNNING), is_time for
 * cpu-clock and task-clock. Returns 0 or -EINVAL with the reason in err.
 */
int pmu_event__resolve(struct pmu_event *e, const char *name,
		       char *err, size_t errlen);

/*
 * Open one counting event per online CPU (pid = -1). An event this PMU
 * cannot count (ENOENT, EOPNOTSUPP, ENODEV...) is left !supported with
 * open_err set and returns 0; EACCES/EPERM and others return -errno with
 * advice in err. ncpus = possible CPUs, online[cpu] says which to open.
 * Afterwards fds, when not NULL, has ncpus entries, -1 where not open,
 * even after an error: call pmu_event__close() in every case.
 */
int pmu_event__open(struct pmu_event *e, int ncpus, const bool *online,
		    char *err, size_t errlen);
void pmu_event__close(struct pmu_event *e);

/*
 * cpu came (back) online: close e's event there, if any, and open a new
 * one with the same attr. An event whose CPU went offline never counts
 * again, even once the CPU is back. Returns 0 or -errno (-ENODEV: cpu is
 * offline); fds[cpu] is -1 after a failure.
 */
int pmu_event__reopen_cpu(struct pmu_event *e, int cpu);

/*
 * Can e be counted on cpu? Opens it there (pid = -1) and closes it at once.
 * Returns 0 or -errno; e is not changed.
 */
int pmu_event__probe(const struct pmu_event *e, int cpu);

/* Human reason for an open_err ("not supported on this PMU (a VM?)"). */
const char *pmu_event__strerror(int open_err);

/* pfm_initialize(), once per process; 0 or -errno with the reason in err. */
int pmu__init(char *err, size_t errlen);

/* emon-perf list: what this machine can count, one per line. */
int pmu__list(FILE *out, bool verbose);

#endif
