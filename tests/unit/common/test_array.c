// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The growable array (common/array.h): capacities, kept contents, refusals. */
#include <errno.h>
#include <stdint.h>
#include "common/array.h"
#include "helpers.h"

struct grow_case {
	const char *what;
	size_t cap;		/* before; the array holds cap elements then */
	size_t need, elem;
	int err;
	size_t want_cap;	/* after (cap when refused) */
};

static const struct grow_case cases[] = {
	{ "empty, room for one", 0, 1, sizeof(int), 0, ARRAY_MIN_CAP },
	{ "empty, none asked: still an array", 0, 0, sizeof(int), 0, ARRAY_MIN_CAP },
	{ "empty, past the first capacity", 0, 17, sizeof(int), 0, 32 },
	{ "empty, a power of two exactly", 0, 64, sizeof(long long), 0, 64 },
	{ "enough already", 32, 32, sizeof(int), 0, 32 },
	{ "fewer than it has", 32, 3, sizeof(int), 0, 32 },
	{ "one more doubles", 32, 33, sizeof(int), 0, 64 },
	{ "far more doubles until it fits", 16, 1000, sizeof(short), 0, 1024 },
	{ "odd capacity doubles from itself", 3, 4, sizeof(int), 0, 6 },
	{ "elements of 0 bytes", 0, 4, 0, -EINVAL, 0 },
	{ "elements past SIZE_MAX bytes", 16, 17, SIZE_MAX / 16, -EOVERFLOW, 16 },
	{ "capacity past SIZE_MAX", 16, SIZE_MAX, sizeof(char), -EOVERFLOW, 16 },
};

static void test_grow(void **state)
{
	const struct grow_case *c = *state;
	size_t cap = c->cap, fill = c->cap * c->elem;
	unsigned char *arr = NULL, *before;

	if (c->elem > SIZE_MAX / 2 / (c->cap + 1))
		fill = 1;	/* a stand-in: the refusal must not touch it */
	if (fill) {
		arr = malloc(fill);
		assert_non_null(arr);
		for (size_t i = 0; i < fill; i++)
			arr[i] = (unsigned char)i;
	}
	before = arr;
	assert_int_equal(array__grow(&arr, &cap, c->need, c->elem), c->err);
	assert_int_equal(cap, c->want_cap);
	if (c->err)
		assert_ptr_equal(arr, before);	/* untouched */
	else
		assert_non_null(arr);
	for (size_t i = 0; i < fill; i++)	/* what it held, kept */
		assert_int_equal(arr[i], (unsigned char)i);
	if (!c->err && cap)	/* the room is there: ASan would say otherwise */
		arr[cap * c->elem - 1] = 0xff;
	free(arr);
}

/* Appends one at a time, as the session's drain and the metrics do. */
static void test_appends(void **state)
{
	size_t cap = 0, grows = 0, last = 0;
	unsigned int *v = NULL;

	(void)state;
	for (unsigned int i = 0; i < 100000; i++) {
		assert_int_equal(array__grow(&v, &cap, i + 1, sizeof(*v)), 0);
		grows += cap != last;
		last = cap;
		v[i] = i;
	}
	for (unsigned int i = 0; i < 100000; i++)
		assert_int_equal(v[i], i);
	assert_true(grows <= 14);	/* 16 .. 131072: O(log n) reallocations */
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_appends),
	};

	return run_tests_and_cases(tests, test_grow, cases, what);
}
