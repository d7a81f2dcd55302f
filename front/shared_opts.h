/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The engine's and the daemon connection's options, spelled alike in the
 * commands that take them (stat, top, serve); option values and the getopt
 * loop are common/opts.h's. */
#ifndef FRONT_SHARED_OPTS_H
#define FRONT_SHARED_OPTS_H

#include <stddef.h>
#include "common/opts.h"

struct engine_opts;

/*
 * The engine's options, spelled and checked alike in stat and serve: their
 * long options (ENGINE_LONG_OPTIONS, codes from 0x1000, above any other
 * command's) and one parser.
 */
enum {
	OPT_ENERGY = 0x1000,
	OPT_POWERCAP_ROOT,
	OPT_SPLIT_BY,
	OPT_IDLE_WATTS,
	OPT_MAX_CGROUPS,
	OPT_MAX_PROCS,
	OPT_SCHED,
	OPT_SCHED_MS,
	OPT_RUNTIME_ROOT,
	OPT_NO_SCALE,
	OPT_MAX_TIDS,
	OPT_GPU,
};

#define ENGINE_LONG_OPTIONS \
	{ "energy",		required_argument, NULL, OPT_ENERGY }, \
	{ "powercap-root",	required_argument, NULL, OPT_POWERCAP_ROOT }, \
	{ "split-by",		required_argument, NULL, OPT_SPLIT_BY }, \
	{ "idle-watts",		required_argument, NULL, OPT_IDLE_WATTS }, \
	{ "max-cgroups",	required_argument, NULL, OPT_MAX_CGROUPS }, \
	{ "max-procs",		required_argument, NULL, OPT_MAX_PROCS }, \
	{ "max-tids",		required_argument, NULL, OPT_MAX_TIDS }, \
	{ "sched",		no_argument,	   NULL, OPT_SCHED }, \
	{ "sched-ms",		no_argument,	   NULL, OPT_SCHED_MS }, \
	{ "runtime-root",	required_argument, NULL, OPT_RUNTIME_ROOT }, \
	{ "no-scale",		no_argument,	   NULL, OPT_NO_SCALE }, \
	{ "gpu",		optional_argument, NULL, OPT_GPU }

/*
 * A front end's way to the daemon, spelled alike in stat and top: their
 * long options (DAEMON_LONG_OPTIONS, codes past the engine's), their
 * lines in --help; front_opts__daemon() parses them.
 */
enum {
	OPT_DAEMON_SOCKET = 0x1100,
	OPT_NO_DAEMON,
};

#define DAEMON_LONG_OPTIONS \
	{ "socket",		required_argument, NULL, OPT_DAEMON_SOCKET }, \
	{ "no-daemon",		no_argument,	   NULL, OPT_NO_DAEMON }

#define DAEMON_OPTIONS_USAGE \
"      --socket PATH         the daemon's socket (default $EMON_PERF_SOCKET,\n" \
"                            else /run/emon-perf/emon.sock)\n" \
"      --no-daemon           count with own events even when a daemon runs\n"

/* The energy options' lines in stat's and top's --help (serve's are
 * wrapped wider). */
#define ENERGY_OPTIONS_USAGE \
"      --energy SOURCE       auto (default), powercap, perf, model:IDLE_W:MAX_W,\n" \
"                            none\n" \
"      --powercap-root DIR   powercap tree (default /sys/class/powercap)\n" \
"      --split-by EVENT      event that splits energy (default cycles, else\n" \
"                            cpu-clock)\n" \
"      --idle-watts W        static power per package, kept out of the split\n" \
GPU_USAGE

/* --gpu's lines in every --help that takes it (docs/gpu.md). */
#define GPU_USAGE \
"      --gpu[=WHAT]          GPU energy through NVML, split by SM time: --gpu\n" \
"                            requires it, =auto if there, =PATH the library,\n" \
"                            =off none (default)\n"

/* --runtime-root's lines in every --help that takes it. */
#define RUNTIME_ROOT_USAGE \
"      --runtime-root RUNTIME=DIR  where a container runtime (docker,\n" \
"                            containerd, cri-o, podman) keeps its state, when\n" \
"                            not where it defaults it (/var/lib/docker, ...)\n"

/* --no-scale's lines in every --help that takes it. */
#define NO_SCALE_USAGE \
"      --no-scale            raw counts: a multiplexed event's count is not\n" \
"                            scaled to its enabled time (perf's --no-scale)\n"

/* What every command's long options end with. */
#define COMMON_LONG_OPTIONS \
	{ "verbose",		no_argument,	   NULL, 'v' }, \
	{ "help",		no_argument,	   NULL, 'h' }, \
	{ 0 }

/* Option c with its argument into o: 1 when c is an engine option, 0 when
 * it is not, -EINVAL for a bad value (said). */
int opts__engine(struct engine_opts *o, int c, const char *arg);
/* -e LIST: appended to the comma list events (size n), or -EINVAL. */
int opts__events(char *events, size_t n, const char *arg);

#endif
