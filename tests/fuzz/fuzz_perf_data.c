// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A perf.data made of the input, read by front/perf_data_read.c and
 * printed by `emon-perf stat report -i FILE` (and with -x,, and with
 * --per-core or --per-node: the topology's groups). The file is
 * a memfd opened by its /proc/self/fd path, so nothing touches the disk.
 *
 * Promises: the reader returns 0, -EINVAL with why set, or -ENOMEM; a
 * file read has 1 to 64 events and at least one round, and every stat of
 * a round names one of its events and a CPU of its CPU map (the first for
 * a task's), and a thread of its thread map (the first for a CPU's);
 * stat report's exit status is 0, 2 (bad input) or 1 (memory).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>
#include "cli/stat/stat.h"
#include "front/perf_data.h"
#include "tests/fuzz/fuzz.h"

static void check_read(const char *path)
{
	struct perf_data_file f;
	int err = perf_data__read(&f, path);

	if (err) {
		FUZZ_ASSERT(err == -ENOMEM || (err == -EINVAL && f.why[0]));
		return;
	}
	FUZZ_ASSERT(f.d.nr_events >= 1 && f.d.nr_events <= PERF_DATA_MAX_EVENTS);
	FUZZ_ASSERT(f.nr_rounds >= 1);
	FUZZ_ASSERT(f.d.nr_cpus >= 0 && f.d.nr_cpus <= PERF_DATA_MAX_CPUS);
	for (int k = 0; k < f.nr_rounds; k++)
		for (int j = 0; j < f.rounds[k].nr; j++) {
			const struct perf_data_stat *s = &f.rounds[k].st[j];

			FUZZ_ASSERT(s->ev >= 0 && s->ev < f.d.nr_events);
			FUZZ_ASSERT(s->idx >= 0 && s->idx < (f.d.nr_cpus ?: 1));
			FUZZ_ASSERT(s->thread >= 0 &&
				    s->thread < (f.d.nr_cpus ? 1 : f.d.nr_threads ?: 1));
		}
	perf_data__free(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], *argv[] = { "report", "-i", path, NULL, NULL };
	int fd, ret;

	fd = memfd_create("perf.data", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	check_read(path);
	ret = stat__report(3, argv);
	FUZZ_ASSERT(ret == 0 || ret == 2 || ret == 1);
	argv[3] = "-x,";
	ret = stat__report(4, argv);
	FUZZ_ASSERT(ret == 0 || ret == 2 || ret == 1);
	/* the file's CPU topology's groups */
	argv[3] = size && data[0] & 1 ? "--per-core" : "--per-node";
	ret = stat__report(4, argv);
	FUZZ_ASSERT(ret == 0 || ret == 2 || ret == 1);
	close(fd);
	return 0;
}
