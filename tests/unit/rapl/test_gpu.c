// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * GPU energy: the split of a GPU's joules by its processes' SM samples
 * (pure), and the source against the fake libnvidia-ml.so.1 the Makefile
 * builds (tests/fake-nvml/): its known ramp, its known split, NVML's
 * errors and a GPU lost mid-run.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "rapl/gpu.h"
#include "helpers.h"

#define J_EPS 1e-9

static double split_sum(const struct gpu_use *u, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += u[i].joules;
	return s;
}

/* Two processes in every period of four: 60% and 30%; the rest idle. */
static void test_split_shares(void **state)
{
	struct gpu_psample s[] = {
		{ 200, 30 }, { 100, 60 }, { 100, 60 }, { 200, 30 },
		{ 100, 60 }, { 200, 30 }, { 200, 30 }, { 100, 60 },
	};
	struct gpu_use out[8];
	double idle, util;
	size_t n;

	(void)state;
	assert_int_equal(gpu_split__compute(50.0, s, 8, out, &n, &idle, &util), 0);
	assert_int_equal(n, 2);
	assert_int_equal(out[0].pid, 100);
	assert_int_equal(out[1].pid, 200);
	assert_true(fabs(out[0].joules - 30.0) < J_EPS);
	assert_true(fabs(out[1].joules - 15.0) < J_EPS);
	assert_true(fabs(out[0].util - 0.6) < J_EPS);
	assert_true(fabs(idle - 5.0) < J_EPS);
	assert_true(fabs(util - 0.9) < J_EPS);
	assert_true(fabs(split_sum(out, n) + idle - 50.0) < J_EPS);
}

/* A period a process has no sample in counts 0 for it. */
static void test_split_missing_periods(void **state)
{
	struct gpu_psample s[] = {
		{ 7, 100 }, { 7, 100 }, { 7, 100 }, { 7, 100 }, { 9, 100 },
	};
	struct gpu_use out[5];
	double idle, util;
	size_t n;

	(void)state;
	assert_int_equal(gpu_split__compute(8.0, s, 5, out, &n, &idle, &util), 0);
	assert_int_equal(n, 2);
	/* four periods: pid 7 all of them, pid 9 one: 1 + 1/4, normalized */
	assert_true(fabs(out[0].joules - 8.0 * 0.8) < J_EPS);
	assert_true(fabs(out[1].joules - 8.0 * 0.2) < J_EPS);
	assert_true(idle == 0);
	assert_true(fabs(util - 1.0) < J_EPS);
	assert_true(fabs(split_sum(out, n) + idle - 8.0) < J_EPS);
}

static void test_split_edges(void **state)
{
	struct gpu_psample bad[] = { { 1, 101 } }, zero[] = { { 1, 0 }, { 2, 0 } };
	struct gpu_use out[4];
	double idle, util;
	size_t n;

	(void)state;
	/* no process: all of it idle */
	assert_int_equal(gpu_split__compute(3.0, NULL, 0, out, &n, &idle, &util), 0);
	assert_int_equal(n, 0);
	assert_true(idle == 3.0 && util == 0);
	/* processes at 0%: they get nothing, the GPU keeps it */
	assert_int_equal(gpu_split__compute(3.0, zero, 2, out, &n, &idle, &util), 0);
	assert_int_equal(n, 2);
	assert_true(out[0].joules == 0 && out[1].joules == 0 && idle == 3.0);
	assert_int_equal(gpu_split__compute(3.0, bad, 1, out, &n, &idle, &util), -EINVAL);
	assert_int_equal(gpu_split__compute(-1.0, zero, 2, out, &n, &idle, &util), -EINVAL);
	assert_int_equal(gpu_split__compute(NAN, zero, 2, out, &n, &idle, &util), -EINVAL);
}

static void test_use_merge(void **state)
{
	struct gpu_use all[4] = {}, a[] = { { 5, 1, 0.1 }, { 9, 2, 0.2 } },
		       b[] = { { 3, 4, 0.4 }, { 9, 8, 0.8 } };
	size_t n = 0;

	(void)state;
	assert_int_equal(gpu_use__merge(all, &n, 4, a, 2), 0);
	assert_int_equal(gpu_use__merge(all, &n, 4, b, 2), 0);
	assert_int_equal(n, 3);
	assert_int_equal(all[0].pid, 3);
	assert_int_equal(all[1].pid, 5);
	assert_int_equal(all[2].pid, 9);
	assert_true(all[2].joules == 10 && fabs(all[2].util - 1.0) < J_EPS);
	assert_int_equal(gpu_use__merge(all, &n, 3, (struct gpu_use[]){ { 1, 1, 0 } }, 1),
			 -ENOSPC);
}

/* --- the source on the fake library --------------------------------------- */

static char fake[4096];

static int find_fake(void)
{
	const char *o = getenv("OUTPUT");

	snprintf(fake, sizeof(fake), "%s/tests/fake-nvml/libnvidia-ml.so.1",
		 o && *o ? o : "build");
	return access(fake, R_OK) ? -1 : 0;
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void unset_fake(void)
{
	unsetenv("FAKE_NVML_GPUS");
	unsetenv("FAKE_NVML_PROCS");
	unsetenv("FAKE_NVML_LOST");
	unsetenv("FAKE_NVML_NO_UTIL");
	unsetenv("FAKE_NVML_INIT");
	unsetenv("FAKE_NVML_PERIOD_MS");
}

static void test_source_split(void **state)
{
	struct gpu_sample gs;
	struct gpu_source *s;
	char err[256] = "";
	double t0, t1;
	int e;

	(void)state;
	if (find_fake())
		skip();
	unset_fake();
	setenv("FAKE_NVML_GPUS", "250,100", 1);
	setenv("FAKE_NVML_PROCS", "0:4242:50,0:4343:25,1:4242:40", 1);
	setenv("FAKE_NVML_PERIOD_MS", "20", 1);
	s = gpu_source__open(fake, &e, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(gpu_source__nr(s), 2);
	assert_string_equal(gpu_source__name(s, 1), "Fake GPU 1");
	t0 = mono();
	assert_int_equal(gpu_source__read(s, 0, &gs), 0);
	assert_true(gs.baseline && !gs.gpu[0].valid && !gs.nr_use);
	usleep(300 * 1000);
	t1 = mono();
	assert_int_equal(gpu_source__read(s, t1 - t0, &gs), 0);
	assert_true(gs.gpu[0].valid && gs.gpu[1].valid);
	/* the ramp: 250 W and 100 W over the time between the reads */
	assert_true(fabs(gs.gpu[0].joules - 250 * (t1 - t0)) < 250 * 0.02 + 0.002);
	assert_true(fabs(gs.gpu[1].joules - 100 * (t1 - t0)) < 100 * 0.02 + 0.002);
	/* the split: exact shares of the measured joules */
	assert_int_equal(gs.nr_use, 2);
	assert_int_equal(gs.use[0].pid, 4242);
	assert_true(fabs(gs.use[0].joules - (0.5 * gs.gpu[0].joules + 0.4 * gs.gpu[1].joules)) < J_EPS);
	assert_true(fabs(gs.use[1].joules - 0.25 * gs.gpu[0].joules) < J_EPS);
	assert_true(fabs(gs.use[0].util - 0.9) < J_EPS);
	assert_true(fabs(gs.gpu[0].idle_j - 0.25 * gs.gpu[0].joules) < J_EPS);
	assert_true(fabs(gs.gpu[1].idle_j - 0.6 * gs.gpu[1].joules) < J_EPS);
	assert_true(fabs(gs.use[0].joules + gs.use[1].joules + gs.gpu[0].idle_j +
			 gs.gpu[1].idle_j - gs.gpu[0].joules - gs.gpu[1].joules) < J_EPS);
	assert_string_equal(gs.warning, "");
	gpu_source__close(s);
	unset_fake();
}

/* Reads four times as often as the driver samples: those that find no
 * new sample hold the last shares, so every read splits alike. */
static void test_source_hold(void **state)
{
	struct gpu_sample gs;
	struct gpu_source *s;
	char err[256] = "";
	int e;

	(void)state;
	if (find_fake())
		skip();
	unset_fake();
	setenv("FAKE_NVML_GPUS", "100", 1);
	setenv("FAKE_NVML_PROCS", "0:31337:80", 1);
	setenv("FAKE_NVML_PERIOD_MS", "200", 1);
	s = gpu_source__open(fake, &e, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(gpu_source__read(s, 0, &gs), 0);
	for (int k = 0; k < 16; k++) {
		usleep(50 * 1000);
		assert_int_equal(gpu_source__read(s, 0.05, &gs), 0);
		assert_true(gs.gpu[0].valid);
		assert_int_equal(gs.nr_use, 1);
		assert_true(fabs(gs.use[0].joules - 0.8 * gs.gpu[0].joules) < J_EPS);
		assert_true(fabs(gs.gpu[0].idle_j - 0.2 * gs.gpu[0].joules) < J_EPS);
	}
	gpu_source__close(s);
	unset_fake();
}

static void test_source_errors(void **state)
{
	struct gpu_sample gs;
	struct gpu_source *s;
	char err[256] = "";
	int e = 0;

	(void)state;
	if (find_fake())
		skip();
	unset_fake();
	/* no library */
	assert_null(gpu_source__open("/nonexistent/libnvidia-ml.so.1", &e, err, sizeof(err)));
	assert_int_equal(e, -ENOENT);
	assert_non_null(strstr(err, "cannot load /nonexistent/libnvidia-ml.so.1"));
	/* the driver not loaded: NVML's own words */
	setenv("FAKE_NVML_INIT", "9", 1);
	assert_null(gpu_source__open(fake, &e, err, sizeof(err)));
	assert_int_equal(e, -ENODEV);
	assert_string_equal(err, "NVML's init failed: Driver Not Loaded");
	unsetenv("FAKE_NVML_INIT");
	/* no GPU */
	assert_null(gpu_source__open(fake, &e, err, sizeof(err)));
	assert_int_equal(e, -ENOENT);
	assert_string_equal(err, "NVML found no GPU");
	/* more GPUs than counted: said at the first read */
	setenv("FAKE_NVML_GPUS", "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1", 1);
	s = gpu_source__open(fake, &e, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(gpu_source__nr(s), GPU_MAX);
	assert_int_equal(gpu_source__read(s, 0, &gs), 0);
	assert_non_null(strstr(gs.warning, "NVML has 18 GPUs: only the first 16 are counted"));
	gpu_source__close(s);
	/* GPU 0 lost after 0.2 s, GPU 1 without per-process samples */
	setenv("FAKE_NVML_GPUS", "300,200", 1);
	setenv("FAKE_NVML_PROCS", "0:77:100,1:77:100", 1);
	setenv("FAKE_NVML_LOST", "0:0.2", 1);
	setenv("FAKE_NVML_NO_UTIL", "1", 1);
	setenv("FAKE_NVML_PERIOD_MS", "10", 1);
	s = gpu_source__open(fake, &e, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(gpu_source__read(s, 0, &gs), 0);
	/* said at the first read that met it, once */
	assert_non_null(strstr(gs.warning, "GPU 1 (Fake GPU 1): no per-process utilization (Not Supported)"));
	usleep(50 * 1000);
	assert_int_equal(gpu_source__read(s, 0.05, &gs), 0);
	assert_true(gs.gpu[0].valid && gs.gpu[1].valid);
	/* GPU 1's energy has no process to go to: all of it stays on it */
	assert_true(gs.gpu[1].idle_j == gs.gpu[1].joules && gs.gpu[1].util == 0);
	assert_int_equal(gs.nr_use, 1);
	assert_string_equal(gs.warning, "");
	usleep(250 * 1000);
	assert_int_equal(gpu_source__read(s, 0.25, &gs), 0);
	/* lost: unknown, not 0 J, and said once */
	assert_true(!gs.gpu[0].valid && gs.gpu[0].lost);
	assert_true(gs.gpu[1].valid);
	assert_int_equal(gs.nr_use, 0);
	assert_non_null(strstr(gs.warning, "GPU 0 (Fake GPU 0): lost (GPU is lost)"));
	assert_int_equal(gpu_source__read(s, 0.01, &gs), 0);
	assert_true(!gs.gpu[0].valid && gs.gpu[0].lost);
	assert_string_equal(gs.warning, "");
	gpu_source__close(s);
	unset_fake();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_shares),
		cmocka_unit_test(test_split_missing_periods),
		cmocka_unit_test(test_split_edges),
		cmocka_unit_test(test_use_merge),
		cmocka_unit_test(test_source_split),
		cmocka_unit_test(test_source_hold),
		cmocka_unit_test(test_source_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
