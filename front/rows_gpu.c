// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The GPUs' part of the rows (--gpu): a row's keys carry their part of
 * the GPUs' energy and SM time in their counts (counts.gpu, summed like
 * the events up the cgroup tree, into containers, pods and namespaces),
 * the system row the GPUs' measured energy, each GPU's own figures with
 * it. Energy the GPUs measured that no process's SM time took is the idle
 * task's (process 0, the root cgroup, the host container), so the rows
 * of a partition add up to the GPUs' energy, as they do to the CPUs'.
 */
#include <math.h>
#include "front/row_set.h"

static bool has_gpu(enum scope s)
{
	return s == SCOPE_SYSTEM || s == SCOPE_COMMAND || s == SCOPE_CGROUP ||
	       s == SCOPE_CONTAINER || s == SCOPE_POD || s == SCOPE_NAMESPACE ||
	       s == SCOPE_PROCESS;
}

void row_set__gpu(const struct aggregate *a, double dt, struct row_set *rs)
{
	double sys_j = 0, sys_s = 0;

	for (int i = 0; i < a->nr_gpu; i++) {
		if (!a->gpu[i].valid)
			continue;
		sys_j += a->gpu[i].energy_j;
		sys_s += a->gpu[i].sm_s;
	}
	for (int i = 0; i < rs->nr; i++) {
		struct row *r = &rs->rows[i];
		double j = r->counts.gpu.uj / 1e6, s = r->counts.gpu.sm_ns / 1e9;

		if (!has_gpu(r->scope))
			continue;
		if (r->scope == SCOPE_SYSTEM) {
			j = sys_j;
			s = sys_s;
			r->gpus = a->gpu;
			r->nr_gpus = a->nr_gpu;
		}
		r->has_gpu = true;
		r->gpu_energy_j = a->gpu_valid ? j : NAN;
		r->gpu_util = a->gpu_valid && dt > 0 ? s / dt : NAN;
	}
}
