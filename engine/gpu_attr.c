// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The GPUs' energy into the engine's totals (gpu_attr.h): each read's
 * split (rapl/gpu.c) to the process entries NVML's pids are, their
 * cgroups and command trees, the rest to the idle task.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/log.h"
#include "engine/gpu_attr.h"
#include "engine/names/cgroup.h"
#include "engine/session/session.h"
#include "rapl/gpu.h"

struct gpu_attr {
	struct gpu_source *src;
	struct gpu_sample gs;
	int nr;
	struct snap_gpu gpu[SNAP_GPU_MAX];	/* cumulative */
	char cgroot[PATH_MAX];
	__u64 root_cgid;
	double last_t;
	struct agg_entry **best;		/* [cap] the process entry of use[i] */
	size_t cap;
};

int gpu_attr__check_spec(const char *spec)
{
	return spec && !*spec ? -EINVAL : 0;
}

int gpu_attr__open(struct gpu_attr **gp, const char *spec, const char *cgroot,
		   bool *on)
{
	bool want = true;
	struct gpu_attr *g;
	const char *lib = NULL;
	char err[512] = "";
	int ret = 0;

	*gp = NULL;
	if (!spec || !strcmp(spec, "off"))
		return 0;
	if (!strcmp(spec, "auto"))
		want = false;
	else if (strcmp(spec, "on"))
		lib = spec;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->src = gpu_source__open(lib, &ret, err, sizeof(err));
	if (!g->src) {
		free(g);
		if (ret == -ENOMEM)
			return ret;
		if (want) {
			pr_err("--gpu: %s", err);
			return -ENOENT;
		}
		pr_warn("no GPU energy: %s; running without it", err);
		return 0;
	}
	g->nr = gpu_source__nr(g->src);
	for (int i = 0; i < g->nr && i < SNAP_GPU_MAX; i++)
		snprintf(g->gpu[i].name, sizeof(g->gpu[i].name), "%s",
			 gpu_source__name(g->src, i));
	snprintf(g->cgroot, sizeof(g->cgroot), "%s", cgroot);
	cgroup__id(g->cgroot, "/", &g->root_cgid);
	ret = gpu_source__read(g->src, 0, &g->gs);
	g->last_t = session__now();	/* the reads' clock: the flushes' */
	if (g->gs.warning[0])
		pr_warn("gpu: %s", g->gs.warning);
	if (ret) {
		gpu_attr__close(g);
		return ret;
	}
	pr_debug("gpu: %d GPU(s) through NVML", g->nr);
	*gp = g;
	*on = true;
	return 0;
}

void gpu_attr__close(struct gpu_attr *g)
{
	if (!g)
		return;
	gpu_source__close(g->src);
	free(g->best);
	free(g);
}

const struct snap_gpu *gpu_attr__gpus(const struct gpu_attr *g, int *nr)
{
	*nr = g ? g->nr : 0;
	return g ? g->gpu : NULL;
}

/* pid's cgroup v2 id from /proc/PID/cgroup ("0::/path"), its path in
 * path; -errno when gone. */
static int pid_cgroup(const struct gpu_attr *g, __u32 pid, char *path,
		      size_t len, __u64 *id)
{
	char file[64], line[PATH_MAX + 8];
	int ret = -ENOENT;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%u/cgroup", pid);
	f = fopen(file, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (strlen(line + 3) >= len)
			break;
		memcpy(path, line + 3, strlen(line + 3) + 1);
		ret = cgroup__id(g->cgroot, path, id);
		break;
	}
	fclose(f);
	return ret;
}

static int use__find(const struct gpu_use *u, size_t n, __u32 pid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (u[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && u[lo].pid == pid ? (int)lo : -1;
}

/* Each pid's process entry: of the entries of that tgid (a pid reused
 * while its old entry is kept), the one that ran last. */
static int find_procs(struct gpu_attr *g, struct aggregate *a)
{
	const struct gpu_use *u = g->gs.use;
	size_t n = g->gs.nr_use, it = 0;
	struct idmap_slot *s;

	if (!n)
		return 0;
	if (n > g->cap) {
		/* not array__grow: no content kept, one slot per process */
		free(g->best);
		g->best = calloc(n, sizeof(*g->best));
		g->cap = g->best ? n : 0;
		if (!g->best)
			return -ENOMEM;
	}
	memset(g->best, 0, n * sizeof(*g->best));
	while ((s = idmap__next(&a->procs, &it))) {
		struct agg_entry *e = s->val;
		int i;

		if (!s->key.a || s->key.a > UINT32_MAX)
			continue;
		i = use__find(u, n, (__u32)s->key.a);
		if (i >= 0 && (!g->best[i] || e->seen_t > g->best[i]->seen_t))
			g->best[i] = e;
	}
	return 0;
}

static void entry__add(struct agg_entry *e, __u64 uj, __u64 sm_ns, double t)
{
	e->total.gpu.uj += uj;
	e->total.gpu.sm_ns += sm_ns;
	if (uj || sm_ns)
		e->seen_t = t;
}

/* One process's part: its entry, trees and cgroup; false when the engine
 * has no entry for it (its part then goes to the idle task). */
static int add_proc(struct gpu_attr *g, struct aggregate *a, struct agg_entry *pe,
		    __u32 pid, __u64 uj, __u64 sm_ns, double t, __u64 *idle_cg)
{
	char path[PATH_MAX];
	struct agg_entry *ce;
	__u64 cgid;

	entry__add(pe, uj, sm_ns, t);
	for (int k = 0; pe->trees && k < a->ntrees; k++)
		if (pe->trees & (1ULL << k))
			entry__add(a->tree[k], uj, sm_ns, t);
	if (pid_cgroup(g, pid, path, sizeof(path), &cgid)) {
		*idle_cg += uj;		/* gone: its cgroup is not known */
		return 0;
	}
	ce = idmap__get(&a->cgrps, cgid, 0);
	if (!ce) {
		ce = aggregate__entry(a, &a->cgrps, cgid, 0);
		if (!ce)
			return -ENOMEM;
		if (a->fresh & AGG_FRESH_NAMES)
			ce->name = strdup(path);
	}
	entry__add(ce, uj, sm_ns, t);
	return 0;
}

static __u64 to_units(double v, double unit)
{
	return v > 0 && isfinite(v) ? (__u64)llround(v * unit) : 0;
}

int gpu_attr__tick(struct gpu_attr *g, struct aggregate *a, double t)
{
	__u64 total = 0, given = 0, idle_cg = 0;
	struct agg_entry *idle;
	double dt;
	int err;

	if (!g)
		return 0;
	dt = t > g->last_t ? t - g->last_t : 0;
	err = gpu_source__read(g->src, dt, &g->gs);
	g->last_t = t;
	if (g->gs.warning[0])
		pr_warn("gpu: %s", g->gs.warning);
	if (err)
		return err;
	for (int i = 0; i < g->gs.nr_gpus && i < SNAP_GPU_MAX; i++) {
		const struct gpu_dev_sample *d = &g->gs.gpu[i];
		struct snap_gpu *s = &g->gpu[i];

		s->lost = d->lost;
		if (!d->valid)
			continue;
		s->reads++;
		s->uj += to_units(d->joules, 1e6);
		total += to_units(d->joules, 1e6);
		s->idle_uj += to_units(d->idle_j, 1e6);
		s->sm_ns += to_units(d->util * dt, 1e9);
	}
	if (!total && !g->gs.nr_use)
		return 0;
	err = find_procs(g, a);
	for (size_t i = 0; !err && i < g->gs.nr_use; i++) {
		const struct gpu_use *u = &g->gs.use[i];
		__u64 uj = to_units(u->joules, 1e6);

		/* rounding must not give more than the GPUs measured */
		if (uj > total - given)
			uj = total - given;
		if (!g->best[i] || !uj)
			continue;	/* not seen running: the idle task's */
		given += uj;
		err = add_proc(g, a, g->best[i], u->pid, uj, to_units(u->util * dt, 1e9),
			       t, &idle_cg);
	}
	if (err)
		return err;
	/* the rest: no process's, or one the engine cannot name */
	idle = aggregate__entry(a, &a->procs, 0, 0);
	if (!idle)
		return -ENOMEM;
	entry__add(idle, total - given, 0, t);
	idle = aggregate__entry(a, &a->cgrps, g->root_cgid, 0);
	if (!idle)
		return -ENOMEM;
	entry__add(idle, total - given + idle_cg, 0, t);
	return 0;
}
