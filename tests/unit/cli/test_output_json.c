// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * JSON lines rendered into memory, parsed back with json-c against the
 * DESIGN.md contract (output_fix.h sets up the rows).
 */
#include "output_fix.h"

/* ---- JSON ---- */

#define JSON_MAX 16

static int json__lines(const char *out, struct json_object **objs, int max)
{
	const char *p = out, *nl;
	char line[4096];
	int n = 0;

	while (*p && n < max) {
		nl = strchr(p, '\n');
		assert_non_null(nl);	/* every object ends its line */
		assert_true((size_t)(nl - p) < sizeof(line));
		snprintf(line, sizeof(line), "%.*s", (int)(nl - p), p);
		objs[n] = json_tokener_parse(line);
		if (!objs[n])
			print_message("not JSON: %s\n", line);
		assert_non_null(objs[n]);
		n++;
		p = nl + 1;
	}
	return n;
}

static void json__put_all(struct json_object **objs, int n)
{
	while (n--)
		json_object_put(objs[n]);
}

/* The member name of obj, which must exist; NULL when it is null. */
static struct json_object *json__get(struct json_object *obj,
				     const char *name)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(obj, name, &v))
		print_message("missing \"%s\" in %s\n", name,
			      json_object_to_json_string(obj));
	assert_true(json_object_object_get_ex(obj, name, &v));
	return v;
}

static bool json__has(struct json_object *obj, const char *name)
{
	return json_object_object_get_ex(obj, name, NULL);
}

/* obj's member name: null when want is NAN, else want within 1e-9 */
static void json__want_near(struct json_object *obj, const char *name,
			    double want)
{
	struct json_object *v = json__get(obj, name);

	if (isnan(want))
		assert_null(v);
	else
		assert_true(fabs(json_object_get_double(v) - want) < 1e-9);
}

static void test_json_rows(void **state)
{
	static const struct {
		struct row r;
		enum json_type key_type;
		const char *key;	/* as a string, or the number's */
	} cases[] = {
		{ { .scope = SCOPE_SYSTEM, .key = "whatever" }, json_type_string,
		  "all" },
		/* time whose owner BPF estimated (a kernel hiding switches) */
		{ { .scope = SCOPE_SYSTEM, .key = "all",
		    .untraced_ns = 47971627 }, json_type_string, "all" },
		{ { .scope = SCOPE_CPU, .key = "12" }, json_type_int, "12" },
		{ { .scope = SCOPE_SOCKET, .key = "1" }, json_type_int, "1" },
		{ { .scope = SCOPE_CGROUP, .key = "/" }, json_type_string, "/" },
		{ { .scope = SCOPE_CGROUP, .key = "/system.slice/x.scope" },
		  json_type_string, "/system.slice/x.scope" },
		{ { .scope = SCOPE_CONTAINER, .key = "3f2a", .runtime = "docker" },
		  json_type_string, "3f2a" },
		{ { .scope = SCOPE_CONTAINER, .key = "9c", .runtime = "cri-o",
		    .pod_uid = "u-1" }, json_type_string, "9c" },
		{ { .scope = SCOPE_CONTAINER, .key = "9d", .runtime = "containerd",
		    .name = "n\033", .image = "redis:7", .ns = "kv", .pod = "cache-0",
		    .container = "redis" }, json_type_string, "9d" },
		{ { .scope = SCOPE_PROCESS, .key = "4321", .comm = "ba\"sh" },
		  json_type_int, "4321" },
		/* not a number: stays a string rather than becoming 0 */
		{ { .scope = SCOPE_PROCESS, .key = "overflow", .comm = "?" },
		  json_type_string, "overflow" },
		/* the command's pid */
		{ { .scope = SCOPE_COMMAND, .key = "42" }, json_type_int, "42" },
		/* pods: by name, by uid only; a namespace */
		{ { .scope = SCOPE_POD, .key = "kv/cache-0", .ns = "kv",
		    .pod = "cache-0", .pod_uid = "u-1" }, json_type_string,
		  "kv/cache-0" },
		{ { .scope = SCOPE_POD, .key = "u-2", .pod_uid = "u-2" },
		  json_type_string, "u-2" },
		{ { .scope = SCOPE_NAMESPACE, .key = "kv", .ns = "kv" },
		  json_type_string, "kv" },
		{ { .scope = SCOPE_NAMESPACE, .key = "host" }, json_type_string,
		  "host" },
	};
	struct json_object *objs[JSON_MAX], *obj, *v;
	struct row rows[ARRAY_SIZE(cases)];
	struct output o;
	char *out;
	size_t k;
	int n;

	(void)state;
	output__setup(&o, &output_json_ops);
	for (k = 0; k < ARRAY_SIZE(cases); k++)
		rows[k] = cases[k].r;
	out = render(&o, 3.25, 1.0, rows, ARRAY_SIZE(cases), 3.25);
	n = json__lines(out, objs, JSON_MAX);
	assert_int_equal(n, ARRAY_SIZE(cases));
	assert_int_equal(o.rows_printed, n);
	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		obj = objs[k];
		v = json__get(obj, "interval");
		assert_int_equal(json_object_get_type(v), json_type_double);
		assert_true(fabs(json_object_get_double(v) - 3.25) < 1e-9);
		assert_string_equal(json_object_get_string(json__get(obj, "scope")),
				    scope__name(cases[k].r.scope));
		v = json__get(obj, "key");
		assert_int_equal(json_object_get_type(v), cases[k].key_type);
		assert_string_equal(json_object_get_string(v), cases[k].key);
		assert_int_equal(json__has(obj, "comm"),
				 cases[k].r.scope == SCOPE_PROCESS);
		if (cases[k].r.comm)
			assert_string_equal(json_object_get_string(
				json__get(obj, "comm")), cases[k].r.comm);
		assert_int_equal(json__has(obj, "runtime"),
				 cases[k].r.scope == SCOPE_CONTAINER);
		assert_int_equal(json__has(obj, "pod_uid"),
				 cases[k].r.pod_uid != NULL ||
				 cases[k].r.scope == SCOPE_POD);
		/* a container's names, a pod's namespace and pod, a
		 * namespace's: null where unknown */
		for (size_t f = 0; f < 5; f++) {
			static const char *const names[] = {
				"name", "image", "namespace", "pod", "container" };
			const struct row *cr = &cases[k].r;
			const char *want = (const char *[]){ cr->name, cr->image,
				cr->ns, cr->pod, cr->container }[f];
			bool has = cr->scope == SCOPE_CONTAINER ||
				   (cr->scope == SCOPE_POD && (f == 2 || f == 3)) ||
				   (cr->scope == SCOPE_NAMESPACE && f == 2);

			assert_int_equal(json__has(obj, names[f]), has);
			if (!has)
				continue;
			v = json__get(obj, names[f]);
			if (want)
				assert_string_equal(json_object_get_string(v), want);
			else
				assert_null(v);
		}
		/* only where there was some: absent on kernels tracing all */
		assert_int_equal(json__has(obj, "untraced_ns"),
				 cases[k].r.untraced_ns != 0);
		if (cases[k].r.untraced_ns)
			assert_int_equal(json_object_get_int64(
				json__get(obj, "untraced_ns")), cases[k].r.untraced_ns);
		/* no energy source: no energy fields */
		assert_false(json__has(obj, "energy_j"));
		assert_false(json__has(obj, "epi_nj"));
		assert_false(json__has(obj, "energy_source"));
	}
	json__put_all(objs, n);
	free(out);
}

static void test_json_counters(void **state)
{
	struct json_object *objs[JSON_MAX], *counters, *ratio, *v;
	struct output o;
	struct row r;
	char *out;

	(void)state;
	output__setup(&o, &output_json_ops);
	o.nr_events = 4;
	o.ev[3] = (struct row_event){ "page-faults", true, false, 3 };
	row__setup(&r, SCOPE_CGROUP, "/a", 3 * SEC / 4, 0);
	/* ran 100 of 200 ns enabled, all in slices of 100 ns enabled (1001
	 * counted), none in the other 100 (unrun): 2002 estimated */
	r.counts.c[1] = (struct emon_count){ 1001, 200, 100, 100 };
	r.counts.c[3] = (struct emon_count){ 7, 300, 0, 300 };	/* never ran */
	out = render(&o, 1.0, 1.0, &r, 1, 1.0);
	assert_int_equal(json__lines(out, objs, JSON_MAX), 1);
	counters = json__get(objs[0], "counters");
	ratio = json__get(objs[0], "ratio");

	v = json__get(counters, "cpu-clock");	/* nanoseconds, integer */
	assert_int_equal(json_object_get_type(v), json_type_int);
	assert_int_equal(json_object_get_int64(v), 750000000);
	v = json__get(counters, "context-switches");
	assert_int_equal(json_object_get_type(v), json_type_int);
	assert_int_equal(json_object_get_int64(v), 2002);
	assert_null(json__get(counters, "cycles"));	/* not supported */
	assert_null(json__get(counters, "page-faults"));	/* not counted */

	v = json__get(ratio, "cpu-clock");
	assert_int_equal(json_object_get_type(v), json_type_double);
	assert_true(json_object_get_double(v) == 1.0);
	v = json__get(ratio, "context-switches");
	assert_int_equal(json_object_get_type(v), json_type_double);
	assert_true(json_object_get_double(v) == 0.5);
	assert_null(json__get(ratio, "cycles"));
	v = json__get(ratio, "page-faults");
	assert_true(json_object_get_double(v) == 0.0);
	json__put_all(objs, 1);
	free(out);
}

static void test_json_big_count(void **state)
{
	struct json_object *objs[JSON_MAX], *v;
	struct output o;
	struct row r;
	char *out;

	(void)state;
	output__setup(&o, &output_json_ops);
	row__setup(&r, SCOPE_SYSTEM, "all", SEC, 0);
	/* above 2^53 a double would print 9007199254740992 */
	r.counts.c[1] = (struct emon_count){ (1ULL << 53) + 1, 5, 5 };
	out = render(&o, 1.0, 1.0, &r, 1, 1.0);
	assert_non_null(strstr(out, "\"context-switches\":9007199254740993"));
	assert_int_equal(json__lines(out, objs, JSON_MAX), 1);
	v = json__get(json__get(objs[0], "counters"), "context-switches");
	assert_int_equal(json_object_get_int64(v), (1LL << 53) + 1);
	json__put_all(objs, 1);
	free(out);
}

static void test_json_energy(void **state)
{
	static const struct {
		bool hw;		/* cycles and instructions counted */
		double epi, ipc;	/* NAN: null */
	} cases[] = {
		{ false, NAN, NAN },
		{ true, 2.5, 2.5 },
	};
	struct json_object *objs[JSON_MAX], *v;
	struct output o;
	struct row r[3];
	size_t k;
	char *out;
	int n, i;

	(void)state;
	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		output__setup(&o, &output_json_ops);
		if (cases[k].hw)
			output__add_hw(&o);
		o.energy_source = "powercap";
		o.split_by = "cycles";
		rows__energy(r, 1);
		r[2] = r[1];
		r[2].has_energy = false;
		out = render(&o, 1.0, 1.0, r, 3, 1.0);
		n = json__lines(out, objs, JSON_MAX);
		assert_int_equal(n, 3);
		for (i = 0; i < 2; i++) {
			v = json__get(objs[i], "energy_j");
			assert_true(json_object_get_double(v) == 12.5);
			v = json__get(objs[i], "power_w");
			assert_true(json_object_get_double(v) == 12.49);
			json__want_near(objs[i], "epi_nj", cases[k].epi);
			json__want_near(objs[i], "ipc", cases[k].ipc);
		}
		/* the source is said once, on the system row */
		assert_string_equal(json_object_get_string(
			json__get(objs[0], "energy_source")), "powercap");
		assert_string_equal(json_object_get_string(
			json__get(objs[0], "split_by")), "cycles");
		assert_false(json__has(objs[1], "energy_source"));
		assert_false(json__has(objs[2], "energy_j"));
		assert_false(json__has(objs[2], "epi_nj"));
		json__put_all(objs, n);
		free(out);
	}
}

/* Keys escaped where JSON needs it only (paths stay greppable); bytes
 * that are not UTF-8 (a cgroup or comm can hold any) become U+FFFD,
 * control characters \u00XX: the line stays valid JSON. */
static void test_json_keys(void **state)
{
	static const struct {
		const char *key, *want;		/* want NULL: the key */
	} cases[] = {
		{ "/a/b" },
		{ "/quote\"d" },
		{ "/back\\slash" },
		{ "/new\nline" },
		{ "/tab\there" },
		{ "/caf\xc3\xa9" },
		{ "/bad\xff", "/bad\xef\xbf\xbd" },
		{ "/cut\xc3", "/cut\xef\xbf\xbd" },
		{ "/over\xc0\xaflong", "/over\xef\xbf\xbd\xef\xbf\xbdlong" },
		{ "/sur\xed\xa0\x80", "/sur\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "/ctl\x01\x1f\x7f", "/ctl\x01\x1f\x7f" },
		{ "/emoji\xf0\x9f\x94\xa5", "/emoji\xf0\x9f\x94\xa5" },
	};
	struct json_object *objs[JSON_MAX];
	struct row r[ARRAY_SIZE(cases)];
	struct output o;
	size_t k;
	char *out;
	int n;

	(void)state;
	output__setup(&o, &output_json_ops);
	for (k = 0; k < ARRAY_SIZE(cases); k++)
		row__setup(&r[k], SCOPE_CGROUP, cases[k].key, SEC, 1);
	out = render(&o, 1.0, 1.0, r, ARRAY_SIZE(cases), 1.0);
	assert_null(strstr(out, "\\/"));	/* paths stay greppable */
	assert_non_null(strstr(out, "\"key\":\"/a/b\""));
	assert_non_null(strstr(out, "\\u0001\\u001f\\u007f"));
	n = json__lines(out, objs, JSON_MAX);
	assert_int_equal(n, ARRAY_SIZE(cases));
	for (k = 0; k < ARRAY_SIZE(cases); k++)
		assert_string_equal(json_object_get_string(
			json__get(objs[k], "key")),
			cases[k].want ? cases[k].want : cases[k].key);
	json__put_all(objs, n);
	free(out);
}

static void test_json_no_begin_end(void **state)
{
	struct output o;
	char *out;

	(void)state;
	output__setup(&o, &output_json_ops);
	o.interval_mode = true;
	out = render(&o, 1.0, 1.0, NULL, 0, 1.0);
	assert_string_equal(out, "");
	assert_int_equal(o.rows_printed, 0);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_rows),
		cmocka_unit_test(test_json_counters),
		cmocka_unit_test(test_json_big_count),
		cmocka_unit_test(test_json_energy),
		cmocka_unit_test(test_json_keys),
		cmocka_unit_test(test_json_no_begin_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
