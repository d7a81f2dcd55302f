/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A container's names from the files its runtime leaves on the host, no
 * call into the runtime:
 *
 *   docker      ROOT/containers/ID/config.v2.json: Name, Config.Image,
 *               Config.Labels (cri-dockerd's io.kubernetes.* labels)
 *   podman      ROOT/overlay-containers/ID/userdata/config.json (the OCI
 *   cri-o       bundle: its annotations)
 *   containerd  ROOT/io.containerd.runtime.v2.task/NAMESPACE/ID/config.json
 *
 * with ROOT as each runtime defaults it (container_roots__dir). The OCI
 * annotations are the ones containerd's CRI plugin (io.kubernetes.cri.*)
 * and CRI-O (io.kubernetes.pod.*, io.kubernetes.container.name) write.
 * The fields are cAdvisor's labels, which dashboards already join on.
 *
 * The daemon reads these as root: nothing below ROOT is followed through
 * a symlink, a file is read only when regular and at most
 * CONTAINER_META_MAX_FILE bytes, a value longer than its field is left
 * out rather than cut.
 */
#ifndef ENGINE_NAMES_CONTAINER_META_H
#define ENGINE_NAMES_CONTAINER_META_H

#include <stddef.h>

enum container_runtime {
	CONTAINER_DOCKER,
	CONTAINER_CONTAINERD,
	CONTAINER_CRIO,
	CONTAINER_PODMAN,
	CONTAINER_RUNTIMES,
};

#define CONTAINER_META_MAX_FILE (1u << 20)

/* --runtime-root RUNTIME=DIR: where a host moved a runtime's state. */
struct container_roots {
	const char *dir[CONTAINER_RUNTIMES];	/* NULL: the default */
};

/* Empty ("") when unknown. Sizes: Kubernetes' limits (a namespace and a
 * container name are DNS labels, a pod a DNS subdomain), room for an
 * image reference with its digest. */
struct container_meta {
	char name[256];		/* the runtime's container name */
	char image[512];
	char ns[64];		/* Kubernetes namespace */
	char pod[254];
	char container[64];	/* Kubernetes container name */
};

/* The runtime container__parse() names ("docker", ...), or -1. */
int container_runtime__parse(const char *name);
/* The same name in static storage, or NULL when unknown. */
const char *container_runtime__name(const char *name);
/* "docker=/srv/docker" into r (arg must outlive r); -EINVAL when the
 * runtime is unknown or DIR empty or relative. */
int container_roots__parse(struct container_roots *r, const char *arg);
/* The state directory of runtime, as given or as it defaults it. */
const char *container_roots__dir(const struct container_roots *r,
				 enum container_runtime rt);

/*
 * The names of container id (64 hex) of runtime (container__parse's
 * name) into m (zeroed first), read from the runtime's files below its
 * root (r may be NULL: the defaults). 0 when a file was read and parsed,
 * even if it had none of the fields; -ENOENT when there is no file (yet),
 * -ELOOP for a symlink, -EFBIG, -EBADMSG for JSON that is broken or not
 * an object, -EINVAL for a bad id or runtime, other -errno. On error, why
 * (len bytes) says what was read and what went wrong, in one line.
 */
int container_meta__read(struct container_meta *m,
			 const struct container_roots *r, const char *runtime,
			 const char *id, char *why, size_t len);

/*
 * The same for a container whose cgroup path does not say its runtime
 * (container_info.guessed): the runtimes (NULL-terminated) in turn, up to
 * the first with files of id, whose name goes to *found (NULL when none
 * has any). Returns what that read did; -ENOENT when no runtime has files
 * of id, why then naming each root looked in.
 */
int container_meta__read_any(struct container_meta *m,
			     const struct container_roots *r,
			     const char *const *runtimes, const char *id,
			     const char **found, char *why, size_t len);

#endif
