// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libbpf's messages (engine/session/bpf_log.h). A failed load prints, at warning
 * level, the program's name and the verifier's whole log between
 * "-- BEGIN PROG LOAD LOG --" and "-- END PROG LOAD LOG --", all in one
 * message; an extern the kernel lacks is one line naming it. Each
 * message is read as it comes: of a log, the program's name and the
 * verifier's verdict (its last line before "processed N insns"), of any
 * other, the line itself when it is not the failure's echo.
 * The kernel says EACCES for a program its verifier refuses and EPERM
 * for a missing privilege, so only EPERM means permission.
 */
#define _GNU_SOURCE
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "common/log.h"
#include "engine/session/bpf_log.h"
#include "engine/session/session.h"

static char vprog[64];		/* the refused program */
static char verdict[512];	/* the verifier's last line about it */
static char cause[512];		/* libbpf's last line of its own */
static bool capturing;

/* Does line [b, e) hold needle? */
static bool line_has(const char *b, const char *e, const char *needle)
{
	const char *q = strstr(b, needle);

	return q && q < e;
}

/* Line [b, e) into out, without a leading "libbpf: ". */
static void line_copy(const char *b, const char *e, char *out, size_t len)
{
	if (!strncmp(b, "libbpf: ", 8))
		b += 8;
	snprintf(out, len, "%.*s", (int)(e - b), b);
}

/*
 * "prog 'NAME': -- BEGIN PROG LOAD LOG --\n<log>-- END PROG LOAD LOG --":
 * the name, and the log's last line but the statistics after the verdict.
 */
static void keep_verdict(const char *msg, const char *begin)
{
	const char *b = strstr(msg, "prog '"), *e, *end = strstr(begin, "-- END PROG LOAD LOG --");

	vprog[0] = verdict[0] = '\0';
	if (b && b < begin && (e = strchr(b + 6, '\'')) && e < begin)
		snprintf(vprog, sizeof(vprog), "%.*s", (int)(e - b - 6), b + 6);
	begin = strchr(begin, '\n');
	if (!begin)
		return;
	for (e = end ? end : begin + strlen(begin); e > begin; e = b - 1) {
		while (e > begin && e[-1] == '\n')
			e--;
		for (b = e; b > begin + 1 && b[-1] != '\n'; b--)
			;
		if (b >= e || !strncmp(b, "processed ", 10) ||
		    !strncmp(b, "verification time", 17) || !strncmp(b, "stack depth", 11))
			continue;
		line_copy(b, e, verdict, sizeof(verdict));
		return;
	}
}

/* Keep what a load's message says: the verifier's verdict, or libbpf's
 * own last cause (not the echoes of the failure that follow it). */
static void keep(const char *msg)
{
	const char *begin = strstr(msg, "-- BEGIN PROG LOAD LOG --");
	const char *e = msg + strlen(msg);

	if (begin) {
		keep_verdict(msg, begin);
		return;
	}
	while (e > msg && e[-1] == '\n')
		e--;
	if (e == msg || line_has(msg, e, "failed to load") ||
	    line_has(msg, e, "load bpf program failed") || line_has(msg, e, "END PROG LOAD LOG"))
		return;
	line_copy(msg, e, cause, sizeof(cause));
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	va_list aq;
	char *msg;

	/* the verifier's whole log comes as one message */
	if (capturing && level == LIBBPF_WARN) {
		va_copy(aq, ap);
		if (vasprintf(&msg, fmt, aq) >= 0) {
			keep(msg);
			free(msg);
		}
		va_end(aq);
	}
	if (!verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void session__setup_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}

void bpf_log__capture(void)
{
	vprog[0] = verdict[0] = cause[0] = '\0';
	capturing = true;
}

void bpf_log__release(void)
{
	capturing = false;
}

int bpf_log__explain(int err, char *buf, size_t len)
{
	struct utsname u;

	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	if (err == -EPERM) {
		snprintf(buf, len, "permission denied: run as root, or with CAP_BPF and CAP_PERFMON");
		return err;
	}
	if (err == -ENOMEM || err == -E2BIG) {
		snprintf(buf, len, "not enough locked memory or map space for the BPF maps (%s)",
			 strerror(-err));
		return err;
	}
	if (vprog[0] || verdict[0]) {
		snprintf(buf, len, "the kernel's verifier (Linux %s) refused program '%s': %s "
			 "(rerun with -v for its whole log)", u.release, vprog[0] ? vprog : "?",
			 verdict[0] ? verdict : "no reason given");
		return -ENOEXEC;
	}
	if (cause[0]) {
		snprintf(buf, len, "the kernel (Linux %s) cannot take the BPF object: %s",
			 u.release, cause);
		return -ENOEXEC;
	}
	snprintf(buf, len, "the kernel (Linux %s) refused the BPF object: %s "
		 "(rerun with -v for libbpf's messages)", u.release, strerror(-err));
	return -ENOEXEC;
}
