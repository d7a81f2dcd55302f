/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the unit tests share: cmocka and what it needs included before it,
 * ARRAY_SIZE, SEC, and a table's cases run as cmocka tests of their own.
 * Each tests/unit/<layer>/test_X.c is a program of its own, so the
 * functions here are static.
 */
#ifndef EMON_TESTS_UNIT_HELPERS_H
#define EMON_TESTS_UNIT_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define SEC 1000000000ULL	/* a second, in ns */
/* a shared fixture's function that some of its tests do not call */
#define __maybe_unused __attribute__((unused))

/*
 * Runs the tests of fixed, then fn once a case of cases (nr of them, size
 * bytes each, named by the string at name_off in each) with the case as
 * its *state: every case is a test of its own, which a case failing
 * before it does not stop.
 */
static inline int tests__run(const struct CMUnitTest *fixed, size_t nfixed,
			     CMUnitTestFunction fn, const void *cases,
			     size_t nr, size_t size, size_t name_off)
{
	struct CMUnitTest *t = calloc(nfixed + nr, sizeof(*t));
	int ret;

	if (!t)
		return 1;
	if (nfixed)	/* fixed may be NULL with none */
		memcpy(t, fixed, nfixed * sizeof(*t));
	for (size_t i = 0; i < nr; i++) {
		const char *c = (const char *)cases + i * size;

		t[nfixed + i] = (struct CMUnitTest){
			.name = *(const char *const *)(c + name_off),
			.test_func = fn,
			.initial_state = (void *)c,
		};
	}
	ret = _cmocka_run_group_tests("tests", t, nfixed + nr, NULL, NULL);
	free(t);
	return ret;
}

/* cases: an array of structs, each named by its string member name */
#define run_tests_and_cases(fixed, fn, cases, name)			\
	tests__run(fixed, ARRAY_SIZE(fixed), fn, cases, ARRAY_SIZE(cases), \
		   sizeof((cases)[0]), offsetof(__typeof__((cases)[0]), name))

#endif
