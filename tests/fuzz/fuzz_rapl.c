// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The pure parsers of energy files: rapl__parse_u64() (energy_uj,
 * max_energy_range_uj), perf_power__parse_config() (events/energy-pkg),
 * perf_power__parse_cpus() (cpumask) into an array of exactly max entries,
 * and rapl__delta_uj() on two parsed values.
 *
 * Input: TEXT \0 TEXT2-OR-MAX-BYTE. Promises: a u64 parses only from
 * digits (one '\n' allowed at the end) and reads back the same; a config
 * is at most 0xff; a CPU list returns at most max entries, each >= 0; a
 * delta is the step, or range - prev + 1 + cur after a wrap.
 */
#include <errno.h>
#include <inttypes.h>
#include "rapl/energy.h"
#include "tests/fuzz/fuzz.h"

static void check_u64(const char *s)
{
	char back[32];
	const char *digits = s;
	__u64 v;
	int ret = rapl__parse_u64(s, &v);
	size_t n;

	if (ret) {
		FUZZ_ASSERT(ret == -EINVAL || ret == -ERANGE);
		return;
	}
	n = strspn(s, "0123456789");
	FUZZ_ASSERT(n && (!s[n] || (s[n] == '\n' && !s[n + 1])));
	while (*digits == '0' && n > 1) {
		digits++;
		n--;
	}
	snprintf(back, sizeof(back), "%" PRIu64, (uint64_t)v);
	FUZZ_ASSERT(strlen(back) == n && !strncmp(back, digits, n));
}

static void check_cpus(const char *s, int max)
{
	int *cpus = malloc((max ? max : 1) * sizeof(*cpus));
	int i, n;

	if (!cpus)
		abort();
	n = perf_power__parse_cpus(s, cpus, max);
	FUZZ_ASSERT(n == -EINVAL || n == -E2BIG || (n >= 1 && n <= max));
	for (i = 0; i < n; i++)
		FUZZ_ASSERT(cpus[i] >= 0);
	free(cpus);
}

static void check_delta(const char *a, const char *b)
{
	__u64 prev, cur, delta;

	if (rapl__parse_u64(a, &prev) || rapl__parse_u64(b, &cur))
		return;
	if (rapl__delta_uj(prev, cur, 0, &delta) == 0)
		FUZZ_ASSERT(delta == cur - prev && cur >= prev);
	/* the larger as the range: a wrap, or a plain step */
	if (!rapl__delta_uj(prev, cur, prev > cur ? prev : cur, &delta))
		FUZZ_ASSERT(delta == (cur >= prev ? cur - prev : cur + 1));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *f[3];
	__u64 config;
	int n;

	n = fuzz__split(data, size, f, 3);
	check_u64(f[0]);
	if (!perf_power__parse_config(f[0], &config))
		FUZZ_ASSERT(config <= 0xff);
	check_cpus(f[0], n > 1 && f[1][0] ? (unsigned char)f[1][0] : 64);
	if (n > 1)
		check_delta(f[0], f[1]);
	fuzz__free(f, n);
	return 0;
}
