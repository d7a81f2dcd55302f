// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf report --prometheus on a range query's answer made of the
 * input: the matrix (json-c parsed, as the client hands it over) goes to
 * one scope and family picked by the first byte (and as its own peaks
 * when a counter in it goes down), then both passes
 * (report__prom_sum, report__load_series), the choice of scope, and the
 * text table and HTML page written to /dev/null. The second byte picks
 * the step, the third the number of steps.
 *
 * Promises: sum returns 0, -EINVAL (with a message) or -ENODATA; totals
 * are never NaN nor negative (increases only; huge values may sum to
 * inf, shown as such); the table and page
 * are written without error.
 */
#include <errno.h>
#include <math.h>
#include "cli/report/report_prom.h"
#include "tests/fuzz/fuzz.h"

static void report__check_sums(const struct report *r)
{
	for (int s = 0; s < SCOPE_NR; s++) {
		for (int i = 0; i < r->tab[s].nr; i++) {
			const struct report_key *k = &r->tab[s].keys[i];

			FUZZ_ASSERT(!isnan(k->energy_j) && k->energy_j >= 0);
			for (int c = 0; c < RC_NR; c++)
				FUZZ_ASSERT(!isnan(k->count[c]) && k->count[c] >= 0);
		}
	}
}

static void report__run(struct json_object *res, int pick, double step, int n)
{
	const struct report_prom_scope *ps = &report_prom_scopes[pick % REPORT_PROM_SCOPES];
	enum report_fam fam = (pick / REPORT_PROM_SCOPES) % RF_NR;
	struct report r;
	int err;

	report__init(&r, "http://fuzz:9090", &report_prom_source);
	FUZZ_ASSERT(!report__prom_window(&r, 1000, step, n));
	FUZZ_ASSERT(!report__prom_add(&r, ps->scope, fam, json_object_get(res)));
	/* the same matrix as its own peaks: resets take the gain path */
	if (report__prom_resets(&r, ps->scope, fam))
		FUZZ_ASSERT(!report__prom_add_peaks(&r, ps->scope, fam, json_object_get(res)) ||
			    !json_object_is_type(res, json_type_array));
	err = report__prom_sum(&r);
	if (err) {
		FUZZ_ASSERT(err == -EINVAL || err == -ENODATA);
		FUZZ_ASSERT(r.err[0]);
		goto out;
	}
	report__check_sums(&r);
	if (report__select(&r, -1, 10))
		goto out;	/* only system or socket keys */
	FUZZ_ASSERT(!report__print_text(&r, fuzz__devnull()));
	FUZZ_ASSERT(!report__load_series(&r));
	FUZZ_ASSERT(!report__write_html(&r, fuzz__devnull()));
out:
	report__exit(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_object *res;
	char *text;

	if (size < 3)
		return 0;
	text = fuzz__str(data + 3, size - 3);
	res = json_tokener_parse(text);
	if (res)
		report__run(res, data[0], 1 + data[1] % 60, 1 + data[2] % 40);
	json_object_put(res);
	free(text);
	return 0;
}
