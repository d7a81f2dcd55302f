/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* UTF-8 for the front ends that write names (JSON lines, /metrics):
 * cgroup names and comms are any bytes. */
#ifndef COMMON_UTF8_H
#define COMMON_UTF8_H

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

#endif
