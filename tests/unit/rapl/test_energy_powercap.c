// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The powercap source on fake sysfs trees (energy_tree.h): zones, their
 * domains, wraps and resets, zones named as packages.
 */
#include "energy_tree.h"

/* --- powercap ------------------------------------------------------------- */

/* A file of a zone written before a read: its energy_uj, or garbage. */
struct zone_write {
	const char *zone;	/* under the powercap root; NULL: no more */
	unsigned long long uj;
	const char *text;	/* written instead of uj */
	bool remove;		/* energy_uj removed instead */
};

/* One check of a read's sample; pkg is a package's index. */
enum sample_check {
	END,
	BASELINE,	/* s.baseline == v */
	PACKAGES,	/* s.nr_packages == v */
	VALID,		/* the package's valid == v */
	JOULES,		/* its joules, within J_EPS */
	HAS_PSYS,	/* s.has_psys == v */
	PSYS_VALID,	/* s.psys_valid == v */
	PSYS_J,		/* s.psys_j, within J_EPS */
	DOM_MASK,	/* the package's dom_mask == v */
	DOM_VALID,	/* its dom_valid == v */
	DOM_J,		/* its dom_j[dom], within J_EPS */
	DOM_LOST,	/* dom not in its dom_valid */
	DOM_KEPT,	/* dom in its dom_valid */
	WARNS,		/* text in s.warning */
	NOT_WARNS,	/* text not in it */
	QUIET,		/* no warning */
};

struct sample_want {
	enum sample_check check;
	int pkg;
	double v;
	const char *text;
	int dom;
};

/* A read of the source: the files written before it, its interval, what
 * its sample must hold. */
struct read_step {
	const char *what;
	struct zone_write set[5];
	double dt;
	struct sample_want want[16];
};

static void sample__check(const struct energy_sample *s,
			  const struct sample_want *w, size_t n)
{
	for (; n-- && w->check != END; w++) {
		const struct energy_pkg_sample *p = &s->pkg[w->pkg];

		switch (w->check) {
		case END:
			break;
		case BASELINE:
			assert_int_equal(s->baseline, w->v);
			break;
		case PACKAGES:
			assert_int_equal(s->nr_packages, w->v);
			break;
		case VALID:
			assert_int_equal(p->valid, w->v);
			break;
		case JOULES:
			assert_float_equal(p->joules, w->v, J_EPS);
			break;
		case HAS_PSYS:
			assert_int_equal(s->has_psys, w->v);
			break;
		case PSYS_VALID:
			assert_int_equal(s->psys_valid, w->v);
			break;
		case PSYS_J:
			assert_float_equal(s->psys_j, w->v, J_EPS);
			break;
		case DOM_MASK:
			assert_int_equal(p->dom_mask, w->v);
			break;
		case DOM_VALID:
			assert_int_equal(p->dom_valid, w->v);
			break;
		case DOM_J:
			assert_float_equal(p->dom_j[w->dom], w->v, J_EPS);
			break;
		case DOM_LOST:
			assert_int_equal(p->dom_valid & (1 << w->dom), 0);
			break;
		case DOM_KEPT:
			assert_true(p->dom_valid & (1 << w->dom));
			break;
		case WARNS:
			assert_non_null(strstr(s->warning, w->text));
			break;
		case NOT_WARNS:
			assert_null(strstr(s->warning, w->text));
			break;
		case QUIET:
			assert_string_equal(s->warning, "");
			break;
		}
	}
}

/* Each step's writes, a read, its checks; the steps' names printed. */
static void read_steps(struct tree *t, struct energy_source *src,
		       const struct read_step *step, size_t n)
{
	struct energy_sample s;
	char path[PATH_MAX];

	for (; n--; step++) {
		const struct zone_write *w = step->set;

		print_message("%s\n", step->what);
		for (; w < step->set + ARRAY_SIZE(step->set) && w->zone; w++) {
			pathf(path, "%s/%s/energy_uj", t->pc, w->zone);
			if (w->remove)
				assert_int_equal(unlink(path), 0);
			else if (w->text)
				put(w->text, "%s", path);
			else
				put_u64(w->uj, "%s", path);
		}
		assert_int_equal(energy_source__read(src, step->dt, NULL, &s), 0);
		sample__check(&s, step->want, ARRAY_SIZE(step->want));
	}
}

#define ALL_DOMS (1 << ENERGY_DOM_CORE | 1 << ENERGY_DOM_UNCORE | \
		  1 << ENERGY_DOM_DRAM)

static void test_powercap_tree(void **state)
{
	static const struct read_step steps[] = {
		{ "baseline: nothing valid; the zone left out is reported once",
		  .dt = 0, .want = {
			{ BASELINE, .v = true },
			{ PACKAGES, .v = 2 },
			{ VALID, 0, false },
			{ VALID, 1, false },
			{ HAS_PSYS, .v = true },
			{ PSYS_VALID, .v = false },
			{ WARNS, .text = "intel-rapl:1:1/energy_uj" },
		} },
		{ "plain interval", .set = {
			{ "intel-rapl:0", 600000 },	/* +0.5 J */
			{ "intel-rapl:0/intel-rapl:0:0", 251000 },
			{ "intel-rapl:1", 750000 },
			{ "intel-rapl:2", RANGE / 2 },	/* +0.5 J: half a lap */
		  }, .dt = 1, .want = {
			{ BASELINE, .v = false },
			{ QUIET },
			{ VALID, 0, true },
			{ VALID, 1, true },
			{ JOULES, 0, 0.5 },
			{ JOULES, 1, 0.25 },
			{ DOM_MASK, 0, ALL_DOMS },
			{ DOM_VALID, 0, ALL_DOMS },
			{ DOM_J, 0, 0.25, .dom = ENERGY_DOM_CORE },
			{ DOM_J, 0, 0, .dom = ENERGY_DOM_DRAM },
			{ DOM_MASK, 1, 1 << ENERGY_DOM_CORE },
			{ PSYS_VALID, .v = true },
			{ PSYS_J, .v = 0.5 },
		} },
		{ "across the wrap: 600000 -> RANGE -> 0 -> 99999 is 0.5 J",
		  .set = { { "intel-rapl:0", 99999 } }, .dt = 1, .want = {
			{ JOULES, 0, 0.5 },
			{ JOULES, 1, 0 },
			{ VALID, 1, true },
		} },
		{ "garbage in package 1: invalid and said once; package 0 goes on",
		  .set = {
			{ "intel-rapl:1", .text = "12ab\n" },
			{ "intel-rapl:0", 199999 },
		  }, .dt = 1, .want = {
			{ VALID, 0, true },
			{ JOULES, 0, 0.1 },
			{ VALID, 1, false },
			{ JOULES, 1, 0 },
			{ WARNS, .text = "intel-rapl:1/energy_uj: not a number" },
		} },
		{ "... said once", .dt = 1, .want = {
			{ VALID, 1, false },
			{ QUIET },
		} },
		{ "back: the first good value is a new baseline, not a jump",
		  .set = { { "intel-rapl:1", 900000 } }, .dt = 1, .want = {
			{ VALID, 1, false },
		} },
		{ "... from which the next interval counts",
		  .set = { { "intel-rapl:1", 950000 } }, .dt = 1, .want = {
			{ VALID, 1, true },
			{ JOULES, 1, 0.05 },
		} },
		{ "a sub-zone vanishing: only its domain is lost", .set = {
			{ "intel-rapl:0", 599999 },
			{ "intel-rapl:0/intel-rapl:0:0", .remove = true },
		  }, .dt = 1, .want = {
			{ VALID, 0, true },
			{ JOULES, 0, 0.4 },
			{ DOM_LOST, 0, .dom = ENERGY_DOM_CORE },
			{ DOM_KEPT, 0, .dom = ENERGY_DOM_UNCORE },
			{ WARNS, .text = "intel-rapl:0:0/energy_uj" },
		} },
		{ "a value above max_energy_range_uj is garbage too",
		  .set = { { "intel-rapl:0", RANGE + 1 } }, .dt = 1, .want = {
			{ VALID, 0, false },
			{ VALID, 1, true },
			{ WARNS, .text = "intel-rapl:0/energy_uj: 1000001 after 599999" },
		} },
	};
	struct tree *t = *state;
	struct energy_source *src;
	char err[256];
	int e;

	fake__put(t, TWO_PACKAGES);
	src = open_tree(t, "powercap", 5, &e, err, sizeof(err));
	if (!src)
		fail_msg("open: %d %s", e, err);
	assert_int_equal(e, 0);
	assert_string_equal(energy_source__name(src), "powercap");
	assert_false(energy_source__is_estimated(src));
	assert_int_equal(energy_source__nr_packages(src), 2);
	assert_int_equal(energy_source__package_of_cpu(src, 1), 0);
	assert_int_equal(energy_source__package_of_cpu(src, 3), 1);
	assert_int_equal(energy_source__package_of_cpu(src, 4), -1);
	assert_int_equal(energy_source__package_of_cpu(src, 5), -1);
	assert_int_equal(energy_source__package_of_cpu(src, -1), -1);
	assert_int_equal(energy_source__package_id(src, 1), 1);
	assert_int_equal(energy_source__nr_cpus_of_package(src, 0), 2);
	read_steps(t, src, steps, ARRAY_SIZE(steps));
	energy_source__close(src);
}

/*
 * A reset is not a wrap: energy_uj dropping to a small value gives no
 * energy that interval, one warning naming the file for the whole run, and
 * the next interval counts from the new value. A wrap within half a lap
 * still counts (fake-rapl's 40 J lap at 20 W, read every 250 ms); one past
 * it cannot be told from a reset; a jump no zone can draw is refused.
 * cpu0 -> package 0 (a real counter range), cpu1 -> package 1 (40 J).
 */
static void test_powercap_reset(void **state)
{
	static const struct read_step steps[] = {
		{ "baseline", .dt = 0, .want = { { QUIET } } },
		{ "20 W for 250 ms; package 1 wraps: 39.9 J -> 40 J -> 0 -> 4.9 J",
		  .set = {
			{ "intel-rapl:0", 35000000 },
			{ "intel-rapl:1", 4900000 },
			{ "intel-rapl:2", 6000000 },
		  }, .dt = 0.25, .want = {
			{ QUIET },
			{ VALID, 0, true },
			{ JOULES, 0, 5 },
			{ VALID, 1, true },
			{ JOULES, 1, 5.000001 },
			{ PSYS_VALID, .v = true },
		} },
		{ "package 0 reset: no energy, not a lap's worth; package 1 goes on",
		  .set = {
			{ "intel-rapl:0", 1000 },
			{ "intel-rapl:1", 9900000 },
			{ "intel-rapl:2", 11000000 },
		  }, .dt = 0.25, .want = {
			{ VALID, 0, false },
			{ JOULES, 0, 0 },
			{ VALID, 1, true },
			{ JOULES, 1, 5 },
			{ WARNS, .text = "/intel-rapl:0/energy_uj: 1000 after 35000000 (range 262143328850): a counter reset, not a wrap" },
			{ WARNS, .text = "no package energy this interval" },
			{ NOT_WARNS, .text = "intel-rapl:1" },
			{ NOT_WARNS, .text = "\n" },
		} },
		{ "re-baselined at 1000 uJ: the next interval is right",
		  .set = { { "intel-rapl:0", 5001000 } }, .dt = 0.25, .want = {
			{ QUIET },
			{ VALID, 0, true },
			{ JOULES, 0, 5 },
		} },
		{ "a second reset: no energy again, said once for the run",
		  .set = { { "intel-rapl:0", 0 } }, .dt = 0.25, .want = {
			{ VALID, 0, false },
			{ QUIET },
		} },
		{ "... and the next interval right again",
		  .set = { { "intel-rapl:0", 5000000 } }, .dt = 0.25, .want = {
			{ VALID, 0, true },
			{ JOULES, 0, 5 },
		} },
		{ "psys jumps 2 kJ in 250 ms (8 kW): within half its lap, refused",
		  .set = { { "intel-rapl:2", 11000000 + 2000000000ULL } },
		  .dt = 0.25, .want = {
			{ HAS_PSYS, .v = true },
			{ PSYS_VALID, .v = false },
			{ VALID, 0, true },
			{ WARNS, .text = "/intel-rapl:2/energy_uj: 2011000000 after 11000000" },
			{ WARNS, .text = "a jump, not energy (2000.0 J in 0.250 s): no psys energy" },
		} },
		{ "... and psys counts from the jump",
		  .set = { { "intel-rapl:2", 2016000000ULL } }, .dt = 0.25, .want = {
			{ PSYS_VALID, .v = true },
			{ PSYS_J, .v = 5 },
		} },
		/* 9.9 J -> 40 J -> 0 -> 0.5 J is 30.6 J, no more believable
		 * than a reset to 0.5 J */
		{ "package 1 wraps past half its lap",
		  .set = { { "intel-rapl:1", 500000 } }, .dt = 0.25, .want = {
			{ VALID, 1, false },
			{ WARNS, .text = "/intel-rapl:1/energy_uj: 500000 after 9900000 (range 40000000): a counter reset, not a wrap (30.6 J in 0.250 s)" },
		} },
		{ "... and package 1 counts from there",
		  .set = { { "intel-rapl:1", 5500000 } }, .dt = 0.25, .want = {
			{ VALID, 1, true },
			{ JOULES, 1, 5 },
		} },
	};
	struct tree *t = *state;
	struct energy_source *src;

	fake__put(t, RESETS);
	src = open_ok(t, "powercap", 2);
	read_steps(t, src, steps, ARRAY_SIZE(steps));
	energy_source__close(src);
}

/* Zones are packages by their name, not their number; dies add up; a
 * package with no CPU still gets its energy; auto picks powercap. */
static void test_powercap_names(void **state)
{
	static const struct read_step steps[] = {
		{ "the zones left out, said", .dt = 0, .want = {
			{ WARNS, .text = "intel-rapl:4/energy_uj" },
			{ WARNS, .text = "package-x" },
			{ WARNS, .text = "intel-rapl:6/name" },
			{ WARNS, .text = "intel-rapl:7/max_energy_range_uj" },
		} },
		{ "dies added up, a package with no CPU", .set = {
			{ "intel-rapl:0", 100 },
			{ "intel-rapl:1", 200 },
			{ "intel-rapl:2", 1000 },
			{ "intel-rapl:3", 4000 },
			{ "intel-rapl:7", 400 },	/* backwards, range unknown */
		  }, .dt = 1, .want = {
			{ PACKAGES, .v = 4 },
			{ JOULES, 0, 0.001 },
			{ JOULES, 1, 0.0003 },
			{ JOULES, 2, 0.004 },
			{ VALID, 2, true },
			{ VALID, 3, false },
			{ WARNS, .text = "400 after 500" },
		} },
	};
	struct tree *t = *state;
	struct energy_source *src;

	fake__put(t, NAMES);
	src = open_ok(t, "auto", 2);
	assert_string_equal(energy_source__name(src), "powercap");
	assert_int_equal(energy_source__nr_packages(src), 4);
	assert_int_equal(energy_source__package_id(src, 2), 2);
	assert_int_equal(energy_source__nr_cpus_of_package(src, 2), 0);
	assert_int_equal(energy_source__package_of_cpu(src, 1), 1);
	read_steps(t, src, steps, ARRAY_SIZE(steps));
	energy_source__close(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_powercap_tree, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_powercap_reset, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_powercap_names, tree_setup, tree_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
