// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgroup paths: mount discovery, user paths, ancestry, names of ids. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "engine/names/cgroup.h"
#include "helpers.h"

static void test_normalize(void **state)
{
	static const struct {
		const char *in, *out;
		int err;
	} cases[] = {
		{ "/", "/", 0 },
		{ "system.slice", "/system.slice", 0 },
		{ "/system.slice/", "/system.slice", 0 },
		{ "//a///b//", "/a/b", 0 },
		{ "a/b.scope", "/a/b.scope", 0 },
		{ "/a/.hidden", "/a/.hidden", 0 },
		{ "/a/..b", "/a/..b", 0 },
		{ "", NULL, -EINVAL },
		{ "/a/../b", NULL, -EINVAL },
		{ "..", NULL, -EINVAL },
		{ "/a/.", NULL, -EINVAL },
		{ "./a", NULL, -EINVAL },
	};
	char out[PATH_MAX];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int err = cgroup__normalize(cases[i].in, out, sizeof(out));

		assert_int_equal(err, cases[i].err);
		if (!err)
			assert_string_equal(out, cases[i].out);
	}
	assert_int_equal(cgroup__normalize("/abcdef", out, 4), -ENAMETOOLONG);
	assert_int_equal(cgroup__normalize(NULL, out, sizeof(out)), -EINVAL);
}

static void test_is_under(void **state)
{
	static const struct {
		const char *path, *top;
		bool want;
	} cases[] = {
		{ "/a", "/a", true },
		{ "/a/b", "/a", true },
		{ "/a/b/c", "/a/b", true },
		{ "/ab", "/a", false },
		{ "/a", "/a/b", false },
		{ "/", "/", true },
		{ "/x/y", "/", true },
		{ "/b/a", "/a", false },
		{ "/a/[removed cgroup 7]", "/a", true },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		assert_int_equal(cgroup__is_under(cases[i].path, cases[i].top),
				 cases[i].want);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_find_mount(void **state)
{
	char dir[] = "/tmp/emon-cg-XXXXXX", file[PATH_MAX], out[PATH_MAX];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/mounts", dir);

	write_file(file,
		"sysfs /sys sysfs rw 0 0\n"
		"cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n"
		"cgroup2 /sys/fs/cgroup/unified cgroup2 rw,nsdelegate 0 0\n");
	assert_int_equal(cgroup__find_mount(file, out, sizeof(out)), 0);
	assert_string_equal(out, "/sys/fs/cgroup/unified");

	write_file(file, "cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n");
	assert_int_equal(cgroup__find_mount(file, out, sizeof(out)), 0);
	assert_string_equal(out, "/sys/fs/cgroup");
	assert_int_equal(cgroup__find_mount(file, out, 5), -ENAMETOOLONG);

	/* v1 only: no cgroup2 */
	write_file(file, "cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n");
	assert_int_equal(cgroup__find_mount(file, out, sizeof(out)), -ENOENT);
	write_file(file, "");
	assert_int_equal(cgroup__find_mount(file, out, sizeof(out)), -ENOENT);
	unlink(file);
	assert_int_equal(cgroup__find_mount(file, out, sizeof(out)), -ENOENT);
	rmdir(dir);
}

/* The walk names directories by inode, as cgroupfs names cgroups. */
static bool no_parent(void *ctx, __u64 id, __u64 *parent, char *name, size_t len)
{
	(void)ctx;
	(void)id;
	(void)parent;
	(void)name;
	(void)len;
	return false;
}

/* BPF's record: the parent is ctx, no name */
static bool parent_is_ctx(void *ctx, __u64 id, __u64 *parent, char *name, size_t len)
{
	(void)id;
	*parent = *(__u64 *)ctx;
	snprintf(name, len, "%s", "");
	return true;
}

struct bpf_rec {
	__u64 id, parent;
	const char *name;
};

/* BPF's records: a table of { id, parent, name } ending with id 0 */
static bool table_info(void *ctx, __u64 id, __u64 *parent, char *name, size_t len)
{
	for (const struct bpf_rec *r = ctx; r->id; r++) {
		if (r->id != id)
			continue;
		*parent = r->parent;
		snprintf(name, len, "%s", r->name);
		return true;
	}
	return false;
}

static void test_names_walk(void **state)
{
	char dir[] = "/tmp/emon-cg-XXXXXX", p[PATH_MAX];
	struct cgroup_names n;
	__u64 id_a, id_ab, root;
	const char *path;
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/a", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/a/b", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(cgroup__id(dir, "/a", &id_a), 0);
	assert_int_equal(cgroup__id(dir, "/a/b", &id_ab), 0);
	assert_int_equal(cgroup__id(dir, "/missing", &root), -ENOENT);
	assert_int_equal(stat(dir, &st), 0);
	root = st.st_ino;

	assert_int_equal(cgroup_names__init(&n, dir), 0);
	assert_int_equal(cgroup_names__walk(&n), 0);
	assert_string_equal(cgroup_names__path(&n, root, no_parent, NULL), "/");
	assert_string_equal(cgroup_names__path(&n, id_a, no_parent, NULL), "/a");
	assert_string_equal(cgroup_names__path(&n, id_ab, no_parent, NULL), "/a/b");

	/* removed: keeps its last known path */
	assert_int_equal(rmdir(p), 0);
	n.gen++;
	assert_int_equal(cgroup_names__walk(&n), 0);
	assert_string_equal(cgroup_names__path(&n, id_ab, no_parent, NULL), "/a/b");

	/* never seen, parent known from BPF: named below it */
	n.gen++;
	path = cgroup_names__path(&n, 987654321ULL, parent_is_ctx, &id_a);
	assert_string_equal(path, "/a/[removed cgroup 987654321]");
	assert_true(cgroup__is_under(path, "/a"));
	/* no parent known: below the root */
	path = cgroup_names__path(&n, 987654322ULL, no_parent, NULL);
	assert_string_equal(path, "/[removed cgroup 987654322]");

	/* never seen, but BPF recorded its name and its (also removed)
	 * parent's, up to a known ancestor: its real path, no walk */
	{
		struct bpf_rec recs[] = {
			{ 1001, 1000, "leaf" }, { 1000, id_a, "mid" },
			{ 2001, 2000, "x" }, { 2000, 999, "y" },
			{ 3001, id_a, "a/b" }, { 0 },
		};
		unsigned long walks = n.walks;

		n.gen++;
		path = cgroup_names__path(&n, 1001, table_info, recs);
		assert_string_equal(path, "/a/mid/leaf");
		assert_string_equal(cgroup_names__path(&n, 1000, table_info, recs), "/a/mid");
		assert_int_equal(n.walks, walks);
		/* the chain ends at an id nobody knows: below its nearest
		 * known ancestor, never at a made-up path */
		path = cgroup_names__path(&n, 2001, table_info, recs);
		assert_non_null(strstr(path, "[removed cgroup 2001]"));
		/* a name with a slash is not a name */
		path = cgroup_names__path(&n, 3001, table_info, recs);
		assert_string_equal(path, "/a/[removed cgroup 3001]");

		/* pruned once unused for 2 gens: dead or named from BPF */
		assert_non_null(idmap__get(&n.ids, 1001, 0));
		n.gen += 3;
		assert_true(cgroup_names__prune(&n, 2) >= 4);
		assert_null(idmap__get(&n.ids, 1001, 0));
		assert_null(idmap__get(&n.ids, 987654321ULL, 0));
		/* walked and alive: kept */
		assert_non_null(idmap__get(&n.ids, id_a, 0));
		assert_non_null(idmap__get(&n.ids, root, 0));
	}

	cgroup_names__exit(&n);
	snprintf(p, sizeof(p), "%s/a", dir);
	rmdir(p);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_is_under),
		cmocka_unit_test(test_find_mount),
		cmocka_unit_test(test_names_walk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
