/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The growing text buffer /metrics is written into, and the exact forms
 * of its values: integers, nanoseconds as seconds, doubles, escaped label
 * values. An allocation that fails sets err and every later write is a
 * no-op, so writers check once, at the end.
 */
#ifndef DAEMON_METRICS_BUF_H
#define DAEMON_METRICS_BUF_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

struct mbuf {
	char *p;
	size_t len, cap;
	int err;		/* 0 or -ENOMEM */
};

/* Room for n more bytes and a NUL; false (err set) if there is none. */
bool mbuf__reserve(struct mbuf *b, size_t n);
void mbuf__put(struct mbuf *b, const void *s, size_t n);
void mbuf__puts(struct mbuf *b, const char *s);
void mbuf__u64(struct mbuf *b, __u64 v);
/* ns as seconds, exactly: 1500000000 -> "1.5", 7 -> "0.000000007" */
void mbuf__seconds(struct mbuf *b, __u64 ns);
/* %.15g, NaN, +Inf, -Inf */
void mbuf__double(struct mbuf *b, double v);
/* A label value (quote: '"' escaped too) or HELP text, valid UTF-8. */
void mbuf__escaped(struct mbuf *b, const char *str, bool quote);

#endif
