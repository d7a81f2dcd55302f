// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf check: a self-check of the host, about 10 s here. Facts
 * first (cli/check/check_host.c), then the validation
 * (cli/check/check_run.c), then one table, or one JSON object with -j.
 * Exit status 0 when no row failed, 1 when one did, 2 for bad usage. A
 * signal ends it early, with the workload, its cgroup and the engine
 * undone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "cli/check/check.h"
#include "cli/commands.h"
#include "front/errors.h"
#include "front/shared_opts.h"
#include "common/sigwake.h"
#include "engine/session/session.h"

#define DEFAULT_DURATION_S 2.5

enum { OPT_DURATION = 0x1200 };

static void usage(FILE *f)
{
	fprintf(f,
"Usage: emon-perf check [options]\n\n"
"Check what this host offers emon-perf (kernel, BTF, BPF, PMU, energy,\n"
"cgroup v2), then count a known workload in a temporary cgroup with\n"
"emon-perf and with per-task reference counters at once, through both of\n"
"emon-perf's read paths. One row a check: ok, warn, fail, skip or info.\n"
"Exit status 0 when nothing failed, 1 otherwise, 2 for bad usage.\n\n"
"  -j, --json                one JSON object: a \"checks\" array\n"
"      --duration S          each workload's length (default %.1f, 0.5-60)\n"
"      --powercap-root DIR   validate energy against this powercap tree's own\n"
"                            counters (a fake one, tools/fake-rapl)\n"
"      --gpu=LIB             the NVML library to load (default\n"
"                            libnvidia-ml.so.1; without, no GPU is a skip)\n"
"  -v, --verbose             libbpf's messages\n"
"  -h, --help                this text\n", DEFAULT_DURATION_S);
}

static int opt__one(void *ctx, int c, const char *arg)
{
	struct check_opts *o = ctx;
	struct stat st;

	switch (c) {
	case 'j':
		o->json = true;
		return 0;
	case OPT_DURATION:
		return opts__double("--duration", arg, 0.5, 60, &o->duration_s);
	case OPT_POWERCAP_ROOT:
		if (stat(arg, &st) || !S_ISDIR(st.st_mode)) {
			pr_err("--powercap-root '%s': not a directory", arg);
			return -EINVAL;
		}
		o->powercap_root = arg;
		return 0;
	case OPT_GPU:
		if (!arg || !*arg) {
			pr_err("--gpu wants the library: --gpu=PATH");
			return -EINVAL;
		}
		o->gpu_lib = arg;
		return 0;
	}
	return -EINVAL;
}

static int check__parse(struct check_opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "json",		no_argument,	   NULL, 'j' },
		{ "duration",		required_argument, NULL, OPT_DURATION },
		{ "powercap-root",	required_argument, NULL, OPT_POWERCAP_ROOT },
		{ "gpu",		required_argument, NULL, OPT_GPU },
		COMMON_LONG_OPTIONS
	};
	int ret;

	o->duration_s = DEFAULT_DURATION_S;
	ret = opts__parse(argc, argv, "+jvh", lo, "check", usage, opt__one, o);
	if (ret)
		return ret;
	if (optind < argc) {
		pr_err("unexpected argument '%s' (see 'emon-perf check --help')",
		       argv[optind]);
		return -EINVAL;
	}
	return 0;
}

static void print__text(const struct check_report *r, double elapsed)
{
	int counts[CHECK_FAIL + 1] = { 0 };

	for (int i = 0; i < r->nr; i++) {
		const struct check_row *row = &r->row[i];

		printf("%-5s %-27s %-30s %s\n", check_status__name(row->status), row->name,
		       row->figure[0] ? row->figure : "-", row->reason);
		counts[row->status]++;
	}
	printf("\n%d ok, %d warn, %d fail, %d skip in %.1f s\n", counts[CHECK_OK],
	       counts[CHECK_WARN], counts[CHECK_FAIL], counts[CHECK_SKIP], elapsed);
}

static int print__json(const struct check_report *r, double elapsed, bool failed)
{
	json_object *top = json_object_new_object(), *arr = json_object_new_array();
	int ret = 0;

	for (int i = 0; top && arr && i < r->nr; i++) {
		const struct check_row *row = &r->row[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "status",
				       json_object_new_string(check_status__name(row->status)));
		json_object_object_add(o, "name", json_object_new_string(row->name));
		json_object_object_add(o, "value", isfinite(row->value) ?
				       json_object_new_double(row->value) : NULL);
		json_object_object_add(o, "unit", json_object_new_string(row->unit));
		json_object_object_add(o, "figure", json_object_new_string(row->figure));
		json_object_object_add(o, "reason", json_object_new_string(row->reason));
		json_object_array_add(arr, o);
	}
	if (!top || !arr) {
		ret = -ENOMEM;
		goto out;
	}
	json_object_object_add(top, "checks", json_object_get(arr));
	json_object_object_add(top, "failed", json_object_new_boolean(failed));
	json_object_object_add(top, "seconds", json_object_new_double(elapsed));
	puts(json_object_to_json_string_ext(top, JSON_C_TO_STRING_PLAIN));
out:
	json_object_put(arr);
	json_object_put(top);
	return ret;
}

int cmd_check(int argc, char **argv)
{
	static struct check_report rep;
	struct check_opts o = { 0 };
	struct check_host h = { 0 };
	bool failed = false;
	double t0;
	int ret;

	ret = check__parse(&o, argc, argv);
	if (ret)
		return cli__parse_status(ret);
	/* a signal ends the validation with its cgroup and workload undone */
	ret = sigwake__setup((int[]){ SIGINT, SIGTERM, SIGHUP }, 3, false);
	if (ret)
		return cli__exit_status(ret);
	t0 = session__now();
	check_host__run(&rep, &h, &o);
	ret = check_run__all(&rep, &h, &o);
	if (ret == -EINTR) {
		pr_err("stopped by signal %d: nothing left behind", (int)sigwake.last);
		return 128 + sigwake.last;
	}
	for (int i = 0; i < rep.nr; i++)
		failed |= rep.row[i].status == CHECK_FAIL;
	if (o.json)
		ret = print__json(&rep, session__now() - t0, failed);
	else
		print__text(&rep, session__now() - t0);
	if (fflush(stdout) && !ret)
		ret = -EIO;
	if (ret)
		return cli__exit_status(ret);
	/* the verdict, not an error: 1 when a check failed */
	return failed ? 1 : 0;
}
