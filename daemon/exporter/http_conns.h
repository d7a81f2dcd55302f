/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * /metrics' connections, bounded by eviction rather than refusal: at the
 * limit (HTTP_CONNS in all, HTTP_CONNS_PER_IP from one address, an IPv6
 * /64 as one), a new connection takes the place of the longest idle one
 * (no request being answered: slow to send its headers, or kept alive
 * between requests), which is shut down. A slowloris holding every slot
 * with a header line a second is thus pushed out by a scrape, where
 * refusing the scrape locked it out until the slow ones timed out. Only
 * connections all busy being answered refuse a new one. All calls come
 * from libmicrohttpd's one polling thread.
 */
#ifndef DAEMON_EXPORTER_HTTP_CONNS_H
#define DAEMON_EXPORTER_HTTP_CONNS_H

#include <stdbool.h>
#include <sys/socket.h>

#define HTTP_CONNS 64
#define HTTP_CONNS_PER_IP 32
/* entries: the evicted ones keep theirs until libmicrohttpd closes them */
#define HTTP_CONN_SLOTS (2 * HTTP_CONNS)

struct MHD_Connection;

struct http_conn {
	struct MHD_Connection *c;	/* NULL: a free entry */
	int fd;
	bool busy;			/* a request whole, being answered */
	bool evicted;			/* shut down, not closed yet */
	double since;			/* when it came, or its last answer went */
	bool local_ok;			/* plain /metrics: its uid may read it */
	unsigned char key[9];		/* its address's (http_auth's keys) */
};

struct http_conns {
	struct http_conn c[HTTP_CONN_SLOTS];
	unsigned long evictions;
};

/* May a connection from sa come in (true), after evicting whom it must? */
bool http_conns__admit(struct http_conns *t, const struct sockaddr *sa, double now);
/* Connection c (its fd, from sa) came or went. */
void http_conns__started(struct http_conns *t, struct MHD_Connection *c, int fd,
			 const struct sockaddr *sa, double now);
void http_conns__closed(struct http_conns *t, struct MHD_Connection *c);
/* c's request is whole (busy) or answered (idle from now). */
void http_conns__busy(struct http_conns *t, struct MHD_Connection *c, bool busy,
		      double now);
/* c may read plain /metrics (http_peer.h), or not (the default). */
void http_conns__set_local_ok(struct http_conns *t, struct MHD_Connection *c, bool ok);
bool http_conns__local_ok(struct http_conns *t, struct MHD_Connection *c);
/* An address's key, as http_auth keys its sources. */
void http_conns__key(const struct sockaddr *sa, unsigned char key[9]);

#endif
