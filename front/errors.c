// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* -errno to exit status, in one place for every command. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include "front/errors.h"
#include "common/log.h"

int cli__exit_status(int err)
{
	switch (err) {
	case 0:
		return 0;
	/* bad input: an option's value, a name, a path, a file's content */
	case -EINVAL:
	case -ENOENT:
	case -E2BIG:
	case -ERANGE:
	case -ENAMETOOLONG:
	case -ENOTDIR:
	case -ELOOP:
	case -ENODATA:		/* a recording or window without rows */
	/* permissions: root, CAP_BPF + CAP_PERFMON, a file's mode */
	case -EPERM:
	case -EACCES:
	/* a thing named that is not there, or not what it should be: a
	 * daemon's socket, a URL to something that is not Prometheus */
	case -ECONNREFUSED:
	case -ENOTSOCK:
	case -EPROTO:
		return 2;
	}
	/* the rest is a runtime failure, a Prometheus server that does not
	 * answer (-EHOSTUNREACH: refused, unresolved, timed out) too: the
	 * same command may work a minute later */
	return 1;
}

int cli__parse_status(int ret)
{
	return ret > 0 ? 0 : cli__exit_status(ret);
}

int cli__fail(int err, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pr_err("%s", msg);
	return cli__exit_status(err);
}
