// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf list: the events this machine can count.
 *
 * The generic events come from libpfm4's "perf" PMU, the same table the
 * parser resolves names with, so the list and -e can never disagree. Each
 * is opened once on CPU 0 the way stat opens it (pid = -1): libpfm4 knows
 * names, only the kernel knows whether a PMU is there to count them.
 */
#define _GNU_SOURCE	/* strcasestr */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
/* linux/perf_event.h (via event.h) first: libpfm4 then skips its copy */
#include "common/array.h"
#include "common/log.h"
#include "pmu/event.h"
#include <perfmon/pfmlib_perf_event.h>

#define LIST_NAMES_LEN 96
#define LIST_COL 50

struct list_row {
	char names[LIST_NAMES_LEN];	/* "cycles OR cpu-cycles" */
	__u32 type;
	__u64 config;
	int err;			/* probe on CPU 0: 0 or -errno */
	bool from_switch;		/* counted by the switch program: no perf_event */
	char pmus[96];			/* several core PMUs: those that count it */
};

struct list_rows {
	struct list_row *row;
	int nr;
	size_t cap;
	bool denied;			/* some probe got EACCES/EPERM */
};

/* libpfm4 spells them "L1-DCACHE-LOADS"; perf users type "L1-dcache-loads" */
static void name__to_perf_style(const char *pfm_name, char *buf, size_t len)
{
	static const struct {
		const char *lower, *perf;
	} prefixes[] = {
		{ "l1-", "L1-" },
		{ "llc-", "LLC-" },
		{ "dtlb-", "dTLB-" },
		{ "itlb-", "iTLB-" },
	};
	size_t i;

	for (i = 0; i + 1 < len && pfm_name[i]; i++)
		buf[i] = tolower((unsigned char)pfm_name[i]);
	buf[i] = '\0';
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t n = strlen(prefixes[i].lower);

		if (!strncmp(buf, prefixes[i].lower, n))
			memcpy(buf, prefixes[i].perf, n);
	}
}

static const char *type__label(__u32 type)
{
	switch (type) {
	case PERF_TYPE_HARDWARE:
		return "Hardware event";
	case PERF_TYPE_SOFTWARE:
		return "Software event";
	case PERF_TYPE_HW_CACHE:
		return "Hardware cache event";
	default:
		return "Other event";
	}
}

static const char *probe__marker(int err)
{
	if (!err || err == -EACCES || err == -EPERM)
		return "";
	if (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV ||
	    err == -EINVAL)
		return " <not supported>";
	return " <cannot open>";
}

/*
 * On a machine of several core PMUs, which of them count e: each probed
 * on its first CPU, as stat opens it there.
 */
static void list_row__probe_pmus(struct list_row *r, const struct pmu_event *e)
{
	size_t n = 0;

	r->pmus[0] = '\0';
	for (int i = 0; i < e->nr_variants && n < sizeof(r->pmus); i++) {
		const struct pmu_sysfs *pmu = e->variant[i].pmu;
		int cpu = 0;

		while (cpu < PMU_MAX_CPUS - 1 && !pmu_sysfs__has_cpu(pmu, cpu))
			cpu++;
		if (!e->variant[i].absent && !pmu_event__probe(e, cpu))
			n += snprintf(r->pmus + n, sizeof(r->pmus) - n, "%s%s",
				      n ? ", " : " on ", pmu->name);
	}
}

/* Add name as a new row, or as an alias of the row counting the same. */
static int list_rows__add(struct list_rows *rows, const char *name)
{
	char pfm_name[sizeof("perf::") + LIST_NAMES_LEN], err[256];
	struct list_row *r;
	struct pmu_event e;
	int i, ret;

	/* perf:: keeps a CPU PMU event of the same name from shadowing it */
	snprintf(pfm_name, sizeof(pfm_name), "perf::%s", name);
	ret = pmu_event__resolve(&e, pfm_name, err, sizeof(err));
	if (ret)
		goto out;
	for (i = 0; i < rows->nr; i++) {
		r = &rows->row[i];
		if (r->type == e.attr.type && r->config == e.attr.config) {
			size_t n = strlen(r->names);

			snprintf(r->names + n, sizeof(r->names) - n, " OR %s",
				 name);
			goto out;
		}
	}
	if (array__grow(&rows->row, &rows->cap, rows->nr + 1,
			sizeof(*rows->row))) {
		ret = -ENOMEM;
		goto out;
	}
	r = &rows->row[rows->nr++];
	snprintf(r->names, sizeof(r->names), "%s", name);
	r->type = e.attr.type;
	r->config = e.attr.config;
	r->err = pmu_event__probe(&e, 0);
	r->from_switch = !pmu_event__has_counter(&e);
	list_row__probe_pmus(r, &e);
	if (r->pmus[0])
		r->err = 0;	/* counted by some core PMU, if not CPU 0's */
	if (r->err == -EACCES || r->err == -EPERM)
		rows->denied = true;
out:
	return ret;
}

/*
 * The perf PMU lists each event under its PERF_COUNT_ name and then its
 * perf aliases: keep the aliases, in libpfm4's order.
 */
static int list_rows__collect(struct list_rows *rows)
{
	char name[LIST_NAMES_LEN];
	pfm_event_info_t info;
	pfm_pmu_info_t pinfo;
	int idx, ret;

	memset(&pinfo, 0, sizeof(pinfo));
	pinfo.size = sizeof(pinfo);
	ret = pfm_get_pmu_info(PFM_PMU_PERF_EVENT, &pinfo);
	if (ret != PFM_SUCCESS || !pinfo.is_present) {
		ret = -ENOENT;
		goto out;
	}
	ret = 0;
	for (idx = pinfo.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &info))
			continue;
		if (!strncmp(info.name, "PERF_COUNT_", 11))
			continue;
		name__to_perf_style(info.name, name, sizeof(name));
		ret = list_rows__add(rows, name);
		if (ret == -ENOMEM)
			goto out;
		ret = 0;	/* a name libpfm4 cannot encode is not listed */
	}
out:
	return ret;
}

static int list_row__cmp(const void *a, const void *b)
{
	const struct list_row *x = a, *y = b;

	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	return strcasecmp(x->names, y->names);
}

static void generic__print(FILE *out, const struct list_rows *rows)
{
	__u32 type = ~0U;
	int i;

	fprintf(out, "List of pre-defined events (to be used in -e):\n");
	for (i = 0; i < rows->nr; i++) {
		const struct list_row *r = &rows->row[i];

		if (r->type != type)
			fputc('\n', out);
		type = r->type;
		fprintf(out, "  %-*s [%s%s]%s%s\n", LIST_COL, r->names,
			type__label(r->type), r->pmus, probe__marker(r->err),
			r->from_switch ? " (from the switch: no perf_event)" : "");
	}
	fprintf(out, "\n  %-*s [Raw hardware event descriptor]\n", LIST_COL,
		"rNNNN");
	fprintf(out, "\n  Modifiers: :u user, :k kernel, :h hypervisor, combined as :uk or :u:k\n");
	if (rows->denied)
		fprintf(out, "\n  Support not checked: %s\n",
			pmu_event__strerror(-EACCES));
}

/*
 * Whether the kernel has this PMU: open its first event that libpfm4 can
 * encode without a unit mask. libpfm4 detects PMUs from CPUID, which a VM
 * reports although it exposes no counters.
 */
static int pmu__probe(const pfm_pmu_info_t *pinfo)
{
	char name[PMU_EVENT_NAME_LEN], err[256];
	pfm_event_info_t info;
	struct pmu_event e;
	int idx, ret = -ENOENT;

	for (idx = pinfo->first_event; idx != -1; idx = pfm_get_event_next(idx)) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &info))
			continue;
		snprintf(name, sizeof(name), "%s::%s", pinfo->name, info.name);
		if (pmu_event__resolve(&e, name, err, sizeof(err)))
			continue;
		ret = pmu_event__probe(&e, 0);
		break;
	}
	return ret;
}

static int str__cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The PMU's event names, sorted, as pmu::EVENT. */
static int pmu__print_events(FILE *out, const pfm_pmu_info_t *pinfo)
{
	pfm_event_info_t info;
	const char **names;
	int idx, i, nr = 0, ret = 0;

	names = calloc(pinfo->nevents > 0 ? pinfo->nevents : 1,
		       sizeof(*names));
	if (!names) {
		ret = -ENOMEM;
		goto out;
	}
	for (idx = pinfo->first_event; idx != -1 && nr < pinfo->nevents;
	     idx = pfm_get_event_next(idx)) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (!pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &info))
			names[nr++] = info.name;
	}
	qsort(names, nr, sizeof(*names), str__cmp);
	for (i = 0; i < nr; i++)
		fprintf(out, "    %s::%s\n", pinfo->name, names[i]);
out:
	free(names);
	return ret;
}

static int pmu_info__cmp(const void *a, const void *b)
{
	const pfm_pmu_info_t *x = a, *y = b;

	return strcmp(x->name, y->name);
}

const char *pmu__rapl_marker(const char *pmu, const char *sysfs_root,
			     const char *powercap_root)
{
	char path[PATH_MAX];

	if (!strcasestr(pmu, "rapl"))
		return NULL;
	snprintf(path, sizeof(path), "%s/power", sysfs_root);
	if (!access(path, F_OK))
		return " (RAPL here: the kernel's 'power' PMU)";
	snprintf(path, sizeof(path), "%s/intel-rapl:0", powercap_root);
	if (!access(path, F_OK))
		return " (RAPL here: powercap zones, no 'power' PMU)";
	return " <not supported>: no RAPL on this host (no 'power' PMU, no powercap zone; emon-perf check)";
}

/* The CPU's own PMUs as libpfm4 knows them: not the generic perf ones. */
static int pmus__print(FILE *out, bool verbose)
{
	pfm_pmu_info_t *pmus = NULL, pinfo;
	int nr = 0, i, ret = 0;
	size_t cap = 0;
	pfm_pmu_t p;

	pfm_for_all_pmus(p) {
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm_get_pmu_info(p, &pinfo) || !pinfo.is_present ||
		    pinfo.type == PFM_PMU_TYPE_OS_GENERIC)
			continue;
		if (array__grow(&pmus, &cap, nr + 1, sizeof(*pmus))) {
			ret = -ENOMEM;
			goto out;
		}
		pmus[nr++] = pinfo;
	}
	if (nr)		/* qsort(NULL, 0, ...) is undefined */
		qsort(pmus, nr, sizeof(*pmus), pmu_info__cmp);

	fprintf(out, "\nPMU-specific events (libpfm4; -e EVENT or -e pmu::EVENT):\n\n");
	for (i = 0; i < nr; i++) {
		bool core = pmus[i].type == PFM_PMU_TYPE_CORE;
		/* libpfm4 finds RAPL by the CPU's model, whether or not the
		 * kernel exposes it (a VM): say which, as check does */
		const char *rapl = core ? NULL :
			pmu__rapl_marker(pmus[i].name, PMU_SYSFS_ROOT, "/sys/class/powercap");

		fprintf(out, "  %-*s [%s, %d event%s]%s\n", LIST_COL,
			pmus[i].name, core ? "core PMU" : rapl ? "energy PMU" :
			"uncore PMU, not countable per CPU", pmus[i].nevents,
			pmus[i].nevents == 1 ? "" : "s",
			core ? probe__marker(pmu__probe(&pmus[i])) : rapl ?: "");
		if (verbose) {
			ret = pmu__print_events(out, &pmus[i]);
			if (ret)
				goto out;
		}
	}
	if (!nr)
		fprintf(out, "  none found\n");
	else if (!verbose)
		fprintf(out, "\nRun 'emon-perf list -v' for their event names.\n");
out:
	free(pmus);
	return ret;
}

int pmu__list(FILE *out, bool verbose)
{
	struct list_rows rows = {};
	char err[256];
	int ret;

	ret = pmu__init(err, sizeof(err));
	if (ret) {
		pr_err("%s", err);
		goto out;
	}
	ret = list_rows__collect(&rows);
	if (ret) {
		pr_err("libpfm4 has no perf PMU: %s", strerror(-ret));
		goto out;
	}
	qsort(rows.row, rows.nr, sizeof(*rows.row), list_row__cmp);
	generic__print(out, &rows);
	ret = pmus__print(out, verbose);
	if (!ret)
		pmus__list(out, verbose);
out:
	free(rows.row);
	return ret;
}
