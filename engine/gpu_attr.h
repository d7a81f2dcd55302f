/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The engine's GPUs (--gpu): NVML's energy and per-process split
 * (rapl/gpu.h) read at every tick and added to the totals, each process's
 * part to its process entry, its cgroup's entry and its command trees,
 * in whole microjoules so that the keys of a partition add up exactly:
 * what no process took, or a process the engine cannot name (gone, not
 * seen running yet), goes to the idle task (process 0 and the root
 * cgroup), as the CPU energy's static part does.
 */
#ifndef ENGINE_GPU_ATTR_H
#define ENGINE_GPU_ATTR_H

#include <stdbool.h>
#include "engine/aggregate.h"
#include "engine/snapshot/snapshot.h"

struct gpu_attr;

/*
 * spec: NULL or "off" (no GPUs: *gp NULL, 0), "on" (NVML required),
 * "auto" (NVML if there is one: else one line on stderr, *gp NULL, 0),
 * or a path to the library (required). Required and missing: the line
 * is an error, -ENOENT (exit 2). Reads the baseline; *on set when open.
 */
int gpu_attr__open(struct gpu_attr **gp, const char *spec, const char *cgroot,
		   bool *on);
void gpu_attr__close(struct gpu_attr *g);

/* Read the GPUs and add the read's split to a's entries; t: the read's
 * time (CLOCK_MONOTONIC s). 0 or -ENOMEM; g NULL: nothing. */
int gpu_attr__tick(struct gpu_attr *g, struct aggregate *a, double t);

/* The GPUs' totals for a snapshot (struct snap_src). */
const struct snap_gpu *gpu_attr__gpus(const struct gpu_attr *g, int *nr);

/* "on", "auto", "off" or a path: 0, or -EINVAL for "" */
int gpu_attr__check_spec(const char *spec);

#endif
