// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Who a loopback HTTP client is (daemon/exporter/http_peer.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <linux/types.h>
#include "daemon/exporter/http_peer.h"

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

int http_peer__uid(const struct sockaddr *client, int server_port, uid_t *uid)
{
	const char *file = client->sa_family == AF_INET6 ? "/proc/net/tcp6" : "/proc/net/tcp";
	char want[40], line[512];
	int port, ret = -ENOENT;
	FILE *f;

	if (client->sa_family != AF_INET && client->sa_family != AF_INET6)
		return -ENOENT;
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
