// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * serve's seccomp allowlist (seccomp.h), a classic BPF filter written
 * out here: the daemon's own calls after set-up (strace -f -c of a serve
 * run with socket clients, thread slots, scrapes over HTTP and TLS, CPU
 * hotplug and exit), as privs.c does capabilities with raw syscalls and
 * no library. The numbers come from <sys/syscall.h> of the target, so
 * the same list builds for x86-64 and arm64 (a call a target lacks, as
 * arm64 lacks open(2), is left out there).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include "daemon/seccomp.h"

#if defined(__x86_64__)
#define SC_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SC_ARCH AUDIT_ARCH_AARCH64
#endif

#define N(name) SYS_##name

/* gcc says __SANITIZE_ADDRESS__, clang __has_feature */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SC_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SC_SANITIZED 1
#endif
#endif

static const unsigned int allowed[] = {
	/* memory, threads, signals, time */
	N(brk), N(mmap), N(munmap), N(mremap), N(mprotect), N(madvise),
	N(futex), N(set_robust_list), N(get_robust_list), N(rseq), N(set_tid_address),
	N(clone), N(exit), N(exit_group), N(gettid), N(getpid), N(tgkill),
	N(rt_sigaction), N(rt_sigprocmask), N(rt_sigreturn), N(sigaltstack),
	N(restart_syscall), N(kill), N(sched_yield), N(sched_getaffinity),
	N(clock_gettime), N(clock_getres), N(gettimeofday), N(nanosleep),
	N(clock_nanosleep), N(getrandom), N(uname), N(sysinfo), N(prlimit64),
	N(prctl), N(capget), N(getuid), N(geteuid), N(getgid), N(getegid),
	N(getresuid), N(getresgid), N(getppid), N(membarrier),
	/* files: /proc, /sys, cgroups, the socket's directory, output */
	N(openat), N(close), N(read), N(readv), N(pread64), N(write), N(writev),
	N(lseek), N(newfstatat), N(fstat), N(statx), N(statfs), N(fstatfs),
	N(getdents64), N(readlinkat), N(faccessat), N(fcntl), N(ioctl), N(dup),
	N(dup3), N(unlinkat), N(mkdirat), N(fchmod), N(fchmodat), N(fchown),
	N(fchownat), N(umask), N(ftruncate), N(memfd_create), N(pipe2),
	N(eventfd2),
	/* sockets: the UNIX socket, HTTP, peer credentials, user look-ups */
	N(socket), N(bind), N(listen), N(accept), N(accept4), N(connect),
	N(getsockname), N(getpeername), N(setsockopt), N(getsockopt),
	N(shutdown), N(sendto), N(recvfrom), N(sendmsg), N(recvmsg),
	N(sendmmsg), N(pidfd_open), N(pidfd_send_signal),
	N(epoll_create1), N(epoll_ctl), N(epoll_pwait), N(ppoll), N(pselect6),
	/* the counting: maps, programs, per-CPU events after a hotplug */
	N(bpf), N(perf_event_open),
#ifdef SYS_clone3
	N(clone3),
#endif
#ifdef SYS_faccessat2
	N(faccessat2),
#endif
	/* serve --vm-energy: each counter renamed into place */
#ifdef SYS_renameat
	N(renameat),
#endif
#ifdef SYS_renameat2
	N(renameat2),
#endif
#ifdef SYS_close_range
	N(close_range),
#endif
#ifdef SYS_epoll_pwait2
	N(epoll_pwait2),
#endif
#ifdef SYS_open		/* the calls arm64 has only as *at and p* forms */
	N(open), N(stat), N(lstat), N(access), N(readlink), N(unlink), N(rmdir),
	N(mkdir), N(chmod), N(chown), N(rename), N(poll), N(select), N(pipe),
	N(epoll_wait), N(epoll_create), N(dup2), N(getdents), N(arch_prctl),
	N(time),
#endif
#ifdef SC_SANITIZED
	/* the sanitizers' leak check stops the world with ptrace at exit
	 * (a clang build without these: its tracer died of SIGSYS at
	 * ptrace, and the daemon waited for it, spinning) */
	N(ptrace), N(wait4), N(process_vm_readv), N(sched_getparam),
#endif
};

int seccomp__install(char *err, size_t errlen)
{
#ifndef SC_ARCH
	snprintf(err, errlen, "no seccomp filter for this architecture");
	return -EOPNOTSUPP;
#else
	enum { NR = sizeof(allowed) / sizeof(allowed[0]) };
	struct sock_filter f[5 + 2 * NR + 1];
	struct sock_fprog prog = { .filter = f };
	unsigned int n = 0;
	long r;

	/* another ABI's numbers (i386, x32 on x86-64) mean other calls */
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SC_ARCH, 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000,
					      2 * NR, 0);
	for (unsigned int i = 0; i < NR; i++) {
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						      allowed[i], 0, 1);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	}
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	prog.len = n;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		snprintf(err, errlen, "PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
		return -errno;
	}
	/* TSYNC: every thread of the daemon, the ones already started too */
	r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog);
	if (r > 0) {
		snprintf(err, errlen, "thread %ld could not take the filter", r);
		return -EBUSY;
	}
	if (r < 0) {
		snprintf(err, errlen, "seccomp: %s", strerror(errno));
		return -errno;
	}
	return 0;
#endif
}
