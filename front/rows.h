/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A row is what every output prints: one scope/key and its counts for one
 * interval. Producers (the session, the energy split, report) own the
 * strings a row points to for as long as the output call runs.
 */
#ifndef FRONT_ROWS_H
#define FRONT_ROWS_H

#include <stdbool.h>
#include "engine/counts.h"

struct agg_gpu;

enum scope {
	SCOPE_SYSTEM,
	SCOPE_CPU,
	SCOPE_SOCKET,
	SCOPE_CGROUP,
	SCOPE_CONTAINER,
	SCOPE_PROCESS,
	SCOPE_COMMAND,
	SCOPE_POD,		/* Kubernetes' pods, namespaces: sums of */
	SCOPE_NAMESPACE,	/* their containers */
	SCOPE_DIE,		/* perf --per-die: CPUs of one die */
	SCOPE_CORE,		/* perf --per-core: CPUs of one core */
	SCOPE_THREAD,		/* perf --per-thread: one thread */
	SCOPE_NODE,		/* perf --per-node: CPUs of one NUMA node */
	SCOPE_NR,
};

/* "unknown" when s is out of range */
const char *scope__name(enum scope s);
/* 1u << each of emon-perf's own scopes, beyond perf's aggregations:
 * cgroup (perf -G's too), container, pod, namespace, process */
#define SCOPES_OWN (1u << SCOPE_CGROUP | 1u << SCOPE_CONTAINER | \
		    1u << SCOPE_POD | 1u << SCOPE_NAMESPACE | 1u << SCOPE_PROCESS)
/* "cgroup" -> SCOPE_CGROUP; -1 when unknown */
int scope__parse(const char *s);

/* The one key of what is in no container (container rows) or in no pod
 * (pod and namespace rows: the host's own tasks and containers outside
 * Kubernetes), in every output: stat, top, report. */
#define ROW_KEY_HOST "host"

struct row {
	enum scope scope;
	const char *key;	/* "all", "3", "S0-D0-C1", "/a/b", a container id,
				 * a pid */
	int nr_cpus;		/* system, CPU, socket, die, core rows: the
				 * online CPUs in it; 0 elsewhere */
	const char *comm;	/* process and thread rows; NULL elsewhere */
	__u32 pid;		/* thread rows: the thread's process */
	/* thread rows (and -t's sum): the thread did not run in the
	 * interval, so every event is <not counted>, as perf's */
	bool not_run;
	const char *runtime;	/* container rows */
	const char *pod_uid;	/* container and pod rows under Kubernetes,
				 * else NULL */
	/* container rows: names from the runtime's files, NULL where unknown
	 * (cAdvisor's labels: name, image; Kubernetes' namespace, pod,
	 * container); pod rows: ns and pod, namespace rows: ns */
	const char *name, *image, *ns, *pod, *container;
	struct counts counts;	/* raw sums, unscaled */
	/* energy: only when has_energy (NAN: no valid reading this interval) */
	bool has_energy;
	double energy_j;
	double power_w;
	/* socket rows: measured sub-zones (core, uncore, dram, psys) */
	unsigned int zone_mask;
	double zone_j[4];
	/* GPUs (--gpu, front/rows_gpu.c): system, command, cgroup,
	 * container, pod, namespace and process rows; NAN when no GPU had
	 * a valid read in the interval (unknown, not 0) */
	bool has_gpu;
	double gpu_energy_j;
	double gpu_util;	/* SM time / the interval: 1 = one GPU's SMs */
	const struct agg_gpu *gpus;	/* system row: each GPU's interval */
	int nr_gpus;
	/* system row: ns of this interval's time whose owner BPF estimated
	 * (switches the kernel kept out of its tracepoint), 0 elsewhere */
	__u64 untraced_ns;
	/* -r: perf's ( +- x% ) of each event column (o->ev order), NULL
	 * for one run */
	const double *noise;
};

/* Names of the socket sub-zones, in zone_j order. */
extern const char *const row_zone_names[4];

/* What outputs need to know of each event, in column order. */
struct row_event {
	const char *name;
	bool supported;		/* false: <not supported> / null */
	bool is_time;		/* nanoseconds: msec in text */
	int bpf_idx;		/* index into struct counts, -1 if unsupported */
	/* a {group}'s member: its leader's enabled and running scale it, one
	 * pair for the group as perf has (lead_idx: the leader's bpf_idx) */
	bool grouped;
	int lead_idx;
};

#endif
