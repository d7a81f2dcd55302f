// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Thread self-monitoring's slot arrays (bpf/selfmon.bpf.h): self_arrays
 * mmap'able arrays of self_array_slots slots each, made and frozen here
 * before the load (the first is the outer map's template), and put in
 * self_arrays at their index after it. The daemon binds each to one uid,
 * for good (daemon/threads.c), and hands a thread only its own uid's
 * arrays' fds.
 *
 * All of them now, none later: BPF_MAP_CREATE and BPF_MAP_FREEZE need
 * CAP_BPF (kernel.unprivileged_bpf_disabled), which the daemon holds at
 * set-up only (docs/capabilities.md). Frozen, an array can be mapped for
 * reading only and written by no bpf() call, its fd O_RDWR as it is
 * (docs/security.md: why no O_RDONLY fd would map).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common/log.h"
#include "emon_selfmon.h"
#include "engine/session/session_int.h"

/* The arrays, frozen; kept across a second load (session__load). */
static int session__self_make(struct session *s, const struct session_opts *o)
{
	LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = BPF_F_MMAPABLE);

	if (s->nr_self)
		return 0;
	s->self_fd = malloc(o->self_arrays * sizeof(*s->self_fd));
	if (!s->self_fd)
		return -ENOMEM;
	s->self_slots = o->self_array_slots;
	for (__u32 i = 0; i < o->self_arrays; i++) {
		int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "self_slots", sizeof(__u32),
					sizeof(struct emon_self_slot), o->self_array_slots, &mo);

		if (fd < 0 || bpf_map_freeze(fd)) {
			int err = -errno;

			if (fd >= 0)
				close(fd);
			pr_debug("thread slot array %u of %u: %s", i, o->self_arrays,
				 strerror(-err));
			return err;
		}
		s->self_fd[s->nr_self++] = fd;
	}
	return 0;
}

int session__self_size(struct session *s, const struct session_opts *o)
{
	struct emon_bpf *k = s->skel;
	int err;

	k->rodata->cfg.self_max = o->max_threads;
	if (!o->max_threads)	/* the object's own inner map, one entry */
		return bpf_map__set_max_entries(k->maps.self_arrays, 1);
	if (!o->self_arrays || !o->self_array_slots)
		return -EINVAL;
	err = session__self_make(s, o);
	err = err ?: bpf_map__set_max_entries(k->maps.self_arrays, o->self_arrays);
	/* the outer map's template: the arrays' size (libbpf 1.1 cannot
	 * resize its own, whose obj is NULL) */
	return err ?: bpf_map__set_inner_map_fd(k->maps.self_arrays, s->self_fd[0]);
}

int session__self_open(struct session *s)
{
	int outer = bpf_map__fd(s->skel->maps.self_arrays);

	for (__u32 i = 0; i < s->nr_self; i++)
		if (bpf_map_update_elem(outer, &i, &s->self_fd[i], BPF_ANY))
			return -errno;
	return 0;
}

void session__self_close(struct session *s)
{
	for (__u32 i = 0; i < s->nr_self; i++)
		close(s->self_fd[i]);
	free(s->self_fd);
	s->self_fd = NULL;
	s->nr_self = 0;
}

int session__self_maps(const struct session *s, struct session_self *out)
{
	if (!s->skel || !s->nr_self)
		return -ENOENT;
	*out = (struct session_self){
		.array_fd = s->self_fd,
		.nr_arrays = s->nr_self,
		.array_slots = s->self_slots,
		.arrays_fd = bpf_map__fd(s->skel->maps.self_arrays),
		.task_fd = bpf_map__fd(s->skel->maps.self_task),
		.ctl_fd = bpf_program__fd(s->skel->progs.self_ctl),
	};
	return 0;
}
