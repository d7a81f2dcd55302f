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
 * not a symlink, owned by the daemon's euid or root, and writable by its
 * owner alone. 0 with *made (true: made here, the caller removes it), or
 * -errno with the directory and what is wrong with it logged (pr_err):
 * -EPERM another owner or a writable mode, -ENOTDIR a symlink or not a
 * directory.
 */
int dirs__make_own(const char *dir, mode_t mode, const char *what, bool *made);

#endif
