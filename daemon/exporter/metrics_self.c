// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The daemon's own figures on /metrics (the MS_SELF entry of mscopes[]):
 * what the caller gives (struct metrics_self), the snapshot's overflow
 * and untraced counts, the series and folds of this render, and the
 * process_* figures read from /proc/self.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "daemon/exporter/metrics_render.h"
#include "rapl/energy.h"

static void self__read(struct render *r)
{
	unsigned long ut, st, size, res;
	char buf[1024], *p;
	FILE *f;

	f = fopen("/proc/self/stat", "re");
	if (f) {
		p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		if (p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
				&ut, &st) == 2) {
			r->cpu_s = (double)(ut + st) / sysconf(_SC_CLK_TCK);
			r->has_cpu = true;
		}
		fclose(f);
	}
	f = fopen("/proc/self/statm", "re");
	if (f) {
		if (fscanf(f, "%lu %lu", &size, &res) == 2) {
			r->rss = (__u64)res * sysconf(_SC_PAGESIZE);
			r->has_rss = true;
		}
		fclose(f);
	}
}

/*
 * The joules measured per scope since the daemon started, from the
 * packages' totals: a core+package source's cores are its packages' core
 * zone and its package scope the rest; a platform's are its packages'
 * (which it gives what their CPUs were). Not for a viewer who may not
 * see the system's energy. Returns the number of scopes (0: none).
 */
static int cpu_scopes__get(const struct render *r, const char **name, double *j)
{
	const struct snapshot *s = r->s;
	const char *scopes;
	double all = 0, core = 0;

	if (!r->meta || !r->meta->energy_on || !s || s->no_sys || !s->pkg_energy ||
	    !(scopes = energy_source__scopes_of(r->meta->energy_source)))
		return 0;
	for (int p = 0; p < s->npkg; p++) {
		all += s->pkg_energy[p];
		if (s->pkg_zone && s->pkg_zone_mask &&
		    (s->pkg_zone_mask[p] & (1u << ENERGY_DOM_CORE)))
			core += s->pkg_zone[p * SNAP_ZONES + ENERGY_DOM_CORE];
	}
	if (!strcmp(scopes, "core+package")) {
		name[0] = "core";
		j[0] = core;
		name[1] = "package";
		j[1] = all - core > 0 ? all - core : 0;
		return 2;
	}
	name[0] = scopes;
	j[0] = all;
	return 1;
}

/* The CPUs' scopes, then the GPUs' (--gpu: their measured joules, split
 * apart from the CPUs' by SM time, docs/gpu.md). */
static int energy_scopes__get(const struct render *r, const char **name, double *j)
{
	const struct snapshot *s = r->s;
	int n = cpu_scopes__get(r, name, j);

	if (r->meta && r->meta->gpu_on && s && !s->no_sys && s->nr_gpu) {
		name[n] = "gpu";
		j[n] = 0;
		for (int i = 0; i < s->nr_gpu; i++)
			j[n] += s->gpus[i].uj / 1e6;
		n++;
	}
	return n;
}

static int energy_scopes__nr(const struct render *r)
{
	const char *name[3];
	double j[3];

	return energy_scopes__get(r, name, j);
}

/* The figures of /proc/self, and the series self__emit gives:
 * emon_overflow_total x2 and 10 single series, and those it has (the
 * energy source's info and its scopes' joules with an energy source). */
int self__build(struct render *r)
{
	self__read(r);
	r->has_threads = r->self && r->self->thread_slots;
	r->sc[MS_SELF].nfixed = 12 + r->has_cpu + r->has_rss + 2 * r->has_threads +
				 (r->meta && r->meta->energy_on) + energy_scopes__nr(r);
	return 0;
}

static void scalar__emit(struct render *r, const char *name, const char *type,
			 const char *unit, const char *help, const char *labels,
			 double v)
{
	family__head(r, name, type, unit, help);
	mbuf__puts(&r->b, name);
	if (!strcmp(type, "counter"))
		mbuf__puts(&r->b, "_total");
	if (labels)
		mbuf__puts(&r->b, labels);
	mbuf__puts(&r->b, " ");
	if (v >= 0 && v == floor(v) && v < 9007199254740992.0)
		mbuf__u64(&r->b, (__u64)v);
	else
		mbuf__double(&r->b, v);
	mbuf__puts(&r->b, "\n");
}

static void build__emit(struct render *r, const char *version)
{
	struct mbuf *b = &r->b;
	const char *help = "emon-perf's version, as a label";

	if (r->om)
		family__head(r, "emon_build", "info", NULL, help);
	else
		family__head(r, "emon_build_info", "gauge", NULL, help);
	mbuf__puts(b, "emon_build_info{version=\"");
	mbuf__escaped(b, version ? version : "unknown", true);
	mbuf__puts(b, "\"} 1\n");
}

/* Where the energy series' joules were measured, as labels to join on:
 * the source, its scopes (rapl/energy.h: "core+package", "platform", ...)
 * and the event that splits them. */
static void energy_source__emit(struct render *r)
{
	const struct snap_meta *meta = r->meta;
	struct mbuf *b = &r->b;
	const char *help = "The energy source, the scopes it measures and the "
			   "event its joules are split by, as labels";

	if (!meta || !meta->energy_on)
		return;
	if (r->om)
		family__head(r, "emon_energy_source", "info", NULL, help);
	else
		family__head(r, "emon_energy_source_info", "gauge", NULL, help);
	mbuf__puts(b, "emon_energy_source_info{source=\"");
	mbuf__escaped(b, meta->energy_source, true);
	mbuf__puts(b, "\",scope=\"");
	mbuf__escaped(b, energy_source__scopes_of(meta->energy_source) ?: "unknown", true);
	mbuf__puts(b, "\",split_by=\"");
	mbuf__escaped(b, meta->split_by, true);
	mbuf__puts(b, meta->energy_estimated ? "\",estimated=\"true\"} 1\n" : "\"} 1\n");
}

static void energy_scopes__emit(struct render *r)
{
	const char *name[3];
	double j[3];
	int n = energy_scopes__get(r, name, j);

	if (!n)
		return;
	family__head(r, "emon_energy_scope_joules", "counter", "joules",
		     "Energy in joules measured per scope (package, core, platform, gpu) "
		     "since the daemon started; each CPU scope's is split by what "
		     "ran on its CPUs, the GPUs' by their processes' SM time");
	for (int i = 0; i < n; i++) {
		mbuf__puts(&r->b, "emon_energy_scope_joules_total{scope=\"");
		mbuf__escaped(&r->b, name[i], true);
		mbuf__puts(&r->b, "\"} ");
		mbuf__double(&r->b, j[i]);
		mbuf__puts(&r->b, "\n");
	}
}

static void overflow__emit(struct render *r)
{
	const struct snapshot *s = r->s;
	struct mbuf *b = &r->b;

	family__head(r, "emon_overflow", "counter", NULL,
		     "Slices whose cgroup or process found no room in BPF's "
		     "tables (counted in an overflow row instead)");
	mbuf__puts(b, "emon_overflow_total{scope=\"cgroup\"} ");
	mbuf__u64(b, s->stats[EMON_STAT_CGRP_FULL]);
	mbuf__puts(b, "\nemon_overflow_total{scope=\"process\"} ");
	mbuf__u64(b, s->stats[EMON_STAT_PROC_FULL]);
	mbuf__puts(b, "\n");
}

void self__emit(struct render *r, enum mscope_id id)
{
	const struct metrics_self none = {};
	const struct metrics_self *self = r->self ? r->self : &none;
	struct metrics *m = r->m;

	(void)id;
	scalar__emit(r, "emon_scrape_duration_seconds", "gauge", "seconds",
		     "Time the previous scrape took, in seconds", NULL,
		     self->scrape_duration_s);
	scalar__emit(r, "emon_flushes", "counter", NULL,
		     "Flushes of every CPU so far", NULL, self->flushes);
	scalar__emit(r, "emon_scrape_flushes", "counter", NULL,
		     "Flushes made for /metrics alone, not the daemon's own reads or "
		     "its clients' (none within --min-scrape-ms of the last)", NULL,
		     self->scrape_flushes);
	overflow__emit(r);
	scalar__emit(r, "emon_untraced_seconds", "counter", "seconds",
		     "CPU time after context switches the kernel did not trace "
		     "(tasks hidden from tracepoints), whose owner was estimated",
		     NULL, r->s->stats[EMON_STAT_UNTRACED_NS] / 1e9);
	scalar__emit(r, "emon_series", "gauge", NULL,
		     "Series in this scrape", NULL, r->total);
	scalar__emit(r, "emon_folded_cgroups", "gauge", NULL,
		     "Cgroups folded into cgroup=\"other\" now", NULL, m->folded);
	scalar__emit(r, "emon_cgroup_folds", "counter", NULL,
		     "Cgroups folded into cgroup=\"other\" so far", NULL, m->folds);
	build__emit(r, self->version);
	energy_source__emit(r);
	energy_scopes__emit(r);
	scalar__emit(r, "emon_start_time_seconds", "gauge", "seconds",
		     "When the daemon started, Unix time in seconds", NULL,
		     self->start_time_unix);
	if (r->has_cpu)
		scalar__emit(r, "process_cpu_seconds", "counter", "seconds",
			     "Total user and system CPU time spent in seconds",
			     NULL, r->cpu_s);
	if (r->has_rss)
		scalar__emit(r, "process_resident_memory_bytes", "gauge", "bytes",
			     "Resident memory size in bytes", NULL, r->rss);
	scalar__emit(r, "emon_clients", "gauge", NULL,
		     "Clients on the daemon's socket now", NULL, self->clients);
	if (!r->has_threads)
		return;
	scalar__emit(r, "emon_threads", "gauge", NULL,
		     "Threads registered for self-monitoring now", NULL, self->threads);
	scalar__emit(r, "emon_thread_slots", "gauge", NULL,
		     "Self-monitoring slots (serve --threads)", NULL, self->thread_slots);
}

