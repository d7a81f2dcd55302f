// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * perf.data for stat (front/perf_data.h): written as perf 6.1's `perf stat
 * record` writes it, so that its `perf stat report` reads it, and read
 * back, perf's own files included. The reader takes the whole file into
 * memory and checks every length against what is left before it reads:
 * a truncated or foreign file is one error naming where.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "front/perf_data.h"

#define ALIGN8(x) (((x) + 7) & ~(__u64)7)

static void w_bytes(struct perf_data_writer *w, const void *p, size_t n)
{
	if (!w->err && n && fwrite(p, 1, n, w->f) != n)
		w->err = -(errno ?: EIO);
}

static void w_zero(struct perf_data_writer *w, size_t n)
{
	static const char z[64];

	while (n) {
		size_t k = n < sizeof(z) ? n : sizeof(z);

		w_bytes(w, z, k);
		n -= k;
	}
}

static __u64 w_pos(struct perf_data_writer *w)
{
	long p = ftell(w->f);

	if (p < 0 && !w->err)
		w->err = -errno;
	return p < 0 ? 0 : (__u64)p;
}

/* header.c's do_write_string: __u32 len (NAME_ALIGN), the string, zeros */
static void w_string(struct perf_data_writer *w, const char *s)
{
	__u32 olen = strlen(s) + 1, len = (olen + NAME_ALIGN - 1) & ~(NAME_ALIGN - 1);

	w_bytes(w, &len, sizeof(len));
	w_bytes(w, s, olen);
	w_zero(w, len - olen);
}

static __u64 ev_id(const struct perf_data_desc *d, int ev, int idx)
{
	return d->ev[ev].ids[idx];
}

static int write_maps(struct perf_data_writer *w, const struct perf_data_desc *d)
{
	int nt = d->threads ? d->nr_threads : 1;
	struct perf_record_thread_map tm = {
		.header = { PERF_RECORD_THREAD_MAP, 0, sizeof(tm) +
			    nt * sizeof(struct perf_record_thread_map_entry) },
		.nr = nt,
	};
	struct perf_record_thread_map_entry te = { .pid = (__u64)(__s64)d->pid };
	struct perf_record_cpu_map cm = { .header = { PERF_RECORD_CPU_MAP, 0, 0 } };
	__u16 data[3 + PERF_DATA_MAX_CPUS] = { 0 };
	size_t n = 0;
	bool range = d->nr_cpus > 0;

	w_bytes(w, &tm, sizeof(tm));
	for (int i = 0; i < nt; i++) {
		if (d->threads) {
			te.pid = (__u64)(__s64)d->threads[i].tid;
			memcpy(te.comm, d->threads[i].comm, sizeof(te.comm));
			te.comm[sizeof(te.comm) - 1] = '\0';
		}
		w_bytes(w, &te, sizeof(te));
	}
	for (int i = 1; i < d->nr_cpus; i++)
		range &= d->cpus[i] == d->cpus[0] + i;
	if (range) {			/* __u8 any_cpu, __u8 pad, start, end */
		cm.type = PERF_CPU_MAP__RANGE_CPUS;
		data[1] = d->cpus[0];
		data[2] = d->cpus[d->nr_cpus - 1];
		n = 3;
	} else {			/* __u16 nr, __u16 cpu[nr]: "-1" */
		cm.type = PERF_CPU_MAP__CPUS;
		data[0] = d->nr_cpus ?: 1;
		for (int i = 0; i < data[0]; i++)
			data[1 + i] = d->nr_cpus ? d->cpus[i] : 0xffff;
		n = 1 + data[0];
	}
	cm.header.size = ALIGN8(sizeof(cm.header) + 2 + n * 2);
	w_bytes(w, &cm, sizeof(cm.header) + 2);
	w_bytes(w, data, n * 2);
	w_zero(w, cm.header.size - (sizeof(cm.header) + 2 + n * 2));
	return w->err;
}

static void write_config(struct perf_data_writer *w, const struct perf_data_desc *d)
{
	struct perf_record_stat_config sc = {
		.header = { PERF_RECORD_STAT_CONFIG, 0, sizeof(sc) + 3 * 16 },
		.nr = 3,
	};
	struct perf_record_stat_config_entry e[3] = {
		{ PERF_STAT_CONFIG_TERM__AGGR_MODE, d->aggr_mode },
		{ PERF_STAT_CONFIG_TERM__SCALE, d->scale },
		{ PERF_STAT_CONFIG_TERM__INTERVAL, d->interval_ms },
	};

	w_bytes(w, &sc, sizeof(sc));
	w_bytes(w, e, sizeof(e));
}

/* a clock's unit and scale, as perf's: its first id names the event */
static void write_updates(struct perf_data_writer *w, const struct perf_data_desc *d)
{
	for (int i = 0; i < d->nr_events; i++) {
		const struct perf_data_event *e = &d->ev[i];
		struct perf_record_event_update u = {
			.header = { PERF_RECORD_EVENT_UPDATE, 0, sizeof(u) + 24 },
			.id = e->ids[0],
		};
		char unit[24] = { 0 };

		if (!e->unit[0])
			continue;
		u.type = PERF_EVENT_UPDATE__UNIT;
		snprintf(unit, sizeof(unit), "%s", e->unit);
		w_bytes(w, &u, sizeof(u));
		w_bytes(w, unit, sizeof(unit));
		u.type = PERF_EVENT_UPDATE__SCALE;
		w_bytes(w, &u, sizeof(u));
		w_bytes(w, &e->scale, sizeof(e->scale));
		w_zero(w, 16);
	}
}

int perf_data__create(struct perf_data_writer *w, const char *path,
		      struct perf_data_desc *d)
{
	int n = d->nr_cpus ?: 1;
	char old[4096];
	struct stat sb;

	memset(w, 0, sizeof(*w));
	w->path = path;
	/* perf's: an existing file is kept as FILE.old */
	if (!stat(path, &sb) && S_ISREG(sb.st_mode) && sb.st_size &&
	    snprintf(old, sizeof(old), "%s.old", path) < (int)sizeof(old))
		rename(path, old);
	w->f = fopen(path, "we");
	if (!w->f)
		return -errno;
	fchmod(fileno(w->f), 0600);
	w_zero(w, sizeof(struct perf_file_header));
	for (int i = 0; i < d->nr_events; i++) {
		struct perf_data_event *e = &d->ev[i];

		e->nr_ids = n;
		e->ids = calloc(n, sizeof(*e->ids));
		if (!e->ids)
			return -ENOMEM;
		for (int j = 0; j < n; j++)
			e->ids[j] = 1 + (__u64)i * n + j;
		w_bytes(w, e->ids, n * sizeof(*e->ids));
	}
	for (int i = 0; i < d->nr_events; i++) {
		struct perf_file_attr fa = { .attr = d->ev[i].attr };

		fa.attr.size = sizeof(fa.attr);
		fa.ids.offset = sizeof(struct perf_file_header) +
				(__u64)i * n * sizeof(__u64);
		fa.ids.size = n * sizeof(__u64);
		w_bytes(w, &fa, sizeof(fa));
	}
	w->data_start = w_pos(w);
	return w->err;
}

int perf_data__describe(struct perf_data_writer *w, const struct perf_data_desc *d)
{
	write_updates(w, d);
	write_maps(w, d);
	write_config(w, d);
	return w->err;
}

int perf_data__defer(struct perf_data_writer *w)
{
	w->body = tmpfile();
	return w->body ? 0 : -errno;
}

/* a stat or a round: to the file, or deferred */
static void w_body(struct perf_data_writer *w, const void *p, size_t n)
{
	FILE *f = w->f;

	w->f = w->body ?: f;
	w_bytes(w, p, n);
	w->f = f;
}

void perf_data__stat(struct perf_data_writer *w, const struct perf_data_desc *d,
		     int ev, int idx, __u64 val, __u64 ena, __u64 run)
{
	struct perf_record_stat s = {
		.header = { PERF_RECORD_STAT, 0, sizeof(s) },
		.id = ev_id(d, ev, d->nr_cpus ? idx : 0),
		.cpu = d->nr_cpus ? (__u32)d->cpus[idx] : (__u32)-1,
		.thread = d->nr_cpus ? 0 : idx,
		.val = val, .ena = ena, .run = run,
	};

	w_body(w, &s, sizeof(s));
}

void perf_data__round(struct perf_data_writer *w, int type, __u64 time_ns)
{
	struct perf_record_stat_round r = {
		.header = { PERF_RECORD_STAT_ROUND, 0, sizeof(r) },
		.type = type,
		.time = time_ns,
	};

	w_body(w, &r, sizeof(r));
}

/* the deferred stats after the describing records */
static void copy_body(struct perf_data_writer *w, const struct perf_data_desc *d)
{
	char buf[65536];
	size_t n;

	perf_data__describe(w, d);
	if (!w->err && fflush(w->body))
		w->err = -errno;
	if (!w->err)
		rewind(w->body);
	while (!w->err && (n = fread(buf, 1, sizeof(buf), w->body)) > 0)
		w_bytes(w, buf, n);
	if (!w->err && ferror(w->body))
		w->err = -EIO;
	fclose(w->body);
	w->body = NULL;
}

/* "0-3,8": the CPUs below n whose place has key k */
static void w_cpu_list(struct perf_data_writer *w, const struct perf_data_desc *d,
		       int n, long (*key)(const struct perf_data_place *), long k)
{
	char buf[8192];
	size_t len = 0;

	buf[0] = '\0';
	for (int c = 0; c < n && len < sizeof(buf) - 32; c++) {
		int e = c;

		if (key(&d->place[c]) != k)
			continue;
		while (e + 1 < n && key(&d->place[e + 1]) == k)
			e++;
		len += snprintf(buf + len, sizeof(buf) - len, "%s%d", len ? "," : "", c);
		if (e > c)
			len += snprintf(buf + len, sizeof(buf) - len, "-%d", e);
		c = e;
	}
	w_string(w, buf);
}

static long key_socket(const struct perf_data_place *p)
{
	return p->socket < 0 ? -1 : p->socket;
}

static long key_die(const struct perf_data_place *p)
{
	return p->socket < 0 ? -1 : (long)p->socket << 20 | p->die;
}

static long key_core(const struct perf_data_place *p)
{
	return p->socket < 0 ? -1 : ((long)p->socket << 20 | p->die) << 20 | p->core;
}

static long key_node(const struct perf_data_place *p)
{
	return p->node;
}

/* one list per distinct key, in the order of their first CPUs (perf's) */
static void w_lists(struct perf_data_writer *w, const struct perf_data_desc *d, int n,
		    long (*key)(const struct perf_data_place *))
{
	__u32 nr = 0;

	for (int pass = 0; pass < 2; pass++) {
		for (int c = 0; c < n; c++) {
			long k = key(&d->place[c]);
			int first = 0;

			while (key(&d->place[first]) != k)
				first++;
			if (k < 0 || first != c)
				continue;
			if (pass)
				w_cpu_list(w, d, n, key, k);
			else
				nr++;
		}
		if (!pass)
			w_bytes(w, &nr, sizeof(nr));
	}
}

/*
 * header.c's write_cpu_topology: the package and core lists, each CPU's
 * core and socket id, the die lists and each CPU's die id; then
 * write_numa_topology's nodes, each with its CPUs (memory not said: 0).
 */
static void write_topology(struct perf_data_writer *w, const struct perf_data_desc *d,
			   int n, bool numa)
{
	if (numa) {
		__u32 nr = 0;
		__u64 mem[2] = { 0, 0 };
		int max = -1;

		for (int c = 0; c < n; c++)
			max = d->place[c].node > max ? d->place[c].node : max;
		/* the nodes with CPUs, in id order; then each */
		for (int pass = 0; pass < 2; pass++) {
			for (__u32 node = 0; (int)node <= max; node++) {
				int c = 0;

				while (c < n && d->place[c].node != (int)node)
					c++;
				if (c == n)
					continue;
				nr += !pass;
				if (!pass)
					continue;
				w_bytes(w, &node, sizeof(node));
				w_bytes(w, mem, sizeof(mem));
				w_cpu_list(w, d, n, key_node, node);
			}
			if (!pass)
				w_bytes(w, &nr, sizeof(nr));
		}
		return;
	}
	w_lists(w, d, n, key_socket);
	w_lists(w, d, n, key_core);
	for (int c = 0; c < n; c++) {
		__s32 id[2] = { d->place[c].core, d->place[c].socket };

		w_bytes(w, id, sizeof(id));
	}
	w_lists(w, d, n, key_die);
	for (int c = 0; c < n; c++)
		w_bytes(w, &d->place[c].die, sizeof(__s32));
}

static void write_features(struct perf_data_writer *w, const struct perf_data_desc *d,
			   struct perf_file_header *h)
{
	static const int all[] = { HEADER_HOSTNAME, HEADER_OSRELEASE, HEADER_VERSION,
				   HEADER_ARCH, HEADER_NRCPUS, HEADER_CMDLINE,
				   HEADER_EVENT_DESC, HEADER_CPU_TOPOLOGY,
				   HEADER_NUMA_TOPOLOGY, HEADER_STAT };
	enum { NA = sizeof(all) / sizeof(all[0]) };
	struct perf_file_section sec[NA] = { { 0 } };
	int feats[NA], nf = 0;
	__u64 table = w_pos(w);
	long cpus = d->nr_cpus_avail ?: sysconf(_SC_NPROCESSORS_CONF);
	long online = d->nr_cpus_online ?: sysconf(_SC_NPROCESSORS_ONLN);

	for (int i = 0; i < NA; i++)
		if (d->place || (all[i] != HEADER_CPU_TOPOLOGY &&
				 all[i] != HEADER_NUMA_TOPOLOGY))
			feats[nf++] = all[i];
	w_zero(w, nf * sizeof(sec[0]));
	for (int i = 0; i < nf; i++) {
		__u32 nr, sz = sizeof(struct perf_event_attr);
		const char *s = NULL, *p;

		h->adds_features[feats[i] / 64] |= 1ULL << (feats[i] % 64);
		sec[i].offset = w_pos(w);
		switch (feats[i]) {
		case HEADER_HOSTNAME:	s = d->hostname; break;
		case HEADER_OSRELEASE:	s = d->osrelease; break;
		case HEADER_VERSION:	s = d->version; break;
		case HEADER_ARCH:	s = d->arch; break;
		case HEADER_NRCPUS:
			nr = cpus;
			w_bytes(w, &nr, sizeof(nr));
			nr = online;
			w_bytes(w, &nr, sizeof(nr));
			break;
		case HEADER_CMDLINE:	/* the words, each a string */
			nr = 0;
			for (p = d->cmdline; p && *p; p += strlen(p) + 1)
				nr++;
			w_bytes(w, &nr, sizeof(nr));
			for (p = d->cmdline; p && *p; p += strlen(p) + 1)
				w_string(w, p);
			break;
		case HEADER_CPU_TOPOLOGY:
		case HEADER_NUMA_TOPOLOGY:
			write_topology(w, d, d->nr_cpus_avail,
				       feats[i] == HEADER_NUMA_TOPOLOGY);
			break;
		case HEADER_EVENT_DESC:
			nr = d->nr_events;
			w_bytes(w, &nr, sizeof(nr));
			w_bytes(w, &sz, sizeof(sz));
			for (int e = 0; e < d->nr_events; e++) {
				struct perf_event_attr a = d->ev[e].attr;

				a.size = sz;
				w_bytes(w, &a, sz);
				nr = d->ev[e].nr_ids;
				w_bytes(w, &nr, sizeof(nr));
				w_string(w, d->ev[e].name);
				w_bytes(w, d->ev[e].ids, nr * sizeof(__u64));
			}
			break;
		}
		if (s)
			w_string(w, s);
		sec[i].size = w_pos(w) - sec[i].offset;
	}
	if (!w->err && (fseek(w->f, table, SEEK_SET) < 0))
		w->err = -errno;
	w_bytes(w, sec, nf * sizeof(sec[0]));
}

int perf_data__finish(struct perf_data_writer *w, const struct perf_data_desc *d)
{
	struct perf_file_header h = {
		.magic = PERF_MAGIC2,
		.size = sizeof(h),
		.attr_size = sizeof(struct perf_file_attr),
	};
	int n = d->nr_cpus ?: 1, err;

	if (w->body)
		copy_body(w, d);
	h.attrs.offset = sizeof(h) + (__u64)d->nr_events * n * sizeof(__u64);
	h.attrs.size = (__u64)d->nr_events * sizeof(struct perf_file_attr);
	h.data.offset = w->data_start;
	h.data.size = w_pos(w) - w->data_start;
	write_features(w, d, &h);
	if (!w->err && fseek(w->f, 0, SEEK_SET) < 0)
		w->err = -errno;
	w_bytes(w, &h, sizeof(h));
	err = w->err;
	if (fclose(w->f) && !err)
		err = -(errno ?: EIO);
	w->f = NULL;
	return err;
}

void perf_data__desc_free(struct perf_data_desc *d)
{
	for (int i = 0; i < d->nr_events; i++) {
		free(d->ev[i].ids);
		d->ev[i].ids = NULL;
	}
	free(d->cmdline);
	d->cmdline = NULL;
	free(d->place);
	d->place = NULL;
	free(d->threads);
	d->threads = NULL;
}

void perf_data__free(struct perf_data_file *f)
{
	for (int i = 0; i < f->nr_rounds; i++)
		free(f->rounds[i].st);
	free(f->rounds);
	f->rounds = NULL;
	f->nr_rounds = 0;
	perf_data__desc_free(&f->d);
}

const char *perf_data__attr_name(const struct perf_event_attr *a, char *buf,
				 size_t size)
{
	static const char *const hw[] = {
		"cycles", "instructions", "cache-references", "cache-misses",
		"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
		"stalled-cycles-backend", "ref-cycles",
	};
	static const char *const sw[] = {
		"cpu-clock", "task-clock", "page-faults", "context-switches",
		"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
		"emulation-faults", "dummy", "bpf-output", "cgroup-switches",
	};

	if (a->type == PERF_TYPE_HARDWARE && a->config < sizeof(hw) / sizeof(hw[0]))
		snprintf(buf, size, "%s", hw[a->config]);
	else if (a->type == PERF_TYPE_SOFTWARE && a->config < sizeof(sw) / sizeof(sw[0]))
		snprintf(buf, size, "%s", sw[a->config]);
	else
		snprintf(buf, size, "raw 0x%llx", (unsigned long long)a->config);
	return buf;
}
