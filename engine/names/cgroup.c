// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A cgroup v2 id is the inode number of its directory in cgroupfs, so
 * walking the mount names every id. BPF only reports ids; the walk runs
 * when an unknown one appears, at most once per lookup burst.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "engine/names/cgroup.h"
#include "emon.h"

int cgroup__find_mount(const char *mounts_file, char *out, size_t len)
{
	char dev[256], dir[PATH_MAX], type[64];
	int err = -ENOENT;
	FILE *f;

	f = fopen(mounts_file, "re");
	if (!f)
		return -errno;
	while (fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3) {
		if (strcmp(type, "cgroup2"))
			continue;
		if (strlen(dir) >= len) {
			err = -ENAMETOOLONG;
			break;
		}
		strcpy(out, dir);
		err = 0;
		break;
	}
	fclose(f);
	return err;
}

int cgroup__normalize(const char *in, char *out, size_t len)
{
	size_t o = 0;
	const char *p = in;

	if (!in || !*in)
		return -EINVAL;
	while (*p) {
		const char *s;
		size_t n;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		s = p;
		while (*p && *p != '/')
			p++;
		n = (size_t)(p - s);
		if ((n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			return -EINVAL;
		if (o + 1 + n + 1 > len)
			return -ENAMETOOLONG;
		out[o++] = '/';
		memcpy(out + o, s, n);
		o += n;
	}
	if (!o) {
		if (len < 2)
			return -ENAMETOOLONG;
		out[o++] = '/';
	}
	out[o] = '\0';
	return 0;
}

bool cgroup__is_under(const char *path, const char *top)
{
	size_t n = strlen(top);

	if (!strcmp(top, "/"))
		return path[0] == '/';
	return !strncmp(path, top, n) && (path[n] == '\0' || path[n] == '/');
}

int cgroup__id(const char *root, const char *path, __u64 *id)
{
	char full[PATH_MAX];
	struct stat st;

	if (snprintf(full, sizeof(full), "%s%s", root, path) >= (int)sizeof(full))
		return -ENAMETOOLONG;
	if (stat(full, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	*id = st.st_ino;
	return 0;
}

int cgroup_names__init(struct cgroup_names *n, const char *root)
{
	memset(n, 0, sizeof(*n));
	n->root = strdup(root);
	return n->root ? 0 : -ENOMEM;
}

static void cgroup_name__free(void *p)
{
	struct cgroup_name *cn = p;

	free(cn->path);
	free(cn);
}

void cgroup_names__exit(struct cgroup_names *n)
{
	idmap__clear(&n->ids, cgroup_name__free);
	free(n->root);
	n->root = NULL;
}

static int cgroup_names__set(struct cgroup_names *n, __u64 id, const char *path,
			     __u64 parent)
{
	struct cgroup_name *cn = idmap__get(&n->ids, id, 0);
	char *p;

	if (cn) {
		cn->alive = true;
		if (!strcmp(cn->path, path))
			return 0;
		p = strdup(path);	/* renamed, or a synthetic name resolved */
		if (!p)
			return -ENOMEM;
		free(cn->path);
		cn->path = p;
		return 0;
	}
	cn = calloc(1, sizeof(*cn));
	if (!cn || !(cn->path = strdup(path))) {
		free(cn);
		return -ENOMEM;
	}
	cn->parent = parent;
	cn->alive = true;
	if (idmap__put(&n->ids, id, 0, cn)) {
		cgroup_name__free(cn);
		return -ENOMEM;
	}
	return 0;
}

/* nftw has no context pointer. */
static struct cgroup_names *walking;
static size_t walk_root_len;
static int walk_err;

static int walk_one(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	const char *rel = path + walk_root_len;
	char parent[PATH_MAX];
	__u64 pid = 0;
	char *slash;

	(void)ftw;
	if (type != FTW_D)
		return 0;
	if (!*rel)
		rel = "/";
	snprintf(parent, sizeof(parent), "%s", path);
	slash = strrchr(parent, '/');
	if (*rel != '/' || strcmp(rel, "/")) {
		struct stat pst;

		if (slash && slash > parent) {
			*slash = '\0';
			if (!stat(parent, &pst))
				pid = pst.st_ino;
		}
	}
	walk_err = cgroup_names__set(walking, st->st_ino, rel, pid);
	if (walk_err)
		return FTW_STOP;
	((struct cgroup_name *)idmap__get(&walking->ids, st->st_ino, 0))->walked = true;
	return FTW_CONTINUE;
}

int cgroup_names__walk(struct cgroup_names *n)
{
	struct idmap_slot *s;
	size_t it = 0;
	int err;

	while ((s = idmap__next(&n->ids, &it)))
		((struct cgroup_name *)s->val)->alive = false;
	walking = n;
	walk_root_len = strlen(n->root);
	walk_err = 0;
	err = nftw(n->root, walk_one, 64, FTW_PHYS | FTW_MOUNT | FTW_ACTIONRETVAL);
	walking = NULL;
	n->walks++;
	if (walk_err)
		return walk_err;
	return err < 0 ? -errno : 0;
}

/* Name id from BPF's record below its parent's path, depth levels at most. */
static const char *cgroup_names__from_bpf(struct cgroup_names *n, __u64 id,
					  cgroup_info_fn info_of, void *ctx,
					  int depth)
{
	char name[256], buf[PATH_MAX];
	struct cgroup_name *cn;
	const char *ppath;
	__u64 parent;
	int len;

	if (!info_of || depth <= 0 ||
	    !info_of(ctx, id, &parent, name, sizeof(name)) || !parent)
		return NULL;
	/* a name that filled BPF's buffer was cut short: not a path */
	if (!name[0] || strchr(name, '/') ||
	    strlen(name) >= EMON_CGRP_NAME_LEN - 1)
		return NULL;
	cn = idmap__get(&n->ids, parent, 0);
	ppath = cn ? cn->path :
		cgroup_names__from_bpf(n, parent, info_of, ctx, depth - 1);
	if (!ppath || strstr(ppath, "/[removed cgroup "))
		return NULL;
	len = snprintf(buf, sizeof(buf), "%s/%s", strcmp(ppath, "/") ? ppath : "", name);
	if (len >= (int)sizeof(buf) || cgroup_names__set(n, id, buf, parent))
		return NULL;
	/* alive until a walk says otherwise: it ran just now */
	cn = idmap__get(&n->ids, id, 0);
	cn->used = n->gen;
	return cn->path;
}

/* Walk the tree again, then look id up: its path, or NULL. */
static const char *cgroup_names__walk_get(struct cgroup_names *n, __u64 id)
{
	struct cgroup_name *cn;

	n->walked_gen = n->gen;
	cgroup_names__walk(n);
	cn = idmap__get(&n->ids, id, 0);
	if (!cn)
		return NULL;
	cn->used = n->gen;
	return cn->path;
}

const char *cgroup_names__path(struct cgroup_names *n, __u64 id,
			       cgroup_info_fn info_of, void *ctx)
{
	struct cgroup_name *cn = idmap__get(&n->ids, id, 0);
	const char *ppath, *path;
	char buf[PATH_MAX], name[8];
	__u64 parent = 0;

	if (cn) {
		cn->used = n->gen;
		return cn->path;
	}
	/* the first time: everything there is */
	if (!n->walks && (path = cgroup_names__walk_get(n, id)))
		return path;
	path = cgroup_names__from_bpf(n, id, info_of, ctx, 64);
	if (path)
		return path;
	if (n->walked_gen != n->gen && (path = cgroup_names__walk_get(n, id)))
		return path;
	/* Gone before we saw it: name it under its nearest known ancestor. */
	if (info_of && !info_of(ctx, id, &parent, name, sizeof(name)))
		parent = 0;
	ppath = parent && parent != id ?
		cgroup_names__path(n, parent, info_of, ctx) : NULL;
	snprintf(buf, sizeof(buf), "%s/[removed cgroup %llu]",
		 ppath && strcmp(ppath, "/") ? ppath : "", (unsigned long long)id);
	if (cgroup_names__set(n, id, buf, parent))
		return NULL;
	cn = idmap__get(&n->ids, id, 0);
	cn->alive = false;
	cn->used = n->gen;
	return cn->path;
}

size_t cgroup_names__prune(struct cgroup_names *n, unsigned long keep)
{
	struct idmap_slot *s;
	size_t it = 0, gone = 0;
	__u64 *dead;
	size_t nr = 0;

	dead = malloc((n->ids.nr + 1) * sizeof(*dead));
	if (!dead)
		return 0;
	while ((s = idmap__next(&n->ids, &it))) {
		struct cgroup_name *cn = s->val;

		if ((!cn->alive || !cn->walked) && cn->used + keep < n->gen)
			dead[nr++] = s->key.a;
	}
	for (size_t i = 0; i < nr; i++) {
		cgroup_name__free(idmap__del(&n->ids, dead[i], 0));
		gone++;
	}
	free(dead);
	return gone;
}
