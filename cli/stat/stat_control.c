// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * perf stat --control fd:CTL[,ACK] or fifo:CTL[,ACK]: "enable" and
 * "disable" read from CTL turn counting on and off mid-run ("ack\n" to
 * ACK after each command, as perf). Here counting never stops: a
 * disabled span is left out of what is printed. The counts of the
 * enabled spans of a print are kept here, row by row (by scope and key),
 * and added to the print's rows; a print with no enabled time is <not
 * counted>, as perf's.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/array.h"
#include "common/log.h"
#include "common/opts.h"
#include "cli/stat/stat.h"

struct ctl_row {
	enum scope scope;
	char *key;
	struct counts counts;
};

static struct {
	int ctl, ack;		/* -1: none */
	bool own_ctl, own_ack;	/* fifos we opened */
	bool disabled;
	bool ran;		/* some of the print's time was enabled */
	struct ctl_row *acc;
	int nr;
	size_t cap;
	char buf[256];
	size_t len;
} ctl = { .ctl = -1, .ack = -1 };

static int control__bad(const char *arg)
{
	pr_err("bad value '%s' for --control: fd:ctl-fd[,ack-fd] or fifo:ctl-fifo[,ack-fifo]",
	       arg);
	return -EINVAL;
}

static int control__fd(const char *s, const char *arg)
{
	long v;

	if (opts__long("--control", s, 0, INT32_MAX, &v))
		return -EINVAL;
	if (fcntl(v, F_GETFD) < 0) {
		pr_err("--control %s: fd %ld: %s", arg, v, strerror(errno));
		return -EINVAL;
	}
	return v;
}

static int control__fifo(const char *path, int flags, const char *arg)
{
	int fd = open(path, flags | O_CLOEXEC);

	if (fd < 0)
		pr_err("Failed to open '%s' (--control %s): %s", path, arg, strerror(errno));
	return fd < 0 ? -EINVAL : fd;
}

int stat_control__open(const char *arg)
{
	char *dup, *ack;
	bool fifo;
	int err = 0;

	stat_control__close();
	fifo = !strncmp(arg, "fifo:", 5);
	if (!fifo && strncmp(arg, "fd:", 3))
		return control__bad(arg);
	dup = strdup(arg + (fifo ? 5 : 3));
	if (!dup)
		return -ENOMEM;
	ack = strchr(dup, ',');
	if (ack)
		*ack++ = '\0';
	if (!*dup || (ack && !*ack)) {
		err = control__bad(arg);
	} else if (fifo) {
		/* read-write: no writer yet is no end of file */
		ctl.ctl = control__fifo(dup, O_RDWR | O_NONBLOCK, arg);
		ctl.own_ctl = ctl.ctl >= 0;
		if (ctl.ctl >= 0 && ack)
			ctl.ack = control__fifo(ack, O_RDWR, arg);
		ctl.own_ack = ctl.ack >= 0;
		err = ctl.ctl < 0 || (ack && ctl.ack < 0) ? -EINVAL : 0;
	} else {
		ctl.ctl = control__fd(dup, arg);
		if (ctl.ctl >= 0 && ack)
			ctl.ack = control__fd(ack, arg);
		err = ctl.ctl < 0 || (ack && ctl.ack < 0) ? -EINVAL : 0;
	}
	free(dup);
	if (err)
		stat_control__close();
	return err;
}

void stat_control__close(void)
{
	if (ctl.own_ctl)
		close(ctl.ctl);
	if (ctl.own_ack)
		close(ctl.ack);
	for (int i = 0; i < ctl.nr; i++)
		free(ctl.acc[i].key);
	free(ctl.acc);
	ctl = (typeof(ctl)){ .ctl = -1, .ack = -1 };
}

int stat_control__fd(void)
{
	return ctl.ctl;
}

bool stat_control__disabled(void)
{
	return ctl.disabled;
}

void stat_control__start(bool disabled)
{
	ctl.disabled = disabled;
	ctl.ran = !disabled;
	if (disabled)
		fprintf(stderr, "Events disabled\n");
}

void stat_control__set(bool disabled)
{
	ctl.disabled = disabled;
	ctl.ran |= !disabled;
	fprintf(stderr, "Events %s\n", disabled ? "disabled" : "enabled");
}

int stat_control__next(void)
{
	for (;;) {
		char *nl = memchr(ctl.buf, '\n', ctl.len);
		ssize_t n;

		if (nl) {
			size_t line = nl - ctl.buf + 1;
			int cmd = !strncmp(ctl.buf, "enable", 6) && line == 7 ? STAT_CTL_ENABLE :
				  !strncmp(ctl.buf, "disable", 7) && line == 8 ? STAT_CTL_DISABLE :
				  STAT_CTL_OTHER;

			memmove(ctl.buf, nl + 1, ctl.len - line);
			ctl.len -= line;
			return cmd;
		}
		if (ctl.len == sizeof(ctl.buf))
			ctl.len = 0;	/* a line this long is no command */
		/* the fd is the caller's, blocking maybe: read what is there */
		if (poll(&(struct pollfd){ .fd = ctl.ctl, .events = POLLIN }, 1, 0) <= 0)
			return STAT_CTL_NONE;
		n = read(ctl.ctl, ctl.buf + ctl.len, sizeof(ctl.buf) - ctl.len);
		if (n <= 0)
			return STAT_CTL_NONE;
		ctl.len += n;
	}
}

void stat_control__ack(void)
{
	/* perf's sizeof("ack\n"): its NUL too */
	if (ctl.ack >= 0 && write(ctl.ack, "ack\n", 5) != 5)
		pr_debug("--control: the ack was not written: %s", strerror(errno));
}

/* An enabled span's rows, before a disable: kept for the next print */
int stat_control__keep(const struct row_set *rs, int nr_events)
{
	for (int k = 0; k < rs->nr; k++) {
		const struct row *r = &rs->rows[k];
		const char *key = r->key ? r->key : "";
		int i;

		for (i = 0; i < ctl.nr; i++)
			if (ctl.acc[i].scope == r->scope && !strcmp(ctl.acc[i].key, key))
				break;
		if (i == ctl.nr) {
			if (array__grow(&ctl.acc, &ctl.cap, ctl.nr + 1, sizeof(*ctl.acc)))
				return -ENOMEM;
			ctl.acc[i] = (struct ctl_row){ .scope = r->scope, .key = strdup(key) };
			if (!ctl.acc[i].key)
				return -ENOMEM;
			ctl.nr++;
		}
		counts__add(&ctl.acc[i].counts, &r->counts, nr_events);
	}
	return 0;
}

/*
 * A print's rows: those of its last span if it is enabled, else none,
 * plus the enabled spans kept; <not counted> when none of its time was
 * enabled. Rows kept but not in the last span's are left out (their
 * names are gone with that span's snapshot).
 */
void stat_control__rows(struct row_set *rs, int nr_events)
{
	for (int k = 0; k < rs->nr; k++) {
		struct row *r = &rs->rows[k];
		const char *key = r->key ? r->key : "";

		if (ctl.disabled)
			memset(&r->counts, 0, sizeof(r->counts));
		for (int i = 0; i < ctl.nr; i++)
			if (ctl.acc[i].scope == r->scope && !strcmp(ctl.acc[i].key, key))
				counts__add(&r->counts, &ctl.acc[i].counts, nr_events);
		if (!ctl.ran)
			r->not_run = true;
	}
	for (int i = 0; i < ctl.nr; i++)
		free(ctl.acc[i].key);
	ctl.nr = 0;
	ctl.ran = !ctl.disabled;
}
