// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Container ids from cgroup paths, as docker, containerd, CRI-O, podman and
 * the kubelet (systemd and cgroupfs drivers) name them, next to the near
 * misses that must stay host cgroups.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/log.h"
#include "engine/names/container.h"
#include "engine/names/container_cache.h"
#include "helpers.h"

#define ID1 "9ec39b91f3d70e1beff50a308f77067065ea6be0d91a3378375056cd4422cf3d"
#define ID2 "34dc0b5e626f2c5c4c5170e34b10e7654ce36f0fcd532739f4445baabea03376"
#define ID3 "ee8247ebce1c2d2a855e27e5de33b61c385f92ecbfb32387aabc9eb56c47b7e7"
#define ID63 "9ec39b91f3d70e1beff50a308f77067065ea6be0d91a3378375056cd4422cf3"
#define ID65 ID1 "0"
#define IDUP "9EC39B91F3D70E1BEFF50A308F77067065EA6BE0D91A3378375056CD4422CF3D"
#define IDG "9ec39b91f3d70e1beff50a308f77067065ea6be0d91a3378375056cd4422cf3g"
#define UID "74c13223-5a00-11e9-b385-42010a80018d"
#define UID_ "74c13223_5a00_11e9_b385_42010a80018d"
#define STATIC_UID "2ce2d4a5d4e0bb6ad3d1f0d96f9e2d6b"	/* a static pod's hash */

struct ccase {
	const char *path;
	int ret;
	const char *id;
	const char *runtime;
	const char *pod_uid;
	const char *scope;	/* the container's own cgroup, a prefix of path */
};

static const struct ccase cases[] = {
	/* docker, systemd and cgroupfs drivers; rootless */
	{ "/system.slice/docker-" ID1 ".scope", 0, ID1, "docker", "",
	  "/system.slice/docker-" ID1 ".scope" },
	{ "/system.slice/docker-" ID1 ".scope/init", 0, ID1, "docker", "",
	  "/system.slice/docker-" ID1 ".scope" },
	{ "/docker/" ID2, 0, ID2, "docker", "", "/docker/" ID2 },
	{ "/docker/" ID2 "/", 0, ID2, "docker", "", "/docker/" ID2 },
	{ "/docker/" ID2 "/sub/deeper", 0, ID2, "docker", "", "/docker/" ID2 },
	{ "/user.slice/user-1000.slice/user@1000.service/docker-" ID1 ".scope",
	  0, ID1, "docker", "",
	  "/user.slice/user-1000.slice/user@1000.service/docker-" ID1 ".scope" },
	/* docker in docker: the deepest container wins */
	{ "/system.slice/docker-" ID1 ".scope/docker/" ID2, 0, ID2, "docker",
	  "", "/system.slice/docker-" ID1 ".scope/docker/" ID2 },

	/* containerd under Kubernetes: systemd driver, every QoS class */
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	  ".slice/cri-containerd-" ID3 ".scope", 0, ID3, "containerd", UID,
	  NULL },
	{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
	  ".slice/cri-containerd-" ID3 ".scope", 0, ID3, "containerd", UID,
	  NULL },
	{ "/kubepods.slice/kubepods-pod" UID_ ".slice/cri-containerd-" ID3
	  ".scope", 0, ID3, "containerd", UID, NULL },
	/* static pods have a hash for a uid */
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
	  STATIC_UID ".slice/cri-containerd-" ID3 ".scope", 0, ID3,
	  "containerd", STATIC_UID, NULL },
	/* cgroupfs driver: a bare id right below the pod */
	{ "/kubepods/besteffort/pod" UID "/" ID2, 0, ID2, "containerd", UID,
	  "/kubepods/besteffort/pod" UID "/" ID2 },
	{ "/kubepods/pod" UID "/" ID2, 0, ID2, "containerd", UID, NULL },
	/* kind: a node container running a kubelet with its own kubepods */
	{ "/system.slice/docker-" ID1 ".scope/kubelet.slice/kubelet-kubepods.slice/"
	  "kubelet-kubepods-besteffort.slice/kubelet-kubepods-besteffort-pod" UID_
	  ".slice/cri-containerd-" ID3 ".scope", 0, ID3, "containerd", UID, NULL },
	{ "/system.slice/docker-" ID1 ".scope/kubelet.slice", 0, ID1, "docker",
	  "", "/system.slice/docker-" ID1 ".scope" },

	/* CRI-O: systemd and cgroupfs drivers; conmon is not the container */
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	  ".slice/crio-" ID1 ".scope", 0, ID1, "cri-o", UID, NULL },
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	  ".slice/crio-" ID1 ".scope/container", 0, ID1, "cri-o", UID,
	  "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	  ".slice/crio-" ID1 ".scope" },
	{ "/kubepods/burstable/pod" UID "/crio-" ID1, 0, ID1, "cri-o", UID, NULL },
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	  ".slice/crio-conmon-" ID1 ".scope", -ENOENT, NULL, NULL, NULL, NULL },

	/* podman: systemd (root and rootless) and cgroupfs */
	{ "/machine.slice/libpod-" ID2 ".scope", 0, ID2, "podman", "", NULL },
	{ "/machine.slice/libpod-" ID2 ".scope/container", 0, ID2, "podman", "",
	  "/machine.slice/libpod-" ID2 ".scope" },
	{ "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID2
	  ".scope", 0, ID2, "podman", "", NULL },
	{ "/libpod_parent/libpod-" ID2, 0, ID2, "podman", "", NULL },
	{ "/machine.slice/libpod-conmon-" ID2 ".scope", -ENOENT, NULL, NULL,
	  NULL, NULL },

	/* dockershim-era Kubernetes with the docker runtime */
	{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
	  ".slice/docker-" ID1 ".scope", 0, ID1, "docker", UID, NULL },

	/* host cgroups */
	{ "/", -ENOENT, NULL, NULL, NULL, NULL },
	{ "", -ENOENT, NULL, NULL, NULL, NULL },
	{ "/system.slice/docker.service", -ENOENT, NULL, NULL, NULL, NULL },
	{ "/system.slice/containerd.service", -ENOENT, NULL, NULL, NULL, NULL },
	{ "/system.slice/crio.service", -ENOENT, NULL, NULL, NULL, NULL },
	{ "/user.slice/user-1000.slice/session-2.scope", -ENOENT, NULL, NULL,
	  NULL, NULL },
	{ "/user.slice/user-1000.slice/user@1000.service/app.slice/podman-4242.scope",
	  -ENOENT, NULL, NULL, NULL, NULL },
	/* a pod, not yet a container */
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	  ".slice", -ENOENT, NULL, NULL, NULL, NULL },
	{ "/kubepods/burstable/pod" UID, -ENOENT, NULL, NULL, NULL, NULL },

	/* near misses: ids of the wrong length, case or alphabet */
	{ "/system.slice/docker-" ID63 ".scope", -ENOENT, NULL, NULL, NULL, NULL },
	{ "/system.slice/docker-" ID65 ".scope", -ENOENT, NULL, NULL, NULL, NULL },
	{ "/system.slice/docker-" IDUP ".scope", -ENOENT, NULL, NULL, NULL, NULL },
	{ "/system.slice/docker-" IDG ".scope", -ENOENT, NULL, NULL, NULL, NULL },
	{ "/docker/" ID63, -ENOENT, NULL, NULL, NULL, NULL },
	{ "/docker/" IDUP, -ENOENT, NULL, NULL, NULL, NULL },
	{ "/system.slice/docker-" ID1 ".slice", -ENOENT, NULL, NULL, NULL, NULL },
	{ "/system.slice/docker-" ID1 ".scopex", -ENOENT, NULL, NULL, NULL, NULL },
	{ "/system.slice/docker-" ID1 ".mount", -ENOENT, NULL, NULL, NULL, NULL },
	{ "/system.slice/xdocker-" ID1 ".scope", -ENOENT, NULL, NULL, NULL, NULL },
	{ "/system.slice/cri-containerd-" ID63 ".scope", -ENOENT, NULL, NULL,
	  NULL, NULL },
	/* a bare id where no runtime puts one */
	{ "/" ID1, -ENOENT, NULL, NULL, NULL, NULL },
	{ "/system.slice/" ID1, -ENOENT, NULL, NULL, NULL, NULL },
	{ "/kubepods/besteffort/" ID1, -ENOENT, NULL, NULL, NULL, NULL },
	{ "/kubepods/besteffort/pod" UID "/x/" ID1, -ENOENT, NULL, NULL, NULL,
	  NULL },
	/* "pod<uid>" counts only below kubepods */
	{ "/other/pod" UID "/" ID1, -ENOENT, NULL, NULL, NULL, NULL },
	/* a malformed pod uid: the container still counts, without a pod */
	{ "/kubepods.slice/kubepods-pod74c13223_5a00_11e9_b385.slice/crio-" ID1
	  ".scope", 0, ID1, "cri-o", "", NULL },
	{ "/kubepods.slice/kubepods-pod" UID ".slice/crio-" ID1 ".scope", 0, ID1,
	  "cri-o", "", NULL },
	{ "/kubepods/pod74C13223-5A00-11E9-B385-42010A80018D/" ID2, -ENOENT,
	  NULL, NULL, NULL, NULL },
};

static void test_container_parse(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct ccase *c = &cases[i];
		struct container_info ci;
		size_t scope_len;
		int ret;

		memset(&ci, 0x5a, sizeof(ci));
		ret = container__parse(c->path, &ci);
		if (ret != c->ret)
			fail_msg("'%s': %d, want %d", c->path, ret, c->ret);
		if (ret) {
			assert_string_equal(ci.id, "");
			assert_null(ci.runtime);
			continue;
		}
		if (strcmp(ci.id, c->id) || strcmp(ci.runtime, c->runtime) ||
		    strcmp(ci.pod_uid, c->pod_uid))
			fail_msg("'%s': id %s runtime %s pod '%s'", c->path,
				 ci.id, ci.runtime, ci.pod_uid);
		/* by default the container's cgroup is the whole path */
		scope_len = c->scope ? strlen(c->scope) : strlen(c->path);
		if (c->scope)
			assert_int_equal(strncmp(c->path, c->scope, scope_len), 0);
		if (ci.scope_len != scope_len)
			fail_msg("'%s': scope_len %zu, want %zu", c->path,
				 ci.scope_len, scope_len);
	}
}

/* Pods' own cgroups and what is below them; a container's pod is the one
 * container__parse() gives. */
static const struct {
	const char *path;
	int ret;
	const char *uid;
} pod_cases[] = {
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
	  UID_ ".slice", 0, UID },
	{ "/kubepods/besteffort/pod" UID, 0, UID },
	{ "/kubepods/pod" STATIC_UID "/", 0, STATIC_UID },
	{ "/kubepods/besteffort/pod" UID "/" ID1, 0, UID },
	{ "/kubepods/besteffort/pod" UID "/" ID1 "/sub", 0, UID },
	/* near misses: no kubepods above it, a uid too short, no pod */
	{ "/pod" UID, -ENOENT, "" },
	{ "/kubepods/besteffort/pod" ID63, -ENOENT, "" },
	{ "/kubepods/besteffort", -ENOENT, "" },
	{ "/docker/" ID1, -ENOENT, "" },
	{ "/", -ENOENT, "" },
	{ "", -ENOENT, "" },
};

static void test_container_pod_uid(void **state)
{
	char uid[CONTAINER_POD_UID_LEN + 1];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(pod_cases); i++) {
		int ret = container__pod_uid(pod_cases[i].path, uid);

		if (ret != pod_cases[i].ret || strcmp(uid, pod_cases[i].uid))
			fail_msg("'%s': %d '%s', want %d '%s'", pod_cases[i].path,
				 ret, uid, pod_cases[i].ret, pod_cases[i].uid);
	}
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (cases[i].ret)
			continue;
		if (container__pod_uid(cases[i].path, uid) !=
		    (cases[i].pod_uid[0] ? 0 : -ENOENT) ||
		    strcmp(uid, cases[i].pod_uid))
			fail_msg("'%s': pod '%s', want '%s'", cases[i].path, uid,
				 cases[i].pod_uid);
	}
	assert_int_equal(container__pod_uid(NULL, uid), -EINVAL);
	assert_int_equal(container__pod_uid("/", NULL), -EINVAL);
}

/* Each runtime's forms under the systemd and cgroupfs drivers, as the
 * runtimes' sources build them, and whether the path alone says whose the
 * container is: only a bare id below a pod does not (containerd, docker
 * under cri-dockerd, CRI-O before crio-<id>), and is read as containerd's
 * until a runtime's files say otherwise. */
static const struct {
	const char *path;
	const char *runtime;
	bool guessed;
} forms[] = {
	/* docker: systemd, cgroupfs; cri-dockerd under Kubernetes */
	{ "/system.slice/docker-" ID1 ".scope", "docker", false },
	{ "/docker/" ID1, "docker", false },
	{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
	  ".slice/docker-" ID1 ".scope", "docker", false },
	{ "/kubepods/besteffort/pod" UID "/" ID1, "containerd", true },
	/* containerd's CRI plugin: systemd, cgroupfs */
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	  ".slice/cri-containerd-" ID3 ".scope", "containerd", false },
	{ "/kubepods/burstable/pod" UID "/" ID3, "containerd", true },
	{ "/kubepods/pod" STATIC_UID "/" ID3, "containerd", true },
	/* CRI-O: systemd (runc, crun's own sub-cgroup), cgroupfs (below the
	 * kubelet's pod, below its own default parent /crio), early cgroupfs */
	{ "/kubepods.slice/kubepods-pod" UID_ ".slice/crio-" ID2 ".scope",
	  "cri-o", false },
	{ "/kubepods.slice/kubepods-pod" UID_ ".slice/crio-" ID2 ".scope/container",
	  "cri-o", false },
	{ "/kubepods/besteffort/pod" UID "/crio-" ID2, "cri-o", false },
	{ "/kubepods/besteffort/pod" UID "/crio-" ID2 "/container", "cri-o", false },
	{ "/crio/crio-" ID2, "cri-o", false },
	{ "/kubepods/besteffort/pod" UID "/" ID2, "containerd", true },
	/* podman: systemd, cgroupfs */
	{ "/machine.slice/libpod-" ID2 ".scope", "podman", false },
	{ "/libpod_parent/libpod-" ID2, "podman", false },
	/* a bare id below a named container is that runtime's */
	{ "/kubepods/besteffort/pod" UID "/" ID1 "/docker/" ID2, "docker", false },
};

static void test_container_runtime_forms(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(forms); i++) {
		struct container_info ci;

		if (container__parse(forms[i].path, &ci) ||
		    strcmp(ci.runtime, forms[i].runtime) ||
		    ci.guessed != forms[i].guessed)
			fail_msg("'%s': %s%s, want %s%s", forms[i].path, ci.runtime,
				 ci.guessed ? "?" : "", forms[i].runtime,
				 forms[i].guessed ? "?" : "");
	}
	/* containerd, which runs docker's containers too (and has their
	 * bundles), is looked in last */
	assert_string_equal(container_bare_runtimes[0], "docker");
	assert_string_equal(container_bare_runtimes[2], "containerd");
	assert_null(container_bare_runtimes[3]);
}

static void test_container_bad_args(void **state)
{
	struct container_info ci;

	(void)state;
	assert_int_equal(container__parse(NULL, &ci), -EINVAL);
	assert_int_equal(container__parse("/docker/" ID1, NULL), -EINVAL);
	/* a relative path works as well */
	assert_int_equal(container__parse("docker/" ID1, &ci), 0);
	assert_string_equal(ci.id, ID1);
}

/*
 * -v says once why a container has no names: at its first read, not
 * again when the reads of the next minute stop (the files never came).
 */
static void test_cache_says_why_once(void **state)
{
	struct container_roots r = { .dir = { "/nonexistent", "/nonexistent",
					      "/nonexistent", "/nonexistent" } };
	struct cont_cache c;
	char path[] = "/system.slice/docker-" ID1 ".scope";
	char log[] = "/tmp/test_container.XXXXXX", line[1024];
	int fd = mkstemp(log), saved = dup(2), lines = 0;
	FILE *f;

	(void)state;
	assert_true(fd >= 0 && saved >= 0);
	memset(&c, 0, sizeof(c));
	verbose = 1;
	fflush(stderr);
	dup2(fd, 2);
	cont_cache__see(&c, path, &r, 0.0);
	assert_int_equal(c.nr_pending, 1);
	for (double t = 0.5; t < 200; t += 0.5)
		cont_cache__retry(&c, &r, t);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	verbose = 0;
	assert_int_equal(c.nr_pending, 0);	/* it gave up */
	f = fdopen(fd, "r");
	assert_non_null(f);
	rewind(f);
	while (fgets(line, sizeof(line), f))
		lines += strstr(line, "no names") != NULL;
	fclose(f);
	unlink(log);
	cont_cache__exit(&c);
	assert_int_equal(lines, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_container_parse),
		cmocka_unit_test(test_container_pod_uid),
		cmocka_unit_test(test_container_runtime_forms),
		cmocka_unit_test(test_container_bad_args),
		cmocka_unit_test(test_cache_says_why_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
