// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * -e lists: pmu_event_list__parse() on up to three NUL-separated lists
 * appended to one list, as repeated -e options are. Promises checked: the
 * list is all or nothing, never over EMON_MAX_EVENTS, names NUL-terminated
 * and short, attrs set up for counting, and an error always says why.
 */
#include <errno.h>
#include <stdbool.h>
#include "pmu/event.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmu_event_list l;
	char *spec[3], err[256];
	int i, n, nr, ret;

	memset(&l, 0, sizeof(l));
	n = fuzz__split(data, size, spec, 3);
	for (i = 0; i < n; i++) {
		nr = l.nr;
		err[0] = '\0';
		ret = pmu_event_list__parse(&l, spec[i], err, sizeof(err));
		FUZZ_ASSERT(l.nr >= 0 && l.nr <= EMON_MAX_EVENTS);
		if (ret) {
			FUZZ_ASSERT(ret == -EINVAL || ret == -E2BIG);
			FUZZ_ASSERT(l.nr == nr && err[0]);
			continue;
		}
		FUZZ_ASSERT(l.nr > nr);
	}
	for (i = 0; i < l.nr; i++) {
		const struct pmu_event *e = &l.ev[i];

		FUZZ_ASSERT(memchr(e->name, '\0', sizeof(e->name)));
		FUZZ_ASSERT(e->name[0]);
		FUZZ_ASSERT(!e->attr.sample_period && !e->attr.freq);
		FUZZ_ASSERT(e->attr.size == sizeof(e->attr));
		FUZZ_ASSERT(!e->fds && !e->supported);
	}
	fuzz__free(spec, n);
	return 0;
}
