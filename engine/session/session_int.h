/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the session's files share (session.c: open, load, close;
 * interval.c: flushes and reads; hotplug.c: CPUs going and
 * coming; tree.c: command trees; self.c: thread slot
 * arrays). Not for the session's users:
 * session.h is theirs.
 */
#ifndef ENGINE_SESSION_SESSION_INT_H
#define ENGINE_SESSION_SESSION_INT_H

#include "engine/session/session.h"
#include "emon.skel.h"

/* A per-CPU value of counts as large as BPF's can be (pcpu_buf's size). */
struct emon_counts_max {
	struct emon_count c[EMON_MAX_EVENTS];
};

/* Event i's fd on cpu, -1 when it is not open there. */
static inline int session__fd(const struct session *s, int i, int cpu)
{
	const struct pmu_event *e = s->events[i];

	return cpu < e->nr_fds ? e->fds[cpu] : -1;
}

/* Put cpu's event fds in the map; an event not open there is taken out. */
int session__install_cpu(struct session *s, int cpu);
/* Run the flush program on cpu: 0, -ENXIO when it is offline, or -errno. */
int session__flush_cpu(struct session *s, int cpu);
/* After an interval's flush and read: follow CPUs going and coming. */
void session__track_cpus(struct session *s, struct session_read *r);
/* Thread self-monitoring (self.c): make its slot arrays and size
 * its maps before the load, put the arrays in self_arrays after it, close
 * them. */
int session__self_size(struct session *s, const struct session_opts *o);
int session__self_open(struct session *s);
void session__self_close(struct session *s);

#endif
