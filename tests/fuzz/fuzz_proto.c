// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The bytes that cross the daemon's socket (include/emon_proto.h), into
 * each parser: the daemon's request check (server__parse_request), the
 * client's hello (snap_meta__decode) and snapshot (snapshot__decode)
 * decoders (containers' names included). The first byte picks one; snapshots also come assembled with
 * a consistent length from the input (sizes, counts, names), so the fuzzer
 * reaches past the length check. Promises: an answer, never a crash or a
 * read out of bounds; a decoded snapshot's names are strings inside it.
 */
#include <errno.h>
#include "emon_proto.h"
#include "daemon/socket/server.h"
#include "engine/snapshot/snapshot.h"
#include "tests/fuzz/fuzz.h"

static int cpu_pkg[2] = { 0, 0 }, pkg_id[1] = { 0 };
static const struct snap_meta meta = {
	.ncpus = 2, .npkg = 1, .nr_events = 3,
	.cpu_pkg = cpu_pkg, .pkg_id = pkg_id,
};

static void check_snapshot(const void *buf, size_t len)
{
	struct snapshot s;
	int ret = snapshot__decode(&s, &meta, buf, len);

	FUZZ_ASSERT(ret == 0 || ret == -EBADMSG || ret == -ENOMEM);
	if (ret)
		return;
	FUZZ_ASSERT(s.nr_events <= EMON_MAX_EVENTS);
	for (size_t i = 0; i < s.nr_cgrp; i++)
		FUZZ_ASSERT(!s.cgrp[i].name || strlen(s.cgrp[i].name) < len);
	for (size_t i = 0; i < s.nr_proc; i++)
		FUZZ_ASSERT(!s.proc[i].name || strlen(s.proc[i].name) < len);
	for (size_t i = 0; i < s.nr_cont; i++) {
		FUZZ_ASSERT(s.cont[i].id && strlen(s.cont[i].id) < len);
		FUZZ_ASSERT(!s.cont[i].pod || strlen(s.cont[i].pod) < len);
		FUZZ_ASSERT(snap_cont__find(s.cont, s.nr_cont, s.cont[i].id));
	}
	snapshot__free(&s);
}

/* A snapshot whose sizes agree with its length, its bytes from data. */
static void assembled(const uint8_t *data, size_t size)
{
	struct emon_snap_hdr h = { 0 };
	size_t ent, len, off;
	char *buf;

	if (size < 4)
		return;
	h.ncpus = 2;
	h.npkg = 1;
	h.nr_events = data[0] % (EMON_MAX_EVENTS + 1);
	h.nr_cgrp = data[1] % 8;
	h.nr_proc = data[2] % 8;
	h.strings = data[3] % 64;
	h.nr_cont = data[3] >> 6;
	for (int i = 0; i < EMON_MAX_EVENTS; i++)
		h.ev[i] = i % 4;	/* 3 is out of meta's range */
	ent = sizeof(struct emon_snap_entry) + h.nr_events * sizeof(struct emon_count);
	len = sizeof(h) + 2 * (sizeof(struct emon_snap_cpu) +
			       h.nr_events * sizeof(struct emon_count)) +
	      sizeof(struct emon_snap_pkg) +
	      (EMON_SNAP_FIXED + h.nr_cgrp + h.nr_proc) * ent +
	      h.nr_cont * sizeof(struct emon_snap_cont) + h.strings;
	buf = calloc(1, len);
	if (!buf)
		abort();
	memcpy(buf, &h, sizeof(h));
	off = sizeof(h);
	/* the rest from the input, name offsets included */
	for (size_t i = 4; i < size && off < len; i++)
		buf[off++] = data[i];
	check_snapshot(buf, len);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct emon_msg_hdr h;
	struct snap_meta m;
	char err[128], *p;
	int ret;

	if (!size)
		return 0;
	p = malloc(size - 1 ? size - 1 : 1);
	if (!p)
		abort();
	memcpy(p, data + 1, size - 1);
	switch (data[0] % 4) {
	case 0:
		if (size - 1 < sizeof(h))
			break;
		memcpy(&h, p, sizeof(h));
		ret = server__parse_request(&h, NULL, err, sizeof(err));
		FUZZ_ASSERT(ret == 0 || ret == -EPROTO || ret == -EMSGSIZE);
		if (ret || h.len != size - 1 - sizeof(h))
			break;
		ret = server__parse_request(&h, p + sizeof(h), err, sizeof(err));
		FUZZ_ASSERT(ret == EMON_MSG_SNAPSHOT_REQ || ret == EMON_MSG_TRACK_REQ ||
			    ret == EMON_MSG_SELF_REQ || ret == -EPROTO || ret == -EINVAL);
		break;
	case 1:
		ret = snap_meta__decode(&m, p, size - 1);
		FUZZ_ASSERT(ret == 0 || ret == -EBADMSG || ret == -ENOMEM);
		if (!ret) {
			FUZZ_ASSERT(m.nr_events + m.nr_unsup <= EMON_MAX_EVENTS);
			for (int cpu = 0; cpu < m.ncpus; cpu++)
				FUZZ_ASSERT(m.cpu_pkg[cpu] >= 0 && m.cpu_pkg[cpu] < m.npkg);
			snap_meta__free(&m);
		}
		break;
	case 2:
		check_snapshot(p, size - 1);
		break;
	case 3:
		assembled(data + 1, size - 1);
		break;
	}
	free(p);
	return 0;
}
