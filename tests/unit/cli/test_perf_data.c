// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * front/perf_data.c: the layouts' sizes are perf 6.1's (a file perf
 * reads is byte for byte these), a file written then read back gives the
 * same events, names, units, CPUs, config, rounds and counts (and the
 * CPUs' places of the topology features, their lists perf's), a
 * truncated or foreign file is refused with where it went wrong, and
 * stat report's --per-socket needs the topology.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/stat/stat.h"
#include "front/perf_data.h"
#include "helpers.h"

static void test_layout_sizes(void **state)
{
	(void)state;
	/* perf 6.1: header.h, lib/perf/include/perf/event.h */
	assert_int_equal(sizeof(struct perf_file_header), 104);
	assert_int_equal(sizeof(struct perf_file_section), 16);
	assert_int_equal(sizeof(struct perf_record_stat), 48);
	assert_int_equal(sizeof(struct perf_record_stat_round), 24);
	assert_int_equal(sizeof(struct perf_record_thread_map_entry), 24);
	assert_int_equal(sizeof(struct perf_record_stat_config_entry), 16);
	assert_int_equal(sizeof(struct perf_record_event_update), 24);
}

static void fill(struct perf_data_desc *d, bool task)
{
	memset(d, 0, sizeof(*d));
	d->nr_events = 2;
	snprintf(d->ev[0].name, sizeof(d->ev[0].name), "cpu-clock");
	d->ev[0].attr.type = PERF_TYPE_SOFTWARE;
	d->ev[0].attr.config = PERF_COUNT_SW_CPU_CLOCK;
	snprintf(d->ev[0].unit, sizeof(d->ev[0].unit), "msec");
	d->ev[0].scale = 1e-6;
	snprintf(d->ev[1].name, sizeof(d->ev[1].name), "{my,odd}:name");
	d->ev[1].attr.type = PERF_TYPE_RAW;
	d->ev[1].attr.config = 0x1234;
	d->ev[1].scale = 1;
	d->nr_cpus = task ? 0 : 3;
	d->cpus[0] = 0;
	d->cpus[1] = 2;		/* not a range: the CPUS encoding */
	d->cpus[2] = 5;
	d->pid = task ? 4242 : -1;
	d->aggr_mode = task ? AGGR_GLOBAL : AGGR_NONE;
	d->interval_ms = task ? 0 : 100;
	d->scale = true;
	/* 6 CPUs: S0 has 0-2 (0 and 1 one core), S1 3-5 on die 1, 4 offline */
	d->nr_cpus_avail = task ? 0 : 6;
	d->nr_cpus_online = 5;
	d->place = task ? NULL : calloc(6, sizeof(*d->place));
	for (int c = 0; !task && c < 6; c++)
		d->place[c] = c == 4 ? (struct perf_data_place){ -1, -1, -1, -1 } :
			      (struct perf_data_place){ c / 3, c / 3, c == 1 ? 0 : c, c / 3 };
	d->cmdline = calloc(1, 64);
	memcpy(d->cmdline, "emon-perf\0stat\0record\0--\0sleep\0" "1\0", 33);
	snprintf(d->hostname, sizeof(d->hostname), "host");
	snprintf(d->version, sizeof(d->version), "emon-perf test");
}

static void write_file(const char *path, struct perf_data_desc *d)
{
	struct perf_data_writer w;
	int n = d->nr_cpus ?: 1;

	assert_int_equal(perf_data__create(&w, path, d), 0);
	assert_int_equal(perf_data__describe(&w, d), 0);
	for (int round = 1; round <= 2; round++) {
		for (int e = 0; e < d->nr_events; e++)
			for (int i = 0; i < n; i++)
				perf_data__stat(&w, d, e, i, round * (1000 * e + 10 * i + 7),
						round * 100000, round * (i == 1 ? 50000 : 100000));
		perf_data__round(&w, d->interval_ms ? PERF_STAT_ROUND_TYPE__INTERVAL :
				 PERF_STAT_ROUND_TYPE__FINAL, round * 100000000ULL);
	}
	assert_int_equal(perf_data__finish(&w, d), 0);
}

static void round_trip(bool task)
{
	char path[] = "/tmp/emon-perf-data-XXXXXX";
	int fd = mkstemp(path), n;
	struct perf_data_desc d;
	struct perf_data_file f;

	assert_true(fd >= 0);
	close(fd);
	fill(&d, task);
	write_file(path, &d);
	assert_int_equal(perf_data__read(&f, path), 0);
	n = task ? 1 : 3;
	assert_int_equal(f.d.nr_events, 2);
	assert_string_equal(f.d.ev[0].name, "cpu-clock");
	assert_string_equal(f.d.ev[1].name, "{my,odd}:name");
	assert_string_equal(f.d.ev[0].unit, "msec");
	assert_true(f.d.ev[0].scale == 1e-6);
	assert_true(f.d.ev[1].scale == 1);
	assert_int_equal(f.d.ev[1].attr.type, PERF_TYPE_RAW);
	assert_int_equal(f.d.ev[1].attr.config, 0x1234);
	assert_int_equal(f.d.ev[0].nr_ids, n);
	assert_int_equal(f.d.nr_cpus, task ? 0 : 3);
	if (!task) {
		assert_int_equal(f.d.cpus[1], 2);
		assert_int_equal(f.d.cpus[2], 5);
	}
	assert_int_equal(f.d.pid, task ? 4242 : -1);
	assert_int_equal(f.d.aggr_mode, task ? AGGR_GLOBAL : AGGR_NONE);
	assert_int_equal(f.d.interval_ms, task ? 0 : 100);
	assert_string_equal(f.d.cmdline, "emon-perf stat record -- sleep 1");
	assert_string_equal(f.d.hostname, "host");
	assert_string_equal(f.d.version, "emon-perf test");
	if (task) {
		assert_null(f.d.place);
	} else {
		assert_int_equal(f.d.nr_cpus_avail, 6);
		assert_int_equal(f.d.nr_cpus_online, 5);
		assert_non_null(f.d.place);
		for (int c = 0; c < 6; c++) {
			assert_int_equal(f.d.place[c].socket, d.place[c].socket);
			assert_int_equal(f.d.place[c].die, d.place[c].die);
			assert_int_equal(f.d.place[c].core, d.place[c].core);
			assert_int_equal(f.d.place[c].node, d.place[c].node);
		}
	}
	assert_int_equal(f.nr_rounds, 2);
	for (int k = 0; k < 2; k++) {
		const struct perf_data_round *r = &f.rounds[k];

		assert_int_equal(r->type, task ? PERF_STAT_ROUND_TYPE__FINAL :
					  PERF_STAT_ROUND_TYPE__INTERVAL);
		assert_int_equal(r->time, (k + 1) * 100000000ULL);
		assert_int_equal(r->nr, 2 * n);
		for (int j = 0; j < r->nr; j++) {
			const struct perf_data_stat *s = &r->st[j];

			assert_int_equal(s->val, (k + 1) * (1000 * s->ev + 10 * s->idx + 7));
			assert_int_equal(s->ena, (k + 1) * 100000);
			assert_int_equal(s->run, (k + 1) * (s->idx == 1 ? 50000 : 100000));
		}
	}
	perf_data__free(&f);
	perf_data__desc_free(&d);
	unlink(path);
	unlink(path);
}

static void test_round_trip_cpus(void **state)
{
	(void)state;
	round_trip(false);
}

static void test_round_trip_task(void **state)
{
	(void)state;
	round_trip(true);
}

static char *slurp(const char *path, long *size)
{
	FILE *in = fopen(path, "r");
	char *buf;

	assert_non_null(in);
	fseek(in, 0, SEEK_END);
	*size = ftell(in);
	rewind(in);
	buf = malloc(*size + 1);
	assert_int_equal(fread(buf, 1, *size, in), *size);
	buf[*size] = '\0';
	fclose(in);
	return buf;
}

/* a string of a feature: __u32 len (64), the string, NULs to 64 */
static bool has_string(const char *buf, long size, const char *s)
{
	char want[4 + 64] = { 64 };

	snprintf(want + 4, 64, "%s", s);
	return memmem(buf, size, want, sizeof(want)) != NULL;
}

/* stat report's exit status, its output (stderr) to out or thrown away */
static int report_to(int argc, char **argv, const char *out)
{
	int saved = dup(2), null = open(out ?: "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int ret;

	fflush(stderr);
	dup2(null, 2);
	ret = stat__report(argc, argv);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(null);
	return ret;
}

static int report_quiet(int argc, char **argv)
{
	return report_to(argc, argv, NULL);
}

/*
 * perf's sibling lists, which perf report --header prints: a package's
 * and a die's CPUs ("0-2", "3,5": the offline 4 in none), a core's ("0-1",
 * "2"), a node's (perf's numa list); and stat report's --per-socket of a
 * file without the topology: exit 2.
 */
static void test_topology(void **state)
{
	char path[] = "/tmp/emon-perf-data-XXXXXX";
	char *argv[] = { "report", "--per-socket", "-i", path, NULL };
	int fd = mkstemp(path);
	struct perf_data_desc d;
	long size;
	char *buf;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	fill(&d, false);
	write_file(path, &d);
	buf = slurp(path, &size);
	assert_true(has_string(buf, size, "0-2"));
	assert_true(has_string(buf, size, "3,5"));
	assert_true(has_string(buf, size, "0-1"));
	assert_true(has_string(buf, size, "2"));
	assert_false(has_string(buf, size, "3-5"));
	free(buf);
	assert_int_equal(report_quiet(4, argv), 0);
	perf_data__desc_free(&d);
	/* no topology */
	fill(&d, false);
	free(d.place);
	d.place = NULL;
	write_file(path, &d);
	assert_int_equal(report_quiet(4, argv), 2);
	argv[1] = "-A";
	assert_int_equal(report_quiet(4, argv), 0);
	perf_data__desc_free(&d);
	unlink(path);
}

/*
 * --per-thread's: the stats deferred until the end, when the thread map
 * is known; read back, each stat is of its thread (the CPU "-1"), the map
 * has the tids and comms, and stat report prints a row per thread; a
 * stat of a thread the map lacks is refused.
 */
static void test_threads(void **state)
{
	char path[] = "/tmp/emon-perf-data-XXXXXX";
	char *argv[] = { "report", "-i", path, NULL };
	int fd = mkstemp(path);
	struct perf_data_writer w;
	struct perf_data_desc d;
	struct perf_data_file f;
	long size;
	char *buf;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	fill(&d, true);
	d.aggr_mode = AGGR_THREAD;
	assert_int_equal(perf_data__create(&w, path, &d), 0);
	assert_int_equal(perf_data__defer(&w), 0);
	/* a thread seen later joins the map; the map is written first */
	d.threads = calloc(3, sizeof(*d.threads));
	for (int t = 0; t < 3; t++) {
		d.threads[t].tid = 100 + t;
		snprintf(d.threads[t].comm, sizeof(d.threads[t].comm), "thr %d", t);
		d.nr_threads = t + 1;
		for (int e = 0; e < d.nr_events; e++)
			for (int i = 0; i <= t; i++)
				perf_data__stat(&w, &d, e, i, 10 * i + e + t, 1000, i == 2 ? 0 : 1000);
		perf_data__round(&w, PERF_STAT_ROUND_TYPE__FINAL, 1000);
	}
	assert_int_equal(perf_data__finish(&w, &d), 0);
	assert_int_equal(perf_data__read(&f, path), 0);
	assert_int_equal(f.d.nr_threads, 3);
	assert_int_equal(f.d.pid, 100);
	assert_int_equal(f.d.aggr_mode, AGGR_THREAD);
	assert_int_equal(f.d.threads[2].tid, 102);
	assert_string_equal(f.d.threads[1].comm, "thr 1");
	assert_int_equal(f.nr_rounds, 3);
	assert_int_equal(f.rounds[2].nr, 2 * 3);
	for (int j = 0; j < f.rounds[2].nr; j++) {
		const struct perf_data_stat *st = &f.rounds[2].st[j];

		assert_int_equal(st->idx, 0);
		assert_int_equal(st->val, 10 * st->thread + st->ev + 2);
		assert_int_equal(st->run, st->thread == 2 ? 0 : 1000);
	}
	perf_data__free(&f);
	assert_int_equal(report_quiet(3, argv), 0);
	/* the map cut to 2 threads: thread 2's stats name none of it */
	buf = slurp(path, &size);
	for (long off = 0; off + 16 < size; off += 8) {
		__u32 type;
		__u64 nr;

		memcpy(&type, buf + off, 4);
		memcpy(&nr, buf + off + 8, 8);
		if (type == PERF_RECORD_THREAD_MAP && nr == 3) {
			nr = 2;
			memcpy(buf + off + 8, &nr, 8);
			break;
		}
	}
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, buf, size), size);
	close(fd);
	assert_int_equal(perf_data__read(&f, path), -EINVAL);
	assert_non_null(strstr(f.why, "thread"));
	free(buf);
	perf_data__desc_free(&d);
	unlink(path);
}

/*
 * -G's file: a cgroup's event has its total as the first CPU's stat and
 * none on the others; one whose cgroup never ran has ena and run 0 (as
 * perf's): stat report -x, sums the one, and the other is <not counted>.
 */
static void test_cgroup_stats(void **state)
{
	char path[] = "/tmp/emon-perf-data-XXXXXX", out[64];
	char *argv[] = { "report", "-x,", "-i", path, NULL };
	int fd = mkstemp(path);
	struct perf_data_writer w;
	struct perf_data_desc d;
	long size;
	char *buf;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	snprintf(out, sizeof(out), "%s.out", path);
	fill(&d, false);
	d.interval_ms = 0;
	d.aggr_mode = AGGR_GLOBAL;
	assert_int_equal(perf_data__create(&w, path, &d), 0);
	assert_int_equal(perf_data__describe(&w, &d), 0);
	perf_data__stat(&w, &d, 0, 0, 0, 0, 0);
	perf_data__stat(&w, &d, 1, 0, 4242, 1000, 1000);
	perf_data__round(&w, PERF_STAT_ROUND_TYPE__FINAL, 1000000);
	assert_int_equal(perf_data__finish(&w, &d), 0);
	assert_int_equal(report_to(4, argv, out), 0);
	buf = slurp(out, &size);
	assert_non_null(strstr(buf, "<not counted>,msec,cpu-clock,"));
	assert_non_null(strstr(buf, "4242,,\"{my,odd}:name\",1000,"));
	free(buf);
	perf_data__desc_free(&d);
	unlink(out);
	unlink(path);
}

/* every cut of a good file is refused, and says where */
static void test_truncated(void **state)
{
	char path[] = "/tmp/emon-perf-data-XXXXXX", cut[64];
	int fd = mkstemp(path);
	struct perf_data_desc d;
	struct perf_data_file f;
	char *buf;
	long size;
	FILE *in;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	fill(&d, false);
	write_file(path, &d);
	in = fopen(path, "r");
	assert_non_null(in);
	fseek(in, 0, SEEK_END);
	size = ftell(in);
	rewind(in);
	buf = malloc(size);
	assert_int_equal(fread(buf, 1, size, in), size);
	fclose(in);
	snprintf(cut, sizeof(cut), "%s.cut", path);
	for (long n = 0; n < size; n += 7) {
		FILE *o = fopen(cut, "w");

		fwrite(buf, 1, n, o);
		fclose(o);
		assert_int_equal(perf_data__read(&f, cut), -EINVAL);
		assert_non_null(f.why[0] ? f.why : NULL);
	}
	/* a foreign file: no magic */
	buf[0] ^= 0xff;
	in = fopen(cut, "w");
	fwrite(buf, 1, size, in);
	fclose(in);
	assert_int_equal(perf_data__read(&f, cut), -EINVAL);
	assert_non_null(strstr(f.why, "PERFILE2"));
	free(buf);
	perf_data__desc_free(&d);
	unlink(cut);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_sizes),
		cmocka_unit_test(test_round_trip_cpus),
		cmocka_unit_test(test_round_trip_task),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_topology),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_cgroup_stats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
