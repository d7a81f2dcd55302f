/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * GPU energy through NVML (libnvidia-ml.so.1, opened at run time:
 * rapl/gpu_nvml.h), per read, split among the processes that used each
 * GPU by NVML's per-process utilization samples of the same window.
 *
 * The split, per GPU g and read (gpu_split__compute, pure):
 *
 *   E(g)      = TotalEnergyConsumption now - at the previous read (mJ)
 *   samples   = the process samples NVML gives since the previous read's
 *               last timestamp (nvmlDeviceGetProcessUtilization)
 *   periods   = the most samples any one process has among them (the
 *               driver's sample periods in the window; >= 1 when any)
 *   u(pid)    = sum of pid's smUtil / (100 x periods): its share of the
 *               GPU's SM time (a period it has no sample in counts 0)
 *   if the u add up to more than 1 (MPS, rounding), each is divided by
 *   their sum
 *   E(pid)    = E(g) x u(pid)
 *   idle(g)   = E(g) - sum of E(pid): the energy no process's SM time
 *               took; it stays on the GPU's own row and goes to the idle
 *               task (process 0, the root cgroup, host), so that the
 *               processes of a read, idle included, add up to E(g)
 *
 * A read shorter than the driver's sample period may find no new sample:
 * it takes the u of the last read that had some (sample and hold) if
 * that was at most two sample periods before (the period: the smallest
 * gap between two sample times seen; 1 s while unknown), else all of it
 * is idle.
 *
 * A process's joules and shares add up over the GPUs it used. Nothing
 * here prints: warnings come back in gpu_sample.warning (each problem
 * once per GPU for the run), errors in the err buffer.
 */
#ifndef RAPL_GPU_H
#define RAPL_GPU_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#define GPU_MAX 16
#define GPU_NAME_LEN 64
#define GPU_WARN_LEN 512

/* One process's use of the GPUs over one read. */
struct gpu_use {
	__u32 pid;		/* as NVML gives it: the host's pid namespace */
	double joules;		/* its part of the GPUs' energy */
	double util;		/* its SM shares, summed over the GPUs */
};

struct gpu_dev_sample {
	/* false: no energy for this GPU this read (the baseline, an NVML
	 * error, a counter that went back, a lost GPU): unknown, not 0 J */
	bool valid;
	bool lost;		/* gone for the rest of the run */
	double joules;		/* measured */
	double idle_j;		/* no process's: on the GPU's row and the idle task */
	double util;		/* the processes' SM shares, summed: 0..1 */
};

struct gpu_sample {
	bool baseline;		/* the first read: nothing valid */
	int nr_gpus;
	struct gpu_dev_sample gpu[GPU_MAX];
	/* each process of a valid GPU's split, one entry per pid; the
	 * source's memory, good until its next read */
	struct gpu_use *use;
	size_t nr_use;
	/* non-empty: new problems since the last read, for stderr */
	char warning[GPU_WARN_LEN];
};

/* One NVML process sample as the split takes it. */
struct gpu_psample {
	__u32 pid;
	unsigned int sm;	/* smUtil: % of one sample period */
};

/*
 * The split above for one GPU's read, pure: samples s[n] (sorted by pid
 * here, in place), out[] gets one entry per distinct pid (room for n),
 * *nout how many; *idle_j and *util the GPU's. 0, or -EINVAL (joules
 * negative or not finite, an smUtil above 100).
 */
int gpu_split__compute(double joules, struct gpu_psample *s, size_t n,
		       struct gpu_use *out, size_t *nout, double *idle_j,
		       double *util);

/* The same with shares known (shares[].util, as gpu_split__compute left
 * them in out[]): out[i] (may be shares) gets pid, joules x util, util. */
int gpu_split__shares(double joules, const struct gpu_use *shares, size_t n,
		      struct gpu_use *out, double *idle_j, double *util);

/* uses[*n] += one GPU's (by pid, kept sorted by pid); room for cap. */
int gpu_use__merge(struct gpu_use *uses, size_t *n, size_t cap,
		   const struct gpu_use *add, size_t nadd);

struct gpu_source;

/*
 * Load NVML (lib: the library's path, NULL: libnvidia-ml.so.1), init it
 * and find its GPUs. NULL on failure, *errp and err set: -ENOENT (no
 * library, or no GPU), -ENODEV (NVML's init failed: no driver), -ENOSYS
 * (a function missing), -ENOMEM.
 */
struct gpu_source *gpu_source__open(const char *lib, int *errp, char *err,
				    size_t errlen);
void gpu_source__close(struct gpu_source *s);
int gpu_source__nr(const struct gpu_source *s);
/* NVML's name of GPU i ("NVIDIA H200"), "" when out of range. */
const char *gpu_source__name(const struct gpu_source *s, int i);

/*
 * The energy and split since the previous read; the first read sets the
 * baseline. dt: the read period, seconds (a step above GPU_MAX_WATTS x
 * (dt + slack) is refused as garbage), 0 for unknown. 0, or -ENOMEM.
 */
int gpu_source__read(struct gpu_source *s, double dt, struct gpu_sample *out);

/* The most one GPU draws (an H200 is rated 700 W, a B200 1000 W). */
#define GPU_MAX_WATTS 3000.0

#endif /* RAPL_GPU_H */
