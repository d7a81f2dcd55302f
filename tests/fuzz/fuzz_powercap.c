// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The powercap backend end to end on a fake tree whose files hold the
 * input: zone names, energy_uj before and after an interval, ranges, CPU
 * package ids. Missing fields are missing files (a zone that vanished).
 * The tree lives under $TMPDIR (tests/run.sh gives each run its own).
 *
 * Input, NUL-separated fields:
 *   0 intel-rapl:0/name          1 intel-rapl:0/energy_uj (baseline)
 *   2 intel-rapl:0/max_energy_range_uj
 *   3 intel-rapl:0/intel-rapl:0:0/name   4 its energy_uj (baseline)
 *   5 intel-rapl:1/name          6 intel-rapl:1/energy_uj (baseline)
 *   7 cpu0 physical_package_id (missing: "0")  8 cpu1's
 *   9, 10, 11: energy_uj of 1, 4, 6 for the second read
 * Promises: open fails with a message or gives 1..ENERGY_MAX_PACKAGES
 * packages; the baseline read has no valid energy; afterwards every valid
 * package and domain has finite joules >= 0; warnings are terminated.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rapl/energy.h"
#include "tests/fuzz/fuzz.h"

#define NR_FIELDS 12

static char top[PATH_MAX - 128];

static const char *const files[] = {
	[0] = "pc/intel-rapl:0/name",
	[1] = "pc/intel-rapl:0/energy_uj",
	[2] = "pc/intel-rapl:0/max_energy_range_uj",
	[3] = "pc/intel-rapl:0/intel-rapl:0:0/name",
	[4] = "pc/intel-rapl:0/intel-rapl:0:0/energy_uj",
	[5] = "pc/intel-rapl:1/name",
	[6] = "pc/intel-rapl:1/energy_uj",
	[7] = "cpu/cpu0/topology/physical_package_id",
	[8] = "cpu/cpu1/topology/physical_package_id",
};

static const char *const dirs[] = {
	"pc", "pc/intel-rapl:0", "pc/intel-rapl:0/intel-rapl:0:0",
	"pc/intel-rapl:1", "cpu", "cpu/cpu0", "cpu/cpu0/topology",
	"cpu/cpu1", "cpu/cpu1/topology",
};

static int rm_one(const char *path, const struct stat *st, int type,
		  struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

static void tree__remove(void)
{
	if (top[0])
		nftw(top, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	char path[PATH_MAX];
	size_t i;

	(void)argc;
	(void)argv;
	snprintf(top, sizeof(top), "%s/emon-fuzz-powercap.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(top))
		abort();
	atexit(tree__remove);
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", top, dirs[i]);
		if (mkdir(path, 0755))
			abort();
	}
	return 0;
}

/* file = s, or no file when s is NULL */
static void file__set(const char *rel, const char *s)
{
	char path[PATH_MAX];
	size_t len;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	if (!s) {
		unlink(path);
		return;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		abort();
	len = strlen(s);
	if (write(fd, s, len) != (ssize_t)len)
		abort();
	close(fd);
}

static void sample__check(const struct energy_sample *es, int nr_packages)
{
	int p, d;

	FUZZ_ASSERT(es->nr_packages == nr_packages);
	FUZZ_ASSERT(memchr(es->warning, '\0', sizeof(es->warning)));
	FUZZ_ASSERT(!es->psys_valid || (isfinite(es->psys_j) && es->psys_j >= 0));
	for (p = 0; p < nr_packages; p++) {
		const struct energy_pkg_sample *ps = &es->pkg[p];

		FUZZ_ASSERT(!es->baseline || (!ps->valid && !ps->dom_valid));
		if (ps->valid)
			FUZZ_ASSERT(isfinite(ps->joules) && ps->joules >= 0);
		FUZZ_ASSERT(!(ps->dom_valid & ~ps->dom_mask));
		for (d = 0; d < ENERGY_DOM_NR; d++)
			if (ps->dom_valid & (1U << d))
				FUZZ_ASSERT(isfinite(ps->dom_j[d]) &&
					    ps->dom_j[d] >= 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *f[NR_FIELDS], pc[PATH_MAX], cpu[PATH_MAX], pmu[PATH_MAX];
	struct energy_opts o = { .spec = "powercap", .ncpus = 2 };
	struct energy_sample es;
	struct energy_source *s;
	char err[256];
	int i, n, ret, nr;

	n = fuzz__split(data, size, f, NR_FIELDS);
	for (i = 0; i < 9; i++)
		file__set(files[i], i < n ? f[i] : i == 7 ? "0\n" : NULL);
	snprintf(pc, sizeof(pc), "%s/pc", top);
	snprintf(cpu, sizeof(cpu), "%s/cpu", top);
	snprintf(pmu, sizeof(pmu), "%s/no-power-pmu", top);
	o.powercap_root = pc;
	o.cpu_root = cpu;
	o.perf_pmu_root = pmu;

	err[0] = '\0';
	s = energy_source__open_opts(&o, &ret, err, sizeof(err));
	if (!s) {
		FUZZ_ASSERT(ret < 0 && err[0]);
		goto out;
	}
	FUZZ_ASSERT(!ret);
	nr = energy_source__nr_packages(s);
	FUZZ_ASSERT(nr >= 1 && nr <= ENERGY_MAX_PACKAGES);
	for (i = 0; i < 2; i++)
		FUZZ_ASSERT(energy_source__package_of_cpu(s, i) < nr);
	FUZZ_ASSERT(!energy_source__read(s, 1.0, NULL, &es));
	FUZZ_ASSERT(es.baseline);
	sample__check(&es, nr);
	file__set(files[1], n > 9 ? f[9] : NULL);
	file__set(files[4], n > 10 ? f[10] : NULL);
	file__set(files[6], n > 11 ? f[11] : NULL);
	FUZZ_ASSERT(!energy_source__read(s, 1.0, NULL, &es));
	FUZZ_ASSERT(!es.baseline);
	sample__check(&es, nr);
	energy_source__close(s);
out:
	fuzz__free(f, n);
	return 0;
}
