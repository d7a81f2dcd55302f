// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The energy split, pure: each package's energy goes to the keys in
 * proportion to the split metric (cycles, else cpu-clock) they counted on
 * that package's CPUs. Packages are split separately because their power
 * differs: a key that ran only on socket 1 gets none of socket 0's energy.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include "rapl/energy.h"

static bool value__ok(double v)
{
	return isfinite(v) && v >= 0;
}

static int energy_split__check(const struct energy_split *sp)
{
	int n = sp->nr_keys, np = sp->nr_packages, i;

	if (n <= 0 || np <= 0 || !sp->pkg_j || !sp->m ||
	    sp->idle_key < 0 || sp->idle_key >= n ||
	    sp->static_key < 0 || sp->static_key >= n ||
	    !value__ok(sp->static_j))
		return -EINVAL;
	for (i = 0; i < np; i++)
		if (!value__ok(sp->pkg_j[i]) ||
		    (sp->m_all && !value__ok(sp->m_all[i])))
			return -EINVAL;
	for (i = 0; i < n * np; i++)
		if (!value__ok(sp->m[i]))
			return -EINVAL;
	return 0;
}

static double energy_split__m_all(const struct energy_split *sp, int p)
{
	double sum = 0;
	int k;

	if (sp->m_all)
		return sp->m_all[p];
	for (k = 0; k < sp->nr_keys; k++)
		sum += sp->m[k * sp->nr_packages + p];
	return sum;
}

int energy_split__compute(const struct energy_split *sp, double *out_j)
{
	int np = sp->nr_packages, k, p, err;

	err = energy_split__check(sp);
	if (err)
		goto out;
	memset(out_j, 0, sp->nr_keys * sizeof(*out_j));
	for (p = 0; p < np; p++) {
		double e = sp->pkg_j[p], s, all;

		if (sp->pkg_valid && !sp->pkg_valid[p])
			continue;
		/* static power first: never more than was measured */
		s = e < sp->static_j ? e : sp->static_j;
		out_j[sp->static_key] += s;
		e -= s;
		all = energy_split__m_all(sp, p);
		/*
		 * Nothing counted on this package (its CPUs offline, or the
		 * split metric not counted there): the energy was still spent,
		 * by no key we can name, so it goes to the idle key rather
		 * than being dropped, which keeps the sum equal to the
		 * measured energy.
		 */
		if (!(all > 0)) {
			out_j[sp->idle_key] += e;
			continue;
		}
		for (k = 0; k < sp->nr_keys; k++)
			out_j[k] += e * (sp->m[k * np + p] / all);
	}
out:
	return err;
}
