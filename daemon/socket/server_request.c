// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A client's requests (docs/protocol.md): read one at a time, checked
 * (server__parse_request, which the fuzzer calls too), then acted on: a
 * snapshot request waits for the next flush (server_answer.c), a command
 * tree or a thread slot is answered at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include "daemon/threads.h"
#include "daemon/socket/server_int.h"
#include "common/log.h"
#include "common/procfs.h"

/* The parent pid of pid from /proc, -1 when gone or unreadable. */
static pid_t parent_of(pid_t pid)
{
	char buf[512], *p = procfs__stat(pid, buf, sizeof(buf));
	int ppid;

	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return -1;
	return ppid;
}

/* A process may only have its own children followed. */
static int client__track(struct server *s, struct client *c, double now)
{
	const struct emon_track_req *r = (const void *)c->in;
	struct emon_track t = { 0 };
	char who[64];
	int tree;

	if (c->tree >= 0)
		return client__error(c, EBUSY, false, now, "this connection follows a tree already");
	if (!peer__alive(c))
		return client__error(c, EPERM, false, now, "the process that connected "
				     "(pid %d) is gone: its rights went with it", (int)c->pid);
	if (!c->admin && peer__count(s, c->charge, true) >= s->o.max_trees_per_uid)
		return client__error(c, EUSERS, false, now, "%s follow %d command "
				     "trees, the most (serve --max-trees-per-uid)",
				     peer__who(c, who, sizeof(who)), s->o.max_trees_per_uid);
	if (!r->pid || parent_of(r->pid) != c->pid)
		return client__error(c, EPERM, false, now,
				     "pid %u is not a child of the caller (pid %d)",
				     r->pid, (int)c->pid);
	tree = engine__tree_new(s->e, r->pid);
	if (tree < 0)
		return client__error(c, -tree, false, now, "cannot follow pid %u: %s",
				     r->pid, tree == -EBUSY ?
				     "every command tree is in use" : strerror(-tree));
	c->tree = tree;
	t.tree = tree;
	pr_debug("client pid %d: following pid %u as tree %d", (int)c->pid, r->pid, tree);
	return client__queue(c, EMON_MSG_TRACK, &t, sizeof(t), now);
}

/* A thread of the caller's process wants a self-monitoring slot: the
 * answer carries the fd of the caller's uid's slot array (frozen). */
static int client__self(struct server *s, struct client *c, double now)
{
	const struct emon_self_req *r = (const void *)c->in;
	struct emon_self_grant g;
	char err[160];
	int fd, ret;

	if (!s->o.self)
		return client__error(c, EOPNOTSUPP, false, now,
				     "this daemon keeps no thread slots (serve --threads N)");
	if (!peer__alive(c))
		return client__error(c, EPERM, false, now, "the process that connected "
				     "(pid %d) is gone: its rights went with it", (int)c->pid);
	ret = selfmon__register(s->o.self, c->pid, c->uid, c->charge, !c->admin, r->tid, &g, &fd,
				err, sizeof(err));
	if (ret)
		return client__error(c, -ret, false, now, "%s", err);
	c->out_fd = fd;
	return client__queue(c, EMON_MSG_SELF, &g, sizeof(g), now);
}

int server__parse_request(const struct emon_msg_hdr *h, const void *payload,
			  char *err, size_t errlen)
{
	const struct emon_snap_req *r = payload;

	if (h->magic != EMON_PROTO_MAGIC || h->version != EMON_PROTO_VERSION) {
		snprintf(err, errlen, "not emon-perf protocol version %d", EMON_PROTO_VERSION);
		return -EPROTO;
	}
	if (h->len > EMON_PROTO_MAX_REQUEST) {
		snprintf(err, errlen, "request of %u bytes: at most %d", h->len,
			 EMON_PROTO_MAX_REQUEST);
		return -EMSGSIZE;
	}
	if (!payload)		/* the header alone: good so far */
		return 0;
	if (h->type == EMON_MSG_SNAPSHOT_REQ && h->len == sizeof(*r)) {
		if (r->scopes & ~(EMON_SNAP_CGROUPS | EMON_SNAP_PROCS | EMON_SNAP_PROCS_TREE |
				  EMON_SNAP_THREADS)) {
			snprintf(err, errlen, "unknown scopes 0x%x", r->scopes);
			return -EINVAL;
		}
		if (r->flags & ~EMON_SNAP_REQ_OWN) {
			snprintf(err, errlen, "unknown flags 0x%x", r->flags);
			return -EINVAL;
		}
		return EMON_MSG_SNAPSHOT_REQ;
	}
	if (h->type == EMON_MSG_TRACK_REQ && h->len == sizeof(struct emon_track_req))
		return EMON_MSG_TRACK_REQ;
	if (h->type == EMON_MSG_SELF_REQ && h->len == sizeof(struct emon_self_req))
		return EMON_MSG_SELF_REQ;
	snprintf(err, errlen, "unexpected message type %u of %u bytes", h->type, h->len);
	return -EPROTO;
}

/* A whole message came in: act on it. -1: c must go. */
static int client__message(struct server *s, struct client *c, double now)
{
	char err[128], view_err[256];
	int type = server__parse_request(&c->hdr, c->in, err, sizeof(err)), ret;

	c->in_start = 0;
	c->tag = c->hdr.tag;
	if (type < 0)
		return client__error(c, -type, true, now, "%s", err);
	c->spoke = true;
	if (type == EMON_MSG_TRACK_REQ)
		return client__track(s, c, now);
	if (type == EMON_MSG_SELF_REQ)
		return client__self(s, c, now);
	memcpy(&c->req, c->in, sizeof(c->req));
	c->req.tree = c->tree;	/* its own tree or none */
	ret = peer__view(c, &c->req, &c->view, view_err, sizeof(view_err));
	if (ret)
		return client__error(c, -ret, false, now, "%s", view_err);
	c->pending = true;
	s->npending++;
	return 0;
}

int client__read(struct server *s, struct client *c, double now)
{
	for (;;) {
		char msg[128];
		ssize_t n;
		size_t want;
		char *dst;
		int err;

		if (c->pending || c->out || c->closing)
			return 0;
		if (c->hdr_got < sizeof(c->hdr)) {
			dst = (char *)&c->hdr + c->hdr_got;
			want = sizeof(c->hdr) - c->hdr_got;
		} else {
			dst = c->in + c->in_got;
			want = c->hdr.len - c->in_got;
		}
		n = want ? recv(c->fd, dst, want, MSG_DONTWAIT) : 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0 || (want && n == 0))
			return -1;	/* gone */
		if (!c->in_start)
			c->in_start = now;
		if (c->hdr_got < sizeof(c->hdr)) {
			c->hdr_got += n;
			if (c->hdr_got < sizeof(c->hdr))
				continue;
			err = server__parse_request(&c->hdr, NULL, msg, sizeof(msg));
			if (err)
				return client__error(c, -err, true, now, "%s", msg);
			c->in_got = 0;
		} else {
			c->in_got += n;
		}
		if (c->hdr_got == sizeof(c->hdr) && c->in_got == c->hdr.len) {
			c->hdr_got = c->in_got = 0;
			if (client__message(s, c, now))
				return -1;
		}
	}
}
