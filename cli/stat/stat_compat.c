// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * perf stat's options that change what is printed or what runs around
 * the count, not what is counted: -e's list as perf takes it (an event
 * given twice, the :W group modifier, --all-user and --all-kernel), -B
 * and --log-fd's checks, --pre and --post.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "common/log.h"
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
