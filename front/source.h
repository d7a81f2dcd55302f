/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Where a front end's snapshots come from, behind one ops table: its own
 * engine (source_local.c) or the daemon over its socket (source_daemon.c).
 * Both hand over the same encoded snapshots, decoded the same way.
 */
#ifndef FRONT_SOURCE_H
#define FRONT_SOURCE_H

#include <stdbool.h>
#include <sys/types.h>
#include "engine/engine.h"


struct source_opts {
	struct engine_opts eng;	/* for an own engine; eng.events: what is asked */
	const char *socket;	/* --socket, NULL: $EMON_PERF_SOCKET or the default */
	bool no_daemon;		/* --no-daemon */
	bool own_options;	/* options only an own engine honours were given */
	unsigned int scopes;	/* EMON_SNAP_* the front end needs */
	bool tree;		/* command mode: follow a command's tree */
	bool threads;		/* the thread scope: -t, --per-thread */
	bool follow;		/* an own engine follows processes (-p) */
	/* shows no run-queue histogram (top): with eng.sched, a daemon with
	 * its histogram in either unit (--sched-ms or not) will do */
	bool no_hist;
};

struct source;

struct source_ops {
	const char *name;	/* "own", "daemon" */
	/* A snapshot as of now (the daemon flushes for it). */
	int (*snapshot)(struct source *s, struct snapshot *out);
	/* Follow pid's tree (forked, stopped before exec). */
	int (*track)(struct source *s, pid_t pid);
	/* Follow running processes and what they fork from now on, as one
	 * tree (stat -p); NULL: this source cannot (the daemon follows only
	 * commands its client forked). */
	int (*follow)(struct source *s, const pid_t *pids, int n);
	/* The next time tick() is due (CLOCK_MONOTONIC s). */
	double (*next_tick)(struct source *s);
	int (*tick)(struct source *s);
	/* An fd to poll: readable or hung up when the daemon went away; -1. */
	int (*fd)(struct source *s);
	void (*close)(struct source *s);
};

struct source {
	const struct source_ops *ops;
	struct snap_meta meta;
	struct emon_snap_req req;	/* what each snapshot asks for */
	char path[108];			/* the daemon's socket */
	char why[256];			/* why it ended, for the user */
	char energy_note[512];		/* own engine: why it has no energy */
};

/*
 * The daemon's when its socket answers and it counts every event asked
 * for (and an own engine was not asked for), else an own engine, saying
 * which in one line on stderr when it is the daemon, or why not when a
 * daemon runs. An error is logged (one line naming the culprit); returns
 * 0 or -errno (common/log.h: -EINVAL, -ENOENT... for bad input).
 */
int source__open(struct source **s, const struct source_opts *o);
void source__close(struct source *s);

/* The position in a snapshot's counts of event name, -1: not counted (a
 * name the source knows to be unsupported); -2: unknown to the source. */
int source__event_pos(const struct source *s, const char *name);

/* --- backends (source_local.c, source_daemon.c) --- */
int source_local__open(struct source **s, const struct source_opts *o);
/* 0, or -errno with a one-line reason in why: then no daemon is used. */
int source_daemon__open(struct source **s, const char *path,
			const struct source_opts *o, char *why, size_t len);
/* The same on a connected socket fd, which it owns from then on (closed
 * on failure too); path only names it in messages. */
int source_daemon__attach(struct source **s, int fd, const char *path,
			  char *why, size_t len);

#endif
