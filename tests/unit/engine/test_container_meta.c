// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Container names from the runtimes' files (tests/fixtures/runtimes/,
 * one root per runtime): docker's config.v2.json with and without
 * cri-dockerd's labels, podman's, CRI-O's and containerd's OCI bundles,
 * next to broken ones (truncated, wrong types, missing fields, not an
 * object, an over-long value or file, symlinks): each fills what it can
 * and never crashes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "engine/names/container.h"
#include "engine/names/container_meta.h"
#include "helpers.h"

#define FIX "tests/fixtures/runtimes"
#define ID(c) c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c \
	      c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c

static const struct container_roots fixture_roots = { .dir = {
	[CONTAINER_DOCKER] = FIX "/docker",
	[CONTAINER_CONTAINERD] = FIX "/containerd",
	[CONTAINER_CRIO] = FIX "/cri-o",
	[CONTAINER_PODMAN] = FIX "/podman",
} };

struct mcase {
	const char *what;
	const char *runtime;
	const char *id;
	int ret;
	const char *name, *image, *ns, *pod, *container;
	const char *why;	/* in the reason, on error */
};

static const struct mcase cases[] = {
	{ "docker", "docker", ID("a"), 0, "web", "nginx:1.25", "", "", "" },
	{ "docker under cri-dockerd", "docker", ID("b"), 0,
	  "k8s_app_shop-7d9_prod_0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0_0",
	  "registry.example/shop@sha256:"
	  "5555555555555555555555555555555555555555555555555555555555555555",
	  "prod", "shop-7d9", "app" },
	{ "podman with containerd's CRI annotations", "podman", ID("0"), 0,
	  "cart-box", "localhost/cart:2", "shop", "cart-5c", "cart" },
	{ "cri-o", "cri-o", ID("1"), 0,
	  "k8s_db_pg-0_data_11111111-2222-3333-4444-555555555555_0",
	  "docker.io/library/postgres:16", "data", "pg-0", "db" },
	{ "containerd, k8s.io", "containerd", ID("2"), 0, "",
	  "docker.io/library/redis:7", "kv", "cache-0", "redis" },
	{ "containerd, default: no annotations", "containerd", ID("3"), 0,
	  "", "", "", "", "" },
	/* broken and missing */
	{ "truncated JSON", "docker", ID("c"), -EBADMSG, .why = "not a JSON" },
	{ "wrong types", "docker", ID("d"), 0, "", "", "", "", "" },
	{ "missing fields, over-long pod", "docker", ID("e"), 0, "", "", "", "",
	  "ok" },
	{ "not an object", "docker", ID("f"), -EBADMSG, .why = "config.v2.json" },
	{ "no such container", "docker", ID("9"), -ENOENT, .why = "No such file" },
	{ "containerd, no bundle", "containerd", ID("9"), -ENOENT,
	  .why = "task/*/" },
	{ "podman, bundle not written yet", "podman", ID("1"), -ENOENT },
	{ "unknown runtime", "lxc", ID("a"), -EINVAL },
	{ "short id", "docker", "aaaa", -EINVAL },
	{ "uppercase id", "docker", ID("A"), -EINVAL },
	{ "no id", "docker", NULL, -EINVAL },
};

static void run_case(void **state)
{
	const struct mcase *c = *state;
	struct container_meta m;
	char why[512] = "";
	int ret;

	ret = container_meta__read(&m, &fixture_roots, c->runtime, c->id, why,
				   sizeof(why));
	assert_int_equal(ret, c->ret);
	if (ret) {
		assert_true(why[0]);
		if (c->why && !strstr(why, c->why))
			fail_msg("why \"%s\" lacks \"%s\"", why, c->why);
		assert_string_equal(m.name, "");
		assert_string_equal(m.pod, "");
		return;
	}
	assert_string_equal(m.name, c->name);
	assert_string_equal(m.image, c->image);
	assert_string_equal(m.ns, c->ns);
	assert_string_equal(m.pod, c->pod);
	assert_string_equal(m.container, c->container);
}

/* A root of our own in a temporary directory. */
struct tmp_root {
	char dir[64];
	char path[256];
};

static void tmp_root__mkdirs(struct tmp_root *t, const char *rel)
{
	char p[512], *s;

	snprintf(p, sizeof(p), "%s/%s", t->dir, rel);
	for (s = p + strlen(t->dir) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
}

static void tmp_root__init(struct tmp_root *t)
{
	strcpy(t->dir, "/tmp/emon-meta-XXXXXX");
	assert_non_null(mkdtemp(t->dir));
}

static void tmp_root__exit(struct tmp_root *t)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
	assert_int_equal(system(cmd), 0);
}

static int read_docker(struct tmp_root *t, const char *id, char *why,
		       size_t len, struct container_meta *m)
{
	struct container_roots r = { .dir = { [CONTAINER_DOCKER] = t->dir } };

	return container_meta__read(m, &r, "docker", id, why, len);
}

/* A config.v2.json that is a link to another file, and a container
 * directory that is a link to another container's: neither is read. */
static void test_symlinks(void **state)
{
	char target[512], link[512], why[512], cwd[256];
	struct container_meta m;
	struct tmp_root t;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	tmp_root__init(&t);
	tmp_root__mkdirs(&t, "containers/" ID("a"));
	snprintf(target, sizeof(target), "%s/" FIX "/docker/containers/" ID("a")
		 "/config.v2.json", cwd);
	snprintf(link, sizeof(link), "%s/containers/" ID("a") "/config.v2.json",
		 t.dir);
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(read_docker(&t, ID("a"), why, sizeof(why), &m), -ELOOP);
	assert_non_null(strstr(why, "symlink"));
	assert_string_equal(m.name, "");

	snprintf(target, sizeof(target), "%s/" FIX "/docker/containers/" ID("b"),
		 cwd);
	snprintf(link, sizeof(link), "%s/containers/" ID("b"), t.dir);
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(read_docker(&t, ID("b"), why, sizeof(why), &m), -ELOOP);
	assert_string_equal(m.pod, "");
	tmp_root__exit(&t);
}

/* A file past the size bound is not read; a directory where the file
 * should be is no file. */
static void test_large_and_odd(void **state)
{
	char path[512], why[512];
	struct container_meta m;
	struct tmp_root t;
	int fd;

	(void)state;
	tmp_root__init(&t);
	tmp_root__mkdirs(&t, "containers/" ID("a"));
	snprintf(path, sizeof(path), "%s/containers/" ID("a") "/config.v2.json",
		 t.dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(dprintf(fd, "{\"Name\": \"/big\", \"Pad\": \""), 25);
	assert_int_equal(ftruncate(fd, CONTAINER_META_MAX_FILE + 1), 0);
	close(fd);
	assert_int_equal(read_docker(&t, ID("a"), why, sizeof(why), &m), -EFBIG);
	assert_string_equal(m.name, "");
	/* at the bound, it is read (and broken: the zeros end no string) */
	assert_int_equal(truncate(path, CONTAINER_META_MAX_FILE), 0);
	assert_int_equal(read_docker(&t, ID("a"), why, sizeof(why), &m), -EBADMSG);

	tmp_root__mkdirs(&t, "containers/" ID("b") "/config.v2.json");
	assert_int_equal(read_docker(&t, ID("b"), why, sizeof(why), &m), -EINVAL);
	tmp_root__exit(&t);
}

/* A bare id below a pod (cgroupfs driver) could be containerd's,
 * cri-dockerd's docker's or an early CRI-O's: the runtime whose files
 * hold it names it, containerd's looked in last (it has docker's bundles
 * too). */
static void test_read_any(void **state)
{
	static const struct {
		const char *id;
		int ret;
		const char *found, *pod, *why;
	} cases[] = {
		{ ID("2"), 0, "containerd", "cache-0", NULL },
		/* docker's, its bundle in containerd's moby namespace too */
		{ ID("b"), 0, "docker", "shop-7d9", NULL },
		{ ID("1"), 0, "cri-o", "pg-0", NULL },
		/* docker's, being written: its runtime still, read again */
		{ ID("c"), -EBADMSG, "docker", "", "not a JSON" },
		/* nobody's (yet): each root looked in is named */
		{ ID("9"), -ENOENT, NULL, "", FIX "/containerd/io.containerd" },
		{ ID("9"), -ENOENT, NULL, "", FIX "/docker/containers/" },
		{ ID("9"), -ENOENT, NULL, "", FIX "/cri-o/overlay-containers/" },
		{ "short", -EINVAL, "docker", "", "no runtime or id" },
	};
	struct container_meta m;
	char why[1024];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *found = "unset";
		int ret = container_meta__read_any(&m, &fixture_roots,
						   container_bare_runtimes,
						   cases[i].id, &found, why,
						   sizeof(why));

		if (ret != cases[i].ret ||
		    (found && cases[i].found ? strcmp(found, cases[i].found) :
		     found != cases[i].found) || strcmp(m.pod, cases[i].pod) ||
		    (cases[i].why && !strstr(why, cases[i].why)))
			fail_msg("%.12s: %d %s pod '%s' (%s), want %d %s '%s' '%s'",
				 cases[i].id, ret, found, m.pod, why, cases[i].ret,
				 cases[i].found, cases[i].pod, cases[i].why);
	}
}

static void test_roots(void **state)
{
	struct container_roots r = {};

	(void)state;
	assert_string_equal(container_roots__dir(&r, CONTAINER_DOCKER),
			    "/var/lib/docker");
	assert_string_equal(container_roots__dir(NULL, CONTAINER_CONTAINERD),
			    "/run/containerd");
	assert_string_equal(container_roots__dir(&r, CONTAINER_CRIO),
			    "/run/containers/storage");
	assert_string_equal(container_roots__dir(&r, CONTAINER_PODMAN),
			    "/var/lib/containers/storage");
	assert_int_equal(container_roots__parse(&r, "docker=/srv/docker"), 0);
	assert_int_equal(container_roots__parse(&r, "cri-o=/run/crio-x"), 0);
	assert_string_equal(container_roots__dir(&r, CONTAINER_DOCKER), "/srv/docker");
	assert_string_equal(container_roots__dir(&r, CONTAINER_CRIO), "/run/crio-x");
	assert_int_equal(container_roots__parse(&r, "lxc=/var/lib/lxc"), -EINVAL);
	assert_int_equal(container_roots__parse(&r, "docker"), -EINVAL);
	assert_int_equal(container_roots__parse(&r, "docker="), -EINVAL);
	assert_int_equal(container_roots__parse(&r, "docker=rel/dir"), -EINVAL);
	assert_int_equal(container_roots__parse(&r, "=/x"), -EINVAL);
	assert_null(container_roots__dir(&r, CONTAINER_RUNTIMES));
	assert_int_equal(container_runtime__parse("podman"), CONTAINER_PODMAN);
	assert_int_equal(container_runtime__parse(NULL), -1);
}

int main(void)
{
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_symlinks),
		cmocka_unit_test(test_large_and_odd),
		cmocka_unit_test(test_roots),
		cmocka_unit_test(test_read_any),
	};

	return tests__run(fixed, ARRAY_SIZE(fixed), run_case, cases,
			  ARRAY_SIZE(cases), sizeof(cases[0]),
			  offsetof(struct mcase, what));
}
