// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The read half of emon-perf's interval in isolation: a hash map shaped
 * like the engine's process map (key (tgid, cpu), value comm + N counts,
 * preallocated, 32768 entries) is filled with KEYS entries from userspace,
 * then emptied in several ways, each timed REPEAT times (median printed):
 *
 *   and_delete_1024   bpf_map_lookup_and_delete_batch, 1024 per call
 *                     (what engine/session/session.c did)
 *   and_delete_all    the same, one call for the whole map
 *   lookup_1024       bpf_map_lookup_batch only (read, no delete)
 *   lookup_delete     lookup_batch, then delete_batch of the keys read
 *   per_key           get_next_key + lookup + delete, one key at a time
 *   mmap              what engine/session/interval.c does since the count arrays:
 *                     KEYS slots of a BPF_F_MMAPABLE array copied out of
 *                     the mapping and zeroed, no syscall
 *
 *   bench-drain [-n KEYS] [-e EVENTS] [-r REPEAT] [-p]   (-p: no prealloc)
 * prints per method: "method=NAME keys=K us=T ns_per_key=X"
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "emon.h"

#define MAX_ENTRIES 32768

struct drain_ctx {
	int fd;
	__u32 nkeys, vsz;
	struct emon_proc_key *keys;
	char *vals;
	int afd;		/* the mmap'able array */
	char *arr;
	size_t alen;
	__u32 stride;
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int fill(struct drain_ctx *c)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 n = c->nkeys;

	for (__u32 i = 0; i < c->nkeys; i++) {
		c->keys[i].tgid = 1000 + i / 2;
		c->keys[i].cpu = i % 2;
	}
	memset(c->vals, 1, (size_t)c->vsz * c->nkeys);
	return bpf_map_update_batch(c->fd, c->keys, c->vals, &n, &opts) ? -errno : 0;
}

/* lookup(_and_delete)_batch over the whole map; returns entries read. */
static long batch_read(struct drain_ctx *c, __u32 batch, bool del)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u64 in = 0, out = 0;
	bool first = true;
	long total = 0;

	for (;;) {
		__u32 count = batch;
		int err = del ?
			bpf_map_lookup_and_delete_batch(c->fd, first ? NULL : &in, &out,
							c->keys, c->vals, &count, &opts) :
			bpf_map_lookup_batch(c->fd, first ? NULL : &in, &out,
					     c->keys + total, c->vals, &count, &opts);

		total += count;
		if (err)
			return errno == ENOENT ? total : -errno;
		first = false;
		in = out;
	}
}

static long m_and_delete_1024(struct drain_ctx *c) { return batch_read(c, 1024, true); }
static long m_and_delete_all(struct drain_ctx *c) { return batch_read(c, MAX_ENTRIES, true); }
static long m_lookup_1024(struct drain_ctx *c) { return batch_read(c, 1024, false); }

static long m_lookup_delete(struct drain_ctx *c)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	long n = batch_read(c, 1024, false);
	__u32 count = n;

	if (n < 0)
		return n;
	if (bpf_map_delete_batch(c->fd, c->keys, &count, &opts))
		return -errno;
	return n;
}

/* The slots BPF would have filled: a header with the key, then counts. */
static int fill_array(struct drain_ctx *c)
{
	for (__u32 i = 0; i < c->nkeys; i++) {
		struct emon_proc_hdr *h = (void *)(c->arr + (size_t)i * c->stride);

		memset(h, 1, c->stride);
		h->key.tgid = 1000 + i / 2;
		h->key.cpu = i % 2;
	}
	return 0;
}

static long m_mmap(struct drain_ctx *c)
{
	for (__u32 i = 0; i < c->nkeys; i++)
		memcpy(c->vals + (size_t)i * c->vsz, c->arr + (size_t)i * c->stride, c->vsz);
	memset(c->arr, 0, (size_t)c->nkeys * c->stride);
	return c->nkeys;
}

static long m_per_key(struct drain_ctx *c)
{
	struct emon_proc_key k, next;
	long n = 0;

	while (!bpf_map_get_next_key(c->fd, n ? &k : NULL, &next)) {
		if (bpf_map_lookup_elem(c->fd, &next, c->vals))
			return -errno;
		if (bpf_map_delete_elem(c->fd, &next))
			return -errno;
		k = next;
		n++;
	}
	return n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		long (*run)(struct drain_ctx *);
		bool empties;
	} methods[] = {
		{ "and_delete_1024", m_and_delete_1024, true },
		{ "and_delete_all", m_and_delete_all, true },
		{ "lookup_1024", m_lookup_1024, false },
		{ "lookup_delete", m_lookup_delete, true },
		{ "per_key", m_per_key, true },
		{ "mmap", m_mmap, true },
	};
	LIBBPF_OPTS(bpf_map_create_opts, mopts);
	struct drain_ctx c = {};
	int opt, nev = 2, rep = 7;
	double *t;

	c.nkeys = 10000;
	while ((opt = getopt(argc, argv, "n:e:r:p")) != -1) {
		switch (opt) {
		case 'n': c.nkeys = atoi(optarg); break;
		case 'e': nev = atoi(optarg); break;
		case 'r': rep = atoi(optarg); break;
		case 'p': mopts.map_flags = BPF_F_NO_PREALLOC; break;
		default:
			fprintf(stderr, "usage: bench-drain [-n KEYS] [-e EVENTS] [-r REPEAT] [-p]\n");
			return 2;
		}
	}
	if (c.nkeys < 1 || c.nkeys > MAX_ENTRIES || nev < 1 || nev > EMON_MAX_EVENTS || rep < 1)
		return 2;
	c.vsz = sizeof(struct emon_proc_hdr) + nev * sizeof(struct emon_count);
	c.fd = bpf_map_create(BPF_MAP_TYPE_HASH, "bench_drain", sizeof(struct emon_proc_key),
			      c.vsz, MAX_ENTRIES, &mopts);
	c.keys = calloc(MAX_ENTRIES, sizeof(*c.keys));
	c.vals = calloc(MAX_ENTRIES, c.vsz);
	t = calloc(rep, sizeof(*t));
	if (c.fd < 0 || !c.keys || !c.vals || !t) {
		fprintf(stderr, "bench-drain: cannot create the map: %s\n", strerror(errno));
		return 1;
	}
	mopts.map_flags = BPF_F_MMAPABLE;
	c.stride = (c.vsz + 7) & ~7u;
	c.alen = ((size_t)c.stride * MAX_ENTRIES + 4095) & ~(size_t)4095;
	c.afd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bench_drain_a", sizeof(__u32),
			       c.vsz, MAX_ENTRIES, &mopts);
	c.arr = c.afd < 0 ? MAP_FAILED :
		mmap(NULL, c.alen, PROT_READ | PROT_WRITE, MAP_SHARED, c.afd, 0);
	if (c.arr == MAP_FAILED) {
		fprintf(stderr, "bench-drain: cannot create the array: %s\n", strerror(errno));
		return 1;
	}
	for (size_t m = 0; m < sizeof(methods) / sizeof(methods[0]); m++) {
		long n = 0;

		for (int r = 0; r < rep; r++) {
			double t0;

			if (methods[m].empties || r == 0) {
				if (methods[m].run == m_mmap ? fill_array(&c) : fill(&c)) {
					fprintf(stderr, "bench-drain: fill: %s\n", strerror(errno));
					return 1;
				}
			}
			t0 = now_us();
			n = methods[m].run(&c);
			t[r] = now_us() - t0;
			if (n != (long)c.nkeys) {
				fprintf(stderr, "bench-drain: %s read %ld of %u keys\n",
					methods[m].name, n, c.nkeys);
				return 1;
			}
		}
		qsort(t, rep, sizeof(*t), cmp_double);
		printf("method=%s keys=%u events=%d prealloc=%d us=%.0f ns_per_key=%.0f\n",
		       methods[m].name, c.nkeys, nev, !(mopts.map_flags & BPF_F_NO_PREALLOC),
		       t[rep / 2], t[rep / 2] * 1e3 / c.nkeys);
		fflush(stdout);
		if (!methods[m].empties)
			m_and_delete_all(&c);
	}
	munmap(c.arr, c.alen);
	close(c.afd);
	close(c.fd);
	return 0;
}
