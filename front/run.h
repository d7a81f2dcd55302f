/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One run of a front end that counts: its options, source, snapshots,
 * rows and output. front/run.c checks and opens what it needs, and closes
 * it; stat's loop (cli/stat/stat.c) and top's (cli/top/top.c) drive one.
 * Its counts come as snapshots from a source (front/source.h): its own
 * engine or the daemon; an interval is the difference of two.
 */
#ifndef FRONT_RUN_H
#define FRONT_RUN_H

#include <limits.h>
#include "front/command.h"
#include "front/row_set.h"
#include "engine/snapshot/snapshot.h"
#include "front/source.h"
#include "pmu/event.h"

struct front_run {
	struct front_opts o;
	struct pmu_event_list events;	/* -e, parsed (the source opens them) */
	struct source *src;
	struct snapshot prev;		/* the last interval's end */
	struct snapshot last;		/* the newest (daemon: polled) */
	bool have_last;
	struct snapshot first;		/* --summary: counting's start, kept */
	bool have_first;
	struct aggregate agg;		/* the interval being printed */
	bool agg_init;
	struct row_set rows;
	struct output out;
	struct row_ctx sc;
	struct cpu_place *place;	/* sc.place's storage */
	char cgroot[PATH_MAX];
	char target[512];
	char shown[EMON_MAX_EVENTS][PMU_EVENT_NAME_LEN];	/* events' printed names */
	int ev_out[EMON_MAX_EVENTS];	/* counted event i's output position */
	struct command cmd;
	double t0;		/* counting's start: the first snapshot's time */
	bool quiet;		/* -r: a run prints nothing, stat__repeat does */
	long prints;		/* intervals printed, for --interval-count */
	bool printed_all;	/* its count reached: the command is waited for */
	int forwarded;		/* signals passed on to the command */
	double late_wake;	/* command__forward_late's next call, 0: none */
	bool undercounted;	/* a row printed had an event multiplexed */
	bool said_no_sys;	/* the daemon's tenant view: said once */
};

/*
 * Input, output and the source, checked and opened in an order that
 * leaves no file truncated by a run that fails on its input, then the
 * first snapshot (prev): counting starts there. hist: the front end
 * shows run-queue histograms (stat; top does not, so a daemon's other
 * --sched-ms does not matter to it). 0, or the exit status: 2 bad input,
 * 1 failure.
 */
int front_run__setup(struct front_run *st, bool hist);
/* Everything a run holds, the command stopped first; for a run stopped
 * anywhere, from option parsing on (st zeroed at the start). */
void front_run__cleanup(struct front_run *st);
/* Where the counts go: -o FILE (--append, perf's -q: none), else a copy
 * of --log-fd's fd or of stderr, as perf; NULL and errno on failure. */
FILE *front_run__open_output(const struct front_opts *so);

#endif
