/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One run of emon-perf stat, shared by cli/stat.c (the loop, signals)
 * and cli/stat_setup.c (checking and opening what it needs, and closing
 * it); cli/top.c runs one too.
 * Its counts come as snapshots from a source (engine/source.h): its own
 * engine or the daemon; an interval is the difference of two.
 */
#ifndef CLI_STAT_RUN_H
#define CLI_STAT_RUN_H

#include <limits.h>
#include "cli/command.h"
#include "cli/stat.h"
#include "engine/snapshot/snapshot.h"
#include "engine/source.h"
#include "pmu/event.h"

struct stat_run {
	struct stat_opts o;
	struct pmu_event_list events;	/* -e, parsed (the source opens them) */
	struct source *src;
	struct snapshot prev;		/* the last interval's end */
	struct snapshot last;		/* the newest (daemon: polled) */
	bool have_last;
	struct aggregate agg;		/* the interval being printed */
	bool agg_init;
	struct row_set rows;
	struct output out;
	struct stat_ctx sc;
	struct cpu_place *place;	/* sc.place's storage */
	char cgroot[PATH_MAX];
	char target[512];
	struct command cmd;
	double t0;		/* counting's start: the first snapshot's time */
	bool quiet;		/* -r: a run prints nothing, stat__repeat does */
	long prints;		/* intervals printed, for --interval-count */
	bool printed_all;	/* its count reached: the command is waited for */
	int forwarded;		/* signals passed on to the command */
	double late_wake;	/* command__forward_late's next call, 0: none */
	bool no_hist;		/* top: no run-queue histogram shown */
	bool undercounted;	/* a row printed had an event multiplexed */
	bool said_no_sys;	/* the daemon's tenant view: said once */
};

/*
 * Input, output and the source, checked and opened in an order that
 * leaves no file truncated by a run that fails on its input, then the
 * first snapshot (prev): counting starts there. 0, or the exit status:
 * 2 bad input, 1 failure.
 */
int stat__setup(struct stat_run *st);
/* Everything a run holds, the command stopped first; for a run stopped
 * anywhere, from option parsing on (st zeroed at the start). */
void stat__cleanup(struct stat_run *st);
/* Where the counts go: -o FILE (--append, perf's -q: none), else a copy
 * of stderr, as perf; NULL and errno on failure. */
FILE *stat__open_output(const struct stat_opts *so);

/*
 * One run of stat with its options parsed: the source opened, the command
 * run, the counts printed. 0, or the exit status of a failure (2 bad
 * input, 1 runtime failure, 128 + signal); the command's own status is in
 * st->cmd.
 */
int stat__run(struct stat_run *st);
/*
 * -r N: N runs of stat with the options of argv, then one print of the
 * mean of each row's events with perf's ( +- x% ): the standard deviation
 * of the mean relative to it. The exit status of cmd_stat.
 */
int stat__repeat(int argc, char **argv, long runs);

#endif
