// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf check: the GPUs NVML finds (--gpu's source, rapl/gpu.h), each
 * one's power over a short window from its energy counter, and whether
 * it gives per-process samples (else its energy stays on its own row).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "cli/check/check.h"
#include "rapl/gpu.h"

#define GPU_WINDOW_S 0.25

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void check_gpu__run(struct check_report *r, const char *lib)
{
	struct timespec nap = { 0, (long)(GPU_WINDOW_S * 1e9) };
	struct gpu_sample gs;
	struct gpu_source *s;
	char err[512] = "";
	double t0;
	int ret;

	s = gpu_source__open(lib, &ret, err, sizeof(err));
	if (!s) {
		check__add(r, lib ? CHECK_FAIL : CHECK_SKIP, "GPUs (NVML)", "%s%s", err,
			   lib ? "" : ": --gpu cannot count GPU energy here");
		return;
	}
	t0 = now_s();
	ret = gpu_source__read(s, 0, &gs);
	nanosleep(&nap, NULL);
	ret = ret ?: gpu_source__read(s, now_s() - t0, &gs);
	check_row__figure(check__add(r, ret ? CHECK_FAIL : CHECK_OK, "GPUs (NVML)",
				     "%d GPU%s through %s, %d process%s on them",
				     gpu_source__nr(s), gpu_source__nr(s) > 1 ? "s" : "",
				     lib ?: "libnvidia-ml.so.1", (int)gs.nr_use,
				     gs.nr_use == 1 ? "" : "es"),
			  gpu_source__nr(s), "GPUs", "%d", gpu_source__nr(s));
	for (int i = 0; !ret && i < gs.nr_gpus; i++) {
		const struct gpu_dev_sample *g = &gs.gpu[i];
		char name[32];

		snprintf(name, sizeof(name), "GPU %d", i);
		if (!g->valid) {
			check__add(r, CHECK_WARN, name, "%s: no energy read (%s)",
				   gpu_source__name(s, i), gs.warning[0] ? gs.warning : "unknown");
			continue;
		}
		check_row__figure(check__add(r, CHECK_OK, name, "%s: energy counter; its processes' SM use %.0f%%%s",
					     gpu_source__name(s, i), g->util * 100,
					     strstr(gs.warning, "per-process") ?
					     "; no per-process samples: its energy stays on its own row" : ""),
				  g->joules / (now_s() - t0), "W", "%.1f W", g->joules / (now_s() - t0));
	}
	gpu_source__close(s);
}
