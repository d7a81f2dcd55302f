// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Cumulative snapshots as Prometheus text 0.0.4 or OpenMetrics 1.0.
 *
 * A render builds rows per scope (system, packages, cgroups, containers,
 * processes), counts the series they give, folds the smallest cgroups
 * into "other" while there are more than max_series, then writes every
 * family into one growing buffer (doubling, sized from the last render).
 *
 * State across renders (struct track, keyed by cgroup id): the cgroups
 * folded into "other" and those of containers, with their totals as last
 * seen. A tracked cgroup that left the snapshot leaves those totals in
 * "other" or in its container, so neither goes backwards.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/output_sched.h"
#include "cli/utf8.h"
#include "common/array.h"
#include "daemon/metrics.h"
#include "engine/container.h"
#include "engine/idmap.h"

enum mscope_id {
	MS_SYSTEM,
	MS_PACKAGE,
	MS_CGROUP,
	MS_CONTAINER,
	MS_PROCESS,
	MS_NR,
};

#define MS_MAX_LABELS 4

/* One row of a scope: its counts and label values. */
struct mrow {
	const struct counts *c;		/* raw sums */
	struct counts sum;		/* c's storage when entries add up */
	double energy_j;
	double key;			/* the sort event's value */
	const char *l[MS_MAX_LABELS];	/* label values, the scope's order */
	char num[24];			/* a numeric label's text */
	unsigned int mask;		/* events counted, bit per event */
	unsigned int nser;		/* series it gives */
	int pkg;			/* packages: dense index */
	size_t first, n;		/* cgroups: its entries in m->ents */
	bool folded;
};

struct mscope {
	const char *name;
	const char *const *lname;	/* label names */
	int nl;
	struct mrow *rows;
	size_t nr;
	unsigned int mask;		/* events some row counted */
};

/* A cgroup folded into "other" or in a container, as last seen. */
struct track {
	struct counts last;
	double energy_j;
	struct cont *cont;
	__u32 epoch;			/* the render that last saw it */
	bool folded;
};

struct cont {
	char id[CONTAINER_ID_LEN + 1];
	const char *runtime;
	char pod_uid[CONTAINER_POD_UID_LEN + 1];
	struct counts acc, live;	/* its cgroups that left; still there */
	double acc_j, live_j;
	const char *path;		/* shortest live cgroup (this render) */
	__u32 epoch;
};

struct proc_key {
	double key;
	const struct snap_entry *e;
};

struct metrics {
	struct metrics_opts o;
	struct idmap track;		/* cgroup id -> struct track */
	struct idmap conts;		/* container id -> struct cont */
	struct idmap seen;		/* scratch: pids shown */
	struct counts other_acc;	/* folded cgroups that left */
	double other_acc_j;
	__u64 folds;			/* cgroups ever folded */
	__u32 epoch;
	size_t series, folded, last_len;
	/* scratch, grown only */
	struct mrow *rows[MS_NR];
	size_t rows_cap[MS_NR];
	const struct snap_entry **ents;	/* cgroups sorted by path */
	bool *efold;			/* ents[i] is folded */
	size_t ents_cap, efold_cap;
	size_t *order;
	size_t order_cap;
	struct idmap_key *gone;
	size_t gone_cap;
	struct cont **contv;
	size_t contv_cap;
	struct proc_key *pk;
	size_t pk_cap;
};

struct mev {
	int i;				/* index of the snapshot's counts */
	const char *name;		/* the engine's name */
	char fam[SNAP_EVENT_NAME_LEN + 24];	/* "cpu_clock_seconds" */
	bool is_time;
};

struct mbuf {
	char *p;
	size_t len, cap;
	int err;
};

struct render {
	struct metrics *m;
	const struct snap_meta *meta;
	const struct snapshot *s;
	bool om;
	int nev;
	struct mev ev[EMON_MAX_EVENTS];
	int key;			/* counts index of the sort event, -1 */
	struct mscope sc[MS_NR];
	struct counts other_live;	/* folded cgroups still there */
	double other_live_j;
	struct mrow *other;		/* NULL until a cgroup was folded */
	size_t total;			/* series */
	double cpu_s;
	__u64 rss;
	bool has_cpu, has_rss;
	bool has_threads;		/* emon_threads, emon_thread_slots */
	struct mbuf b;
};

static const char *const lbl_package[] = { "package" };
static const char *const lbl_cgroup[] = { "cgroup" };
static const char *const lbl_container[] = {
	"container_id", "runtime", "pod_uid", "cgroup" };
static const char *const lbl_process[] = { "pid", "comm" };

static const char *const zone_name[SNAP_ZONES] = {
	"core", "uncore", "dram", "psys" };

/* ---- the output buffer ---- */

static bool mbuf__reserve(struct mbuf *b, size_t n)
{
	size_t cap;
	char *p;

	if (b->err)
		return false;
	if (b->len + n < b->cap)	/* room for the NUL too */
		return true;
	cap = b->cap ? b->cap : 4096;
	while (cap <= b->len + n)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->err = -ENOMEM;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

static void mbuf__put(struct mbuf *b, const void *s, size_t n)
{
	if (!mbuf__reserve(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void mbuf__puts(struct mbuf *b, const char *s)
{
	mbuf__put(b, s, strlen(s));
}

static void mbuf__u64(struct mbuf *b, __u64 v)
{
	char tmp[20];
	int i = sizeof(tmp);

	do {
		tmp[--i] = '0' + v % 10;
		v /= 10;
	} while (v);
	mbuf__put(b, tmp + i, sizeof(tmp) - i);
}

/* ns as seconds, exactly: 1500000000 -> "1.5", 7 -> "0.000000007" */
static void mbuf__seconds(struct mbuf *b, __u64 ns)
{
	__u32 f = ns % 1000000000;
	char frac[10];
	int i, n = 9;

	mbuf__u64(b, ns / 1000000000);
	if (!f)
		return;
	frac[0] = '.';
	for (i = 9; i > 0; i--, f /= 10)
		frac[i] = '0' + f % 10;
	while (frac[n] == '0')
		n--;
	mbuf__put(b, frac, n + 1);
}

static void mbuf__double(struct mbuf *b, double v)
{
	if (isnan(v)) {
		mbuf__puts(b, "NaN");
		return;
	}
	if (isinf(v)) {
		mbuf__puts(b, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	if (!mbuf__reserve(b, 32))
		return;
	/* 15 digits: rounding keeps a growing total from going backwards */
	b->len += snprintf(b->p + b->len, 32, "%.15g", v);
}


static bool plain(unsigned char c, bool quote)
{
	return c >= 0x20 && c < 0x7f && c != '\\' && (c != '"' || !quote);
}

/*
 * A label value (quote: '"' escaped too) or HELP text: backslash and
 * newline escaped, bytes that are not UTF-8 and control characters other
 * than tab become U+FFFD (Prometheus rejects a scrape with invalid UTF-8;
 * cgroup names and comms are any bytes).
 */
static void mbuf__escaped(struct mbuf *b, const char *str, bool quote)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		const unsigned char *run = s;
		int n;

		while (plain(*s, quote))
			s++;
		mbuf__put(b, run, s - run);
		if (!*s)
			break;
		if (*s == '\\' || *s == '"' || *s == '\n') {
			mbuf__put(b, *s == '\\' ? "\\\\" : *s == '"' ? "\\\"" : "\\n", 2);
			s++;
			continue;
		}
		n = utf8_len(s);
		if (!n || (*s < 0x20 && *s != '\t')) {
			mbuf__puts(b, "\xef\xbf\xbd");
			s++;
			continue;
		}
		mbuf__put(b, s, n);
		s += n;
	}
}

/* ---- names ---- */

void metrics__event_name(const char *event, char *out, size_t len)
{
	size_t i;

	if (!len)
		return;
	for (i = 0; event && event[i] && i + 1 < len; i++) {
		char c = event[i];

		if (c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		out[i] = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? c : '_';
	}
	out[i] = '\0';
}

static bool fam__taken(const struct render *r, int n, const char *fam)
{
	if (!strcmp(fam, "energy_joules"))
		return true;
	for (int k = 0; k < n; k++)
		if (!strcmp(r->ev[k].fam, fam))
			return true;
	return false;
}

/* The snapshot's events: names, units, the sort event. Two events with
 * one name ("cycles:u", "cycles-u") get the second's index appended. */
static void events__setup(struct render *r)
{
	const struct snapshot *s = r->s;

	r->nev = s->nr_events;
	r->key = -1;
	for (int k = 0; k < r->nev; k++) {
		struct mev *e = &r->ev[k];
		char base[SNAP_EVENT_NAME_LEN];
		size_t n;

		e->i = k;
		e->name = r->meta->ev_name[s->ev[k]];
		e->is_time = r->meta->ev_is_time[s->ev[k]];
		metrics__event_name(e->name, base, sizeof(base));
		snprintf(e->fam, sizeof(e->fam), "%s%s", base[0] ? base : "event",
			 e->is_time ? "_seconds" : "");
		if (fam__taken(r, k, e->fam)) {
			n = strlen(e->fam);
			snprintf(e->fam + n, sizeof(e->fam) - n, "_%d", k);
		}
		if (e->is_time && r->key < 0)
			r->key = k;
	}
	if (r->key < 0 && r->nev)
		r->key = 0;
}

/* ---- scratch ---- */

static struct mrow *rows__get(struct render *r, enum mscope_id id, size_t n)
{
	struct metrics *m = r->m;

	if (array__grow(&m->rows[id], &m->rows_cap[id], n, sizeof(struct mrow)))
		return NULL;
	r->sc[id].rows = m->rows[id];
	r->sc[id].nr = 0;
	return m->rows[id];
}

static struct mrow *row__add(struct render *r, enum mscope_id id)
{
	struct mrow *w = &r->sc[id].rows[r->sc[id].nr++];

	memset(w, 0, sizeof(*w));
	w->c = &w->sum;
	return w;
}

static double row__key(const struct render *r, const struct counts *c)
{
	double v = 0;

	if (r->key >= 0 && !count__scaled(&c->c[r->key], &v, NULL))
		v = 0;
	return v;
}

/* ---- system and packages ---- */

static int system__build(struct render *r)
{
	const struct snapshot *s = r->s;
	struct mrow *w;

	if (!rows__get(r, MS_SYSTEM, 1))
		return -ENOMEM;
	w = row__add(r, MS_SYSTEM);
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		counts__add(&w->sum, &s->cpu[cpu], r->nev);
		if (s->cpu_energy)
			w->energy_j += s->cpu_energy[cpu];
	}
	return 0;
}

static int packages__build(struct render *r)
{
	const struct snapshot *s = r->s;
	const struct snap_meta *meta = r->meta;
	struct mrow *rows, *w;

	rows = rows__get(r, MS_PACKAGE, s->npkg);
	if (!rows)
		return -ENOMEM;
	for (int p = 0; p < s->npkg; p++) {
		w = row__add(r, MS_PACKAGE);
		w->pkg = p;
		snprintf(w->num, sizeof(w->num), "%d", meta->pkg_id ? meta->pkg_id[p] : p);
		w->l[0] = w->num;
		if (s->pkg_energy)
			w->energy_j = s->pkg_energy[p];
	}
	for (int cpu = 0; meta->cpu_pkg && cpu < s->ncpus; cpu++) {
		int p = meta->cpu_pkg[cpu];

		if (p >= 0 && p < s->npkg)
			counts__add(&rows[p].sum, &s->cpu[cpu], r->nev);
	}
	return 0;
}

/* ---- cgroups, the fold state, containers ---- */

static __u64 hex64(const char *s)
{
	__u64 v = 0;

	for (int i = 0; i < 16 && s[i]; i++)
		v = v << 4 | (s[i] <= '9' ? s[i] - '0' : s[i] - 'a' + 10);
	return v;
}

/*
 * The container of id (64 hex digits): keyed by all of them folded into
 * 128 bits, the next key on the rare id that folds like another.
 */
static struct cont *cont__get(struct metrics *m, const struct container_info *ci)
{
	__u64 a = hex64(ci->id) ^ hex64(ci->id + 32);
	__u64 b = hex64(ci->id + 16) ^ hex64(ci->id + 48);
	struct cont *c;

	while ((c = idmap__get(&m->conts, a, b)) &&
	       memcmp(c->id, ci->id, sizeof(c->id)))
		b++;
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c || idmap__put(&m->conts, a, b, c)) {
			free(c);
			return NULL;
		}
		memcpy(c->id, ci->id, sizeof(c->id));
		memcpy(c->pod_uid, ci->pod_uid, sizeof(c->pod_uid));
		c->runtime = ci->runtime;
	}
	if (c->epoch != m->epoch) {
		memset(&c->live, 0, sizeof(c->live));
		c->live_j = 0;
		c->path = NULL;
		c->epoch = m->epoch;
	}
	return c;
}

static struct track *track__get(struct metrics *m, __u64 id, bool create)
{
	struct track *t = idmap__get(&m->track, id, 0);

	if (t || !create)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t || idmap__put(&m->track, id, 0, t)) {
		free(t);
		return NULL;
	}
	return t;
}

static void track__see(struct metrics *m, struct track *t,
		       const struct snap_entry *e)
{
	t->last = e->c;
	t->energy_j = e->energy_j;
	t->epoch = m->epoch;
}

static const char *entry__name(const struct snap_entry *e)
{
	return e->name ? e->name : "";
}

static bool path__shorter(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	return la < lb || (la == lb && strcmp(a, b) < 0);
}

/* One cgroup of the snapshot: its container, and its track if it has one. */
static int cgroup__note(struct render *r, size_t k)
{
	const struct snap_entry *e = r->m->ents[k];
	const char *name = entry__name(e);
	struct container_info ci;
	struct cont *c = NULL;
	struct track *t;

	if (!container__parse(name, &ci)) {
		c = cont__get(r->m, &ci);
		if (!c)
			return -ENOMEM;
		counts__add(&c->live, &e->c, r->nev);
		c->live_j += e->energy_j;
		if (!c->path || path__shorter(name, c->path))
			c->path = name;
	}
	t = track__get(r->m, e->id, c != NULL);
	if (c && !t)
		return -ENOMEM;
	r->m->efold[k] = t && t->folded;
	if (!t)
		return 0;
	t->cont = c;
	track__see(r->m, t, e);
	if (t->folded) {
		counts__add(&r->other_live, &e->c, r->nev);
		r->other_live_j += e->energy_j;
		r->m->folded++;
	}
	return 0;
}

/* Tracked cgroups that left: their totals stay in "other" or their
 * container. Then containers with no cgroup left go. */
static int track__sweep(struct metrics *m, int nev)
{
	struct idmap_slot *sl;
	size_t it = 0, n = 0;

	if (array__grow(&m->gone, &m->gone_cap, m->track.nr + m->conts.nr,
			sizeof(*m->gone)))
		return -ENOMEM;
	while ((sl = idmap__next(&m->track, &it)))
		if (((struct track *)sl->val)->epoch != m->epoch)
			m->gone[n++] = sl->key;
	for (size_t i = 0; i < n; i++) {
		struct track *t = idmap__del(&m->track, m->gone[i].a, 0);

		if (t->folded) {
			counts__add(&m->other_acc, &t->last, nev);
			m->other_acc_j += t->energy_j;
		}
		if (t->cont) {
			counts__add(&t->cont->acc, &t->last, nev);
			t->cont->acc_j += t->energy_j;
		}
		free(t);
	}
	n = 0;
	it = 0;
	while ((sl = idmap__next(&m->conts, &it)))
		if (((struct cont *)sl->val)->epoch != m->epoch)
			m->gone[n++] = sl->key;
	for (size_t i = 0; i < n; i++)
		free(idmap__del(&m->conts, m->gone[i].a, m->gone[i].b));
	return 0;
}

static int ent__cmp(const void *a, const void *b)
{
	const struct snap_entry *x = *(const struct snap_entry *const *)a;
	const struct snap_entry *y = *(const struct snap_entry *const *)b;
	int d = strcmp(entry__name(x), entry__name(y));

	if (d)
		return d;
	return x->id < y->id ? -1 : x->id > y->id;
}

static void cgroup__row(struct render *r, size_t first, size_t n)
{
	struct metrics *m = r->m;
	struct mrow *w = NULL;

	for (size_t k = first; k < first + n; k++) {
		if (m->efold[k])
			continue;
		if (!w) {
			w = row__add(r, MS_CGROUP);
			w->first = first;
			w->n = n;
			w->l[0] = entry__name(m->ents[k]);
		}
		counts__add(&w->sum, &m->ents[k]->c, r->nev);
		w->energy_j += m->ents[k]->energy_j;
	}
	if (w)
		w->key = row__key(r, w->c);
}

/* Rows per path (two cgroups of one path, one removed and one made
 * again, add up), without the folded ones, and "other" last. */
static int cgroups__build(struct render *r)
{
	const struct snapshot *s = r->s;
	struct metrics *m = r->m;
	size_t i, j, nr = s->nr_cgrp;
	int err;

	if (array__grow(&m->ents, &m->ents_cap, nr, sizeof(*m->ents)) ||
	    array__grow(&m->efold, &m->efold_cap, nr, sizeof(*m->efold)) ||
	    !rows__get(r, MS_CGROUP, nr + 1))
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		m->ents[i] = &s->cgrp[i];
	qsort(m->ents, nr, sizeof(*m->ents), ent__cmp);
	m->folded = 0;
	for (i = 0; i < nr; i++) {
		err = cgroup__note(r, i);
		if (err)
			return err;
	}
	err = track__sweep(m, r->nev);
	if (err)
		return err;
	for (i = 0; i < nr; i = j) {
		const char *name = entry__name(m->ents[i]);

		for (j = i + 1; j < nr && !strcmp(entry__name(m->ents[j]), name); j++)
			;
		cgroup__row(r, i, j - i);
	}
	return 0;
}

static void other__update(struct render *r)
{
	struct metrics *m = r->m;
	struct mrow *w = r->other;

	if (!w) {
		w = row__add(r, MS_CGROUP);
		w->l[0] = "other";
		r->other = w;
	}
	w->sum = m->other_acc;
	counts__add(&w->sum, &r->other_live, r->nev);
	w->energy_j = m->other_acc_j + r->other_live_j;
}

static int cont__cmp(const void *a, const void *b)
{
	return strcmp((*(struct cont *const *)a)->id, (*(struct cont *const *)b)->id);
}

static int containers__build(struct render *r)
{
	struct metrics *m = r->m;
	struct idmap_slot *sl;
	size_t it = 0, n = 0;

	if (array__grow(&m->contv, &m->contv_cap, m->conts.nr, sizeof(*m->contv)) ||
	    !rows__get(r, MS_CONTAINER, m->conts.nr))
		return -ENOMEM;
	while ((sl = idmap__next(&m->conts, &it)))
		m->contv[n++] = sl->val;
	qsort(m->contv, n, sizeof(*m->contv), cont__cmp);
	for (size_t i = 0; i < n; i++) {
		struct cont *c = m->contv[i];
		struct mrow *w = row__add(r, MS_CONTAINER);

		w->sum = c->acc;
		counts__add(&w->sum, &c->live, r->nev);
		w->energy_j = c->acc_j + c->live_j;
		w->l[0] = c->id;
		w->l[1] = c->runtime;
		w->l[2] = c->pod_uid;
		w->l[3] = c->path;
	}
	return 0;
}

/* ---- processes ---- */

static int pk__cmp(const void *a, const void *b)
{
	const struct proc_key *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? 1 : -1;
	return x->e->id < y->e->id ? -1 : x->e->id > y->e->id;
}

/* The top N by the sort event, one per pid (a reused pid's older entry
 * may still be there: the larger one is shown). */
static int procs__build(struct render *r)
{
	const struct snapshot *s = r->s;
	struct metrics *m = r->m;
	size_t top = m->o.top_procs, nr = s->nr_proc;

	if (!rows__get(r, MS_PROCESS, top < nr ? top : nr))
		return -ENOMEM;
	if (!top || !nr)
		return 0;
	if (array__grow(&m->pk, &m->pk_cap, nr, sizeof(*m->pk)))
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++) {
		m->pk[i].e = &s->proc[i];
		m->pk[i].key = row__key(r, &s->proc[i].c);
	}
	qsort(m->pk, nr, sizeof(*m->pk), pk__cmp);
	idmap__reset(&m->seen, NULL, NULL);
	for (size_t i = 0; i < nr && r->sc[MS_PROCESS].nr < top; i++) {
		const struct snap_entry *e = m->pk[i].e;
		struct mrow *w;

		if (idmap__get(&m->seen, e->id, 0))
			continue;
		if (idmap__put(&m->seen, e->id, 0, (void *)e))
			return -ENOMEM;
		w = row__add(r, MS_PROCESS);
		w->c = &e->c;
		w->energy_j = e->energy_j;
		w->key = m->pk[i].key;
		snprintf(w->num, sizeof(w->num), "%llu", (unsigned long long)e->id);
		w->l[0] = w->num;
		w->l[1] = entry__name(e);
	}
	return 0;
}

/* ---- series and folding ---- */

static unsigned int energy__series(const struct render *r, enum mscope_id id,
				   const struct mrow *w)
{
	unsigned int zones, n = 0;

	if (!r->meta->energy_on)
		return 0;
	if (id != MS_PACKAGE || !r->s->pkg_zone || !r->s->pkg_zone_mask)
		return 1;
	zones = r->s->pkg_zone_mask[w->pkg];
	for (int z = 0; z < SNAP_ZONES; z++)
		n += !!(zones & (1u << z));
	return 1 + n;
}

/* --sched: eight counters and a histogram (its buckets, +Inf, sum, count) */
#define SCHED_SERIES (SCHED_NR_FIELDS + EMON_SCHED_SLOTS - 1 + 3)

static void row__count(struct render *r, enum mscope_id id, struct mrow *w)
{
	__u64 v;

	w->mask = 0;
	w->nser = energy__series(r, id, w) +
		  (r->meta->sched_on && id != MS_PACKAGE ? SCHED_SERIES : 0);
	for (int k = 0; k < r->nev; k++) {
		if (count__scaled_u64(&w->c->c[k], &v)) {
			w->mask |= 1u << k;
			w->nser++;
		}
	}
}

/* Series of every row, and the scopes' masks; the self series are
 * counted by the caller. */
static size_t rows__count(struct render *r)
{
	size_t total = 0;

	for (int id = 0; id < MS_NR; id++) {
		struct mscope *sc = &r->sc[id];

		for (size_t i = 0; i < sc->nr; i++) {
			row__count(r, id, &sc->rows[i]);
			total += sc->rows[i].nser;
		}
	}
	return total;
}

static int order__cmp(const void *a, const void *b, void *arg)
{
	const struct mrow *rows = arg;
	const struct mrow *x = &rows[*(const size_t *)a], *y = &rows[*(const size_t *)b];

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	/* equal: the later path first, for a stable choice */
	return *(const size_t *)a < *(const size_t *)b ? 1 : -1;
}

static int row__fold(struct render *r, struct mrow *w)
{
	struct metrics *m = r->m;

	for (size_t k = w->first; k < w->first + w->n; k++) {
		const struct snap_entry *e = m->ents[k];
		struct track *t;

		if (m->efold[k])
			continue;
		t = track__get(m, e->id, true);
		if (!t)
			return -ENOMEM;
		t->folded = true;
		track__see(m, t, e);
		m->efold[k] = true;
		counts__add(&r->other_live, &e->c, r->nev);
		r->other_live_j += e->energy_j;
		m->folded++;
		m->folds++;
	}
	w->folded = true;
	return 0;
}

/* The smallest cgroups into "other" until the series fit. */
static int cgroups__fold(struct render *r)
{
	struct mscope *sc = &r->sc[MS_CGROUP];
	size_t n = sc->nr - (r->other ? 1 : 0), *order;
	struct metrics *m = r->m;
	unsigned int before;
	int err;

	if (array__grow(&m->order, &m->order_cap, n, sizeof(*m->order)))
		return -ENOMEM;
	order = m->order;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), order__cmp, sc->rows);
	for (size_t i = 0; i < n && r->total > m->o.max_series; i++) {
		struct mrow *w = &sc->rows[order[i]];

		err = row__fold(r, w);
		if (err)
			return err;
		r->total -= w->nser;
		before = r->other ? r->other->nser : 0;
		other__update(r);
		row__count(r, MS_CGROUP, r->other);
		r->total += r->other->nser - before;
	}
	return 0;
}

/* ---- families ---- */

static void family__head(struct render *r, const char *name, const char *type,
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
	if (!sc->nl && !zone) {
		mbuf__puts(b, " ");
		return;
	}
	mbuf__puts(b, "{");
	for (int i = 0; i < sc->nl; i++) {
		if (i)
			mbuf__puts(b, ",");
		mbuf__puts(b, sc->lname[i]);
		mbuf__puts(b, "=\"");
		mbuf__escaped(b, w->l[i] ? w->l[i] : "", true);
		mbuf__puts(b, "\"");
	}
	if (zone) {
		mbuf__puts(b, sc->nl ? ",zone=\"" : "zone=\"");
		mbuf__puts(b, zone);
		mbuf__puts(b, "\"");
	}
	mbuf__puts(b, "} ");
}

/* "per cgroup, ...": after an event's name or "Energy attributed" */
static const char *scope__what(const struct render *r, enum mscope_id id,
			       char *buf, size_t len)
{
	switch (id) {
	case MS_SYSTEM:
		return "on the whole system (the sum of every CPU)";
	case MS_PACKAGE:
		return "per package (the sum of its CPUs)";
	case MS_CGROUP:
		return "per cgroup, its own tasks only (cgroup=\"other\": the "
		       "smallest cgroups, folded to bound the series)";
	case MS_CONTAINER:
		return "per container (the sum of its cgroups)";
	default:
		snprintf(buf, len, "per process, for the %d with the most %s",
			 r->m->o.top_procs, r->key >= 0 ? r->ev[r->key].name : "");
		return buf;
	}
}

static void family__name(char *name, size_t len, enum mscope_id id,
			 const struct render *r, const char *fam)
{
	snprintf(name, len, "emon_%s_%s", r->sc[id].name, fam);
}

static void event__emit(struct render *r, enum mscope_id id, int k)
{
	const struct mscope *sc = &r->sc[id];
	const struct mev *ev = &r->ev[k];
	char name[160], help[256], what[128];
	__u64 v;

	family__name(name, sizeof(name), id, r, ev->fam);
	snprintf(help, sizeof(help), "%s%s %s", ev->name,
		 ev->is_time ? " in seconds" : "",
		 scope__what(r, id, what, sizeof(what)));
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
	char name[160], help[320], what[128];

	family__name(name, sizeof(name), id, r, "energy_joules");
	if (id == MS_PACKAGE)
		snprintf(help, sizeof(help), "Energy in joules measured per "
			 "package and zone; source: %s%s", meta->energy_source,
			 meta->energy_estimated ? ", estimated" : "");
	else
		snprintf(help, sizeof(help), "Energy in joules attributed %s; "
			 "source: %s%s, split by %s", scope__what(r, id, what, sizeof(what)),
			 meta->energy_source,
			 meta->energy_estimated ? ", estimated" : "", meta->split_by);
	family__head(r, name, "counter", "joules", help);
	for (size_t i = 0; i < sc->nr; i++) {
		const struct mrow *w = &sc->rows[i];

		if (w->folded)
			continue;
		energy__sample(r, name, sc, w, "package", w->energy_j);
		if (id == MS_PACKAGE)
			package__zones(r, name, sc, w);
	}
}

/* The scheduler view's counters, named as its fields (cli/output_sched.h). */
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
	char name[160], help[320], what[128];

	family__name(name, sizeof(name), id, r, sched_fam[f].fam);
	snprintf(help, sizeof(help), "%s %s (--sched)", sched_fam[f].help,
		 scope__what(r, id, what, sizeof(what)));
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
		if (sc->nl) {
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
	char name[160], help[320], what[128], le[32];

	family__name(name, sizeof(name), id, r, "runqueue_latency_seconds");
	snprintf(help, sizeof(help), "Run-queue latency (wakeup or preemption to "
		 "switch-in), log2 buckets as runqlat's, %s (--sched)",
		 scope__what(r, id, what, sizeof(what)));
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

static void scope__emit(struct render *r, enum mscope_id id)
{
	struct mscope *sc = &r->sc[id];
	bool any = false;

	sc->mask = 0;
	for (size_t i = 0; i < sc->nr; i++) {
		if (sc->rows[i].folded)
			continue;
		sc->mask |= sc->rows[i].mask;
		any = true;
	}
	for (int k = 0; k < r->nev; k++)
		if (sc->mask & (1u << k))
			event__emit(r, id, k);
	if (any && r->meta->energy_on)
		energy__emit(r, id);
	if (any && r->meta->sched_on && id != MS_PACKAGE) {
		for (int f = 0; f < SCHED_NR_FIELDS; f++)
			sched__counter(r, id, f);
		sched__histogram(r, id);
	}
}

/* ---- the daemon's own figures ---- */

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

/* emon_overflow_total x2 and 9 single series (self__emit) */
static size_t self__series(const struct render *r)
{
	return 11 + r->has_cpu + r->has_rss + 2 * r->has_threads;
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

static void self__emit(struct render *r, const struct metrics_self *self)
{
	const struct metrics_self none = {};
	struct metrics *m = r->m;

	if (!self)
		self = &none;
	scalar__emit(r, "emon_scrape_duration_seconds", "gauge", "seconds",
		     "Time the previous scrape took, in seconds", NULL,
		     self->scrape_duration_s);
	scalar__emit(r, "emon_flushes", "counter", NULL,
		     "Flushes of every CPU so far", NULL, self->flushes);
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

/* ---- render ---- */

static int render__check(const struct snap_meta *meta, const struct snapshot *s)
{
	if (s->nr_events < 0 || s->nr_events > EMON_MAX_EVENTS ||
	    meta->nr_events > EMON_MAX_EVENTS || s->ncpus < 0 || s->npkg < 0 ||
	    s->ncpus > meta->ncpus || s->npkg > meta->npkg)
		return -EINVAL;
	for (int k = 0; k < s->nr_events; k++)
		if (s->ev[k] < 0 || s->ev[k] >= meta->nr_events)
			return -EINVAL;
	if ((s->ncpus && !s->cpu) || (s->nr_cgrp && !s->cgrp) ||
	    (s->nr_proc && !s->proc))
		return -EINVAL;
	return 0;
}

static void render__init(struct render *r, struct metrics *m,
			 const struct snap_meta *meta, const struct snapshot *s,
			 bool om)
{
	static const struct {
		const char *name;
		const char *const *lname;
		int nl;
	} scopes[MS_NR] = {
		[MS_SYSTEM] = { "system", NULL, 0 },
		[MS_PACKAGE] = { "package", lbl_package, 1 },
		[MS_CGROUP] = { "cgroup", lbl_cgroup, 1 },
		[MS_CONTAINER] = { "container", lbl_container, 4 },
		[MS_PROCESS] = { "process", lbl_process, 2 },
	};

	memset(r, 0, sizeof(*r));
	r->m = m;
	r->meta = meta;
	r->s = s;
	r->om = om;
	for (int id = 0; id < MS_NR; id++) {
		r->sc[id].name = scopes[id].name;
		r->sc[id].lname = scopes[id].lname;
		r->sc[id].nl = scopes[id].nl;
	}
	events__setup(r);
	self__read(r);
}

static int render__rows(struct render *r)
{
	int err;

	r->m->epoch++;
	err = system__build(r);
	if (!err)
		err = packages__build(r);
	if (!err)
		err = cgroups__build(r);
	if (!err && r->m->folds)
		other__update(r);
	if (!err)
		err = containers__build(r);
	if (!err)
		err = procs__build(r);
	if (err)
		return err;
	r->total = rows__count(r) + self__series(r);
	if (r->total > r->m->o.max_series)
		err = cgroups__fold(r);
	return err;
}

static void render__emit(struct render *r, const struct metrics_self *self)
{
	for (int id = 0; id < MS_NR; id++)
		scope__emit(r, id);
	self__emit(r, self);
	if (r->om)
		mbuf__puts(&r->b, "# EOF\n");
}

int metrics__render(struct metrics *m, const struct snap_meta *meta,
		    const struct snapshot *s, const struct metrics_self *self,
		    bool openmetrics, char **out, size_t *len)
{
	struct render *r;
	int err;

	if (!m || !meta || !s || !out || !len)
		return -EINVAL;
	err = render__check(meta, s);
	if (err)
		return err;
	r = malloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	render__init(r, m, meta, s, openmetrics);
	r->has_threads = self && self->thread_slots;
	err = render__rows(r);
	if (err)
		goto out;
	mbuf__reserve(&r->b, m->last_len + m->last_len / 8 + 4096);
	render__emit(r, self);
	err = r->b.err;
	if (err)
		goto out;
	r->b.p[r->b.len] = '\0';
	m->series = r->total;
	m->last_len = r->b.len;
	*out = r->b.p;
	*len = r->b.len;
	r->b.p = NULL;
out:
	free(r->b.p);
	free(r);
	return err;
}

/* ---- lifetime ---- */

int metrics__new(struct metrics **mp, const struct metrics_opts *o)
{
	struct metrics *m;

	if (!mp || (o && o->top_procs < 0))
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	if (o)
		m->o = *o;
	if (!m->o.max_series)
		m->o.max_series = METRICS_MAX_SERIES_DEFAULT;
	*mp = m;
	return 0;
}

void metrics__free(struct metrics *m)
{
	if (!m)
		return;
	idmap__clear(&m->track, free);
	idmap__clear(&m->conts, free);
	idmap__clear(&m->seen, NULL);
	for (int id = 0; id < MS_NR; id++)
		free(m->rows[id]);
	free(m->ents);
	free(m->efold);
	free(m->order);
	free(m->gone);
	free(m->contv);
	free(m->pk);
	free(m);
}

size_t metrics__series(const struct metrics *m)
{
	return m ? m->series : 0;
}

size_t metrics__folded(const struct metrics *m)
{
	return m ? m->folded : 0;
}
