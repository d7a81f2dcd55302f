// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libemon: registration with the daemon (docs/protocol.md: HELLO, then
 * SELF_REQ and SELF) and the mapping of the slot array.
 *
 * The daemon's answer carries a read-only fd of its slot array
 * (SCM_RIGHTS) rather than naming its bpffs pin: a reader then needs
 * neither bpffs (often not mounted in containers) nor the bpf() syscall,
 * which unprivileged users may be denied, only the socket, whose
 * permissions already say who may use the daemon. The fd is mmap'ed and
 * closed, the socket too: a registered reader holds no fd at all.
 * Plain libc and raw syscalls only, no libbpf: the library links with
 * nothing but -lpthread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include "common/version.h"
#include "libemon/selfmon_int.h"
#include "proto/sock.h"

#define TIMEOUT_MS 5000
#define MAX_HELLO (1u << 20)

/* One message: its header checked, its payload malloc'ed. An ERROR
 * message comes back as its errno. */
static int recv_msg(int sock, __u16 want, void **payload, __u32 *len, int *fd)
{
	struct emon_msg_hdr h;
	int err = emon_sock__recv(sock, &h, sizeof(h), TIMEOUT_MS, fd);

	if (err)
		return err;
	if (h.magic != EMON_PROTO_MAGIC || h.version != EMON_PROTO_VERSION ||
	    h.len > MAX_HELLO)
		return -EPROTO;
	*payload = malloc(h.len + 1);
	if (!*payload)
		return -ENOMEM;
	err = emon_sock__recv(sock, *payload, h.len, TIMEOUT_MS, NULL);
	*len = h.len;
	if (!err && h.type == EMON_MSG_ERROR && h.len >= sizeof(struct emon_error))
		err = -((struct emon_error *)*payload)->err ?: -EIO;
	else if (!err && h.type != want)
		err = -EPROTO;
	if (err) {
		free(*payload);
		*payload = NULL;
	}
	return err;
}

/* The counted events' names from the hello. */
static int self__hello(struct emon_self *s, const void *p, __u32 len)
{
	const struct emon_hello *h = p;

	if (len < sizeof(*h) || h->nr_events > EMON_MAX_EVENTS)
		return -EPROTO;
	for (__u32 k = 0; k < h->nr_events; k++) {
		const struct emon_hello_event *ev = &h->ev[k];

		if (ev->idx < 0 || ev->idx >= EMON_MAX_EVENTS)
			continue;
		memcpy(s->name[ev->idx], ev->name, EMON_PROTO_NAME_LEN);
		s->name[ev->idx][EMON_PROTO_NAME_LEN - 1] = '\0';
		if (ev->idx + 1 > s->nr)
			s->nr = ev->idx + 1;
	}
	return 0;
}

static int self__map(struct emon_self *s, const struct emon_self_grant *g, int fd)
{
	long page = sysconf(_SC_PAGESIZE);

	if (g->slot >= g->nr_slots || g->slot_size != sizeof(struct emon_self_slot) ||
	    (int)g->nr_events != s->nr || s->nr > EMON_SELF_MAX_EVENTS)
		return -EPROTO;
	s->map_len = ((size_t)g->nr_slots * g->slot_size + page - 1) / page * page;
	s->map = mmap(NULL, s->map_len, PROT_READ, MAP_SHARED, fd, 0);
	if (s->map == MAP_FAILED) {
		s->map = NULL;
		return -errno;
	}
	s->slot = (const struct emon_self_slot *)((char *)s->map + (size_t)g->slot * g->slot_size);
	s->gen = g->gen;
	s->time_mask = g->time_mask;
	s->switch_mask = g->switch_mask;
	s->pmc_width = g->pmc_width;
	return 0;
}

/* Hello, registration, mapping: 0 or -errno. */
static int self__register(struct emon_self *s, int sock)
{
	struct emon_msg_hdr h = {
		.magic = EMON_PROTO_MAGIC,
		.version = EMON_PROTO_VERSION,
		.type = EMON_MSG_SELF_REQ,
		.len = sizeof(struct emon_self_req),
	};
	struct {
		struct emon_msg_hdr h;
		struct emon_self_req r;
	} req = { h, { .tid = syscall(SYS_gettid) } };
	void *p = NULL;
	__u32 len;
	int fd = -1, err;

	err = recv_msg(sock, EMON_MSG_HELLO, &p, &len, NULL);
	err = err ?: self__hello(s, p, len);
	free(p);
	p = NULL;
	if (!err && send(sock, &req, sizeof(req), MSG_NOSIGNAL) != sizeof(req))
		err = -errno ?: -EIO;
	err = err ?: recv_msg(sock, EMON_MSG_SELF, &p, &len, &fd);
	if (!err && (len != sizeof(struct emon_self_grant) || fd < 0))
		err = -EPROTO;
	err = err ?: self__map(s, p, fd);
	if (fd >= 0)
		close(fd);
	free(p);
	return err;
}

/*
 * The thread's slot gets its running slice's start at the thread's next
 * switch in; one made while the registration was answered may have come
 * before the slot was the thread's. Sleep briefly until it has one, so
 * the time from here on is counted whole.
 */
static void self__wait_switch(const struct emon_self *s)
{
	struct timespec ts = { 0, 20000 };

	for (int i = 0; i < 250 && !__atomic_load_n(&s->slot->start_ns, __ATOMIC_ACQUIRE); i++)
		nanosleep(&ts, NULL);
}

struct emon_self *emon_self_open(const char *socket_path)
{
	struct emon_self *s = calloc(1, sizeof(*s));
	const char *path = socket_path;
	int sock, err;

	if (!s)
		return NULL;
	if (!path)
		path = getenv(EMON_SOCKET_ENV);
	if (!path || !*path)
		path = EMON_SELF_DEFAULT_SOCKET;
	s->owner = pthread_self();
	sock = emon_sock__connect(path);
	err = sock < 0 ? sock : self__register(s, sock);
	if (sock >= 0)
		close(sock);
	if (!err) {
		s->rdpmc = emon__rdpmc_allowed();
		self__wait_switch(s);
		err = emon__self_raw(s, s->base);
	}
	if (err) {
		emon_self_close(s);
		errno = -err;
		return NULL;
	}
	return s;
}

int emon_self_nevents(const struct emon_self *s)
{
	return s ? s->nr : 0;
}

const char *emon_self_event(const struct emon_self *s, int i)
{
	return s && i >= 0 && i < s->nr ? s->name[i] : NULL;
}

void emon_self_close(struct emon_self *s)
{
	if (!s)
		return;
	if (s->map)
		munmap(s->map, s->map_len);
	free(s);
}
