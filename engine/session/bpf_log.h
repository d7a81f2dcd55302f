/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libbpf's messages: shown with -v only, and kept while the BPF object
 * loads, so that a refusal can be told to the user as what it is (the
 * verifier's last line, an extern the kernel lacks, a privilege) rather
 * than as an errno.
 */
#ifndef ENGINE_SESSION_BPF_LOG_H
#define ENGINE_SESSION_BPF_LOG_H

#include <stddef.h>

/* Keep libbpf's warnings from now on (a load), dropping older ones. */
void bpf_log__capture(void);
/* Stop keeping them. */
void bpf_log__release(void);
/*
 * Why a load failed with err, in one line for the user, into buf; the
 * exit status's error: -EPERM for privileges, -ENOEXEC for a program the
 * kernel refused, err otherwise.
 */
int bpf_log__explain(int err, char *buf, size_t len);

#endif /* ENGINE_SESSION_BPF_LOG_H */
