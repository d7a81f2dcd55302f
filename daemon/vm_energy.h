/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * serve --vm-energy CGROUP=DIR: a VM's energy, for its guest to read
 * (docs/vm-energy.md). The daemon attributes energy to the VM's cgroup
 * (its subtree: libvirt puts the vCPU threads in sub-cgroups) as to any
 * cgroup, split by cycles or cpu-clock; every period (--vm-energy-ms,
 * default 1 s) it reads, and that energy goes into DIR/intel-rapl:0/, a
 * powercap-layout zone named
 * "vm-host" (name, max_energy_range_uj, energy_uj), each file written
 * whole to a temporary name and renamed into place, so that a reader
 * never sees half a value. DIR is shared into the guest (virtiofs,
 * virtio-9p), where --powercap-root DIR reads it as the vm-host source.
 */
#ifndef DAEMON_VM_ENERGY_H
#define DAEMON_VM_ENERGY_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define VM_ENERGY_MAX 64		/* --vm-energy options */
#define VM_ENERGY_ZONE "intel-rapl:0"
/* The counter's range (2^40 - 1 uJ, 1.1 MJ: hours at a VM's watts; a
 * guest reads it every few seconds at most) */
#define VM_ENERGY_RANGE_UJ ((1ULL << 40) - 1)

/* "CGROUP=DIR": CGROUP normalized into cg, DIR an absolute path into
 * dir. 0, or -EINVAL with the reason in err. Pure. */
int vm_energy__parse(const char *arg, char *cg, size_t cglen, char *dir,
		     size_t dirlen, char *err, size_t errlen);

/*
 * The counter after a read: cum_uj advanced by what the cgroup's
 * attributed total grew since prev_j (its total, J, at the last read),
 * modulo VM_ENERGY_RANGE_UJ + 1. A total that went back (a sub-cgroup
 * gone from the daemon's tables, the VM restarted) adds nothing: the
 * counter only ever moves by energy seen. Pure.
 */
__u64 vm_energy__step(__u64 cum_uj, double prev_j, double cur_j);

struct vm_energy;
struct server;
struct snap_meta;

/* Make each DIR/intel-rapl:0, to be written every period_s, (given to uid:gid when uid != 0: the
 * daemon's --user writes it after the drop) with its counter at 0.
 * 0, or -errno with the culprit logged. */
int vm_energy__open(struct vm_energy **vp, const char *const *specs, int nr,
		    double period_s, uid_t uid, gid_t gid,
		    const struct snap_meta *meta);
void vm_energy__close(struct vm_energy *v);
/* When the next read is due (CLOCK_MONOTONIC s; INFINITY: none). */
double vm_energy__next(const struct vm_energy *v);
/* Ask srv for a snapshot when one is due: its answer updates the files. */
void vm_energy__run(struct vm_energy *v, struct server *srv, double now);

#endif
