// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A container's names from its runtime's files (engine/names/container_meta.h):
 * a walk below the runtime's root that follows no symlink, one bounded
 * read, json-c, and a table of the keys each runtime writes.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>
#include "engine/names/container.h"
#include "engine/names/container_meta.h"

/* podman's containers.json lists every container of the host */
#define CONTAINERS_JSON_MAX (8u << 20)
#define JSON_DEPTH 32

static const struct {
	const char *name;
	const char *root;	/* as the runtime defaults it */
} runtimes[CONTAINER_RUNTIMES] = {
	[CONTAINER_DOCKER]	= { "docker", "/var/lib/docker" },
	/* containerd's state directory, where its tasks' bundles are */
	[CONTAINER_CONTAINERD]	= { "containerd", "/run/containerd" },
	/* CRI-O's bundles are in containers/storage's run root */
	[CONTAINER_CRIO]	= { "cri-o", "/run/containers/storage" },
	[CONTAINER_PODMAN]	= { "podman", "/var/lib/containers/storage" },
};

#define FIELD(f) offsetof(struct container_meta, f), \
		 sizeof(((struct container_meta *)0)->f)

/* Keys of OCI annotations (containerd's CRI plugin, CRI-O) and docker
 * labels (cri-dockerd): the first one found fills a field. */
static const struct meta_key {
	const char *key;
	size_t off, size;
} meta_keys[] = {
	{ "io.kubernetes.cri.sandbox-namespace",	FIELD(ns) },
	{ "io.kubernetes.pod.namespace",		FIELD(ns) },
	{ "io.kubernetes.cri.sandbox-name",		FIELD(pod) },
	{ "io.kubernetes.pod.name",			FIELD(pod) },
	{ "io.kubernetes.cri.container-name",		FIELD(container) },
	{ "io.kubernetes.container.name",		FIELD(container) },
	{ "io.kubernetes.cri.image-name",		FIELD(image) },
	{ "io.kubernetes.cri-o.ImageName",		FIELD(image) },
	{ "io.kubernetes.cri-o.Name",			FIELD(name) },
};

int container_runtime__parse(const char *name)
{
	for (int i = 0; name && i < CONTAINER_RUNTIMES; i++)
		if (!strcmp(name, runtimes[i].name))
			return i;
	return -1;
}

const char *container_runtime__name(const char *name)
{
	int rt = container_runtime__parse(name);

	return rt < 0 ? NULL : runtimes[rt].name;
}

int container_roots__parse(struct container_roots *r, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char name[16];
	int rt;

	if (!eq || eq - arg >= (long)sizeof(name) || eq[1] != '/')
		return -EINVAL;
	memcpy(name, arg, eq - arg);
	name[eq - arg] = '\0';
	rt = container_runtime__parse(name);
	if (rt < 0)
		return -EINVAL;
	r->dir[rt] = eq + 1;
	return 0;
}

const char *container_roots__dir(const struct container_roots *r,
				 enum container_runtime rt)
{
	if ((unsigned int)rt >= CONTAINER_RUNTIMES)
		return NULL;
	return r && r->dir[rt] ? r->dir[rt] : runtimes[rt].root;
}

/* A string value into a field, unless too long or not a string (the
 * field stays as it was: an earlier key may have filled it). Control
 * bytes are kept: outputs escape them. */
static void meta__set(struct container_meta *m, size_t off, size_t size,
		      struct json_object *v, bool overwrite)
{
	char *f = (char *)m + off;
	const char *s;
	int n;

	if (!v || !json_object_is_type(v, json_type_string) || (*f && !overwrite))
		return;
	s = json_object_get_string(v);
	n = json_object_get_string_len(v);
	if (n <= 0 || (size_t)n >= size || memchr(s, '\0', n))
		return;
	memcpy(f, s, n + 1);
}

/* The known keys of a string map (annotations, labels). */
static void meta__from_map(struct container_meta *m, struct json_object *map)
{
	struct json_object *v;

	if (!map || !json_object_is_type(map, json_type_object))
		return;
	for (size_t i = 0; i < sizeof(meta_keys) / sizeof(meta_keys[0]); i++)
		if (json_object_object_get_ex(map, meta_keys[i].key, &v))
			meta__set(m, meta_keys[i].off, meta_keys[i].size, v, false);
}

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

/* Why O_DIRECTORY | O_NOFOLLOW failed on name: a link is -ELOOP. */
static int open_dir_err(int dirfd, const char *name)
{
	int err = -errno;
	struct stat st;

	if (err == -ENOTDIR && !fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) &&
	    S_ISLNK(st.st_mode))
		return -ELOOP;
	return err;
}

/*
 * openat() each component of rel below dirfd, following no symlink: a
 * runtime's directories are its own, and a link in them is no path of
 * its. The last one is the file: regular, at most max bytes, read whole.
 */
static int read_below(int dirfd, const char *rel, size_t max, char **out,
		      size_t *outlen)
{
	char comp[256], *buf = NULL;
	const char *p = rel, *slash;
	int fd = dup(dirfd), next, err = 0;
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while ((slash = strchr(p, '/'))) {
		if (slash - p >= (long)sizeof(comp)) {
			err = -ENAMETOOLONG;
			goto out;
		}
		memcpy(comp, p, slash - p);
		comp[slash - p] = '\0';
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			err = open_dir_err(fd, comp);
			goto out;
		}
		close(fd);
		fd = next;
		p = slash + 1;
	}
	next = openat(fd, p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (next < 0) {
		err = -errno;
		goto out;
	}
	close(fd);
	fd = next;
	if (fstat(fd, &st)) {
		err = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
		goto out;
	}
	if ((size_t)st.st_size > max) {
		err = -EFBIG;
		goto out;
	}
	buf = malloc(st.st_size + 1);
	if (!buf) {
		err = -ENOMEM;
		goto out;
	}
	/* it may grow meanwhile: never past what was allocated */
	n = pread(fd, buf, st.st_size, 0);
	if (n < 0) {
		err = -errno;
		goto out;
	}
	buf[n] = '\0';
	*out = buf;
	*outlen = n;
	buf = NULL;
out:
	free(buf);
	close(fd);
	return err;
}

/* rel (below root) parsed into *obj, a JSON value of type want. */
static int json_below(int rootfd, const char *rel, size_t max,
		      enum json_type want, struct json_object **obj)
{
	struct json_tokener *tok;
	struct json_object *o;
	size_t len;
	char *buf;
	int err;

	*obj = NULL;
	err = read_below(rootfd, rel, max, &buf, &len);
	if (err)
		return err;
	tok = json_tokener_new_ex(JSON_DEPTH);
	if (!tok) {
		free(buf);
		return -ENOMEM;
	}
	o = json_tokener_parse_ex(tok, buf, len);
	/* a truncated file: json_tokener_continue, and no object */
	if (o && (json_tokener_get_parse_end(tok) != len ||
		  !json_object_is_type(o, want))) {
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	free(buf);
	*obj = o;
	return o ? 0 : -EBADMSG;
}

static void meta__docker(struct container_meta *m, struct json_object *o)
{
	struct json_object *name = get(o, "Name"), *cfg = get(o, "Config");

	/* docker names the container "/name" */
	if (name && json_object_is_type(name, json_type_string) &&
	    json_object_get_string(name)[0] == '/') {
		const char *s = json_object_get_string(name) + 1;
		size_t n = strlen(s);

		if (n && n < sizeof(m->name))
			memcpy(m->name, s, n + 1);
	}
	meta__set(m, FIELD(image), get(cfg, "Image"), true);
	meta__from_map(m, get(cfg, "Labels"));
}

/* containers/storage's record of a podman container: the name it was
 * given, and its image's in a JSON string of its own ("metadata"). */
static void meta__podman_storage(struct container_meta *m, int rootfd,
				 const char *id)
{
	struct json_object *all, *c = NULL, *id_v, *md = NULL;
	struct json_tokener *tok;
	const char *s;
	size_t n;

	if (json_below(rootfd, "overlay-containers/containers.json",
		       CONTAINERS_JSON_MAX, json_type_array, &all))
		return;
	n = json_object_array_length(all);
	for (size_t i = 0; i < n; i++) {
		id_v = get(json_object_array_get_idx(all, i), "id");
		if (id_v && json_object_is_type(id_v, json_type_string) &&
		    !strcmp(json_object_get_string(id_v), id)) {
			c = json_object_array_get_idx(all, i);
			break;
		}
	}
	if (c && get(c, "names") &&
	    json_object_is_type(get(c, "names"), json_type_array))
		meta__set(m, FIELD(name),
			  json_object_array_get_idx(get(c, "names"), 0), true);
	s = c && get(c, "metadata") &&
	    json_object_is_type(get(c, "metadata"), json_type_string) ?
		json_object_get_string(get(c, "metadata")) : NULL;
	tok = s ? json_tokener_new_ex(JSON_DEPTH) : NULL;
	if (tok)
		md = json_tokener_parse_ex(tok, s, strlen(s));
	meta__set(m, FIELD(image), get(md, "image-name"), false);
	json_object_put(md);
	if (tok)
		json_tokener_free(tok);
	json_object_put(all);
}

/* The bundle of id below the first namespace of containerd's tasks that
 * has it (k8s.io under Kubernetes, moby for docker, default, ...). */
static int containerd_bundle(int rootfd, const char *id, char *rel, size_t len)
{
	static const char tasks[] = "io.containerd.runtime.v2.task";
	int fd, err = -ENOENT;
	struct dirent *d;
	struct stat st;
	DIR *dir;

	fd = openat(rootfd, tasks, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return open_dir_err(rootfd, tasks);
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return -ENOMEM;
	}
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.' || strlen(d->d_name) > 128)
			continue;
		/* a probe only: the read below follows no link */
		snprintf(rel, len, "%s/%s", d->d_name, id);
		if (!fstatat(fd, rel, &st, AT_SYMLINK_NOFOLLOW)) {
			snprintf(rel, len, "%s/%s/%s/config.json", tasks,
				 d->d_name, id);
			err = 0;
			break;
		}
	}
	closedir(dir);
	return err;
}

static bool id__valid(const char *id)
{
	size_t n = id ? strspn(id, "0123456789abcdef") : 0;

	return n == CONTAINER_ID_LEN && !id[n];
}

static const char *err__why(int err)
{
	switch (err) {
	case -ELOOP:
		return "a symlink, not followed";
	case -EFBIG:
		return "too large";
	case -EBADMSG:
		return "not a JSON object";
	case -EINVAL:
		return "not a regular file";
	}
	return strerror(-err);
}

int container_meta__read(struct container_meta *m,
			 const struct container_roots *r, const char *runtime,
			 const char *id, char *why, size_t len)
{
	int rt = container_runtime__parse(runtime), rootfd = -1, err;
	struct json_object *o = NULL;
	const char *root;
	char rel[512];

	memset(m, 0, sizeof(*m));
	if (rt < 0 || !id__valid(id)) {
		snprintf(why, len, "no runtime or id to look up");
		return -EINVAL;
	}
	root = container_roots__dir(r, rt);
	/* the root itself may be a link: hosts that move a runtime's
	 * state often leave one behind */
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		err = -errno;
		snprintf(why, len, "%s: %s", root, strerror(-err));
		return err;
	}
	switch (rt) {
	case CONTAINER_DOCKER:
		snprintf(rel, sizeof(rel), "containers/%s/config.v2.json", id);
		err = 0;
		break;
	case CONTAINER_CONTAINERD:
		err = containerd_bundle(rootfd, id, rel, sizeof(rel));
		if (err)
			snprintf(rel, sizeof(rel),
				 "io.containerd.runtime.v2.task/*/%s/config.json", id);
		break;
	default:	/* cri-o, podman: containers/storage's layout */
		snprintf(rel, sizeof(rel),
			 "overlay-containers/%s/userdata/config.json", id);
		err = 0;
	}
	err = err ?: json_below(rootfd, rel, CONTAINER_META_MAX_FILE,
				json_type_object, &o);
	if (err) {
		snprintf(why, len, "%s/%s: %s", root, rel, err__why(err));
		goto out;
	}
	if (rt == CONTAINER_DOCKER)
		meta__docker(m, o);
	else
		meta__from_map(m, get(o, "annotations"));
	if (rt == CONTAINER_PODMAN)
		meta__podman_storage(m, rootfd, id);
out:
	json_object_put(o);
	close(rootfd);
	return err;
}

int container_meta__read_any(struct container_meta *m,
			     const struct container_roots *r,
			     const char *const *runtimes, const char *id,
			     const char **found, char *why, size_t len)
{
	size_t n = 0;
	int err = -ENOENT;

	*found = NULL;
	memset(m, 0, sizeof(*m));
	if (why && len)
		why[0] = '\0';
	for (int i = 0; runtimes[i]; i++) {
		char one[512];

		err = container_meta__read(m, r, runtimes[i], id, one, sizeof(one));
		if (err != -ENOENT) {
			/* its files: read, or being written, or broken */
			*found = runtimes[i];
			if (err)
				snprintf(why, len, "%s", one);
			return err;
		}
		if (n < len)
			n += snprintf(why + n, len - n, "%s%s", n ? "; " : "", one);
	}
	return err;
}
