// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The answers of a flush: every snapshot request waiting then, the
 * clients' and /metrics' (server__request_all, from another thread),
 * shares it, and requests of the same scopes, events and view
 * (server_peer.c) share one encoding. Unread answers hold memory, bounded
 * by max_held and shared fairly between uids.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "daemon/socket/server_int.h"
#include "common/log.h"

/*
 * Snapshot answers that clients have not read yet, and that their
 * sockets could not take, hold memory, bounded by max_held, and shared
 * fairly: a uid's requests wait for a later flush while its clients hold
 * a quarter of max_held unread (as a uid holds at most a quarter of the
 * connections), or while all of max_held is held and it holds some. A
 * uid that holds nothing always gets its answer, however large, at the
 * next flush (the engine's own reads try every waiting request), so one
 * tenant's unread answers cannot delay another's beyond a read period
 * (administrators wait only on the whole bound).
 */
static bool server__held_full(const struct server *s)
{
	return s->o.max_held && s->held && s->held >= s->o.max_held;
}

static size_t uid__held(const struct server *s, uid_t uid)
{
	void *v = idmap__get(&s->uid_held, uid, 0);

	return v ? (size_t)(uintptr_t)v - 1 : 0;
}

static void uid__hold(struct server *s, uid_t uid, size_t bytes)
{
	/* no room in the map: the uid is not charged (never refused) */
	idmap__put(&s->uid_held, uid, 0, (void *)(uintptr_t)(uid__held(s, uid) + bytes + 1));
}

/* c's request waits for a later flush (see above) */
static bool client__waits(const struct server *s, const struct client *c)
{
	size_t mine = uid__held(s, c->charge);

	if (!s->o.max_held || !mine)
		return false;
	return server__held_full(s) || (!c->admin && mine >= s->o.max_held / 4);
}

bool server__want(const struct server *s, double now)
{
	bool want;

	pthread_mutex_lock((pthread_mutex_t *)&s->lock);
	/* a flush of its own only while the bound has room; requests that
	 * wait are tried again at every flush (server__run) */
	want = (s->npending && !server__held_full(s)) || s->nr_internal;
	/* /metrics' requests while the last flush is fresh: answered from it
	 * (server__run), no flush of their own */
	if (want && !s->npending && s->nr_internal &&
	    now < s->last_flush + s->o.internal_fresh_s)
		want = false;
	pthread_mutex_unlock((pthread_mutex_t *)&s->lock);
	return want;
}

/* What one encoding answers: clients asking the same with the same view. */
struct answer_key {
	struct emon_snap_req req;
	struct snap_view view;
};

/*
 * The encoded snapshot for c's request, from this flush: one encoding
 * shared by every request of the same scopes and events and the same
 * view (a tree's is its own).
 */
static struct payload *answer__get(struct server *s, const struct client *c,
				   struct payload **shared, struct answer_key *keys,
				   int *nshared)
{
	const struct emon_snap_req *req = &c->req;
	struct payload *pl;
	size_t len;
	void *buf;
	int i;

	for (i = 0; req->tree < 0 && i < *nshared; i++) {
		if (keys[i].req.scopes == req->scopes && keys[i].req.events == req->events &&
		    snap_view__equal(&keys[i].view, &c->view)) {
			shared[i]->refs++;
			return shared[i];
		}
	}
	if (engine__encode_view(s->e, req, &c->view, &buf, &len))
		return NULL;
	pl = payload__new(buf, len);
	free(buf);
	if (pl) {
		pl->held = &s->held;
		s->held += len;
	}
	if (pl && req->tree < 0 && *nshared < MAX_SHARED) {
		keys[*nshared] = (struct answer_key){ *req, c->view };
		shared[(*nshared)++] = pl;
		pl->refs++;
	}
	return pl;
}

void server__answer(struct server *s, double now, int err)
{
	struct payload *shared[MAX_SHARED];
	struct answer_key keys[MAX_SHARED];
	int nshared = 0, deferred = 0;

	/* each uid's unread bytes, as this flush starts */
	idmap__reset(&s->uid_held, NULL, NULL);
	for (int i = 0; i < s->o.max_clients; i++)
		if (s->c[i] && s->c[i]->out)
			uid__hold(s, s->c[i]->charge, s->c[i]->out_len - s->c[i]->out_off);
	for (int i = 0; i < s->o.max_clients; i++) {
		struct client *c = s->c[i];
		struct payload *pl;
		int bad;

		if (!c || !c->pending)
			continue;
		if (!err && client__waits(s, c)) {
			deferred++;
			continue;	/* pending still, for a later flush */
		}
		pl = err ? NULL : answer__get(s, c, shared, keys, &nshared);
		if (pl)
			uid__hold(s, c->charge, pl->len);
		c->pending = false;
		s->npending--;
		if (!pl) {
			bad = client__error(c, err ? -err : ENOMEM, false, now,
					    "cannot take a snapshot");
		} else {
			bad = client__queue_shared(c, EMON_MSG_SNAPSHOT, pl, now);
			payload__put(pl);
		}
		if (bad)
			client__close(s, i);
	}
	for (int i = 0; i < nshared; i++)
		payload__put(shared[i]);
	if (deferred)
		pr_debug("%d requests wait: %zu bytes of answers unread (--max-held-mb)",
			 deferred, s->held);
	server__answer_internal(s, err, 0);
}

void server__answer_internal(struct server *s, int err, double since)
{
	struct internal_req in[MAX_INTERNAL];
	int nin = 0;

	pthread_mutex_lock(&s->lock);
	if (s->last_flush >= since) {
		nin = s->nr_internal;
		memcpy(in, s->internal, nin * sizeof(in[0]));
		s->nr_internal = 0;
	}
	pthread_mutex_unlock(&s->lock);
	for (int i = 0; i < nin; i++) {
		struct emon_snap_req req = { .scopes = in[i].scopes, .tree = -1 };
		void *buf = NULL;
		size_t len = 0;
		int e = err ?: engine__encode(s->e, &req, &buf, &len);

		in[i].done(in[i].ctx, buf, len, e);
	}
}

int server__request_all(struct server *s, unsigned int scopes,
			server_done_fn done, void *ctx)
{
	__u64 one = 1;
	int err = 0;

	pthread_mutex_lock(&s->lock);
	if (s->stopping)
		err = -ESHUTDOWN;
	else if (s->nr_internal == MAX_INTERNAL)
		err = -EBUSY;
	else
		s->internal[s->nr_internal++] = (struct internal_req){ scopes, done, ctx };
	pthread_mutex_unlock(&s->lock);
	if (!err && write(s->wake_fd, &one, sizeof(one)) < 0)
		err = -errno;
	return err;
}

void server__shutdown(struct server *s)
{
	struct internal_req in[MAX_INTERNAL];
	int nin;

	pthread_mutex_lock(&s->lock);
	s->stopping = true;
	nin = s->nr_internal;
	memcpy(in, s->internal, nin * sizeof(in[0]));
	s->nr_internal = 0;
	pthread_mutex_unlock(&s->lock);
	for (int i = 0; i < nin; i++)
		in[i].done(in[i].ctx, NULL, 0, -ESHUTDOWN);
}
