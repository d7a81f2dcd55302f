// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * perf stat's options that change what is printed or what runs around
 * the count, not what is counted: -e's list as perf takes it (an event
 * given twice, the :W group modifier, --all-user and --all-kernel), -G's
 * cgroups paired with the events, -B and --log-fd's checks, --pre and
 * --post.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "common/log.h"
#include "engine/names/cgroup.h"
#include "cli/stat/stat.h"

/* The modifiers perf puts after a colon that the list may carry here */
#define MODS "ukhW"

/* The end of the element at p: its comma outside {} and PMU/terms/ */
static const char *elem__end(const char *p)
{
	bool slash = false;
	int depth = 0;

	for (; *p; p++) {
		if (*p == '/')
			slash = !slash;
		else if (*p == '{')
			depth++;
		else if (*p == '}')
			depth--;
		else if (*p == ',' && !slash && depth <= 0)
			break;
	}
	return p;
}

/* Events in a group's text "{a,b}:mods": its commas outside terms, + 1 */
static int group__count(const char *p, size_t len)
{
	bool slash = false;
	int n = 1;

	for (size_t i = 0; i < len; i++) {
		if (p[i] == '/')
			slash = !slash;
		else if (p[i] == ',' && !slash)
			n++;
	}
	return n;
}

/* Where name's modifiers start (its ':' or a PMU's last '/'), NULL: none */
static char *elem__mods(char *name, bool group)
{
	char *c = strrchr(name, group ? '}' : ':');
	char *slash = strrchr(name, '/');

	if (group)
		return c && c[1] == ':' ? c + 1 : NULL;
	if (slash && (!c || c < slash))
		return slash[1] ? slash : NULL;
	if (c && c[1] && strspn(c + 1, MODS) == strlen(c + 1))
		return c;
	return NULL;
}

/* perf's :W (a weak group: split when it cannot be scheduled whole) asks
 * nothing here, where a group is counted whole or multiplexed whole:
 * taken off, true when it was there */
static bool mods__drop_weak(char *mods)
{
	char *w = strchr(mods, 'W');

	if (!w || *mods == '/')
		return false;
	memmove(w, w + 1, strlen(w));
	if (!strcmp(mods, ":"))
		*mods = '\0';
	return true;
}

/* --all-user, --all-kernel: perf sets them on every event; here as the
 * modifier of those that have none (one with its own keeps it) */
static bool elem__add_mod(char *name, size_t size, bool group, char mod)
{
	char *m = elem__mods(name, group);
	size_t len = strlen(name);

	if (!mod || (m && strpbrk(m, "ukh")) || len + 3 > size)
		return false;
	if (m)			/* ":W" was dropped, or "/" without any */
		snprintf(name + len, size - len, "%c", mod);
	else if (!group && name[len - 1] == '/')
		snprintf(name + len, size - len, "%c", mod);
	else
		snprintf(name + len, size - len, ":%c", mod);
	return true;
}

static int stat_compat__add(struct front_opts *o, char *dst, size_t *n,
			    const char *elem, size_t len, int *nr)
{
	char name[PMU_EVENT_NAME_LEN * 2];
	bool group = *elem == '{', weak, added;
	int k = group ? group__count(elem, len) : 1;

	memcpy(name, elem, len);
	name[len] = '\0';
	weak = elem__mods(name, group) && mods__drop_weak(elem__mods(name, group));
	added = elem__add_mod(name, sizeof(name), group, o->all_mod);
	/* as given; a group's members print their own names, as perf's */
	if (!group && (weak || added))
		snprintf(o->shown[*nr], sizeof(o->shown[*nr]), "%.*s", (int)len, elem);
	for (int i = 0; group && added && i < k; i++)
		o->strip_mod |= 1u << (*nr + i);
	*n += snprintf(dst + *n, sizeof(o->events) - *n, "%s%s", *n ? "," : "", name);
	*nr += k;
	if (*n >= sizeof(o->events)) {
		pr_err("event list too long: '%s'", o->events);
		return -EINVAL;
	}
	return 0;
}

/*
 * The list of -e (and -M's, -d's events) as perf takes it: an event
 * given again (outside a group) is counted once and printed twice, :W
 * taken off, --all-user's :u or --all-kernel's :k added. 0 or -EINVAL
 * (said).
 */
int stat_compat__events(struct front_opts *o)
{
	struct { const char *p; size_t len; int first; bool dup; } el[EMON_MAX_EVENTS * 2];
	char out[sizeof(o->events)];
	int nr_el = 0, nr = 0, at = 0;
	size_t n = 0;

	/* past what can be counted, or a name too long: as given, for the
	 * event parser to say what is wrong */
	for (const char *p = o->events; *p; nr_el++) {
		const char *e = elem__end(p);
		size_t len = e - p;

		nr += *p == '{' ? group__count(p, len) : 1;
		if (nr_el >= EMON_MAX_EVENTS * 2 || nr > EMON_MAX_EVENTS * 2 ||
		    len >= PMU_EVENT_NAME_LEN)
			return 0;
		p = *e ? e + 1 : e;
	}
	nr_el = nr = 0;
	for (const char *p = o->events; *p;) {
		const char *e = elem__end(p);
		int prev = -1;

		for (int i = 0; *p != '{' && i < nr_el; i++)
			if (!el[i].dup && el[i].len == (size_t)(e - p) &&
			    !memcmp(el[i].p, p, el[i].len))
				prev = i;
		el[nr_el] = (typeof(el[0])){ p, e - p, nr, prev >= 0 };
		if (prev >= 0) {
			if (o->nr_dups == EMON_MAX_EVENTS || at == EMON_MAX_EVENTS) {
				pr_err("too many events: at most %d", EMON_MAX_EVENTS);
				return -EINVAL;
			}
			o->dups[o->nr_dups].at = at++;
			o->dups[o->nr_dups++].of = el[prev].first;
		} else {
			int before = nr;

			if (stat_compat__add(o, out, &n, p, e - p, &nr))
				return -EINVAL;
			at += nr - before;
		}
		nr_el++;
		p = *e ? e + 1 : e;
	}
	if (n)
		memcpy(o->events, out, n + 1);
	return 0;
}

/* The events perf's list holds for list: an element each, a group's
 * members each, one given twice twice */
int stat_compat__nr_events(const char *list)
{
	int n = 0;

	for (const char *p = list; *p;) {
		const char *e = elem__end(p);

		n += *p == '{' ? group__count(p, e - p) : 1;
		p = *e ? e + 1 : e;
	}
	return n;
}

/* cgroup path name's index in o->cgroups, added when new; -1 (said) */
static int cgroups__find_add(struct front_opts *o, const char *name)
{
	char norm[PATH_MAX];
	int i;

	if (cgroup__normalize(name, norm, sizeof(norm))) {
		pr_err("bad cgroup path '%s' for -G", name);
		return -1;
	}
	for (i = 0; i < o->nr_cgroups; i++)
		if (!strcmp(o->cgroups[i], norm))
			return i;
	if (o->nr_cgroups == FRONT_MAX_CGROUPS) {
		pr_err("too many cgroups for -G: at most %d", FRONT_MAX_CGROUPS);
		return -1;
	}
	if (!(o->cgroups[i] = strdup(norm)) || !(o->cg_given[i] = strdup(name))) {
		free(o->cgroups[i]);
		o->cgroups[i] = NULL;
		pr_err("out of memory for -G");
		return -1;
	}
	return o->nr_cgroups++;
}

/*
 * perf -G after -e (its util/cgroup.c parse_cgroups): each name of arg,
 * in order, goes to the next event of those given so far, counted over
 * every -G; an empty name ("-G ,b") leaves its event system-wide; when
 * every -G's names make one in all, it goes to every event given so far.
 * A name past the events is refused by stat_compat__cgroups_check, where
 * the rows are perf's. 0 or -EINVAL (said).
 */
int stat_compat__cgroups(struct front_opts *o, const char *arg)
{
	int nev = stat_compat__nr_events(o->events), err = 0;
	char *dup, *p, *tok;

	if (o->cg_each) {
		pr_err("--cgroup and --for-each-cgroup cannot be used together (a -G before any -e is --for-each-cgroup)");
		return -EINVAL;
	}
	if (!*arg) {		/* perf: a crash */
		pr_err("empty cgroup list for -G");
		return -EINVAL;
	}
	dup = p = strdup(arg);
	if (!dup)
		return -ENOMEM;
	o->cg_paired = true;
	while (!err && (tok = strsep(&p, ",")) != NULL) {
		int n = o->nr_cg_names++, g;

		if (!*tok)
			continue;
		g = cgroups__find_add(o, tok);
		if (g < 0)
			err = -EINVAL;
		else if (n >= nev && !o->cg_excess[0])
			snprintf(o->cg_excess, sizeof(o->cg_excess), "%s", tok);
		else if (n < nev && n < EMON_MAX_EVENTS)
			o->cg_of[n] = g + 1;
	}
	free(dup);
	for (int i = 1; !err && o->nr_cg_names == 1 && i < nev && i < EMON_MAX_EVENTS; i++)
		o->cg_of[i] = o->cg_of[0];
	return err;
}

/*
 * After the events are whole (-d's, -M's after -e's): with perf's rows,
 * a -G name with no event is refused (perf prints its usage, exit 129);
 * emon-perf's own rows (--by, --json-rows) and --metric-only's table have
 * every event in every cgroup of -G. 0 or -EINVAL (said).
 */
int stat_compat__cgroups_check(struct front_opts *o)
{
	int total;

	if (!o->cg_paired)
		return 0;
	if (o->by || o->json || o->metric_only) {
		o->cg_paired = false;
		return 0;
	}
	if (o->cg_excess[0]) {
		pr_err("cgroup '%s' of -G has no event: -G gives each cgroup the next -e event (--for-each-cgroup: every event in each)",
		       o->cg_excess);
		return -EINVAL;
	}
	total = stat_compat__nr_events(o->events) + o->nr_dups;
	for (int i = 0; i < total; i++)
		if (i >= EMON_MAX_EVENTS || !o->cg_of[i])
			o->cg_sys = true;
	return 0;
}

/* What perf refuses among these, with its words; 0 or -EINVAL (said) */
int stat_compat__check(struct front_opts *o)
{
	int fd = o->log_fd - 1;

	if (o->big_num && o->sep) {
		pr_err("-B option not supported with -x");
		return -EINVAL;
	}
	if (o->log_fd && o->output) {
		pr_err("cannot use both --output and --log-fd");
		return -EINVAL;
	}
	if (o->log_fd && fcntl(fd, F_GETFD) < 0) {
		pr_err("Failed opening logfd: %s (--log-fd %d)", strerror(errno), fd);
		return -EINVAL;
	}
	if (o->no_csv_summary && !o->summary)
		o->no_csv_summary = false;	/* perf: it changes --summary's lines */
	return 0;
}

int stat_compat__hook(const char *opt, const char *cmd)
{
	int st;

	if (!cmd)
		return 0;
	fflush(NULL);
	st = system(cmd);
	if (st != -1 && WIFEXITED(st) && !WEXITSTATUS(st))
		return 0;
	if (st == -1)
		pr_err("%s '%s': %s", opt, cmd, strerror(errno));
	else if (WIFEXITED(st))
		pr_err("%s '%s' exited with %d", opt, cmd, WEXITSTATUS(st));
	else
		pr_err("%s '%s' was killed by signal %d", opt, cmd, WTERMSIG(st));
	return -ECANCELED;
}

/* Is name one of the comma list's events? */
static bool events__has(const char *list, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = list; (p = strstr(p, name)); p += len)
		if ((p == list || p[-1] == ',' || p[-1] == '{') &&
		    (!p[len] || p[len] == ',' || p[len] == '}'))
			return true;
	return false;
}

/*
 * perf --metric-only without -M: the shadow metrics of the events, in
 * their order, those perf keeps in that table (not its rates per second
 * nor CPUs utilized): GHz of cycles, insn per cycle, the miss rates.
 */
void stat_compat__shadow_metrics(struct front_opts *o)
{
	static const struct {
		const char *ev, *ev2, *metric;
	} shadow[] = {
		{ "cycles", NULL, "frequency" },
		{ "cpu-cycles", NULL, "frequency" },
		{ "instructions", "cycles", "IPC" },
		{ "instructions", "cpu-cycles", "IPC" },
		{ "branch-misses", "branches", "branch_miss_rate" },
		{ "cache-misses", "cache-references", "cache_miss_rate" },
		{ "L1-dcache-load-misses", "L1-dcache-loads", "L1_miss_rate" },
		{ "LLC-load-misses", "LLC-loads", "LLC_miss_rate" },
	};
	size_t n = 0;

	for (size_t i = 0; i < sizeof(shadow) / sizeof(shadow[0]); i++) {
		if (!events__has(o->events, shadow[i].ev) ||
		    (shadow[i].ev2 && !events__has(o->events, shadow[i].ev2)) ||
		    events__has(o->metric_list, shadow[i].metric))
			continue;
		n += snprintf(o->metric_list + n, sizeof(o->metric_list) - n, "%s%s",
			      n ? "," : "", shadow[i].metric);
	}
}
