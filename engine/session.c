// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The session drives bpf/emon.bpf.c.
 *
 * open:     size the maps from the run (events x CPUs, value sizes from the
 *           number of events, entries from the options), load, put each
 *           event's per-CPU fd in the PERF_EVENT_ARRAY, attach sched_switch,
 *           sched_process_exec and cgroup_attach_task (and, in command
 *           mode, sched_process_fork and _free).
 * start:    flush every CPU once so each has a baseline reading, then end a
 *           first interval and throw it away: counting starts there.
 * interval: bump epoch and run the flush program on every CPU with
 *           BPF_PROG_TEST_RUN + BPF_F_TEST_RUN_ON_CPU. Each flush counts the
 *           CPU's current slice and moves the CPU to the other buffer; once
 *           all have run, the old buffer has no writer left (see the BPF
 *           program's comment): its used slots are read from the mmap'ed
 *           arrays and zeroed, with no syscall per key.
 * hotplug:  a CPU going offline takes its perf events out of its context
 *           for good: they never count again, even once it is back. The
 *           flush says which CPUs are online (offline ones refuse it with
 *           ENXIO), so a CPU whose flush works again after failing, or
 *           that had no events, gets new ones after the interval's read
 *           (session__swap_cpu: BPF takes a baseline of each new event,
 *           never a delta between an old one and a new one). A CPU offline and back between two flushes is told by
 *           its clock: a live cpu-clock, task-clock or enabled time always
 *           advances, the idle task's included. A CPU joins the CPU rows
 *           once it has events (session_opts.online) and keeps its row
 *           while offline, at 0: nothing ran there.
 *
 * Userspace does the heavy work once per interval; the BPF side stays
 * O(events) per context switch whatever is watched.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "common/log.h"
#include "common/procfs.h"
#include "engine/session.h"
#include "emon.skel.h"

#define DEFAULT_MAX_CGROUPS 8192
#define DEFAULT_MAX_PROCS 32768
#define CPU_READY_S 5.0	/* a CPU back online that perf has not set up yet */

static __u32 max_u32(__u32 a, __u32 b)
{
	return a > b ? a : b;
}

struct emon_counts_max {
	struct emon_count c[EMON_MAX_EVENTS];
};

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (!verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void session__setup_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}

int session_read__init(struct session_read *r, int ncpus)
{
	memset(r, 0, sizeof(*r));
	r->cpu = calloc(ncpus, sizeof(*r->cpu));
	r->ovf_cgrp = calloc(ncpus, sizeof(*r->ovf_cgrp));
	r->ovf_proc = calloc(ncpus, sizeof(*r->ovf_proc));
	r->cpu_dt = calloc(ncpus, sizeof(*r->cpu_dt));
	if (!r->cpu || !r->ovf_cgrp || !r->ovf_proc || !r->cpu_dt) {
		session_read__exit(r);
		return -ENOMEM;
	}
	return 0;
}

void session_read__exit(struct session_read *r)
{
	free(r->cpu);
	free(r->ovf_cgrp);
	free(r->ovf_proc);
	free(r->ovf_tree);
	free(r->cpu_dt);
	free(r->cgrp);
	free(r->proc);
	memset(r, 0, sizeof(*r));
}

static const char *load_advice(int err)
{
	if (err == -EPERM || err == -EACCES)
		return "permission denied: run as root, or with CAP_BPF and CAP_PERFMON";
	if (err == -ENOMEM || err == -E2BIG)
		return "not enough locked memory or map space for the BPF maps";
	return "the kernel refused the BPF program (rerun with -v for the verifier log)";
}

/* Tell BPF which events it counts from the switch itself (pmu_event.from). */
static void session__switch_events(struct emon_bpf *k, const struct session_opts *o)
{
	for (int i = 0; i < o->nr_events; i++) {
		switch (o->events[i]->from) {
		case PMU_FROM_CLOCK:
			k->rodata->cfg.from_clock |= 1u << i;
			break;
		case PMU_FROM_SWITCHES:
			k->rodata->cfg.from_switches |= 1u << i;
			break;
		case PMU_FROM_MIGRATIONS:
			k->rodata->cfg.from_migrations |= 1u << i;
			break;
		case PMU_FROM_IN_PLACE:
			k->rodata->cfg.in_place |= 1u << i;
			break;
		case PMU_FROM_COUNTER:
			break;
		}
	}
	k->rodata->cfg.load_ns = session__now() * 1e9;
	k->rodata->cfg.steps = o->steps ?: EMON_STEP_ALL;
}

/* The arguments of tracepoint tp in this kernel's BTF, -1: not known. */
static int tp_nargs(const char *tp)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *t;
	char name[128];
	int id, n = -1;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) : -1;
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	t = t ? btf__type_by_id(btf, t->type) : NULL;		/* pointer */
	t = t && btf_is_ptr(t) ? btf__type_by_id(btf, t->type) : NULL;	/* proto */
	if (t && btf_is_func_proto(t))
		n = btf_vlen(t) - 1;	/* less the void *__data */
	btf__free(btf);
	return n;
}

static int session__size_maps(struct session *s, const struct session_opts *o)
{
	struct emon_bpf *k = s->skel;
	__u32 counts = o->nr_events * sizeof(struct emon_count) +
		       (o->sched ? sizeof(struct emon_sched) : 0);
	__u32 cval = sizeof(struct emon_cgrp_hdr) + counts;
	__u32 pval = sizeof(struct emon_proc_hdr) + counts;
	int err = 0;

	k->rodata->cfg.nr_events = o->nr_events;
	k->rodata->cfg.nr_cpus = o->ncpus;
	k->rodata->cfg.follow_tree = o->max_trees > 0;
	k->rodata->cfg.sched_on = o->sched;
	k->rodata->cfg.sched_ms = o->sched_ms;
	k->rodata->cfg.no_scale = o->no_scale;
	/* off: the verifier never sees them, nothing is attached */
	bpf_program__set_autoload(k->progs.on_wakeup, o->sched);
	bpf_program__set_autoload(k->progs.on_wakeup_new, o->sched);
	s->sched_exit = o->sched && tp_nargs("sched_process_exit") >= 2;
	bpf_program__set_autoload(k->progs.on_exit, s->sched_exit);
	for (int i = 0; i < o->nr_events; i++) {
		const struct perf_event_attr *a = &o->events[i]->attr;

		if (o->events[i]->is_time && k->rodata->cfg.clock_event < 0)
			k->rodata->cfg.clock_event = i;
		if (o->events[i]->is_time)
			k->rodata->cfg.self_time |= 1u << i;

		if (a->type == PERF_TYPE_SOFTWARE)
			k->rodata->cfg.counter_only |= 1u << i;
#if defined(__x86_64__)
		/* the CPU's own counters, for rdpmc (bpf/selfmon.bpf.h) */
		if (o->max_threads && (a->type == PERF_TYPE_HARDWARE ||
				       a->type == PERF_TYPE_HW_CACHE || a->type == PERF_TYPE_RAW))
			k->rodata->cfg.self_pmc |= 1u << i;
#endif
		if (a->type == PERF_TYPE_SOFTWARE &&
		    a->config == PERF_COUNT_SW_CONTEXT_SWITCHES)
			k->rodata->cfg.switch_events |= 1u << i;
	}
	s->counter_only = k->rodata->cfg.counter_only;
	session__switch_events(k, o);
	err = err ?: bpf_map__set_max_entries(k->maps.events, o->nr_events * o->ncpus);
	k->rodata->cfg.max_cgroups = s->max_cgroups;
	k->rodata->cfg.max_procs = s->max_procs;
	err = err ?: bpf_map__set_value_size(k->maps.cgrp_data, cval);
	err = err ?: bpf_map__set_value_size(k->maps.proc_data, pval);
	err = err ?: bpf_map__set_max_entries(k->maps.cgrp_data, 2 * s->max_cgroups);
	err = err ?: bpf_map__set_max_entries(k->maps.proc_data, 2 * s->max_procs);
	err = err ?: bpf_map__set_max_entries(k->maps.cgrp_idx, 2 * s->max_cgroups);
	err = err ?: bpf_map__set_max_entries(k->maps.proc_idx, 2 * s->max_procs);
	err = err ?: bpf_map__set_max_entries(k->maps.cgrp_parent, 2 * s->max_cgroups);
	err = err ?: bpf_map__set_max_entries(k->maps.tree, s->max_procs);
	/* thread self-monitoring: off without slots (the array needs one) */
	k->rodata->cfg.self_max = o->max_threads;
	err = err ?: bpf_map__set_max_entries(k->maps.self_slots, max_u32(o->max_threads, 1));
	return err;
}

/* Event i's fd on cpu, -1 when it is not open there. */
static int session__fd(const struct session *s, int i, int cpu)
{
	const struct pmu_event *e = s->events[i];

	return cpu < e->nr_fds ? e->fds[cpu] : -1;
}

/* Put cpu's event fds in the map; an event not open there is taken out. */
static int session__install_cpu(struct session *s, int cpu)
{
	int map_fd = bpf_map__fd(s->skel->maps.events);

	for (int i = 0; i < s->nr_events; i++) {
		__u32 key = i * s->ncpus + cpu;
		int fd = session__fd(s, i, cpu);

		if (fd >= 0) {
			if (bpf_map_update_elem(map_fd, &key, &fd, BPF_ANY))
				return -errno;
		} else if (bpf_map_delete_elem(map_fd, &key) && errno != ENOENT) {
			return -errno;
		}
	}
	return 0;
}

static int session__install_events(struct session *s)
{
	int err = 0;

	for (int cpu = 0; cpu < s->ncpus && !err; cpu++) {
		err = session__install_cpu(s, cpu);
		for (int i = 0; i < s->nr_events; i++)
			s->cpu[cpu].live |= session__fd(s, i, cpu) >= 0 ||
				(!pmu_event__has_counter(s->events[i]) && s->online &&
				 s->online[cpu]);
	}
	return err;
}

/* mmap the count array of kind: both buffers of max slots each. */
static int session__map_array(struct session *s, enum emon_kind kind,
			      struct bpf_map *map, __u32 max)
{
	struct session_array *a = &s->data[kind];
	long page = sysconf(_SC_PAGESIZE);

	a->max = max;
	a->stride = (bpf_map__value_size(map) + 7) & ~7u;
	a->len = ((size_t)a->stride * 2 * max + page - 1) / page * page;
	a->mem = mmap(NULL, a->len, PROT_READ | PROT_WRITE, MAP_SHARED,
		      bpf_map__fd(map), 0);
	if (a->mem == MAP_FAILED) {
		a->mem = NULL;
		return -errno;
	}
	return 0;
}

/* The scheduler view's own hooks (sched_switch is shared). */
static int session__attach_sched(struct session *s, char *err, size_t errlen)
{
	struct bpf_program *progs[3] = {
		s->skel->progs.on_wakeup, s->skel->progs.on_wakeup_new,
		s->skel->progs.on_exit,
	};

	for (int i = 0; s->sched && i < 2 + s->sched_exit; i++) {
		s->link_sched[i] = bpf_program__attach(progs[i]);
		if (!s->link_sched[i]) {
			int ret = -errno;

			snprintf(err, errlen, "cannot attach %s (--sched): %s",
				 bpf_program__name(progs[i]), strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* Open the object, size its maps, load it; no_pmc: without rdpmc. */
static int session__load(struct session *s, const struct session_opts *o, bool no_pmc)
{
	int ret;

	s->skel = emon_bpf__open();
	if (!s->skel)
		return -errno;
	ret = session__size_maps(s, o);
	if (no_pmc)
		s->skel->rodata->cfg.self_pmc = 0;
	return ret ?: emon_bpf__load(s->skel);
}

int session__open(struct session *s, const struct session_opts *o,
		  char *err, size_t errlen)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->ncpus = o->ncpus;
	s->nr_events = o->nr_events;
	memcpy(s->events, o->events, sizeof(s->events));
	s->online = o->online;
	s->sched = o->sched;
	s->max_trees = o->max_trees > EMON_MAX_TREES ? EMON_MAX_TREES : o->max_trees;
	/* keys are (id, cpu): big hosts see more of them per interval */
	s->max_cgroups = o->max_cgroups ?: max_u32(DEFAULT_MAX_CGROUPS, 32 * o->ncpus);
	s->max_procs = o->max_procs ?: max_u32(DEFAULT_MAX_PROCS, 128 * o->ncpus);
	/* big enough for a per-CPU value of counts or of sched_cpu */
	s->pcpu_buf = calloc(o->ncpus, max_u32(sizeof(struct emon_counts_max),
					       sizeof(struct emon_sched)));
	s->cpu = calloc(o->ncpus, sizeof(*s->cpu));
	if (!s->pcpu_buf || !s->cpu) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}

	ret = session__load(s, o, false);
	/* the rdpmc publication (never run on a PMU here) must not cost
	 * the daemon its start: without it, libemon reads hardware events
	 * as of the last switch */
	if (ret && s->skel && s->skel->rodata->cfg.self_pmc) {
		pr_warn("thread self-monitoring: the kernel refused the rdpmc path (%s): hardware events read as of the last switch",
			strerror(-ret));
		emon_bpf__destroy(s->skel);
		ret = session__load(s, o, true);
	}
	if (ret) {
		snprintf(err, errlen, "loading BPF: %s (%s)", load_advice(ret),
			 strerror(-ret));
		goto out;
	}
	ret = session__map_array(s, EMON_KIND_CGRP, s->skel->maps.cgrp_data, s->max_cgroups);
	ret = ret ?: session__map_array(s, EMON_KIND_PROC, s->skel->maps.proc_data, s->max_procs);
	if (ret) {
		snprintf(err, errlen, "cannot mmap the BPF count arrays: %s", strerror(-ret));
		goto out;
	}
	ret = session__install_events(s);
	if (ret) {
		snprintf(err, errlen, "cannot install perf events in the BPF map: %s",
			 strerror(-ret));
		goto out;
	}
	s->flush_fd = bpf_program__fd(s->skel->progs.flush);
	s->link_switch = bpf_program__attach(s->skel->progs.on_switch);
	if (!s->link_switch) {
		ret = -errno;
		snprintf(err, errlen, "cannot attach to sched_switch: %s", strerror(-ret));
		goto out;
	}
	s->link_exec = bpf_program__attach(s->skel->progs.on_exec);
	if (!s->link_exec) {
		ret = -errno;
		snprintf(err, errlen, "cannot attach to sched_process_exec: %s",
			 strerror(-ret));
		goto out;
	}
	s->link_attach = bpf_program__attach(s->skel->progs.on_attach);
	if (!s->link_attach) {
		ret = -errno;
		snprintf(err, errlen, "cannot attach to cgroup_attach_task: %s",
			 strerror(-ret));
		goto out;
	}
	ret = session__attach_sched(s, err, errlen);
	if (ret)
		goto out;
	if (o->max_trees > 0) {
		s->link_fork = bpf_program__attach(s->skel->progs.on_fork);
		s->link_free = s->link_fork ?
			       bpf_program__attach(s->skel->progs.on_free) : NULL;
		if (!s->link_free) {
			ret = -errno;
			snprintf(err, errlen, "cannot attach to sched_process_%s: %s",
				 s->link_fork ? "free" : "fork", strerror(-ret));
			goto out;
		}
	}
	ret = 0;
out:
	if (ret)
		session__close(s);
	return ret;
}

int session__self_maps(const struct session *s, int *slots_fd, int *task_fd,
		       int *ctl_fd)
{
	if (!s->skel || !s->skel->rodata->cfg.self_max)
		return -ENOENT;
	*slots_fd = bpf_map__fd(s->skel->maps.self_slots);
	*task_fd = bpf_map__fd(s->skel->maps.self_task);
	*ctl_fd = bpf_program__fd(s->skel->progs.self_ctl);
	return 0;
}

/* Run the flush program on cpu: 0, -ENXIO when it is offline, or -errno. */
static int session__flush_cpu(struct session *s, int cpu)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .flags = BPF_F_TEST_RUN_ON_CPU,
		    .cpu = cpu);

	return bpf_prog_test_run_opts(s->flush_fd, &opts) ? -errno : 0;
}

double session__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * When the interval ended: each CPU's ends where its flush read its
 * counters, as the flush recorded it; the interval's end is their mean,
 * so the CPUs' cpu-clock adds up to exactly ncpu x dt whatever delayed
 * an IPI or preempted us (falls back to t, taken after the flush).
 */
static void session__flush_time(struct session *s, double t)
{
	int fd = bpf_map__fd(s->skel->maps.flush_ns);
	double sum = 0, lo = 0, hi = 0;
	__u64 *ns = s->pcpu_buf;
	__u32 z = 0;
	int n = 0;

	s->flush_t = t;
	s->flush_spread = 0;
	if (bpf_map_lookup_elem(fd, &z, ns)) {
		for (int cpu = 0; cpu < s->ncpus; cpu++)
			s->cpu[cpu].flush_ns = s->cpu[cpu].dt = 0;
		return;
	}
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		struct session_cpu *c = &s->cpu[cpu];
		__u64 prev = c->flush_ns;
		double v = ns[cpu] / 1e9;

		/* each CPU's time between reads, for the clock check */
		c->flush_ns = c->flushed ? ns[cpu] : 0;
		c->dt = prev && c->flush_ns > prev ? (c->flush_ns - prev) / 1e9 : 0;
		if (!c->flushed || !ns[cpu])
			continue;
		sum += v;
		lo = n && lo < v ? lo : v;
		hi = n && hi > v ? hi : v;
		n++;
	}
	if (n) {
		s->flush_t = sum / n;
		s->flush_spread = hi - lo;
	}
}

/* Run the flush program on every possible CPU; offline ones refuse. */
static int session__flush(struct session *s)
{
	int flushed = 0, err;

	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		err = session__flush_cpu(s, cpu);
		if (err && err != -ENXIO)
			return err;
		s->cpu[cpu].was_flushed = s->cpu[cpu].flushed;
		s->cpu[cpu].flushed = !err;
		flushed += !err;
	}
	session__flush_time(s, session__now());
	return flushed ? 0 : -ENXIO;
}

/* Read one slot of a per-CPU array of counts into out[cpu] and zero it. */
static int session__take_slot(struct session *s, int fd, __u32 slot,
			      struct counts *out)
{
	struct emon_counts_max *v = s->pcpu_buf;
	size_t sz = sizeof(*v) * s->ncpus;

	if (bpf_map_lookup_elem(fd, &slot, v))
		return -errno;
	for (int cpu = 0; cpu < s->ncpus; cpu++)
		memcpy(out[cpu].c, v[cpu].c, sizeof(struct emon_count) * s->nr_events);
	memset(v, 0, sz);
	if (bpf_map_update_elem(fd, &slot, v, BPF_ANY))
		return -errno;
	return 0;
}

/* The same for sched_cpu (indexed as cpu_counts) into out[cpu].s. */
static int session__take_sched(struct session *s, __u32 slot, struct counts *out)
{
	int fd = bpf_map__fd(s->skel->maps.sched_cpu);
	struct emon_sched *v = s->pcpu_buf;

	if (!s->sched)
		return 0;
	if (bpf_map_lookup_elem(fd, &slot, v))
		return -errno;
	for (int cpu = 0; cpu < s->ncpus; cpu++)
		out[cpu].s = v[cpu];
	memset(v, 0, sizeof(*v) * s->ncpus);
	if (bpf_map_update_elem(fd, &slot, v, BPF_ANY))
		return -errno;
	return 0;
}

static int session__take_pcpu(struct session *s, __u32 slot, struct counts *out)
{
	int err = session__take_slot(s, bpf_map__fd(s->skel->maps.cpu_counts), slot, out);

	return err ?: session__take_sched(s, slot, out);
}

/* Each tree's part of the process overflow row, for the trees in use. */
static int session__take_trees(struct session *s, struct session_read *r, __u32 par)
{
	int fd = bpf_map__fd(s->skel->maps.tree_ovf), err = 0;
	size_t n = (size_t)s->max_trees * s->ncpus;

	if (!s->max_trees)
		return 0;
	if (!r->ovf_tree) {
		r->ovf_tree = calloc(n, sizeof(*r->ovf_tree));
		if (!r->ovf_tree)
			return -ENOMEM;
		r->ntrees = s->max_trees;
	}
	memset(r->ovf_tree, 0, n * sizeof(*r->ovf_tree));
	for (int t = 0; t < s->max_trees && !err; t++)
		if (s->trees & (1ULL << t))
			err = session__take_slot(s, fd, par * EMON_MAX_TREES + t,
						 &r->ovf_tree[(size_t)t * s->ncpus]);
	return err;
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 256;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*arr, ncap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

/* A slot's scheduler view, after its counts (when on). */
static void take_sched(struct counts *c, const void *counts, int nr, bool on)
{
	if (on)
		memcpy(&c->s, (const char *)counts + sizeof(struct emon_count) * nr,
		       sizeof(c->s));
}

static void take_cgrp(struct session_read *r, const void *slot, int nr, bool sched)
{
	const struct emon_cgrp_hdr *h = slot;
	struct sess_cgrp *e = &r->cgrp[r->nr_cgrp++];

	e->cgid = h->key.cgid;
	e->cpu = h->key.cpu;
	memset(&e->c, 0, sizeof(e->c));
	memcpy(e->c.c, (const char *)slot + sizeof(*h), sizeof(struct emon_count) * nr);
	take_sched(&e->c, (const char *)slot + sizeof(*h), nr, sched);
}

static void take_proc(struct session_read *r, const void *slot, int nr, bool sched)
{
	const struct emon_proc_hdr *h = slot;
	struct sess_proc *e = &r->proc[r->nr_proc++];

	e->tgid = h->key.tgid;
	e->cpu = h->key.cpu;
	e->start = h->key.start;
	memcpy(e->comm, h->comm, sizeof(e->comm));
	e->comm[sizeof(e->comm) - 1] = '\0';
	e->flags = h->flags;
	e->trees = h->trees;
	memset(&e->c, 0, sizeof(e->c));
	memcpy(e->c.c, (const char *)slot + sizeof(*h), sizeof(struct emon_count) * nr);
	take_sched(&e->c, (const char *)slot + sizeof(*h), nr, sched);
}

/*
 * Read the used slots of a quiescent buffer straight from the mmap'ed
 * array, zero them for its next turn and hand its slots back: no syscall.
 */
static int session__drain(struct session *s, struct session_read *r,
			  enum emon_kind kind, __u32 par)
{
	struct session_array *a = &s->data[kind];
	volatile __u32 *used = &s->skel->bss->used[EMON_USED(kind, par)];
	__u32 n = *used;
	char *base;
	int err;

	if (n > a->max)		/* BPF counts on past max once it is full */
		n = a->max;
	base = (char *)a->mem + (size_t)par * a->max * a->stride;
	if (kind == EMON_KIND_CGRP)
		err = grow((void **)&r->cgrp, &r->cap_cgrp, r->nr_cgrp + n, sizeof(*r->cgrp));
	else
		err = grow((void **)&r->proc, &r->cap_proc, r->nr_proc + n, sizeof(*r->proc));
	if (err)
		return err;
	for (__u32 i = 0; i < n; i++) {
		const void *slot = base + (size_t)i * a->stride;

		if (kind == EMON_KIND_CGRP)
			take_cgrp(r, slot, s->nr_events, s->sched);
		else
			take_proc(r, slot, s->nr_events, s->sched);
	}
	memset(base, 0, (size_t)n * a->stride);
	__atomic_store_n(used, 0, __ATOMIC_SEQ_CST);
	return 0;
}


static int session__read_stats(struct session *s, struct session_read *r)
{
	int fd = bpf_map__fd(s->skel->maps.stats);
	__u64 *v = s->pcpu_buf;

	for (__u32 slot = 0; slot < EMON_STAT_NR; slot++) {
		__u64 sum = 0;

		if (bpf_map_lookup_elem(fd, &slot, v))
			return -errno;
		for (int cpu = 0; cpu < s->ncpus; cpu++)
			sum += v[cpu];
		r->stats[slot] = sum - s->stats_prev[slot];
		s->stats_prev[slot] = sum;
	}
	return 0;
}

/*
 * Put cpu's new events in place of its dead ones. The old ones are taken
 * out of the map and cpu is flushed first: its reads fail, so BPF marks
 * those events stale and takes its next good reading of each as a
 * baseline, never a delta between an old event and a new one. The flush
 * also moves cpu to the current buffer. -ENXIO: offline again.
 */
static int session__swap_cpu(struct session *s, int cpu)
{
	int map_fd = bpf_map__fd(s->skel->maps.events), err;

	for (int i = 0; i < s->nr_events; i++) {
		__u32 key = i * s->ncpus + cpu;

		if (bpf_map_delete_elem(map_fd, &key) && errno != ENOENT)
			return -errno;
	}
	err = session__flush_cpu(s, cpu);
	return err ?: session__install_cpu(s, cpu);
}

/*
 * cpu is online and its events do not count: it came (back) online since
 * they were opened. Open new ones and swap them in. A CPU not ready for
 * them yet (ENODEV: perf sets a CPU up after it is marked online, and on a
 * busy machine the bring-up can take several intervals) is tried again at
 * every interval for up to CPU_READY_S; other failures are said once per
 * CPU, with what is missing from then on.
 */
static void session__revive_cpu(struct session *s, int cpu)
{
	struct session_cpu *c = &s->cpu[cpu];
	const char *failed = NULL;
	int err = 0, ret, nr_open = 0;

	for (int i = 0; i < s->nr_events; i++) {
		ret = pmu_event__reopen_cpu(s->events[i], cpu);
		nr_open += !ret;
		if (ret && !err) {
			err = ret;
			failed = s->events[i]->name;
		}
	}
	/* perf's CPU set-up can finish between two of these opens: any ENODEV */
	if (err == -ENODEV) {
		double now = session__now();

		if (!c->not_ready_since)
			c->not_ready_since = now;
		if (now - c->not_ready_since < CPU_READY_S)
			return;
	}
	c->not_ready_since = 0;
	c->live = true;		/* no retries every interval: once per comeback */
	c->flush_ns = 0;	/* the swap's flush is its new start */
	ret = session__swap_cpu(s, cpu);
	if (ret == -ENXIO)	/* offline again: the next flush says so */
		ret = 0;
	if (nr_open && s->online)
		s->online[cpu] = true;
	if (!err && !ret) {
		pr_debug("cpu%d is online: its events reopened (%d)", cpu, nr_open);
		return;
	}
	if (c->warned)
		return;
	c->warned = true;
	if (err)
		pr_warn("cpu%d is online again but '%s' cannot be counted there (%s): cpu%d's %s counts are missing from now on",
			cpu, failed, pmu_event__strerror(err), cpu, failed);
	else
		pr_warn("cpu%d is online again but its events cannot be installed (%s): cpu%d's counts are missing from now on",
			cpu, strerror(-ret), cpu);
}

/*
 * Were cpu's events dead this whole interval, though it was online at both
 * ends? It went offline and came back in between. A live cpu-clock or
 * task-clock always advances, and so does the enabled time of an event
 * read with its times; without such an event this cannot be told.
 */
static bool session__stalled(const struct session *s,
			     const struct session_read *r, int cpu)
{
	bool told = false;

	for (int i = 0; i < s->nr_events; i++) {
		const struct emon_count *c = &r->cpu[cpu].c[i];

		if (session__fd(s, i, cpu) < 0)
			continue;
		if (!(s->counter_only & (1u << i))) {
			if (c->enabled)
				return false;
			told = true;
		} else if (s->events[i]->is_time) {
			if (c->counter)
				return false;
			told = true;
		}
	}
	return told;
}

/* After an interval's flush and read: follow CPUs going and coming. */
static void session__track_cpus(struct session *s, struct session_read *r)
{
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		struct session_cpu *c = &s->cpu[cpu];

		if (!c->flushed) {
			if (c->live)
				pr_debug("cpu%d went offline: counted again once it is back", cpu);
			c->live = false;
			continue;
		}
		if (c->live && c->was_flushed && session__stalled(s, r, cpu)) {
			pr_debug("cpu%d went offline and came back within the interval", cpu);
			r->cpu_dt[cpu] = 0;
			c->live = false;
		}
		if (!c->live)
			session__revive_cpu(s, cpu);
	}
}

int session__interval(struct session *s, struct session_read *r)
{
	__u32 par;
	int err;

	s->epoch++;
	__atomic_store_n(&s->skel->bss->epoch, s->epoch, __ATOMIC_SEQ_CST);
	err = session__flush(s);
	if (err)
		return err;
	par = (s->epoch - 1) & 1;
	r->t = s->flush_t;
	r->spread = s->flush_spread;

	r->nr_cgrp = r->nr_proc = 0;
	err = session__take_pcpu(s, par, r->cpu);
	err = err ?: session__take_pcpu(s, 2 + par * EMON_OVF_NR + EMON_OVF_CGRP, r->ovf_cgrp);
	err = err ?: session__take_pcpu(s, 2 + par * EMON_OVF_NR + EMON_OVF_PROC, r->ovf_proc);
	err = err ?: session__take_trees(s, r, par);
	err = err ?: session__drain(s, r, EMON_KIND_CGRP, par);
	err = err ?: session__drain(s, r, EMON_KIND_PROC, par);
	err = err ?: session__read_stats(s, r);
	for (int cpu = 0; cpu < s->ncpus; cpu++)
		r->cpu_dt[cpu] = s->cpu[cpu].live ? s->cpu[cpu].dt : 0;
	if (!err)
		session__track_cpus(s, r);
	return err;
}

int session__start(struct session *s)
{
	struct session_read r;
	int err;

	err = session__flush(s);	/* baseline readings */
	if (err)
		return err;
	err = session_read__init(&r, s->ncpus);
	if (err)
		return err;
	err = session__interval(s, &r);
	session_read__exit(&r);
	return err;
}

/*
 * Whether start (a task's start_time: CLOCK_MONOTONIC ns) is when process
 * pid started, to the clock tick /proc/PID/stat gives it in (boot time).
 */
static bool proc_started_at(__u32 pid, __u64 start)
{
	struct timespec mono, boot;
	unsigned long long ticks;
	char buf[1024], *p = procfs__stat(pid, buf, sizeof(buf));
	long hz = sysconf(_SC_CLK_TCK);
	__u64 at;
	int i;

	if (hz <= 0)
		return false;
	for (i = 2; p && i < 22; i++)	/* from field 2's ')' to field 22, starttime */
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &ticks) != 1 ||
	    clock_gettime(CLOCK_MONOTONIC, &mono) || clock_gettime(CLOCK_BOOTTIME, &boot))
		return false;
	/* boot time = monotonic time + the time spent suspended */
	at = start + (__u64)(boot.tv_sec - mono.tv_sec) * 1000000000ULL +
	     (__u64)(boot.tv_nsec - mono.tv_nsec);
	at /= 1000000000ULL / (__u64)hz;
	return at + 1 >= ticks && at <= ticks + 1;
}

int session__tree_add(struct session *s, __u32 tgid, int tree)
{
	/*
	 * start 0: the command, stopped before its exec by whoever forked
	 * it, keeps its pid until they reap it; its exec fills in its start
	 * time. A command already in a tree (an emon-perf stat run inside a
	 * command that another one follows, both attached to one daemon)
	 * keeps its entry, its start time and trees, and joins this tree
	 * too; not an entry that its pid's earlier process left.
	 */
	struct emon_tree_val v = { 0 }, old;
	int fd = bpf_map__fd(s->skel->maps.tree), ofd;
	__u32 slot;

	if (tree < 0 || tree >= s->max_trees)
		return -EINVAL;
	/* a tree starts with no overflow left from an earlier user */
	ofd = bpf_map__fd(s->skel->maps.tree_ovf);
	memset(s->pcpu_buf, 0, sizeof(struct emon_counts_max) * s->ncpus);
	for (int par = 0; par < 2; par++) {
		slot = par * EMON_MAX_TREES + tree;
		if (bpf_map_update_elem(ofd, &slot, s->pcpu_buf, BPF_ANY))
			return -errno;
	}
	s->trees |= 1ULL << tree;
	if (!bpf_map_lookup_elem(fd, &tgid, &old) && old.start &&
	    proc_started_at(tgid, old.start))
		v = old;
	v.mask |= 1ULL << tree;
	if (bpf_map_update_elem(fd, &tgid, &v, BPF_ANY))
		return -errno;
	return 0;
}

/*
 * Take tree's bit off every process: the processes a command left running
 * (daemons it started) would otherwise count for the next user of tree.
 */
int session__tree_release(struct session *s, int tree)
{
	int fd = bpf_map__fd(s->skel->maps.tree), err = 0;
	__u32 key, next, *prev = NULL;
	struct emon_tree_val v;

	if (tree < 0 || tree >= s->max_trees)
		return -EINVAL;
	s->trees &= ~(1ULL << tree);
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &v) || !(v.mask & (1ULL << tree)))
			continue;
		v.mask &= ~(1ULL << tree);
		if (v.mask ? bpf_map_update_elem(fd, &key, &v, BPF_EXIST) :
			     bpf_map_delete_elem(fd, &key))
			err = err ?: -errno;
	}
	return err == -ENOENT ? 0 : err;
}

bool session__cgroup_info(void *ctx, __u64 cgid, __u64 *parent, char *name,
			  size_t len)
{
	struct emon_cgrp_info info;
	struct session *s = ctx;

	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.cgrp_parent), &cgid, &info))
		return false;
	info.name[sizeof(info.name) - 1] = '\0';
	*parent = info.parent;
	snprintf(name, len, "%s", info.name);
	return true;
}

void session__close(struct session *s)
{
	for (int i = 0; i < 3; i++)
		bpf_link__destroy(s->link_sched[i]);
	bpf_link__destroy(s->link_free);
	bpf_link__destroy(s->link_fork);
	bpf_link__destroy(s->link_attach);
	bpf_link__destroy(s->link_exec);
	bpf_link__destroy(s->link_switch);
	emon_bpf__destroy(s->skel);
	free(s->pcpu_buf);
	for (int k = 0; k < 2; k++)
		if (s->data[k].mem)
			munmap(s->data[k].mem, s->data[k].len);
	free(s->cpu);
	memset(s, 0, sizeof(*s));
}
