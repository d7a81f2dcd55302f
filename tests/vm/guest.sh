#!/bin/bash
# The guest's init once the host's tree is its root (tests/vm/init): the
# mounts a host has (cgroup2, bpf, tracefs, debugfs, tmpfs /tmp and /run),
# then /emon-run (the command vm.sh was given) as root, then its exit
# status on the console for vm.sh, then power off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
# the tests that allow for emulation's clock skew between tools look for it
export EMON_VM_GUEST=1
# a guest of another architecture: busybox first (tests/vm/init), /out the
# host's writable share when vm.sh gave one (EMON_VM_OUT)
# (the kernel's modprobe too: the tree's own is of the host's architecture,
# and an exec of it would ask for a binfmt module, again and again)
[ -d /.emon-bb ] && export PATH=/.emon-bb:$PATH && echo /.emon-bb/modprobe >/proc/sys/kernel/modprobe
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null || {
	mount -t tmpfs cgroup /sys/fs/cgroup && mkdir -p /sys/fs/cgroup/unified &&
		mount -t cgroup2 cgroup2 /sys/fs/cgroup/unified
}
mount -t bpf bpf /sys/fs/bpf
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t tmpfs -o mode=1777 tmp /tmp
mount -t tmpfs -o mode=0755 run /run
mkdir -p /out && mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 out /out 2>/dev/null || rmdir /out
mkdir -p /share && mount -t 9p -o trans=virtio,version=9p2000.L,ro share /share 2>/dev/null || rmdir /share
mkdir -p /dev/pts /dev/shm && mount -t devpts devpts /dev/pts && mount -t tmpfs shm /dev/shm
# what udev would add: bash's process substitution opens /dev/fd/N
ln -s /proc/self/fd /dev/fd && ln -s fd/0 /dev/stdin && ln -s fd/1 /dev/stdout && ln -s fd/2 /dev/stderr
# every controller for the tests' cgroups, as systemd enables them on a host
for c in $(cat /sys/fs/cgroup/cgroup.controllers); do
	echo "+$c" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
done
hostname emon-vm
ip link set lo up 2>/dev/null
echo "vm: $(uname -r) $(uname -m), $(nproc) CPUs, $(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo) MiB"
( . /emon-run )
rc=$?
sync
echo 1 >/proc/sys/kernel/printk
echo "EMON_VM_EXIT $rc"
echo o >/proc/sysrq-trigger
sleep 10 2>/dev/null
