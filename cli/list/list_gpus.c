// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf list energy's GPUs (after the hwmon sensors, list_cmd.c): the GPUs
 * NVML finds (stat, top and serve --gpu), each with its name and its
 * energy counter now.
 */
#include <stdio.h>
#include "cli/list/list.h"
#include "rapl/gpu.h"

int list__gpus(FILE *out, const char *lib)
{
	struct gpu_sample gs;
	struct gpu_source *s;
	char err[512] = "";
	int ret;

	fprintf(out, "gpu: NVML (%s), --gpu\n", lib ?: "libnvidia-ml.so.1");
	s = gpu_source__open(lib, &ret, err, sizeof(err));
	if (!s) {
		fprintf(out, "  none: %s\n", err);
		return 0;
	}
	ret = gpu_source__read(s, 0, &gs);
	for (int i = 0; i < gpu_source__nr(s); i++)
		fprintf(out, "  gpu%-3d %-40s %s\n", i, gpu_source__name(s, i),
			!ret && !gs.gpu[i].lost ? "energy counter" : "lost");
	if (gs.warning[0])
		fprintf(out, "  (%s)\n", gs.warning);
	gpu_source__close(s);
	return 0;
}
