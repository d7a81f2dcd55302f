/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The daemon's local protocol, version 4 (docs/protocol.md): messages on a
 * UNIX stream socket, each a struct emon_msg_hdr then len bytes of
 * payload. Little-endian host layout: both ends run on one host. Fixed
 * width types only, so that other tools can speak it from this header.
 */
#ifndef EMON_PROTO_H
#define EMON_PROTO_H

#include <linux/types.h>
#include "emon.h"
#include "emon_selfmon.h"

#define EMON_PROTO_MAGIC 0x4e4f4d45u	/* "EMON" */
/* 2: the scheduler view (EMON_HELLO_SCHED, EMON_SNAP_SCHED), thread
 * self-monitoring (SELF_REQ, SELF) */
/* 3: the containers' names (emon_snap_hdr.nr_cont, struct emon_snap_cont),
 * struct emon_count's unrun and EMON_HELLO_NO_SCALE, emon_snap_cont's
 * runtime (3 is unreleased: extended, not bumped) */
/* 4: up to 16 events (EMON_MAX_EVENTS): emon_hello.ev[] and
 * emon_snap_hdr.ev[] grew */
/* 5: GPU energy (EMON_HELLO_GPU, EMON_SNAP_GPU: struct emon_gpu_count
 * after each count block, emon_snap_hdr.nr_gpu struct emon_snap_gpu) */
#define EMON_PROTO_VERSION 5
/* Requests are small: a longer one is refused and its connection closed. */
#define EMON_PROTO_MAX_REQUEST 4096
#define EMON_PROTO_NAME_LEN 64

struct emon_msg_hdr {
	__u32 magic;
	__u16 version;
	__u16 type;		/* enum emon_msg_type */
	__u32 len;		/* payload bytes that follow */
	__u32 tag;		/* the client's; echoed in the answer */
};

enum emon_msg_type {
	EMON_MSG_HELLO = 1,		/* daemon, on connect: struct emon_hello */
	EMON_MSG_SNAPSHOT_REQ = 2,	/* client: struct emon_snap_req */
	EMON_MSG_SNAPSHOT = 3,		/* daemon: struct emon_snap_hdr ... */
	EMON_MSG_TRACK_REQ = 4,		/* client: struct emon_track_req */
	EMON_MSG_TRACK = 5,		/* daemon: struct emon_track */
	EMON_MSG_ERROR = 6,		/* daemon: struct emon_error + text */
	EMON_MSG_SELF_REQ = 7,		/* client: struct emon_self_req */
	EMON_MSG_SELF = 8,		/* daemon: struct emon_self_grant + an fd */
};

#define EMON_EV_SUPPORTED (1u << 0)	/* counted (else: cannot be, here) */
#define EMON_EV_TIME (1u << 1)		/* nanoseconds */

struct emon_hello_event {
	char name[EMON_PROTO_NAME_LEN];
	__u32 flags;		/* EMON_EV_* */
	__s32 idx;		/* index among the counted events, -1: none */
};

#define EMON_HELLO_ENERGY (1u << 0)	/* an energy source is active */
#define EMON_HELLO_ESTIMATED (1u << 1)	/* it is a model */
#define EMON_HELLO_SCHED (1u << 2)	/* the scheduler view is on (--sched) */
#define EMON_HELLO_SCHED_MS (1u << 3)	/* its histogram is in ms, not us */
#define EMON_HELLO_NO_SCALE (1u << 4)	/* multiplexed counts are raw (--no-scale) */
#define EMON_HELLO_THREADS (1u << 5)	/* it counts threads (--max-tids): EMON_SNAP_THREADS */
#define EMON_HELLO_GPU (1u << 6)	/* a GPU source is active (--gpu): EMON_SNAP_GPU */

/* followed by __s32 cpu_pkg[ncpus], __s32 pkg_id[npkg] */
struct emon_hello {
	__u32 pid;
	__u32 ncpus;		/* possible CPUs */
	__u32 npkg;
	__u32 nr_events;	/* ev[] entries, counted or not */
	__u32 flags;		/* EMON_HELLO_* */
	__u32 max_trees;
	double start_t;		/* CLOCK_MONOTONIC s: counting began */
	char energy_source[16];
	char split_by[EMON_PROTO_NAME_LEN];
	struct emon_hello_event ev[EMON_MAX_EVENTS];
};

/* What a snapshot holds besides system, CPUs and packages (snapshot.h). */
#define EMON_SNAP_CGROUPS (1u << 0)
#define EMON_SNAP_PROCS (1u << 1)
#define EMON_SNAP_PROCS_TREE (1u << 2)
/* every thread (an engine with the thread scope; else none come) */
#define EMON_SNAP_THREADS (1u << 3)

/*
 * A command's: its tree and the caller's own processes are what it wants;
 * what its view may not have (docs/security.md) comes as zeros instead
 * of being refused (the first snapshot comes before the tree).
 */
#define EMON_SNAP_REQ_OWN (1u << 0)

struct emon_snap_req {
	__u32 scopes;		/* EMON_SNAP_* */
	__u32 events;		/* bit i: counted event i; 0: all */
	__s32 tree;		/* from EMON_MSG_TRACK, -1: none */
	__u32 flags;		/* EMON_SNAP_REQ_* */
};

/*
 * A snapshot: this header, then per CPU a struct emon_snap_cpu, per
 * package a struct emon_snap_pkg, then EMON_SNAP_FIXED entries (overflow,
 * gone, tree: enum emon_snap_fixed), nr_cgrp cgroup entries, nr_proc
 * process entries, with EMON_SNAP_THREADS in scopes the thread overflow
 * and gone entries then nr_thrd thread entries (id tid, id2 tgid << 32 |
 * the low 32 bits of its start time, name its comm), nr_cont struct emon_snap_cont (the containers of the
 * cgroups, with cgroups only), then strings bytes of NUL-terminated names. Each
 * entry and CPU ends with nr_events struct emon_count, then, with
 * EMON_SNAP_SCHED, one struct emon_sched (emon.h).
 */
#define EMON_SNAP_STATS 8
#define EMON_SNAP_TREE (1u << 0)	/* the tree entries are meaningful */
#define EMON_SNAP_SCHED (1u << 1)	/* each count block ends with an emon_sched */
/* the system, CPUs, packages and energy are not the client's to see
 * (docs/security.md): their counts are zeros, not measured */
#define EMON_SNAP_NO_SYS (1u << 2)
/* a tenant's view: processes and cgroups are the client's own only (and,
 * without EMON_SNAP_NO_SYS, what CPU-wide counting shows), no threads */
#define EMON_SNAP_TENANT (1u << 3)
/* GPU energy: each count block ends with an emon_gpu_count, the GPUs
 * follow the containers */
#define EMON_SNAP_GPU (1u << 4)

struct emon_snap_hdr {
	__u64 seq;		/* flushes so far */
	double t;		/* CLOCK_MONOTONIC s of the flush */
	__u32 ncpus, npkg;
	__u32 nr_events;	/* counts per entry */
	__u32 scopes;
	__u32 nr_cgrp, nr_proc;
	__u32 flags;		/* EMON_SNAP_TREE, _SCHED, _NO_SYS, _TENANT */
	__u32 strings;		/* bytes of names at the end */
	__u64 energy_reads;	/* reads whose energy was valid */
	__u64 stats[EMON_SNAP_STATS];	/* enum emon_stat, cumulative */
	__u8 ev[EMON_MAX_EVENTS];	/* counted event index of each count */
	__u32 nr_cont;		/* container names that follow the processes */
	__u32 nr_thrd;		/* thread entries (EMON_SNAP_THREADS) */
	__u32 nr_gpu;		/* GPUs (EMON_SNAP_GPU) */
	__u32 pad;
};

/* A key's part of the GPUs' energy and SM time, cumulative. */
struct emon_gpu_count {
	__u64 uj;
	__u64 sm_ns;		/* SM share x ns, summed over the GPUs */
};

/* A GPU, cumulative (rapl/gpu.h): its measured energy, the part no
 * process's SM time took (given to the idle task), its processes' SM
 * time, and its reads whose energy was valid. */
struct emon_snap_gpu {
	char name[EMON_PROTO_NAME_LEN];
	__u64 uj;
	__u64 idle_uj;
	__u64 sm_ns;
	__u64 reads;
	__u32 lost;		/* gone for the rest of the run */
	__u32 pad;
};

struct emon_snap_cpu {
	__u32 online;		/* has events: its row is shown */
	__u32 pad;
	double energy_j;	/* attributed */
	/* struct emon_count c[nr_events] */
};

struct emon_snap_pkg {
	double energy_j;	/* measured */
	double zone_j[4];	/* core, uncore, dram, psys */
	__u32 zone_mask;
	__u32 pad;
};

#define EMON_NO_NAME 0xffffffffu

struct emon_snap_entry {
	__u64 id;		/* cgroup v2 id, tgid, or tid */
	__u64 id2;		/* process: start; thread: tgid << 32 | start */
	__u32 name;		/* offset in the strings, EMON_NO_NAME: none */
	__u32 flags;		/* EMON_PROC_* */
	double energy_j;
	/* struct emon_count c[nr_events] */
};

/* A container's names from its runtime's files (cAdvisor's labels):
 * offsets in the strings, EMON_NO_NAME where unknown. The id (64 hex) is
 * the one its cgroups' paths give. */
struct emon_snap_cont {
	__u32 id;
	__u32 name;		/* the runtime's container name */
	__u32 image;
	__u32 ns;		/* Kubernetes namespace, pod, container name */
	__u32 pod;
	__u32 container;
	__u32 runtime;		/* whose files these are: the path's runtime,
				 * or the one that holds a bare id's (below a
				 * pod, cgroupfs driver) */
};

enum emon_snap_fixed {
	EMON_SNAP_OVF_CGRP,	/* slices that found no room in BPF */
	EMON_SNAP_OVF_PROC,
	EMON_SNAP_GONE_CGRP,	/* keys that left the daemon's tables */
	EMON_SNAP_GONE_PROC,
	EMON_SNAP_TREE_ALL,	/* the request's tree, its overflow included */
	EMON_SNAP_TREE_OVF,	/* its part of EMON_SNAP_OVF_PROC */
	EMON_SNAP_FIXED,
};

/* The pid of a process the client forked, stopped before its exec. */
struct emon_track_req {
	__u32 pid;
	__u32 flags;		/* 0 */
};

struct emon_track {
	__s32 tree;		/* for emon_snap_req.tree */
	__u32 pad;
};

struct emon_error {
	__s32 err;		/* errno */
	/* then a one-line message, NUL-terminated */
};

#endif /* EMON_PROTO_H */
