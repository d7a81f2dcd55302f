/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Snapshots of the totals encoded as include/emon_proto.h says. Called by
 * engine.c only, which fills in what a snapshot is made of.
 */
#ifndef ENGINE_SNAPSHOT_ENCODE_H
#define ENGINE_SNAPSHOT_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include "emon_proto.h"
#include "engine/aggregate.h"
#include "engine/names/container_cache.h"
#include "engine/snapshot/snapshot.h"
#include "engine/snapshot/view.h"

/* The engine's totals as of one read, read only. */
struct snap_src {
	const struct aggregate *agg;
	const struct agg_entry *gone_cgrp;	/* NULL: none left */
	const struct agg_entry *gone_proc;
	const struct agg_entry *gone_thrd;
	const bool *online;		/* [ncpus] */
	int ncpus;
	int nr_events;			/* counted (snap_meta.nr_events) */
	bool sched;			/* counts carry the scheduler view */
	__u64 seq;			/* the read's */
	double t;
	__u64 energy_reads;
	const struct cont_cache *conts;	/* containers' names, with the cgroups */
	const struct snap_view *view;	/* what the reader may see */
	/* the GPUs (NULL: no GPU source); each key's part in its counts */
	const struct snap_gpu *gpus;
	int nr_gpu;
};

/* The snapshot req asks for, tree (-1: none) a tree in use: a malloc'ed
 * EMON_MSG_SNAPSHOT payload in *buf. 0 or -ENOMEM. */
int snap_src__encode(const struct snap_src *src, const struct emon_snap_req *req,
		     int tree, void **buf, size_t *len);

#endif
