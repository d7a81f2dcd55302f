// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Who a loopback HTTP client is (daemon/exporter/http_peer.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <sys/time.h>
#include "daemon/exporter/http_peer.h"

/* An address and port into a socket id's words, network order, v4
 * mapped into v6 taken as v4 (the client's socket is then AF_INET) */
static int id_end(const struct sockaddr *sa, __be32 addr[4], __be16 *port)
{
	memset(addr, 0, 16);
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;

		addr[0] = in->sin_addr.s_addr;
		*port = in->sin_port;
		return AF_INET;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;

		*port = in6->sin6_port;
		if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
			memcpy(addr, &in6->sin6_addr.s6_addr[12], 4);
			return AF_INET;
		}
		memcpy(addr, &in6->sin6_addr, 16);
		return AF_INET6;
	}
	return -1;
}

/* /proc/net/tcp's address: the 32-bit words in host order, in hex */
static void addr_hex(const struct sockaddr *sa, char *out, size_t len, int *port)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;

		snprintf(out, len, "%08X", in->sin_addr.s_addr);
		*port = ntohs(in->sin_port);
	} else {
		const struct sockaddr_in6 *in6 = (const void *)sa;
		__u32 w[4];

		memcpy(w, &in6->sin6_addr, sizeof(w));
		snprintf(out, len, "%08X%08X%08X%08X", w[0], w[1], w[2], w[3]);
		*port = ntohs(in6->sin6_port);
	}
}

/*
 * Where the kernel answers no socket diagnostics (no inet_diag/tcp_diag:
 * a kernel built without them, or a module it cannot load, as in a guest
 * whose root is another kernel's tree): the client's socket found in
 * /proc/net/tcp (or tcp6), a walk of every TCP socket of the host.
 */
static int peer_uid_proc(const struct sockaddr *client, int server_port, uid_t *uid)
{
	const char *file = client->sa_family == AF_INET6 ? "/proc/net/tcp6" : "/proc/net/tcp";
	char want[40], line[512];
	int port, ret = -ENOENT;
	FILE *f;

	addr_hex(client, want, sizeof(want), &port);
	f = fopen(file, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char local[40], remote[40];
		unsigned int lport, rport, u;

		/* sl local rem st tx:rx tr:when retr uid ... */
		if (sscanf(line, " %*u: %39[0-9A-F]:%X %39[0-9A-F]:%X %*X %*X:%*X %*X:%*X %*X %u",
			   local, &lport, remote, &rport, &u) != 5)
			continue;
		if ((int)lport == port && (int)rport == server_port && !strcmp(local, want)) {
			*uid = u;
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

static int peer_uid_diag(const struct sockaddr *client, const struct sockaddr *server,
			 uid_t *uid)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} req = {
		.nlh = {
			.nlmsg_len = sizeof(req),
			.nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST,
		},
		.r = {
			.sdiag_protocol = IPPROTO_TCP,
			.idiag_states = ~0u,
			.id.idiag_cookie = { INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE },
		},
	};
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 1 };
	union {
		struct nlmsghdr h;
		char buf[1024];
	} ans;
	int fam, sfam, fd, ret = -ENOENT;
	ssize_t n;

	/* the client's socket: its end is the source, ours the destination */
	fam = id_end(client, req.r.id.idiag_src, &req.r.id.idiag_sport);
	sfam = id_end(server, req.r.id.idiag_dst, &req.r.id.idiag_dport);
	if (fam < 0 || fam != sfam)
		return -ENOENT;
	req.r.sdiag_family = fam;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	/* the kernel answers at once; a bound on it all the same */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		ret = -errno;
		goto out;
	}
	n = recv(fd, &ans, sizeof(ans), 0);
	if (n < 0) {
		ret = -errno;
		goto out;
	}
	/* one message: the socket's, or an error (-ENOENT: none such) */
	if (NLMSG_OK(&ans.h, (size_t)n)) {
		if (ans.h.nlmsg_type == NLMSG_ERROR &&
		    ans.h.nlmsg_len >= NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
			const struct nlmsgerr *e = NLMSG_DATA(&ans.h);

			ret = e->error ? e->error : -ENOENT;
		} else if (ans.h.nlmsg_type == SOCK_DIAG_BY_FAMILY &&
			   ans.h.nlmsg_len >= NLMSG_LENGTH(sizeof(struct inet_diag_msg))) {
			const struct inet_diag_msg *m = NLMSG_DATA(&ans.h);

			/* the socket asked for, not another's */
			if (m->id.idiag_sport == req.r.id.idiag_sport &&
			    m->id.idiag_dport == req.r.id.idiag_dport &&
			    !memcmp(m->id.idiag_src, req.r.id.idiag_src, 16) &&
			    !memcmp(m->id.idiag_dst, req.r.id.idiag_dst, 16)) {
				*uid = m->idiag_uid;
				ret = 0;
			}
		}
	}
out:
	close(fd);
	return ret;
}

int http_peer__uid(int conn_fd, const struct sockaddr *client, uid_t *uid)
{
	struct sockaddr_storage server;
	socklen_t len = sizeof(server);
	__be16 port;
	__be32 addr[4];

	if (client->sa_family != AF_INET && client->sa_family != AF_INET6)
		return -ENOENT;
	if (getsockname(conn_fd, (struct sockaddr *)&server, &len))
		return -errno;
	if (!peer_uid_diag(client, (struct sockaddr *)&server, uid))
		return 0;
	/* no answer from the diagnostics (-ENOENT is also what a kernel
	 * without tcp_diag says): the socket table's file */
	id_end((struct sockaddr *)&server, addr, &port);
	return peer_uid_proc(client, ntohs(port), uid);
}

bool http_peer__allowed(uid_t uid, gid_t gid)
{
	struct passwd pw, *p = NULL;
	char buf[4096];
	gid_t groups[256];
	int n = 256;

	if (uid == 0)
		return true;
	if (gid == (gid_t)-1 || getpwuid_r(uid, &pw, buf, sizeof(buf), &p) || !p)
		return false;
	if (p->pw_gid == gid)
		return true;
	if (getgrouplist(p->pw_name, p->pw_gid, groups, &n) < 0)
		return false;
	for (int i = 0; i < n; i++)
		if (groups[i] == gid)
			return true;
	return false;
}
