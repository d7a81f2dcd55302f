/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * perf.data as `perf stat record` writes it and `perf stat report` reads
 * it (perf 6.1: tools/perf/util/header.h, header.c, event.h,
 * lib/perf/include/perf/event.h), the subset stat needs: the file header
 * with its attrs and their ids, the features perf stat report reads
 * (hostname, OS release, version, arch, CPUs, command line, event names,
 * the CPU and NUMA topology, "contains stat data"), and the records of
 * the data section: event updates (a clock's unit and scale), the thread
 * and CPU maps, the stat config, a stat per counter per CPU/thread and a
 * round (interval or final); --per-thread's stats deferred until the
 * thread map is known. Little-endian, as the host: perf reads a file of
 * the other endianness by swapping; this reader refuses one.
 *
 * The names are perf's, so that the layouts can be checked against its
 * headers field by field.
 */
#ifndef FRONT_PERF_DATA_H
#define FRONT_PERF_DATA_H

#include <linux/perf_event.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>

#define PERF_MAGIC2 0x32454c4946524550ULL	/* "PERFILE2" */

struct perf_file_section {
	__u64 offset;
	__u64 size;
};

#define HEADER_FEAT_BITS 256

struct perf_file_header {
	__u64 magic;
	__u64 size;		/* sizeof(struct perf_file_header) */
	__u64 attr_size;	/* sizeof(struct perf_file_attr) as written */
	struct perf_file_section attrs;
	struct perf_file_section data;
	struct perf_file_section event_types;	/* unused since 2012 */
	__u64 adds_features[HEADER_FEAT_BITS / 64];
};

/* in the attrs section: an attr and where its ids (__u64 each) are */
struct perf_file_attr {
	struct perf_event_attr attr;
	struct perf_file_section ids;
};

/* header.h's feature bits; after the data section, one perf_file_section
 * per bit set, in bit order, then their contents */
enum {
	HEADER_HOSTNAME = 3,
	HEADER_OSRELEASE = 4,
	HEADER_VERSION = 5,
	HEADER_ARCH = 6,
	HEADER_NRCPUS = 7,
	HEADER_CMDLINE = 11,
	HEADER_EVENT_DESC = 12,
	HEADER_CPU_TOPOLOGY = 13,	/* perf stat report --per-socket/die/core */
	HEADER_NUMA_TOPOLOGY = 14,	/* and --per-node */
	HEADER_STAT = 19,	/* no contents: "contains stat data" */
};
/* a string in a feature: __u32 len (with its NUL, padded to NAME_ALIGN),
 * then len bytes */
#define NAME_ALIGN 64

/* perf's user record types (event.h), after the kernel's */
enum perf_user_event_type {
	PERF_RECORD_HEADER_ATTR = 64,
	PERF_RECORD_THREAD_MAP = 73,
	PERF_RECORD_CPU_MAP = 74,
	PERF_RECORD_STAT_CONFIG = 75,
	PERF_RECORD_STAT = 76,
	PERF_RECORD_STAT_ROUND = 77,
	PERF_RECORD_EVENT_UPDATE = 78,
	PERF_RECORD_HEADER_FEATURE = 80,
	PERF_RECORD_FINISHED_INIT = 82,
};

/* struct perf_event_header is the kernel's: __u32 type, __u16 misc, size */

struct perf_record_event_update {	/* + unit string or double scale */
	struct perf_event_header header;
	__u64 type;
	__u64 id;
};
enum {
	PERF_EVENT_UPDATE__UNIT = 0,
	PERF_EVENT_UPDATE__SCALE = 1,
	PERF_EVENT_UPDATE__NAME = 2,
	PERF_EVENT_UPDATE__CPUS = 3,
};

struct perf_record_thread_map_entry {
	__u64 pid;
	char comm[16];
};
struct perf_record_thread_map {		/* + nr entries */
	struct perf_event_header header;
	__u64 nr;
};

/* perf_record_cpu_map_data's types (perf 6.1 writes RANGE_CPUS for a
 * contiguous map, CPUS for "-1", MASK for others) */
enum {
	PERF_CPU_MAP__CPUS = 0,		/* __u16 nr, __u16 cpu[nr] */
	PERF_CPU_MAP__MASK = 1,		/* __u16 nr, __u16 long_size, mask */
	PERF_CPU_MAP__RANGE_CPUS = 2,	/* __u8 any_cpu, pad, __u16 start, end */
};
struct perf_record_cpu_map {		/* + the data, padded to 8 bytes */
	struct perf_event_header header;
	__u16 type;
};

enum {
	PERF_STAT_CONFIG_TERM__AGGR_MODE = 0,
	PERF_STAT_CONFIG_TERM__INTERVAL = 1,
	PERF_STAT_CONFIG_TERM__SCALE = 2,
};
/* util/stat.h's enum aggr_mode, the values that go in the file */
enum {
	AGGR_NONE = 0,
	AGGR_GLOBAL = 1,
	AGGR_SOCKET = 2,
	AGGR_DIE = 3,
	AGGR_CORE = 4,
	AGGR_THREAD = 5,
	AGGR_UNSET = 6,
	AGGR_NODE = 7,
};
struct perf_record_stat_config_entry {
	__u64 tag;
	__u64 val;
};
struct perf_record_stat_config {	/* + nr entries */
	struct perf_event_header header;
	__u64 nr;
};

struct perf_record_stat {
	struct perf_event_header header;
	__u64 id;
	__u32 cpu;		/* the CPU, (__u32)-1 for a task's counter */
	__u32 thread;		/* index into the thread map */
	__u64 val, ena, run;	/* cumulative since the start */
};

enum {
	PERF_STAT_ROUND_TYPE__INTERVAL = 0,
	PERF_STAT_ROUND_TYPE__FINAL = 1,
};
struct perf_record_stat_round {
	struct perf_event_header header;
	__u64 type;
	__u64 time;		/* ns since the start (FINAL: the wall time) */
};

/* ---- what emon-perf writes and reads through this file ---- */

#define PERF_DATA_MAX_EVENTS 64
#define PERF_DATA_MAX_CPUS 4096
#define PERF_DATA_NAME_LEN 128

struct perf_data_event {
	char name[PERF_DATA_NAME_LEN];
	struct perf_event_attr attr;
	char unit[16];		/* "msec" for a clock, else "" */
	double scale;		/* 1e-6 for a clock, else 1 (0: not said) */
	int nr_ids;
	__u64 *ids;		/* [nr_ids] */
};

/* A CPU's place, as HEADER_CPU_TOPOLOGY and HEADER_NUMA_TOPOLOGY say:
 * -1 for an offline CPU's (perf's) */
struct perf_data_place {
	int socket, die, core, node;
};

/* A thread map's entry: perf's tid and comm */
struct perf_data_thread {
	int tid;
	char comm[16];
};

#define PERF_DATA_MAX_THREADS 65536

/* One file's description: what the header and the maps say. */
struct perf_data_desc {
	int nr_events;
	struct perf_data_event ev[PERF_DATA_MAX_EVENTS];
	int nr_cpus;		/* 0: a task's counters (the CPU map "-1") */
	int cpus[PERF_DATA_MAX_CPUS];
	/* the thread map: threads[nr_threads], or (NULL) one entry, pid;
	 * a task's stat is of a thread of it (-p, -t, --per-thread), a
	 * CPU's of the first */
	int nr_threads;
	struct perf_data_thread *threads;
	int pid;		/* the thread map's first, -1 system-wide */
	int aggr_mode;		/* AGGR_* */
	/* HEADER_NRCPUS's CPUs (0 when not said: the writer takes this
	 * machine's) and the places of as many, NULL without a topology */
	int nr_cpus_avail, nr_cpus_online;
	struct perf_data_place *place;
	__u64 interval_ms;	/* 0: no -I */
	bool scale;
	char *cmdline;		/* the command line, words joined by spaces */
	char hostname[65], osrelease[65], arch[65];
	char version[32];	/* "emon-perf X" or perf's */
};

/* Writing: one file, records appended, the header written at the end. */
struct perf_data_writer {
	FILE *f;
	FILE *body;		/* perf_data__defer's: the stats until the end */
	const char *path;
	__u64 data_start;
	int err;		/* the first failure, -errno */
};

/*
 * Create path (an existing one becomes path.old, as perf's), write the
 * header's room, the ids and attrs of d's events (each event's ids: one
 * per CPU, or one for a task, numbered from 1). 0 or -errno.
 */
int perf_data__create(struct perf_data_writer *w, const char *path,
		      struct perf_data_desc *d);
/* The records that describe the run, first in the data (the command's
 * pid known by then): event updates, thread and CPU maps, stat config. */
int perf_data__describe(struct perf_data_writer *w, const struct perf_data_desc *d);
/* The stats and rounds to a temporary file until perf_data__finish,
 * which writes the describing records first: a thread map known at the
 * end (--per-thread's threads, the ones that started later too). */
int perf_data__defer(struct perf_data_writer *w);
/* One counter's stat: event ev on the CPU map's idx, or for a task's
 * counters (no CPU map) the thread map's idx. */
void perf_data__stat(struct perf_data_writer *w, const struct perf_data_desc *d,
		     int ev, int idx, __u64 val, __u64 ena, __u64 run);
void perf_data__round(struct perf_data_writer *w, int type, __u64 time_ns);
/* The features after the data, and the header: 0 or -errno (the file
 * closed either way). */
int perf_data__finish(struct perf_data_writer *w, const struct perf_data_desc *d);

/* Reading: the whole file checked, then its rounds replayed. */
struct perf_data_stat {
	int ev;			/* index into desc.ev */
	int idx;		/* CPU map index (0 for a task's) */
	int thread;		/* thread map index (0 for a CPU's) */
	__u64 val, ena, run;
};
struct perf_data_round {
	int type;
	__u64 time;
	int nr;
	struct perf_data_stat *st;	/* the stats since the previous round */
};
struct perf_data_file {
	struct perf_data_desc d;
	int nr_rounds;
	struct perf_data_round *rounds;
	/* what made it unreadable: "truncated at offset 1234", into
	 * perf_data__read's one-line error */
	char why[128];
};

/* 0, -EINVAL (not a perf.data this reads: f->why says what), -errno. */
int perf_data__read(struct perf_data_file *f, const char *path);
void perf_data__free(struct perf_data_file *f);
void perf_data__desc_free(struct perf_data_desc *d);
/* perf's name of an attr with no name in the file (evsel__name's for
 * the hardware and software events; "raw 0x..." else) into buf */
const char *perf_data__attr_name(const struct perf_event_attr *a, char *buf,
				 size_t size);

#endif
