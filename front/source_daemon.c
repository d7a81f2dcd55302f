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
#include "common/array.h"
#include "common/utf8.h"
#include "front/source.h"
#include "proto/sock.h"

/*
 * The client does not trust its daemon further than these bounds (a
 * socket path or EMON_PERF_SOCKET can point anywhere, docs/security.md):
 * an answer's header later than ANSWER_TIMEOUT_MS: the daemon is stuck;
 * its payload in PAYLOAD_TIMEOUT_MS in all, however it trickles; memory
 * only as the bytes come (a header may claim up to MAX_ANSWER); every
 * name it sends printable; its clock this host's CLOCK_MONOTONIC.
 */
#define ANSWER_TIMEOUT_MS 10000
#define PAYLOAD_TIMEOUT_MS 10000
/* Snapshots are big on big hosts; no answer is bigger than this. */
#define MAX_ANSWER (1u << 30)
/* What a payload's buffer grows by at most, as its bytes come */
#define PAYLOAD_CHUNK (1u << 20)

struct source_daemon {
	struct source s;	/* first */
	int fd;
	int tree;
	__u32 tag;
	double last_t;		/* the last snapshot's time */
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* The daemon's text, its control bytes (terminal escapes) made '?'. */
static void copy_printable(char *dst, size_t dlen, const char *src)
{
	size_t i;

	for (i = 0; dlen && i < dlen - 1 && src[i]; i++)
		dst[i] = src[i];
	if (dlen)
		dst[i] = '\0';
	/* C0, DEL and C1 (U+0080-U+009F: U+009B is a CSI to a terminal) */
	if (dlen)
		utf8_mask_controls(dst);
}

/*
 * A payload of len bytes, its buffer grown as they come (a header that
 * claims a gigabyte costs nothing until the bytes are there), all of it
 * within PAYLOAD_TIMEOUT_MS. NUL-terminated; *out is malloc'ed.
 */
static int recv_payload(int fd, size_t len, char **out)
{
	long long end = now_ms() + PAYLOAD_TIMEOUT_MS;
	size_t got = 0, cap = 0;
	char *p = NULL;
	int err = 0;

	for (;;) {
		size_t want = len - got < PAYLOAD_CHUNK ? len - got : PAYLOAD_CHUNK;
		long long left = end - now_ms();

		err = array__grow(&p, &cap, got + want + 1, 1);
		if (err)
			break;
		if (!want)
			break;
		if (left <= 0) {
			err = -ETIMEDOUT;
			break;
		}
		err = emon_sock__recv(fd, p + got, want, (int)left, NULL);
		if (err)
			break;
		got += want;
	}
	if (err) {
		free(p);
		return err;
	}
	p[len] = '\0';
	*out = p;
	return 0;
}

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
	err = recv_payload(d->fd, h.len, &p);
	if (err)
		return err;
	if (h.type == EMON_MSG_ERROR && h.len >= sizeof(struct emon_error)) {
		const struct emon_error *e = (const void *)p;

		copy_printable(d->s.why, sizeof(d->s.why), p + sizeof(*e));
		/* an errno the daemon cannot mean is a protocol error */
		err = e->err > 0 && e->err < 4096 ? -e->err : -EPROTO;
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

/*
 * What the decoder cannot know: the events are the ones asked for, and
 * the time is on this host's monotonic clock, after the last one (a
 * time from elsewhere would make the front ends' loops wait forever or
 * spin). The snapshot is freed when it is refused.
 */
static int check_snapshot(struct source_daemon *d, struct snapshot *out)
{
	const struct snap_meta *m = &d->s.meta;
	double now = now_ms() / 1e3;
	int n = 0;

	for (int i = 0; i < m->nr_events; i++) {
		if (d->s.req.events && !(d->s.req.events & 1u << i))
			continue;
		if (n >= out->nr_events || out->ev[n] != i)
			goto bad_events;
		n++;
	}
	if (n != out->nr_events)
		goto bad_events;
	if (out->t > now + 1 || out->t < d->last_t) {
		snprintf(d->s.why, sizeof(d->s.why),
			 "the daemon's snapshot time %.3f s is not this host's clock (now %.3f s, last %.3f s)",
			 out->t, now, d->last_t);
		snapshot__free(out);
		return -EPROTO;
	}
	d->last_t = out->t;
	return 0;
bad_events:
	snprintf(d->s.why, sizeof(d->s.why),
		 "the daemon's snapshot has %d event(s), not the %d asked for", out->nr_events, n);
	snapshot__free(out);
	return -EPROTO;
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
	err = err ?: check_snapshot(d, out);
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

int source_daemon__attach(struct source **sp, int fd, const char *path,
			  char *why, size_t wlen)
{
	struct source_daemon *d = calloc(1, sizeof(*d));
	size_t len;
	void *buf;
	int err;

	if (!d) {
		close(fd);
		return -ENOMEM;
	}
	d->s.ops = &daemon_ops;
	d->tree = -1;
	d->fd = fd;
	snprintf(d->s.path, sizeof(d->s.path), "%s", path);
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

int source_daemon__open(struct source **sp, const char *path,
			const struct source_opts *o, char *why, size_t wlen)
{
	int fd = emon_sock__connect(path);

	(void)o;
	if (fd < 0) {
		snprintf(why, wlen, "cannot connect to %s: %s", path, strerror(-fd));
		return fd;
	}
	return source_daemon__attach(sp, fd, path, why, wlen);
}
