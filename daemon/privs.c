// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Capabilities through the raw capget/capset syscalls: no libcap needed.
 * They act on the calling thread only (the kernel keeps them per task),
 * which is why the daemon drops before it starts a thread and then reads
 * every task's status back.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include "daemon/privs.h"

static const char *const cap_names[] = {
	"cap_chown", "cap_dac_override", "cap_dac_read_search", "cap_fowner",
	"cap_fsetid", "cap_kill", "cap_setgid", "cap_setuid", "cap_setpcap",
	"cap_linux_immutable", "cap_net_bind_service", "cap_net_broadcast",
	"cap_net_admin", "cap_net_raw", "cap_ipc_lock", "cap_ipc_owner",
	"cap_sys_module", "cap_sys_rawio", "cap_sys_chroot", "cap_sys_ptrace",
	"cap_sys_pacct", "cap_sys_admin", "cap_sys_boot", "cap_sys_nice",
	"cap_sys_resource", "cap_sys_time", "cap_sys_tty_config", "cap_mknod",
	"cap_lease", "cap_audit_write", "cap_audit_control", "cap_setfcap",
	"cap_mac_override", "cap_mac_admin", "cap_syslog", "cap_wake_alarm",
	"cap_block_suspend", "cap_audit_read", "cap_perfmon", "cap_bpf",
	"cap_checkpoint_restore",
};

void privs__format(__u64 mask, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int c = 0; c < 64 && n < len; c++) {
		if (!(mask & (1ULL << c)))
			continue;
		if (c < (int)(sizeof(cap_names) / sizeof(cap_names[0])))
			n += snprintf(buf + n, len - n, "%s%s", n ? "," : "", cap_names[c]);
		else
			n += snprintf(buf + n, len - n, "%scap_%d", n ? "," : "", c);
	}
	if (!n)
		snprintf(buf, len, "none");
}

static int caps_get(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };

	return syscall(SYS_capget, &h, d) ? -errno : 0;
}

int privs__effective(__u64 *eff)
{
	struct __user_cap_data_struct d[2];
	int err = caps_get(d);

	if (!err)
		*eff = d[0].effective | (__u64)d[1].effective << 32;
	return err;
}

__u64 privs__bounding(void)
{
	__u64 bnd = 0;

	for (int c = 0; c < 64; c++)
		if (prctl(PR_CAPBSET_READ, c) == 1)
			bnd |= 1ULL << c;
	return bnd;
}

int privs__user(const char *name, struct privs_user *u)
{
	struct passwd *pw = getpwnam(name);
	unsigned long id;
	char *end;

	if (pw) {
		u->uid = pw->pw_uid;
		u->gid = pw->pw_gid;
		return 0;
	}
	/* a container image may have no passwd entry for it */
	errno = 0;
	id = strtoul(name, &end, 10);
	if (name[0] < '0' || name[0] > '9' || *end || errno || id >= (uid_t)-1)
		return -ENOENT;
	u->uid = u->gid = id;
	return 0;
}

/*
 * Become u with the permitted set kept: setresuid() away from uid 0
 * clears it unless PR_SET_KEEPCAPS, and always clears the effective set
 * (privs__drop's capset gives keep back). The groups first, while
 * CAP_SETGID is there.
 */
static int privs__become(const struct privs_user *u)
{
	gid_t groups[1] = { u->extra };
	int err = 0;

	if (setgroups(u->extra == (gid_t)-1 ? 0 : 1, groups) ||
	    setresgid(u->gid, u->gid, u->gid) ||
	    prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return -errno;
	if (setresuid(u->uid, u->uid, u->uid))
		err = -errno;
	if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) && !err)
		err = -errno;
	return err;
}

int privs__drop(__u64 keep, const struct privs_user *u)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	__u64 perm;
	int err;

	err = caps_get(d);
	if (err)
		return err;
	perm = (d[0].permitted | (__u64)d[1].permitted << 32) & keep;
	/* the bounding set first: that needs CAP_SETPCAP, about to go;
	 * without it no_new_privs keeps execve from using what is left */
	for (int c = 0; c < 64; c++) {
		if ((keep & (1ULL << c)) || prctl(PR_CAPBSET_READ, c) != 1)
			continue;
		if (prctl(PR_CAPBSET_DROP, c) && errno != EPERM)
			return -errno;
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
		return -errno;
	if (u) {
		err = privs__become(u);
		if (err)
			return err;
	}
	d[0].permitted = d[0].effective = (__u32)perm;
	d[1].permitted = d[1].effective = (__u32)(perm >> 32);
	d[0].inheritable = d[1].inheritable = 0;
	if (syscall(SYS_capset, &h, d))
		return -errno;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	return 0;
}

/* "Key:\tVALUE" in a status text: its value, or NULL. */
static const char *status__field(const char *status, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = status; p; p = strchr(p, '\n')) {
		p += *p == '\n';
		if (!strncmp(p, key, n) && p[n] == ':')
			return p + n + 1 + strspn(p + n + 1, " \t");
	}
	return NULL;
}

static int status__mask(const char *status, const char *key, __u64 *mask)
{
	const char *v = status__field(status, key);
	char *end;

	if (!v)
		return -EINVAL;
	errno = 0;
	*mask = strtoull(v, &end, 16);
	return errno || end == v ? -EINVAL : 0;
}

/* A mask short enough for one line: names for a few, else a count. */
static void mask__say(__u64 m, char *buf, size_t len)
{
	int n = __builtin_popcountll(m);

	if (n <= 4)
		privs__format(m, buf, len);
	else
		snprintf(buf, len, "%d capabilities (%#llx)", n, (unsigned long long)m);
}

int privs__task_excess(const char *status, __u64 keep, __u64 bnd,
		       char *why, size_t len)
{
	static const char *const sets[] = { "CapInh", "CapPrm", "CapEff", "CapAmb", "CapBnd" };
	const char *nnp = status__field(status, "NoNewPrivs");
	char caps[256];
	size_t n = 0;
	__u64 m;

	why[0] = '\0';
	if (!nnp)
		return -EINVAL;
	if (*nnp != '1')
		n += snprintf(why, len, "NoNewPrivs 0");
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		if (status__mask(status, sets[i], &m))
			return -EINVAL;
		m &= ~(i == 4 ? bnd : keep);
		if (!m || n >= len)
			continue;
		mask__say(m, caps, sizeof(caps));
		n += snprintf(why + n, len - n, "%s%s %s", n ? ", " : "", sets[i], caps);
	}
	return n ? -EPERM : 0;
}

/* One task's status, whole, into buf. */
static int task__status(int dirfd, const char *tid, char *buf, size_t len)
{
	char path[NAME_MAX + 16];
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/status", tid);
	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		err = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return err;
}

int privs__check_tasks(__u64 keep, __u64 bnd, char *why, size_t len)
{
	DIR *dir = opendir("/proc/self/task");
	char status[4096], held[384];
	const char *name;
	struct dirent *de;
	int err = 0;

	if (!dir) {
		err = -errno;
		snprintf(why, len, "/proc/self/task: %s", strerror(-err));
		return err;
	}
	while (!err && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		err = task__status(dirfd(dir), de->d_name, status, sizeof(status));
		if (err == -ENOENT) {	/* it ended meanwhile */
			err = 0;
			continue;
		}
		if (!err)
			err = privs__task_excess(status, keep, bnd, held, sizeof(held));
		if (err == -EPERM) {
			name = status__field(status, "Name");
			snprintf(why, len, "thread %s (%.*s) holds %s", de->d_name,
				 name ? (int)strcspn(name, "\n") : 1, name ?: "?", held);
		} else if (err) {
			snprintf(why, len, "/proc/self/task/%s/status: %s", de->d_name,
				 strerror(-err));
		}
	}
	closedir(dir);
	return err;
}
