// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Containers' names, read once and kept while the engine has a cgroup of
 * theirs (engine/names/container_cache.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "emon_proto.h"
#include "common/log.h"
#include "engine/aggregate.h"
#include "engine/names/container_cache.h"

/*
 * A runtime makes a container's cgroup, then (docker) writes its
 * config.v2.json: a read that found no file, or one being written, is
 * tried again 1, 2, 4 ... 32 s later, a minute in all.
 */
#define CONT_TRIES 7
/* A front end's own engine lets idle keys go at each snapshot: names are
 * kept a while longer, not read again each time their container runs. */
#define CONT_KEEP_S 60.0

/* The key: the id's first 32 hex digits (the entry keeps all 64). */
static void id__key(const char *id, __u64 *a, __u64 *b)
{
	char half[17];

	memcpy(half, id, 16);
	half[16] = '\0';
	*a = strtoull(half, NULL, 16);
	memcpy(half, id + 16, 16);
	*b = strtoull(half, NULL, 16);
}

static void cont_names__read(struct cont_names *n,
			     const struct container_roots *roots, double now)
{
	char why[512];
	bool first;
	int err;

	if (n->guessed) {
		const char *found;

		/* a bare id below a pod: whose files hold it says whose it is */
		err = container_meta__read_any(&n->meta, roots,
					       container_bare_runtimes, n->id,
					       &found, why, sizeof(why));
		if (found) {
			n->runtime = found;
			n->guessed = false;
		}
	} else {
		err = container_meta__read(&n->meta, roots, n->runtime, n->id,
					   why, sizeof(why));
	}
	if (!err) {
		n->known = true;
		return;
	}
	first = !n->tries++;
	/* the runtime may not have written it yet */
	if ((err == -ENOENT || err == -EBADMSG) && n->tries < CONT_TRIES)
		n->next_try = now + (1u << (n->tries - 1));
	else
		n->tries = CONT_TRIES;	/* no later read would do better */
	/* once per container: at its first read, whatever the later ones find */
	if (first)
		pr_debug("container %.12s (%s%s): no names: %s%s", n->id, n->runtime,
			 n->guessed ? "?" : "", why, n->tries < CONT_TRIES ? " (read again for a minute)" : "");
}

void cont_cache__see(struct cont_cache *c, const char *cgroup_path,
		     const struct container_roots *roots, double now)
{
	struct container_info ci;
	struct cont_names *n;
	__u64 a, b;

	if (!cgroup_path || container__parse(cgroup_path, &ci))
		return;
	id__key(ci.id, &a, &b);
	n = idmap__get(&c->map, a, b);
	/* two ids alike in 32 digits: the second goes unnamed */
	if (n) {
		n->seen_t = now;
		return;
	}
	n = calloc(1, sizeof(*n));
	if (!n)
		return;
	memcpy(n->id, ci.id, sizeof(n->id));
	n->runtime = ci.runtime;
	n->guessed = ci.guessed;
	n->seen_t = now;
	if (idmap__put(&c->map, a, b, n)) {
		free(n);
		return;
	}
	cont_names__read(n, roots, now);
	if (!n->known && n->tries < CONT_TRIES)
		c->nr_pending++;
}

void cont_cache__retry(struct cont_cache *c, const struct container_roots *roots,
		       double now)
{
	struct idmap_slot *s;
	size_t it = 0;

	if (!c->nr_pending)
		return;
	while ((s = idmap__next(&c->map, &it))) {
		struct cont_names *n = s->val;

		if (n->known || n->tries >= CONT_TRIES || n->next_try > now)
			continue;
		cont_names__read(n, roots, now);
		if (n->known || n->tries >= CONT_TRIES)
			c->nr_pending--;
	}
}

void cont_cache__prune(struct cont_cache *c, const struct idmap *cgrps,
		       double now)
{
	struct container_info ci;
	struct idmap_slot *s;
	size_t it = 0, nr = 0;
	__u64 (*old)[2];
	__u64 a, b;

	if (!c->map.nr)
		return;
	while ((s = idmap__next(cgrps, &it))) {
		const struct agg_entry *e = s->val;
		struct cont_names *n;

		if (!e->name || container__parse(e->name, &ci))
			continue;
		id__key(ci.id, &a, &b);
		n = idmap__get(&c->map, a, b);
		if (n)
			n->seen_t = now;
	}
	old = malloc(c->map.nr * sizeof(*old));
	if (!old)
		return;
	it = 0;
	while ((s = idmap__next(&c->map, &it)))
		if (((struct cont_names *)s->val)->seen_t + CONT_KEEP_S < now) {
			old[nr][0] = s->key.a;
			old[nr++][1] = s->key.b;
		}
	for (size_t i = 0; i < nr; i++) {
		struct cont_names *n = idmap__del(&c->map, old[i][0], old[i][1]);

		if (n && !n->known && n->tries < CONT_TRIES)
			c->nr_pending--;
		free(n);
	}
	free(old);
}

void cont_cache__exit(struct cont_cache *c)
{
	idmap__clear(&c->map, free);
	memset(c, 0, sizeof(*c));
}

#define CONT_FIELDS 6
/* The fields of a container's entry, in struct emon_snap_cont's order
 * after the id. */
static void cont_names__fields(const struct cont_names *n,
			       const char *f[CONT_FIELDS])
{
	f[0] = n->meta.name;
	f[1] = n->meta.image;
	f[2] = n->meta.ns;
	f[3] = n->meta.pod;
	f[4] = n->meta.container;
	f[5] = n->runtime;
}

size_t cont_cache__count(const struct cont_cache *c, size_t *strs)
{
	struct idmap_slot *s;
	size_t it = 0, nr = 0;
	const char *f[CONT_FIELDS];

	*strs = 0;
	while ((s = idmap__next(&c->map, &it))) {
		const struct cont_names *n = s->val;

		if (!n->known)
			continue;
		nr++;
		*strs += CONTAINER_ID_LEN + 1;
		cont_names__fields(n, f);
		for (int i = 0; i < CONT_FIELDS; i++)
			*strs += f[i][0] ? strlen(f[i]) + 1 : 0;
	}
	return nr;
}

static __u32 enc__str(char *strings, __u32 *off, const char *s)
{
	__u32 at = *off;
	size_t n = strlen(s) + 1;

	if (!*s)
		return EMON_NO_NAME;
	memcpy(strings + at, s, n);
	*off += n;
	return at;
}

void cont_cache__encode(const struct cont_cache *c, void *table, char *strings,
			__u32 *str_off)
{
	struct emon_snap_cont *out = table;
	struct idmap_slot *s;
	size_t it = 0;
	const char *f[CONT_FIELDS];

	while ((s = idmap__next(&c->map, &it))) {
		const struct cont_names *n = s->val;

		if (!n->known)
			continue;
		cont_names__fields(n, f);
		out->id = enc__str(strings, str_off, n->id);
		out->name = enc__str(strings, str_off, f[0]);
		out->image = enc__str(strings, str_off, f[1]);
		out->ns = enc__str(strings, str_off, f[2]);
		out->pod = enc__str(strings, str_off, f[3]);
		out->container = enc__str(strings, str_off, f[4]);
		out->runtime = enc__str(strings, str_off, f[5]);
		out++;
	}
}
