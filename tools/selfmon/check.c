// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libemon's test workloads (tests/integration/selfmon*.sh), built like a
 * user's program: cc -Iinclude check.c libemon.a -lpthread.
 *
 *   check accuracy SOCKET SECONDS   one thread burns, sleeps and yields;
 *                                   its counts beside the kernel's
 *   check threads SOCKET N SECONDS  N threads at once, each its own
 *   check churn SOCKET N BATCH      N threads, BATCH at a time, each
 *                                   registers, reads and exits
 *   check hold SOCKET               reads until a read fails, says why
 *   check steal SOCKET TID|self     asks for TID's slot (raw protocol)
 *   check spy SOCKET DIR [ID...]    registers (raw protocol) and tries to
 *                                   read other threads' slots: through the
 *                                   fd it got, past its array, by map id,
 *                                   through the pins in DIR (--pin-dir)
 *
 * Each thread's line: "thread K: cpu_clock LIB vs cputime REF ns,
 * switches LIB vs proc REF", where REF is what the kernel says for the
 * same window: CLOCK_THREAD_CPUTIME_ID and the thread's voluntary +
 * involuntary switches in /proc/self/task/TID/status, each read right
 * next to a library read (again until no switch fell in between).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include "emon/selfmon.h"
#include "thread_ref.h"
#include "emon_proto.h"
#include "emon_selfmon.h"

struct sample {
	uint64_t v[8];
	uint64_t cputime, switches;
};

struct worker {
	const char *sock;
	int id;
	double seconds;
	int err;
	struct sample a, b;
	int clk, cs;
};

/* A library read with the kernel's figures next to it: again while a
 * switch fell between them. */
static int sample(struct emon_self *s, struct sample *x)
{
	for (int t = 0; t < 100; t++) {
		uint64_t sw = switches(), c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		int r = emon_self_read(s, x->v, 8);
		uint64_t c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);

		if (r < 0)
			return r;
		x->cputime = (c0 + c1) / 2;
		x->switches = switches();
		if (x->switches == sw)
			return 0;
	}
	return -EAGAIN;
}

static int event_index(const struct emon_self *s, const char *name)
{
	for (int i = 0; i < emon_self_nevents(s); i++)
		if (!strcmp(emon_self_event(s, i), name))
			return i;
	return -1;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct emon_self *s = emon_self_open(w->sock);

	if (!s) {
		w->err = -errno;
		return NULL;
	}
	w->clk = event_index(s, "cpu-clock");
	w->cs = event_index(s, "context-switches");
	w->err = sample(s, &w->a);
	if (!w->err) {
		workload(w->id, w->seconds);
		w->err = sample(s, &w->b);
	}
	emon_self_close(s);
	return NULL;
}

static void report(const struct worker *w)
{
	if (w->err) {
		printf("thread %d: error %s\n", w->id, strerror(-w->err));
		return;
	}
	printf("thread %d: cpu_clock %lu vs cputime %lu ns, switches %ld vs proc %lu\n", w->id,
	       w->clk < 0 ? 0 : (unsigned long)(w->b.v[w->clk] - w->a.v[w->clk]),
	       (unsigned long)(w->b.cputime - w->a.cputime),
	       w->cs < 0 ? -1L : (long)(w->b.v[w->cs] - w->a.v[w->cs]),
	       (unsigned long)(w->b.switches - w->a.switches));
}

/* Open perf_event fds of this process (the library must hold none). */
static int perf_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		char path[300], link[64];
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len > 0) {
			link[len] = '\0';
			n += !!strstr(link, "perf_event");
		}
	}
	if (d)
		closedir(d);
	return n;
}

static int do_threads(const char *sock, int n, double seconds)
{
	struct worker *w = calloc(n, sizeof(*w));
	pthread_t *t = calloc(n, sizeof(*t));
	int bad = 0;

	for (int i = 0; i < n; i++) {
		w[i] = (struct worker){ .sock = sock, .id = i, .seconds = seconds };
		pthread_create(&t[i], NULL, work, &w[i]);
	}
	/* mid-run, every thread registered and reading */
	usleep(seconds * 5e5);
	printf("perf_event fds: %d\n", perf_fds());
	for (int i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		report(&w[i]);
		bad |= !!w[i].err;
	}
	free(w);
	free(t);
	return bad;
}

static void *churn_one(void *arg)
{
	const char *sock = arg;
	struct emon_self *s = emon_self_open(sock);
	uint64_t v[8];
	int r;

	if (!s)
		return (void *)(intptr_t)-errno;
	r = emon_self_read(s, v, 8);
	emon_self_close(s);
	return (void *)(intptr_t)(r < 0 ? r : 0);
}

static int do_churn(const char *sock, int n, int batch)
{
	pthread_t t[256];
	int ok = 0, fail = 0, last = 0;

	if (batch > 256)
		batch = 256;
	for (int done = 0; done < n; done += batch) {
		int k = n - done < batch ? n - done : batch;

		for (int i = 0; i < k; i++)
			pthread_create(&t[i], NULL, churn_one, (void *)sock);
		for (int i = 0; i < k; i++) {
			void *r;

			pthread_join(t[i], &r);
			if (r)
				fail++, last = (int)(intptr_t)r;
			else
				ok++;
		}
	}
	printf("churn: %d registered and read, %d failed%s%s\n", ok, fail,
	       fail ? ", last: " : "", fail ? strerror(-last) : "");
	return fail != 0;
}

/* Read until a read fails (the daemon went away): say why. */
static int do_hold(const char *sock)
{
	struct emon_self *s = emon_self_open(sock);
	uint64_t v[8];
	int r;

	if (!s) {
		printf("open: %s\n", strerror(errno));
		return 1;
	}
	printf("registered tid %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	while ((r = emon_self_read(s, v, 8)) >= 0)
		usleep(1000);
	printf("read: %d %s\n", r, strerror(-r));
	emon_self_close(s);
	return r == -ESHUTDOWN ? 0 : 1;
}

/* Receive len bytes, the fd sent with them into *fd. */
static int recv_fd(int sock, void *buf, size_t len, int *fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;

	if (recvmsg(sock, &mh, MSG_WAITALL) != (ssize_t)len)
		return -1;
	cm = CMSG_FIRSTHDR(&mh);
	if (cm && cm->cmsg_type == SCM_RIGHTS)
		memcpy(fd, CMSG_DATA(cm), sizeof(int));
	return 0;
}

/* What the array's fd lets a reader do besides reading: nothing. */
static void try_writes(int fd, const struct emon_self_grant *g)
{
	size_t len = ((size_t)g->nr_slots * g->slot_size + 4095) & ~4095UL;
	union bpf_attr a;
	unsigned char v[256] = { 0 };
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	printf("mmap for writing: %s\n", p == MAP_FAILED ? strerror(errno) : "allowed");
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	printf("mmap for reading: %s\n", p == MAP_FAILED ? strerror(errno) : "allowed");
	if (p != MAP_FAILED)
		printf("mprotect to write: %s\n",
		       mprotect(p, len, PROT_READ | PROT_WRITE) ? strerror(errno) : "allowed");
	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (uintptr_t)&g->slot;
	a.value = (uintptr_t)v;
	printf("bpf() update: %s\n",
	       syscall(SYS_bpf, BPF_MAP_UPDATE_ELEM, &a, sizeof(a)) ? strerror(errno) : "allowed");
	printf("write(): %s\n", write(fd, v, sizeof(v)) < 0 ? strerror(errno) : "allowed");
}

static const char *mmap_try(int fd, size_t len, off_t off)
{
	void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, off);

	if (p == MAP_FAILED)
		return strerror(errno);
	munmap(p, len);
	return "allowed";
}

static long sys_bpf(int cmd, union bpf_attr *a)
{
	return syscall(SYS_bpf, cmd, a, sizeof(*a));
}

static void pin_try(const char *dir, const char *name)
{
	char path[PATH_MAX];
	union bpf_attr a;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	memset(&a, 0, sizeof(a));
	a.pathname = (uintptr_t)path;
	a.file_flags = BPF_F_RDONLY;
	printf("the pin %s by BPF_OBJ_GET: %s\n", name,
	       sys_bpf(BPF_OBJ_GET, &a) < 0 ? strerror(errno) : "opened");
}

/* The daemon's pins: the array of arrays by its name, and whatever the
 * directory lets one list. */
static void spy_pins(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	printf("listing the pin directory: %s\n", d ? "allowed" : strerror(errno));
	pin_try(dir, "self_arrays");
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && strcmp(e->d_name, "self_arrays"))
			pin_try(dir, e->d_name);
	if (d)
		closedir(d);
}

/*
 * What a registered thread's fd shows of other threads: the tids of the
 * live slots in its mapping and through bpf() lookups ("seen: TID..."),
 * and whether it gets at any other array: mapped past its end, by map id
 * (ids), through the pin.
 */
static void spy(int fd, const struct emon_self_grant *g, const char *pin, char **ids, int nids)
{
	size_t len = ((size_t)g->nr_slots * g->slot_size + 4095) & ~4095UL;
	const unsigned char *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	struct bpf_map_info info = { 0 };
	unsigned char v[sizeof(struct emon_self_slot)];
	union bpf_attr a;

	printf("own tid %ld, slot %u of %u\nseen in the mapping:", (long)syscall(SYS_gettid),
	       g->slot, g->nr_slots);
	for (__u32 k = 0; p != MAP_FAILED && k < g->nr_slots; k++) {
		const struct emon_self_slot *sl = (const void *)(p + (size_t)k * g->slot_size);

		if (sl->state == EMON_SELF_LIVE)
			printf(" %u", sl->tid);
	}
	printf("\nseen by bpf() lookups:");
	for (__u32 k = 0;; k++) {
		memset(&a, 0, sizeof(a));
		a.map_fd = fd;
		a.key = (uintptr_t)&k;
		a.value = (uintptr_t)v;
		if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &a))
			break;
		if (((struct emon_self_slot *)v)->state == EMON_SELF_LIVE)
			printf(" %u", ((struct emon_self_slot *)v)->tid);
	}
	printf("\nmmap a page past the array: %s\n", mmap_try(fd, len + 4096, 0));
	printf("mmap at an offset past the array: %s\n", mmap_try(fd, 4096, len));
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = fd;
	a.info.info_len = sizeof(info);
	a.info.info = (uintptr_t)&info;
	if (!sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a))
		printf("own map id %u\n", info.id);
	for (int i = 0; i < nids; i++) {
		memset(&a, 0, sizeof(a));
		a.map_id = strtoul(ids[i], NULL, 10);
		a.open_flags = BPF_F_RDONLY;
		printf("map id %s by BPF_MAP_GET_FD_BY_ID: %s\n", ids[i],
		       sys_bpf(BPF_MAP_GET_FD_BY_ID, &a) < 0 ? strerror(errno) : "opened");
	}
	memset(&a, 0, sizeof(a));
	printf("BPF_MAP_GET_NEXT_ID: %s\n",
	       sys_bpf(BPF_MAP_GET_NEXT_ID, &a) ? strerror(errno) : "allowed");
	spy_pins(pin);
	try_writes(fd, g);
}

/* The raw protocol: ask for another thread's slot. Prints the answer;
 * granted, what the fd that came with it allows (pin: spy() with the
 * ids). */
static int do_steal(const char *sock, unsigned int tid, const char *pin, char **ids, int nids)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct {
		struct emon_msg_hdr h;
		struct emon_self_req r;
	} req = { { EMON_PROTO_MAGIC, EMON_PROTO_VERSION, EMON_MSG_SELF_REQ,
		    sizeof(struct emon_self_req), 0 }, { tid, 0 } };
	struct emon_msg_hdr h;
	char buf[4096];
	int fd = socket(AF_UNIX, SOCK_STREAM, 0), map_fd = -1;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		printf("connect: %s\n", strerror(errno));
		return 1;
	}
	/* the hello, then the answer */
	for (int m = 0; m < 2; m++) {
		if (recv_fd(fd, &h, sizeof(h), &map_fd) || h.len > sizeof(buf) ||
		    recv(fd, buf, h.len, MSG_WAITALL) != (ssize_t)h.len) {
			printf("no answer\n");
			return 1;
		}
		if (!m && send(fd, &req, sizeof(req), 0) != sizeof(req))
			return 1;
	}
	if (h.type == EMON_MSG_ERROR)
		printf("error %d: %s\n", ((struct emon_error *)buf)->err,
		       buf + sizeof(struct emon_error));
	else
		printf("granted (type %u)\n", h.type);
	if (h.type == EMON_MSG_SELF && map_fd >= 0 && pin)
		spy(map_fd, (const struct emon_self_grant *)buf, pin, ids, nids);
	else if (h.type == EMON_MSG_SELF && map_fd >= 0)
		try_writes(map_fd, (const struct emon_self_grant *)buf);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 2 ? argv[1] : "", *sock = argc > 2 ? argv[2] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "accuracy") && argc == 4)
		return do_threads(sock, 1, atof(argv[3]));
	if (!strcmp(mode, "threads") && argc == 5)
		return do_threads(sock, atoi(argv[3]), atof(argv[4]));
	if (!strcmp(mode, "churn") && argc == 5)
		return do_churn(sock, atoi(argv[3]), atoi(argv[4]));
	if (!strcmp(mode, "hold") && argc == 3)
		return do_hold(sock);
	if (!strcmp(mode, "steal") && argc == 4)
		return do_steal(sock, strcmp(argv[3], "self") ? strtoul(argv[3], NULL, 10) :
						(unsigned long)syscall(SYS_gettid), NULL, NULL, 0);
	if (!strcmp(mode, "spy") && argc >= 4)
		return do_steal(sock, syscall(SYS_gettid), argv[3], argv + 4, argc - 4);
	fprintf(stderr, "usage: check accuracy|threads|churn|hold|steal|spy SOCKET ...\n");
	return 2;
}
