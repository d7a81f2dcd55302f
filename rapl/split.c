// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The energy split, pure: each package's energy goes to the keys in
 * proportion to the split metric (cycles, else cpu-clock) they counted on
 * that package's CPUs. Packages are split separately because their power
 * differs: a key that ran only on socket 1 gets none of socket 0's energy.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
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

static int energy_split_units__check(const struct energy_split_units *sp)
{
	int n = sp->nr_keys, nu = sp->nr_units;

	if (n <= 0 || nu <= 0 || !sp->unit_j || !sp->m || !sp->key_unit ||
	    sp->idle_key < 0 || sp->idle_key >= n ||
	    sp->static_key < 0 || sp->static_key >= n ||
	    !value__ok(sp->static_j))
		return -EINVAL;
	for (int u = 0; u < nu; u++)
		if (!value__ok(sp->unit_j[u]))
			return -EINVAL;
	for (int k = 0; k < n; k++)
		if (!value__ok(sp->m[k]) || sp->key_unit[k] < -1 ||
		    sp->key_unit[k] >= nu)
			return -EINVAL;
	return 0;
}

int energy_split__units(const struct energy_split_units *sp, double *out_j)
{
	int n = sp->nr_keys, nu = sp->nr_units, err;
	double *all = NULL, *e = NULL;

	err = energy_split_units__check(sp);
	if (err)
		goto out;
	all = calloc(nu, sizeof(*all));
	e = calloc(nu, sizeof(*e));
	if (!all || !e) {
		err = -ENOMEM;
		goto out;
	}
	/* the dense split's sums, in its order: keys ascending per unit */
	for (int k = 0; k < n; k++)
		if (sp->key_unit[k] >= 0)
			all[sp->key_unit[k]] += sp->m[k];
	memset(out_j, 0, n * sizeof(*out_j));
	/* units ascending, as the dense split's packages */
	for (int u = 0; u < nu; u++) {
		double s;

		if (sp->unit_valid && !sp->unit_valid[u])
			continue;
		s = sp->unit_j[u] < sp->static_j ? sp->unit_j[u] : sp->static_j;
		out_j[sp->static_key] += s;
		e[u] = sp->unit_j[u] - s;
		if (!(all[u] > 0))
			out_j[sp->idle_key] += e[u];
	}
	for (int k = 0; k < n; k++) {
		int u = sp->key_unit[k];

		if (u < 0 || (sp->unit_valid && !sp->unit_valid[u]) || !(all[u] > 0))
			continue;
		out_j[k] += e[u] * (sp->m[k] / all[u]);
	}
out:
	free(all);
	free(e);
	return err;
}

double energy_power__joules(double prev_w, double cur_w, double dt, bool average)
{
	if (!isfinite(cur_w) || cur_w < 0 || (!average && (!isfinite(prev_w) || prev_w < 0)))
		return -1;
	if (!(dt > 0))
		return 0;
	return average ? cur_w * dt : (prev_w + cur_w) / 2 * dt;
}
