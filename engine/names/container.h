/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Container ids from cgroup paths, pure. Runtimes name a container's
 * cgroup after its 64-hex id:
 *
 *   docker      /system.slice/docker-<id>.scope            (systemd driver)
 *               /docker/<id>                               (cgroupfs driver)
 *   containerd  .../cri-containerd-<id>.scope              (systemd driver)
 *               /kubepods/<qos>/pod<uid>/<id>              (cgroupfs driver)
 *   cri-o       .../crio-<id>.scope, .../crio-<id>         (crio-conmon-<id>
 *                                                           is its monitor)
 *               /kubepods/<qos>/pod<uid>/<id>              (cgroupfs driver,
 *                                                           early CRI-O)
 *   podman      .../libpod-<id>.scope, /libpod_parent/libpod-<id>
 *                                                          (libpod-conmon-<id>
 *                                                           is its monitor)
 *
 * and Kubernetes puts them under a pod cgroup: kubepods-<qos>-pod<uid>.slice
 * (systemd driver, '-' in the uid written '_') or pod<uid> below /kubepods
 * (cgroupfs driver). There cri-dockerd's docker (cgroupfs driver) puts its
 * containers by their bare id too: a bare id below a pod does not say
 * whose it is, and only the runtimes' files (container_meta__read_any)
 * tell.
 */
#ifndef ENGINE_NAMES_CONTAINER_H
#define ENGINE_NAMES_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>

#define CONTAINER_ID_LEN 64
#define CONTAINER_POD_UID_LEN 36

struct container_info {
	char id[CONTAINER_ID_LEN + 1];		/* 64 lowercase hex */
	const char *runtime;	/* "docker", "containerd", "cri-o", "podman" */
	bool guessed;		/* a bare id below a pod: runtime is the
				 * likeliest of container_bare_runtimes */
	char pod_uid[CONTAINER_POD_UID_LEN + 1];	/* "" outside Kubernetes */
	size_t scope_len;	/* cgroup_path[0..scope_len) is the container's
				 * own cgroup (the path may be below it) */
};

/* The runtimes that may put a container by its bare id below a pod's
 * cgroup (cgroupfs driver), in the order their files are looked in (the
 * most specific first); NULL-terminated. */
extern const char *const container_bare_runtimes[];

/*
 * Is cgroup_path (from the cgroup2 root) a container's cgroup or below
 * one? The deepest container wins (docker in docker). 0 with out filled,
 * -ENOENT when it is not a container (out zeroed), -EINVAL for NULL.
 * Near misses are not containers: ids of other lengths, uppercase or
 * non-hex ids, conmon monitors, pod cgroups themselves.
 */
int container__parse(const char *cgroup_path, struct container_info *out);

/*
 * The uid of the Kubernetes pod whose cgroup cgroup_path is or is below
 * (the pod's own cgroup holds what no container's does: the pod's
 * overhead, and the sandbox where the runtime puts none of its own) into
 * uid (CONTAINER_POD_UID_LEN + 1 bytes). 0, -ENOENT outside any pod (uid
 * ""), -EINVAL for NULL.
 */
int container__pod_uid(const char *cgroup_path, char *uid);

#endif
