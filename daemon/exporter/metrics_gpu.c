// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * /metrics' GPUs (--gpu): a scope of one row per GPU, with what NVML
 * measured, the part no process's SM time took, its processes' SM time
 * and whether it is still read; and the GPU families of the scopes with
 * rows (system, cgroup, container, process), from their counts.gpu:
 *
 *   emon_gpu_energy_joules_total{gpu,name}       measured
 *   emon_gpu_idle_energy_joules_total{gpu,name}  no process's (the idle task's)
 *   emon_gpu_sm_seconds_total{gpu,name}          its processes' SM time
 *   emon_gpu_up{gpu,name}                        0 once NVML lost it
 *   emon_<scope>_gpu_energy_joules_total{...}    the scope's part
 *   emon_<scope>_gpu_sm_seconds_total{...}
 *
 * A GPU's counters stop where it was lost; a tenant's view gets zeros,
 * as for the packages' energy.
 */
#include <errno.h>
#include <stdio.h>
#include "daemon/exporter/metrics_render.h"

#define GPU_SERIES 4

int gpus__build(struct render *r)
{
	const struct snapshot *s = r->s;
	struct mscope *sc = &r->sc[MS_GPU];
	struct mrow *rows;

	sc->nfixed = 0;
	rows = rows__get(r, MS_GPU, s->nr_gpu ? s->nr_gpu : 1);
	if (!rows)
		return -ENOMEM;
	for (int i = 0; i < s->nr_gpu; i++) {
		struct mrow *w = row__add(r, MS_GPU);

		w->pkg = i;
		snprintf(w->num, sizeof(w->num), "%d", i);
		w->l[0] = w->num;
		w->l[1] = s->gpus[i].name;
	}
	sc->nfixed = (size_t)s->nr_gpu * GPU_SERIES;
	return 0;
}

static void gpu__family(struct render *r, const char *fam, const char *type,
			const char *unit, const char *help, int what)
{
	const struct mscope *sc = &r->sc[MS_GPU];
	char name[96];

	snprintf(name, sizeof(name), "emon_gpu_%s", fam);
	family__head(r, name, type, unit, help);
	for (size_t i = 0; i < sc->nr; i++) {
		const struct mrow *w = &sc->rows[i];
		const struct snap_gpu *g = &r->s->gpus[w->pkg];

		if (what == 3) {
			mbuf__puts(&r->b, name);
			mbuf__puts(&r->b, "{gpu=\"");
			mbuf__puts(&r->b, w->l[0]);
			mbuf__puts(&r->b, "\",name=\"");
			mbuf__escaped(&r->b, w->l[1], true);
			mbuf__puts(&r->b, g->lost ? "\"} 0\n" : "\"} 1\n");
			continue;
		}
		energy__sample(r, name, sc, w, NULL,
			       what == 0 ? g->uj / 1e6 : what == 1 ? g->idle_uj / 1e6 :
			       g->sm_ns / 1e9);
	}
}

void gpus__emit(struct render *r, enum mscope_id id)
{
	const char *src = "NVML's TotalEnergyConsumption";

	(void)id;
	if (!r->meta->gpu_on || !r->sc[MS_GPU].nr)
		return;
	gpu__family(r, "energy_joules", "counter", "joules", src, 0);
	gpu__family(r, "idle_energy_joules", "counter", "joules",
		    "GPU energy no process's SM time took (the idle task's)", 1);
	gpu__family(r, "sm_seconds", "counter", "seconds",
		    "Its processes' SM time: their SM share x time, from NVML's per-process samples", 2);
	gpu__family(r, "up", "gauge", NULL, "1 while NVML reads the GPU, 0 once it was lost", 3);
}

void gpu_fams__emit(struct render *r, enum mscope_id id)
{
	const struct mscope *sc = &r->sc[id];
	char name[160], help[320];

	for (int f = 0; f < MF_GPU_SERIES; f++) {
		snprintf(name, sizeof(name), "emon_%s_%s", mscopes[id].name,
			 f ? "gpu_sm_seconds" : "gpu_energy_joules");
		snprintf(help, sizeof(help), f ?
			 "GPU SM time (share x time, NVML's per-process samples) %s" :
			 "GPU energy (NVML) %s, split by the processes' SM time", sc->what);
		family__head(r, name, "counter", f ? "seconds" : "joules", help);
		for (size_t i = 0; i < sc->nr; i++) {
			const struct mrow *w = &sc->rows[i];

			if (w->folded)
				continue;
			energy__sample(r, name, sc, w, NULL,
				       f ? w->c->gpu.sm_ns / 1e9 : w->c->gpu.uj / 1e6);
		}
	}
}
