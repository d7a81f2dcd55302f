// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The daemon's UNIX socket server (docs/protocol.md).
 *
 * A client gets the hello on connect, then sends one request at a time:
 * a snapshot request waits for the next flush, which all the requests
 * waiting then share (and /metrics' too, server__request_all); flushes
 * are at least min_flush_s apart, so no client can make the daemon spin.
 * A command tree request is answered at once. Whatever a client does, it
 * costs a bounded amount: its connection is refused beyond max_clients
 * (or its uid's share of them, max_clients_per_uid), closed when no
 * request came within idle_timeout_s of its connect, on a request longer
 * than EMON_PROTO_MAX_REQUEST, malformed, or not whole within
 * request_timeout_s, or an answer not read within answer_timeout_s; it
 * holds at most one answer. What it may see is its own (server_peer.c).
 *
 * This file has the socket, the connections and their output;
 * server_request.c reads and acts on requests, server_answer.c answers a
 * flush's snapshot requests.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include "daemon/dirs.h"
#include "daemon/socket/server_int.h"
#include "common/log.h"

struct payload *payload__new(const void *p, size_t len)
{
	struct payload *pl = malloc(sizeof(*pl) + len);

	if (!pl)
		return NULL;
	pl->refs = 1;
	pl->len = len;
	pl->held = NULL;
	memcpy(pl->data, p, len);
	return pl;
}

void payload__put(struct payload *pl)
{
	if (pl && !--pl->refs) {
		if (pl->held)
			*pl->held -= pl->len;
		free(pl);
	}
}

void client__close(struct server *s, int i)
{
	struct client *c = s->c[i];

	if (c->pending)
		s->npending--;
	if (c->tree >= 0)
		engine__tree_free(s->e, c->tree);
	if (c->pidfd >= 0)
		close(c->pidfd);
	close(c->fd);
	payload__put(c->out);
	free(c);
	s->c[i] = NULL;
	s->nr--;
}

/* Send from c's answer (its header, then its body), with its fd on the
 * first byte. */
static ssize_t client__send(struct client *c)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	size_t hl = sizeof(c->out_hdr), off = c->out_off;
	struct iovec iov[2] = {
		{ (char *)&c->out_hdr + (off < hl ? off : hl), off < hl ? hl - off : 0 },
		{ c->out->data + (off > hl ? off - hl : 0),
		  c->out->len - (off > hl ? off - hl : 0) },
	};
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	struct cmsghdr *cm;
	ssize_t n;

	if (c->out_fd >= 0 && !off) {
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &c->out_fd, sizeof(int));
	}
	n = sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n > 0)
		c->out_fd = -1;	/* the daemon's own: not closed */
	return n;
}

int client__flush_out(struct client *c)
{
	while (c->out && c->out_off < c->out_len) {
		ssize_t n = client__send(c);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0)
			return -1;
		c->out_off += n;
	}
	payload__put(c->out);
	c->out = NULL;
	return c->closing ? -1 : 0;
}

int client__queue_shared(struct client *c, __u16 type,
				struct payload *pl, double now)
{
	c->out_hdr = (struct emon_msg_hdr){
		.magic = EMON_PROTO_MAGIC,
		.version = EMON_PROTO_VERSION,
		.type = type,
		.len = pl->len,
		.tag = c->tag,
	};
	pl->refs++;
	payload__put(c->out);
	c->out = pl;
	c->out_len = sizeof(c->out_hdr) + pl->len;
	c->out_off = 0;
	c->out_start = now;
	return client__flush_out(c);
}

int client__queue(struct client *c, __u16 type, const void *p, size_t len,
			 double now)
{
	struct payload *pl = payload__new(p, len);
	int ret;

	if (!pl)
		return -1;
	ret = client__queue_shared(c, type, pl, now);
	payload__put(pl);
	return ret;
}

int client__error(struct client *c, int err, bool fatal, double now,
			 const char *fmt, ...)
{
	char buf[sizeof(struct emon_error) + 256];
	struct emon_error *e = (struct emon_error *)buf;
	va_list ap;
	int n;

	e->err = err;
	va_start(ap, fmt);
	n = vsnprintf(buf + sizeof(*e), sizeof(buf) - sizeof(*e), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(buf) - sizeof(*e))
		n = sizeof(buf) - sizeof(*e) - 1;
	c->closing = fatal;
	c->out_fd = -1;
	return client__queue(c, EMON_MSG_ERROR, buf, sizeof(*e) + n + 1, now);
}

/* An error and a close, before the client has a slot of its own. */
static void server__refuse(int fd, int err, const char *msg)
{
	char buf[sizeof(struct emon_msg_hdr) + sizeof(struct emon_error) + 160];
	struct emon_msg_hdr *h = (struct emon_msg_hdr *)buf;
	struct emon_error *e = (struct emon_error *)(h + 1);
	size_t n = strnlen(msg, sizeof(buf) - sizeof(*h) - sizeof(*e) - 1) + 1;

	*h = (struct emon_msg_hdr){ EMON_PROTO_MAGIC, EMON_PROTO_VERSION,
				    EMON_MSG_ERROR, sizeof(*e) + n, 0 };
	e->err = err;
	memcpy(e + 1, msg, n - 1);
	((char *)(e + 1))[n - 1] = '\0';
	if (send(fd, buf, sizeof(*h) + sizeof(*e) + n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		pr_debug("refusing a client: %s", strerror(errno));
	close(fd);
}

/* A uid past its share of the connections: one tenant cannot take them all. */
static bool server__over_share(struct server *s, struct client *c)
{
	char msg[160], who[64];

	if (c->admin || peer__count(s, c->charge, false) < s->o.max_clients_per_uid)
		return false;
	snprintf(msg, sizeof(msg), "%s have %d connections, the most "
		 "(serve --max-clients-per-uid)", peer__who(c, who, sizeof(who)),
		 s->o.max_clients_per_uid);
	pr_debug("client pid %d: %s", (int)c->pid, msg);
	server__refuse(c->fd, EUSERS, msg);
	if (c->pidfd >= 0)
		close(c->pidfd);
	free(c);
	return true;
}

static void server__accept(struct server *s, double now)
{
	for (;;) {
		struct client *c;
		int fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK), i;

		if (fd < 0)
			return;
		if (s->nr >= s->o.max_clients) {
			server__refuse(fd, EAGAIN, "too many clients");
			continue;
		}
		c = calloc(1, sizeof(*c));
		if (!c) {
			close(fd);
			return;
		}
		c->fd = fd;
		c->tree = -1;
		c->out_fd = -1;
		c->conn_t = now;
		peer__identify(s, c);
		if (server__over_share(s, c))
			continue;
		for (i = 0; s->c[i]; i++)
			;
		s->c[i] = c;
		s->nr++;
		if (client__queue_shared(c, EMON_MSG_HELLO, s->hello, now))
			client__close(s, i);
	}
}

int server__pollfds(struct server *s, struct pollfd *pfd, int n)
{
	int k = 0;

	if (n < 2)
		return 0;
	pfd[k] = (struct pollfd){ .fd = s->lfd, .events = POLLIN };
	s->polled[k++] = NULL;
	pfd[k] = (struct pollfd){ .fd = s->wake_fd, .events = POLLIN };
	s->polled[k++] = NULL;
	for (int i = 0; i < s->o.max_clients && k < n &&
	     k < (int)(sizeof(s->polled) / sizeof(s->polled[0])); i++) {
		struct client *c = s->c[i];

		if (!c)
			continue;
		pfd[k].fd = c->fd;
		/* no reading while a request waits: it stays in the socket */
		pfd[k].events = (c->out ? POLLOUT : 0) |
				(c->pending || c->out || c->closing ? 0 : POLLIN);
		pfd[k].revents = 0;
		s->polled[k++] = c;
	}
	return k;
}

static int client__index(const struct server *s, const struct client *c)
{
	for (int i = 0; i < s->o.max_clients; i++)
		if (s->c[i] == c)
			return i;
	return -1;
}

void server__handle(struct server *s, const struct pollfd *pfd, int n, double now)
{
	__u64 v;

	if (n > 1 && pfd[1].revents && read(s->wake_fd, &v, sizeof(v)) < 0)
		pr_debug("wake: %s", strerror(errno));
	for (int k = 2; k < n; k++) {
		struct client *c = s->polled[k];
		int i = client__index(s, c);
		int bad = 0;

		if (i < 0 || !pfd[k].revents)
			continue;
		if (pfd[k].revents & POLLOUT)
			bad = client__flush_out(c);
		if (!bad && (pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
			bad = client__read(s, c, now);
		if (bad || (pfd[k].revents & (POLLHUP | POLLERR) && !c->pending && !c->out))
			client__close(s, i);
	}
	if (n > 0 && pfd[0].revents)
		server__accept(s, now);
}
double server__next(const struct server *s, double now)
{
	double next = engine__next_tick(s->e);
	bool want = server__want(s, now);

	if (want && s->last_flush + s->o.min_flush_s < next)
		next = s->last_flush + s->o.min_flush_s;
	/* timeouts are checked at least once a second */
	if (s->nr && next > s->last_flush + 1)
		next = s->last_flush + 1;
	return next;
}

static void server__timeouts(struct server *s, double now)
{
	for (int i = 0; i < s->o.max_clients; i++) {
		struct client *c = s->c[i];

		if (!c)
			continue;
		if (!c->spoke && !c->in_start && now - c->conn_t > s->o.idle_timeout_s) {
			pr_debug("client pid %d: no request in %.0f s: closed",
				 (int)c->pid, s->o.idle_timeout_s);
			client__close(s, i);
		} else if (c->in_start && now - c->in_start > s->o.request_timeout_s) {
			pr_debug("client pid %d: request not whole after %.0f s: closed",
				 (int)c->pid, s->o.request_timeout_s);
			client__close(s, i);
		} else if (c->out && now - c->out_start > s->o.answer_timeout_s) {
			pr_debug("client pid %d: answer unread after %.0f s: closed",
				 (int)c->pid, s->o.answer_timeout_s);
			client__close(s, i);
		}
	}
}

void server__run(struct server *s, double now)
{
	bool want = server__want(s, now), periodic = now >= engine__next_tick(s->e);
	int err = 0;

	if (periodic || (want && now >= s->last_flush + s->o.min_flush_s)) {
		err = engine__tick(s->e);
		s->last_flush = now;
		s->flushes++;
		if (!periodic && !s->npending)	/* for /metrics alone */
			__atomic_add_fetch(&s->scrape_flushes, 1, __ATOMIC_RELAXED);
		/* requests that waited are tried again at every flush, the
		 * engine's own too: whatever freed room since, they are
		 * answered within a read period */
		if (want || s->npending)
			server__answer(s, now, err);
		else
			server__answer_internal(s, err, 0);
	} else {
		/* /metrics within internal_fresh_s of the last flush: from it */
		server__answer_internal(s, 0, now - s->o.internal_fresh_s);
	}
	server__timeouts(s, now);
}

void server__set_self(struct server *s, struct selfmon *self)
{
	s->o.self = self;
}

int server__nr_clients(const struct server *s)
{
	return s->nr;
}

__u64 server__scrape_flushes(const struct server *s)
{
	return __atomic_load_n(&s->scrape_flushes, __ATOMIC_RELAXED);
}

__u64 server__flushes(const struct server *s)
{
	return s->flushes;
}

/* mkdir -p of the socket's directory, 0750, its group gid when given and,
 * when we made it, its owner uid (serve --user, which removes it at
 * exit); an existing one must be ours (daemon/dirs.h). 1 when we made it. */
static int make_dir(const char *path, uid_t uid, gid_t gid)
{
	char dir[108], *p;
	bool made;
	int err;

	snprintf(dir, sizeof(dir), "%s", path);
	p = strrchr(dir, '/');
	if (!p || p == dir)
		return 0;
	*p = '\0';
	err = dirs__check_above(dir, "the socket's directory", uid);
	if (err)
		return err;
	for (p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST) {
			err = -errno;
			pr_err("cannot make %s for the socket %s: %s", dir, path,
			       strerror(-err));
			return err;
		}
		*p = '/';
	}
	err = dirs__make_own(dir, 0750, "the socket's directory", uid, &made);
	if (err)
		return err;
	if (!made || !uid)
		uid = -1;
	if ((gid != (gid_t)-1 || uid != (uid_t)-1) && chown(dir, uid, gid)) {
		err = -errno;
		pr_err("cannot give %s to --socket-group or --user: %s", dir,
		       strerror(-err));
		return err;
	}
	return made;
}

/* A socket that still answers belongs to a live daemon; one that refuses
 * was left by a killed one and goes. */
static int clear_stale(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, err;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	err = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
	close(fd);
	if (!err)
		return -EADDRINUSE;
	pr_debug("%s: left by a daemon that did not end cleanly: replaced", path);
	return unlink(path) ? -errno : 0;
}

/* path's directory (its last '/' made a NUL, "/" for the root) and name */
static const char *split_path(char *dir, size_t len, const char *path, const char **name)
{
	char *p;

	snprintf(dir, len, "%s", path);
	p = strrchr(dir, '/');
	*name = path + (p - dir) + 1;
	if (p == dir)
		p[1] = '\0';
	else
		*p = '\0';
	return dir;
}

/*
 * The socket's directory (and, when made here, its parent) held by fd,
 * and their inodes: at exit the daemon removes its socket even if a
 * path above was renamed since, its directory if still under its name,
 * and nothing of another's that took either name.
 */
static int server__hold_dir(struct server *s)
{
	char dir[108], parent[108];
	const char *name, *dname;
	struct stat st;
	int err;

	split_path(dir, sizeof(dir), s->path, &name);
	s->dir_fd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (s->dir_fd < 0 || fstatat(s->dir_fd, name, &st, AT_SYMLINK_NOFOLLOW))
		goto fail;
	s->sock_ino = st.st_ino;
	if (s->made_dir) {
		split_path(parent, sizeof(parent), dir, &dname);
		s->parent_fd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (s->parent_fd < 0 || fstat(s->dir_fd, &st))
			goto fail;
		s->dir_ino = st.st_ino;
	}
	return 0;
fail:
	err = -errno;
	pr_err("cannot hold %s's directory: %s", s->path, strerror(-err));
	unlink(s->path);	/* just bound: ours */
	return err;
}

/* What server__hold_dir() held, removed by fd; the fds closed. */
static void server__remove(struct server *s)
{
	char dir[108];
	const char *name, *dname;
	struct stat st;

	split_path(dir, sizeof(dir), s->path, &name);
	if (s->dir_fd >= 0 && !fstatat(s->dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) &&
	    S_ISSOCK(st.st_mode) && st.st_ino == s->sock_ino)
		unlinkat(s->dir_fd, name, 0);
	if (s->made_dir && s->parent_fd >= 0) {
		char parent[108];

		split_path(parent, sizeof(parent), dir, &dname);
		/* ours, when empty and still under its name; else it stays */
		if (!fstatat(s->parent_fd, dname, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISDIR(st.st_mode) && st.st_ino == s->dir_ino)
			unlinkat(s->parent_fd, dname, AT_REMOVEDIR);
	}
	if (s->dir_fd >= 0)
		close(s->dir_fd);
	if (s->parent_fd >= 0)
		close(s->parent_fd);
	s->dir_fd = s->parent_fd = -1;
}

static int server__bind(struct server *s, uid_t uid, gid_t gid)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	mode_t old;
	int err;

	err = make_dir(s->path, uid, gid);
	s->made_dir = err > 0;
	if (err < 0)
		return err;
	err = clear_stale(s->path);
	if (err) {
		/* EADDRINUSE and EEXIST stay run-time failures (exit 1) */
		pr_err("%s: %s", s->path, err == -EADDRINUSE ?
		       "another emon-perf serve answers there" :
		       err == -EEXIST ? "exists and is not a socket" : strerror(-err));
		return err;
	}
	strcpy(sa.sun_path, s->path);
	s->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->lfd < 0) {
		err = -errno;
		pr_err("cannot make a socket for %s: %s", s->path, strerror(-err));
		return err;
	}
	old = umask(0117);	/* 0660 from its birth */
	err = bind(s->lfd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
	umask(old);
	if (!err && gid != (gid_t)-1 && chown(s->path, -1, gid))
		err = -errno;
	if (!err && listen(s->lfd, SOMAXCONN))
		err = -errno;
	if (err) {
		pr_err("cannot listen on %s: %s", s->path, strerror(-err));
		return err;
	}
	return server__hold_dir(s);
}

int server__check_path(const char *path)
{
	struct sockaddr_un sa;

	if (path[0] != '/' || strlen(path) >= sizeof(sa.sun_path)) {
		pr_err("bad --socket '%s': an absolute path under %zu bytes", path,
		       sizeof(sa.sun_path));
		return -EINVAL;
	}
	return 0;
}

int server__open(struct server **sp, const struct server_opts *o,
		 struct engine *e, const void *hello, size_t hello_len)
{
	struct server *s = calloc(1, sizeof(*s));
	int ret;

	*sp = NULL;
	if (!s)
		return -ENOMEM;
	s->o = *o;
	s->e = e;
	s->lfd = s->wake_fd = s->dir_fd = s->parent_fd = -1;
	pthread_mutex_init(&s->lock, NULL);
	/* the caller checked it (server__check_path) */
	snprintf(s->path, sizeof(s->path), "%s", o->path);
	s->hello = payload__new(hello, hello_len);
	s->c = calloc(o->max_clients, sizeof(*s->c));
	s->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!s->hello || !s->c || s->wake_fd < 0) {
		pr_err("cannot set up the socket server: %s", strerror(ENOMEM));
		server__close(s);
		return -ENOMEM;
	}
	ret = server__bind(s, o->uid, o->gid);
	if (ret) {
		if (s->lfd >= 0)
			close(s->lfd);
		s->lfd = -1;
		s->path[0] = '\0';	/* not ours: not unlinked */
		server__close(s);
		return ret;
	}
	s->last_flush = engine__last_t(e);
	*sp = s;
	return 0;
}

void server__close(struct server *s)
{

	if (!s)
		return;
	for (int i = 0; s->c && i < s->o.max_clients; i++)
		if (s->c[i])
			client__close(s, i);
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->path[0])
		server__remove(s);
	if (s->wake_fd >= 0)
		close(s->wake_fd);
	idmap__clear(&s->uid_held, NULL);
	pthread_mutex_destroy(&s->lock);
	payload__put(s->hello);
	free(s->c);
	free(s);
}
