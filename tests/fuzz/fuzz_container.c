// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * container__parse() on a cgroup path. Promises: 0 or -ENOENT (out zeroed);
 * on 0 a 64-lowercase-hex id that is in the path's first scope_len bytes,
 * a known runtime, and a pod uid that is empty or 32 hex / a UUID.
 */
#include <errno.h>
#include <stdbool.h>
#include "engine/names/container.h"
#include "tests/fuzz/fuzz.h"

static bool lower_hex(const char *s, size_t n)
{
	return strspn(s, "0123456789abcdef") >= n;
}

static void check_found(const char *path, const struct container_info *c)
{
	size_t pod = strlen(c->pod_uid);
	char *scope;

	FUZZ_ASSERT(strlen(c->id) == CONTAINER_ID_LEN);
	FUZZ_ASSERT(lower_hex(c->id, CONTAINER_ID_LEN));
	FUZZ_ASSERT(c->runtime);
	FUZZ_ASSERT(!strcmp(c->runtime, "docker") ||
		    !strcmp(c->runtime, "containerd") ||
		    !strcmp(c->runtime, "cri-o") ||
		    !strcmp(c->runtime, "podman"));
	FUZZ_ASSERT(pod == 0 || pod == 32 || pod == CONTAINER_POD_UID_LEN);
	FUZZ_ASSERT(c->scope_len > 0 && c->scope_len <= strlen(path));
	FUZZ_ASSERT(path[c->scope_len] == '\0' || path[c->scope_len] == '/');
	scope = strndup(path, c->scope_len);
	if (!scope)
		abort();
	FUZZ_ASSERT(strstr(scope, c->id));
	free(scope);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct container_info zero;
	struct container_info c;
	char *path = fuzz__str(data, size);
	int ret;

	memset(&c, 0x5a, sizeof(c));
	ret = container__parse(path, &c);
	if (!ret)
		check_found(path, &c);
	else
		FUZZ_ASSERT(ret == -ENOENT && !memcmp(&c, &zero, sizeof(c)));
	free(path);
	return 0;
}
