// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Who a client is, and what it may see (docs/security.md).
 *
 * The kernel says who connected (SO_PEERCRED, SO_PEERGROUPS) and, since
 * Linux 6.5, hands a pidfd of that very process (SO_PEERPIDFD): rights
 * that rest on the peer's pid (following its child, a thread slot) are
 * granted only while that process lives, so a pid reused after the peer
 * exited gains nothing. Without SO_PEERPIDFD, the peer's start time from
 * /proc stands for it.
 *
 * Administrators (root, the daemon's own uid, members of --admin-group)
 * see everything. Anyone else gets what the kernel would let them count
 * themselves: their own processes (perf_event_open on another user's task
 * needs ptrace access), their own cgroups (a delegated subtree), and the
 * CPU-wide rest (system, CPUs, packages, energy, other cgroups) only
 * where perf_event_paranoid allows CPU-wide counting (<= 0), read at each
 * request since it can change.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/socket.h>
#include "daemon/socket/server_int.h"
#include "common/log.h"
#include "common/procfs.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77		/* asm-generic/socket.h, Linux 6.5 */
#endif
#define PEER_MAX_GROUPS 256

/* The start time of pid (clock ticks since boot), 0: gone. */
static unsigned long long start_of(pid_t pid)
{
	char buf[1024], *p = procfs__stat(pid, buf, sizeof(buf));
	unsigned long long t;

	/* from state (field 3) to starttime (field 22) */
	if (!p || sscanf(p + 1, " %*c" "%*s %*s %*s %*s %*s %*s %*s %*s %*s %*s"
			 "%*s %*s %*s %*s %*s %*s %*s %*s %llu", &t) != 1)
		return 0;
	return t;
}

static bool peer__in_group(int fd, gid_t gid)
{
	gid_t groups[PEER_MAX_GROUPS];
	socklen_t len = sizeof(groups);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len))
		return false;	/* more than we ask about: not an admin */
	for (size_t i = 0; i < len / sizeof(gid_t); i++)
		if (groups[i] == gid)
			return true;
	return false;
}

void peer__identify(const struct server *s, struct client *c)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int pidfd = -1;

	c->pidfd = -1;
	c->uid = c->charge = (uid_t)-1;
	if (getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		return;		/* nobody: sees nothing, limited */
	c->pid = cred.pid;
	c->uid = cred.uid;
	c->charge = peer__charge(cred.uid);
	/* the daemon's own uid is its starter's, unless --user made it a
	 * service's (nobody, 65534): then its other users are tenants */
	c->admin = cred.uid == 0 || (!s->o.uid && cred.uid == geteuid()) ||
		   (s->o.admin_gid != (gid_t)-1 &&
		    (cred.gid == s->o.admin_gid || peer__in_group(c->fd, s->o.admin_gid)));
	len = sizeof(pidfd);
	if (!getsockopt(c->fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) && pidfd >= 0)
		c->pidfd = pidfd;
	else
		c->start = start_of(c->pid);
}

bool peer__alive(const struct client *c)
{
	struct pollfd p = { .fd = c->pidfd, .events = POLLIN };

	if (c->pid <= 0)
		return false;
	if (c->pidfd >= 0)	/* readable once the process exited */
		return poll(&p, 1, 0) == 0;
	return c->start && start_of(c->pid) == c->start;
}

static int paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = 2;		/* unreadable: the usual default */

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

int peer__view(const struct client *c, const struct emon_snap_req *req,
	       struct snap_view *v, char *err, size_t errlen)
{
	int p;

	*v = (struct snap_view){ .all = c->admin, .uid = c->uid };
	if (c->admin)
		return 0;
	/* threads' owners are not kept: their rows are administrators' */
	if (req->scopes & EMON_SNAP_THREADS) {
		snprintf(err, errlen, "uid %u may not see thread rows (stat -t, "
			 "--per-thread): the daemon keeps no thread's owner, so "
			 "they are an administrator's only; or be one: root, or "
			 "in serve --admin-group", (unsigned int)c->uid);
		return -EACCES;
	}
	p = paranoid();
	v->cpu_wide = p <= 0;
	/* the system view alone: nothing of its own in it */
	if (!v->cpu_wide && req->tree < 0 && !(req->flags & EMON_SNAP_REQ_OWN) &&
	    !(req->scopes & (EMON_SNAP_CGROUPS | EMON_SNAP_PROCS))) {
		snprintf(err, errlen, "uid %u may not see the system view: it is "
			 "CPU-wide counting, which perf_event_paranoid %d allows "
			 "administrators only (<= 0: everyone, as perf stat -a "
			 "needs); or be one: root, or in serve --admin-group",
			 (unsigned int)c->uid, p);
		return -EACCES;
	}
	return 0;
}

int peer__count(const struct server *s, uid_t charge, bool trees)
{
	int n = 0;

	for (int i = 0; i < s->o.max_clients; i++) {
		const struct client *c = s->c[i];

		n += c && c->charge == charge && (!trees || c->tree >= 0);
	}
	return n;
}

/*
 * The owner of the subordinate range uid is in (/etc/subuid: "user:start:count"
 * a line), else uid. newuidmap maps only these ranges for an unprivileged
 * user, so a user who unshares a namespace with 65,536 uids is still one
 * user for the per-uid limits (it took every connection, tree and slot
 * array). Read at each connection (a small file), readable as --user.
 */
const char *peer__who(const struct client *c, char *buf, size_t len)
{
	snprintf(buf, len, c->charge == c->uid ? "uid %u" : "uid %u's subordinate uids",
		 (unsigned int)c->charge);
	return buf;
}

uid_t peer__charge(uid_t uid)
{
	char line[256];
	uid_t owner = uid;
	FILE *f = fopen("/etc/subuid", "re");

	if (!f)
		return uid;
	while (fgets(line, sizeof(line), f)) {
		char name[128], *end;
		unsigned long start, count, id;
		struct passwd *pw;

		if (sscanf(line, "%127[^:]:%lu:%lu", name, &start, &count) != 3 ||
		    uid < start || uid - start >= count)
			continue;
		id = strtoul(name, &end, 10);
		if (!*end && end != name) {
			owner = id;
			break;
		}
		pw = getpwnam(name);
		if (pw) {
			owner = pw->pw_uid;
			break;
		}
	}
	fclose(f);
	return owner;
}
