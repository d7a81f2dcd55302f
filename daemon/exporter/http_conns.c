// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* /metrics' connections, bounded by eviction (daemon/exporter/http_conns.h). */
#include <string.h>
#include <netinet/in.h>
#include "daemon/exporter/http_conns.h"

void http_conns__key(const struct sockaddr *sa, unsigned char key[9])
{
	memset(key, 0, 9);
	if (sa && sa->sa_family == AF_INET) {
		key[0] = 4;
		memcpy(key + 1, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	} else if (sa && sa->sa_family == AF_INET6) {
		const struct in6_addr *a6 = &((const struct sockaddr_in6 *)sa)->sin6_addr;

		if (IN6_IS_ADDR_V4MAPPED(a6)) {
			key[0] = 4;
			memcpy(key + 1, a6->s6_addr + 12, 4);
		} else {
			key[0] = 6;
			memcpy(key + 1, a6->s6_addr, 8);
		}
	}
}

static struct http_conn *conn__find(struct http_conns *t, struct MHD_Connection *c)
{
	for (int i = 0; i < HTTP_CONN_SLOTS; i++)
		if (t->c[i].c == c)
			return &t->c[i];
	return NULL;
}

/* The longest idle of those that key has (NULL: any), not yet evicted */
static struct http_conn *conn__idlest(struct http_conns *t, const unsigned char *key)
{
	struct http_conn *best = NULL;

	for (int i = 0; i < HTTP_CONN_SLOTS; i++) {
		struct http_conn *e = &t->c[i];

		if (!e->c || e->busy || e->evicted || (key && memcmp(e->key, key, 9)))
			continue;
		if (!best || e->since < best->since)
			best = e;
	}
	return best;
}

static bool conn__evict(struct http_conns *t, struct http_conn *e)
{
	if (!e)
		return false;
	/* libmicrohttpd sees the end at its next poll and closes it */
	shutdown(e->fd, SHUT_RDWR);
	e->evicted = true;
	t->evictions++;
	return true;
}

bool http_conns__admit(struct http_conns *t, const struct sockaddr *sa, double now)
{
	unsigned char key[9];
	int all = 0, mine = 0;

	(void)now;
	http_conns__key(sa, key);
	for (int i = 0; i < HTTP_CONN_SLOTS; i++) {
		const struct http_conn *e = &t->c[i];

		if (!e->c || e->evicted)
			continue;
		all++;
		mine += !memcmp(e->key, key, sizeof(key));
	}
	if (mine >= HTTP_CONNS_PER_IP && !conn__evict(t, conn__idlest(t, key)))
		return false;
	if (mine < HTTP_CONNS_PER_IP && all >= HTTP_CONNS &&
	    !conn__evict(t, conn__idlest(t, NULL)))
		return false;
	/* an entry for it: a free one (evicted ones may not have gone yet) */
	for (int i = 0; i < HTTP_CONN_SLOTS; i++)
		if (!t->c[i].c)
			return true;
	return false;
}

void http_conns__started(struct http_conns *t, struct MHD_Connection *c, int fd,
			 const struct sockaddr *sa, double now)
{
	for (int i = 0; i < HTTP_CONN_SLOTS; i++) {
		struct http_conn *e = &t->c[i];

		if (e->c)
			continue;
		*e = (struct http_conn){ .c = c, .fd = fd, .since = now };
		http_conns__key(sa, e->key);
		return;
	}
	/* no entry (admit said there was one): it cannot be evicted, only
	 * time out; never more than libmicrohttpd's own limit */
}

void http_conns__closed(struct http_conns *t, struct MHD_Connection *c)
{
	struct http_conn *e = conn__find(t, c);

	if (e)
		memset(e, 0, sizeof(*e));
}

void http_conns__busy(struct http_conns *t, struct MHD_Connection *c, bool busy,
		      double now)
{
	struct http_conn *e = conn__find(t, c);

	if (!e)
		return;
	e->busy = busy;
	if (!busy)
		e->since = now;
}

void http_conns__set_local_ok(struct http_conns *t, struct MHD_Connection *c, bool ok)
{
	struct http_conn *e = conn__find(t, c);

	if (e)
		e->local_ok = ok;
}

bool http_conns__local_ok(struct http_conns *t, struct MHD_Connection *c)
{
	struct http_conn *e = conn__find(t, c);

	return e && e->local_ok;
}
