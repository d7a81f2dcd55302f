// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf report's table: the derived figures of a key and its cells,
 * shared by the text (report.c) and the HTML page (report_html.c), so that
 * neither printer needs the other.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "cli/report/report.h"
#include "common/utf8.h"

static double ratio(double a, double b)
{
	return isfinite(a) && isfinite(b) && b > 0 ? a / b : NAN;
}

static double report_key__count(const struct report_key *k, int i)
{
	return k && k->counted & (1u << i) ? k->count[i] : NAN;
}

static double report_key__energy(const struct report_key *k)
{
	return k && k->has_energy ? k->energy_j : NAN;
}

void report__metrics(const struct report *r, const struct report_key *k,
		     struct report_metrics *m)
{
	const struct report_key *sys = report__system(r);

	m->energy_j = report_key__energy(k);
	m->power_w = ratio(m->energy_j, r->duration);
	m->instructions = report_key__count(k, RC_INSTRUCTIONS);
	m->cycles = report_key__count(k, RC_CYCLES);
	m->cpu_ms = report_key__count(k, RC_CPU_CLOCK) / 1e6;
	m->ipc = ratio(m->instructions, m->cycles);
	m->runq_ms = report_key__count(k, RC_RUNQ_WAIT) / 1e6;
	m->sleep_ms = report_key__count(k, RC_SLEEP) / 1e6;
	m->blocked_ms = report_key__count(k, RC_BLOCKED) / 1e6;
	m->epi_nj = ratio(m->energy_j * 1e9, m->instructions);
	m->gpu_j = k && k->has_gpu ? k->gpu_j : NAN;
	m->gpu_w = ratio(m->gpu_j, r->duration);
	if (r->rank == RANK_ENERGY)
		m->share = ratio(m->energy_j, report_key__energy(sys));
	else
		m->share = ratio(m->cpu_ms,
				 report_key__count(sys, RC_CPU_CLOCK) / 1e6);
}

int report__columns(const struct report *r, enum report_col cols[COL_NR])
{
	const struct report_key *sys = report__system(r);
	unsigned int counted = sys ? sys->counted : 0;
	bool runtime = false, names = false;
	int i, n = 0;

	for (i = 0; i < r->nr_sorted; i++) {
		counted |= r->sorted[i]->counted;
		runtime |= r->sorted[i]->runtime != NULL;
		names |= r->sorted[i]->names != NULL;
	}
	if (r->nr_hosts > 1 && r->scope != SCOPE_SYSTEM)
		cols[n++] = COL_HOST;
	cols[n++] = COL_KEY;
	if (r->scope == SCOPE_PROCESS)
		cols[n++] = COL_COMM;
	if (r->scope == SCOPE_CONTAINER && runtime)
		cols[n++] = COL_RUNTIME;
	if (r->scope == SCOPE_CONTAINER && names)
		cols[n++] = COL_NAMES;
	if (r->rank == RANK_ENERGY) {
		cols[n++] = COL_ENERGY;
		cols[n++] = COL_POWER;
		cols[n++] = COL_SHARE;
	} else {
		cols[n++] = COL_CPU_MS;
		cols[n++] = COL_SHARE;
	}
	cols[n++] = COL_INSTRUCTIONS;
	cols[n++] = COL_CYCLES;
	cols[n++] = COL_IPC;
	if (r->rank == RANK_ENERGY) {
		cols[n++] = COL_EPI;
		if (counted & (1u << RC_CPU_CLOCK))
			cols[n++] = COL_CPU_MS;
	}
	if (counted & (1u << RC_RUNQ_WAIT)) {	/* a --sched recording */
		cols[n++] = COL_RUNQ_MS;
		cols[n++] = COL_SLEEP_MS;
		cols[n++] = COL_BLOCKED_MS;
	}
	if (r->has_gpu) {
		cols[n++] = COL_GPU_ENERGY;
		cols[n++] = COL_GPU_POWER;
	}
	return n;
}

const char *report__col_name(const struct report *r, enum report_col col)
{
	switch (col) {
	case COL_HOST:		return "host";
	case COL_KEY:
		return r->scope == SCOPE_PROCESS ? "pid" : scope__name(r->scope);
	case COL_COMM:		return "comm";
	case COL_RUNTIME:	return "runtime";
	case COL_NAMES:		return "name";
	case COL_ENERGY:	return "energy_j";
	case COL_POWER:		return "power_w";
	case COL_SHARE:
		return r->rank == RANK_ENERGY ? "energy%" : "cpu%";
	case COL_CPU_MS:	return "cpu_ms";
	case COL_INSTRUCTIONS:	return "instructions";
	case COL_CYCLES:	return "cycles";
	case COL_IPC:		return "ipc";
	case COL_EPI:		return "epi_nj";
	case COL_RUNQ_MS:	return "runq_wait_ms";
	case COL_SLEEP_MS:	return "sleep_ms";
	case COL_BLOCKED_MS:	return "blocked_ms";
	case COL_GPU_ENERGY:	return "gpu_energy_j";
	case COL_GPU_POWER:	return "gpu_w";
	case COL_NR:		break;
	}
	return "?";
}

/* A full container id (64 hex digits) is shown as 12, as docker ps does. */
static bool key__is_long_id(const char *key)
{
	return strlen(key) == 64 && strspn(key, "0123456789abcdef") == 64;
}

static void cell__number(char *buf, size_t len, const char *fmt, double v)
{
	if (isfinite(v))
		snprintf(buf, len, fmt, v);
	else
		snprintf(buf, len, "-");
}

/* Keys, hosts and names are any bytes (a cgroup's, a comm, a recording
 * file's): no control byte reaches the terminal, each one a '?'. */
static void cell__text(char *buf, size_t len, const char *fmt, const char *v)
{
	snprintf(buf, len, fmt, v);
	utf8_mask_controls(buf);
}

void report__cell(const struct report *r, const struct report_key *k,
		  enum report_col col, char *buf, size_t len)
{
	struct report_metrics m;

	report__metrics(r, k, &m);
	switch (col) {
	case COL_HOST:
		cell__text(buf, len, "%s", k->host ?: "-");
		return;
	case COL_KEY:
		cell__text(buf, len, key__is_long_id(k->key) ? "%.12s" : "%s",
			   k->key);
		return;
	case COL_COMM:
	case COL_RUNTIME:
	case COL_NAMES:
		cell__text(buf, len, "%s", (col == COL_COMM ? k->comm :
					    col == COL_RUNTIME ? k->runtime : k->names) ?: "-");
		return;
	case COL_ENERGY:	cell__number(buf, len, "%.3f", m.energy_j); return;
	case COL_POWER:		cell__number(buf, len, "%.3f", m.power_w); return;
	case COL_SHARE:		cell__number(buf, len, "%.2f%%", m.share * 100); return;
	case COL_CPU_MS:	cell__number(buf, len, "%.2f", m.cpu_ms); return;
	case COL_INSTRUCTIONS:	cell__number(buf, len, "%.0f", m.instructions); return;
	case COL_CYCLES:	cell__number(buf, len, "%.0f", m.cycles); return;
	case COL_IPC:		cell__number(buf, len, "%.2f", m.ipc); return;
	case COL_EPI:		cell__number(buf, len, "%.3f", m.epi_nj); return;
	case COL_RUNQ_MS:	cell__number(buf, len, "%.2f", m.runq_ms); return;
	case COL_SLEEP_MS:	cell__number(buf, len, "%.2f", m.sleep_ms); return;
	case COL_BLOCKED_MS:	cell__number(buf, len, "%.2f", m.blocked_ms); return;
	case COL_GPU_ENERGY:	cell__number(buf, len, "%.3f", m.gpu_j); return;
	case COL_GPU_POWER:	cell__number(buf, len, "%.3f", m.gpu_w); return;
	case COL_NR:		break;
	}
	snprintf(buf, len, "?");
}

void report_key__label(const struct report *r, const struct report_key *k,
		       char *buf, size_t len)
{
	char key[256], host[128];
	/* a process by its comm; a container named as the table does */
	enum report_col more = r->scope == SCOPE_PROCESS && k->comm ? COL_COMM :
			       k->names ? COL_NAMES : COL_KEY;

	report__cell(r, k, COL_KEY, key, sizeof(key));
	if (more != COL_KEY && strlen(key) + 2 < sizeof(key)) {
		size_t n = strlen(key);

		key[n++] = ' ';
		report__cell(r, k, more, key + n, sizeof(key) - n);
	}
	if (r->nr_hosts > 1 && k->host) {
		report__cell(r, k, COL_HOST, host, sizeof(host));
		snprintf(buf, len, "%s %s", host, key);
	} else {
		snprintf(buf, len, "%s", key);
	}
}
