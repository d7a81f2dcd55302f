// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cgroup paths as -G takes them: cgroup__normalize() into buffers of every
 * small size (exactly that size, so ASan sees a write past it) and
 * cgroup__is_under() between two paths; and the cgroup2 mount found in a
 * mounts file made of the input (cgroup__find_mount()).
 *
 * Input: PATH \0 TOP \0 LEN-BYTE (the output buffer size, else PATH_MAX).
 * Promises: a normalized path starts with '/', has no "//", no trailing
 * '/' (but "/"), no "." or ".." part, and normalizes to itself; a path is
 * under itself and under "/"; "/ab" is not under "/a".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <sys/mman.h>
#include <unistd.h>
#include "engine/names/cgroup.h"
#include "tests/fuzz/fuzz.h"

static void check_normalized(const char *p)
{
	char again[PATH_MAX];
	size_t n = strlen(p);

	FUZZ_ASSERT(p[0] == '/');
	FUZZ_ASSERT(!strstr(p, "//"));
	FUZZ_ASSERT(n == 1 || p[n - 1] != '/');
	FUZZ_ASSERT(!strstr(p, "/./") && !strstr(p, "/../"));
	FUZZ_ASSERT(strcmp(p, "/.") && strcmp(p, "/.."));
	FUZZ_ASSERT(n < 2 || strcmp(p + n - 2, "/.")) ;
	FUZZ_ASSERT(n < 3 || strcmp(p + n - 3, "/.."));
	FUZZ_ASSERT(!cgroup__normalize(p, again, sizeof(again)));
	FUZZ_ASSERT(!strcmp(p, again));
	FUZZ_ASSERT(cgroup__is_under(p, p));
	FUZZ_ASSERT(cgroup__is_under(p, "/"));
}

/* Every small buffer size: ENAMETOOLONG exactly when it does not fit. */
static void normalize_sizes(const char *in, const char *norm, int full_ret,
			    int len_byte)
{
	size_t len = len_byte, need = strlen(norm) + 1;
	char *out = malloc(len ? len : 1);
	int ret;

	if (!out)
		abort();
	ret = cgroup__normalize(in, out, len);
	if (full_ret)
		FUZZ_ASSERT(ret == full_ret || ret == -ENAMETOOLONG);
	else if (len >= need)
		FUZZ_ASSERT(!ret && !strcmp(out, norm));
	else
		FUZZ_ASSERT(ret == -ENAMETOOLONG);
	free(out);
}

/* The input as a mounts file: the same parser as /proc/mounts gets. */
static void find_mount(const uint8_t *data, size_t size)
{
	char path[64], out[PATH_MAX];
	int fd = memfd_create("mounts", MFD_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (!cgroup__find_mount(path, out, sizeof(out)))
			FUZZ_ASSERT(strlen(out) < sizeof(out));
		if (!cgroup__find_mount(path, out, 8))
			FUZZ_ASSERT(strlen(out) < 8);
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char norm[PATH_MAX], top_norm[PATH_MAX], *f[3];
	int n, ret, top_ret;

	n = fuzz__split(data, size, f, 3);
	ret = cgroup__normalize(f[0], norm, sizeof(norm));
	if (!ret)
		check_normalized(norm);
	else
		FUZZ_ASSERT(ret == -EINVAL || ret == -ENAMETOOLONG);
	if (n > 2 && f[2][0])
		normalize_sizes(f[0], ret ? "" : norm, ret,
				(unsigned char)f[2][0]);
	if (n > 1) {
		/* raw strings, as the rows code may hand them over */
		(void)cgroup__is_under(f[0], f[1]);
		top_ret = cgroup__normalize(f[1], top_norm, sizeof(top_norm));
		if (!ret && !top_ret && cgroup__is_under(norm, top_norm)) {
			/* under means a prefix that ends at a '/' */
			size_t t = strlen(top_norm);

			FUZZ_ASSERT(!strcmp(top_norm, "/") ||
				    (!strncmp(norm, top_norm, t) &&
				     (norm[t] == '\0' || norm[t] == '/')));
		}
	}
	fuzz__free(f, n);
	find_mount(data, size);
	return 0;
}
