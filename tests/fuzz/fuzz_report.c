// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf report on a recording made of the input: both passes of the
 * JSON-lines reader (report__load, report__load_series), the choice of
 * scope, and the text table and HTML page written to /dev/null, as
 * `emon-perf report FILE --html OUT` runs them. The recording is a memfd
 * opened by its /proc/self/fd path, so nothing touches the disk.
 *
 * Promises: load returns 0 or one of its documented errors, always with a
 * message; a loaded recording has rows, sorted distinct interval ends and
 * a finite duration; the table and page are written without error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <sys/mman.h>
#include <unistd.h>
#include "cli/report/report.h"
#include "tests/fuzz/fuzz.h"

static void report__check_loaded(const struct report *r)
{
	int i;

	FUZZ_ASSERT(r->nr_rows > 0 && r->nr_times > 0);
	FUZZ_ASSERT(isfinite(r->duration) && r->duration >= 0);
	for (i = 1; i < r->nr_times; i++)
		FUZZ_ASSERT(r->times[i - 1] < r->times[i]);
	FUZZ_ASSERT(r->times[r->nr_times - 1] == r->duration);
}

static void report__run(const char *path, int scope, int top)
{
	struct report r;
	int err;

	report__init(&r, path, &report_file_source);
	err = report__load(&r, NULL);
	if (err) {
		FUZZ_ASSERT(err == -EINVAL || err == -ENODATA);
		FUZZ_ASSERT(r.err[0]);
		goto out;
	}
	report__check_loaded(&r);
	err = report__select(&r, scope, top);
	if (err) {
		FUZZ_ASSERT(err == -ENOENT && r.err[0]);
		goto out;
	}
	FUZZ_ASSERT(r.top >= 1 && r.top <= r.nr_sorted);
	FUZZ_ASSERT(!report__print_text(&r, fuzz__devnull()));
	err = report__load_series(&r);
	FUZZ_ASSERT(!err);
	FUZZ_ASSERT(!report__write_html(&r, fuzz__devnull()));
out:
	report__exit(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd, scope = -1, top = 10;

	/* the last byte, when it is not text, picks the scope and --top */
	if (size && data[size - 1] >= 0x80) {
		scope = (data[size - 1] & 0x7) % (SCOPE_NR + 1) - 1;
		top = (data[size - 1] >> 3) & 0xf;
		size--;
	}
	fd = memfd_create("recording", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	report__run(path, scope, top);
	close(fd);
	return 0;
}
