// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The kernel feature table (engine/session/features.h). Each probe asks the
 * kernel's BTF (a kfunc is a FUNC there, a tracepoint's arguments are its
 * btf_trace_* prototype) or libbpf's probes (a program or map type, a
 * helper), never the version string: distributions backport.
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <string.h>
#include <unistd.h>
#include "engine/session/features.h"
#include "engine/session/session.h"

static struct kfeature table[KF_NR] = {
	[KF_BTF] = { "btf", "5.4", "the kernel's types, for CO-RE and tp_btf",
		     "nothing loads (CONFIG_DEBUG_INFO_BTF=y)" },
	[KF_TP_BTF] = { "tp_btf", "5.5", "the sched_switch program",
			"nothing loads" },
	[KF_TASK_STORAGE] = { "task storage", "5.11",
			      "each task's last CPU and scheduler state", "nothing loads" },
	[KF_CURRENT_TASK_BTF] = { "get_current_task_btf", "5.11",
				  "the flush program's running task", "nothing loads" },
	[KF_READ_VALUE] = { "perf_event_read_value", "4.15",
			    "counters with their enabled and running times",
			    "nothing loads" },
	[KF_TEST_RUN_ON_CPU] = { "test-run on a CPU", "5.10",
				 "the flush at each interval's edge", "nothing loads" },
	[KF_RDONLY_CAST] = { "bpf_rdonly_cast", "6.2",
			     "software events (page-faults, ...) loaded in place at a switch",
			     "read with bpf_perf_event_read(): about 30 ns more a read" },
	[KF_PIDFD_THREAD] = { "pidfd of a thread", "6.9",
			      "serve --threads: a registered thread pinned against tid reuse",
			      "serve --threads is refused (libemon's self-monitoring)" },
	[KF_EXIT_GROUP_DEAD] = { "exit group_dead", "6.16",
				 "--sched's exit rows from sched_process_exit",
				 "--sched without exit rows" },
};
static bool probed;

/* The arguments of tracepoint tp in the kernel's BTF, -1: not known. */
static int tp_nargs(const struct btf *btf, const char *tp)
{
	const struct btf_type *t;
	char name[128];
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) : -1;
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	t = t ? btf__type_by_id(btf, t->type) : NULL;		/* pointer */
	t = t && btf_is_ptr(t) ? btf__type_by_id(btf, t->type) : NULL;	/* proto */
	return t && btf_is_func_proto(t) ? btf_vlen(t) - 1 : -1;	/* less __data */
}

/* A probe's answer: 1 there, 0 not, -errno when the probe failed. */
static void set(enum kfeature_id id, int probe)
{
	table[id].have = probe == 1;
	table[id].unknown = probe < 0;
	table[id].err = probe < 0 ? probe : 0;
}

/*
 * BPF_F_TEST_RUN_ON_CPU came with raw_tp test-runs' cpu field (5.10);
 * the kernel's BTF has the flag's enum since then only if built with it,
 * so the test is the attr's layout: bpf_attr.test.cpu.
 */
static int probe_test_run_on_cpu(const struct btf *btf)
{
	int id = btf__find_by_name_kind(btf, "bpf_attr", BTF_KIND_UNION);
	const struct btf_type *u = id > 0 ? btf__type_by_id(btf, id) : NULL;

	for (int i = 0; u && i < btf_vlen(u); i++) {
		const struct btf_member *m = btf_members(u) + i;
		const struct btf_type *t = btf__type_by_id(btf, m->type);

		if (!btf_is_struct(t))
			continue;
		for (int j = 0; j < btf_vlen(t); j++)
			if (!strcmp(btf__name_by_offset(btf, btf_members(t)[j].name_off),
				    "data_size_out"))	/* the test-run struct */
				goto found;
		continue;
found:
		for (int j = 0; j < btf_vlen(t); j++)
			if (!strcmp(btf__name_by_offset(btf, btf_members(t)[j].name_off), "cpu"))
				return 1;
	}
	return 0;
}

/* PIDFD_THREAD (O_EXCL) is an unknown flag, EINVAL, before 6.9. */
static int probe_pidfd_thread(void)
{
	int fd = syscall(SYS_pidfd_open, (pid_t)syscall(SYS_gettid), O_EXCL);

	if (fd < 0)
		return errno == EINVAL ? 0 : -errno;
	close(fd);
	return 1;
}

static void kfeatures__probe(void)
{
	struct btf *btf;

	probed = true;
	session__setup_libbpf();	/* libbpf's probe messages only with -v */
	btf = btf__load_vmlinux_btf();
	set(KF_BTF, btf ? 1 : 0);
	if (!btf) {
		for (int i = KF_BTF + 1; i < KF_NR; i++)
			set(i, -ENOENT);
		return;
	}
	set(KF_TP_BTF, btf__find_by_name_kind(btf, "btf_trace_sched_switch",
					      BTF_KIND_TYPEDEF) > 0);
	set(KF_TASK_STORAGE, libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL));
	set(KF_CURRENT_TASK_BTF, libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT,
							 BPF_FUNC_get_current_task_btf, NULL));
	set(KF_READ_VALUE, libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT,
						   BPF_FUNC_perf_event_read_value, NULL));
	set(KF_TEST_RUN_ON_CPU, probe_test_run_on_cpu(btf));
	set(KF_RDONLY_CAST, btf__find_by_name_kind(btf, "bpf_rdonly_cast",
						   BTF_KIND_FUNC) > 0);
	set(KF_PIDFD_THREAD, probe_pidfd_thread());
	set(KF_EXIT_GROUP_DEAD, tp_nargs(btf, "sched_process_exit") >= 2);
	btf__free(btf);
}

/*
 * EMON_KFEATURE_OFF=NAME[,NAME...] (check's row names): those features
 * taken as missing, so that a kernel that has them runs the path one
 * without them takes (the tests: the refusal's line, the slower paths).
 */
static void kfeatures__env_off(void)
{
	const char *env = getenv("EMON_KFEATURE_OFF");

	for (int i = 0; env && i < KF_NR; i++) {
		size_t n = strlen(table[i].name);

		for (const char *p = env; (p = strstr(p, table[i].name)); p += n)
			if ((p == env || p[-1] == ',') && (p[n] == ',' || !p[n])) {
				table[i].have = false;
				table[i].unknown = false;
			}
	}
}

const struct kfeature *kfeatures__get(void)
{
	if (!probed) {
		kfeatures__probe();
		kfeatures__env_off();
	}
	return table;
}

bool kfeature__have(enum kfeature_id id)
{
	return kfeatures__get()[id].have;
}

int kfeatures__missing(void)
{
	const struct kfeature *t = kfeatures__get();

	for (int i = 0; i < KF_NR_NEEDED; i++)
		if (!t[i].have && !t[i].unknown)
			return i;
	return -1;
}
