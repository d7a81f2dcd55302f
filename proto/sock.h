/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The client end of the daemon's UNIX socket, shared by libemon
 * (libemon/selfmon.c) and the front ends (front/source_daemon.c):
 * proto/sock.c is built into both (libproto.a and libemon.a). Plain libc, as all of
 * libemon: the symbols end up in applications linked with libemon.a.
 */
#ifndef PROTO_SOCK_H
#define PROTO_SOCK_H

#include <stddef.h>

/* A connected SOCK_STREAM socket (close-on-exec), or -errno. */
int emon_sock__connect(const char *path);

/*
 * Read exactly len bytes within timeout_ms in all (a peer that sends a
 * byte now and then cannot hold the reader longer): 0, -ETIMEDOUT,
 * -ECONNRESET (the peer closed) or -errno. An fd passed
 * with the bytes (SCM_RIGHTS) goes into *fd when fd is given and *fd is
 * still -1; any other is closed.
 */
int emon_sock__recv(int sock, void *buf, size_t len, int timeout_ms, int *fd);

#endif
