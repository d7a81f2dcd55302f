/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Who a loopback HTTP client is: the uid that owns its TCP socket, asked
 * of the kernel by the connection's two ends (NETLINK_SOCK_DIAG, one
 * hash lookup, as ss(8) does for one socket). /proc/net/tcp, read
 * before, is a walk of every TCP socket of the host: 16% of the daemon's
 * CPU at a scrape a second here, and its cost grows with the host's
 * connections. Where the kernel answers no diagnostics (built without
 * inet_diag, or tcp_diag not loadable: Debian's 6.1 in a guest whose
 * root is another kernel's tree) and for a socket it does not find, the
 * walk of /proc/net/tcp is the fallback. Plain /metrics on loopback serves root and the members of
 * --metrics-group only (docs/security.md): every local user could read
 * it before, energy and other users' processes included.
 */
#ifndef DAEMON_EXPORTER_HTTP_PEER_H
#define DAEMON_EXPORTER_HTTP_PEER_H

#include <stdbool.h>
#include <sys/socket.h>
#include <sys/types.h>

/* The uid owning the client socket at client (its address and port)
 * connected to this host's end of conn_fd (an accepted connection): 0,
 * -ENOENT (not found), or another -errno. */
int http_peer__uid(int conn_fd, const struct sockaddr *client, uid_t *uid);
/* May uid read plain /metrics: root, or a member of gid (-1: none). */
bool http_peer__allowed(uid_t uid, gid_t gid);

#endif
