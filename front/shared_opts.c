// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "front/shared_opts.h"
#include "engine/engine.h"
#include "common/log.h"

int opts__engine(struct engine_opts *o, int c, const char *arg)
{
	long v;

	switch (c) {
	case OPT_ENERGY:
		o->energy = arg;
		return 1;
	case OPT_POWERCAP_ROOT:
		o->powercap_root = arg;
		return 1;
	case OPT_SPLIT_BY:
		o->split_by = arg;
		return 1;
	case OPT_IDLE_WATTS:
		return opts__double("--idle-watts", arg, 0, 1e6, &o->idle_watts) ?: 1;
	case OPT_NO_SCALE:
		o->no_scale = true;
		return 1;
	case OPT_GPU:	/* --gpu: NVML required; =auto, =off, =LIBRARY */
		if (arg && !*arg) {
			pr_err("--gpu='': want auto, off, or the path of libnvidia-ml.so.1");
			return -EINVAL;
		}
		o->gpu = arg ? arg : "on";
		return 1;
	case OPT_SCHED:
	case OPT_SCHED_MS:	/* the histogram in ms: implies the view */
		o->sched = true;
		o->sched_ms |= c == OPT_SCHED_MS;
		return 1;
	case OPT_RUNTIME_ROOT:
		if (container_roots__parse(&o->runtime_roots, arg)) {
			pr_err("--runtime-root '%s': want RUNTIME=/DIR, RUNTIME one of docker, containerd, cri-o, podman",
			       arg);
			return -EINVAL;
		}
		return 1;
	case OPT_MAX_TIDS:	/* the thread scope: on with its slots */
		if (opts__long("--max-tids", arg, 1, 1 << 24, &v))
			return -EINVAL;
		o->max_tids = v;
		return 1;
	case OPT_MAX_CGROUPS:
	case OPT_MAX_PROCS:
		if (opts__long(c == OPT_MAX_CGROUPS ? "--max-cgroups" : "--max-procs",
			       arg, 1, 1 << 24, &v))
			return -EINVAL;
		*(c == OPT_MAX_CGROUPS ? &o->max_cgroups : &o->max_procs) = v;
		return 1;
	}
	return 0;
}

int opts__events(char *events, size_t n, const char *arg)
{
	size_t have = strlen(events);

	if (have + strlen(arg) + 2 > n) {
		pr_err("event list too long");
		return -EINVAL;
	}
	if (have)
		strcat(events, ",");
	strcat(events, arg);
	return 0;
}

/* Does short option c take a value in getopt spec? */