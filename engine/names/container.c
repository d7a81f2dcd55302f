// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Container ids from cgroup paths: one pass over the path's segments,
 * remembering the last pod seen and the deepest container.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include "engine/names/container.h"

struct segment {
	const char *s;
	size_t n;
};

/* Cgroup names "<prefix><id>" or "<prefix><id>.scope". */
static const struct {
	const char *prefix;
	const char *runtime;
} prefixed[] = {
	{ "docker-", "docker" },
	{ "cri-containerd-", "containerd" },
	{ "crio-", "cri-o" },
	{ "libpod-", "podman" },
};

/* cri-dockerd's docker; CRI-O before it named them crio-<id>; containerd
 * last: it runs docker's containers too, and has their bundles (in its
 * "moby" namespace) */
const char *const container_bare_runtimes[] = {
	"docker", "cri-o", "containerd", NULL,
};

static bool is_lower_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static bool is_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!is_lower_hex(s[i]))
			return false;
	return true;
}

static bool is_id(const char *s, size_t n)
{
	return n == CONTAINER_ID_LEN && is_hex(s, n);
}

/* The segment at *p into g, *p moved past it; false at the path's end. */
static bool segment__next(const char **p, struct segment *g)
{
	while (**p == '/')
		(*p)++;
	if (!**p)
		return false;
	g->s = *p;
	g->n = strcspn(*p, "/");
	*p += g->n;
	return true;
}

static bool segment__is(const struct segment *g, const char *str)
{
	return g->n == strlen(str) && !memcmp(g->s, str, g->n);
}

static bool segment__starts(const struct segment *g, const char *str)
{
	size_t n = strlen(str);

	return g->n >= n && !memcmp(g->s, str, n);
}

static bool segment__ends(const struct segment *g, const char *str)
{
	size_t n = strlen(str);

	return g->n >= n && !memcmp(g->s + g->n - n, str, n);
}

/* The runtime of a "<prefix><id>[.scope]" segment, or NULL. A conmon
 * ("crio-conmon-<id>.scope") fails the id check: it is not the container. */
static const char *segment__prefixed_id(const struct segment *g, char *id)
{
	size_t i, plen, n;
	const char *rest;

	for (i = 0; i < sizeof(prefixed) / sizeof(prefixed[0]); i++) {
		if (!segment__starts(g, prefixed[i].prefix))
			continue;
		plen = strlen(prefixed[i].prefix);
		rest = g->s + plen;
		n = g->n - plen;
		if (n == CONTAINER_ID_LEN + 6 &&
		    !memcmp(rest + CONTAINER_ID_LEN, ".scope", 6))
			n = CONTAINER_ID_LEN;
		if (!is_id(rest, n))
			continue;
		memcpy(id, rest, CONTAINER_ID_LEN);
		id[CONTAINER_ID_LEN] = '\0';
		return prefixed[i].runtime;
	}
	return NULL;
}

/* A pod uid: a UUID (8-4-4-4-12 lowercase hex), or the 32-hex hash the
 * kubelet gives static pods. */
static bool pod_uid__valid(const char *u, size_t n)
{
	size_t i;

	if (n == 32)
		return is_hex(u, n);
	if (n != CONTAINER_POD_UID_LEN)
		return false;
	for (i = 0; i < n; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? u[i] != '-' : !is_lower_hex(u[i]))
			return false;
	}
	return true;
}

/*
 * The pod uid of a pod cgroup segment into uid, or false:
 *   systemd driver:  kubepods[-<qos>]-pod<uid with '_'>.slice (kind nests
 *                    them as kubelet-kubepods-...; the uid's dashes are
 *                    written '_' since '-' is systemd's slice separator)
 *   cgroupfs driver: pod<uid>, below a kubepods cgroup
 */
static bool segment__pod_uid(const struct segment *g, bool under_kubepods,
			     char *uid)
{
	const char *u = NULL, *p;
	size_t n = 0, i;
	bool systemd = false;

	if (segment__ends(g, ".slice")) {
		for (p = g->s + g->n - 6; p > g->s; p--) {
			if (p - g->s >= 4 && !memcmp(p - 4, "-pod", 4)) {
				u = p;
				n = g->s + g->n - 6 - p;
				break;
			}
		}
		if (!u || !memmem(g->s, g->n, "kubepods", 8))
			return false;
		systemd = true;
	} else if (under_kubepods && segment__starts(g, "pod")) {
		u = g->s + 3;
		n = g->n - 3;
	} else {
		return false;
	}
	if (n != 32 && n != CONTAINER_POD_UID_LEN)
		return false;
	for (i = 0; i < n; i++) {
		char c = u[i];

		if (systemd && c == '-')
			return false;
		uid[i] = systemd && c == '_' ? '-' : c;
	}
	uid[n] = '\0';
	return pod_uid__valid(uid, n);
}

static bool segment__is_kubepods(const struct segment *g)
{
	return segment__is(g, "kubepods") || segment__starts(g, "kubepods.") ||
	       segment__starts(g, "kubepods-");
}

int container__parse(const char *cgroup_path, struct container_info *out)
{
	struct segment g, prev = { "", 0 };
	char id[CONTAINER_ID_LEN + 1], uid[CONTAINER_POD_UID_LEN + 1];
	char pod[CONTAINER_POD_UID_LEN + 1] = "";
	bool kubepods = false, found = false, guessed;
	int depth = 0, pod_depth = -1;
	const char *p, *runtime;

	if (!cgroup_path || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	for (p = cgroup_path; segment__next(&p, &g); prev = g, depth++) {
		runtime = segment__prefixed_id(&g, id);
		guessed = false;
		/* a bare id is a container only where runtimes put one */
		if (!runtime && is_id(g.s, g.n)) {
			memcpy(id, g.s, g.n);
			id[g.n] = '\0';
			if (segment__is(&prev, "docker"))
				runtime = "docker";
			else if (pod_depth >= 0 && pod_depth == depth - 1) {
				/* cgroupfs driver: the CRI runtime does not
				 * say who it is, the runtimes' files will;
				 * containerd is the likeliest since the
				 * kubelet dropped dockershim */
				runtime = "containerd";
				guessed = true;
			}
		}
		if (runtime) {
			memcpy(out->id, id, sizeof(out->id));
			out->runtime = runtime;
			out->guessed = guessed;
			memcpy(out->pod_uid, pod, sizeof(out->pod_uid));
			out->scope_len = p - cgroup_path;
			found = true;
			continue;
		}
		if (segment__pod_uid(&g, kubepods, uid)) {
			memcpy(pod, uid, sizeof(pod));
			pod_depth = depth;
		}
		if (segment__is_kubepods(&g))
			kubepods = true;
	}
	if (!found) {
		memset(out, 0, sizeof(*out));
		return -ENOENT;
	}
	return 0;
}

int container__pod_uid(const char *cgroup_path, char *uid)
{
	char cur[CONTAINER_POD_UID_LEN + 1];
	struct segment g;
	bool kubepods = false;
	const char *p;

	if (!cgroup_path || !uid)
		return -EINVAL;
	uid[0] = '\0';
	for (p = cgroup_path; segment__next(&p, &g);) {
		/* the innermost pod, as container__parse() takes it */
		if (segment__pod_uid(&g, kubepods, cur))
			memcpy(uid, cur, sizeof(cur));
		if (segment__is_kubepods(&g))
			kubepods = true;
	}
	return uid[0] ? 0 : -ENOENT;
}
