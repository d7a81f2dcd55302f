// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Scope names, as --by takes them and every output prints them. */
#include <string.h>
#include "front/rows.h"

static const char *const scope_names[SCOPE_NR] = {
	[SCOPE_SYSTEM]		= "system",
	[SCOPE_CPU]		= "cpu",
	[SCOPE_SOCKET]		= "socket",
	[SCOPE_CGROUP]		= "cgroup",
	[SCOPE_CONTAINER]	= "container",
	[SCOPE_PROCESS]		= "process",
	[SCOPE_COMMAND]		= "command",
	[SCOPE_POD]		= "pod",
	[SCOPE_NAMESPACE]	= "namespace",
	[SCOPE_DIE]		= "die",
	[SCOPE_CORE]		= "core",
	[SCOPE_THREAD]		= "thread",
	[SCOPE_NODE]		= "node",
};

/* "unknown" rather than NULL: callers hand the name straight to printf. */
const char *scope__name(enum scope s)
{
	if ((unsigned int)s >= SCOPE_NR)
		return "unknown";
	return scope_names[s];
}

int scope__parse(const char *s)
{
	int i;

	if (!s)
		return -1;
	for (i = 0; i < SCOPE_NR; i++) {
		if (!strcmp(s, scope_names[i]))
			return i;
	}
	return -1;
}

const char *const row_zone_names[4] = { "core", "uncore", "dram", "psys" };
