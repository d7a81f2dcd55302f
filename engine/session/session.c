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
 *
 * This file opens, loads, attaches and closes; interval.c flushes and
 * reads an interval, hotplug.c follows CPUs going and coming,
 * tree.c keeps the command trees in the tree map.
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
#include "engine/session/bpf_log.h"
#include "engine/session/features.h"
#include "engine/session/session_int.h"

#define DEFAULT_MAX_CGROUPS 8192
#define DEFAULT_MAX_PROCS 32768

/* The session's clock, and a CPU's flush (its counters read into the
 * buffer): what the read (interval.c) and the CPUs' comebacks
 * (session_hotplug.c) both use. */
int session__flush_cpu(struct session *s, int cpu)
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

static __u32 max_u32(__u32 a, __u32 b)
{
	return a > b ? a : b;
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
			if (kfeature__have(KF_RDONLY_CAST))
				k->rodata->cfg.in_place |= 1u << i;
			break;
		case PMU_FROM_COUNTER:
			break;
		}
	}
	k->rodata->cfg.load_ns = session__now() * 1e9;
	k->rodata->cfg.steps = o->steps ?: EMON_STEP_ALL;
}

static int session__size_maps(struct session *s, const struct session_opts *o)
{
	struct emon_bpf *k = s->skel;
	__u32 counts = o->nr_events * sizeof(struct emon_count) +
		       (o->sched ? sizeof(struct emon_sched) : 0);
	__u32 cval = sizeof(struct emon_cgrp_hdr) + counts;
	__u32 pval = sizeof(struct emon_proc_hdr) + counts;
	/* no scheduler view per thread: its counts only */
	__u32 tval = sizeof(struct emon_thrd_hdr) + o->nr_events * sizeof(struct emon_count);
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
	s->sched_exit = o->sched && kfeature__have(KF_EXIT_GROUP_DEAD);
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
	/* per-CPU rows: as many counts as there are events (the type's
	 * EMON_MAX_EVENTS bound the BPF code only) */
	err = err ?: bpf_map__set_value_size(k->maps.cpu_counts, o->nr_events * sizeof(struct emon_count));
	err = err ?: bpf_map__set_value_size(k->maps.tree_ovf, o->nr_events * sizeof(struct emon_count));
	err = err ?: bpf_map__set_value_size(k->maps.cgrp_data, cval);
	err = err ?: bpf_map__set_value_size(k->maps.proc_data, pval);
	err = err ?: bpf_map__set_max_entries(k->maps.cgrp_data, 2 * s->max_cgroups);
	err = err ?: bpf_map__set_max_entries(k->maps.proc_data, 2 * s->max_procs);
	err = err ?: bpf_map__set_max_entries(k->maps.cgrp_idx, 2 * s->max_cgroups);
	err = err ?: bpf_map__set_max_entries(k->maps.proc_idx, 2 * s->max_procs);
	err = err ?: bpf_map__set_max_entries(k->maps.cgrp_parent, 2 * s->max_cgroups);
	err = err ?: bpf_map__set_max_entries(k->maps.tree, s->max_procs);
	/* the thread scope: off without slots (the arrays need one each) */
	k->rodata->cfg.max_tids = s->max_tids;
	err = err ?: bpf_map__set_value_size(k->maps.thrd_data, tval);
	err = err ?: bpf_map__set_max_entries(k->maps.thrd_data, 2 * max_u32(s->max_tids, 1));
	err = err ?: bpf_map__set_max_entries(k->maps.thrd_idx, 2 * max_u32(s->max_tids, 1));
	/* thread self-monitoring: off without slots (the arrays need one) */
	return err ?: session__self_size(s, o);
}

int session__install_cpu(struct session *s, int cpu)
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

/* -v: the slower paths this kernel takes, and why. */
static void session__say_paths(const struct session_opts *o)
{
	const struct kfeature *f = kfeatures__get();
	bool in_place = false;

	for (int i = 0; i < o->nr_events; i++)
		in_place |= o->events[i]->from == PMU_FROM_IN_PLACE;
	if (in_place && !f[KF_RDONLY_CAST].have)
		pr_debug("kernel: no %s (Linux %s): software events %s", f[KF_RDONLY_CAST].name,
			f[KF_RDONLY_CAST].since, f[KF_RDONLY_CAST].without);
	if (o->sched && !f[KF_EXIT_GROUP_DEAD].have)
		pr_debug("kernel: no %s (Linux %s): %s", f[KF_EXIT_GROUP_DEAD].name,
			f[KF_EXIT_GROUP_DEAD].since, f[KF_EXIT_GROUP_DEAD].without);
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
	if (ret)
		return ret;
	bpf_log__capture();
	ret = emon_bpf__load(s->skel);
	bpf_log__release();
	return ret;
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
	s->max_tids = o->max_tids;
	/* big enough for a per-CPU value of counts or of sched_cpu */
	s->pcpu_buf = calloc(o->ncpus, max_u32(sizeof(struct emon_counts_max),
					       sizeof(struct emon_sched)));
	s->cpu = calloc(o->ncpus, sizeof(*s->cpu));
	if (!s->pcpu_buf || !s->cpu) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}

	ret = kfeatures__missing();
	if (ret >= 0) {
		const struct kfeature *f = &kfeatures__get()[ret];

		snprintf(err, errlen, "this kernel lacks %s (Linux %s or later), needed for %s",
			 f->name, f->since, f->uses);
		ret = -EOPNOTSUPP;
		goto out;
	}
	session__say_paths(o);
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
		char why[768];

		ret = bpf_log__explain(ret, why, sizeof(why));
		snprintf(err, errlen, "loading BPF: %s", why);
		goto out;
	}
	ret = session__map_array(s, EMON_KIND_CGRP, s->skel->maps.cgrp_data, s->max_cgroups);
	ret = ret ?: session__map_array(s, EMON_KIND_PROC, s->skel->maps.proc_data, s->max_procs);
	if (s->max_tids)
		ret = ret ?: session__map_array(s, EMON_KIND_THRD, s->skel->maps.thrd_data,
						s->max_tids);
	if (ret) {
		snprintf(err, errlen, "cannot mmap the BPF count arrays: %s", strerror(-ret));
		goto out;
	}
	ret = session__self_open(s);
	if (ret) {
		snprintf(err, errlen, "cannot put the %u thread slot arrays in self_arrays: %s",
			 o->self_arrays, strerror(-ret));
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
	session__self_close(s);
	emon_bpf__destroy(s->skel);
	free(s->pcpu_buf);
	for (int k = 0; k < EMON_KIND_NR; k++)
		if (s->data[k].mem)
			munmap(s->data[k].mem, s->data[k].len);
	free(s->cpu);
	memset(s, 0, sizeof(*s));
}
