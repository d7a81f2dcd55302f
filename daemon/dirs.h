/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The daemon's own directories (the socket's, the thread slots' pin
 * directory): made by the daemon, or, when they exist already, checked to
 * be the daemon's before anything is put in them. A directory that
 * another user made first (/sys/fs/bpf is 1777 on some distributions,
 * /run/... may be on a shared tmpfs) would let that user replace or read
 * what the daemon puts there.
 */
#ifndef DAEMON_DIRS_H
#define DAEMON_DIRS_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Make dir with mode, or accept it when it exists and is a directory,
 * not a symlink, owned by the daemon's euid, root or user (serve
 * --user's uid, which a last run may have left it to; -1: none), and
 * writable by its owner alone. Every directory above it, as given and
 * resolved, must be one of theirs too, and writable by others only when
 * sticky. 0 with *made (true: made here, the caller removes it), or
 * -errno with the directory and what is wrong with it logged (pr_err):
 * -EPERM another owner or a writable mode, here or above, -ENOTDIR a
 * symlink or not a directory.
 */
int dirs__make_own(const char *dir, mode_t mode, const char *what, uid_t user,
		   bool *made);
/* The check above dir alone, on those of its parents that exist: for a
 * caller that makes the missing ones (mkdir -p) once it passed. */
int dirs__check_above(const char *dir, const char *what, uid_t user);

#endif
