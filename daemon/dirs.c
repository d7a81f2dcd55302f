// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The daemon's own directories (daemon/dirs.h). */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "daemon/dirs.h"
#include "common/log.h"

/* lstat, not stat: a symlink planted in the directory's place would
 * send the daemon's socket or pin wherever its owner likes. */
static int dirs__check(const char *dir, const char *what)
{
	struct stat st;
	int err;

	if (lstat(dir, &st)) {
		err = -errno;
		pr_err("%s %s: %s", what, dir, strerror(-err));
		return err;
	}
	if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode)) {
		pr_err("%s %s: %s; refusing it (remove it, or choose another)",
		       what, dir, S_ISLNK(st.st_mode) ? "a symlink" : "not a directory");
		return -ENOTDIR;
	}
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		pr_err("%s %s: owned by uid %u, not by this daemon (uid %u) or root; "
		       "refusing it (remove it, or choose another)",
		       what, dir, (unsigned int)st.st_uid, (unsigned int)geteuid());
		return -EPERM;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		pr_err("%s %s: mode %03o lets others write in it; refusing it "
		       "(chmod go-w, or choose another)", what, dir,
		       (unsigned int)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

int dirs__make_own(const char *dir, mode_t mode, const char *what, bool *made)
{
	int err;

	*made = !mkdir(dir, mode);
	/* the mode whatever the umask (systemd's UMask=0077 makes 0700) */
	if ((!*made && errno != EEXIST) || (*made && chmod(dir, mode))) {
		err = -errno;
		pr_err("cannot make %s %s: %s", what, dir, strerror(-err));
		return err;
	}
	return *made ? 0 : dirs__check(dir, what);
}
