/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the tests of /metrics share: snapshots made by hand (two CPUs in
 * one package, cgroups, processes), a render of one, a small checker of
 * the exposition format (HELP and TYPE before every family, one block a
 * family, no series twice, emon_series right), and tables of lines a
 * body must or must not hold.
 */
#ifndef EMON_TESTS_UNIT_METRICS_FIX_H
#define EMON_TESTS_UNIT_METRICS_FIX_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon/exporter/metrics.h"
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
	struct snap_cont cont[1];
};

/* The labels of a container whose names are not known */
#define NONAMES ",name=\"\",image=\"\",namespace=\"\",pod=\"\",container=\"\""

static inline void cnt(struct emon_count *c, __u64 v)
{
	*c = (struct emon_count){ v, 1000, 1000 };
}

/* cpu-clock ns, context-switches; cycles never got a counter. */
static inline void set(struct counts *c, __u64 ns, __u64 cs)
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
static inline void fix__init(struct fix *f, bool energy)
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
static inline struct snap_entry *
fix__entry(struct snap_entry *list, size_t *nr, size_t max, __u64 id,
	   __u64 id2, const char *name, __u64 ns, __u64 cs)
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

static inline struct snap_entry *
fix__cgroup(struct fix *f, __u64 id, const char *name, __u64 ns, __u64 cs,
	    double j)
{
	struct snap_entry *e = fix__entry(f->cgrp, &f->s.nr_cgrp,
					  ARRAY_SIZE(f->cgrp), id, 0, name,
					  ns, cs);

	e->energy_j = j;
	return e;
}

static inline struct snap_entry *
fix__proc(struct fix *f, __u64 pid, __u64 start, const char *comm, __u64 ns,
	  __u64 cs)
{
	return fix__entry(f->proc, &f->s.nr_proc, ARRAY_SIZE(f->proc), pid,
			  start, comm, ns, cs);
}

/* Cgroups add up to the CPUs (5 s, 17 switches); a container of two
 * cgroups, a Kubernetes one, a name that needs escaping, one whose
 * switches were not counted. */
static inline void fix__standard(struct fix *f, bool energy)
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
	/* the Kubernetes container's names (the docker one has none) */
	f->cont[0] = (struct snap_cont){ ID3, "k8s_web_shop-0", "nginx:1.25",
					 "prod", "shop-0", "we\"b" };
	f->s.cont = f->cont;
	f->s.nr_cont = 1;
}

static const struct metrics_self self_figures = {
	.scrape_duration_s = 0.0125,
	.flushes = 42,
	.scrape_flushes = 5,
	.start_time_unix = 1700000000.5,
	.version = "1.2.3 \"dev\"",
	.clients = 2,
	.threads = 3,
	.thread_slots = 32,
};

static inline char *render_self(struct metrics *m, struct fix *f,
				const struct metrics_self *self, bool om)
{
	char *out = NULL;
	size_t len = 0;

	assert_int_equal(metrics__render(m, &f->meta, &f->s, self, om, &out,
					 &len), 0);
	assert_non_null(out);
	assert_int_equal(strlen(out), len);
	return out;
}

static inline char *render(struct metrics *m, struct fix *f, bool om)
{
	return render_self(m, f, &self_figures, om);
}

static inline struct metrics *metrics(size_t max_series, int top_procs)
{
	struct metrics_opts o = { .max_series = max_series, .top_procs = top_procs };
	struct metrics *m = NULL;

	assert_int_equal(metrics__new(&m, &o), 0);
	return m;
}

/* line is a whole line of body */
static inline bool has_line(const char *body, const char *line)
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
static inline double sample(const char *body, const char *key)
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
	bool hist;		/* TYPE histogram */
};

struct check {
	struct fam fam[256];
	int nfam;
	char **keys;
	size_t nkeys;
	int cur;		/* family of the last sample */
};

static inline struct fam *check__fam(struct check *c, const char *name,
					size_t n)
{
	for (int i = 0; i < c->nfam; i++)
		if (strlen(c->fam[i].name) == n && !memcmp(c->fam[i].name, name, n))
			return &c->fam[i];
	return NULL;
}

static inline struct fam *check__add(struct check *c, const char *name,
					size_t n)
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

static inline void check__meta(struct check *c, const char *line, size_t len)
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
		f->hist = len - (sp - line) == 10 && !memcmp(sp, " histogram", 10);
	} else {
		assert_memory_equal(line, "# UNIT ", 7);
	}
}

/* The family of name less the first of suffix[] it ends with, or NULL. */
static inline struct fam *check__trimmed(struct check *c, const char *name,
					 size_t n, const char *const *suffix,
					 size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		size_t k = strlen(suffix[i]);

		if (n > k && !memcmp(name + n - k, suffix[i], k))
			return check__fam(c, name, n - k);
	}
	return NULL;
}

/* A sample's family: its name, or in OpenMetrics without _total/_info,
 * or a histogram's without _bucket/_sum/_count. */
static inline struct fam *check__family(struct check *c, const char *name,
					   size_t n, bool om)
{
	static const char *const om_suffix[] = { "_total", "_info" };
	static const char *const hist_suffix[] = { "_bucket", "_sum", "_count" };
	struct fam *f = check__fam(c, name, n);

	if (!f && om)
		f = check__trimmed(c, name, n, om_suffix, ARRAY_SIZE(om_suffix));
	if (!f) {
		f = check__trimmed(c, name, n, hist_suffix, ARRAY_SIZE(hist_suffix));
		if (f && !f->hist)
			f = NULL;
	}
	return f;
}

static inline void check__sample(struct check *c, const char *line,
				 size_t len, bool om)
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

static inline int key__cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Every sample in a family with HELP and TYPE (before it, once), families
 * in one block each, no series twice, emon_series = the samples, the body
 * ends with a newline (# EOF in OpenMetrics). Returns the samples.
 */
static inline size_t check_body(const char *body, bool om)
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
static inline void want__check(const char *what, const char *body,
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


/* Renders before the one checked, with the same metrics. */
enum earlier { NONE, EARLIER_TEXT, EARLIER_OM };

/*
 * A body of a fixture, checked (check_body) and searched; earlier
 * renders, with leave() after them, make the one checked a later one.
 */
struct body_case {
	const char *what;
	void (*fix)(struct fix *f);
	int top_procs;
	bool om;
	enum earlier earlier;
	void (*leave)(struct fix *f);
	struct want want[WANTS];
	const struct metrics_self *self;	/* NULL: self_figures */
};

/* One case of a table of body_case, a test of its own
 * (run_tests_and_cases). */
static inline void test_body(void **state)
{
	const struct body_case *c = *state;
	const struct metrics_self *self = c->self ? c->self : &self_figures;
	struct metrics *m = metrics(0, c->top_procs);
	struct fix f;
	char *body;

	c->fix(&f);
	if (c->earlier != NONE) {
		free(render_self(m, &f, self, c->earlier == EARLIER_OM));
		if (c->leave)
			c->leave(&f);
	}
	body = render_self(m, &f, self, c->om);
	check_body(body, c->om);
	want__check(c->what, body, c->want, ARRAY_SIZE(c->want));
	free(body);
	metrics__free(m);
}

#endif
