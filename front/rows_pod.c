// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Pod and namespace rows (--by pod,namespace): a pod is the sum of its
 * containers and of its own cgroup (the pod cgroup Kubernetes makes holds
 * the sandbox where the runtime gives it no container cgroup, and the
 * pod's overhead), a namespace the sum of its pods. A pod is known by its
 * names (namespace/pod, from its containers' runtime files) or by its uid
 * (from the cgroup path) when no container of it has names yet; what is
 * in no pod adds up in "host" (ROW_KEY_HOST, as what is in no container),
 * so the rows still add up to the system.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/array.h"
#include "engine/names/container.h"
#include "front/row_set.h"
#include "common/utf8.h"

struct pod_acc {
	char key[320];		/* "namespace/pod", the uid, a namespace */
	const char *ns, *pod;	/* the snapshot's names, NULL if unknown */
	char uid[CONTAINER_POD_UID_LEN + 1];
	struct counts counts;
	double energy_j;
};

struct pod_list {
	struct pod_acc *p;
	int nr;
};

/* The entry keyed key (pods and namespaces are few: linear is fine). */
static struct pod_acc *pod_list__get(struct pod_list *l, const char *key)
{
	struct pod_acc *p;

	for (int i = 0; i < l->nr; i++)
		if (!strcmp(l->p[i].key, key))
			return &l->p[i];
	p = &l->p[l->nr++];
	memset(p, 0, sizeof(*p));
	snprintf(p->key, sizeof(p->key), "%s", key);
	/* names are any bytes; text and CSV print the key to a terminal */
	utf8_mask_controls(p->key);
	return p;
}

static void pod_acc__add(struct pod_acc *p, const struct counts *c,
			 double energy_j, int nr_events)
{
	counts__add(&p->counts, c, nr_events);
	p->energy_j += energy_j;
}

/* The pod a cgroup is in: by its container's names, else by uid. */
static struct pod_acc *pod_of(const struct aggregate *a, const char *path,
			      struct pod_list *l)
{
	const struct snap_cont *c = NULL;
	struct container_info info;
	char uid[CONTAINER_POD_UID_LEN + 1] = "", key[320];
	struct pod_acc *p;

	if (!container__parse(path, &info)) {
		c = snap_cont__find(a->conts, a->nr_conts, info.id);
		memcpy(uid, info.pod_uid, sizeof(uid));
	} else {
		container__pod_uid(path, uid);
	}
	if (c && c->pod) {
		snprintf(key, sizeof(key), "%s/%s", c->ns ? c->ns : "?", c->pod);
		p = pod_list__get(l, key);
		p->ns = c->ns;
		p->pod = c->pod;
		if (!p->uid[0])
			memcpy(p->uid, uid, sizeof(uid));
		return p;
	}
	if (!uid[0])
		return NULL;
	p = pod_list__get(l, uid);
	memcpy(p->uid, uid, sizeof(uid));
	return p;
}

/* Pods seen by uid only that a named pod has the uid of join it. */
static void pod_list__merge(struct pod_list *l, int nr_events)
{
	for (int i = 0; i < l->nr; i++) {
		struct pod_acc *u = &l->p[i];
		int j;

		if (u->pod || !u->uid[0])
			continue;
		for (j = 0; j < l->nr; j++)
			if (l->p[j].pod && !strcmp(l->p[j].uid, u->uid))
				break;
		if (j == l->nr)
			continue;
		pod_acc__add(&l->p[j], &u->counts, u->energy_j, nr_events);
		l->p[i--] = l->p[--l->nr];
	}
}

static int pod_acc__cmp(const void *a, const void *b)
{
	return strcmp(((const struct pod_acc *)a)->key,
		      ((const struct pod_acc *)b)->key);
}

static int pod_list__rows(const struct row_ctx *sc, const struct aggregate *a,
			  double dt, struct pod_list *l, enum scope s,
			  const struct pod_acc *none, struct row_set *rs)
{
	struct row *r;

	if (l->nr > 1)	/* p is NULL while there is no pod */
		qsort(l->p, l->nr, sizeof(*l->p), pod_acc__cmp);
	for (int i = 0; i < l->nr; i++) {
		r = row_set__add(rs, s, l->p[i].key);
		if (!r)
			return -ENOMEM;
		r->ns = l->p[i].ns;
		r->pod = l->p[i].pod;
		r->pod_uid = l->p[i].uid[0] ? l->p[i].uid : NULL;
		r->counts = l->p[i].counts;
		row_set__energy(sc, a, r, l->p[i].energy_j, dt);
	}
	r = row_set__add(rs, s, ROW_KEY_HOST);
	if (!r)
		return -ENOMEM;
	r->counts = none->counts;
	row_set__energy(sc, a, r, none->energy_j, dt);
	return 0;
}

/* Storage for both lists: at most one pod per cgroup, one namespace per
 * pod, and the rows point into it until the next interval. */
static int pod_storage(struct row_set *rs, size_t n)
{
	return array__grow(&rs->pods, &rs->cap_pods, n, sizeof(*rs->pods));
}

int row_set__pods(const struct row_ctx *sc, const struct aggregate *a,
		  double dt, struct row_set *rs)
{
	bool pods = sc->opts->by & (1u << SCOPE_POD);
	bool nss = sc->opts->by & (1u << SCOPE_NAMESPACE);
	struct pod_acc none = {}, ns_none = {};
	struct pod_list pl, nl;
	struct idmap_slot *s;
	size_t it = 0;
	int err;

	err = pod_storage(rs, 2 * (a->cgrps.nr + 1));
	if (err)
		return err;
	pl = (struct pod_list){ rs->pods, 0 };
	while ((s = idmap__next(&a->cgrps, &it))) {
		const struct agg_entry *e = s->val;
		struct pod_acc *p = pod_of(a, e->name ? e->name : "", &pl);

		pod_acc__add(p ? p : &none, &e->total, e->energy_j, a->nr_events);
	}
	pod_acc__add(&none, &a->ovf_cgrp->total, a->ovf_cgrp->energy_j,
		     a->nr_events);
	pod_list__merge(&pl, a->nr_events);
	nl = (struct pod_list){ rs->pods + pl.nr, 0 };
	ns_none = none;
	for (int i = 0; nss && i < pl.nr; i++) {
		struct pod_acc *n = pl.p[i].ns ? pod_list__get(&nl, pl.p[i].ns) :
				    &ns_none;

		n->ns = pl.p[i].ns;
		pod_acc__add(n, &pl.p[i].counts, pl.p[i].energy_j, a->nr_events);
	}
	if (pods)
		err = pod_list__rows(sc, a, dt, &pl, SCOPE_POD, &none, rs);
	if (!err && nss)
		err = pod_list__rows(sc, a, dt, &nl, SCOPE_NAMESPACE, &ns_none, rs);
	return err;
}
