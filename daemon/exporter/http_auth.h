/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Basic auth for /metrics (web config's basic_auth_users): a user's
 * password checked against its bcrypt hash with libcrypt.
 *
 * A bcrypt check costs tens of milliseconds of CPU (cost 10: ~70 ms), so
 * a client sending passwords could keep a CPU busy. Two bounds: a right
 * pair is remembered for a while (by its SHA-256, never in clear), so
 * that a Prometheus scraping every second costs one bcrypt per
 * HTTP_AUTH_CACHE_S, not one a scrape; and the checks the memory cannot
 * answer are rate-limited per source (each client address, an IPv6 /64
 * as one, has a bucket of HTTP_AUTH_BURST refilled at HTTP_AUTH_RATE a
 * second) and in all (HTTP_AUTH_ALL_BURST, HTTP_AUTH_ALL_RATE: the CPU
 * bound): past either the answer is "busy", 429, without a check. One
 * client's wrong passwords empty its own bucket and half of the one of
 * all, so a right one from elsewhere is still checked; many sources at
 * once can still fill the bound of all (remembered pairs still pass). A user name nobody has costs a check too, so that the time
 * does not tell which names exist. One caller at a time (the HTTP thread).
 */
#ifndef DAEMON_HTTP_AUTH_H
#define DAEMON_HTTP_AUTH_H

#include <sys/socket.h>
#include "daemon/exporter/webcfg.h"

#define HTTP_AUTH_CACHE_S 600.0
#define HTTP_AUTH_BURST 4.0
#define HTTP_AUTH_RATE 2.0	/* a source's bcrypt checks a second, sustained */
#define HTTP_AUTH_ALL_BURST 8.0
#define HTTP_AUTH_ALL_RATE 4.0	/* all sources' */
#define HTTP_AUTH_SOURCES 64	/* sources with a bucket; the longest unseen goes */

enum http_auth_result {
	HTTP_AUTH_OK,
	HTTP_AUTH_DENIED,	/* no such user, a wrong password */
	HTTP_AUTH_BUSY,		/* too many checks just now: try later */
};

struct http_auth;

/* The users of w (copied); 0 or -ENOMEM. */
int http_auth__new(struct http_auth **a, const struct webcfg *w);
void http_auth__free(struct http_auth *a);
/* Check user and password (NULL: none given) from src (the client's
 * address; NULL: one source for all) at now (CLOCK_MONOTONIC s). */
enum http_auth_result http_auth__check(struct http_auth *a, const struct sockaddr *src,
				       const char *user, const char *pass, double now);
/* bcrypt checks run so far (the tests count them). */
unsigned long http_auth__checks(const struct http_auth *a);

#endif
