// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Snapshots from the daemon (emon-perf serve) over its UNIX socket,
 * docs/protocol.md: the daemon's hello says what it counts; each snapshot
 * is one request and its answer. The daemon flushes every CPU for it, so
 * the client opens no perf_event and loads no BPF program.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include "front/source.h"
#include "proto/sock.h"

/* An answer later than this: the daemon is stuck, we stop waiting. */
#define ANSWER_TIMEOUT_MS 10000
/* Snapshots are big on big hosts; no answer is bigger than this. */
#define MAX_ANSWER (1u << 30)

struct source_daemon {
	struct source s;	/* first */
	int fd;
	int tree;
	__u32 tag;
};

static struct source_daemon *daemon_of(struct source *s)
{
	return (struct source_daemon *)s;
}

static int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= n;
	}
	return 0;
}

static int send_msg(struct source_daemon *d, __u16 type, const void *p, __u32 len)
{
	struct emon_msg_hdr h = {
		.magic = EMON_PROTO_MAGIC,
		.version = EMON_PROTO_VERSION,
		.type = type,
		.len = len,
		.tag = ++d->tag,
	};
	int err = write_full(d->fd, &h, sizeof(h));

	return err ?: write_full(d->fd, p, len);
}

/*
 * The next message; an ERROR is turned into its errno (its text in why).
 * *payload is malloc'ed.
 */
static int recv_msg(struct source_daemon *d, __u16 want, void **payload,
		    size_t *len)
{
	struct emon_msg_hdr h;
	char *p;
	int err;

	err = emon_sock__recv(d->fd, &h, sizeof(h), ANSWER_TIMEOUT_MS, NULL);
	if (err)
		return err;
	if (h.magic != EMON_PROTO_MAGIC || h.version != EMON_PROTO_VERSION ||
	    h.len > MAX_ANSWER)
		return -EPROTO;
	p = malloc(h.len + 1);
	if (!p)
		return -ENOMEM;
	err = emon_sock__recv(d->fd, p, h.len, ANSWER_TIMEOUT_MS, NULL);
	if (err) {
		free(p);
		return err;
	}
	p[h.len] = '\0';
	if (h.type == EMON_MSG_ERROR && h.len >= sizeof(struct emon_error)) {
		const struct emon_error *e = (const void *)p;

		snprintf(d->s.why, sizeof(d->s.why), "%s", p + sizeof(*e));
		err = e->err > 0 ? -e->err : -EPROTO;
		free(p);
		return err;
	}
	if (h.type != want) {
		free(p);
		return -EPROTO;
	}
	*payload = p;
	*len = h.len;
	return 0;
}

static int daemon__snapshot(struct source *s, struct snapshot *out)
{
	struct source_daemon *d = daemon_of(s);
	size_t len;
	void *buf;
	int err;

	s->req.tree = d->tree;
	err = send_msg(d, EMON_MSG_SNAPSHOT_REQ, &s->req, sizeof(s->req));
	err = err ?: recv_msg(d, EMON_MSG_SNAPSHOT, &buf, &len);
	if (err)
		return err;
	err = snapshot__decode(out, &s->meta, buf, len);
	free(buf);
	return err;
}

static int daemon__track(struct source *s, pid_t pid)
{
	struct source_daemon *d = daemon_of(s);
	struct emon_track_req req = { .pid = pid };
	struct emon_track *t;
	size_t len;
	void *buf;
	int err;

	err = send_msg(d, EMON_MSG_TRACK_REQ, &req, sizeof(req));
	err = err ?: recv_msg(d, EMON_MSG_TRACK, &buf, &len);
	if (err)
		return err;
	t = buf;
	err = len == sizeof(*t) && t->tree >= 0 ? 0 : -EPROTO;
	if (!err)
		d->tree = t->tree;
	free(buf);
	return err;
}

static double daemon__next_tick(struct source *s)
{
	(void)s;
	return INFINITY;	/* the daemon reads its maps itself */
}

static int daemon__tick(struct source *s)
{
	(void)s;
	return 0;
}

static int daemon__fd(struct source *s)
{
	return daemon_of(s)->fd;
}

static void daemon__close(struct source *s)
{
	struct source_daemon *d = daemon_of(s);

	if (d->fd >= 0)
		close(d->fd);	/* the daemon frees our tree */
	snap_meta__free(&s->meta);
	free(d);
}

static const struct source_ops daemon_ops = {
	.name = "daemon",
	.snapshot = daemon__snapshot,
	.track = daemon__track,
	.next_tick = daemon__next_tick,
	.tick = daemon__tick,
	.fd = daemon__fd,
	.close = daemon__close,
};

int source_daemon__open(struct source **sp, const char *path,
			const struct source_opts *o, char *why, size_t wlen)
{
	struct source_daemon *d = calloc(1, sizeof(*d));
	size_t len;
	void *buf;
	int err;

	(void)o;
	if (!d)
		return -ENOMEM;
	d->s.ops = &daemon_ops;
	d->tree = -1;
	snprintf(d->s.path, sizeof(d->s.path), "%s", path);
	d->fd = emon_sock__connect(path);
	if (d->fd < 0) {
		err = d->fd;
		snprintf(why, wlen, "cannot connect to %s: %s", path, strerror(-err));
		free(d);
		return err;
	}
	err = recv_msg(d, EMON_MSG_HELLO, &buf, &len);
	if (!err) {
		err = snap_meta__decode(&d->s.meta, buf, len);
		free(buf);
	}
	if (err) {
		snprintf(why, wlen, "no valid hello from the daemon at %s: %s",
			 path, d->s.why[0] ? d->s.why : strerror(-err));
		close(d->fd);
		free(d);
		return err;
	}
	*sp = &d->s;
	return 0;
}
