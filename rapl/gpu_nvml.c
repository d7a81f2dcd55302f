// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libnvidia-ml.so.1, opened at run time: no build dependency on NVIDIA's
 * headers or library; a host without the driver runs without GPUs.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "rapl/gpu_nvml.h"

int nvml__load(struct nvml_lib *l, const char *path, char *err, size_t errlen)
{
	static const struct {
		const char *sym;
		size_t off;
	} syms[] = {
		{ "nvmlInit_v2", offsetof(struct nvml_lib, init) },
		{ "nvmlShutdown", offsetof(struct nvml_lib, shutdown) },
		{ "nvmlErrorString", offsetof(struct nvml_lib, error_string) },
		{ "nvmlDeviceGetCount_v2", offsetof(struct nvml_lib, count) },
		{ "nvmlDeviceGetHandleByIndex_v2", offsetof(struct nvml_lib, handle) },
		{ "nvmlDeviceGetName", offsetof(struct nvml_lib, name) },
		{ "nvmlDeviceGetTotalEnergyConsumption", offsetof(struct nvml_lib, energy) },
		{ "nvmlDeviceGetProcessUtilization", offsetof(struct nvml_lib, proc_util) },
	};
	const char *e;

	memset(l, 0, sizeof(*l));
	if (!path)
		path = NVML_LIB_DEFAULT;
	dlerror();
	l->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!l->dl) {
		e = dlerror();
		snprintf(err, errlen, "cannot load %s: %s", path, e ? e : "not found");
		return -ENOENT;
	}
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *f = dlsym(l->dl, syms[i].sym);

		if (!f) {
			snprintf(err, errlen, "%s has no %s (NVML too old)", path,
				 syms[i].sym);
			nvml__unload(l);
			return -ENOSYS;
		}
		/* POSIX: a function pointer converts through void * */
		memcpy((char *)l + syms[i].off, &f, sizeof(f));
	}
	return 0;
}

void nvml__unload(struct nvml_lib *l)
{
	if (l->dl)
		dlclose(l->dl);
	memset(l, 0, sizeof(*l));
}

const char *nvml__strerror(const struct nvml_lib *l, nvmlReturn_t ret)
{
	static __thread char buf[32];
	const char *s = l->error_string ? l->error_string(ret) : NULL;

	if (s && *s)
		return s;
	snprintf(buf, sizeof(buf), "error %d", ret);
	return buf;
}
