/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Energy per key, per read period: each package's energy is split between
 * whatever ran on its CPUs in that period (and each core's or the
 * platform's, for a source that measures those: a core scope's package
 * splits what its cores leave), weighted by the split metric
 * (cycles, else cpu-clock) each one counted there. The split runs on the
 * exact slices of the read (the BPF buffers are quiescent), separately for
 * each partition of the work: CPUs, cgroups (each its own counts) and
 * processes (the idle task included), so each adds up to the packages'
 * energy. Pure: no I/O.
 */
#ifndef ENGINE_ATTRIBUTE_H
#define ENGINE_ATTRIBUTE_H

#include "engine/aggregate.h"
#include "engine/session/session.h"
#include "rapl/energy.h"

struct attr_input {
	const struct energy_sample *es;	/* this read's energy per package */
	int split_idx;		/* BPF index of the metric that splits */
	double static_j;	/* per package: --idle-watts x dt, kept out of
				 * the split and given to the idle task */
	__u64 root_cgid;	/* the idle task's cgroup */
	/* a source's core or platform units (es->nr_units): each CPU's,
	 * -1 none (rapl's energy_source__unit_of_cpu); NULL: no units */
	const int *unit_of_cpu;
};

/* Add this read's energy to a's CPUs, packages, cgroups and processes. */
int aggregate__add_energy(struct aggregate *a, const struct session_read *r,
			  const struct attr_input *in);

/*
 * CPU time of everything but the idle task per package, from one read:
 * what the model source turns into power. clock_idx is cpu-clock's BPF
 * index; out has a->npkg entries.
 */
void session_read__busy_ns(const struct session_read *r, const struct aggregate *a,
			   int clock_idx, double *out);

#endif
