// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Thread self-monitoring, the daemon's side (daemon/threads.h).
 *
 * Every uid's threads have slot arrays of their own (docs/security.md):
 * the engine makes them all at start-up (engine/session/self.c: frozen,
 * read-only from user space), and the first registration of a uid binds a
 * free one to it for the daemon's life. Never to another uid afterwards:
 * a mapping cannot be taken back, so a process of the first uid could
 * read the next one's counts. A registration's answer carries the fd of
 * the thread's array (SCM_RIGHTS), so a reader needs no bpffs, and sees
 * its own uid's threads' slots only. A uid's threads fill one array
 * (--max-threads-per-uid slots); only an administrator, who has no share,
 * goes on into another array of its own. The array of maps is pinned as
 * <pin dir>/self_arrays, the directory 0700 and the pin 0400, for root
 * and tools such as bpftool: its entries are map ids, which only
 * CAP_SYS_ADMIN turns into fds. The daemon writes slots through a BPF
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
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include "daemon/dirs.h"
#include "daemon/threads.h"
#include "engine/session/features.h"
#include "engine/session/session.h"
#include "common/log.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL	/* linux/pidfd.h, 6.9 */
#endif

/* x86_pmu.cntval_bits on Intel (since Core) and AMD, which BTF does not
 * give: the width of a counter read with rdpmc. */
#define SELF_PMC_WIDTH 48

/* A slot, own[array * per_array + entry]. */
struct self_owner {
	int pidfd;		/* -1: the slot is free */
	pid_t tid, tgid;
	__u64 gen;		/* of this registration */
};

struct selfmon {
	__u32 max;		/* --threads: registrations at once */
	__u32 max_per_uid;
	struct session_self m;	/* the engine's maps */
	__u32 per_array;	/* m.array_slots */
	int epfd;
	struct self_owner *own;	/* [m.nr_arrays * per_array] */
	struct selfmon_array *arr;	/* [m.nr_arrays] */
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

/* Make the directory and pin the array of maps in it, for root alone. */
static int selfmon__pin(struct selfmon *s, uid_t uid)
{
	int err;

	/* bpffs is often 1777: another user may have made it first */
	err = dirs__make_own(s->dir, 0700, "the pin directory (--pin-dir)", (uid_t)-1,
			     &s->made_dir);
	if (err)
		return err;
	/* one left by a daemon that was killed: this socket's is ours now,
	 * and so is its directory, removed at exit as if we had made it */
	if (!unlink(s->pin)) {
		pr_debug("%s: left by a daemon that did not end cleanly: replaced", s->pin);
		s->made_dir = true;
	}
	if (bpf_obj_pin(s->m.arrays_fd, s->pin)) {
		err = -errno;
		pr_err("cannot pin the thread slots at %s: %s", s->pin, strerror(-err));
		return err;
	}
	s->pinned = true;
	/* its owner's alone: its entries name every uid's array; --user
	 * removes what we made at exit */
	if (chmod(s->dir, 0700) || chmod(s->pin, 0400) ||
	    (s->made_dir && uid && chown(s->dir, uid, -1))) {
		err = -errno;
		pr_err("cannot set the permissions of %s: %s", s->dir, strerror(-err));
		return err;
	}
	return 0;
}

/* Pidfds of threads (PIDFD_THREAD): the kernel feature table's probe. */
static int selfmon__check_kernel(void)
{
	const struct kfeature *f = &kfeatures__get()[KF_PIDFD_THREAD];
	struct utsname u;

	if (f->have)
		return 0;
	if (f->unknown) {
		pr_err("--threads needs pidfds of threads (Linux %s or later): %s",
		       f->since, strerror(-f->err));
		return f->err;
	}
	pr_err("--threads needs pidfds of threads (Linux %s or later), which Linux %s lacks",
	       f->since, uname(&u) ? "?" : u.release);
	return -EOPNOTSUPP;	/* not bad input: the kernel lacks it */
}

int selfmon__open(struct selfmon **sp, const struct selfmon_opts *o,
		  const struct engine *e)
{
	const struct snap_meta *m = engine__meta(e);
	struct selfmon *s;
	size_t n;
	int ret;

	*sp = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->max = o->max_threads;
	s->max_per_uid = o->max_per_uid ? o->max_per_uid : o->max_threads;
	s->epfd = -1;
	s->nr_events = m->nr_events;
	for (int i = 0; i < m->nr_events; i++) {
		s->time_mask |= m->ev_is_time[i] ? 1u << i : 0;
		if (!strcmp(m->ev_name[i], "context-switches") || !strcmp(m->ev_name[i], "cs"))
			s->switch_mask |= 1u << i;
	}
	snprintf(s->dir, sizeof(s->dir), "%s", o->pin_dir);
	snprintf(s->pin, sizeof(s->pin), "%s/self_arrays", o->pin_dir);
	ret = engine__self_maps(e, &s->m);
	if (ret) {
		pr_err("cannot set up the thread slots: %s", strerror(-ret));
		free(s);
		return ret;
	}
	s->per_array = s->m.array_slots;
	n = (size_t)s->m.nr_arrays * s->per_array;
	s->own = calloc(n, sizeof(*s->own));
	s->arr = calloc(s->m.nr_arrays, sizeof(*s->arr));
	for (size_t i = 0; s->own && i < n; i++)
		s->own[i].pidfd = -1;
	ret = s->own && s->arr ? selfmon__check_kernel() : -ENOMEM;
	ret = ret ?: selfmon__bpffs(s->dir);
	if (!ret) {
		s->epfd = epoll_create1(EPOLL_CLOEXEC);
		ret = s->epfd < 0 ? -errno : 0;
	}
	ret = ret ?: selfmon__pin(s, o->uid);
	if (ret) {
		selfmon__close(s);
		return ret;
	}
	pr_debug("thread slots: %u arrays of %u, one uid's each", s->m.nr_arrays, s->per_array);
	*sp = s;
	return 0;
}

static __u32 selfmon__nr(const struct selfmon *s)
{
	return s->m.nr_arrays * s->per_array;
}

/* Set slot g's state (a new registration's gen and tid: counts zeroed). */
static int selfmon__set(struct selfmon *s, __u32 g, __u32 state, __u64 gen, __u32 tid)
{
	__u64 args[5] = { g / s->per_array, g % s->per_array, state, gen, tid };
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = args, .ctx_size_in = sizeof(args));

	if (bpf_prog_test_run_opts(s->m.ctl_fd, &o))
		return -errno;
	return o.retval ? -EINVAL : 0;
}

/* Take slot g back: no thread finds it from now on. Its array stays its
 * uid's. */
static void selfmon__free(struct selfmon *s, __u32 g)
{
	struct self_owner *o = &s->own[g];

	/* the thread's entry: gone with it when it exited, else here */
	bpf_map_delete_elem(s->m.task_fd, &o->pidfd);
	epoll_ctl(s->epfd, EPOLL_CTL_DEL, o->pidfd, NULL);
	close(o->pidfd);
	o->pidfd = -1;
	if (selfmon__set(s, g, EMON_SELF_FREE, 0, 0))
		pr_warn("cannot free thread slot %u: %s", g, strerror(errno));
	s->arr[g / s->per_array].used--;
	__atomic_store_n(&s->used, s->used - 1, __ATOMIC_RELAXED);
	pr_debug("thread %d of pid %d: slot %u free", (int)o->tid, (int)o->tgid, g);
}

void selfmon__close(struct selfmon *s)
{
	if (!s)
		return;
	for (__u32 i = 0; s->own && i < selfmon__nr(s); i++) {
		if (s->own[i].pidfd < 0)
			continue;
		close(s->own[i].pidfd);
		/* final: readers say the daemon stopped instead of reading on */
		selfmon__set(s, i, EMON_SELF_GONE, 0, 0);
	}
	if (s->pinned)
		unlink(s->pin);
	if (s->made_dir)
		rmdir(s->dir);
	if (s->epfd >= 0)
		close(s->epfd);
	free(s->own);
	free(s->arr);
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
	for (__u32 i = 0; i < selfmon__nr(s); i++) {
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

/* Slots held by the threads of uids charged to charge. */
static __u32 selfmon__held_by(const struct selfmon *s, uid_t charge)
{
	__u32 n = 0;

	for (__u32 a = 0; a < s->m.nr_arrays; a++)
		n += s->arr[a].bound && s->arr[a].charge == charge ? s->arr[a].used : 0;
	return n;
}

/*
 * Would uid take a fresh slot array past its owner's share? Each uid has
 * arrays of its own (no thread reads another uid's), so a user's
 * subordinate uids would each take one: together they get a quarter of
 * the arrays (at least one), as a uid gets a quarter of the rest.
 */
static bool selfmon__arrays_over(const struct selfmon *s, uid_t uid, uid_t charge)
{
	__u32 n = 0, share = s->m.nr_arrays / 4 ?: 1;

	for (__u32 a = 0; a < s->m.nr_arrays; a++) {
		if (s->arr[a].bound && s->arr[a].uid == uid)
			return false;	/* it has one: a slot there first */
		n += s->arr[a].bound && s->arr[a].charge == charge;
	}
	return uid != charge && n >= share;
}

int selfmon__pick(const struct selfmon_array *arr, __u32 nr_arrays, __u32 per_array,
		  uid_t uid, bool (*is_free)(const void *ctx, __u32 slot), const void *ctx)
{
	int fresh = -1;

	for (__u32 a = 0; a < nr_arrays; a++) {
		if (!arr[a].bound && fresh < 0)
			fresh = a;
		if (!arr[a].bound || arr[a].uid != uid || arr[a].used >= per_array)
			continue;
		for (__u32 i = a * per_array; i < (a + 1) * per_array; i++)
			if (is_free(ctx, i))
				return i;
	}
	return fresh < 0 ? -1 : fresh * (int)per_array;
}

static bool selfmon__slot_free(const void *ctx, __u32 i)
{
	return ((const struct selfmon *)ctx)->own[i].pidfd < 0;
}

/* A free slot for uid within --threads, -1: none. */
static int selfmon__pick_own(const struct selfmon *s, uid_t uid)
{
	if ((__u32)s->used >= s->max)
		return -1;
	return selfmon__pick(s->arr, s->m.nr_arrays, s->per_array, uid, selfmon__slot_free, s);
}

/* A free slot for uid, or -ENOSPC saying which bound was met. When none
 * is left, the threads that exited but were not reaped yet (their pidfds
 * just became readable) give theirs back first. */
static int selfmon__free_slot(struct selfmon *s, uid_t uid, char *err, size_t errlen)
{
	int i = selfmon__pick_own(s, uid);

	if (i >= 0)
		return i;
	for (__u32 k = 0; k < selfmon__nr(s); k++)
		if (s->own[k].pidfd >= 0 && pidfd_exited(s->own[k].pidfd))
			selfmon__free(s, k);
	i = selfmon__pick_own(s, uid);
	if (i >= 0)
		return i;
	if ((__u32)s->used >= s->max)
		snprintf(err, errlen, "all %u thread slots are in use (serve --threads)", s->max);
	else
		snprintf(err, errlen, "all %u slot arrays are other uids' "
			 "(serve --max-thread-uids)", s->m.nr_arrays);
	return -ENOSPC;
}

static void selfmon__grant(const struct selfmon *s, __u32 i, struct emon_self_grant *g)
{
	*g = (struct emon_self_grant){
		.slot = i % s->per_array,
		.nr_slots = s->per_array,
		.slot_size = sizeof(struct emon_self_slot),
		.nr_events = s->nr_events,
		.gen = s->own[i].gen,
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

int selfmon__register(struct selfmon *s, pid_t peer, uid_t uid, uid_t charge, bool limited,
		      __u32 tid, struct emon_self_grant *g, int *fd, char *err,
		      size_t errlen)
{
	struct emon_self_ref ref = { 0 };
	struct epoll_event ev = { .events = EPOLLIN };
	int i = selfmon__find(s, peer, tid), pidfd;
	struct selfmon_array *a;

	if (i >= 0)
		goto granted;
	if (!tid || tid > INT_MAX || peer <= 0) {
		snprintf(err, errlen, "bad thread id %u", tid);
		return -EINVAL;
	}
	if (limited && selfmon__held_by(s, charge) >= s->max_per_uid) {
		snprintf(err, errlen, "uid %u holds %u thread slots, its most "
			 "(serve --max-threads-per-uid)", (unsigned int)charge, s->max_per_uid);
		return -EUSERS;
	}
	if (limited && selfmon__arrays_over(s, uid, charge)) {
		snprintf(err, errlen, "uid %u's subordinate uids hold %u slot arrays, their "
			 "most (a quarter of serve --max-thread-uids)", (unsigned int)charge,
			 s->m.nr_arrays / 4 ?: 1);
		return -EUSERS;
	}
	pidfd = thread_pidfd(peer, tid, err, errlen);
	if (pidfd < 0)
		return pidfd;
	i = selfmon__free_slot(s, uid, err, errlen);
	if (i < 0) {
		close(pidfd);
		return i;
	}
	ref.gen = ++s->gen;
	ref.array = i / s->per_array;
	ref.slot = i % s->per_array;
	ev.data.u32 = i;
	if (selfmon__set(s, i, EMON_SELF_LIVE, ref.gen, tid) ||
	    bpf_map_update_elem(s->m.task_fd, &pidfd, &ref, BPF_ANY) ||
	    epoll_ctl(s->epfd, EPOLL_CTL_ADD, pidfd, &ev)) {
		int e = errno;

		bpf_map_delete_elem(s->m.task_fd, &pidfd);
		selfmon__set(s, i, EMON_SELF_FREE, 0, 0);
		close(pidfd);
		snprintf(err, errlen, "cannot give thread %u a slot: %s", tid, strerror(e));
		return -e;
	}
	a = &s->arr[ref.array];
	if (!a->bound)
		pr_debug("thread slot array %u: uid %u's from now on", ref.array, (unsigned int)uid);
	*a = (struct selfmon_array){ .bound = true, .uid = uid, .charge = charge,
				     .used = a->used + 1 };
	s->own[i] = (struct self_owner){ .pidfd = pidfd, .tid = tid, .tgid = peer,
					 .gen = ref.gen };
	__atomic_store_n(&s->used, s->used + 1, __ATOMIC_RELAXED);
	pr_debug("thread %u of pid %d: slot %u of array %u", tid, (int)peer, ref.slot, ref.array);
granted:
	selfmon__grant(s, i, g);
	*fd = s->m.array_fd[i / s->per_array];
	return 0;
}
