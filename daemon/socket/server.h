/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The daemon's local API (docs/protocol.md) on a UNIX stream socket:
 * clients ask for snapshots and command trees. Single-threaded, all
 * non-blocking; what one client can cost is bounded (connections,
 * request size and time, answers unread and the memory they hold,
 * flushes per second).
 */
#ifndef DAEMON_SERVER_H
#define DAEMON_SERVER_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "engine/engine.h"

struct server_opts {
	const char *path;		/* the socket */
	uid_t uid;			/* serve --user's, owns the directory made; 0: none */
	gid_t gid;			/* --socket-group's, (gid_t)-1: none */
	int max_clients;
	double min_flush_s;		/* at most one flush per this */
	/* /metrics' requests (server__request_all) this soon after any flush
	 * are answered from it, with no flush of their own */
	double internal_fresh_s;
	double request_timeout_s;	/* a request must arrive whole within */
	double answer_timeout_s;	/* an answer must be read within */
	size_t max_held;		/* bytes of snapshot answers held (0: no bound) */
	gid_t admin_gid;		/* --admin-group's, (gid_t)-1: none */
	double idle_timeout_s;		/* a first request must arrive within */
	/* what one uid may hold (administrators: unlimited) */
	int max_clients_per_uid;
	int max_trees_per_uid;
	struct selfmon *self;		/* thread slots (serve --threads), NULL: none */
};

struct server;
struct selfmon;

/* An absolute path that fits a UNIX socket address: 0, or -EINVAL said. */
int server__check_path(const char *path);
/* Bind the socket (a stale one left by a killed daemon is replaced; a
 * live one is an error), path checked first; its directory is made, or
 * must be the daemon's (daemon/dirs.h). 0, or -errno with the culprit
 * logged: -EADDRINUSE a live daemon answers there, -EEXIST the path is
 * no socket, -EPERM/-ENOTDIR a directory not the daemon's. */
int server__open(struct server **sp, const struct server_opts *o,
		 struct engine *e, const void *hello, size_t hello_len);
/* Unlink the socket and close every connection. */
void server__close(struct server *s);

/* The fds to poll, at most n; returns how many were filled. */
int server__pollfds(struct server *s, struct pollfd *pfd, int n);
/* Handle what poll said about them (pfd as filled), answer what can be. */
void server__handle(struct server *s, const struct pollfd *pfd, int n, double now);
/* When the server wants to run again at the latest (a rate-limited flush,
 * a timeout), CLOCK_MONOTONIC s; INFINITY: nothing due. */
double server__next(const struct server *s, double now);
/* Run what is due at now (flush + answers, timeouts). */
void server__run(struct server *s, double now);

/* Ask for one snapshot of everything (the /metrics front end): queued
 * with the clients' requests, sharing their flush. done(ctx, buf, len,
 * err) is called from the server's thread. */
typedef void (*server_done_fn)(void *ctx, void *buf, size_t len, int err);
int server__request_all(struct server *s, unsigned int scopes,
			server_done_fn done, void *ctx);

/* Shutting down: queued and later server__request_all() calls fail. */
void server__shutdown(struct server *s);
/*
 * Check a request: the header (payload NULL: before its payload is read),
 * then header and payload. The message type, 0 for a good header alone,
 * or -errno (EPROTO, EMSGSIZE, EINVAL) with the reason in err.
 */
int server__parse_request(const struct emon_msg_hdr *h, const void *payload,
			  char *err, size_t errlen);
int server__nr_clients(const struct server *s);
/* Answer registrations from self (server_opts.self) from now on. */
void server__set_self(struct server *s, struct selfmon *self);
/* Flushes made for /metrics alone (any thread). */
__u64 server__scrape_flushes(const struct server *s);
__u64 server__flushes(const struct server *s);

#endif
