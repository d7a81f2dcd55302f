// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reading a stat perf.data (front/perf_data.h): emon-perf's and perf's
 * own. The whole file in memory; every section and record checked
 * against what is left of the file before it is read, so a truncated or
 * foreign file is one error that says where. Records stat does not use
 * (perf's kernel MMAP, features as records) are skipped by their size.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/array.h"
#include "front/perf_data.h"

#define PERF_DATA_MAX_SIZE (1ULL << 30)

struct rd {
	const unsigned char *buf;
	__u64 size;
	struct perf_data_file *f;
	size_t rounds_cap;
	struct perf_data_stat *pend;	/* stats since the last round */
	int nr_pend;
	size_t pend_cap;
};

static int bad(struct rd *r, const char *fmt, unsigned long long off)
{
	snprintf(r->f->why, sizeof(r->f->why), fmt, off);
	return -EINVAL;
}

/* [off, off + len) inside the file */
static bool in_file(const struct rd *r, __u64 off, __u64 len)
{
	return off <= r->size && len <= r->size - off;
}

/* a feature's string at *off within end: __u32 len, then len bytes */
static int read_string(struct rd *r, __u64 *off, __u64 end, char *out, size_t size)
{
	__u32 len;

	if (*off + 4 > end)
		return -1;
	memcpy(&len, r->buf + *off, 4);
	if (len > end - *off - 4 || !len)
		return -1;
	if (out && size) {
		size_t n = strnlen((const char *)r->buf + *off + 4, len);

		n = n < size - 1 ? n : size - 1;
		memcpy(out, r->buf + *off + 4, n);
		out[n] = '\0';
	}
	*off += 4 + (__u64)len;
	return 0;
}

static int find_event(const struct perf_data_desc *d, __u64 id, int *idx)
{
	for (int e = 0; e < d->nr_events; e++)
		for (int j = 0; j < d->ev[e].nr_ids; j++)
			if (d->ev[e].ids[j] == id) {
				if (idx)
					*idx = j;
				return e;
			}
	return -1;
}

static int read_cmdline(struct rd *r, __u64 off, __u64 end)
{
	struct perf_data_desc *d = &r->f->d;
	__u32 nr;
	size_t len = 0;
	char word[4096];

	if (off + 4 > end)
		return -1;
	memcpy(&nr, r->buf + off, 4);
	off += 4;
	free(d->cmdline);
	d->cmdline = calloc(1, end - off + 2);
	if (!d->cmdline)
		return -ENOMEM;
	for (__u32 i = 0; i < nr; i++) {
		if (read_string(r, &off, end, word, sizeof(word)))
			return -1;
		len += sprintf(d->cmdline + len, "%s%s", i ? " " : "", word);
	}
	return 0;
}

/* names by id: perf's attrs carry none */
static int read_event_desc(struct rd *r, __u64 off, __u64 end)
{
	struct perf_data_desc *d = &r->f->d;
	__u32 nr, sz, nr_ids;
	char name[PERF_DATA_NAME_LEN];

	if (off + 8 > end)
		return -1;
	memcpy(&nr, r->buf + off, 4);
	memcpy(&sz, r->buf + off + 4, 4);
	off += 8;
	for (__u32 i = 0; i < nr; i++) {
		__u64 id;
		int e;

		if (sz > end - off || end - off - sz < 4)
			return -1;
		off += sz;
		memcpy(&nr_ids, r->buf + off, 4);
		off += 4;
		if (read_string(r, &off, end, name, sizeof(name)) ||
		    nr_ids > (end - off) / 8)
			return -1;
		if (!nr_ids)
			continue;
		memcpy(&id, r->buf + off, 8);
		off += (__u64)nr_ids * 8;
		e = find_event(d, id, NULL);
		if (e >= 0)
			snprintf(d->ev[e].name, sizeof(d->ev[e].name), "%s", name);
	}
	return 0;
}

/* "0-3,8" within [off, end): each CPU below the file's nr_cpus_avail
 * gets node; -1 for a list that is not one */
static int read_node_cpus(struct rd *r, __u64 *off, __u64 end, int node)
{
	struct perf_data_desc *d = &r->f->d;
	char list[4096];
	const char *p = list;

	if (read_string(r, off, end, list, sizeof(list)))
		return -1;
	while (*p) {
		char *e;
		long a = strtol(p, &e, 10), b = a;

		if (e == p || a < 0)
			return -1;
		if (*e == '-') {
			p = e + 1;
			b = strtol(p, &e, 10);
			if (e == p || b < a)
				return -1;
		}
		for (long c = a; c <= b && c < d->nr_cpus_avail; c++)
			d->place[c].node = node;
		p = *e == ',' ? e + 1 : e;
		if (*e && *e != ',')
			return -1;
	}
	return 0;
}

static int alloc_places(struct perf_data_desc *d)
{
	if (d->place)
		return 0;
	d->place = calloc(d->nr_cpus_avail ?: 1, sizeof(*d->place));
	if (!d->place)
		return -ENOMEM;
	for (int c = 0; c < d->nr_cpus_avail; c++)
		d->place[c] = (struct perf_data_place){ -1, -1, -1, -1 };
	return 0;
}

/* "nr strings": skipped; -1 when they do not fit */
static int skip_strings(struct rd *r, __u64 *off, __u64 end)
{
	__u32 nr;

	if (*off + 4 > end)
		return -1;
	memcpy(&nr, r->buf + *off, 4);
	*off += 4;
	for (__u32 i = 0; i < nr; i++)
		if (read_string(r, off, end, NULL, 0))
			return -1;
	return 0;
}

/*
 * header.c's process_cpu_topology (each CPU's core and socket id after
 * the package and core lists, then the die lists and ids where written)
 * and process_numa_topology (each node's CPUs): the places of the
 * HEADER_NRCPUS's CPUs, which come first in the file.
 */
static int read_topology(struct rd *r, __u64 off, __u64 end, bool numa)
{
	struct perf_data_desc *d = &r->f->d;
	int n = d->nr_cpus_avail, err = alloc_places(d);
	__u32 nr, v[2];

	if (err || !n)
		return err ?: -1;
	if (numa) {
		if (off + 4 > end)
			return -1;
		memcpy(&nr, r->buf + off, 4);
		off += 4;
		for (__u32 i = 0; i < nr; i++) {
			if (end - off < 20)
				return -1;
			memcpy(v, r->buf + off, 4);
			off += 20;
			if ((int)v[0] < 0 || read_node_cpus(r, &off, end, v[0]))
				return -1;
		}
		return 0;
	}
	if (skip_strings(r, &off, end) || skip_strings(r, &off, end) ||
	    (end - off) / 8 < (__u64)n)
		return -1;
	for (int c = 0; c < n; c++, off += 8) {
		memcpy(v, r->buf + off, 8);
		d->place[c].core = v[0];
		d->place[c].socket = v[1];
		d->place[c].die = (int)v[1] < 0 ? -1 : 0;
	}
	if (off == end)		/* before dies (perf 5.2) */
		return 0;
	if (skip_strings(r, &off, end) || (end - off) / 4 < (__u64)n)
		return -1;
	for (int c = 0; c < n; c++, off += 4) {
		memcpy(v, r->buf + off, 4);
		d->place[c].die = v[0];
	}
	return 0;
}

static int read_features(struct rd *r, const struct perf_file_header *h)
{
	struct perf_data_desc *d = &r->f->d;
	__u64 table = h->data.offset + h->data.size;
	int k = 0;

	for (int bit = 0; bit < HEADER_FEAT_BITS; bit++) {
		struct perf_file_section s;
		__u64 off, end;
		int err = 0;

		if (!(h->adds_features[bit / 64] & (1ULL << (bit % 64))))
			continue;
		if (!in_file(r, table + (__u64)k * sizeof(s), sizeof(s)))
			return bad(r, "truncated: its features' table at offset %llu",
				   table + (__u64)k * sizeof(s));
		memcpy(&s, r->buf + table + (__u64)k++ * sizeof(s), sizeof(s));
		if (!in_file(r, s.offset, s.size))
			return bad(r, "truncated: a feature at offset %llu", s.offset);
		off = s.offset;
		end = s.offset + s.size;
		switch (bit) {
		case HEADER_HOSTNAME:
			err = read_string(r, &off, end, d->hostname, sizeof(d->hostname));
			break;
		case HEADER_OSRELEASE:
			err = read_string(r, &off, end, d->osrelease, sizeof(d->osrelease));
			break;
		case HEADER_VERSION:
			err = read_string(r, &off, end, d->version, sizeof(d->version));
			break;
		case HEADER_ARCH:
			err = read_string(r, &off, end, d->arch, sizeof(d->arch));
			break;
		case HEADER_CMDLINE:
			err = read_cmdline(r, off, end);
			break;
		case HEADER_EVENT_DESC:
			err = read_event_desc(r, off, end);
			break;
		case HEADER_NRCPUS:	/* __u32 avail, online */
			if (end - off < 8)
				return bad(r, "a bad feature at offset %llu", s.offset);
			memcpy(&d->nr_cpus_avail, r->buf + off, 4);
			memcpy(&d->nr_cpus_online, r->buf + off + 4, 4);
			/* more: no topology read */
			if (d->nr_cpus_avail < 0 || d->nr_cpus_avail > PERF_DATA_MAX_CPUS)
				d->nr_cpus_avail = 0;
			break;
		case HEADER_CPU_TOPOLOGY:
		case HEADER_NUMA_TOPOLOGY:
			if (d->nr_cpus_avail)
				err = read_topology(r, off, end, bit == HEADER_NUMA_TOPOLOGY);
			break;
		}
		if (err == -ENOMEM)
			return err;
		if (err)
			return bad(r, "a bad feature at offset %llu", s.offset);
	}
	return 0;
}

static int read_attrs(struct rd *r, const struct perf_file_header *h)
{
	struct perf_data_desc *d = &r->f->d;
	__u64 n;

	if (h->attr_size < PERF_ATTR_SIZE_VER0 + sizeof(struct perf_file_section) ||
	    h->attr_size > 4096)
		return bad(r, "a bad attr size %llu", h->attr_size);
	if (!in_file(r, h->attrs.offset, h->attrs.size))
		return bad(r, "truncated: its attrs at offset %llu", h->attrs.offset);
	n = h->attrs.size / h->attr_size;
	if (!n || n > PERF_DATA_MAX_EVENTS)
		return bad(r, "%llu events (1 to 64 are read)", n);
	for (__u64 i = 0; i < n; i++) {
		const unsigned char *p = r->buf + h->attrs.offset + i * h->attr_size;
		struct perf_data_event *e = &d->ev[d->nr_events++];
		size_t asz = h->attr_size - sizeof(struct perf_file_section);
		struct perf_file_section ids;

		memcpy(&e->attr, p, asz < sizeof(e->attr) ? asz : sizeof(e->attr));
		memcpy(&ids, p + asz, sizeof(ids));
		if (!in_file(r, ids.offset, ids.size) || ids.size % 8 ||
		    ids.size / 8 > PERF_DATA_MAX_CPUS * 64)
			return bad(r, "truncated: an event's ids at offset %llu", ids.offset);
		e->nr_ids = ids.size / 8;
		e->ids = calloc(e->nr_ids ?: 1, 8);
		if (!e->ids)
			return -ENOMEM;
		memcpy(e->ids, r->buf + ids.offset, ids.size);
		snprintf(e->name, sizeof(e->name), "%s", "");
	}
	return 0;
}

static int read_cpu_map(struct rd *r, const unsigned char *p, __u16 size)
{
	struct perf_data_desc *d = &r->f->d;
	__u16 type, a, b;

	if (size < 16)
		return -1;
	memcpy(&type, p + 8, 2);
	memcpy(&a, p + 10, 2);
	d->nr_cpus = 0;
	if (type == PERF_CPU_MAP__CPUS) {
		if (12 + (__u32)a * 2 > size || a > PERF_DATA_MAX_CPUS)
			return -1;
		for (int i = 0; i < a; i++) {
			memcpy(&b, p + 12 + i * 2, 2);
			if (b != 0xffff)
				d->cpus[d->nr_cpus++] = b;
		}
	} else if (type == PERF_CPU_MAP__RANGE_CPUS) {
		memcpy(&a, p + 12, 2);
		memcpy(&b, p + 14, 2);
		if (b < a || b - a >= PERF_DATA_MAX_CPUS)
			return -1;
		for (int c = a; c <= b; c++)
			d->cpus[d->nr_cpus++] = c;
	} else if (type == PERF_CPU_MAP__MASK) {
		__u16 long_size;

		memcpy(&long_size, p + 12, 2);
		if ((long_size != 4 && long_size != 8) || 16 + (__u32)a * long_size > size)
			return -1;
		for (int i = 0; i < a; i++) {
			__u64 m = 0;

			memcpy(&m, p + 16 + i * long_size, long_size);
			for (int bit = 0; bit < long_size * 8; bit++)
				if ((m >> bit & 1) && d->nr_cpus < PERF_DATA_MAX_CPUS)
					d->cpus[d->nr_cpus++] = i * long_size * 8 + bit;
		}
	} else {
		return -1;
	}
	return 0;
}

static int add_stat(struct rd *r, const struct perf_record_stat *s)
{
	const struct perf_data_desc *d = &r->f->d;
	struct perf_data_stat *o;
	int e = find_event(d, s->id, NULL), idx = 0;

	if (e < 0)
		return -1;
	if (s->cpu != (__u32)-1) {
		for (idx = 0; idx < d->nr_cpus && d->cpus[idx] != (int)s->cpu; idx++)
			;
		if (idx == d->nr_cpus)
			return -1;
	}
	if (array__grow(&r->pend, &r->pend_cap, r->nr_pend + 1, sizeof(*r->pend)))
		return -ENOMEM;
	o = &r->pend[r->nr_pend++];
	*o = (struct perf_data_stat){ e, idx, (int)s->thread, s->val, s->ena, s->run };
	return 0;
}

static int add_round(struct rd *r, const struct perf_record_stat_round *s)
{
	struct perf_data_file *f = r->f;
	struct perf_data_round *o;

	if (array__grow(&f->rounds, &r->rounds_cap, f->nr_rounds + 1, sizeof(*o)))
		return -ENOMEM;
	o = &f->rounds[f->nr_rounds++];
	*o = (struct perf_data_round){ (int)s->type, s->time, r->nr_pend, r->pend };
	r->pend = NULL;
	r->nr_pend = 0;
	r->pend_cap = 0;
	return 0;
}

static int read_record(struct rd *r, __u64 off, const struct perf_event_header *eh)
{
	struct perf_data_desc *d = &r->f->d;
	const unsigned char *p = r->buf + off;
	int err = 0;

	switch (eh->type) {
	case PERF_RECORD_EVENT_UPDATE: {
		struct perf_record_event_update u;
		int e;

		if (eh->size < sizeof(u) + 8)
			return -1;
		memcpy(&u, p, sizeof(u));
		e = find_event(d, u.id, NULL);
		if (e < 0)
			break;
		if (u.type == PERF_EVENT_UPDATE__UNIT)
			snprintf(d->ev[e].unit, sizeof(d->ev[e].unit), "%.*s",
				 (int)(eh->size - sizeof(u)), (const char *)p + sizeof(u));
		else if (u.type == PERF_EVENT_UPDATE__SCALE)
			memcpy(&d->ev[e].scale, p + sizeof(u), 8);
		else if (u.type == PERF_EVENT_UPDATE__NAME)
			snprintf(d->ev[e].name, sizeof(d->ev[e].name), "%.*s",
				 (int)(eh->size - sizeof(u)), (const char *)p + sizeof(u));
		break;
	}
	case PERF_RECORD_THREAD_MAP: {
		struct perf_record_thread_map_entry te;
		__u64 nr;

		if (eh->size < 16)
			return -1;
		memcpy(&nr, p + 8, 8);
		if (nr > (eh->size - 16u) / sizeof(te) || nr > PERF_DATA_MAX_THREADS)
			return -1;
		free(d->threads);
		d->threads = calloc(nr ?: 1, sizeof(*d->threads));
		if (!d->threads)
			return -ENOMEM;
		d->nr_threads = nr;
		for (__u64 i = 0; i < nr; i++) {
			memcpy(&te, p + 16 + i * sizeof(te), sizeof(te));
			d->threads[i].tid = (int)te.pid;
			memcpy(d->threads[i].comm, te.comm, sizeof(te.comm));
			d->threads[i].comm[sizeof(te.comm) - 1] = '\0';
		}
		if (nr)
			d->pid = d->threads[0].tid;
		break;
	}
	case PERF_RECORD_CPU_MAP:
		return read_cpu_map(r, p, eh->size);
	case PERF_RECORD_STAT_CONFIG: {
		__u64 nr;

		if (eh->size < 16)
			return -1;
		memcpy(&nr, p + 8, 8);
		if (nr > (eh->size - 16u) / 16)
			return -1;
		for (__u64 i = 0; i < nr; i++) {
			struct perf_record_stat_config_entry c;

			memcpy(&c, p + 16 + i * 16, 16);
			if (c.tag == PERF_STAT_CONFIG_TERM__AGGR_MODE)
				d->aggr_mode = c.val;
			else if (c.tag == PERF_STAT_CONFIG_TERM__INTERVAL)
				d->interval_ms = c.val;
			else if (c.tag == PERF_STAT_CONFIG_TERM__SCALE)
				d->scale = c.val;
		}
		break;
	}
	case PERF_RECORD_STAT: {
		struct perf_record_stat s;

		if (eh->size < sizeof(s))
			return -1;
		memcpy(&s, p, sizeof(s));
		err = add_stat(r, &s);
		break;
	}
	case PERF_RECORD_STAT_ROUND: {
		struct perf_record_stat_round s;

		if (eh->size < sizeof(s))
			return -1;
		memcpy(&s, p, sizeof(s));
		err = add_round(r, &s);
		break;
	}
	}
	return err;
}

static int read_data(struct rd *r, const struct perf_file_header *h)
{
	__u64 off = h->data.offset, end = h->data.offset + h->data.size;

	if (!in_file(r, h->data.offset, h->data.size))
		return bad(r, "truncated: its data at offset %llu", h->data.offset);
	while (off < end) {
		struct perf_event_header eh;
		int err;

		if (end - off < sizeof(eh))
			return bad(r, "truncated: a record at offset %llu", off);
		memcpy(&eh, r->buf + off, sizeof(eh));
		if (eh.size < sizeof(eh) || eh.size > end - off)
			return bad(r, "a bad record at offset %llu", off);
		err = read_record(r, off, &eh);
		if (err == -ENOMEM)
			return err;
		if (err)
			return bad(r, "a bad record at offset %llu", off);
		off += eh.size;
	}
	return 0;
}

static int load(struct rd *r, const char *path, unsigned char **bufp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;
	struct stat sb;
	__u64 got = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		err = S_ISDIR(sb.st_mode) ? -EISDIR : -EINVAL;
		snprintf(r->f->why, sizeof(r->f->why), "not a regular file");
		goto out;
	}
	if ((__u64)sb.st_size > PERF_DATA_MAX_SIZE) {
		err = bad(r, "over %llu bytes", PERF_DATA_MAX_SIZE);
		goto out;
	}
	*bufp = malloc(sb.st_size ?: 1);
	if (!*bufp) {
		err = -ENOMEM;
		goto out;
	}
	while (got < (__u64)sb.st_size) {
		ssize_t n = read(fd, *bufp + got, sb.st_size - got);

		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			goto out;
		}
		got += n;
	}
	r->buf = *bufp;
	r->size = got;
out:
	close(fd);
	return err;
}

int perf_data__read(struct perf_data_file *f, const char *path)
{
	struct rd r = { .f = f };
	struct perf_file_header h;
	unsigned char *buf = NULL;
	int err;

	memset(f, 0, sizeof(*f));
	f->d.pid = -1;
	f->d.scale = true;
	f->d.aggr_mode = AGGR_GLOBAL;
	err = load(&r, path, &buf);
	if (err)
		goto out;
	if (r.size < sizeof(h)) {
		err = bad(&r, "truncated: %llu bytes, less than a header", r.size);
		goto out;
	}
	memcpy(&h, r.buf, sizeof(h));
	if (h.magic != PERF_MAGIC2) {
		err = bad(&r, "not a perf.data of this machine's byte order (no PERFILE2 magic at offset %llu)", 0);
		goto out;
	}
	if (h.size != sizeof(h)) {
		err = bad(&r, "a header of %llu bytes (perf's has 104)", h.size);
		goto out;
	}
	err = read_attrs(&r, &h) ?: read_features(&r, &h) ?: read_data(&r, &h);
	if (!err && !f->nr_rounds)
		err = bad(&r, "no stat round in it (not a 'stat record' file?)%.0llu", 0);
	/* a later CPU map may have taken a stat's CPU away */
	for (int k = 0; !err && k < f->nr_rounds; k++)
		for (int j = 0; !err && j < f->rounds[k].nr; j++)
			if (f->rounds[k].st[j].idx >= (f->d.nr_cpus ?: 1) ||
			    f->rounds[k].st[j].thread < 0 ||
			    f->rounds[k].st[j].thread >= (f->d.nr_cpus ? 1 : f->d.nr_threads ?: 1))
				err = bad(&r, "a stat of a CPU or thread its maps lack (round %llu)",
					  (unsigned long long)k);
	for (int e = 0; !err && e < f->d.nr_events; e++)
		if (!f->d.ev[e].scale)
			f->d.ev[e].scale = 1;
out:
	free(r.pend);
	free(buf);
	if (err)
		perf_data__free(f);
	return err;
}
