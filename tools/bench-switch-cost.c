// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Cost breakdown of the sched_switch accounting (see
 * tools/bench/switch_cost.bpf.c): loads that object with the events given
 * (opened exactly as emon-perf opens them, one per online CPU), then
 * attaches each named program in turn for SECONDS while something switches
 * (tools/bench.sh runs a ping-pong meanwhile) and prints its mean run time.
 *
 *   bench-switch-cost -o OBJ [-e EVENTS] [-d SECONDS] PROG...
 * prints per program: "prog=NAME events=N runs=R ns_per_run=X"
 *
 * Run-time statistics are switched on with BPF_ENABLE_STATS, which holds
 * them on only while its fd is open: they go off again when this exits,
 * however it exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "pmu/event.h"

struct cost_run {
	struct pmu_event_list ev;
	struct bpf_object *obj;
	bool *online;
	int ncpus;
};

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN)
		return vfprintf(stderr, fmt, ap);
	return 0;
}

/* Set a const volatile global in .rodata before load, found through BTF. */
static int rodata__set_u32(struct bpf_object *obj, const char *var, __u32 val)
{
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_var_secinfo *vs;
	const struct btf_type *sec;
	struct bpf_map *map = NULL, *m;
	size_t sz;
	const void *init;
	char *buf;
	int id, err = -ENOENT;

	bpf_object__for_each_map(m, obj) {
		const char *n = bpf_map__name(m);

		if (strlen(n) >= 7 && !strcmp(n + strlen(n) - 7, ".rodata"))
			map = m;
	}
	id = btf ? btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC) : -1;
	if (!map || id < 0)
		return -ENOENT;
	init = bpf_map__initial_value(map, &sz);
	buf = malloc(sz);
	if (!init || !buf) {
		free(buf);
		return -ENOMEM;
	}
	memcpy(buf, init, sz);
	sec = btf__type_by_id(btf, id);
	vs = btf_var_secinfos(sec);
	for (int i = 0; i < btf_vlen(sec); i++, vs++) {
		const struct btf_type *t = btf__type_by_id(btf, vs->type);

		if (!strcmp(btf__name_by_offset(btf, t->name_off), var) &&
		    vs->offset + sizeof(val) <= sz) {
			memcpy(buf + vs->offset, &val, sizeof(val));
			err = bpf_map__set_initial_value(map, buf, sz);
			break;
		}
	}
	free(buf);
	return err;
}

static int cost_run__load(struct cost_run *r, const char *path)
{
	__u32 cval = r->ev.nr * sizeof(struct emon_count);
	struct bpf_map *events;
	int err, fd;

	r->obj = bpf_object__open_file(path, NULL);
	if (!r->obj)
		return -errno;
	events = bpf_object__find_map_by_name(r->obj, "events");
	err = rodata__set_u32(r->obj, "nr_events", r->ev.nr);
	err = err ?: rodata__set_u32(r->obj, "nr_cpus", r->ncpus);
	err = err ?: bpf_map__set_max_entries(events, r->ev.nr * r->ncpus);
	err = err ?: bpf_map__set_value_size(bpf_object__find_map_by_name(r->obj, "cgrp_counts"), cval);
	err = err ?: bpf_map__set_value_size(bpf_object__find_map_by_name(r->obj, "proc_counts"),
					     sizeof(struct emon_proc_hdr) + cval);
	err = err ?: bpf_object__load(r->obj);
	if (err)
		return err;
	fd = bpf_map__fd(events);
	for (int i = 0; i < r->ev.nr; i++) {
		for (int cpu = 0; cpu < r->ncpus; cpu++) {
			__u32 key = i * r->ncpus + cpu;
			int efd = r->ev.ev[i].fds[cpu];

			if (efd >= 0 && bpf_map_update_elem(fd, &key, &efd, BPF_ANY))
				return -errno;
		}
	}
	return 0;
}

/* cpuN/online is absent for CPUs that cannot go offline (cpu0). */
static bool cpu_online(int cpu)
{
	char path[64];
	int c = '1';
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	f = fopen(path, "re");
	if (!f)
		return access(path, F_OK) != 0 && errno == ENOENT;
	c = fgetc(f);
	fclose(f);
	return c == '1';
}

static int prog__stats(int fd, __u64 *ns, __u64 *cnt)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	*ns = info.run_time_ns;
	*cnt = info.run_cnt;
	return 0;
}

static int measure(struct cost_run *r, const char *name, double secs)
{
	struct bpf_program *p = bpf_object__find_program_by_name(r->obj, name);
	struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };
	struct timespec warm = { 0, 100000000 };
	__u64 ns0 = 0, c0 = 0, ns1 = 0, c1 = 0;
	struct bpf_link *l;
	int fd, err;

	if (!p) {
		fprintf(stderr, "bench-switch-cost: no program '%s'\n", name);
		return -ENOENT;
	}
	fd = bpf_program__fd(p);
	l = bpf_program__attach(p);
	if (!l)
		return -errno;
	nanosleep(&warm, NULL);	/* first-seen inserts, cold caches */
	err = prog__stats(fd, &ns0, &c0);
	nanosleep(&ts, NULL);
	err = err ?: prog__stats(fd, &ns1, &c1);
	bpf_link__destroy(l);
	if (err)
		return err;
	printf("prog=%s events=%d runs=%llu ns_per_run=%.1f\n", name, r->ev.nr,
	       (unsigned long long)(c1 - c0), c1 > c0 ? (double)(ns1 - ns0) / (c1 - c0) : 0.0);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	const char *obj = NULL, *events = "cpu-clock";
	struct cost_run r = {};
	double secs = 1;
	char err[512];
	int opt, stats_fd = -1, ret = 1;

	while ((opt = getopt(argc, argv, "o:e:d:")) != -1) {
		switch (opt) {
		case 'o': obj = optarg; break;
		case 'e': events = optarg; break;
		case 'd': secs = atof(optarg); break;
		default: goto usage;
		}
	}
	if (!obj || optind == argc || secs <= 0)
		goto usage;
	libbpf_set_print(libbpf_quiet);
	r.ncpus = libbpf_num_possible_cpus();
	r.online = calloc(r.ncpus > 0 ? r.ncpus : 1, sizeof(*r.online));
	if (r.ncpus <= 0 || !r.online)
		return 1;
	for (int cpu = 0; cpu < r.ncpus; cpu++)
		r.online[cpu] = cpu_online(cpu);
	if (pmu_event_list__parse(&r.ev, events, err, sizeof(err))) {
		fprintf(stderr, "bench-switch-cost: %s\n", err);
		return 2;
	}
	for (int i = 0; i < r.ev.nr; i++) {
		if (pmu_event__open(&r.ev.ev[i], r.ncpus, r.online, err, sizeof(err)) ||
		    !r.ev.ev[i].supported) {
			fprintf(stderr, "bench-switch-cost: %s: %s\n", r.ev.ev[i].name,
				*err ? err : pmu_event__strerror(r.ev.ev[i].open_err));
			goto out;
		}
	}
	if (cost_run__load(&r, obj)) {
		fprintf(stderr, "bench-switch-cost: cannot load %s\n", obj);
		goto out;
	}
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0) {
		fprintf(stderr, "bench-switch-cost: BPF_ENABLE_STATS: %s\n", strerror(errno));
		goto out;
	}
	ret = 0;
	for (int i = optind; i < argc && !ret; i++)
		ret = measure(&r, argv[i], secs) ? 1 : 0;
out:
	if (stats_fd >= 0)
		close(stats_fd);
	bpf_object__close(r.obj);
	for (int i = 0; i < r.ev.nr; i++)
		pmu_event__close(&r.ev.ev[i]);
	free(r.online);
	return ret;
usage:
	fprintf(stderr, "usage: bench-switch-cost -o OBJ [-e EVENTS] [-d SECONDS] PROG...\n");
	return 2;
}
