// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --energy values: energy_model__parse() on "IDLE_W:MAX_W", the whole
 * --energy SOURCE through energy_source__open_opts() (with roots that do
 * not exist, so nothing of this machine is probed), and the model's
 * joules for a busy time taken from the input.
 *
 * Input: VALUE \0 BUSY-BYTES (8 bytes, a double of ns). Promises: a parsed
 * model has finite 0 <= idle <= max, max > 0; its joules over dt lie in
 * [idle x dt, max x dt]; a bad source is -EINVAL with a message.
 */
#include <errno.h>
#include <math.h>
#include "rapl/energy.h"
#include "tests/fuzz/fuzz.h"

static void check_model(const char *arg, const char *busy_bytes, size_t n)
{
	double idle, max, busy = 0, j, dt = 0.5;
	int ret = energy_model__parse(arg, &idle, &max);

	if (ret) {
		FUZZ_ASSERT(ret == -EINVAL);
		return;
	}
	FUZZ_ASSERT(isfinite(idle) && isfinite(max));
	FUZZ_ASSERT(idle >= 0 && idle <= max && max > 0);
	if (n >= sizeof(busy))
		memcpy(&busy, busy_bytes, sizeof(busy));
	j = energy_model__joules(idle, max, busy, 2, dt);
	FUZZ_ASSERT(!isnan(j));
	/* inf only when the watts themselves overflow once multiplied */
	FUZZ_ASSERT(!isfinite(j) || (j >= idle * dt * (1 - 1e-12) &&
				     j <= max * dt * (1 + 1e-12)));
}

static void check_source(const char *spec)
{
	struct energy_opts o = {
		.spec = spec,
		.powercap_root = "/nonexistent/emon-fuzz/powercap",
		.cpu_root = "/nonexistent/emon-fuzz/cpu",
		.perf_pmu_root = "/nonexistent/emon-fuzz/power",
		.ncpus = 2,
	};
	struct energy_source *s;
	char err[256];
	int ret;

	err[0] = '\0';
	s = energy_source__open_opts(&o, &ret, err, sizeof(err));
	/* no CPU topology under the fake root: no source can open */
	FUZZ_ASSERT(!s);
	FUZZ_ASSERT(ret <= 0);
	if (ret == -EINVAL)
		FUZZ_ASSERT(!strncmp(err, "bad --energy value", 18));
	FUZZ_ASSERT(memchr(err, '\0', sizeof(err)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *arg = fuzz__str(data, size);
	size_t len = strlen(arg);
	const char *rest = (const char *)data + len + 1;

	check_model(arg, rest, len < size ? size - len - 1 : 0);
	check_source(arg);
	free(arg);
	return 0;
}
