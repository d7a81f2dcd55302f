// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf stat's setup: privileges, the online CPUs and their packages,
 * the cgroup2 mount and -G paths, the events opened on every CPU, the
 * output, the energy source and the metric that splits it. Each step
 * prints its one-line error and returns the exit status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "cli/commands.h"
#include "cli/stat_run.h"

/* Effective CAP_BPF + CAP_PERFMON, or CAP_SYS_ADMIN, or root. */
bool stat__have_privileges(void)
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

/* /sys/devices/system/cpu/online: "0-3,8-11" */
static int read_online(bool *online, int ncpus)
{
	char buf[4096], *p = buf;
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	int n = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	while (*p && *p != '\n') {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p)
			return -EINVAL;
		p = end;
		if (*p == '-')
			b = strtol(p + 1, &p, 10);
		for (long c = a; c <= b && c < ncpus; c++, n++)
			online[c] = true;
		if (*p == ',')
			p++;
	}
	return n ? 0 : -EINVAL;
}

static int setup_cpus(struct stat_run *st)
{
	char err[256];
	int ret;

	st->ncpus = libbpf_num_possible_cpus();
	if (st->ncpus <= 0) {
		pr_err("cannot read the number of possible CPUs");
		return 1;
	}
	st->online = calloc(st->ncpus, sizeof(*st->online));
	st->cpu_pkg = calloc(st->ncpus, sizeof(*st->cpu_pkg));
	if (!st->online || !st->cpu_pkg)
		return 1;
	if (read_online(st->online, st->ncpus)) {
		pr_err("cannot read the online CPUs from /sys/devices/system/cpu/online");
		return 1;
	}
	ret = cpu_topology__load(&st->topo, ENERGY_CPU_ROOT, st->ncpus, err, sizeof(err));
	if (ret || st->topo.nr_packages < 1) {
		/* no topology (odd containers): one package */
		pr_debug("no CPU topology (%s): one package", err);
		st->topo.nr_packages = 1;
		st->topo.pkg_id[0] = 0;
	}
	for (int cpu = 0; cpu < st->ncpus; cpu++)
		st->cpu_pkg[cpu] = st->topo.pkg_of_cpu && st->topo.pkg_of_cpu[cpu] >= 0 ?
				   st->topo.pkg_of_cpu[cpu] : 0;
	return 0;
}

static int setup_cgroups(struct stat_run *st)
{
	__u64 id;
	int ret;

	ret = cgroup__find_mount("/proc/mounts", st->cgroot, sizeof(st->cgroot));
	if (ret) {
		pr_err("no cgroup2 file system mounted (see /proc/mounts)");
		return 1;
	}
	pr_debug("cgroup2 mounted at %s", st->cgroot);
	for (int i = 0; i < st->o.nr_cgroups; i++) {
		ret = cgroup__id(st->cgroot, st->o.cgroups[i], &id);
		if (ret) {
			pr_err("cgroup '%s' not found under %s: %s", st->o.cgroups[i],
			       st->cgroot, strerror(-ret));
			return 2;
		}
	}
	if (cgroup_names__init(&st->names, st->cgroot))
		return 1;
	cgroup_names__walk(&st->names);
	return 0;
}

static int parse_events(struct stat_run *st)
{
	char err[512];

	if (pmu_event_list__parse(&st->events, st->o.events, err, sizeof(err))) {
		pr_err("%s", err);
		return 2;
	}
	return 0;
}

static int setup_events(struct stat_run *st, struct session_opts *so)
{
	char err[512];
	int ret;

	for (int i = 0; i < st->events.nr; i++) {
		struct pmu_event *e = &st->events.ev[i];
		struct row_event *re = &st->out.ev[i];

		ret = pmu_event__open(e, st->ncpus, st->online, err, sizeof(err));
		if (ret) {
			pr_err("%s", err);
			return ret == -EACCES || ret == -EPERM ? 2 : 1;
		}
		re->name = e->name;
		re->is_time = e->is_time;
		re->supported = e->supported;
		re->bpf_idx = -1;
		if (!e->supported) {
			pr_debug("%s: %s", e->name, pmu_event__strerror(e->open_err));
			continue;
		}
		re->bpf_idx = so->nr_events;
		so->events[so->nr_events++] = e;
	}
	st->out.nr_events = st->events.nr;
	if (!so->nr_events) {
		pr_err("none of the events can be counted here (%s: %s)",
		       st->events.ev[0].name,
		       pmu_event__strerror(st->events.ev[0].open_err));
		return 1;
	}
	return 0;
}

/* The BPF index of the event called name, or -1. */
static int bpf_index(const struct stat_run *st, const char *name)
{
	int i = output__event_index(&st->out, name);

	return i < 0 ? -1 : st->out.ev[i].bpf_idx;
}

/*
 * Open the energy source and choose the metric that splits it: --split-by,
 * else cycles, else cpu-clock (said in the output). Its packages replace
 * the CPU topology, so a CPU's package is the same for counts and joules.
 */
static int setup_energy(struct stat_run *st)
{
	struct energy_opts eo = {
		.spec = st->o.energy,
		.powercap_root = st->o.powercap_root,
		.ncpus = st->ncpus,
	};
	const char *split = st->o.split_by;
	char err[512] = "";
	int ret = 0;

	st->clock_idx = bpf_index(st, "cpu-clock");
	st->energy = energy_source__open_opts(&eo, &ret, err, sizeof(err));
	if (!st->energy) {
		if (ret) {
			pr_err("%s", err);
			return ret == -EINVAL || ret == -ENOENT ? 2 : 1;
		}
		/* auto found nothing: said once the counts are out, so an
		 * error stays the only line of a failed run */
		snprintf(st->energy_note, sizeof(st->energy_note), "%s%s", err,
			 st->o.split_by || st->o.idle_watts ?
			 " (--split-by and --idle-watts do nothing)" : "");
		return 0;
	}
	if (split) {
		if (bpf_index(st, split) < 0) {
			pr_err("--split-by %s: not among the events that can be counted here", split);
			return 2;
		}
	} else if (bpf_index(st, "cycles") >= 0) {
		split = "cycles";
	} else if (st->clock_idx >= 0) {
		split = "cpu-clock";
		pr_debug("energy split by cpu-clock: cycles are not counted here");
	} else {
		pr_err("energy needs cycles or cpu-clock among the events to split it by");
		return 2;
	}
	if (energy_source__is_estimated(st->energy) && st->clock_idx < 0) {
		pr_err("--energy model needs cpu-clock among the events (busy time)");
		return 2;
	}
	st->attr.split_idx = bpf_index(st, split);
	st->attr.es = &st->es;
	st->out.energy_source = energy_source__name(st->energy);
	st->out.split_by = st->events.ev[output__event_index(&st->out, split)].name;
	st->out.energy_estimated = energy_source__is_estimated(st->energy);

	st->topo.nr_packages = energy_source__nr_packages(st->energy);
	for (int p = 0; p < st->topo.nr_packages; p++)
		st->topo.pkg_id[p] = energy_source__package_id(st->energy, p);
	for (int cpu = 0; cpu < st->ncpus; cpu++) {
		int p = energy_source__package_of_cpu(st->energy, cpu);

		st->cpu_pkg[cpu] = p < 0 ? 0 : p;
	}
	st->busy_ns = calloc(st->topo.nr_packages, sizeof(*st->busy_ns));
	return st->busy_ns ? 0 : 1;
}

static int setup_output(struct stat_run *st)
{
	struct output *o = &st->out;

	o->f = stdout;
	if (st->o.output) {
		o->f = fopen(st->o.output, "we");
		if (!o->f) {
			pr_err("cannot write '%s': %s", st->o.output, strerror(errno));
			o->f = NULL;
			return 2;
		}
	}
	/* each interval ends with a flush: one write for thousands of rows */
	setvbuf(o->f, NULL, _IOFBF, 1 << 16);
	o->ops = st->o.json ? &output_json_ops :
		 st->o.sep ? &output_csv_ops : &output_text_ops;
	o->sep = st->o.sep;
	o->interval_mode = st->o.interval_ms > 0;
	o->ncpus = 0;
	for (int cpu = 0; cpu < st->ncpus; cpu++)
		o->ncpus += st->online[cpu];
	if (st->o.cmd) {
		size_t n = 0;

		for (char **a = st->o.cmd; *a && n < sizeof(st->target) - 1; a++)
			n += snprintf(st->target + n, sizeof(st->target) - n, "%s%s",
				      a == st->o.cmd ? "" : " ", *a);
		o->target = st->target;
	} else {
		o->target = "system wide";
	}
	return 0;
}

int stat__setup_inputs(struct stat_run *st, struct session_opts *so)
{
	int ret;

	ret = setup_cpus(st);
	ret = ret ?: setup_cgroups(st);
	ret = ret ?: parse_events(st);	/* before -o truncates a file */
	ret = ret ?: setup_output(st);
	ret = ret ?: setup_events(st, so);
	ret = ret ?: setup_energy(st);
	return ret;
}
