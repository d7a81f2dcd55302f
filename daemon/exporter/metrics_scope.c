// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The scopes of /metrics as one table: each its name, labels, HELP
 * phrase, families and the function that builds its rows, which a render
 * calls in the table's order. The rows of the system, the packages and
 * the processes are built here; cgroups and containers in metrics_fold.c
 * (they keep state across renders); the daemon's own figures in
 * metrics_self.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon/exporter/metrics_render.h"

struct proc_key {
	double key;
	const struct snap_entry *e;
};

/* ---- rows ---- */

struct mrow *rows__get(struct render *r, enum mscope_id id, size_t n)
{
	struct metrics *m = r->m;

	if (array__grow(&m->rows[id], &m->rows_cap[id], n, sizeof(struct mrow)))
		return NULL;
	r->sc[id].rows = m->rows[id];
	r->sc[id].nr = 0;
	return m->rows[id];
}

struct mrow *row__add(struct render *r, enum mscope_id id)
{
	struct mrow *w = &r->sc[id].rows[r->sc[id].nr++];

	memset(w, 0, sizeof(*w));
	w->c = &w->sum;
	return w;
}

double row__key(const struct render *r, const struct counts *c)
{
	double v = 0;

	if (r->key >= 0 && !count__scaled(&c->c[r->key], &v, NULL))
		v = 0;
	return v;
}

/* ---- system and packages ---- */

static int system__build(struct render *r)
{
	const struct snapshot *s = r->s;
	struct mrow *w;

	if (!rows__get(r, MS_SYSTEM, 1))
		return -ENOMEM;
	w = row__add(r, MS_SYSTEM);
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		counts__add(&w->sum, &s->cpu[cpu], r->nev);
		if (s->cpu_energy)
			w->energy_j += s->cpu_energy[cpu];
	}
	/* the GPUs' measured energy and SM time (its CPUs have none) */
	for (int i = 0; i < s->nr_gpu; i++) {
		w->sum.gpu.uj += s->gpus[i].uj;
		w->sum.gpu.sm_ns += s->gpus[i].sm_ns;
	}
	return 0;
}

static int packages__build(struct render *r)
{
	const struct snapshot *s = r->s;
	const struct snap_meta *meta = r->meta;
	struct mrow *rows, *w;

	rows = rows__get(r, MS_PACKAGE, s->npkg);
	if (!rows)
		return -ENOMEM;
	for (int p = 0; p < s->npkg; p++) {
		w = row__add(r, MS_PACKAGE);
		w->pkg = p;
		snprintf(w->num, sizeof(w->num), "%d", meta->pkg_id ? meta->pkg_id[p] : p);
		w->l[0] = w->num;
		if (s->pkg_energy)
			w->energy_j = s->pkg_energy[p];
	}
	for (int cpu = 0; meta->cpu_pkg && cpu < s->ncpus; cpu++) {
		int p = meta->cpu_pkg[cpu];

		if (p >= 0 && p < s->npkg)
			counts__add(&rows[p].sum, &s->cpu[cpu], r->nev);
	}
	return 0;
}

/* ---- GPUs (--gpu): one row each, its figures from the snapshot's ---- */

#define GPU_SERIES 4	/* metrics_family.c's gpus__emit */

int gpus__build(struct render *r)
{
	const struct snapshot *s = r->s;
	struct mscope *sc = &r->sc[MS_GPU];
	struct mrow *rows;

	sc->nfixed = 0;
	rows = rows__get(r, MS_GPU, s->nr_gpu ? s->nr_gpu : 1);
	if (!rows)
		return -ENOMEM;
	for (int i = 0; i < s->nr_gpu; i++) {
		struct mrow *w = row__add(r, MS_GPU);

		w->pkg = i;
		snprintf(w->num, sizeof(w->num), "%d", i);
		w->l[0] = w->num;
		w->l[1] = s->gpus[i].name;
	}
	sc->nfixed = (size_t)s->nr_gpu * GPU_SERIES;
	return 0;
}

/* ---- processes ---- */

static int pk__cmp(const void *a, const void *b)
{
	const struct proc_key *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? 1 : -1;
	return x->e->id < y->e->id ? -1 : x->e->id > y->e->id;
}

/* The top N by the sort event, one per pid (a reused pid's older entry
 * may still be there: the larger one is shown). */
static int procs__build(struct render *r)
{
	const struct snapshot *s = r->s;
	struct metrics *m = r->m;
	size_t top = m->o.top_procs, nr = s->nr_proc;
	struct mscope *sc = &r->sc[MS_PROCESS];

	snprintf(sc->what_buf, sizeof(sc->what_buf),
		 "per process, for the %d with the most %s", m->o.top_procs,
		 r->key >= 0 ? r->ev[r->key].name : "");
	sc->what = sc->what_buf;
	if (!rows__get(r, MS_PROCESS, top < nr ? top : nr))
		return -ENOMEM;
	if (!top || !nr)
		return 0;
	if (array__grow(&m->pk, &m->pk_cap, nr, sizeof(*m->pk)))
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++) {
		m->pk[i].e = &s->proc[i];
		m->pk[i].key = row__key(r, &s->proc[i].c);
	}
	qsort(m->pk, nr, sizeof(*m->pk), pk__cmp);
	idmap__reset(&m->seen, NULL, NULL);
	for (size_t i = 0; i < nr && sc->nr < top; i++) {
		const struct snap_entry *e = m->pk[i].e;
		struct mrow *w;

		if (idmap__get(&m->seen, e->id, 0))
			continue;
		if (idmap__put(&m->seen, e->id, 0, (void *)e))
			return -ENOMEM;
		w = row__add(r, MS_PROCESS);
		w->c = &e->c;
		w->energy_j = e->energy_j;
		w->key = m->pk[i].key;
		snprintf(w->num, sizeof(w->num), "%llu", (unsigned long long)e->id);
		w->l[0] = w->num;
		w->l[1] = entry__name(e);
	}
	return 0;
}

/* ---- the table ---- */

static const char *const lbl_package[] = { "package" };
static const char *const lbl_cgroup[] = { "cgroup" };
/* cAdvisor's label names after ours, so that its dashboards' joins work:
 * labels, not series (one set per container) */
static const char *const lbl_container[] = {
	"container_id", "runtime", "pod_uid", "cgroup",
	"name", "image", "namespace", "pod", "container" };
static const char *const lbl_process[] = { "pid", "comm" };
static const char *const lbl_gpu[] = { "gpu", "name" };

/* A scope of rows gives every family; packages give measured energy per
 * zone and no --sched families. */
#define MF_ROWS (MF_EVENTS | MF_ENERGY | MF_SCHED | MF_GPU)

const struct mscope_def mscopes[MS_NR] = {
	[MS_SYSTEM] = { "system", NULL, 0,
		"on the whole system (the sum of every CPU)",
		MF_ROWS, system__build, scope__emit },
	[MS_PACKAGE] = { "package", lbl_package, 1,
		"per package (the sum of its CPUs)",
		MF_EVENTS | MF_ENERGY | MF_ZONES, packages__build, scope__emit },
	[MS_CGROUP] = { "cgroup", lbl_cgroup, 1,
		"per cgroup, its own tasks only (cgroup=\"other\": the "
		"smallest cgroups, folded to bound the series)",
		MF_ROWS, cgroups__build, scope__emit },
	[MS_CONTAINER] = { "container", lbl_container, 9,
		"per container (the sum of its cgroups)",
		MF_ROWS, containers__build, scope__emit },
	[MS_PROCESS] = { "process", lbl_process, 2,
		NULL,				/* procs__build: how many */
		MF_ROWS, procs__build, scope__emit },
	[MS_GPU] = { "gpu", lbl_gpu, 2, "per GPU (NVML)", 0, gpus__build, gpus__emit },
	[MS_SELF] = { "self", NULL, 0, NULL, 0, self__build, self__emit },
};
