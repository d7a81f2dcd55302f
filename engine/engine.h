/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The engine: events opened once per CPU, the BPF programs, the keys
 * (CPU, cgroup, process, command trees), energy and its split, and the
 * totals of all of it since the start. It is ticked (flush every CPU, read
 * the quiescent buffer, add it up) at least once a read period and before
 * every snapshot; front ends only ever see its snapshots (snapshot.h),
 * whether it runs in their own process or in the daemon.
 */
#ifndef ENGINE_ENGINE_H
#define ENGINE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "emon_proto.h"
#include "engine/snapshot/view.h"
#include "engine/names/container_meta.h"
#include "engine/snapshot/snapshot.h"

struct engine_opts {
	const char *events;		/* comma list (pmu/event.h) */
	const char *energy;		/* auto (NULL), powercap, perf, model:.., none */
	const char *powercap_root;
	const char *gpu;		/* --gpu: NULL/off, on, auto, a library path */
	const char *split_by;		/* NULL: cycles, else cpu-clock */
	double idle_watts;
	__u32 max_cgroups, max_procs;	/* BPF slots per interval, 0: default */
	__u32 max_tids;			/* the thread scope's slots, 0: off */
	int max_trees;			/* command trees at once, 0: none */
	__u32 max_threads;		/* self-monitoring slots, 0: off */
	__u32 self_arrays;		/* with max_threads: slot arrays (one uid's each) */
	__u32 self_array_slots;		/* and slots in each */
	/*
	 * When keys leave the totals (their final totals go to the gone
	 * entries). < 0: one front end in the same process: keys unchanged
	 * since the last snapshot (it has their totals). Else: keys unchanged for
	 * retain_s seconds whose cgroup or process is gone.
	 */
	double retain_s;
	size_t max_keys;		/* cgroups and processes kept at most, 0: no bound */
	bool name_cgroups;		/* keep cgroup paths (cgroup, container rows) */
	bool owners;			/* who owns each entry (with name_cgroups):
					 * engine__encode_view() */
	/* where the runtimes keep their containers' names (with name_cgroups) */
	struct container_roots runtime_roots;
	bool sched;			/* --sched: the scheduler view (counts.s) */
	bool sched_ms;			/* --sched-ms: its histogram in ms */
	bool no_scale;			/* --no-scale: multiplexed counts raw */
};

struct engine;

/*
 * Check the input and open everything: events, BPF, energy. An error is
 * logged (one line naming the culprit, common/log.h); returns 0 or -errno:
 * -EINVAL, -ENOENT, -E2BIG for bad input (an unknown event, a missing
 * source), -EPERM/-EACCES without privileges, another for a failure.
 */
int engine__open(struct engine **ep, const struct engine_opts *o);
void engine__close(struct engine *e);

const struct snap_meta *engine__meta(const struct engine *e);
/* The cgroup2 mount point. */
const char *engine__cgroot(const struct engine *e);
/* Why auto found no energy source ("" when one is active or none asked). */
const char *engine__energy_note(const struct engine *e);

/* CLOCK_MONOTONIC s by which the next tick is due (maps fill otherwise). */
double engine__next_tick(const struct engine *e);
/* Flush every CPU and add what it counted. 0 or -errno (said). */
int engine__tick(struct engine *e);
/* The time of the last tick's flush, and how many there were. */
double engine__last_t(const struct engine *e);
__u64 engine__seq(const struct engine *e);

/*
 * The totals as of the last tick, encoded as an EMON_MSG_SNAPSHOT payload
 * (malloc'ed *buf). req->tree must be a tree of the caller's. Applies the
 * retention rule first.
 */
int engine__encode(struct engine *e, const struct emon_snap_req *req,
		   void **buf, size_t *len);
/* The same as view may see of it (engine/snapshot/view.h): entries it may
 * not see left out, numbers it may not see zero. */
int engine__encode_view(struct engine *e, const struct emon_snap_req *req,
			const struct snap_view *view, void **buf, size_t *len);

/* Follow pid (forked, not yet exec'ed) and its descendants: the tree id,
 * or -errno (-EBUSY: max_trees in use). */
int engine__tree_new(struct engine *e, pid_t pid);
void engine__tree_free(struct engine *e, int tree);
/* A running process joins tree (from engine__tree_new) with the
 * processes it forks from then on (stat -p: perf's inherited counters).
 * 0 or -errno. */
int engine__tree_join(struct engine *e, int tree, pid_t pid);

/* Thread self-monitoring (bpf/selfmon.bpf.h): the slot arrays, the task
 * storage of registered threads and the program that writes a slot for
 * the daemon; -ENOENT when it is off. */
struct session_self;	/* engine/session/session.h */
int engine__self_maps(const struct engine *e, struct session_self *out);

#endif
