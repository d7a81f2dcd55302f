// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The engine's set-up and its tick.
 *
 * open: the CPUs and their packages, the cgroup2 mount, the events opened
 *       on every online CPU, the energy source and the metric that splits
 *       it, then the session (BPF) and a first flush: counting starts there.
 * tick: a measured energy source is read right before the flush that ends
 *       a read period, so both end at the same moment (late_energy() when
 *       we were preempted in between); the read's exact slices are added
 *       to the totals (a never-reset aggregate) and the period's energy is
 *       split between them. Reads come at least every second, sooner while
 *       a map came back more than three quarters full (a process storm).
 *
 * Who owns what: struct engine is this file's alone. It calls the pieces,
 * each of which owns its own state and is handed only what it reads; none
 * calls back into this file, so a tick runs only from here (a tree id
 * that must wait for a read gets it from engine__tree_new()).
 *   retain.c         struct retain: the gone entries, the last pass
 *   trees.c          struct trees: tree ids in use, their commands, when
 *                    a freed id is clean
 *   names/names.c    the paths of the totals' cgroup entries
 *   read_warn.c      struct read_check: what reads said once
 *   snapshot/encode.c snapshots, encoded from a struct snap_src view
 * The totals (aggregate.c), the session (session/) and the energy
 * source stay this file's, lent to the pieces for one call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "engine/aggregate.h"
#include "engine/attribute.h"
#include "engine/names/cgroup.h"
#include "engine/names/container_cache.h"
#include "engine/engine.h"
#include "engine/gpu_attr.h"
#include "engine/read_warn.h"
#include "engine/names/names.h"
#include "engine/retain.h"
#include "engine/snapshot/encode.h"
#include "engine/trees.h"
#include "common/cpu_topo.h"
#include "common/procfs.h"
#include "common/log.h"
#include "engine/session/session.h"
#include "emon_selfmon.h"
#include "pmu/event.h"
#include "rapl/energy.h"

#define READ_PERIOD_S 1.0
#define MIN_PERIOD_S 0.05
/* A flush this long after the energy read before it: read again after it. */
#define ENERGY_LATE_S 0.001

struct engine {
	struct engine_opts o;
	struct snap_meta meta;
	struct pmu_event_list events;
	struct session sess;
	bool sess_open;
	struct session_read rd;
	struct aggregate agg;		/* totals since the start */
	struct retain retain;		/* and of the keys that left them */
	struct cgroup_names names;
	struct cont_cache conts;	/* containers' names */
	char cgroot[PATH_MAX];
	struct cpu_topology topo;
	int ncpus;
	bool *online;
	int *cpu_pkg;
	/* energy */
	struct energy_source *energy;
	bool estimated;
	struct energy_sample es;
	/* the next period's part of a read after a late flush, and its
	 * weight (0: none), see late_energy() */
	struct energy_sample carry;
	double carry_k;
	struct attr_input attr;
	double *busy_ns;		/* [npkg] for the model */
	__u64 energy_reads;
	char energy_note[512];
	struct gpu_attr *gpu;		/* --gpu's GPUs, NULL: none */
	int clock_idx;			/* cpu-clock's index, -1 if absent */
	/* reads */
	__u64 seq;
	double last_t, last_read;
	double period, full;
	double snap_t;			/* the last snapshot's read, -1: none */
	struct trees trees;		/* command tree ids */
	struct read_check check;	/* what reads said */
};

/* Effective CAP_BPF + CAP_PERFMON, or CAP_SYS_ADMIN, or root. */
static bool engine__have_privileges(void)
{
	unsigned long long eff = 0;
	char line[256];
	FILE *f;

	if (geteuid() == 0)
		return true;
	f = fopen("/proc/self/status", "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return (eff & (1ULL << 21)) ||
	       ((eff & (1ULL << 38)) && (eff & (1ULL << 39)));
}

/* A kernel's refusal while opening is a runtime failure even when its
 * errno reads like bad input (-EINVAL from perf_event_open or the
 * verifier, -ENOENT from a CPU gone): only a permission error, or memory,
 * keeps its errno; the logged line has the kernel's own. */
static int open_err(int err)
{
	return err == -EPERM || err == -EACCES || err == -ENOMEM ? err : -EIO;
}

static int setup_cpus(struct engine *e)
{
	char err[256];
	int ret;

	e->ncpus = libbpf_num_possible_cpus();
	if (e->ncpus <= 0) {
		pr_err("cannot read the number of possible CPUs");
		return -EIO;
	}
	e->online = calloc(e->ncpus, sizeof(*e->online));
	e->cpu_pkg = calloc(e->ncpus, sizeof(*e->cpu_pkg));
	if (!e->online || !e->cpu_pkg)
		return -ENOMEM;
	if (cpu_topo__read_online(NULL, e->online, e->ncpus)) {
		pr_err("cannot read the online CPUs from /sys/devices/system/cpu/online");
		return -EIO;
	}
	ret = cpu_topology__load(&e->topo, ENERGY_CPU_ROOT, e->ncpus, err, sizeof(err));
	if (ret || e->topo.nr_packages < 1) {
		/* no topology (odd containers): one package */
		pr_debug("no CPU topology (%s): one package", err);
		e->topo.nr_packages = 1;
		e->topo.pkg_id[0] = 0;
	}
	for (int cpu = 0; cpu < e->ncpus; cpu++)
		e->cpu_pkg[cpu] = e->topo.pkg_of_cpu && e->topo.pkg_of_cpu[cpu] >= 0 ?
				  e->topo.pkg_of_cpu[cpu] : 0;
	return 0;
}

static int setup_cgroups(struct engine *e)
{
	if (cgroup__find_mount("/proc/mounts", e->cgroot, sizeof(e->cgroot))) {
		pr_err("no cgroup2 file system mounted (see /proc/mounts)");
		return -ENODEV;
	}
	pr_debug("cgroup2 mounted at %s", e->cgroot);
	if (cgroup_names__init(&e->names, e->cgroot))
		return -ENOMEM;
	cgroup_names__walk(&e->names);
	return 0;
}

static int setup_events(struct engine *e, struct session_opts *so)
{
	struct snap_meta *m = &e->meta;
	char err[512];
	int ret;

	ret = pmu_event_list__parse(&e->events, e->o.events, err, sizeof(err));
	if (ret) {
		pr_err("%s", err);
		return ret;
	}
	ret = pmu_event_list__open(&e->events, e->ncpus, e->online, err,
				   sizeof(err));
	if (ret) {
		pr_err("%s", err);
		return open_err(ret);
	}
	for (int i = 0; i < e->events.nr; i++) {
		struct pmu_event *ev = &e->events.ev[i];

		if (!ev->supported) {
			pr_debug("%s: %s", ev->name, pmu_event__strerror(ev->open_err));
			snprintf(m->unsup_name[m->nr_unsup++], SNAP_EVENT_NAME_LEN,
				 "%s", ev->name);
			continue;
		}
		snprintf(m->ev_name[so->nr_events], SNAP_EVENT_NAME_LEN, "%s", ev->name);
		m->ev_is_time[so->nr_events] = ev->is_time;
		so->events[so->nr_events++] = ev;
	}
	m->nr_events = so->nr_events;
	/* what shares the counts' block, or a thread slot (counts.h, selfmon.h) */
	if ((e->o.sched && so->nr_events > COUNTS_MAX_EVENTS_SCHED) ||
	    (e->o.max_threads && so->nr_events > EMON_SELF_MAX_EVENTS)) {
		pr_err("%d events counted: at most %d with %s", so->nr_events,
		       e->o.sched ? COUNTS_MAX_EVENTS_SCHED : EMON_SELF_MAX_EVENTS,
		       e->o.sched ? "--sched" : "--threads");
		return -E2BIG;
	}
	if (!so->nr_events) {
		pr_err("none of the events can be counted here (%s: %s)",
		       e->events.ev[0].name,
		       pmu_event__strerror(e->events.ev[0].open_err));
		return -EOPNOTSUPP;
	}
	return 0;
}

/* The counted index of the event called name, or -1. */
static int event_index(const struct engine *e, const char *name)
{
	for (int i = 0; i < e->meta.nr_events; i++)
		if (!strcmp(e->meta.ev_name[i], name))
			return i;
	return -1;
}

/*
 * Open the energy source and choose the metric that splits it: --split-by,
 * else cycles, else cpu-clock (said in the output). Its packages replace
 * the CPU topology, so a CPU's package is the same for counts and joules.
 */
static int setup_energy(struct engine *e)
{
	struct energy_opts eo = {
		.spec = e->o.energy,
		.powercap_root = e->o.powercap_root,
		.ncpus = e->ncpus,
	};
	const char *split = e->o.split_by;
	char err[512] = "";
	int ret = 0;

	e->clock_idx = event_index(e, "cpu-clock");
	e->energy = energy_source__open_opts(&eo, &ret, err, sizeof(err));
	if (!e->energy) {
		if (ret) {
			pr_err("%s", err);
			/* a missing or bad --energy source is the user's */
			return ret == -EINVAL || ret == -ENOENT ? ret : open_err(ret);
		}
		/* auto found nothing: said once the counts are out, so an
		 * error stays the only line of a failed run */
		snprintf(e->energy_note, sizeof(e->energy_note), "%s%s", err,
			 e->o.split_by || e->o.idle_watts ?
			 " (--split-by and --idle-watts do nothing)" : "");
		return 0;
	}
	if (split) {
		if (event_index(e, split) < 0) {
			pr_err("--split-by %s: not among the events that can be counted here", split);
			return -EINVAL;
		}
	} else if (event_index(e, "cycles") >= 0) {
		split = "cycles";
	} else if (e->clock_idx >= 0) {
		split = "cpu-clock";
		pr_debug("energy split by cpu-clock: cycles are not counted here");
	} else {
		pr_err("energy needs cycles or cpu-clock among the events to split it by");
		return -EINVAL;
	}
	e->estimated = energy_source__is_estimated(e->energy);
	if (e->estimated && e->clock_idx < 0) {
		pr_err("--energy model needs cpu-clock among the events (busy time)");
		return -EINVAL;
	}
	e->attr.split_idx = event_index(e, split);
	e->attr.es = &e->es;
	e->meta.energy_on = true;
	e->meta.energy_estimated = e->estimated;
	snprintf(e->meta.energy_source, sizeof(e->meta.energy_source), "%s",
		 energy_source__name(e->energy));
	snprintf(e->meta.split_by, sizeof(e->meta.split_by), "%s", split);

	e->topo.nr_packages = energy_source__nr_packages(e->energy);
	for (int p = 0; p < e->topo.nr_packages; p++)
		e->topo.pkg_id[p] = energy_source__package_id(e->energy, p);
	for (int cpu = 0; cpu < e->ncpus; cpu++) {
		int p = energy_source__package_of_cpu(e->energy, cpu);

		e->cpu_pkg[cpu] = p < 0 ? 0 : p;
	}
	e->attr.unit_of_cpu = energy_source__unit_map(e->energy);
	e->busy_ns = calloc(e->topo.nr_packages, sizeof(*e->busy_ns));
	return e->busy_ns ? 0 : -ENOMEM;
}

static int setup_meta(struct engine *e)
{
	struct snap_meta *m = &e->meta;

	m->pid = 0;
	m->ncpus = e->ncpus;
	m->npkg = e->topo.nr_packages;
	m->max_trees = e->o.max_trees;
	m->cpu_pkg = calloc(e->ncpus, sizeof(*m->cpu_pkg));
	m->pkg_id = calloc(m->npkg, sizeof(*m->pkg_id));
	if (!m->cpu_pkg || !m->pkg_id)
		return -ENOMEM;
	memcpy(m->cpu_pkg, e->cpu_pkg, e->ncpus * sizeof(*m->cpu_pkg));
	for (int p = 0; p < m->npkg; p++)
		m->pkg_id[p] = e->topo.pkg_id[p];
	return 0;
}

static int setup_session(struct engine *e, struct session_opts *so)
{
	char err[512];
	int ret;

	so->ncpus = e->ncpus;
	so->online = e->online;	/* CPU rows: those that come online join */
	so->max_cgroups = e->o.max_cgroups;
	so->max_procs = e->o.max_procs;
	so->max_tids = e->o.max_tids;
	e->meta.threads_on = e->o.max_tids > 0;
	so->max_trees = e->o.max_trees;
	so->sched = e->o.sched;
	so->sched_ms = e->o.sched_ms;
	e->meta.sched_on = e->o.sched;
	e->meta.sched_ms = e->o.sched && e->o.sched_ms;
	so->no_scale = e->meta.no_scale = e->o.no_scale;
	so->max_threads = e->o.max_threads;
	so->self_arrays = e->o.self_arrays;
	so->self_array_slots = e->o.self_array_slots;
	session__setup_libbpf();
	ret = session__open(&e->sess, so, err, sizeof(err));
	if (ret) {
		pr_err("%s", err);
		return open_err(ret);
	}
	e->sess_open = true;
	if (session_read__init(&e->rd, e->ncpus) ||
	    aggregate__init(&e->agg, e->ncpus, e->topo.nr_packages, e->cpu_pkg,
			    so->nr_events) ||
	    aggregate__init_trees(&e->agg, e->o.max_trees))
		return -ENOMEM;
	e->agg.sched_off = !e->sess.sched;
	if (e->o.name_cgroups)
		e->agg.fresh = AGG_FRESH_NAMES | (e->o.owners ? AGG_FRESH_OWNERS : 0);
	if (e->energy)
		cgroup__id(e->cgroot, "/", &e->attr.root_cgid);
	ret = session__start(&e->sess);
	if (ret) {
		pr_err("cannot flush the CPUs: %s", strerror(-ret));
		return open_err(ret);
	}
	e->last_read = e->last_t = e->meta.start_t = e->sess.flush_t;
	e->full = READ_PERIOD_S;
	/* start short: a storm already running must not fill the first one */
	e->period = e->full / 8 > MIN_PERIOD_S ? e->full / 8 : MIN_PERIOD_S;
	/* the baseline, as close to the counting start as can be; it brings
	 * what the source found while opening (zones left out, wraps it
	 * cannot tell from errors): said here, once */
	if (e->energy) {
		energy_source__read(e->energy, 0, NULL, &e->es);
		if (e->es.warning[0])
			pr_warn("energy: %s", e->es.warning);
		e->es.warning[0] = '\0';
	}
	return 0;
}

int engine__open(struct engine **ep, const struct engine_opts *o)
{
	struct session_opts so = {};
	struct engine *e;
	int ret;

	*ep = NULL;
	if (!engine__have_privileges()) {
		pr_err("need root, or CAP_BPF and CAP_PERFMON (try sudo)");
		return -EPERM;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->o = *o;
	if (e->o.max_trees > EMON_MAX_TREES)
		e->o.max_trees = EMON_MAX_TREES;
	e->snap_t = -1;
	ret = setup_cpus(e);
	ret = ret ?: setup_cgroups(e);
	ret = ret ?: setup_events(e, &so);
	ret = ret ?: setup_energy(e);
	ret = ret ?: gpu_attr__open(&e->gpu, e->o.gpu, e->cgroot, &e->meta.gpu_on);
	ret = ret ?: setup_meta(e);
	ret = ret ?: setup_session(e, &so);
	if (ret) {
		engine__close(e);
		return ret;
	}
	*ep = e;
	return 0;
}

void engine__close(struct engine *e)
{
	if (!e)
		return;
	if (e->sess_open)
		session__close(&e->sess);
	for (int i = 0; i < e->events.nr; i++)
		pmu_event__close(&e->events.ev[i]);
	engine_names__free(&e->agg.cgrps);
	cont_cache__exit(&e->conts);
	aggregate__exit(&e->agg);
	session_read__exit(&e->rd);
	retain__exit(&e->retain);
	if (e->names.root)
		cgroup_names__exit(&e->names);
	energy_source__close(e->energy);
	gpu_attr__close(e->gpu);
	free(e->busy_ns);
	cpu_topology__free(&e->topo);
	free(e->meta.cpu_pkg);
	free(e->meta.pkg_id);
	free(e->online);
	free(e->cpu_pkg);
	free(e);
}

const struct snap_meta *engine__meta(const struct engine *e)
{
	return &e->meta;
}

const char *engine__cgroot(const struct engine *e)
{
	return e->cgroot;
}

int engine__self_maps(const struct engine *e, struct session_self *out)
{
	return e->sess_open ? session__self_maps(&e->sess, out) : -ENOENT;
}

const char *engine__energy_note(const struct engine *e)
{
	return e->energy_note;
}

double engine__next_tick(const struct engine *e)
{
	return e->last_t + e->period;
}

double engine__last_t(const struct engine *e)
{
	return e->last_t;
}

__u64 engine__seq(const struct engine *e)
{
	return e->seq;
}

/* Read the energy of the period that just ended. */
static int read_energy(struct engine *e, double dt)
{
	int err;

	if (e->estimated)
		session_read__busy_ns(&e->rd, &e->agg, e->clock_idx, e->busy_ns);
	err = energy_source__read(e->energy, dt, e->busy_ns, &e->es);
	if (err)
		pr_err("reading energy: %s", strerror(-err));
	return err;
}

/* Split the period's energy (read before the flush, see engine__tick). */
static int take_energy(struct engine *e, double t)
{
	double dt = t - e->last_read;
	int err;

	e->last_read = t;
	if (!e->energy)
		return 0;
	/* the model needs the period's busy time: it reads after the flush */
	if (e->estimated && read_energy(e, dt))
		return -EIO;
	if (e->es.warning[0])
		pr_warn("energy: %s", e->es.warning);
	if (energy_sample__any_valid(&e->es))
		e->energy_reads++;
	e->attr.static_j = e->o.idle_watts * dt;
	err = aggregate__add_energy(&e->agg, &e->rd, &e->attr);
	if (err)
		pr_err("splitting energy: %s", strerror(-err));
	return err;
}

/*
 * A measured source is read right before the flush that ends a period.
 * When the flush comes late (preempted in between: seen for 0.8 s on a
 * loaded VM), the energy up to it is partly in the next read: read again
 * now, give this period the part of that step up to the flush, by time,
 * and the next one the rest. No energy moves between periods, and none is
 * lost or counted twice.
 */
static int late_energy(struct engine *e, double t0)
{
	double t1, k;
	int err;

	if (!e->energy || e->estimated || e->rd.t - t0 <= ENERGY_LATE_S)
		return 0;
	t1 = session__now();
	err = energy_source__read(e->energy, t1 - t0, e->busy_ns, &e->carry);
	if (err) {
		pr_err("reading energy: %s", strerror(-err));
		return err;
	}
	t1 = (t1 + session__now()) / 2;	/* when it read, as near as we know */
	k = t1 > t0 ? (e->rd.t - t0) / (t1 - t0) : 1;
	k = k > 1 ? 1 : k < 0 ? 0 : k;
	pr_debug("energy: the flush came %.1f ms after the energy read: %.0f%% of a second read goes to this period",
		 (e->rd.t - t0) * 1e3, k * 100);
	energy_sample__add(&e->es, &e->carry, k);
	e->carry.warning[0] = '\0';	/* said with this period's */
	e->carry_k = 1 - k;
	return 0;
}

/*
 * A storm of short processes can fill a map within a period: read sooner
 * while a map came back more than three quarters full, and read less
 * often again under three eighths: a doubled period holds at most twice
 * as much, so the two do not chase each other. Keys that stay (10,000
 * processes that wake every 200 ms) fill a read however soon it comes:
 * with thresholds of a half and an eighth they held the period at its
 * 125 ms start, 8 reads a second (bench-serve: 2.3% of a core, 0.9% at
 * 1.1 reads a second with these). The price: a storm that grows by more
 * than a third between two reads spills into the overflow rows (counts
 * kept, not whose) until the next read halves the period; with a half,
 * it could double.
 */
static void adapt_period(struct engine *e)
{
	double fill = (double)e->rd.nr_proc / e->sess.max_procs;
	double cfill = (double)e->rd.nr_cgrp / e->sess.max_cgroups;
	double tfill = e->sess.max_tids ? (double)e->rd.nr_thrd / e->sess.max_tids : 0;

	fill = fmax(fill, fmax(cfill, tfill));
	if (fill > 0.75 && e->period > MIN_PERIOD_S) {
		e->period /= 2;
		pr_debug("maps %.0f%% full: reading every %.0f ms", fill * 100, e->period * 1e3);
	} else if (fill < 0.375 && e->period < e->full) {
		e->period = e->period * 2 < e->full ? e->period * 2 : e->full;
	}
}

/* Let the keys go that engine_opts.retain_s lets go (gone entries). */
static int engine__retain(struct engine *e)
{
	double pass = e->retain.pruned_t;
	int err = retain__run(&e->retain, &e->agg, e->cgroot, &e->o, e->last_t,
			      e->snap_t);

	/* the containers whose cgroups all went a while ago: with the
	 * daemon's pass (every few seconds, not at every read: it walks
	 * every cgroup) */
	if (e->o.retain_s < 0 || e->retain.pruned_t != pass)
		cont_cache__prune(&e->conts, &e->agg.cgrps, e->last_t);
	return err;
}

int engine__tick(struct engine *e)
{
	double t0 = session__now(), te = t0;	/* te: when the energy was read */
	int err;

	if (e->energy && !e->estimated) {
		if (read_energy(e, t0 - e->last_read))
			return -EIO;
		te = (t0 + session__now()) / 2;
		if (e->carry_k > 0)	/* the rest of a late flush's read */
			energy_sample__add(&e->es, &e->carry, e->carry_k);
		e->carry_k = 0;
	}
	err = session__interval(&e->sess, &e->rd);
	pr_debug("interval: flush of %.0f us, flush + read of %zu cgroup and %zu process entries in %.0f us",
		 e->rd.spread * 1e6, e->rd.nr_cgrp, e->rd.nr_proc,
		 (session__now() - t0) * 1e6);
	if (!err) {
		trees__mark_roots(&e->trees, e->o.max_trees, &e->rd);
		err = aggregate__add(&e->agg, &e->rd);
	}
	if (err) {
		pr_err("reading the BPF maps: %s", strerror(-err));
		return err;
	}
	e->seq++;
	e->last_t = e->rd.t;
	if (e->o.name_cgroups)
		engine_names__take(&e->names, &e->agg, &e->sess, &e->conts,
				   &e->o.runtime_roots, e->last_t);
	if (e->o.name_cgroups && e->o.owners)
		engine_names__owners(&e->agg, e->cgroot, procfs__owner);
	read_check__clock(&e->check, &e->rd, e->clock_idx, e->ncpus);
	read_check__stats(&e->check, &e->rd, &e->sess);
	adapt_period(e);
	err = late_energy(e, te);
	err = err ?: take_energy(e, e->rd.t) ?: gpu_attr__tick(e->gpu, &e->agg, e->rd.t);
	/* the daemon's retention runs whether or not anyone asks */
	if (!err && e->o.retain_s >= 0)
		err = engine__retain(e);
	return err;
}

int engine__encode(struct engine *e, const struct emon_snap_req *req,
		   void **bufp, size_t *lenp)
{
	static const struct snap_view all = { .all = true };

	return engine__encode_view(e, req, &all, bufp, lenp);
}

int engine__encode_view(struct engine *e, const struct emon_snap_req *req,
			const struct snap_view *view, void **bufp, size_t *lenp)
{
	struct snap_src src;
	int tree = req->tree, err;

	/* one front end: keys go once it has their totals (the daemon's
	 * rule runs at its ticks, clients or not) */
	if (e->o.retain_s < 0) {
		err = engine__retain(e);
		if (err)
			return err;
	}
	src = (struct snap_src){
		.agg = &e->agg,
		.gone_cgrp = e->retain.gone_cgrp,
		.gone_proc = e->retain.gone_proc,
		.gone_thrd = e->retain.gone_thrd,
		.online = e->online,
		.ncpus = e->ncpus,
		.nr_events = e->meta.nr_events,
		.sched = e->meta.sched_on,
		.seq = e->seq,
		.t = e->last_t,
		.energy_reads = e->energy_reads,
		.conts = &e->conts,
		.view = view,
	};
	src.gpus = gpu_attr__gpus(e->gpu, &src.nr_gpu);
	if (!trees__has(&e->trees, tree, e->o.max_trees))
		tree = -1;
	err = snap_src__encode(&src, req, tree, bufp, lenp);
	if (!err)
		e->snap_t = e->last_t;
	return err;
}

int engine__tree_new(struct engine *e, pid_t pid)
{
	bool waiting;
	int t, err;

	t = trees__free_id(&e->trees, e->o.max_trees, e->seq, &waiting);
	if (t < 0 && waiting) {	/* rare: every free id was let go this read */
		err = engine__tick(e);
		if (err)
			return err;
		t = trees__free_id(&e->trees, e->o.max_trees, e->seq, &waiting);
	}
	if (t < 0)
		return -EBUSY;
	err = trees__take(&e->trees, t, pid, &e->agg, &e->sess);
	return err ?: t;
}

int engine__tree_join(struct engine *e, int tree, pid_t pid)
{
	return trees__has(&e->trees, tree, e->o.max_trees) ?
	       session__tree_add(&e->sess, pid, tree) : -EINVAL;
}

void engine__tree_free(struct engine *e, int tree)
{
	trees__release(&e->trees, tree, e->o.max_trees, e->seq, &e->agg, &e->sess);
}
