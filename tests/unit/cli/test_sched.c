// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The scheduler view (--sched) outside BPF: its sums and differences, its
 * place in an encoded snapshot (EMON_SNAP_SCHED: present, absent, or lied
 * about), runqlat's histogram layout, the JSON and CSV fields, and the
 * Prometheus histogram.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "emon_proto.h"
#include "front/output.h"
#include "front/output_sched.h"
#include "cli/report/report.h"
#include "daemon/exporter/metrics.h"
#include "engine/snapshot/snapshot.h"
#include "helpers.h"

static void sched__fill(struct emon_sched *s, __u64 base)
{
	memset(s, 0, sizeof(*s));
	s->on_cpu_ns = base * 1000;
	s->runq_wait_ns = base * 100;
	s->sleep_ns = base * 10;
	s->blocked_ns = base;
	s->migrations = 1;
	s->wakeups = 2;
	s->vol_switches = 3;
	s->invol_switches = 4;
	s->hist[1] = base;	/* 2-3 us */
	s->hist[4] = 2;		/* 16-31 us */
	s->hist[EMON_SCHED_SLOTS - 1] = 1;
}

static void test_sums(void **state)
{
	struct emon_sched a, b, d;
	struct counts c1 = { 0 }, c2 = { 0 }, z = { 0 };

	(void)state;
	sched__fill(&a, 5);
	sched__fill(&b, 7);
	assert_int_equal(sched__waits(&a), 5 + 2 + 1);
	sched__delta(&d, &b, &a);
	assert_int_equal(d.on_cpu_ns, 2000);
	assert_int_equal(d.hist[1], 2);
	assert_int_equal(d.hist[4], 0);
	assert_int_equal(d.migrations, 0);
	sched__add(&d, &a);
	assert_memory_equal(&d, &b, sizeof(d));
	/* counts carry it: a process with only a scheduler view is no zero */
	c1.s = a;
	assert_false(counts__is_zero(&c1, 0));
	assert_true(counts__is_zero(&z, 0));
	counts__add(&c2, &c1, 0);
	counts__add(&c2, &c1, 0);
	assert_int_equal(c2.s.on_cpu_ns, 10000);
	counts__delta(&c2, &c2, &c1, 0);
	assert_memory_equal(&c2.s, &a, sizeof(a));
}

/* A snapshot of 1 CPU, 1 package, no keys, one event, by hand. */
static size_t snap__build(char *buf, bool sched_flag, bool sched_bytes)
{
	struct emon_snap_hdr *h = (struct emon_snap_hdr *)buf;
	char *p = buf + sizeof(*h);
	struct emon_sched s;

	memset(buf, 0, 8192);
	h->seq = 3;
	h->ncpus = 1;
	h->npkg = 1;
	h->nr_events = 1;
	h->flags = sched_flag ? EMON_SNAP_SCHED : 0;
	sched__fill(&s, 9);
	p += sizeof(struct emon_snap_cpu);
	((struct emon_count *)p)->counter = 77;
	p += sizeof(struct emon_count);
	if (sched_bytes) {
		memcpy(p, &s, sizeof(s));
		p += sizeof(s);
	}
	p += sizeof(struct emon_snap_pkg);
	for (int i = 0; i < EMON_SNAP_FIXED; i++) {
		struct emon_snap_entry *e = (struct emon_snap_entry *)p;

		e->name = EMON_NO_NAME;
		p += sizeof(*e) + sizeof(struct emon_count);
		if (sched_bytes) {
			s.blocked_ns = 100 + i;
			memcpy(p, &s, sizeof(s));
			p += sizeof(s);
		}
	}
	return p - buf;
}

static void test_snapshot_decode(void **state)
{
	int cpu_pkg[1] = { 0 }, pkg_id[1] = { 0 };
	struct snap_meta m = { .ncpus = 1, .npkg = 1, .nr_events = 1,
			       .cpu_pkg = cpu_pkg, .pkg_id = pkg_id, .sched_on = true };
	static char buf[8192];
	struct snapshot s;
	size_t len;

	(void)state;
	strcpy(m.ev_name[0], "cpu-clock");
	len = snap__build(buf, true, true);
	assert_int_equal(snapshot__decode(&s, &m, buf, len), 0);
	assert_true(s.sched);
	assert_int_equal(s.cpu[0].c[0].counter, 77);
	assert_int_equal(s.cpu[0].s.on_cpu_ns, 9000);
	assert_int_equal(s.cpu[0].s.hist[1], 9);
	assert_int_equal(s.ovf_proc.c.s.blocked_ns, 101);
	assert_int_equal(s.tree_ovf.c.s.blocked_ns, 100 + EMON_SNAP_TREE_OVF);
	snapshot__free(&s);
	/* without it: the same counts, no view */
	len = snap__build(buf, false, false);
	assert_int_equal(snapshot__decode(&s, &m, buf, len), 0);
	assert_false(s.sched);
	assert_int_equal(s.cpu[0].c[0].counter, 77);
	assert_int_equal(s.cpu[0].s.on_cpu_ns, 0);
	snapshot__free(&s);
	/* the flag without the bytes, the bytes without the flag */
	len = snap__build(buf, true, false);
	assert_int_equal(snapshot__decode(&s, &m, buf, len), -EBADMSG);
	len = snap__build(buf, false, true);
	assert_int_equal(snapshot__decode(&s, &m, buf, len), -EBADMSG);
}

static void test_hello(void **state)
{
	int cpu_pkg[1] = { 0 }, pkg_id[1] = { 0 };
	struct snap_meta m = { .ncpus = 1, .npkg = 1, .cpu_pkg = cpu_pkg,
			       .pkg_id = pkg_id, .sched_on = true, .sched_ms = true }, d;
	size_t len;
	void *buf;

	(void)state;
	assert_int_equal(snap_meta__encode(&m, &buf, &len), 0);
	assert_int_equal(snap_meta__decode(&d, buf, len), 0);
	assert_true(d.sched_on);
	assert_true(d.sched_ms);
	snap_meta__free(&d);
	m.sched_on = m.sched_ms = false;
	free(buf);
	assert_int_equal(snap_meta__encode(&m, &buf, &len), 0);
	assert_int_equal(snap_meta__decode(&d, buf, len), 0);
	assert_false(d.sched_on);
	snap_meta__free(&d);
	free(buf);
}

static char *hist__text(const struct emon_sched *s, bool ms)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	sched_hist__print(f, s, ms, "");
	fclose(f);
	return buf;
}

/* runqlat's layout, line for line (print_log2_hist, 40 stars) */
static void test_hist_layout(void **state)
{
	struct emon_sched s = { 0 };
	char *out;

	(void)state;
	out = hist__text(&s, false);
	assert_string_equal(out, "");	/* empty: nothing, as runqlat */
	free(out);
	s.hist[1] = 4;
	s.hist[3] = 8;
	out = hist__text(&s, false);
	assert_string_equal(out,
"     usecs               : count    distribution\n"
"         0 -> 1          : 0        |                                        |\n"
"         2 -> 3          : 4        |********************                    |\n"
"         4 -> 7          : 0        |                                        |\n"
"         8 -> 15         : 8        |****************************************|\n");
	free(out);
	out = hist__text(&s, true);
	assert_non_null(strstr(out, "     msecs               : count    distribution\n"));
	free(out);
	assert_int_equal(sched_hist__last(&s), 3);
	assert_int_equal(sched_hist__upper(0), 1);
	assert_int_equal(sched_hist__upper(3), 15);
}

static char *render_rows(struct output *o, const struct output_ops *ops,
			 const struct row *r)
{
	char *buf = NULL;
	size_t len = 0;

	memset(o, 0, sizeof(*o));
	o->ops = ops;
	o->sep = ",";
	o->nr_events = 1;
	o->ev[0] = (struct row_event){ "cpu-clock", true, true, 0 };
	o->sched = true;
	o->f = open_memstream(&buf, &len);
	assert_non_null(o->f);
	o->ops->begin(o);
	o->ops->interval(o, 1.0, 1.0, r, 1);
	o->ops->end(o, 1.0);
	fclose(o->f);
	return buf;
}

static void test_json_fields(void **state)
{
	struct row r = { .scope = SCOPE_CGROUP, .key = "/a" };
	struct json_object *obj, *s, *h, *pair;
	struct output o;
	char *out;

	(void)state;
	r.counts.c[0] = (struct emon_count){ 5, 0, 0 };
	sched__fill(&r.counts.s, 3);
	out = render_rows(&o, &output_json_ops, &r);
	obj = json_tokener_parse(out);
	assert_non_null(obj);
	assert_true(json_object_object_get_ex(obj, "sched", &s));
	for (int i = 0; i < SCHED_NR_FIELDS; i++) {
		struct json_object *v;

		assert_true(json_object_object_get_ex(s, sched_fields[i].name, &v));
		assert_int_equal(json_object_get_int64(v), sched_field__get(&r.counts.s, i));
	}
	assert_true(json_object_object_get_ex(s, "runq_latency_us", &h));
	/* every bucket up to the last non-empty one, [upper bound, count] */
	assert_int_equal(json_object_array_length(h), EMON_SCHED_SLOTS);
	pair = json_object_array_get_idx(h, 1);
	assert_int_equal(json_object_get_int64(json_object_array_get_idx(pair, 0)), 3);
	assert_int_equal(json_object_get_int64(json_object_array_get_idx(pair, 1)), 3);
	pair = json_object_array_get_idx(h, 4);
	assert_int_equal(json_object_get_int64(json_object_array_get_idx(pair, 0)), 31);
	assert_int_equal(json_object_get_int64(json_object_array_get_idx(pair, 1)), 2);
	json_object_put(obj);
	free(out);
	/* off: no "sched" at all */
	o.sched = false;
	out = NULL;
	{
		size_t len = 0;

		o.f = open_memstream(&out, &len);
		o.ops->interval(&o, 1.0, 1.0, &r, 1);
		fclose(o.f);
	}
	assert_null(strstr(out, "\"sched\""));
	free(out);
}

static void test_csv_fields(void **state)
{
	struct row r = { .scope = SCOPE_PROCESS, .key = "42", .comm = "sh" };
	struct output o;
	char *out;

	(void)state;
	sched__fill(&r.counts.s, 3);
	out = render_rows(&o, &output_csv_ops, &r);
	/* perf's -G layout, an empty cgroup, run, percentage and metric */
	assert_non_null(strstr(out, "\nsh-42,3000,ns,on_cpu_ns,,,,,\n"));
	assert_non_null(strstr(out, "\nsh-42,4,,invol_switches,,,,,\n"));
	free(out);
}

static void test_text_lines(void **state)
{
	struct row r = { .scope = SCOPE_SYSTEM, .key = "all" };
	struct output o;
	char *out;

	(void)state;
	sched__fill(&r.counts.s, 3000000);	/* 3,000 ms on CPU */
	out = render_rows(&o, &output_text_ops, &r);
	assert_non_null(strstr(out, "          3,000.00 msec on-cpu\n"));
	assert_non_null(strstr(out, "                 4      invol-switches\n"));
	assert_null(strstr(out, "distribution"));	/* no --sched-hist */
	free(out);
}

static void test_metrics_histogram(void **state)
{
	int cpu_pkg[1] = { 0 }, pkg_id[1] = { 0 };
	struct snap_meta m = { .ncpus = 1, .npkg = 1, .nr_events = 1,
			       .cpu_pkg = cpu_pkg, .pkg_id = pkg_id, .sched_on = true };
	struct metrics_opts mo = { 0 };
	bool online[1] = { true };
	struct counts cpu[1] = { 0 };
	struct snapshot s = { .ncpus = 1, .npkg = 1, .nr_events = 1, .online = online,
			      .cpu = cpu, .sched = true };
	struct metrics *mx;
	char *out;
	size_t len;

	(void)state;
	strcpy(m.ev_name[0], "cpu-clock");
	m.ev_is_time[0] = true;
	cpu[0].c[0] = (struct emon_count){ 1000, 0, 0 };
	sched__fill(&cpu[0].s, 3);
	assert_int_equal(metrics__new(&mx, &mo), 0);
	assert_int_equal(metrics__render(mx, &m, &s, NULL, false, &out, &len), 0);
	assert_non_null(strstr(out, "# TYPE emon_system_runqueue_latency_seconds histogram\n"));
	/* waits of 0-1 us are under 2 us; cumulative from there */
	assert_non_null(strstr(out, "emon_system_runqueue_latency_seconds_bucket{le=\"2e-06\"} 0\n"));
	assert_non_null(strstr(out, "emon_system_runqueue_latency_seconds_bucket{le=\"4e-06\"} 3\n"));
	assert_non_null(strstr(out, "emon_system_runqueue_latency_seconds_bucket{le=\"3.2e-05\"} 5\n"));
	assert_non_null(strstr(out, "emon_system_runqueue_latency_seconds_bucket{le=\"+Inf\"} 6\n"));
	assert_non_null(strstr(out, "emon_system_runqueue_latency_seconds_count 6\n"));
	assert_non_null(strstr(out, "emon_system_runqueue_latency_seconds_sum 0.0000003\n"));
	assert_non_null(strstr(out, "emon_system_migrations_total 1\n"));
	assert_non_null(strstr(out, "emon_system_blocked_seconds_total 0.000000003\n"));
	free(out);
	/* off: none of it */
	m.sched_on = false;
	assert_int_equal(metrics__render(mx, &m, &s, NULL, false, &out, &len), 0);
	assert_null(strstr(out, "runqueue"));
	free(out);
	metrics__free(mx);
}

/* report: a --sched recording adds three columns, summed over intervals;
 * a bad "sched" is a bad line, a recording without one has none */
static char *report__file(const char *text)
{
	static char path[] = "/tmp/test_sched.XXXXXX";
	int fd;

	strcpy(path, "/tmp/test_sched.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void test_report_columns(void **state)
{
	static const char rec[] =
"{\"interval\":1.0,\"scope\":\"cgroup\",\"key\":\"/a\",\"counters\":{\"cpu-clock\":1000000},"
"\"sched\":{\"runq_wait_ns\":2000000,\"sleep_ns\":3000000,\"blocked_ns\":0,\"runq_latency_us\":[]}}\n"
"{\"interval\":2.0,\"scope\":\"cgroup\",\"key\":\"/a\",\"counters\":{\"cpu-clock\":1000000},"
"\"sched\":{\"runq_wait_ns\":500000,\"sleep_ns\":0,\"blocked_ns\":250000,\"runq_latency_us\":[]}}\n";
	enum report_col cols[COL_NR];
	struct report r;
	char cell[64], *path;
	int n, found = 0;

	(void)state;
	path = report__file(rec);
	report__init(&r, path, &report_file_source);
	assert_int_equal(report__load(&r, NULL), 0);
	assert_int_equal(report__select(&r, SCOPE_CGROUP, 10), 0);
	n = report__columns(&r, cols);
	for (int c = 0; c < n; c++) {
		if (cols[c] != COL_RUNQ_MS && cols[c] != COL_SLEEP_MS &&
		    cols[c] != COL_BLOCKED_MS)
			continue;
		found++;
		report__cell(&r, r.sorted[0], cols[c], cell, sizeof(cell));
		assert_string_equal(cell, cols[c] == COL_RUNQ_MS ? "2.50" :
				    cols[c] == COL_SLEEP_MS ? "3.00" : "0.25");
	}
	assert_int_equal(found, 3);
	report__exit(&r);
	unlink(path);
	/* without --sched: no such columns */
	path = report__file("{\"interval\":1.0,\"scope\":\"cgroup\",\"key\":\"/a\",\"counters\":{\"cpu-clock\":1}}\n");
	report__init(&r, path, &report_file_source);
	assert_int_equal(report__load(&r, NULL), 0);
	assert_int_equal(report__select(&r, SCOPE_CGROUP, 10), 0);
	n = report__columns(&r, cols);
	for (int c = 0; c < n; c++)
		assert_true(cols[c] != COL_RUNQ_MS);
	report__exit(&r);
	unlink(path);
	/* a "sched" that is not an object, or a field that is not a number */
	path = report__file("{\"interval\":1.0,\"scope\":\"cgroup\",\"key\":\"/a\",\"counters\":{},\"sched\":7}\n");
	report__init(&r, path, &report_file_source);
	assert_int_not_equal(report__load(&r, NULL), 0);
	report__exit(&r);
	unlink(path);
	path = report__file("{\"interval\":1.0,\"scope\":\"cgroup\",\"key\":\"/a\",\"counters\":{},\"sched\":{\"sleep_ns\":\"x\"}}\n");
	report__init(&r, path, &report_file_source);
	assert_int_not_equal(report__load(&r, NULL), 0);
	report__exit(&r);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sums),
		cmocka_unit_test(test_snapshot_decode),
		cmocka_unit_test(test_hello),
		cmocka_unit_test(test_hist_layout),
		cmocka_unit_test(test_json_fields),
		cmocka_unit_test(test_csv_fields),
		cmocka_unit_test(test_text_lines),
		cmocka_unit_test(test_metrics_histogram),
		cmocka_unit_test(test_report_columns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
