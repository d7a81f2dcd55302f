/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Helpers the libFuzzer harnesses share. Inputs are copied into buffers of
 * exactly their size, so that ASan sees any read past the end; a harness
 * checks what its parser promises with FUZZ_ASSERT, which aborts (a crash
 * libFuzzer keeps) rather than printing.
 */
#ifndef TESTS_FUZZ_H
#define TESTS_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_ASSERT(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: broken promise: %s\n",		\
			__FILE__, __LINE__, #cond);			\
		abort();						\
	}								\
} while (0)

/* /dev/null, opened once, for what a harness prints only to exercise it. */
static inline FILE *fuzz__devnull(void)
{
	static FILE *f;

	if (!f && !(f = fopen("/dev/null", "w")))
		abort();
	return f;
}

/* data as a C string (cut at its first NUL), in a buffer of its own. */
static inline char *fuzz__str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * data split at NUL bytes into at most max strings, each in a buffer of
 * its own length; returns how many (at least 1). Free with fuzz__free().
 */
static inline int fuzz__split(const uint8_t *data, size_t size, char **out,
			      int max)
{
	size_t start = 0, i;
	int n = 0;

	for (i = 0; i <= size && n < max; i++) {
		if (i < size && data[i])
			continue;
		out[n] = malloc(i - start + 1);
		if (!out[n])
			abort();
		memcpy(out[n], data + start, i - start);
		out[n][i - start] = '\0';
		n++;
		start = i + 1;
	}
	return n;
}

static inline void fuzz__free(char **s, int n)
{
	while (n-- > 0)
		free(s[n]);
}

#endif
