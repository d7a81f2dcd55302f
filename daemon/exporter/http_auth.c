// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Basic auth against bcrypt hashes (daemon/exporter/http_auth.h): libxcrypt's
 * crypt_rn() computes the hash, compared in constant time; the memory of
 * right pairs and the rate limit bound what wrong ones cost.
 */
#define _GNU_SOURCE
#include <crypt.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <gnutls/crypto.h>
#include "daemon/exporter/http_auth.h"
#include "daemon/exporter/http_conns.h"

#define CACHE_SLOTS 16
#define DIGEST_LEN 32		/* SHA-256 */

struct remembered {
	unsigned char digest[DIGEST_LEN];	/* of user '\0' password */
	double until;				/* 0: empty */
};

struct bucket {
	double tokens, last;	/* last -1: never taken from (full) */
};

/* A client address's own bucket: IPv4, or an IPv6 /64 (one host's) */
struct source {
	unsigned char key[9];	/* family byte, then 4 or 8 address bytes */
	double seen;		/* 0: empty */
	struct bucket b;
};

struct http_auth {
	struct webcfg_user *users;
	size_t nr_users;
	struct remembered cache[CACHE_SLOTS];
	struct bucket all;	/* every source's checks: the CPU bound */
	struct source src[HTTP_AUTH_SOURCES];
	unsigned long checks;
	struct crypt_data cd;	/* 32 KiB: kept, not on the stack */
};

int http_auth__new(struct http_auth **ap, const struct webcfg *w)
{
	struct http_auth *a = calloc(1, sizeof(*a));
	int err = -ENOMEM;

	if (!a)
		return -ENOMEM;
	a->users = calloc(w->nr_users ? w->nr_users : 1, sizeof(*a->users));
	if (!a->users)
		goto fail;
	for (; a->nr_users < w->nr_users; a->nr_users++) {
		struct webcfg_user *u = &a->users[a->nr_users];

		u->name = strdup(w->users[a->nr_users].name);
		u->hash = strdup(w->users[a->nr_users].hash);
		if (!u->name || !u->hash) {
			a->nr_users++;
			goto fail;
		}
	}
	a->all = (struct bucket){ .tokens = HTTP_AUTH_ALL_BURST, .last = -1 };
	*ap = a;
	return 0;
fail:
	http_auth__free(a);
	return err;
}

void http_auth__free(struct http_auth *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nr_users; i++) {
		free(a->users[i].name);
		free(a->users[i].hash);
	}
	free(a->users);
	explicit_bzero(a, sizeof(*a));
	free(a);
}

/* The digest a right pair is remembered by; 0 or -1. */
static int pair__digest(const char *user, const char *pass,
			unsigned char digest[DIGEST_LEN])
{
	size_t ul = strlen(user), pl = strlen(pass);
	char *buf = malloc(ul + pl + 1);
	int ret;

	if (!buf)
		return -1;
	memcpy(buf, user, ul + 1);
	memcpy(buf + ul + 1, pass, pl);
	ret = gnutls_hash_fast(GNUTLS_DIG_SHA256, buf, ul + pl + 1, digest);
	explicit_bzero(buf, ul + pl + 1);
	free(buf);
	return ret ? -1 : 0;
}

/* Equal in a time that depends on the length only. */
static bool same(const void *x, const void *y, size_t n)
{
	const unsigned char *a = x, *b = y;
	unsigned char d = 0;

	for (size_t i = 0; i < n; i++)
		d |= a[i] ^ b[i];
	return !d;
}

static bool cache__has(struct http_auth *a, const unsigned char *digest,
		       double now)
{
	for (int i = 0; i < CACHE_SLOTS; i++)
		if (a->cache[i].until > now &&
		    same(a->cache[i].digest, digest, DIGEST_LEN))
			return true;
	return false;
}

/* Into an empty or expired slot, else over the one that expires first. */
static void cache__add(struct http_auth *a, const unsigned char *digest,
		       double now)
{
	struct remembered *r = &a->cache[0];

	for (int i = 1; i < CACHE_SLOTS && r->until > now; i++)
		if (a->cache[i].until < r->until)
			r = &a->cache[i];
	memcpy(r->digest, digest, DIGEST_LEN);
	r->until = now + HTTP_AUTH_CACHE_S;
}

/* The bucket refilled to now; true if it holds a token (not taken). */
static bool bucket__has(struct bucket *b, double now, double rate, double burst)
{
	if (b->last < 0)
		b->tokens = burst;
	else if (now > b->last)
		b->tokens += (now - b->last) * rate;
	if (b->tokens > burst)
		b->tokens = burst;
	b->last = now;
	return b->tokens >= 1;
}

/* sa's bucket: its own, else an empty one, else the longest unseen's */
static struct bucket *source__bucket(struct http_auth *a, const struct sockaddr *sa,
				     double now)
{
	unsigned char key[9];
	struct source *s = NULL;

	http_conns__key(sa, key);
	for (int i = 0; i < HTTP_AUTH_SOURCES; i++) {
		struct source *c = &a->src[i];

		if (c->seen && !memcmp(c->key, key, sizeof(key))) {
			s = c;
			break;
		}
		if (!s || c->seen < s->seen)
			s = c;
	}
	if (memcmp(s->key, key, sizeof(key)) || !s->seen) {
		memcpy(s->key, key, sizeof(key));
		s->b = (struct bucket){ .last = -1 };
	}
	s->seen = now > 0 ? now : 1e-9;
	return &s->b;
}

/*
 * A check takes a token from its source's bucket and one from the
 * bucket of all: a client that sends wrong passwords empties its own,
 * and leaves the others' checks to the rest of the CPU bound.
 */
static bool bucket__take(struct http_auth *a, const struct sockaddr *sa, double now)
{
	struct bucket *b = source__bucket(a, sa, now);

	if (!bucket__has(b, now, HTTP_AUTH_RATE, HTTP_AUTH_BURST) ||
	    !bucket__has(&a->all, now, HTTP_AUTH_ALL_RATE, HTTP_AUTH_ALL_BURST))
		return false;
	b->tokens -= 1;
	a->all.tokens -= 1;
	return true;
}

/* bcrypt: true if pass hashes to hash. */
static bool bcrypt__check(struct http_auth *a, const char *pass, const char *hash)
{
	const char *out;
	size_t n = strlen(hash);

	a->checks++;
	out = crypt_rn(pass, hash, &a->cd, sizeof(a->cd));
	return out && strlen(out) == n && same(out, hash, n);
}

enum http_auth_result http_auth__check(struct http_auth *a, const struct sockaddr *src,
				       const char *user, const char *pass, double now)
{
	unsigned char digest[DIGEST_LEN];
	const struct webcfg_user *u = NULL;
	bool ok;

	if (!a || !a->nr_users)
		return HTTP_AUTH_OK;
	if (!user || !pass)
		return HTTP_AUTH_DENIED;
	if (pair__digest(user, pass, digest))
		return HTTP_AUTH_BUSY;
	if (cache__has(a, digest, now))
		return HTTP_AUTH_OK;
	if (!bucket__take(a, src, now))
		return HTTP_AUTH_BUSY;
	for (size_t i = 0; i < a->nr_users && !u; i++)
		if (!strcmp(a->users[i].name, user))
			u = &a->users[i];
	/* a name nobody has: the same work, on the first user's hash */
	ok = bcrypt__check(a, pass, u ? u->hash : a->users[0].hash) && u;
	if (ok)
		cache__add(a, digest, now);
	return ok ? HTTP_AUTH_OK : HTTP_AUTH_DENIED;
}

unsigned long http_auth__checks(const struct http_auth *a)
{
	return a ? a->checks : 0;
}
