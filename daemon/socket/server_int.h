/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the server's files share (server.c: the socket, connections and
 * their I/O; server_request.c: reading, checking and acting on requests;
 * server_answer.c: a flush's snapshot answers). Not for the server's
 * users: server.h is theirs.
 */
#ifndef DAEMON_SERVER_INT_H
#define DAEMON_SERVER_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>
#include "daemon/socket/server.h"
#include "common/idmap.h"

#define MAX_INTERNAL 16
#define MAX_SHARED 8		/* distinct snapshot requests encoded per flush */

/*
 * An answer's body, shared by every client that asked the same thing at
 * one flush: 500 clients asking for the cgroups cost one encoding and one
 * copy, not 500 (each client has only its header of its own).
 */
struct payload {
	unsigned int refs;
	size_t len;
	size_t *held;		/* the count of answer bytes it is in, or NULL */
	char data[];
};

struct client {
	int fd;
	pid_t pid;		/* SO_PEERCRED */
	uid_t uid;
	/* who its limits are charged to: uid, or the owner of the subordinate
	 * range (/etc/subuid) uid is in (server_peer.c) */
	uid_t charge;
	bool admin;		/* sees everything, unlimited (server_peer.c) */
	int pidfd;		/* SO_PEERPIDFD of pid, -1: none (then start) */
	unsigned long long start;	/* pid's start time, at connect */
	double conn_t;		/* connected at */
	bool spoke;		/* a whole request came */
	struct snap_view view;	/* of its snapshot request */
	struct emon_msg_hdr hdr;
	size_t hdr_got;
	char in[EMON_PROTO_MAX_REQUEST];
	size_t in_got;
	double in_start;	/* the request's first byte came, 0: none */
	bool pending;		/* its snapshot request waits for a flush */
	struct emon_snap_req req;
	__u32 tag;
	struct emon_msg_hdr out_hdr;	/* the answer being written: */
	struct payload *out;		/* its header, then this body */
	size_t out_len, out_off;	/* header + body; written so far */
	int out_fd;		/* sent with its first byte (SCM_RIGHTS), -1: none */
	double out_start;
	bool closing;		/* close once the answer is out */
	int tree;		/* -1: none */
};

struct internal_req {
	unsigned int scopes;
	server_done_fn done;
	void *ctx;
};

struct server {
	struct server_opts o;
	struct engine *e;
	int lfd, wake_fd;
	char path[108];
	bool made_dir;		/* the socket's directory is ours: removed */
	/* what is removed at exit, by these fds, not by path: the socket's
	 * directory, its parent (made_dir) and the socket's inode */
	int dir_fd, parent_fd;
	ino_t sock_ino, dir_ino;
	struct payload *hello;	/* every client's first answer */
	struct client **c;	/* [max_clients], NULL: free */
	int nr;
	struct client *polled[1 + 1 + 4096];	/* who each pollfd is */
	int npending;
	size_t held;		/* bytes of snapshot answers not yet sent */
	struct idmap uid_held;	/* uid -> its clients' unread bytes + 1 */
	double last_flush;
	__u64 flushes;
	__u64 scrape_flushes;	/* of them, made for /metrics alone (atomic) */
	pthread_mutex_t lock;	/* internal[]: other threads add to it */
	struct internal_req internal[MAX_INTERNAL];
	int nr_internal;
	bool stopping;		/* no more internal requests */
};

struct payload *payload__new(const void *p, size_t len);
/* One reference less; the last frees it and takes it off the held count. */
void payload__put(struct payload *pl);

void client__close(struct server *s, int i);
/* Write what we can of c's answer; -1 when c must go. */
int client__flush_out(struct client *c);
/* Send pl (one more reference to it) with c's header. */
int client__queue_shared(struct client *c, __u16 type, struct payload *pl,
			 double now);
int client__queue(struct client *c, __u16 type, const void *p, size_t len,
		  double now);
/* A one-line error; close after it when fatal. */
int client__error(struct client *c, int err, bool fatal, double now,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Read what c sent; -1: c must go. One request at a time: none is read
 * while one waits for its answer. */
int client__read(struct server *s, struct client *c, double now);

/* Who c is (at accept, c->fd set): uid, pid and its pidfd, admin. */
void peer__identify(const struct server *s, struct client *c);
/* The process that connected still lives (its pid is not another's). */
bool peer__alive(const struct client *c);
/* What c may see of the snapshot req asks for (docs/security.md): 0 with
 * *v, or -EACCES with the rule it breaks and how to get it in err. */
int peer__view(const struct client *c, const struct emon_snap_req *req,
	       struct snap_view *v, char *err, size_t errlen);
/* Clients of uid (trees: those that follow a command tree). */
/* Clients (with a tree: trees) charged to charge. */
int peer__count(const struct server *s, uid_t charge, bool trees);
/* Who uid's limits are charged to: the owner of its /etc/subuid range, or itself. */
uid_t peer__charge(uid_t uid);
/* "uid U", or "uid U's subordinate uids" when c's limits are charged to U
 * for another uid, in buf */
const char *peer__who(const struct client *c, char *buf, size_t len);

/* A flush is wanted at now (rate limits aside): requests that can be
 * answered, but for /metrics' while the last flush is fresh
 * (internal_fresh_s). */
bool server__want(const struct server *s, double now);
/* Answer every waiting request from the flush just made. */
void server__answer(struct server *s, double now, int err);
/* Answer /metrics' waiting requests from the last flush, if it was made
 * at since or later. */
void server__answer_internal(struct server *s, int err, double since);

#endif
