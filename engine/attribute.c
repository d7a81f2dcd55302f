// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * E(key) = sum over packages p of E(p) * m(key, p) / m(all, p), with
 * m(all, p) the sum of m over the partition's keys on p, so the keys of a
 * partition always add up to the measured energy. Every BPF entry is one
 * key on one CPU, so on one package; rapl's energy_split does the
 * arithmetic, with one extra key at the end for the idle task: it gets the
 * static power (--idle-watts) and a package's energy when nothing counted
 * the split metric there. A source's core or platform units are split the
 * same way after the packages, each key to its CPU's unit, and add to the
 * same rows: every scope adds up to its own measured joules.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "engine/attribute.h"

_Static_assert(AGG_ZONES == ENERGY_DOM_NR, "sub-zones of a package");

struct partition {
	int n;			/* keys, then one for the idle task */
	int *unit;		/* [n] */
	double *m;		/* [n] */
	double *out;		/* [n + 1] */
};

/* What a split divides: packages, or a source's cores or platform. */
struct units {
	int n;
	const int *of_cpu;	/* [ncpus], -1: none; NULL: the packages */
};

static int pkg_of(const struct aggregate *a, __u32 cpu)
{
	if ((int)cpu >= a->ncpus || !a->cpu_pkg || a->cpu_pkg[cpu] < 0)
		return 0;
	return a->cpu_pkg[cpu];
}

/* A CPU's unit; an unknown CPU's package is the first, as it always was. */
static int unit_of(const struct aggregate *a, const struct units *u, __u32 cpu)
{
	if (!u->of_cpu)
		return pkg_of(a, cpu);
	return (int)cpu < a->ncpus ? u->of_cpu[cpu] : -1;
}

static double scaled(const struct counts *c, int idx)
{
	double v, ratio;

	if (idx < 0 || !count__scaled(&c->c[idx], &v, &ratio))
		return 0;
	return v;
}

static int partition__init(struct partition *pt, int n)
{
	pt->n = 0;
	pt->unit = calloc(n + 1, sizeof(*pt->unit));
	pt->m = calloc(n + 1, sizeof(*pt->m));
	pt->out = calloc(n + 1, sizeof(*pt->out));
	return pt->unit && pt->m && pt->out ? 0 : -ENOMEM;
}

static void partition__exit(struct partition *pt)
{
	free(pt->unit);
	free(pt->m);
	free(pt->out);
}

static void partition__add(struct partition *pt, int unit, double m)
{
	pt->unit[pt->n] = unit;
	pt->m[pt->n++] = m;
}

/* Split; pt->out[pt->n] is the idle task's extra (its m is 0). */
static int partition__split(struct partition *pt, const struct units *u,
			    const double *unit_j, const bool *valid, double static_j)
{
	struct energy_split_units sp = {
		.nr_keys = pt->n + 1,
		.nr_units = u->n,
		.unit_j = unit_j,
		.unit_valid = valid,
		.key_unit = pt->unit,
		.m = pt->m,
		.idle_key = pt->n,
		.static_key = pt->n,
		.static_j = static_j,
	};

	pt->unit[pt->n] = -1;
	pt->m[pt->n] = 0;
	return energy_split__units(&sp, pt->out);
}

static int split_cpus(struct aggregate *a, const struct session_read *r,
		      const struct attr_input *in, const struct units *u,
		      const double *unit_j, const bool *valid)
{
	struct partition pt;
	int *ncpu_of = calloc(u->n, sizeof(*ncpu_of));
	double *m_of = calloc(u->n, sizeof(*m_of));
	int err = ncpu_of && m_of ? 0 : -ENOMEM;

	err = err ?: partition__init(&pt, a->ncpus);
	for (int cpu = 0; !err && cpu < a->ncpus; cpu++) {
		int k = unit_of(a, u, cpu);

		partition__add(&pt, k, scaled(&r->cpu[cpu], in->split_idx));
		if (k >= 0) {
			ncpu_of[k]++;
			m_of[k] += pt.m[cpu];
		}
	}
	err = err ?: partition__split(&pt, u, unit_j, valid, 0);
	for (int cpu = 0; !err && cpu < a->ncpus; cpu++)
		a->cpu_energy[cpu] += pt.out[cpu];
	/* a unit where nothing counted: its CPUs share alike */
	for (int cpu = 0; !err && cpu < a->ncpus; cpu++) {
		int k = unit_of(a, u, cpu);

		if (k < 0 || !valid[k] || !ncpu_of[k] || m_of[k] > 0)
			continue;
		a->cpu_energy[cpu] += unit_j[k] / ncpu_of[k];
	}
	if (ncpu_of && m_of)
		partition__exit(&pt);
	free(ncpu_of);
	free(m_of);
	return err;
}

/* A key of the read: a cgroup or a process on one CPU. */
struct key_item {
	__u64 id, id2;
	__u32 cpu;
	const struct counts *c;
	__u64 trees;	/* a process of these command trees */
};

/*
 * Split between the keys of one partition (cgroups, or processes) and the
 * per-CPU overflow rows, adding to the entries of map; the idle task's
 * extra goes to the entry idle_id (tgid 0, or the root cgroup).
 */
static int split_keys(struct aggregate *a, const struct attr_input *in,
		      const struct units *u, const double *unit_j,
		      const bool *valid, double static_j,
		      const struct key_item *items, size_t n,
		      const struct counts *ovf_read, struct idmap *map,
		      struct agg_entry *ovf, __u64 idle_id,
		      const struct session_read *r, bool trees)
{
	struct agg_entry *e;
	struct partition pt;
	int err;

	err = partition__init(&pt, n + a->ncpus);
	for (size_t i = 0; !err && i < n; i++)
		partition__add(&pt, unit_of(a, u, items[i].cpu), scaled(items[i].c, in->split_idx));
	for (int cpu = 0; !err && cpu < a->ncpus; cpu++)
		partition__add(&pt, unit_of(a, u, cpu), scaled(&ovf_read[cpu], in->split_idx));
	err = err ?: partition__split(&pt, u, unit_j, valid, static_j);
	for (size_t i = 0; !err && i < n; i++) {
		e = aggregate__entry(a, map, items[i].id, items[i].id2);
		if (!e)
			err = -ENOMEM;
		else
			e->energy_j += pt.out[i];
		for (int t = 0; trees && items[i].trees && t < a->ntrees; t++)
			if (items[i].trees & (1ULL << t))
				a->tree[t]->energy_j += pt.out[i];
	}
	for (int cpu = 0; !err && cpu < a->ncpus; cpu++) {
		double all = scaled(&ovf_read[cpu], in->split_idx);

		ovf->energy_j += pt.out[n + cpu];
		/* each tree's part of the overflow row: its share of it */
		for (int t = 0; trees && all > 0 && r->ovf_tree && t < a->ntrees &&
				t < r->ntrees; t++) {
			const struct counts *c = &r->ovf_tree[(size_t)t * a->ncpus + cpu];
			double j = pt.out[n + cpu] * scaled(c, in->split_idx) / all;

			a->ovf_tree[t]->energy_j += j;
			a->tree[t]->energy_j += j;
		}
	}
	if (!err && pt.out[pt.n]) {
		e = aggregate__entry(a, map, idle_id, 0);
		if (e)
			e->energy_j += pt.out[pt.n];
		else
			err = -ENOMEM;
	}
	partition__exit(&pt);
	return err;
}

static int split_cgroups_and_procs(struct aggregate *a, const struct session_read *r,
				   const struct attr_input *in, const struct units *u,
				   const double *unit_j, const bool *valid,
				   double static_j)
{
	size_t n = r->nr_cgrp > r->nr_proc ? r->nr_cgrp : r->nr_proc;
	struct key_item *items = calloc(n + 1, sizeof(*items));
	int err;

	if (!items)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_cgrp; i++)
		items[i] = (struct key_item){ r->cgrp[i].cgid, 0, r->cgrp[i].cpu, &r->cgrp[i].c };
	err = split_keys(a, in, u, unit_j, valid, static_j, items, r->nr_cgrp, r->ovf_cgrp,
			 &a->cgrps, a->ovf_cgrp, in->root_cgid, r, false);
	for (size_t i = 0; !err && i < r->nr_proc; i++)
		items[i] = (struct key_item){ r->proc[i].tgid, r->proc[i].start,
					      r->proc[i].cpu, &r->proc[i].c,
					      r->proc[i].trees };
	err = err ?: split_keys(a, in, u, unit_j, valid, static_j, items, r->nr_proc, r->ovf_proc,
				&a->procs, a->ovf_proc, 0, r, true);
	free(items);
	return err;
}

/*
 * A unit layer's CPUs. The platform's joules are no package's: each
 * package is given what its CPUs were, so that the packages, which
 * snapshots carry and the system row sums, add up to the platform.
 */
static int platform_cpus(struct aggregate *a, const struct session_read *r,
			 const struct attr_input *in, const struct units *u,
			 const struct energy_sample *es)
{
	double *before = NULL;
	int err;

	if (es->unit_scope == ENERGY_SCOPE_PLATFORM) {
		before = malloc(a->ncpus * sizeof(*before));
		if (!before)
			return -ENOMEM;
		memcpy(before, a->cpu_energy, a->ncpus * sizeof(*before));
	}
	err = split_cpus(a, r, in, u, es->unit_j, es->unit_valid);
	for (int cpu = 0; !err && before && cpu < a->ncpus; cpu++)
		a->pkg_energy[pkg_of(a, cpu)] += a->cpu_energy[cpu] - before[cpu];
	free(before);
	return err;
}

int aggregate__add_energy(struct aggregate *a, const struct session_read *r,
			  const struct attr_input *in)
{
	double pkg_j[ENERGY_MAX_PACKAGES] = { 0 };
	bool valid[ENERGY_MAX_PACKAGES] = { false };
	const struct energy_sample *es = in->es;
	struct units pkgs = { a->npkg, NULL };
	struct units units = { es->nr_units, in->unit_of_cpu };
	double static_j = 0;
	int err;

	if (a->npkg > ENERGY_MAX_PACKAGES || es->nr_packages != a->npkg)
		return -EINVAL;
	for (int p = 0; p < a->npkg; p++) {
		const struct energy_pkg_sample *ps = &es->pkg[p];

		if (!ps->valid)
			continue;
		valid[p] = true;
		pkg_j[p] = ps->joules;
		/* a core scope's joules are split by core: the package the rest */
		if (es->nr_units && es->unit_scope == ENERGY_SCOPE_CORE &&
		    (ps->dom_valid & (1u << ENERGY_DOM_CORE)))
			pkg_j[p] = fmax(0, pkg_j[p] - ps->dom_j[ENERGY_DOM_CORE]);
		a->energy_valid = true;
		a->energy_total += ps->joules;
		a->pkg_energy[p] += ps->joules;
		for (int z = 0; z < AGG_ZONES; z++) {
			if (!(ps->dom_valid & (1u << z)))
				continue;
			a->pkg_zone[p * AGG_ZONES + z] += ps->dom_j[z];
			a->pkg_zone_mask[p] |= 1u << z;
		}
	}
	err = split_cpus(a, r, in, &pkgs, pkg_j, valid);
	err = err ?: split_cgroups_and_procs(a, r, in, &pkgs, pkg_j, valid, in->static_j);
	if (err || !es->nr_units || !in->unit_of_cpu)
		return err;
	/* a core or platform scope: its units, each by what ran on its CPUs */
	if (es->nr_units > ENERGY_MAX_UNITS)
		return -EINVAL;
	if (es->unit_scope == ENERGY_SCOPE_PLATFORM && es->unit_valid[0]) {
		a->energy_valid = true;
		a->energy_total += es->unit_j[0];
		/* --idle-watts: the platform's, where it has no package */
		static_j = in->static_j;
	}
	err = platform_cpus(a, r, in, &units, es);
	err = err ?: split_cgroups_and_procs(a, r, in, &units, es->unit_j,
					     es->unit_valid, static_j);
	return err;
}

void session_read__busy_ns(const struct session_read *r, const struct aggregate *a,
			   int clock_idx, double *out)
{
	memset(out, 0, a->npkg * sizeof(*out));
	if (clock_idx < 0)
		return;
	for (int cpu = 0; cpu < a->ncpus; cpu++)
		out[pkg_of(a, cpu)] += r->cpu[cpu].c[clock_idx].counter;
	for (size_t i = 0; i < r->nr_proc; i++)
		if (r->proc[i].tgid == 0)
			out[pkg_of(a, r->proc[i].cpu)] -= r->proc[i].c.c[clock_idx].counter;
	for (int p = 0; p < a->npkg; p++)
		if (out[p] < 0)
			out[p] = 0;
}
