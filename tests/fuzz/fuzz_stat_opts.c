// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf stat's command line: argv is "stat" then the input split at
 * NUL bytes, through stat_opts__parse() (getopt_long) and
 * front_opts__free(), as cmd_stat() runs them; then again on a fresh copy
 * of argv after the first is freed, which must give the same result.
 *
 * Promises: 0, 1 (--help) or -EINVAL; after 0 the values are in range
 * (-I >= 10, --timeout >= 1, max entries in 1..2^24, idle watts finite
 * >= 0, every -G path normalized, each event's -G pair one of them or
 * none), events non-empty, -x and -j not both,
 * the command (if any) a NULL-terminated tail of argv.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include "cli/commands.h"
#include "cli/stat/stat.h"
#include "tests/fuzz/fuzz.h"

#define MAX_ARGS 64

static void check_opts(const struct front_opts *o, char **argv, int argc)
{
	char norm[PATH_MAX];
	int i;

	FUZZ_ASSERT(memchr(o->events, '\0', sizeof(o->events)));
	FUZZ_ASSERT(o->events[0]);
	FUZZ_ASSERT(!o->interval_ms || o->interval_ms >= 10);
	FUZZ_ASSERT(!o->timeout_ms || o->timeout_ms >= 1);
	FUZZ_ASSERT(o->eng.max_cgroups <= 1u << 24 && o->eng.max_procs <= 1u << 24);
	FUZZ_ASSERT(isfinite(o->eng.idle_watts) && o->eng.idle_watts >= 0);
	FUZZ_ASSERT(!(o->sep && o->json));
	FUZZ_ASSERT(!(o->sep && o->perf_json));
	FUZZ_ASSERT(!(o->json && o->perf_json));
	FUZZ_ASSERT(!o->sep || o->sep[0]);
	FUZZ_ASSERT(o->nr_cgroups >= 0 && o->nr_cgroups <= FRONT_MAX_CGROUPS);
	for (i = 0; i < o->nr_cgroups; i++) {
		FUZZ_ASSERT(!cgroup__normalize(o->cgroups[i], norm, sizeof(norm)));
		FUZZ_ASSERT(!strcmp(norm, o->cgroups[i]));
	}
	/* -G's pairs: a cgroup of the list, or none; not with for-each's */
	FUZZ_ASSERT(!(o->cg_paired && o->cg_each));
	for (i = 0; i < EMON_MAX_EVENTS; i++)
		FUZZ_ASSERT(o->cg_of[i] >= 0 && o->cg_of[i] <= o->nr_cgroups);
	if (o->cmd) {
		FUZZ_ASSERT(o->cmd > argv && o->cmd < argv + argc);
		FUZZ_ASSERT(!argv[argc]);
	}
}

/* argv = "stat" + the input's NUL-separated strings, each its own buffer */
static int argv__make(const uint8_t *data, size_t size, char **argv)
{
	int n = size ? fuzz__split(data, size, argv + 1, MAX_ARGS) : 0;

	argv[0] = strdup("stat");
	if (!argv[0])
		abort();
	argv[n + 1] = NULL;
	return n + 1;
}

static int parse(struct front_opts *o, char **argv, int argc)
{
	int ret;

	verbose = 0;
	optind = 0;	/* what a new process starts with */
	ret = stat_opts__parse(o, argc, argv);
	FUZZ_ASSERT(ret == 0 || ret == 1 || ret == -EINVAL);
	if (!ret)
		check_opts(o, argv, argc);
	return ret;
}

/*
 * Twice, the first argv freed before the second parse: the result must
 * depend on argv alone, not on what getopt kept from the previous call.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct front_opts *o = malloc(sizeof(*o));
	char *argv[MAX_ARGS + 2], events[sizeof(o->events)];
	int argc, ret, nr_cgroups;

	if (!o)
		abort();
	argc = argv__make(data, size, argv);
	ret = parse(o, argv, argc);
	memcpy(events, o->events, sizeof(events));
	nr_cgroups = o->nr_cgroups;
	front_opts__free(o);
	fuzz__free(argv, argc);

	argc = argv__make(data, size, argv);
	FUZZ_ASSERT(parse(o, argv, argc) == ret);
	FUZZ_ASSERT(!memcmp(events, o->events, sizeof(events)));
	FUZZ_ASSERT(o->nr_cgroups == nr_cgroups);
	front_opts__free(o);
	fuzz__free(argv, argc);
	free(o);
	return 0;
}
