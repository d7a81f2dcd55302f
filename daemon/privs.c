// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Capabilities through the raw capget/capset syscalls: no libcap needed. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
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

int privs__drop(__u64 keep)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	__u64 perm;
	int err;

	err = caps_get(d);
	if (err)
		return err;
	perm = (d[0].permitted | (__u64)d[1].permitted << 32) & keep;
	/* the bounding set first: that needs CAP_SETPCAP, about to go */
	for (int c = 0; c < 64; c++) {
		if ((keep & (1ULL << c)) || prctl(PR_CAPBSET_READ, c) != 1)
			continue;
		if (prctl(PR_CAPBSET_DROP, c) && errno != EPERM)
			return -errno;
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
		return -errno;
	d[0].permitted = d[0].effective = (__u32)perm;
	d[1].permitted = d[1].effective = (__u32)(perm >> 32);
	d[0].inheritable = d[1].inheritable = 0;
	if (syscall(SYS_capset, &h, d))
		return -errno;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	return 0;
}
