// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The families a scope of /metrics gives (its mscopes[] entry's fams):
 * an event's counter each, energy, the scheduler view's counters and
 * histogram; how many series a row gives to them, which folding counts
 * before anything is written; HELP, TYPE and UNIT as each format wants.
 */
#include <stdio.h>
#include <string.h>
#include "engine/sched_fields.h"
#include "daemon/exporter/metrics_render.h"
#include "rapl/energy.h"

static const char *const zone_name[SNAP_ZONES] = {
	"core", "uncore", "dram", "psys" };

/* ---- series ---- */

static unsigned int energy__series(const struct render *r, enum mscope_id id,
				   const struct mrow *w)
{
	unsigned int fams = mscopes[id].fams, zones, n = 0;

	if (!(fams & MF_ENERGY) || !r->meta->energy_on)
		return 0;
	if (!(fams & MF_ZONES) || !r->s->pkg_zone || !r->s->pkg_zone_mask)
		return 1;
	zones = r->s->pkg_zone_mask[w->pkg];
	for (int z = 0; z < SNAP_ZONES; z++)
		n += !!(zones & (1u << z));
	return 1 + n;
}

/* --sched: eight counters and a histogram (its buckets, +Inf, sum, count) */
#define SCHED_SERIES (SCHED_NR_FIELDS + EMON_SCHED_SLOTS - 1 + 3)

void row__count(struct render *r, enum mscope_id id, struct mrow *w)
{
	unsigned int fams = mscopes[id].fams;
	__u64 v;

	w->mask = 0;
	w->nser = energy__series(r, id, w) +
		  (r->meta->sched_on && (fams & MF_SCHED) ? SCHED_SERIES : 0) +
		  (r->meta->gpu_on && (fams & MF_GPU) ? MF_GPU_SERIES : 0);
	for (int k = 0; fams & MF_EVENTS && k < r->nev; k++) {
		if (count__scaled_u64(&w->c->c[k], &v)) {
			w->mask |= 1u << k;
			w->nser++;
		}
	}
}

/* Series of every row, and those a scope gives besides its rows. */
size_t rows__count(struct render *r)
{
	size_t total = 0;

	for (int id = 0; id < MS_NR; id++) {
		struct mscope *sc = &r->sc[id];

		total += sc->nfixed;
		for (size_t i = 0; i < sc->nr; i++) {
			row__count(r, id, &sc->rows[i]);
			total += sc->rows[i].nser;
		}
	}
	return total;
}

/* ---- families ---- */

void family__head(struct render *r, const char *name, const char *type,
		  const char *unit, const char *help)
{
	struct mbuf *b = &r->b;
	bool total = !r->om && !strcmp(type, "counter");

	mbuf__puts(b, "# HELP ");
	mbuf__puts(b, name);
	if (total)
		mbuf__puts(b, "_total");
	mbuf__puts(b, " ");
	mbuf__escaped(b, help, r->om);
	mbuf__puts(b, "\n# TYPE ");
	mbuf__puts(b, name);
	if (total)
		mbuf__puts(b, "_total");
	mbuf__puts(b, " ");
	mbuf__puts(b, type);
	mbuf__puts(b, "\n");
	if (r->om && unit) {
		mbuf__puts(b, "# UNIT ");
		mbuf__puts(b, name);
		mbuf__puts(b, " ");
		mbuf__puts(b, unit);
		mbuf__puts(b, "\n");
	}
}

static void labels__put(struct mbuf *b, const struct mscope *sc,
			const struct mrow *w, const char *zone)
{
	const struct mscope_def *def = sc->def;

	if (!def->nl && !zone) {
		mbuf__puts(b, " ");
		return;
	}
	mbuf__puts(b, "{");
	for (int i = 0; i < def->nl; i++) {
		if (i)
			mbuf__puts(b, ",");
		mbuf__puts(b, def->lname[i]);
		mbuf__puts(b, "=\"");
		mbuf__escaped(b, w->l[i] ? w->l[i] : "", true);
		mbuf__puts(b, "\"");
	}
	if (zone) {
		mbuf__puts(b, def->nl ? ",zone=\"" : "zone=\"");
		mbuf__puts(b, zone);
		mbuf__puts(b, "\"");
	}
	mbuf__puts(b, "} ");
}

static void family__name(char *name, size_t len, enum mscope_id id,
			 const char *fam)
{
	snprintf(name, len, "emon_%s_%s", mscopes[id].name, fam);
}

static void event__emit(struct render *r, enum mscope_id id, int k)
{
	const struct mscope *sc = &r->sc[id];
	const struct mev *ev = &r->ev[k];
	char name[160], help[256];
	__u64 v;

	family__name(name, sizeof(name), id, ev->fam);
	snprintf(help, sizeof(help), "%s%s %s", ev->name,
		 ev->is_time ? " in seconds" : "",
		 sc->what);
	family__head(r, name, "counter", ev->is_time ? "seconds" : NULL, help);
	for (size_t i = 0; i < sc->nr; i++) {
		const struct mrow *w = &sc->rows[i];

		if (w->folded || !(w->mask & (1u << k)))
			continue;
		count__scaled_u64(&w->c->c[k], &v);
		mbuf__puts(&r->b, name);
		mbuf__puts(&r->b, "_total");
		labels__put(&r->b, sc, w, NULL);
		if (ev->is_time)
			mbuf__seconds(&r->b, v);
		else
			mbuf__u64(&r->b, v);
		mbuf__puts(&r->b, "\n");
	}
}

static void energy__sample(struct render *r, const char *name,
			   const struct mscope *sc, const struct mrow *w,
			   const char *zone, double j)
{
	mbuf__puts(&r->b, name);
	mbuf__puts(&r->b, "_total");
	labels__put(&r->b, sc, w, zone);
	mbuf__double(&r->b, j);
	mbuf__puts(&r->b, "\n");
}

static void package__zones(struct render *r, const char *name,
			   const struct mscope *sc, const struct mrow *w)
{
	const struct snapshot *s = r->s;

	if (!s->pkg_zone || !s->pkg_zone_mask)
		return;
	for (int z = 0; z < SNAP_ZONES; z++)
		if (s->pkg_zone_mask[w->pkg] & (1u << z))
			energy__sample(r, name, sc, w, zone_name[z],
				       s->pkg_zone[w->pkg * SNAP_ZONES + z]);
}

static void energy__emit(struct render *r, enum mscope_id id)
{
	const struct mscope *sc = &r->sc[id];
	const struct snap_meta *meta = r->meta;
	bool zones = mscopes[id].fams & MF_ZONES;
	char name[160], help[320];

	family__name(name, sizeof(name), id, "energy_joules");
	if (zones)
		snprintf(help, sizeof(help), "Energy in joules measured per "
			 "package and zone; source: %s%s, scope %s", meta->energy_source,
			 meta->energy_estimated ? ", estimated" : "",
			 energy_source__scopes_of(meta->energy_source) ?: "unknown");
	else
		snprintf(help, sizeof(help), "Energy in joules attributed %s; "
			 "source: %s%s, split by %s, scope %s", sc->what,
			 meta->energy_source,
			 meta->energy_estimated ? ", estimated" : "", meta->split_by,
			 energy_source__scopes_of(meta->energy_source) ?: "unknown");
	family__head(r, name, "counter", "joules", help);
	for (size_t i = 0; i < sc->nr; i++) {
		const struct mrow *w = &sc->rows[i];

		if (w->folded)
			continue;
		energy__sample(r, name, sc, w, "package", w->energy_j);
		if (zones)
			package__zones(r, name, sc, w);
	}
}

/*
 * The GPUs (--gpu): their scope's families, a row per GPU with what NVML
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

/* The scheduler view's counters, named as its fields (engine/sched_fields.h). */
static const struct {
	const char *fam, *help;
} sched_fam[SCHED_NR_FIELDS] = {
	{ "on_cpu_seconds", "Time on a CPU" },
	{ "runqueue_wait_seconds", "Time runnable but waiting for a CPU (the kernel's run_delay)" },
	{ "sleep_seconds", "Time off CPU asleep, interruptible (any state but D)" },
	{ "blocked_seconds", "Time off CPU blocked, uninterruptible (D)" },
	{ "migrations", "Moves to another CPU" },
	{ "wakeups", "Wakeups from a sleep" },
	{ "voluntary_switches", "Switches out to sleep or block" },
	{ "involuntary_switches", "Switches out while runnable (preemptions)" },
};

static void sched__counter(struct render *r, enum mscope_id id, int f)
{
	const struct mscope *sc = &r->sc[id];
	char name[160], help[320];

	family__name(name, sizeof(name), id, sched_fam[f].fam);
	snprintf(help, sizeof(help), "%s %s (--sched)", sched_fam[f].help,
		 sc->what);
	family__head(r, name, "counter", sched_fields[f].is_time ? "seconds" : NULL, help);
	for (size_t i = 0; i < sc->nr; i++) {
		const struct mrow *w = &sc->rows[i];
		__u64 v = sched_field__get(&w->c->s, f);

		if (w->folded)
			continue;
		mbuf__puts(&r->b, name);
		mbuf__puts(&r->b, "_total");
		labels__put(&r->b, sc, w, NULL);
		if (sched_fields[f].is_time)
			mbuf__seconds(&r->b, v);
		else
			mbuf__u64(&r->b, v);
		mbuf__puts(&r->b, "\n");
	}
}

/* One series of the histogram: name + suffix, the row's labels and le. */
static void sched__sample(struct render *r, const struct mscope *sc,
			  const struct mrow *w, const char *name,
			  const char *suffix, const char *le)
{
	mbuf__puts(&r->b, name);
	mbuf__puts(&r->b, suffix);
	if (le) {
		char lbl[64];

		snprintf(lbl, sizeof(lbl), "le=\"%s\"", le);
		/* the row's labels, then le */
		if (sc->def->nl) {
			struct mbuf *b = &r->b;

			labels__put(b, sc, w, NULL);
			if (!b->err)
				b->len -= 2;	/* "} ": le goes in too */
			mbuf__puts(b, ",");
			mbuf__puts(b, lbl);
			mbuf__puts(b, "} ");
		} else {
			mbuf__puts(&r->b, "{");
			mbuf__puts(&r->b, lbl);
			mbuf__puts(&r->b, "} ");
		}
	} else {
		labels__put(&r->b, sc, w, NULL);
	}
}

/*
 * emon_<scope>_runqueue_latency_seconds: runqlat's log2 buckets, bucket i
 * holding waits under 2^(i+1) us (ms with --sched-ms), the last one every
 * longer wait (+Inf). _sum is the run-queue wait (the kernel's run_delay,
 * the same waits on its own clock).
 */
static void sched__histogram(struct render *r, enum mscope_id id)
{
	const struct mscope *sc = &r->sc[id];
	double unit = r->meta->sched_ms ? 1e-3 : 1e-6;
	char name[160], help[320], le[32];

	family__name(name, sizeof(name), id, "runqueue_latency_seconds");
	snprintf(help, sizeof(help), "Run-queue latency (wakeup or preemption to "
		 "switch-in), log2 buckets as runqlat's, %s (--sched)",
		 sc->what);
	family__head(r, name, "histogram", "seconds", help);
	for (size_t i = 0; i < sc->nr; i++) {
		const struct mrow *w = &sc->rows[i];
		const struct emon_sched *s = &w->c->s;
		__u64 cum = 0;

		if (w->folded)
			continue;
		for (int k = 0; k < EMON_SCHED_SLOTS - 1; k++) {
			cum += s->hist[k];
			snprintf(le, sizeof(le), "%.9g", (double)(1ULL << (k + 1)) * unit);
			sched__sample(r, sc, w, name, "_bucket", le);
			mbuf__u64(&r->b, cum);
			mbuf__puts(&r->b, "\n");
		}
		cum += s->hist[EMON_SCHED_SLOTS - 1];
		sched__sample(r, sc, w, name, "_bucket", "+Inf");
		mbuf__u64(&r->b, cum);
		mbuf__puts(&r->b, "\n");
		sched__sample(r, sc, w, name, "_sum", NULL);
		mbuf__seconds(&r->b, s->runq_wait_ns);
		mbuf__puts(&r->b, "\n");
		sched__sample(r, sc, w, name, "_count", NULL);
		mbuf__u64(&r->b, cum);
		mbuf__puts(&r->b, "\n");
	}
}

/* The families of a scope with rows: those its table entry names. */
void scope__emit(struct render *r, enum mscope_id id)
{
	struct mscope *sc = &r->sc[id];
	unsigned int fams = mscopes[id].fams;
	bool any = false;

	sc->mask = 0;
	for (size_t i = 0; i < sc->nr; i++) {
		if (sc->rows[i].folded)
			continue;
		sc->mask |= sc->rows[i].mask;
		any = true;
	}
	for (int k = 0; fams & MF_EVENTS && k < r->nev; k++)
		if (sc->mask & (1u << k))
			event__emit(r, id, k);
	if (any && (fams & MF_ENERGY) && r->meta->energy_on)
		energy__emit(r, id);
	if (any && (fams & MF_GPU) && r->meta->gpu_on)
		gpu_fams__emit(r, id);
	if (any && (fams & MF_SCHED) && r->meta->sched_on) {
		for (int f = 0; f < SCHED_NR_FIELDS; f++)
			sched__counter(r, id, f);
		sched__histogram(r, id);
	}
}

