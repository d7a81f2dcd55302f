// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * /metrics text from hand-made snapshots: family names and units, labels
 * and their escaping, HELP/TYPE on every family, the scopes' sums,
 * containers, OpenMetrics, folding into cgroup="other" (conservation,
 * stickiness, never backwards), process series; promtool's lint on a
 * realistic body when promtool is installed; the time to render 20,000
 * series.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "daemon/metrics.h"
#include "helpers.h"

#define ID1 "9ec39b91f3d70e1beff50a308f77067065ea6be0d91a3378375056cd4422cf3d"
#define ID3 "ee8247ebce1c2d2a855e27e5de33b61c385f92ecbfb32387aabc9eb56c47b7e7"
#define UID "74c13223-5a00-11e9-b385-42010a80018d"
/* 63 zeros: ids that differ in their last digit only */
#define ZEROS "000000000000000000000000000000000000000000000000000000000000000"
#define UID_ "74c13223_5a00_11e9_b385_42010a80018d"
#define DOCKER "/system.slice/docker-" ID1 ".scope"
#define KUBE "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" \
	UID_ ".slice/cri-containerd-" ID3 ".scope"

enum { EV_CLOCK, EV_CS, EV_CYCLES, EV_INS };

struct fix {
	struct snap_meta meta;
	struct snapshot s;
	int cpu_pkg[2], pkg_id[1];
	bool online[2];
	struct counts cpu[2];
	double cpu_energy[2], pkg_energy[1], pkg_zone[SNAP_ZONES];
	unsigned int zone_mask[1];
	struct snap_entry cgrp[64];
	struct snap_entry proc[16];
};

static void cnt(struct emon_count *c, __u64 v)
{
	*c = (struct emon_count){ v, 1000, 1000 };
}

/* cpu-clock ns, context-switches; cycles never got a counter. */
static void set(struct counts *c, __u64 ns, __u64 cs)
{
	memset(c, 0, sizeof(*c));
	cnt(&c->c[0], ns);
	cnt(&c->c[1], cs);
	c->c[2] = (struct emon_count){ 777, 1000, 0 };
}

/*
 * Two CPUs in one package (physical id 1); the engine knows cpu-clock,
 * context-switches, cycles and instructions; the snapshot has the first
 * three (instructions is not supported here) and cycles is not counted.
 */
static void fix__init(struct fix *f, bool energy)
{
	struct snap_meta *meta = &f->meta;
	struct snapshot *s = &f->s;

	memset(f, 0, sizeof(*f));
	meta->ncpus = 2;
	meta->npkg = 1;
	meta->nr_events = 4;
	strcpy(meta->ev_name[EV_CLOCK], "cpu-clock");
	strcpy(meta->ev_name[EV_CS], "context-switches");
	strcpy(meta->ev_name[EV_CYCLES], "cycles");
	strcpy(meta->ev_name[EV_INS], "instructions");
	meta->ev_is_time[EV_CLOCK] = true;
	meta->cpu_pkg = f->cpu_pkg;
	f->pkg_id[0] = 1;
	meta->pkg_id = f->pkg_id;
	meta->energy_on = energy;
	strcpy(meta->energy_source, "powercap");
	strcpy(meta->split_by, "cpu-clock");

	s->seq = 1;
	s->ncpus = 2;
	s->npkg = 1;
	s->nr_events = 3;
	s->ev[0] = EV_CLOCK;
	s->ev[1] = EV_CS;
	s->ev[2] = EV_CYCLES;
	s->scopes = SNAP_CGROUPS | SNAP_PROCS;
	f->online[0] = f->online[1] = true;
	s->online = f->online;
	set(&f->cpu[0], 3 * SEC, 10);
	set(&f->cpu[1], 2 * SEC, 7);
	s->cpu = f->cpu;
	s->cgrp = f->cgrp;
	s->proc = f->proc;
	if (!energy)
		return;
	f->cpu_energy[0] = 10.5;
	f->cpu_energy[1] = 4.25;
	f->pkg_energy[0] = 20;
	f->pkg_zone[0] = 5;		/* core */
	f->pkg_zone[2] = 3;		/* dram */
	f->zone_mask[0] = 1u << 0 | 1u << 2;
	s->cpu_energy = f->cpu_energy;
	s->pkg_energy = f->pkg_energy;
	s->pkg_zone = f->pkg_zone;
	s->pkg_zone_mask = f->zone_mask;
}

/* The next of a list's max entries, whose count is *nr. */
static struct snap_entry *fix__entry(struct snap_entry *list, size_t *nr,
				     size_t max, __u64 id, __u64 id2,
				     const char *name, __u64 ns, __u64 cs)
{
	struct snap_entry *e = &list[(*nr)++];

	assert_true(*nr <= max);
	memset(e, 0, sizeof(*e));
	e->id = id;
	e->id2 = id2;
	e->name = name;
	set(&e->c, ns, cs);
	return e;
}

static struct snap_entry *fix__cgroup(struct fix *f, __u64 id, const char *name,
				      __u64 ns, __u64 cs, double j)
{
	struct snap_entry *e = fix__entry(f->cgrp, &f->s.nr_cgrp,
					  ARRAY_SIZE(f->cgrp), id, 0, name,
					  ns, cs);

	e->energy_j = j;
	return e;
}

static struct snap_entry *fix__proc(struct fix *f, __u64 pid, __u64 start,
				    const char *comm, __u64 ns, __u64 cs)
{
	return fix__entry(f->proc, &f->s.nr_proc, ARRAY_SIZE(f->proc), pid,
			  start, comm, ns, cs);
}

/* Cgroups add up to the CPUs (5 s, 17 switches); a container of two
 * cgroups, a Kubernetes one, a name that needs escaping, one whose
 * switches were not counted. */
static void fix__standard(struct fix *f, bool energy)
{
	fix__init(f, energy);
	fix__cgroup(f, 1, "/", 500000000, 2, 1);
	fix__cgroup(f, 10, "/a", 1500000000, 3, 2.5);
	fix__cgroup(f, 11, DOCKER, 2 * SEC, 5, 3);
	fix__cgroup(f, 12, DOCKER "/init", 500000000, 1, 0.5);
	fix__cgroup(f, 13, KUBE, 250000000, 2, 0.25);
	fix__cgroup(f, 14, "/we\"ird\\name\nx", 7, 4, 0);
	fix__cgroup(f, 15, "/b", 249999993, 0, 0)->c.c[1] =
		(struct emon_count){ 0, 1000, 0 };
	fix__proc(f, 100, 1, "burn", 2 * SEC, 3);
	fix__proc(f, 0, 0, "swapper", 1 * SEC, 9);
	fix__proc(f, 200, 5, "sh", 500000000, 2);
	fix__proc(f, 300, 6, "b\xff\xfe" "d", 400000000, 1);
	fix__proc(f, 100, 0, "burn", 1000, 1);	/* an older pid 100 */
}

static const struct metrics_self self_figures = {
	.scrape_duration_s = 0.0125,
	.flushes = 42,
	.start_time_unix = 1700000000.5,
	.version = "1.2.3 \"dev\"",
	.clients = 2,
	.threads = 3,
	.thread_slots = 32,
};

static char *render(struct metrics *m, struct fix *f, bool om)
{
	char *out = NULL;
	size_t len = 0;

	assert_int_equal(metrics__render(m, &f->meta, &f->s, &self_figures, om,
					 &out, &len), 0);
	assert_non_null(out);
	assert_int_equal(strlen(out), len);
	return out;
}

static struct metrics *metrics(size_t max_series, int top_procs)
{
	struct metrics_opts o = { .max_series = max_series, .top_procs = top_procs };
	struct metrics *m = NULL;

	assert_int_equal(metrics__new(&m, &o), 0);
	return m;
}

/* line is a whole line of body */
static bool has_line(const char *body, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = body; (p = strstr(p, line)); p++)
		if ((p == body || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

#define assert_line(body, line) do {					\
	if (!has_line(body, line))					\
		fail_msg("missing line: %s\n--- body ---\n%s", line, body); \
} while (0)

#define assert_no_line(body, line) do {					\
	if (has_line(body, line))					\
		fail_msg("unexpected line: %s", line);			\
} while (0)

/* The value of the sample named exactly key (name{labels}), or NAN. */
static double sample(const char *body, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = body; (p = strstr(p, key)); p++)
		if ((p == body || p[-1] == '\n') && p[n] == ' ')
			return strtod(p + n + 1, NULL);
	return NAN;
}

/* ---- a small checker of the exposition format ---- */

struct fam {
	char name[160];
	bool help, type, done;
};

struct check {
	struct fam fam[256];
	int nfam;
	char **keys;
	size_t nkeys;
	int cur;		/* family of the last sample */
};

static struct fam *check__fam(struct check *c, const char *name, size_t n)
{
	for (int i = 0; i < c->nfam; i++)
		if (strlen(c->fam[i].name) == n && !memcmp(c->fam[i].name, name, n))
			return &c->fam[i];
	return NULL;
}

static struct fam *check__add(struct check *c, const char *name, size_t n)
{
	struct fam *f = check__fam(c, name, n);

	if (f)
		return f;
	assert_true(c->nfam < (int)ARRAY_SIZE(c->fam) && n < sizeof(f->name));
	f = &c->fam[c->nfam++];
	memset(f, 0, sizeof(*f));
	memcpy(f->name, name, n);
	return f;
}

static void check__meta(struct check *c, const char *line, size_t len)
{
	const char *name = line + 7, *sp;
	struct fam *f;

	if (len == 5 && !memcmp(line, "# EOF", 5))
		return;
	assert_true(len > 7);
	sp = memchr(name, ' ', len - 7);
	assert_non_null(sp);
	f = check__add(c, name, sp - name);
	if (!memcmp(line, "# HELP ", 7)) {
		assert_false(f->help);
		f->help = true;
	} else if (!memcmp(line, "# TYPE ", 7)) {
		assert_false(f->type);
		assert_false(f->done);	/* TYPE before its samples */
		f->type = true;
	} else {
		assert_memory_equal(line, "# UNIT ", 7);
	}
}

/* A sample's family: its name, or in OpenMetrics without _total/_info. */
static struct fam *check__family(struct check *c, const char *name, size_t n,
				 bool om)
{
	static const char *const suffix[] = { "_total", "_info" };
	struct fam *f = check__fam(c, name, n);

	for (size_t i = 0; om && !f && i < ARRAY_SIZE(suffix); i++) {
		size_t k = strlen(suffix[i]);

		if (n > k && !memcmp(name + n - k, suffix[i], k))
			f = check__fam(c, name, n - k);
	}
	return f;
}

static void check__sample(struct check *c, const char *line, size_t len, bool om)
{
	size_t n = strcspn(line, "{ ");
	const char *sp = line + len;
	struct fam *f;

	f = check__family(c, line, n, om);
	if (!f)
		fail_msg("sample of no TYPE'd family: %.*s", (int)len, line);
	assert_true(f->help && f->type);
	/* one block per family */
	if (c->cur != f - c->fam) {
		assert_false(f->done);
		if (c->cur >= 0)
			c->fam[c->cur].done = true;
		c->cur = f - c->fam;
	}
	while (sp > line && sp[-1] != ' ')
		sp--;
	assert_true(sp > line);
	c->keys = realloc(c->keys, (c->nkeys + 1) * sizeof(*c->keys));
	c->keys[c->nkeys++] = strndup(line, sp - line - 1);
}

static int key__cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Every sample in a family with HELP and TYPE (before it, once), families
 * in one block each, no series twice, emon_series = the samples, the body
 * ends with a newline (# EOF in OpenMetrics). Returns the samples.
 */
static size_t check_body(const char *body, bool om)
{
	struct check *c = calloc(1, sizeof(*c));
	size_t len = strlen(body), n;
	const char *p = body;

	c->cur = -1;
	assert_true(len && body[len - 1] == '\n');
	while (*p) {
		const char *nl = strchr(p, '\n');

		assert_non_null(nl);
		assert_true(nl > p);	/* no empty lines */
		if (*p == '#')
			check__meta(c, p, nl - p);
		else
			check__sample(c, p, nl - p, om);
		p = nl + 1;
	}
	for (int i = 0; i < c->nfam; i++)
		assert_true(c->fam[i].help && c->fam[i].type);
	if (om)
		assert_true(len >= 6 && !strcmp(body + len - 6, "# EOF\n"));
	else
		assert_null(strstr(body, "# EOF"));
	qsort(c->keys, c->nkeys, sizeof(*c->keys), key__cmp);
	for (size_t i = 1; i < c->nkeys; i++)
		if (!strcmp(c->keys[i - 1], c->keys[i]))
			fail_msg("series twice: %s", c->keys[i]);
	n = c->nkeys;
	assert_int_equal((size_t)sample(body, "emon_series"), n);
	for (size_t i = 0; i < c->nkeys; i++)
		free(c->keys[i]);
	free(c->keys);
	free(c);
	return n;
}

/* ---- tests ---- */

static void test_event_name(void **state)
{
	static const struct {
		const char *in;
		size_t len;
		const char *out;
	} cases[] = {
		{ "cpu-clock", 64, "cpu_clock" },
		{ "context-switches", 64, "context_switches" },
		{ "L1-dcache-load-misses", 64, "l1_dcache_load_misses" },
		{ "cycles:u", 64, "cycles_u" },
		{ "cpu/event=0x3c,umask=0/", 64, "cpu_event_0x3c_umask_0_" },
		{ "INST_RETIRED.ANY_P", 64, "inst_retired_any_p" },
		{ "caf\xc3\xa9", 64, "caf__" },
		{ "abcdef", 4, "abc" },		/* cut to len - 1 */
		{ "", 64, "" },
	};
	char out[64];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		metrics__event_name(cases[i].in, out, cases[i].len);
		assert_string_equal(out, cases[i].out);
	}
	out[0] = 'x';
	metrics__event_name("abc", out, 0);	/* nothing written */
	assert_int_equal(out[0], 'x');
}

/* ---- bodies: what a render of a fixture must hold ---- */

enum want_how {
	LINE,		/* a whole line of the body */
	HAS,		/* text anywhere in it */
	HAS_NOT,	/* text nowhere in it */
	AT_LEAST_0,	/* the sample of that key, >= 0 (so there is one) */
	ABOVE_0,	/* the sample of that key, > 0 */
};

struct want {
	enum want_how how;
	const char *text;
};

#define WANTS 40	/* in a case, at most */

/* n wants, or fewer ended by a NULL text */
static void want__check(const char *what, const char *body,
			const struct want *wants, size_t n)
{
	for (const struct want *w = wants; w < wants + n && w->text; w++) {
		const char *say = "unknown want";
		bool ok = false;

		switch (w->how) {
		case LINE:
			ok = has_line(body, w->text);
			say = "missing line";
			break;
		case HAS:
			ok = strstr(body, w->text);
			say = "missing";
			break;
		case HAS_NOT:
			ok = !strstr(body, w->text);
			say = "unexpected";
			break;
		case AT_LEAST_0:
			ok = sample(body, w->text) >= 0;
			say = "no sample >= 0 for";
			break;
		case ABOVE_0:
			ok = sample(body, w->text) > 0;
			say = "no sample > 0 for";
			break;
		}
		if (!ok)
			fail_msg("%s: %s: %s\n--- body ---\n%s", what, say,
				 w->text, body);
	}
}

static void fix__energy(struct fix *f)
{
	fix__standard(f, true);
}

static void fix__no_energy(struct fix *f)
{
	fix__standard(f, false);
}

static void fix__overflow(struct fix *f)
{
	fix__standard(f, false);
	f->s.stats[EMON_STAT_CGRP_FULL] = 5;
	f->s.stats[EMON_STAT_PROC_FULL] = 1234567890123ULL;
}

/* Two containers whose ids differ in their last digit only. */
static void fix__container_ids(struct fix *f)
{
	fix__init(f, false);
	fix__cgroup(f, 60, "/system.slice/docker-" ZEROS "7.scope", SEC, 1, 0);
	fix__cgroup(f, 61, "/system.slice/docker-" ZEROS "8.scope", 2 * SEC, 2, 0);
}

/* Two cgroups of one path (removed, made again, the old one not gone
 * yet). */
static void fix__same_path(struct fix *f)
{
	fix__init(f, false);
	fix__cgroup(f, 50, "/svc", SEC, 1, 0);
	fix__cgroup(f, 51, "/svc", 2 * SEC, 2, 0);
}

/* DOCKER/init leaves the standard fixture. */
static void fix__docker_init_leaves(struct fix *f)
{
	f->cgrp[3] = f->cgrp[--f->s.nr_cgrp];
}

/* Renders before the one checked, with the same metrics. */
enum earlier { NONE, EARLIER_TEXT, EARLIER_OM };

/*
 * A body of each fixture, checked (check_body) and searched; earlier
 * renders, with leave() after them, make the one checked a later one.
 */
static const struct body_case {
	const char *what;
	void (*fix)(struct fix *f);
	int top_procs;
	bool om;
	enum earlier earlier;
	void (*leave)(struct fix *f);
	struct want want[WANTS];
} body_cases[] = {
	{ "names", fix__energy, 0, false, NONE, NULL, {
		/* time events in seconds, exactly; others as integers */
		{ LINE, "emon_cgroup_cpu_clock_seconds_total{cgroup=\"/a\"} 1.5" },
		{ LINE, "emon_cgroup_context_switches_total{cgroup=\"/a\"} 3" },
		/* backslash, double quote and newline escaped */
		{ LINE, "emon_cgroup_cpu_clock_seconds_total"
			"{cgroup=\"/we\\\"ird\\\\name\\nx\"} 0.000000007" },
		{ LINE, "emon_cgroup_cpu_clock_seconds_total{cgroup=\"/\"} 0.5" },
		/* the system is the sum of the CPUs; the package of its CPUs */
		{ LINE, "emon_system_cpu_clock_seconds_total 5" },
		{ LINE, "emon_system_context_switches_total 17" },
		{ LINE, "emon_package_cpu_clock_seconds_total{package=\"1\"} 5" },
		{ LINE, "emon_package_context_switches_total{package=\"1\"} 17" },
		/* energy: attributed, and per measured zone for the package */
		{ LINE, "emon_system_energy_joules_total{zone=\"package\"} 14.75" },
		{ LINE, "emon_cgroup_energy_joules_total{cgroup=\"/a\",zone=\"package\"} 2.5" },
		{ LINE, "emon_package_energy_joules_total{package=\"1\",zone=\"package\"} 20" },
		{ LINE, "emon_package_energy_joules_total{package=\"1\",zone=\"core\"} 5" },
		{ LINE, "emon_package_energy_joules_total{package=\"1\",zone=\"dram\"} 3" },
		{ HAS_NOT, "zone=\"uncore\"" },
		{ HAS_NOT, "zone=\"psys\"" },
		/* HELP and TYPE name the sample in 0.0.4 */
		{ LINE, "# TYPE emon_cgroup_cpu_clock_seconds_total counter" },
		{ HAS, "# HELP emon_cgroup_cpu_clock_seconds_total cpu-clock" },
		{ LINE, "# TYPE emon_build_info gauge" },
		{ LINE, "emon_build_info{version=\"1.2.3 \\\"dev\\\"\"} 1" },
		/* self figures */
		{ LINE, "emon_scrape_duration_seconds 0.0125" },
		{ LINE, "emon_flushes_total 42" },
		{ LINE, "emon_start_time_seconds 1700000000.5" },
		{ LINE, "emon_clients 2" },
		{ LINE, "emon_threads 3" },
		{ LINE, "emon_thread_slots 32" },
		{ LINE, "emon_folded_cgroups 0" },
		{ LINE, "emon_cgroup_folds_total 0" },
		{ AT_LEAST_0, "process_cpu_seconds_total" },
		{ ABOVE_0, "process_resident_memory_bytes" },
		/* no process series without top_procs */
		{ HAS_NOT, "emon_process_" },
	} },
	/* Not supported (not in the snapshot) or never counted: no series,
	 * never a 0; a cgroup that did not count an event has no series
	 * for it. */
	{ "not counted", fix__energy, 3, false, NONE, NULL, {
		{ HAS_NOT, "cycles" },
		{ HAS_NOT, "instructions" },
		{ LINE, "emon_cgroup_cpu_clock_seconds_total{cgroup=\"/b\"} 0.249999993" },
		{ HAS_NOT, "emon_cgroup_context_switches_total{cgroup=\"/b\"}" },
		{ LINE, "emon_cgroup_context_switches_total{cgroup=\"/\"} 2" },
	} },
	{ "overflow stats", fix__overflow, 0, false, NONE, NULL, {
		{ LINE, "emon_overflow_total{scope=\"cgroup\"} 5" },
		{ LINE, "emon_overflow_total{scope=\"process\"} 1234567890123" },
		/* no energy source: no energy series */
		{ HAS_NOT, "energy" },
	} },
	{ "containers", fix__energy, 0, false, NONE, NULL, {
		/* docker: its scope and init add up; the label is the
		 * shortest path */
		{ LINE, "emon_container_cpu_clock_seconds_total{container_id=\""
			ID1 "\",runtime=\"docker\",pod_uid=\"\",cgroup=\"" DOCKER "\"} 2.5" },
		{ LINE, "emon_container_context_switches_total{container_id=\""
			ID1 "\",runtime=\"docker\",pod_uid=\"\",cgroup=\"" DOCKER "\"} 6" },
		{ LINE, "emon_container_energy_joules_total{container_id=\""
			ID1 "\",runtime=\"docker\",pod_uid=\"\",cgroup=\"" DOCKER
			"\",zone=\"package\"} 3.5" },
		{ LINE, "emon_container_cpu_clock_seconds_total{container_id=\""
			ID3 "\",runtime=\"containerd\",pod_uid=\"" UID "\",cgroup=\""
			KUBE "\"} 0.25" },
		/* the cgroups keep their own series */
		{ LINE, "emon_cgroup_cpu_clock_seconds_total{cgroup=\"" DOCKER "/init\"} 0.5" },
	} },
	/* two series, each with its own cgroup */
	{ "container ids", fix__container_ids, 0, false, NONE, NULL, {
		{ LINE, "emon_container_cpu_clock_seconds_total{container_id=\""
			ZEROS "7\",runtime=\"docker\",pod_uid=\"\",cgroup=\""
			"/system.slice/docker-" ZEROS "7.scope\"} 1" },
		{ LINE, "emon_container_cpu_clock_seconds_total{container_id=\""
			ZEROS "8\",runtime=\"docker\",pod_uid=\"\",cgroup=\""
			"/system.slice/docker-" ZEROS "8.scope\"} 2" },
	} },
	/* a container's cgroup that leaves keeps its totals in the container */
	{ "container not backwards", fix__no_energy, 0, false, EARLIER_TEXT,
	  fix__docker_init_leaves, {
		{ LINE, "emon_container_cpu_clock_seconds_total{container_id=\""
			ID1 "\",runtime=\"docker\",pod_uid=\"\",cgroup=\"" DOCKER "\"} 2.5" },
		{ HAS_NOT, DOCKER "/init" },
	} },
	{ "OpenMetrics", fix__energy, 2, true, NONE, NULL, {
		{ LINE, "# TYPE emon_cgroup_cpu_clock_seconds counter" },
		{ LINE, "# UNIT emon_cgroup_cpu_clock_seconds seconds" },
		{ HAS_NOT, "# TYPE emon_cgroup_cpu_clock_seconds_total" },
		{ LINE, "emon_cgroup_cpu_clock_seconds_total{cgroup=\"/a\"} 1.5" },
		{ LINE, "# TYPE emon_cgroup_energy_joules counter" },
		{ LINE, "# TYPE emon_build info" },
		{ LINE, "emon_build_info{version=\"1.2.3 \\\"dev\\\"\"} 1" },
		{ LINE, "# TYPE emon_flushes counter" },
		{ LINE, "emon_flushes_total 42" },
		{ LINE, "# TYPE process_cpu_seconds counter" },
		/* HELP escapes the double quote in OpenMetrics only */
		{ HAS, "cgroup=\\\"other\\\"" },
	} },
	{ "0.0.4 after OpenMetrics", fix__energy, 2, false, EARLIER_OM, NULL, {
		{ HAS_NOT, "# UNIT" },
		{ LINE, "# TYPE emon_flushes_total counter" },
	} },
	{ "top 2 processes", fix__no_energy, 2, false, NONE, NULL, {
		/* the top 2 by cpu-clock, the idle task included */
		{ LINE, "emon_process_cpu_clock_seconds_total{pid=\"100\",comm=\"burn\"} 2" },
		{ LINE, "emon_process_context_switches_total{pid=\"0\",comm=\"swapper\"} 9" },
		{ HAS_NOT, "pid=\"200\"" },
		{ LINE, "# HELP emon_process_cpu_clock_seconds_total cpu-clock "
			"in seconds per process, for the 2 with the most cpu-clock" },
	} },
	/* one series per pid (the larger of a reused pid's entries); comms
	 * that are not UTF-8 are made valid */
	{ "top 10 processes", fix__no_energy, 10, false, NONE, NULL, {
		{ LINE, "emon_process_cpu_clock_seconds_total"
			"{pid=\"300\",comm=\"b\xef\xbf\xbd\xef\xbf\xbd" "d\"} 0.4" },
		{ LINE, "emon_process_cpu_clock_seconds_total{pid=\"200\",comm=\"sh\"} 0.5" },
		{ HAS_NOT, "pid=\"100\",comm=\"burn\"} 0.000001" },
	} },
	/* cgroups of one path: one series, their sum */
	{ "same path", fix__same_path, 0, false, NONE, NULL, {
		{ LINE, "emon_cgroup_cpu_clock_seconds_total{cgroup=\"/svc\"} 3" },
	} },
};

/* One case of body_cases, a test of its own (main). */
static void test_body(void **state)
{
	const struct body_case *c = *state;
	struct metrics *m = metrics(0, c->top_procs);
	struct fix f;
	char *body;

	c->fix(&f);
	if (c->earlier != NONE) {
		free(render(m, &f, c->earlier == EARLIER_OM));
		if (c->leave)
			c->leave(&f);
	}
	body = render(m, &f, c->om);
	check_body(body, c->om);
	want__check(c->what, body, c->want, ARRAY_SIZE(c->want));
	free(body);
	metrics__free(m);
}
static char fold_names[16][16];

/* A container's cgroup (0.5 s) and /c1 .. /c8 (1 .. 8 s); /c1's
 * switches are multiplexed, so "other" must scale the raw sums. */
static void fix__fold(struct fix *f)
{
	fix__init(f, true);
	fix__cgroup(f, 100, DOCKER, SEC / 2, 1, 0.5);
	for (int i = 1; i <= 8; i++) {
		snprintf(fold_names[i], sizeof(fold_names[i]), "/c%d", i);
		fix__cgroup(f, 100 + i, fold_names[i], i * SEC, 10 * i, i);
	}
	f->cgrp[1].c.c[1] = (struct emon_count){ 10, 2000, 1000 };
}

/* "other" expected from the raw sums of the given cgroups (ids). */
static void other_expect(const struct fix *f, const __u64 *ids, int n,
			 __u64 *ns, __u64 *cs, double *j)
{
	struct counts sum = {};

	*j = 0;
	for (int i = 0; i < n; i++)
		for (size_t k = 0; k < f->s.nr_cgrp; k++)
			if (f->cgrp[k].id == ids[i]) {
				counts__add(&sum, &f->cgrp[k].c, 3);
				*j += f->cgrp[k].energy_j;
			}
	assert_true(count__scaled_u64(&sum.c[0], ns));
	assert_true(count__scaled_u64(&sum.c[1], cs));
}

/* "other"'s cpu-clock in seconds */
static double other_s(const char *body)
{
	return sample(body, "emon_cgroup_cpu_clock_seconds_total{cgroup=\"other\"}");
}

static void assert_other(const char *body, const struct fix *f,
			 const __u64 *ids, int n)
{
	__u64 ns, cs;
	double j;

	other_expect(f, ids, n, &ns, &cs, &j);
	assert_true(other_s(body) == ns / 1e9);
	assert_int_equal((__u64)sample(body, "emon_cgroup_context_switches_total{cgroup=\"other\"}"),
			 cs);
	assert_true(sample(body, "emon_cgroup_energy_joules_total{cgroup=\"other\",zone=\"package\"}")
		    == j);
}

static void test_fold(void **state)
{
	static const __u64 folded[] = { 100, 101, 102 };
	static const struct want folded3[] = {
		{ HAS_NOT, "cgroup=\"/c1\"" },
		{ HAS_NOT, "cgroup=\"/c2\"" },
		{ HAS, "cgroup=\"/c3\"" },
		{ HAS_NOT, "{cgroup=\"" DOCKER "\"" },
		/* the container keeps its series */
		{ HAS, "emon_container_cpu_clock_seconds_total{container_id=\"" ID1 },
		{ LINE, "emon_folded_cgroups 3" },
		{ LINE, "emon_cgroup_folds_total 3" },
	};
	/* folded cgroups leave the snapshot: "other" keeps what it had */
	static const struct {
		const char *what;
		int nr, leave[2];	/* cgroups that leave, in turn */
		struct want want[2];
	} left[] = {
		{ "/c2 left", 1, { 2 }, {
			{ LINE, "emon_folded_cgroups 2" },
			{ LINE, "emon_cgroup_folds_total 3" },
		} },
		{ "every folded cgroup left", 2, { 0, 1 }, {
			{ LINE, "emon_folded_cgroups 0" },
		} },
	};
	struct metrics *m;
	double other1, other2;
	size_t n0, n;
	struct fix f;
	char *body;

	(void)state;
	fix__fold(&f);
	m = metrics(100000, 0);
	body = render(m, &f, false);
	n0 = check_body(body, false);
	assert_null(strstr(body, "{cgroup=\"other\"}"));
	free(body);
	metrics__free(m);

	/*
	 * 3 series a cgroup (2 events, energy): folding the container's cgroup
	 * makes "other" (+3 -3), then /c1, /c2 (-3 each) fit n0 - 5.
	 */
	m = metrics(n0 - 5, 0);
	body = render(m, &f, false);
	n = check_body(body, false);
	assert_true(n <= n0 - 5);
	assert_int_equal(n, n0 - 6);
	assert_int_equal(metrics__folded(m), 3);
	assert_int_equal(metrics__series(m), n);
	assert_other(body, &f, folded, 3);
	want__check("3 folded", body, folded3, ARRAY_SIZE(folded3));
	other1 = other_s(body);
	free(body);

	/* sticky: /c1 grows past every other cgroup, and stays folded */
	f.cgrp[1].c.c[0].counter = 100 * SEC;
	body = render(m, &f, false);
	check_body(body, false);
	assert_null(strstr(body, "cgroup=\"/c1\""));
	assert_other(body, &f, folded, 3);
	other2 = other_s(body);
	assert_true(other2 == other1 + 99);
	free(body);

	for (size_t i = 0; i < ARRAY_SIZE(left); i++) {
		for (int k = 0; k < left[i].nr; k++)
			f.cgrp[left[i].leave[k]] = f.cgrp[--f.s.nr_cgrp];
		body = render(m, &f, false);
		check_body(body, false);
		assert_true(other_s(body) == other2);
		want__check(left[i].what, body, left[i].want,
			    ARRAY_SIZE(left[i].want));
		free(body);
	}
	metrics__free(m);
}

/* A new cgroup is folded while others are already: "other" only grows. */
static void test_fold_more(void **state)
{
	struct metrics *m = metrics(40, 0);
	struct fix f;
	double prev = 0;
	char *body;

	(void)state;
	fix__fold(&f);
	for (int round = 0; round < 6; round++) {
		double other;

		body = render(m, &f, round & 1);
		assert_true(check_body(body, round & 1) <= 40);
		other = other_s(body);
		assert_true(other >= prev);
		prev = other;
		free(body);
		for (size_t k = 0; k < f.s.nr_cgrp; k++)
			f.cgrp[k].c.c[0].counter += SEC / 10;
		if (round == 2)
			fix__cgroup(&f, 300, "/new", 1, 1, 0);
	}
	metrics__free(m);
}

static void test_bad_input(void **state)
{
	struct metrics_opts bad = { .top_procs = -1 };
	struct metrics *m = metrics(0, 0), *m2 = NULL;
	char *out = NULL;
	size_t len = 0;
	struct fix f;

	(void)state;
	assert_int_equal(metrics__new(&m2, &bad), -EINVAL);
	assert_int_equal(metrics__new(NULL, NULL), -EINVAL);
	fix__standard(&f, true);
	assert_int_equal(metrics__render(NULL, &f.meta, &f.s, NULL, false, &out, &len), -EINVAL);
	assert_int_equal(metrics__render(m, NULL, &f.s, NULL, false, &out, &len), -EINVAL);
	assert_int_equal(metrics__render(m, &f.meta, &f.s, NULL, false, NULL, &len), -EINVAL);
	f.s.ev[1] = 9;		/* no such event */
	assert_int_equal(metrics__render(m, &f.meta, &f.s, NULL, false, &out, &len), -EINVAL);
	f.s.ev[1] = EV_CS;
	f.s.nr_events = EMON_MAX_EVENTS + 1;
	assert_int_equal(metrics__render(m, &f.meta, &f.s, NULL, false, &out, &len), -EINVAL);
	f.s.nr_events = 3;
	f.s.ncpus = 3;		/* more than meta's */
	assert_int_equal(metrics__render(m, &f.meta, &f.s, NULL, false, &out, &len), -EINVAL);
	f.s.ncpus = 2;
	/* self NULL is fine: zeros, version unknown */
	assert_int_equal(metrics__render(m, &f.meta, &f.s, NULL, false, &out, &len), 0);
	assert_line(out, "emon_build_info{version=\"unknown\"} 1");
	check_body(out, false);
	free(out);
	metrics__free(m);
	metrics__free(NULL);
}

/* promtool's lint: prints every problem (counter without _total, no
 * HELP, ...), nothing when the body is fine. */
static void test_promtool(void **state)
{
	char path[] = "/tmp/emon-metrics-XXXXXX", cmd[256], out[4096];
	struct metrics *m = metrics(0, 5);
	size_t n = 0, len;
	struct fix f;
	char *body;
	FILE *p;
	int fd;

	(void)state;
	if (system("command -v promtool >/dev/null 2>&1")) {
		printf("SKIP promtool check: promtool not installed (Debian: prometheus)\n");
		metrics__free(m);
		return;
	}
	fix__standard(&f, true);
	body = render(m, &f, false);
	len = strlen(body);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, body, len), (ssize_t)len);
	close(fd);
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s 2>&1", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	assert_int_equal(pclose(p), 0);
	unlink(path);
	if (n)
		fail_msg("promtool check metrics: %s", out);
	printf("promtool check metrics: clean (%zu bytes)\n", len);
	free(body);
	metrics__free(m);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 10,000 cgroups x 2 events: 20,000 series, then 20,000 more than the
 * default bound allows (folding). The times are printed, not asserted: a
 * busy machine makes any bound flaky; make bench-serve measures scrapes. */
static void test_large(void **state)
{
	enum { NCG = 10000 };
	struct metrics *m = metrics(30000, 0);
	struct snap_entry *cg = calloc(NCG, sizeof(*cg));
	char (*names)[48] = calloc(NCG, sizeof(*names));
	double t0, t1;
	struct fix f;
	char *body;
	size_t n;

	(void)state;
	fix__init(&f, false);
	for (int i = 0; i < NCG; i++) {
		snprintf(names[i], sizeof(names[i]),
			 "/system.slice/svc-%05d.service", (i * 7919) % NCG);
		cg[i].id = 1000 + i;
		cg[i].name = names[i];
		set(&cg[i].c, (__u64)(i + 1) * 1000003, i);
	}
	f.s.cgrp = cg;
	f.s.nr_cgrp = NCG;
	t0 = now();
	body = render(m, &f, false);
	t1 = now();
	n = check_body(body, false);
	free(body);
	printf("render: %zu series in %.2f ms (0.0.4, first render)\n", n,
	       (t1 - t0) * 1e3);
	t0 = now();
	body = render(m, &f, true);
	t1 = now();
	free(body);
	printf("render: %zu series in %.2f ms (OpenMetrics, second render)\n", n,
	       (t1 - t0) * 1e3);
	assert_true(n >= 20000);
	metrics__free(m);

	m = metrics(0, 0);	/* default: 20,000 */
	t0 = now();
	body = render(m, &f, false);
	t1 = now();
	n = check_body(body, false);
	printf("render: %zu series in %.2f ms (folding %zu cgroups)\n", n,
	       (t1 - t0) * 1e3, metrics__folded(m));
	assert_true(n <= 20000);
	assert_true(metrics__folded(m) > 0);
	free(body);
	metrics__free(m);
	free(cg);
	free(names);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_name),
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_fold_more),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_promtool),
		cmocka_unit_test(test_large),
	};

	return run_tests_and_cases(tests, test_body, body_cases, what);
}
