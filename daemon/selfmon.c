// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Thread self-monitoring, the daemon's side (daemon/selfmon.h).
 *
 * The slot array is pinned as <pin dir>/self_slots (directory 0750 and
 * pin 0440, group --socket-group) for tools such as bpftool; libemon does
 * not need bpffs at all: the registration's answer carries an fd of the
 * array (SCM_RIGHTS), so a reader in a container that only sees the
 * socket works too. The array is frozen, read-only from user space: no
 * reader can write to anyone's slot, through its mmap or the syscall
 * (and a read-only fd would not do: the kernel maps such a file private,
 * which a BPF array refuses). The daemon writes slots through a BPF
 * program it test-runs (self_ctl).
 *
 * A registration names a tid. The daemon opens a pidfd of that thread
 * (PIDFD_THREAD) first, then checks that /proc/<peer>/task/<tid> exists
 * and that the pidfd has not been notified: the tid was then that very
 * thread of the peer's process, not a reused one. The pidfd is the key of
 * the thread's task storage entry (the BPF side's way to find its slot)
 * and sits in an epoll set: when the thread exits, the set becomes
 * readable and the slot is taken back. Slots, pidfds and task storage are
 * all bounded by --threads, so thread churn leaks nothing, and one uid's
 * threads hold at most max_per_uid of them.
 *
 * Not isolated yet: the fd is of the whole array, so a registered thread
 * can read every other thread's slot, another user's too
 * (docs/security.md says what it would take: an array per uid).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include "daemon/dirs.h"
#include "daemon/selfmon.h"
#include "common/log.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL	/* linux/pidfd.h, 6.9 */
#endif

/* x86_pmu.cntval_bits on Intel (since Core) and AMD, which BTF does not
 * give: the width of a counter read with rdpmc. */
#define SELF_PMC_WIDTH 48

struct self_owner {
	int pidfd;		/* -1: the slot is free */
	pid_t tid, tgid;
	uid_t uid;		/* the registering client's */
};

struct selfmon {
	__u32 nr;
	__u32 max_per_uid;
	int slots_fd, task_fd, ctl_fd;	/* the engine's */
	int epfd;
	const struct emon_self_slot *mem;
	size_t len;
	struct self_owner *own;	/* [nr] */
	__u64 gen;
	int used;
	__u32 nr_events, time_mask, switch_mask;
	char dir[PATH_MAX], pin[PATH_MAX];
	bool made_dir, pinned;	/* what close removes: only what we made */
};

static bool on_bpffs(const char *path)
{
	struct statfs st;

	return !statfs(path, &st) && st.f_type == BPF_FS_MAGIC;
}

/* The pin directory's parent must be a bpffs; /sys/fs/bpf is mounted
 * when nothing is (as bpftool does). */
static int selfmon__bpffs(const char *dir)
{
	char parent[PATH_MAX], *p;

	snprintf(parent, sizeof(parent), "%s", dir);
	p = strrchr(parent, '/');
	if (!p || p == parent) {
		pr_err("bad --pin-dir '%s': a directory to make on a bpf file system", dir);
		return -EINVAL;
	}
	*p = '\0';
	if (on_bpffs(parent))
		return 0;
	if (!strcmp(parent, "/sys/fs/bpf") &&
	    !mount("bpf", parent, "bpf", 0, NULL) && on_bpffs(parent)) {
		pr_debug("mounted a bpf file system on /sys/fs/bpf");
		return 0;
	}
	pr_err("bad --pin-dir '%s': %s is not a bpf file system (mount -t bpf bpf %s)",
	       dir, parent, parent);
	return -EINVAL;
}

/* Make the directory and pin the array in it, for the group to read. */
static int selfmon__pin(struct selfmon *s, uid_t uid, gid_t gid)
{
	uid_t dir_uid;
	int err;

	/* bpffs is often 1777: another user may have made it first */
	err = dirs__make_own(s->dir, 0700, "the pin directory (--pin-dir)", &s->made_dir);
	if (err)
		return err;
	/* one left by a daemon that was killed: this socket's is ours now,
	 * and so is its directory, removed at exit as if we had made it */
	if (!unlink(s->pin)) {
		pr_debug("%s: left by a daemon that did not end cleanly: replaced", s->pin);
		s->made_dir = true;
	}
	if (bpf_obj_pin(s->slots_fd, s->pin)) {
		err = -errno;
		pr_err("cannot pin the thread slots at %s: %s", s->pin, strerror(-err));
		return err;
	}
	s->pinned = true;
	/* --user removes what we made at exit */
	dir_uid = s->made_dir && uid ? uid : (uid_t)-1;
	if (chmod(s->dir, 0750) || chmod(s->pin, 0440) ||
	    ((gid != (gid_t)-1 || dir_uid != (uid_t)-1) &&
	     (chown(s->dir, dir_uid, gid) || chown(s->pin, -1, gid)))) {
		err = -errno;
		pr_err("cannot give %s to --socket-group: %s", s->dir, strerror(-err));
		return err;
	}
	return 0;
}

static int selfmon__map(struct selfmon *s)
{
	long page = sysconf(_SC_PAGESIZE);
	int err;

	if (bpf_map_freeze(s->slots_fd)) {
		err = -errno;
		pr_err("cannot freeze the thread slots: %s", strerror(-err));
		return err;
	}
	s->len = ((size_t)s->nr * sizeof(*s->mem) + page - 1) / page * page;
	s->mem = mmap(NULL, s->len, PROT_READ, MAP_SHARED, s->slots_fd, 0);
	if (s->mem == MAP_FAILED) {
		err = -errno;
		s->mem = NULL;
		pr_err("cannot mmap the thread slots: %s", strerror(-err));
		return err;
	}
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0) {
		err = -errno;
		pr_err("epoll: %s", strerror(-err));
		return err;
	}
	return 0;
}

/* Pidfds of threads (PIDFD_THREAD) came with Linux 6.9. */
static int selfmon__check_kernel(void)
{
	int fd = syscall(SYS_pidfd_open, (pid_t)syscall(SYS_gettid), PIDFD_THREAD);
	int err;

	if (fd < 0) {
		err = -errno;
		pr_err("--threads needs pidfds of threads (Linux 6.9 or later): %s",
		       strerror(-err));
		/* not bad input: the kernel lacks it */
		return err == -EINVAL ? -EOPNOTSUPP : err;
	}
	close(fd);
	return 0;
}

int selfmon__open(struct selfmon **sp, const struct selfmon_opts *o,
		  const struct engine *e)
{
	const struct snap_meta *m = engine__meta(e);
	struct selfmon *s;
	int ret;

	*sp = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->nr = o->max_threads;
	s->max_per_uid = o->max_per_uid ? o->max_per_uid : o->max_threads;
	s->epfd = -1;
	s->nr_events = m->nr_events;
	for (int i = 0; i < m->nr_events; i++) {
		s->time_mask |= m->ev_is_time[i] ? 1u << i : 0;
		if (!strcmp(m->ev_name[i], "context-switches") || !strcmp(m->ev_name[i], "cs"))
			s->switch_mask |= 1u << i;
	}
	snprintf(s->dir, sizeof(s->dir), "%s", o->pin_dir);
	snprintf(s->pin, sizeof(s->pin), "%s/self_slots", o->pin_dir);
	s->own = calloc(s->nr, sizeof(*s->own));
	ret = s->own ? engine__self_maps(e, &s->slots_fd, &s->task_fd, &s->ctl_fd) : -ENOMEM;
	if (ret) {
		pr_err("cannot set up the thread slots: %s", strerror(-ret));
		free(s->own);
		free(s);
		return ret;
	}
	for (__u32 i = 0; i < s->nr; i++)
		s->own[i].pidfd = -1;
	ret = selfmon__check_kernel();
	ret = ret ?: selfmon__bpffs(s->dir);
	ret = ret ?: selfmon__map(s);
	ret = ret ?: selfmon__pin(s, o->uid, o->gid);
	if (ret) {
		selfmon__close(s);
		return ret;
	}
	*sp = s;
	return 0;
}

/* Set slot i's state (a new registration's gen and tid: counts zeroed). */
static int selfmon__set(struct selfmon *s, __u32 i, __u32 state, __u64 gen, __u32 tid)
{
	__u64 args[4] = { i, state, gen, tid };
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = args, .ctx_size_in = sizeof(args));

	if (bpf_prog_test_run_opts(s->ctl_fd, &o))
		return -errno;
	return o.retval ? -EINVAL : 0;
}

/* Take slot i back: no thread finds it from now on. */
static void selfmon__free(struct selfmon *s, __u32 i)
{
	struct self_owner *o = &s->own[i];

	/* the thread's entry: gone with it when it exited, else here */
	bpf_map_delete_elem(s->task_fd, &o->pidfd);
	epoll_ctl(s->epfd, EPOLL_CTL_DEL, o->pidfd, NULL);
	close(o->pidfd);
	o->pidfd = -1;
	if (selfmon__set(s, i, EMON_SELF_FREE, 0, 0))
		pr_warn("cannot free thread slot %u: %s", i, strerror(errno));
	__atomic_store_n(&s->used, s->used - 1, __ATOMIC_RELAXED);
	pr_debug("thread %d of pid %d: slot %u free", (int)o->tid, (int)o->tgid, i);
}

void selfmon__close(struct selfmon *s)
{
	if (!s)
		return;
	for (__u32 i = 0; s->own && i < s->nr; i++) {
		if (s->own[i].pidfd < 0)
			continue;
		close(s->own[i].pidfd);
		/* final: readers say the daemon stopped instead of reading on */
		selfmon__set(s, i, EMON_SELF_GONE, 0, 0);
	}
	if (s->mem)
		munmap((void *)s->mem, s->len);
	if (s->pinned)
		unlink(s->pin);
	if (s->made_dir)
		rmdir(s->dir);
	if (s->epfd >= 0)
		close(s->epfd);
	free(s->own);
	free(s);
}

int selfmon__fd(const struct selfmon *s)
{
	return s ? s->epfd : -1;
}

void selfmon__reap(struct selfmon *s)
{
	struct epoll_event ev[64];
	int n;

	do {
		n = epoll_wait(s->epfd, ev, 64, 0);
		for (int k = 0; k < n; k++)
			if (s->own[ev[k].data.u32].pidfd >= 0)
				selfmon__free(s, ev[k].data.u32);
	} while (n == 64);
}

/* from the HTTP thread too: the main thread alone changes it */
int selfmon__used(const struct selfmon *s)
{
	return s ? __atomic_load_n(&s->used, __ATOMIC_RELAXED) : 0;
}

static bool pidfd_exited(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return poll(&p, 1, 0) != 0;
}

/* The slot thread tid of tgid has, -1: none. A thread that exited
 * without its slot being taken back yet (its tid reused) has it taken
 * back here; another live process's thread keeps its own. */
static int selfmon__find(struct selfmon *s, pid_t tgid, pid_t tid)
{
	for (__u32 i = 0; i < s->nr; i++) {
		struct self_owner *o = &s->own[i];

		if (o->pidfd < 0 || o->tid != tid)
			continue;
		if (pidfd_exited(o->pidfd))
			selfmon__free(s, i);
		else if (o->tgid == tgid)
			return i;
	}
	return -1;
}

/* A free slot, -1: none. When all are taken, the threads that exited
 * but were not reaped yet (their pidfds just became readable) give theirs
 * back first. */
static int selfmon__free_slot(struct selfmon *s)
{
	for (int pass = 0; pass < 2; pass++) {
		for (__u32 i = 0; i < s->nr; i++)
			if (s->own[i].pidfd < 0)
				return i;
		for (__u32 i = 0; i < s->nr; i++)
			if (pidfd_exited(s->own[i].pidfd))
				selfmon__free(s, i);
	}
	return -1;
}

static void selfmon__grant(const struct selfmon *s, __u32 i, struct emon_self_grant *g)
{
	*g = (struct emon_self_grant){
		.slot = i,
		.nr_slots = s->nr,
		.slot_size = sizeof(*s->mem),
		.nr_events = s->nr_events,
		.gen = s->mem[i].gen,
		.time_mask = s->time_mask,
		.switch_mask = s->switch_mask,
		.pmc_width = SELF_PMC_WIDTH,
	};
}

/* A pidfd of thread tid when it is a live thread of tgid, else -errno. */
static int thread_pidfd(pid_t tgid, pid_t tid, char *err, size_t errlen)
{
	char path[64];
	int fd = syscall(SYS_pidfd_open, tid, PIDFD_THREAD);

	if (fd < 0) {
		int e = errno;

		snprintf(err, errlen, "no thread %d: %s", (int)tid, strerror(e));
		return -(e == EINVAL ? ESRCH : e);
	}
	/* checked after the pidfd pinned the thread, and before it is
	 * seen alive: the tid cannot have been reused in between */
	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)tgid, (int)tid);
	if (access(path, F_OK) || pidfd_exited(fd)) {
		close(fd);
		snprintf(err, errlen, "thread %d is not a thread of the caller (pid %d)",
			 (int)tid, (int)tgid);
		return -EPERM;
	}
	return fd;
}

/* Slots held by uid's threads. */
static __u32 selfmon__held_by(const struct selfmon *s, uid_t uid)
{
	__u32 n = 0;

	for (__u32 i = 0; i < s->nr; i++)
		n += s->own[i].pidfd >= 0 && s->own[i].uid == uid;
	return n;
}

int selfmon__register(struct selfmon *s, pid_t peer, uid_t uid, bool limited,
		      __u32 tid, struct emon_self_grant *g, int *fd, char *err,
		      size_t errlen)
{
	struct emon_self_ref ref = { 0 };
	struct epoll_event ev = { .events = EPOLLIN };
	int i = selfmon__find(s, peer, tid), pidfd;

	*fd = s->slots_fd;
	if (i >= 0) {
		selfmon__grant(s, i, g);
		return 0;
	}
	if (!tid || tid > INT_MAX || peer <= 0) {
		snprintf(err, errlen, "bad thread id %u", tid);
		return -EINVAL;
	}
	if (limited && selfmon__held_by(s, uid) >= s->max_per_uid) {
		snprintf(err, errlen, "uid %u holds %u thread slots, its most "
			 "(serve --max-threads-per-uid)", (unsigned int)uid, s->max_per_uid);
		return -EUSERS;
	}
	pidfd = thread_pidfd(peer, tid, err, errlen);
	if (pidfd < 0)
		return pidfd;
	i = selfmon__free_slot(s);
	if (i < 0) {
		close(pidfd);
		snprintf(err, errlen, "all %u thread slots are in use (serve --threads)", s->nr);
		return -ENOSPC;
	}
	ref.gen = ++s->gen;
	ref.slot = i;
	ev.data.u32 = i;
	if (selfmon__set(s, i, EMON_SELF_LIVE, ref.gen, tid) ||
	    bpf_map_update_elem(s->task_fd, &pidfd, &ref, BPF_ANY) ||
	    epoll_ctl(s->epfd, EPOLL_CTL_ADD, pidfd, &ev)) {
		int e = errno;

		bpf_map_delete_elem(s->task_fd, &pidfd);
		selfmon__set(s, i, EMON_SELF_FREE, 0, 0);
		close(pidfd);
		snprintf(err, errlen, "cannot give thread %u a slot: %s", tid, strerror(e));
		return -e;
	}
	s->own[i] = (struct self_owner){ .pidfd = pidfd, .tid = tid, .tgid = peer,
					 .uid = uid };
	__atomic_store_n(&s->used, s->used + 1, __ATOMIC_RELAXED);
	selfmon__grant(s, i, g);
	pr_debug("thread %u of pid %d: slot %d", tid, (int)peer, i);
	return 0;
}
