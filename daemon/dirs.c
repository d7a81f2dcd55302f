// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The daemon's own directories (daemon/dirs.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "daemon/dirs.h"
#include "common/log.h"

/* root, the daemon, or the uid it runs as after set-up (serve --user) */
static bool dirs__trusted_uid(uid_t u, uid_t user)
{
	return u == 0 || u == geteuid() || (user != (uid_t)-1 && u == user);
}

/*
 * Every directory above dir, as given and as resolved: each must be
 * root's, the daemon's or --user's, and writable by others only when
 * sticky (/tmp, /dev/shm: others cannot rename what they do not own);
 * a symlink on the way must be root's or the daemon's. Otherwise
 * another user could swap a directory below for a symlink, and the
 * daemon would bind, and at exit remove, wherever that points.
 */
int dirs__check_above(const char *dir, const char *what, uid_t user)
{
	char buf[2][PATH_MAX], *real;
	int err = 0;

	snprintf(buf[0], sizeof(buf[0]), "%s", dir);
	real = realpath(dir, buf[1]);
	for (int pass = 0; pass < 2 && !err; pass++) {
		char *path = buf[pass], *p;

		if (pass == 1 && !real)
			break;
		for (p = strchr(path + 1, '/'); p && !err; p = strchr(p + 1, '/')) {
			struct stat st;

			*p = '\0';
			if (lstat(path, &st)) {
				/* not there yet: the caller makes it, below what passed */
				if (errno != ENOENT)
					err = -errno;
				*p = '/';
				break;
			} else if (S_ISLNK(st.st_mode) ? !dirs__trusted_uid(st.st_uid, (uid_t)-1) :
				   !dirs__trusted_uid(st.st_uid, user)) {
				pr_err("%s %s: %s above it is owned by uid %u; refusing it "
				       "(choose a directory whose parents are root's)",
				       what, dir, path, (unsigned int)st.st_uid);
				err = -EPERM;
			} else if (!S_ISLNK(st.st_mode) && (st.st_mode & (S_IWGRP | S_IWOTH)) &&
				   !(st.st_mode & S_ISVTX)) {
				pr_err("%s %s: %s above it has mode %03o: others may rename in it; "
				       "refusing it", what, dir, path, (unsigned int)(st.st_mode & 07777));
				err = -EPERM;
			}
			*p = '/';
		}
	}
	return err;
}

/* lstat, not stat: a symlink planted in the directory's place would
 * send the daemon's socket or pin wherever its owner likes. */
static int dirs__check(const char *dir, const char *what, uid_t user)
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
	if (!dirs__trusted_uid(st.st_uid, user)) {
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

int dirs__make_own(const char *dir, mode_t mode, const char *what, uid_t user,
		   bool *made)
{
	int err;

	err = dirs__check_above(dir, what, user);
	if (err)
		return err;
	*made = !mkdir(dir, mode);
	/* the mode whatever the umask (systemd's UMask=0077 makes 0700) */
	if ((!*made && errno != EEXIST) || (*made && chmod(dir, mode))) {
		err = -errno;
		pr_err("cannot make %s %s: %s", what, dir, strerror(-err));
		return err;
	}
	return *made ? 0 : dirs__check(dir, what, user);
}
