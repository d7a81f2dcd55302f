/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Who a loopback HTTP client is: the uid that owns its TCP socket, as the
 * kernel lists it in /proc/net/tcp (or tcp6), found by the connection's
 * two ends. Plain /metrics on loopback serves root and the members of
 * --metrics-group only (docs/security.md): every local user could read
 * it before, energy and other users' processes included.
 */
#ifndef DAEMON_EXPORTER_HTTP_PEER_H
#define DAEMON_EXPORTER_HTTP_PEER_H

#include <stdbool.h>
#include <sys/socket.h>
#include <sys/types.h>

/* The uid owning the client socket at client (its address and port)
 * connected to server_port on this host: 0, or -ENOENT (not found). */
int http_peer__uid(const struct sockaddr *client, int server_port, uid_t *uid);
/* May uid read plain /metrics: root, or a member of gid (-1: none). */
bool http_peer__allowed(uid_t uid, gid_t gid);

#endif
