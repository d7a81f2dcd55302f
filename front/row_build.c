// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * From one interval's aggregate to the rows the outputs print: system, the
 * command's tree, CPUs, sockets, dies, cores, cgroups (rolled up their
 * tree for -G), containers, pods and namespaces (rows_pod.c),
 * processes and threads (rows_thread.c), in that order.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/array.h"
#include "engine/names/container.h"
#include "front/row_set.h"

/* One container's sums, and the storage its row points to. */
struct cont_acc {
	struct container_info info;
	struct counts counts;
	double energy_j;
};

/* Keys are reserved up front, so pointers into keys stay valid. */
static int row_set__reserve_keys(struct row_set *rs, int n)
{
	rs->nr_keys = 0;
	return array__grow(&rs->keys, &rs->cap_keys, n, sizeof(*rs->keys));
}

static bool want(const struct row_ctx *sc, enum scope s)
{
	return sc->opts->by & (1u << s);
}

/* -C: only its CPUs count, for every row made of CPUs */
static bool cpu_wanted(const struct row_ctx *sc, int cpu)
{
	return !sc->tg || !sc->tg->has_cpus || pmu_cpus__has(&sc->tg->cpus, cpu);
}

static void system_counts(const struct row_ctx *sc, const struct aggregate *a,
			  struct counts *out)
{
	if (!sc->tg || !sc->tg->has_cpus) {
		aggregate__system(a, out);
		return;
	}
	memset(out, 0, sizeof(*out));
	for (int cpu = 0; cpu < sc->ncpus; cpu++)
		if (cpu_wanted(sc, cpu))
			counts__add(out, &a->cpu[cpu], a->nr_events);
}

static int add_cpus_and_sockets(const struct row_ctx *sc,
				const struct aggregate *a, double dt,
				struct row_set *rs)
{
	struct row *r;

	for (int cpu = 0; want(sc, SCOPE_CPU) && cpu < sc->ncpus; cpu++) {
		if (!sc->online[cpu] || !cpu_wanted(sc, cpu))
			continue;
		r = row_set__add(rs, SCOPE_CPU, row_set__key(rs, "%d", cpu));
		if (!r)
			return -ENOMEM;
		r->nr_cpus = 1;
		r->counts = a->cpu[cpu];
		row_set__energy(sc, a, r, a->cpu_energy[cpu], dt);
	}
	for (int pkg = 0; want(sc, SCOPE_SOCKET) && pkg < sc->npkg; pkg++) {
		r = row_set__add(rs, SCOPE_SOCKET, row_set__key(rs, "%d", sc->pkg_id[pkg]));
		if (!r)
			return -ENOMEM;
		for (int cpu = 0; cpu < sc->ncpus; cpu++) {
			if (sc->cpu_pkg[cpu] != pkg || !cpu_wanted(sc, cpu))
				continue;
			counts__add(&r->counts, &a->cpu[cpu], a->nr_events);
			r->nr_cpus += sc->online[cpu];
		}
		row_set__energy(sc, a, r, a->pkg_energy[pkg], dt);
		r->zone_mask = a->pkg_zone_mask[pkg];
		for (int z = 0; z < AGG_ZONES; z++)
			r->zone_j[z] = a->pkg_zone[pkg * AGG_ZONES + z];
	}
	return 0;
}

static int cpu_place__cmp(const void *a, const void *b)
{
	const struct cpu_place *x = a, *y = b;

	if (x->pkg != y->pkg)
		return x->pkg < y->pkg ? -1 : 1;
	if (x->die != y->die)
		return x->die < y->die ? -1 : 1;
	return x->core < y->core ? -1 : x->core > y->core;
}

/* The die (core -1) or the core of an online CPU, in places[*n]. */
static void cpu_place__add(struct cpu_place *places, int *n, struct cpu_place p)
{
	for (int i = 0; i < *n; i++)
		if (!cpu_place__cmp(&places[i], &p))
			return;
	places[(*n)++] = p;
}

static struct cpu_place cpu_place__of(const struct row_ctx *sc, int cpu,
				      enum scope s)
{
	struct cpu_place p = sc->place[cpu];

	if (s == SCOPE_NODE)	/* compared as a package alone */
		return (struct cpu_place){ .pkg = p.node, .die = -1, .core = -1 };
	if (s == SCOPE_DIE)
		p.core = -1;
	return p;
}

/*
 * perf's --per-die and --per-core: the online CPUs grouped by package and
 * die, or package, die and core, in id order, keyed as perf prints them
 * (S0-D0, S0-D0-C1).
 */
static int add_places(const struct row_ctx *sc, const struct aggregate *a,
		      enum scope s, double dt, struct row_set *rs)
{
	struct cpu_place *places = calloc(sc->ncpus + 1, sizeof(*places));
	int n = 0, err = 0;

	if (!places)
		return -ENOMEM;
	for (int cpu = 0; cpu < sc->ncpus; cpu++)
		if (sc->online[cpu] && cpu_wanted(sc, cpu))
			cpu_place__add(places, &n, cpu_place__of(sc, cpu, s));
	qsort(places, n, sizeof(*places), cpu_place__cmp);
	for (int i = 0; i < n; i++) {
		const struct cpu_place *p = &places[i];
		double joules = 0;
		struct row *r;

		r = row_set__add(rs, s, s == SCOPE_NODE ? row_set__key(rs, "%d", p->pkg) :
				 s == SCOPE_DIE ?
				 row_set__key(rs, "S%d-D%d", p->pkg, p->die) :
				 row_set__key(rs, "S%d-D%d-C%d", p->pkg, p->die, p->core));
		if (!r) {
			err = -ENOMEM;
			break;
		}
		for (int cpu = 0; cpu < sc->ncpus; cpu++) {
			struct cpu_place q = cpu_place__of(sc, cpu, s);

			if (!sc->online[cpu] || !cpu_wanted(sc, cpu) ||
			    cpu_place__cmp(&q, p))
				continue;
			counts__add(&r->counts, &a->cpu[cpu], a->nr_events);
			joules += a->cpu_energy[cpu];
			r->nr_cpus++;
		}
		row_set__energy(sc, a, r, joules, dt);
	}
	free(places);
	return err;
}

/* The source names cgroups (engine/names/names.c). */
static const char *cgroup_path(const struct agg_entry *e)
{
	return e->name ? e->name : "[unknown]";
}

struct named {
	const char *path;
	const struct agg_entry *e;
	__u64 cgid;
};

/* The -G rows a cgroup belongs to (itself or an ancestor listed), worked
 * out once per cgroup: a roll-up is then O(entries), not O(entries x -G). */
struct g_list {
	unsigned long used;	/* rs->gen of the last use */
	int nr;
	int idx[];
};

/* Forget the -G lists of cgroups that did not run for a while. */
static void g_of__prune(struct row_set *rs)
{
	struct idmap_slot *s;
	size_t it = 0, nr = 0;
	__u64 *old;

	if (rs->g_of.nr < 1024)
		return;
	old = malloc(rs->g_of.nr * sizeof(*old));
	if (!old)
		return;
	while ((s = idmap__next(&rs->g_of, &it)))
		if (((struct g_list *)s->val)->used + 2 < rs->gen)
			old[nr++] = s->key.a;
	for (size_t i = 0; i < nr; i++)
		free(idmap__del(&rs->g_of, old[i], 0));
	free(old);
}

static const struct g_list *g_list__get(const struct row_ctx *sc,
					struct row_set *rs, __u64 cgid,
					const char *path)
{
	const struct front_opts *o = sc->opts;
	struct g_list *g = idmap__get(&rs->g_of, cgid, 0);

	if (g) {
		g->used = rs->gen;
		return g;
	}
	g = malloc(sizeof(*g) + o->nr_cgroups * sizeof(g->idx[0]));
	if (!g)
		return NULL;
	g->nr = 0;
	g->used = rs->gen;
	for (int i = 0; i < o->nr_cgroups; i++)
		if (cgroup__is_under(path, o->cgroups[i]))
			g->idx[g->nr++] = i;
	if (idmap__put(&rs->g_of, cgid, 0, g)) {
		free(g);
		return NULL;
	}
	return g;
}

static int named__cmp(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->path, ((const struct named *)b)->path);
}

static int add_cgroups(const struct row_ctx *sc, const struct aggregate *a,
		       double dt, struct row_set *rs)
{
	struct named *all = calloc(a->cgrps.nr + 1, sizeof(*all));
	const struct front_opts *o = sc->opts;
	struct idmap_slot *s;
	size_t it = 0, n = 0;
	struct row *r;
	int err = 0;

	if (!all)
		return -ENOMEM;
	while ((s = idmap__next(&a->cgrps, &it))) {
		all[n].path = cgroup_path(s->val);
		all[n].cgid = s->key.a;
		all[n++].e = s->val;
	}
	if (o->nr_cgroups) {
		/* -G: each row includes its descendants, like perf -G */
		int first = rs->nr;
		double *e = calloc(o->nr_cgroups, sizeof(*e));

		for (int g = 0; e && g < o->nr_cgroups; g++)
			if (!row_set__add(rs, SCOPE_CGROUP, o->cgroups[g]))
				break;
		if (!e || rs->nr != first + o->nr_cgroups) {
			free(e);
			err = -ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < n; i++) {
			const struct g_list *gl = g_list__get(sc, rs, all[i].cgid,
							      all[i].path);

			for (int k = 0; gl && k < gl->nr; k++) {
				r = &rs->rows[first + gl->idx[k]];
				counts__add(&r->counts, &all[i].e->total, a->nr_events);
				e[gl->idx[k]] += all[i].e->energy_j;
			}
		}
		for (int g = 0; g < o->nr_cgroups; g++) {
			r = &rs->rows[first + g];
			row_set__energy(sc, a, r, e[g], dt);
			/* perf -G: a cgroup that did not run is <not counted>
			 * (text and CSV; JSON lines keep their zeros) */
			r->not_run = !o->json && counts__is_zero(&r->counts, a->nr_events);
		}
		free(e);
	}
	if (!o->nr_cgroups) {
		qsort(all, n, sizeof(*all), named__cmp);
		for (size_t i = 0; i < n; i++) {
			r = row_set__add(rs, SCOPE_CGROUP, all[i].path);
			if (!r) {
				err = -ENOMEM;
				goto out;
			}
			r->counts = all[i].e->total;
			row_set__energy(sc, a, r, all[i].e->energy_j, dt);
		}
	}
	/*
	 * Slices of a full map: no cgroup known, so in no -G row either; a
	 * row of their own says how much the others miss.
	 */
	if (!counts__is_zero(&a->ovf_cgrp->total, a->nr_events)) {
		r = row_set__add(rs, SCOPE_CGROUP, "overflow");
		if (!r) {
			err = -ENOMEM;
			goto out;
		}
		r->counts = a->ovf_cgrp->total;
		row_set__energy(sc, a, r, a->ovf_cgrp->energy_j, dt);
	}
out:
	free(all);
	return err;
}

static void row__names(struct row *r, const struct snap_cont *c)
{
	if (!c)
		return;
	r->name = c->name;
	r->image = c->image;
	r->ns = c->ns;
	r->pod = c->pod;
	r->container = c->container;
	/* whose files named it: a bare id's runtime in the path is a guess */
	if (c->runtime)
		r->runtime = c->runtime;
}

/* Container rows: cgroups grouped by the container they belong to, ordered
 * by id; everything else, the idle task included, adds up in "host", so
 * the rows still add up to the system. */
static int cont_acc__cmp(const void *a, const void *b)
{
	return strcmp(((const struct cont_acc *)a)->info.id,
		      ((const struct cont_acc *)b)->info.id);
}

static int add_containers(const struct row_ctx *sc, const struct aggregate *a,
			  double dt, struct row_set *rs)
{
	struct cont_acc *conts, host = {};
	struct container_info info;
	struct idmap_slot *s;
	size_t it = 0;
	struct row *r;
	int n = 0;

	if (array__grow(&rs->conts, &rs->cap_conts, a->cgrps.nr + 1,
			sizeof(*conts)))
		return -ENOMEM;
	conts = rs->conts;
	while ((s = idmap__next(&a->cgrps, &it))) {
		const struct agg_entry *e = s->val;
		struct cont_acc *c = NULL;

		if (container__parse(cgroup_path(e), &info)) {
			counts__add(&host.counts, &e->total, a->nr_events);
			host.energy_j += e->energy_j;
			continue;
		}
		/* a container has few cgroups: a linear search is fine */
		for (int i = 0; i < n && !c; i++)
			if (!strcmp(conts[i].info.id, info.id))
				c = &conts[i];
		if (!c) {
			c = &conts[n++];
			memset(c, 0, sizeof(*c));
			c->info = info;
		}
		counts__add(&c->counts, &e->total, a->nr_events);
		c->energy_j += e->energy_j;
	}
	counts__add(&host.counts, &a->ovf_cgrp->total, a->nr_events);
	host.energy_j += a->ovf_cgrp->energy_j;
	qsort(conts, n, sizeof(*conts), cont_acc__cmp);
	for (int i = 0; i < n; i++) {
		r = row_set__add(rs, SCOPE_CONTAINER, conts[i].info.id);
		if (!r)
			return -ENOMEM;
		r->runtime = conts[i].info.runtime;
		r->pod_uid = conts[i].info.pod_uid[0] ? conts[i].info.pod_uid : NULL;
		row__names(r, snap_cont__find(a->conts, a->nr_conts, r->key));
		r->counts = conts[i].counts;
		row_set__energy(sc, a, r, conts[i].energy_j, dt);
	}
	r = row_set__add(rs, SCOPE_CONTAINER, ROW_KEY_HOST);
	if (!r)
		return -ENOMEM;
	r->runtime = ROW_KEY_HOST;
	r->counts = host.counts;
	row_set__energy(sc, a, r, host.energy_j, dt);
	return 0;
}

struct proc_ref {
	__u32 tgid;
	const struct agg_entry *e;
	double sort;
};

static int proc_ref__cmp(const void *a, const void *b)
{
	const struct proc_ref *x = a, *y = b;

	if (x->sort != y->sort)
		return x->sort < y->sort ? 1 : -1;
	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

/* The processes to show, sorted (in command mode: the tree's). */
static struct proc_ref *collect_procs(const struct row_ctx *sc,
				      const struct aggregate *a, size_t *nr)
{
	struct proc_ref *refs = calloc(a->procs.nr + 1, sizeof(*refs));
	struct idmap_slot *s;
	size_t it = 0, n = 0;

	if (!refs)
		return NULL;
	while ((s = idmap__next(&a->procs, &it))) {
		const struct agg_entry *e = s->val;
		double ratio;

		if ((sc->command_mode || sc->p_tree) && !(e->flags & EMON_PROC_IN_TREE))
			continue;
		if (!sc->p_tree && sc->tg && sc->tg->nr_pids &&
		    !targets__has_pid(sc->tg, s->key.a))
			continue;
		refs[n].tgid = s->key.a;
		refs[n].e = e;
		if (sc->sort_idx >= 0)
			count__scaled(&e->total.c[sc->sort_idx], &refs[n].sort, &ratio);
		n++;
	}
	qsort(refs, n, sizeof(*refs), proc_ref__cmp);
	*nr = n;
	return refs;
}

static int add_processes(const struct row_ctx *sc, const struct aggregate *a,
			 const struct proc_ref *refs, size_t n, double dt,
			 struct row_set *rs)
{
	const struct agg_entry *ovf;
	struct row *r;

	for (size_t i = 0; i < n; i++) {
		r = row_set__add(rs, SCOPE_PROCESS, row_set__key(rs, "%u", refs[i].tgid));
		if (!r)
			return -ENOMEM;
		/* the idle task's comm is swapper/N of whichever CPU ran last */
		r->comm = refs[i].tgid ? refs[i].e->comm : "swapper";
		r->counts = refs[i].e->total;
		row_set__energy(sc, a, r, refs[i].e->energy_j, dt);
	}
	/* in command mode, the command's part of it */
	ovf = sc->command_mode || sc->p_tree ? a->ovf_tree[0] : a->ovf_proc;
	if (!counts__is_zero(&ovf->total, a->nr_events)) {
		r = row_set__add(rs, SCOPE_PROCESS, "overflow");
		if (!r)
			return -ENOMEM;
		r->comm = "[map full]";
		r->counts = ovf->total;
		row_set__energy(sc, a, r, ovf->energy_j, dt);
	}
	return 0;
}

int row_set__build(const struct row_ctx *sc, const struct aggregate *a,
		   double dt, struct row_set *rs)
{
	struct proc_ref *refs = NULL;
	struct row *r;
	size_t nproc = 0;
	int err;

	rs->nr = 0;
	err = row_set__reserve_keys(rs, 3 * sc->ncpus + sc->npkg + (int)a->procs.nr +
				    (int)a->thrds.nr + (sc->tg ? sc->tg->nr_start_thr : 0) + 4);
	if (err)
		return err;
	rs->gen++;
	/* removed cgroups' -G lists: kept two intervals unused */
	g_of__prune(rs);
	if (sc->command_mode || want(sc, SCOPE_PROCESS) ||
	    (sc->tg && sc->tg->nr_pids && !want(sc, SCOPE_THREAD))) {
		refs = collect_procs(sc, a, &nproc);
		if (!refs)
			return -ENOMEM;
	}
	if (want(sc, SCOPE_SYSTEM) && !a->no_sys) {
		r = row_set__add(rs, SCOPE_SYSTEM, "all");
		if (!r)
			goto nomem;
		for (int cpu = 0; cpu < sc->ncpus; cpu++)
			r->nr_cpus += sc->online[cpu] && cpu_wanted(sc, cpu);
		system_counts(sc, a, &r->counts);
		row_set__energy(sc, a, r, a->energy_total, dt);
		r->untraced_ns = a->stats[EMON_STAT_UNTRACED_NS];
	}
	if (sc->command_mode) {
		r = row_set__add(rs, SCOPE_COMMAND, row_set__key(rs, "%u", sc->tree_root));
		if (!r)
			goto nomem;
		r->counts = a->tree[0]->total;
		row_set__energy(sc, a, r, a->tree[0]->energy_j, dt);
		/* perf: a command that did not run in an interval is <not
		 * counted> (text and CSV; JSON lines keep their zeros) */
		r->not_run = !sc->opts->json && counts__is_zero(&r->counts, a->nr_events);
	}
	if (sc->tg && sc->tg->nr_pids && !want(sc, SCOPE_THREAD)) {
		/* -p: its processes' sum, the row perf -p prints: their
		 * tree's, children forked since the start included */
		r = row_set__add(rs, SCOPE_COMMAND, sc->tg->pid_list);
		if (!r)
			goto nomem;
		for (size_t i = 0; !sc->p_tree && i < nproc; i++) {
			counts__add(&r->counts, &refs[i].e->total, a->nr_events);
			r->energy_j += refs[i].e->energy_j;
		}
		if (sc->p_tree) {
			r->counts = a->tree[0]->total;
			r->energy_j = a->tree[0]->energy_j;
		}
		row_set__energy(sc, a, r, r->energy_j, dt);
		r->not_run = !sc->opts->json && counts__is_zero(&r->counts, a->nr_events);
	}
	/* a tenant's view: no rows of what it may not see (docs/security.md) */
	err = a->no_sys ? 0 : add_cpus_and_sockets(sc, a, dt, rs);
	if (!err && !a->no_sys && sc->place && want(sc, SCOPE_DIE))
		err = add_places(sc, a, SCOPE_DIE, dt, rs);
	if (!err && !a->no_sys && sc->place && want(sc, SCOPE_CORE))
		err = add_places(sc, a, SCOPE_CORE, dt, rs);
	if (!err && !a->no_sys && sc->place && want(sc, SCOPE_NODE))
		err = add_places(sc, a, SCOPE_NODE, dt, rs);
	if (!err && want(sc, SCOPE_CGROUP))
		err = add_cgroups(sc, a, dt, rs);
	if (!err && want(sc, SCOPE_CONTAINER))
		err = add_containers(sc, a, dt, rs);
	if (!err && (want(sc, SCOPE_POD) || want(sc, SCOPE_NAMESPACE)))
		err = row_set__pods(sc, a, dt, rs);
	if (!err && want(sc, SCOPE_PROCESS))
		err = add_processes(sc, a, refs, nproc, dt, rs);
	if (!err && a->gpu_on)	/* not on the thread rows below: NVML's are pids */
		row_set__gpu(a, dt, rs);
	if (!err && sc->tg && sc->tg->nr_tids && !want(sc, SCOPE_THREAD))
		err = row_set__tid_sum(sc, a, rs);
	if (!err && want(sc, SCOPE_THREAD))
		err = row_set__threads(sc, a, rs);
	free(refs);
	return err;
nomem:
	free(refs);
	return -ENOMEM;
}
