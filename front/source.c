// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Choosing a front end's source: the daemon when it can serve, else its own. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "common/log.h"
#include "front/source.h"
#include "common/version.h"
#include "pmu/event.h"

/*
 * The counted event of the source called name: the same name, else for
 * task-clock a daemon's cpu-clock or the other way round. Both come from
 * the switch timestamps, one count (perf: cpu-clock is a CPU's, task-clock
 * a task's; stat's default is the one perf picks for its target). -1.
 */
static int meta_event(const struct source *s, const char *name)
{
	const char *alias = !strcmp(name, "task-clock") ? "cpu-clock" :
			    !strcmp(name, "cpu-clock") ? "task-clock" : NULL;

	for (int i = 0; i < s->meta.nr_events; i++)
		if (!strcmp(s->meta.ev_name[i], name))
			return i;
	for (int i = 0; alias && i < s->meta.nr_events; i++)
		if (!strcmp(s->meta.ev_name[i], alias))
			return i;
	return -1;
}

int source__event_pos(const struct source *s, const char *name)
{
	int pos = 0, k = meta_event(s, name);

	if (k >= 0) {
		if (!(s->req.events & (1u << k)))
			return -2;
		for (int i = 0; i < k; i++)
			pos += !!(s->req.events & (1u << i));
		return pos;
	}
	for (int i = 0; i < s->meta.nr_unsup; i++)
		if (!strcmp(s->meta.unsup_name[i], name))
			return -1;
	return -2;
}

/* The counted events the list asks for (bits), or 0 with *missing set to
 * the first one the source does not know. */
static __u32 events_mask(const struct source *s, const struct pmu_event_list *l,
			 const char **missing)
{
	__u32 mask = 0;

	for (int i = 0; i < l->nr; i++) {
		int k = meta_event(s, l->ev[i].name);
		bool found = k >= 0;

		if (found)
			mask |= 1u << k;
		for (k = 0; k < s->meta.nr_unsup && !found; k++)
			found = !strcmp(s->meta.unsup_name[k], l->ev[i].name);
		if (!found) {
			*missing = l->ev[i].name;
			return 0;
		}
	}
	/* only unsupported ones: ask for one count all the same */
	return mask ?: 1;
}

static bool is_socket(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISSOCK(st.st_mode);
}

/* A {group} asks for events the kernel schedules together: the
 * daemon's are opened one by one, so a group needs own events. */
static bool event_list__has_group(const struct pmu_event_list *l)
{
	for (int i = 0; i < l->nr; i++)
		if (l->ev[i].group_nr > 1)
			return true;
	return false;
}

/*
 * The daemon, if it can serve this front end: 1, 0 (use an own engine),
 * or -errno, logged (an explicit --socket that cannot serve).
 */
static int try_daemon(struct source **sp, const struct source_opts *o,
		      const struct pmu_event_list *l)
{
	const char *path = o->socket ?: getenv(EMON_SOCKET_ENV) ?: EMON_DEFAULT_SOCKET;
	const char *missing = NULL;
	struct source *s;
	bool grouped;
	char why[512];
	int err;

	if (o->no_daemon)
		return 0;
	if (!o->socket && !is_socket(path))
		return 0;
	err = source_daemon__open(&s, path, o, why, sizeof(why));
	if (err) {
		if (o->socket) {
			pr_err("%s", why);
			return err;
		}
		pr_debug("%s: counting with own events", why);
		return 0;
	}
	s->req.events = events_mask(s, l, &missing);
	s->req.scopes = o->scopes;
	s->req.tree = -1;
	/* its counts are scaled per slice or raw for good, in its BPF */
	if (s->meta.no_scale != o->eng.no_scale && o->socket) {
		pr_err("the daemon (pid %u, %s) counts %s: %s", s->meta.pid, path,
		       s->meta.no_scale ? "raw (serve --no-scale)" : "scaled by multiplexing",
		       o->eng.no_scale ? "--no-scale needs a daemon started with it, or --no-daemon" :
		       "without --no-scale, counting needs a daemon that scales, or --no-daemon");
		s->ops->close(s);
		return -EINVAL;
	}
	s->req.flags = o->tree ? EMON_SNAP_REQ_OWN : 0;
	if (o->threads && !s->meta.threads_on && o->socket) {
		pr_err("the daemon (pid %u, %s) counts no threads (serve --max-tids): -t and --per-thread need one that does, or --no-daemon",
		       s->meta.pid, path);
		s->ops->close(s);
		return -EINVAL;
	}
	grouped = event_list__has_group(l);
	if (missing || grouped || o->own_options ||
	    (o->tree && s->meta.max_trees < 1) ||
	    (o->threads && !s->meta.threads_on) ||
	    s->meta.no_scale != o->eng.no_scale ||
	    (o->eng.gpu && strcmp(o->eng.gpu, "off") && !s->meta.gpu_on) ||
	    (o->eng.sched && (!s->meta.sched_on ||
			      (!o->no_hist && s->meta.sched_ms != o->eng.sched_ms)))) {
		pr_warn("the daemon (pid %u, %s) %s: counting with own events",
			s->meta.pid, path,
			missing ? "does not count an event asked for" :
			grouped ? "does not count event groups" :
			o->own_options ? "does not take the energy options given" :
			s->meta.no_scale != o->eng.no_scale ?
			(o->eng.no_scale ? "scales multiplexed counts (no --no-scale)" :
			 "counts raw (--no-scale)") :
			o->eng.gpu && strcmp(o->eng.gpu, "off") && !s->meta.gpu_on ?
			"runs without --gpu" :
			o->eng.sched && !s->meta.sched_on ? "runs without --sched" :
			o->threads && !s->meta.threads_on ? "counts no threads (serve --max-tids)" :
			o->eng.sched ? "has its run-queue histogram in other units (--sched-ms)" :
			"follows no command trees");
		if (missing)
			pr_debug("the daemon does not count '%s'", missing);
		s->ops->close(s);
		return 0;
	}
	pr_info("attached to the daemon (pid %u, socket %s): no events or BPF programs of our own",
		s->meta.pid, path);
	*sp = s;
	return 1;
}

int source__open(struct source **sp, const struct source_opts *o)
{
	struct pmu_event_list l = { 0 };
	char err[512];
	int ret;

	*sp = NULL;
	ret = pmu_event_list__parse(&l, o->eng.events, err, sizeof(err));
	if (ret) {
		pr_err("%s", err);
		return ret;
	}
	ret = try_daemon(sp, o, &l);
	if (ret)
		return ret < 0 ? ret : 0;
	ret = source_local__open(sp, o);
	if (ret)
		return ret;
	(*sp)->req.events = 0;	/* every event, in their order */
	for (int i = 0; i < (*sp)->meta.nr_events; i++)
		(*sp)->req.events |= 1u << i;
	(*sp)->req.scopes = o->scopes;
	(*sp)->req.tree = -1;
	return 0;
}

void source__close(struct source *s)
{
	if (s)
		s->ops->close(s);
}
