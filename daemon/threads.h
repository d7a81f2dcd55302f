/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Thread self-monitoring, the daemon's side (serve --threads N): slots
 * (include/emon_selfmon.h) in arrays of one uid's each, handed to threads
 * that register over the socket, and taken back when they exit; the array
 * of the arrays pinned in a bpffs directory of its own.
 */
#ifndef DAEMON_THREADS_H
#define DAEMON_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "emon_proto.h"
#include "engine/engine.h"

#define SELFMON_DEFAULT_PIN_DIR "/sys/fs/bpf/emon-perf"

struct selfmon_opts {
	__u32 max_threads;	/* slots (--threads) */
	const char *pin_dir;	/* made here, on a bpffs; removed at close */
	uid_t uid;		/* serve --user's, owns the directory made; 0: none */
	__u32 max_per_uid;	/* slots one uid's threads hold, 0: max_threads */
};

struct selfmon;

/* Pin the slots (mounting bpffs on /sys/fs/bpf when nothing is there).
 * 0, or -errno with the culprit logged: -EINVAL a --pin-dir not on a
 * bpffs, -EPERM/-ENOTDIR a pin directory not the daemon's. */
int selfmon__open(struct selfmon **sp, const struct selfmon_opts *o,
		  const struct engine *e);
/* Every slot marked gone (readers then fail cleanly), the pin and its
 * directory removed. */
void selfmon__close(struct selfmon *s);

/* Readable when a registered thread has exited: then selfmon__reap(). */
int selfmon__fd(const struct selfmon *s);
void selfmon__reap(struct selfmon *s);

/*
 * Give thread tid of process peer (SO_PEERCRED, of uid) a slot in one of
 * uid's arrays, or the one it has already; limited: within max_per_uid.
 * 0 with *g and *fd (that array's, frozen, the daemon's: not to be
 * closed), or -errno with a one-line reason in err: -EPERM tid is not a
 * thread of peer, -ESRCH it is gone, -ENOSPC all slots are in use or all
 * arrays other uids', -EUSERS uid's share is.
 */
int selfmon__register(struct selfmon *s, pid_t peer, uid_t uid, uid_t charge, bool limited,
		      __u32 tid, struct emon_self_grant *g, int *fd, char *err,
		      size_t errlen);
/* A slot array: no uid's until a thread of one registers, that uid's for
 * good (a mapping of it cannot be taken back). */
struct selfmon_array {
	bool bound;
	uid_t uid;
	__u32 used;		/* slots of live registrations */
	uid_t charge;		/* uid's, or its subordinate range's owner */
};

/*
 * The slot (array * per_array + entry) for a new thread of uid: a free
 * one (is_free) in an array of uid's, else the first of an array no uid
 * has yet; -1: none. Never one in another uid's array.
 */
int selfmon__pick(const struct selfmon_array *arr, __u32 nr_arrays, __u32 per_array,
		  uid_t uid, bool (*is_free)(const void *ctx, __u32 slot), const void *ctx);

/* Slots in use (any thread may ask). */
int selfmon__used(const struct selfmon *s);

#endif
