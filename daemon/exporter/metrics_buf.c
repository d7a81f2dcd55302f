// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The text buffer of /metrics (daemon/exporter/metrics_buf.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/array.h"
#include "common/utf8.h"
#include "daemon/exporter/metrics_buf.h"

bool mbuf__reserve(struct mbuf *b, size_t n)
{
	size_t need = b->len + n + 1;	/* the NUL too */

	if (b->err)
		return false;
	if (need <= b->cap)
		return true;
	/* a page at first, then doubled */
	if (array__grow(&b->p, &b->cap, need < 4096 ? 4096 : need, 1)) {
		b->err = -ENOMEM;
		return false;
	}
	return true;
}

void mbuf__put(struct mbuf *b, const void *s, size_t n)
{
	if (!mbuf__reserve(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

void mbuf__puts(struct mbuf *b, const char *s)
{
	mbuf__put(b, s, strlen(s));
}

void mbuf__u64(struct mbuf *b, __u64 v)
{
	char tmp[20];
	int i = sizeof(tmp);

	do {
		tmp[--i] = '0' + v % 10;
		v /= 10;
	} while (v);
	mbuf__put(b, tmp + i, sizeof(tmp) - i);
}

/* ns as seconds, exactly: 1500000000 -> "1.5", 7 -> "0.000000007" */
void mbuf__seconds(struct mbuf *b, __u64 ns)
{
	__u32 f = ns % 1000000000;
	char frac[10];
	int i, n = 9;

	mbuf__u64(b, ns / 1000000000);
	if (!f)
		return;
	frac[0] = '.';
	for (i = 9; i > 0; i--, f /= 10)
		frac[i] = '0' + f % 10;
	while (frac[n] == '0')
		n--;
	mbuf__put(b, frac, n + 1);
}

void mbuf__double(struct mbuf *b, double v)
{
	if (isnan(v)) {
		mbuf__puts(b, "NaN");
		return;
	}
	if (isinf(v)) {
		mbuf__puts(b, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	if (!mbuf__reserve(b, 32))
		return;
	/* 15 digits: rounding keeps a growing total from going backwards */
	b->len += snprintf(b->p + b->len, 32, "%.15g", v);
}

static bool plain(unsigned char c, bool quote)
{
	return c >= 0x20 && c < 0x7f && c != '\\' && (c != '"' || !quote);
}

/*
 * A label value (quote: '"' escaped too) or HELP text: backslash and
 * newline escaped, bytes that are not UTF-8 and control characters other
 * than tab become U+FFFD (Prometheus rejects a scrape with invalid UTF-8;
 * cgroup names and comms are any bytes).
 */
void mbuf__escaped(struct mbuf *b, const char *str, bool quote)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		const unsigned char *run = s;
		int n;

		while (plain(*s, quote))
			s++;
		mbuf__put(b, run, s - run);
		if (!*s)
			break;
		if (*s == '\\' || *s == '"' || *s == '\n') {
			mbuf__put(b, *s == '\\' ? "\\\\" : *s == '"' ? "\\\"" : "\\n", 2);
			s++;
			continue;
		}
		n = utf8_len(s);
		if (!n || (*s < 0x20 && *s != '\t')) {
			mbuf__puts(b, "\xef\xbf\xbd");
			s++;
			continue;
		}
		mbuf__put(b, s, n);
		s += n;
	}
}
