// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A GPU's energy of one read split among its processes by their SM time
 * (the rule is in rapl/gpu.h), and a read's processes merged over GPUs.
 * Pure: no I/O.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "rapl/gpu.h"

static int psample__cmp(const void *a, const void *b)
{
	const struct gpu_psample *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

int gpu_split__compute(double joules, struct gpu_psample *s, size_t n,
		       struct gpu_use *out, size_t *nout, double *idle_j,
		       double *util)
{
	size_t k = 0, periods = 0;
	double sum = 0;

	*nout = 0;
	*idle_j = joules;
	*util = 0;
	if (!isfinite(joules) || joules < 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (s[i].sm > 100)
			return -EINVAL;
	if (!n)
		return 0;
	qsort(s, n, sizeof(*s), psample__cmp);
	/* one entry per pid: its smUtil summed, and its number of samples */
	for (size_t i = 0, run = 0; i < n; i++) {
		if (!k || out[k - 1].pid != s[i].pid) {
			out[k++] = (struct gpu_use){ .pid = s[i].pid };
			run = 0;
		}
		out[k - 1].util += s[i].sm;
		if (++run > periods)
			periods = run;
	}
	for (size_t i = 0; i < k; i++) {
		out[i].util /= 100.0 * periods;
		sum += out[i].util;
	}
	for (size_t i = 0; sum > 1 && i < k; i++)
		out[i].util /= sum;
	*nout = k;
	return gpu_split__shares(joules, out, k, out, idle_j, util);
}

int gpu_split__shares(double joules, const struct gpu_use *shares, size_t n,
		      struct gpu_use *out, double *idle_j, double *util)
{
	double used = 0, sum = 0;

	*idle_j = joules;
	*util = 0;
	if (!isfinite(joules) || joules < 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		out[i] = (struct gpu_use){ shares[i].pid, joules * shares[i].util,
					   shares[i].util };
		used += out[i].joules;
		sum += out[i].util;
	}
	*util = sum;
	*idle_j = joules - used;
	/* all of it went to processes: rounding is not idle energy */
	if (*idle_j < 0 || (sum >= 1 - 1e-12 && *idle_j < joules * 1e-12))
		*idle_j = 0;
	return 0;
}

int gpu_use__merge(struct gpu_use *uses, size_t *n, size_t cap,
		   const struct gpu_use *add, size_t nadd)
{
	for (size_t i = 0; i < nadd; i++) {
		size_t lo = 0, hi = *n;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (uses[mid].pid < add[i].pid)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < *n && uses[lo].pid == add[i].pid) {
			uses[lo].joules += add[i].joules;
			uses[lo].util += add[i].util;
			continue;
		}
		if (*n >= cap)
			return -ENOSPC;
		for (size_t j = *n; j > lo; j--)
			uses[j] = uses[j - 1];
		uses[lo] = add[i];
		(*n)++;
	}
	return 0;
}
