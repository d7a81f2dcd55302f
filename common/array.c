// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The growable array's one growth rule (common/array.h). */
#include <errno.h>
#include <stdlib.h>
#include "common/array.h"

int array__grow(void *arrp, size_t *cap, size_t need, size_t elem)
{
	void **arr = arrp;
	size_t ncap = *cap ? *cap : ARRAY_MIN_CAP, bytes;
	void *p;

	if (!elem)
		return -EINVAL;
	if (!need)
		need = 1;
	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (__builtin_mul_overflow(ncap, 2, &ncap))
			return -EOVERFLOW;
	}
	if (__builtin_mul_overflow(ncap, elem, &bytes))
		return -EOVERFLOW;
	p = realloc(*arr, bytes);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}
