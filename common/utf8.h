/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* UTF-8 for the front ends that write names (JSON lines, /metrics):
 * cgroup names and comms are any bytes. */
#ifndef COMMON_UTF8_H
#define COMMON_UTF8_H

#include <string.h>
#include <linux/types.h>

/* Length of the valid UTF-8 sequence at s (1-4), or 0. */
static inline int utf8_len(const unsigned char *s)
{
	__u32 cp;
	int n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong, surrogates, beyond U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/*
 * Bytes of the control character that starts at s (a sequence's first
 * byte): 1 for C0 and DEL; 2 for a C1 (U+0080-U+009F, 0xc2 0x80-0x9f);
 * 1 for a lone 0x80-0x9f byte, which a terminal not in UTF-8 takes for a
 * C1 (0x9b: CSI); 0 for none, and for the NUL that ends s.
 */
static inline int utf8_control_len(const unsigned char *s)
{
	if (s[0] == 0)
		return 0;
	if (s[0] < ' ' || s[0] == 0x7f || (s[0] >= 0x80 && s[0] <= 0x9f))
		return 1;
	if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f)
		return 2;
	return 0;
}

/* How far to step over the character at s: its control's bytes, its
 * UTF-8 sequence's, or one byte that is neither. */
static inline int utf8_step(const unsigned char *s)
{
	int n = utf8_control_len(s);

	return n ?: utf8_len(s) ?: 1;
}

/* Names are any bytes: each byte of each control character of s (a
 * NUL-terminated string) becomes '?', in place, so that what a terminal
 * shows of s moves no cursor. */
static inline void utf8_mask_controls(char *s)
{
	unsigned char *p = (unsigned char *)s;

	for (int n; *p; p += n) {
		n = utf8_step(p);
		if (utf8_control_len(p))
			memset(p, '?', n);
	}
}

#endif
