/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The daemon's HTTP endpoint (libmicrohttpd, its own polling thread):
 *   GET|HEAD /metrics   the body fn produces; OpenMetrics 1.0 when the
 *                       Accept header asks for application/openmetrics-text,
 *                       else Prometheus text 0.0.4; 503 if fn fails
 *   GET|HEAD /          a small HTML page linking to /metrics
 * Any other path: 404; another method: 405 (Allow: GET, HEAD). Bounded:
 * 64 connections, 32 per IP, 10 s idle timeout, 64 KiB per connection
 * (a larger request is refused by libmicrohttpd).
 *
 * With a web configuration (daemon/exporter/webcfg.h), every path first wants
 * what it asks: TLS only (a plain HTTP request gets no answer), a client
 * certificate signed by its CAs (else 403), a user and password of
 * basic_auth_users (else 401 with WWW-Authenticate, or 429 while wrong
 * passwords come faster than daemon/exporter/http_auth.h's rate).
 */
#ifndef DAEMON_HTTP_H
#define DAEMON_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

/* Produce the /metrics body (malloc'ed; http frees it); 0 or -errno.
 * Called in the HTTP thread, one call at a time. */
typedef int (*http_metrics_fn)(void *ctx, bool openmetrics, char **body,
			       size_t *len);

struct http_server;
struct webcfg;

/* Listen on spec, "ADDR:PORT" (IPv4 dotted, or [IPv6]:PORT; port 0 picks
 * a free one), with no thread yet: what may need privileges happens here,
 * before the daemon drops them. 0, or -errno with one line in err (bad
 * address, bind failure such as address in use). */
int http__open(struct http_server **h, const char *spec, http_metrics_fn fn,
	       void *ctx, char *err, size_t errlen);
/* Start serving: libmicrohttpd's thread, which inherits the calling
 * thread's privileges. 0, or -EIO with one line in err. */
int http__run(struct http_server *h, char *err, size_t errlen);
/* http__open() with web's TLS and users (NULL: neither): the files are
 * read here, with the privileges of set-up (a Secret's files may be
 * root's), before the socket is bound, and err names a bad one. */
int http__open_web(struct http_server **h, const char *spec,
		   const struct webcfg *web, http_metrics_fn fn, void *ctx,
		   char *err, size_t errlen);
/* http__open() and http__run() (with web: http__open_web()); on failure
 * *h is NULL. */
int http__start(struct http_server **h, const char *spec, http_metrics_fn fn,
		void *ctx, char *err, size_t errlen);
int http__start_web(struct http_server **h, const char *spec,
		    const struct webcfg *web, http_metrics_fn fn, void *ctx,
		    char *err, size_t errlen);
/* The bound port. */
/* Plain /metrics (no TLS nor basic auth; on loopback): served to root and
 * the members of gid (-1: root alone) only, each connection's uid from
 * the kernel's socket table (daemon/exporter/http_peer.h); 403 to the rest. */
void http__by_uid(struct http_server *h, gid_t gid);
int http__port(const struct http_server *h);
/* Stop serving (waits for the HTTP thread), close the socket, free h. */
void http__stop(struct http_server *h);

/* Check a --listen value without binding: 0 with *ss, *sslen filled, or
 * -EINVAL with a reason in err. "none" is the caller's. */
int http__parse_listen(const char *spec, struct sockaddr_storage *ss,
		       socklen_t *sslen, char *err, size_t errlen);
/* Only this host can reach it: 127.0.0.0/8, ::1, ::ffff:127.0.0.0/104. */
bool http__loopback(const struct sockaddr_storage *ss);

#endif
