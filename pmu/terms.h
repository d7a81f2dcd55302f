/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * perf's PMU event syntax: "PMU/term=value,.../" and "PMU/alias/", the
 * terms taken from the PMU's sysfs format/ files and the aliases from its
 * events/ files (libpfm4 knows neither), with perf's u/k/h modifiers after
 * the last slash: "cpu/event=0x3c,umask=0/u", "cpu_core/topdown-retiring/".
 */
#ifndef PMU_TERMS_H
#define PMU_TERMS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include "pmu/sysfs.h"

/* Is name in the PMU syntax (a slash: no other event name has one)? */
bool pmu_terms__is_pmu_event(const char *name);

/*
 * Encode name into attr (zeroed first; attr.type = the PMU's type, or
 * PERF_TYPE_HARDWARE for a generic name such as "cpu_core/cycles/") and
 * the PMU into *pmu. Returns 0, or -EINVAL with a one-line message in err
 * naming the PMU, or the term and its PMU: an unknown PMU or term, a value
 * bigger than its field, a sampling or cpu= term, a bad modifier.
 */
int pmu_terms__resolve(const struct pmus *pmus, const char *name,
		       struct perf_event_attr *attr,
		       const struct pmu_sysfs **pmu, char *err, size_t errlen);

/* Put value into the bits of f in *word, low bits first; -ERANGE if too big */
int pmu_format__encode(const struct pmu_format *f, __u64 value, __u64 *word);

/*
 * A generic hardware event (cycles, instructions...) on core PMU type
 * of a machine with nr_core core PMUs: with more than one, the kernel
 * takes the PMU from the extended type in config's high bits.
 */
__u64 pmu__hw_config(__u64 config, __u32 type, int nr_core);

#endif
