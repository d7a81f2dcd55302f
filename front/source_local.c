// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Snapshots from an engine of the front end's own: ticked by the front
 * end's loop, encoded and decoded like the daemon's, so the front end
 * reads both the same way.
 */
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "front/source.h"

struct source_local {
	struct source s;	/* first */
	struct engine *e;
	int tree;
};

static struct source_local *local(struct source *s)
{
	return (struct source_local *)s;
}

static int local__snapshot(struct source *s, struct snapshot *out)
{
	struct source_local *l = local(s);
	size_t len;
	void *buf;
	int err;

	err = engine__tick(l->e);
	if (err)
		return err;
	s->req.tree = l->tree;
	err = engine__encode(l->e, &s->req, &buf, &len);
	if (err)
		return err;
	err = snapshot__decode(out, &s->meta, buf, len);
	free(buf);
	return err;
}

static int local__track(struct source *s, pid_t pid)
{
	struct source_local *l = local(s);
	int t = engine__tree_new(l->e, pid);

	if (t < 0)
		return t;
	l->tree = t;
	return 0;
}

static int local__follow(struct source *s, const pid_t *pids, int n)
{
	struct source_local *l = local(s);
	int t = n > 0 ? engine__tree_new(l->e, pids[0]) : -EINVAL, err = 0;

	if (t < 0)
		return t;
	for (int i = 1; i < n && !err; i++)
		err = engine__tree_join(l->e, t, pids[i]);
	if (err) {
		engine__tree_free(l->e, t);
		return err;
	}
	l->tree = t;
	return 0;
}

static double local__next_tick(struct source *s)
{
	return engine__next_tick(local(s)->e);
}

static int local__tick(struct source *s)
{
	return engine__tick(local(s)->e);
}

static int local__fd(struct source *s)
{
	(void)s;
	return -1;
}

static void local__close(struct source *s)
{
	struct source_local *l = local(s);

	engine__close(l->e);
	free(l);
}

static const struct source_ops local_ops = {
	.name = "own",
	.snapshot = local__snapshot,
	.track = local__track,
	.follow = local__follow,
	.next_tick = local__next_tick,
	.tick = local__tick,
	.fd = local__fd,
	.close = local__close,
};

int source_local__open(struct source **sp, const struct source_opts *o)
{
	struct source_local *l = calloc(1, sizeof(*l));
	struct engine_opts eo = o->eng;
	int ret;

	if (!l)
		return -ENOMEM;
	eo.max_trees = o->tree || o->follow ? 1 : 0;
	eo.retain_s = -1;	/* one front end: keys go once it has their totals */
	eo.name_cgroups = o->scopes & EMON_SNAP_CGROUPS;
	ret = engine__open(&l->e, &eo);
	if (ret) {
		free(l);
		return ret;
	}
	l->s.ops = &local_ops;
	l->s.meta = *engine__meta(l->e);	/* arrays stay the engine's */
	l->tree = -1;
	snprintf(l->s.energy_note, sizeof(l->s.energy_note), "%s",
		 engine__energy_note(l->e));
	*sp = &l->s;
	return 0;
}
