/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The few parts of NVIDIA's NVML API (nvml.h, "NVML API Reference") that
 * the GPU source calls, declared here from the documented API so that
 * nothing of NVIDIA's is needed to build: libnvidia-ml.so.1 is opened at
 * run time (dlopen) and each function looked up by name (dlsym).
 *
 *   nvmlInit_v2, nvmlShutdown, nvmlErrorString
 *   nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2, nvmlDeviceGetName
 *   nvmlDeviceGetTotalEnergyConsumption   mJ since the driver was loaded
 *                                         (Volta and newer)
 *   nvmlDeviceGetProcessUtilization       per-process samples (SM, memory,
 *                                         encoder, decoder %) since a CPU
 *                                         timestamp in us (Maxwell and newer)
 */
#ifndef RAPL_GPU_NVML_H
#define RAPL_GPU_NVML_H

#include <stddef.h>

/* nvmlReturn_t: the values this code tells apart (the rest are errors). */
typedef int nvmlReturn_t;
#define NVML_SUCCESS			0
#define NVML_ERROR_UNINITIALIZED	1
#define NVML_ERROR_INVALID_ARGUMENT	2
#define NVML_ERROR_NOT_SUPPORTED	3
#define NVML_ERROR_NO_PERMISSION	4
#define NVML_ERROR_NOT_FOUND		6
#define NVML_ERROR_INSUFFICIENT_SIZE	7
#define NVML_ERROR_DRIVER_NOT_LOADED	9
#define NVML_ERROR_GPU_IS_LOST		15
#define NVML_ERROR_NO_DATA		21
#define NVML_ERROR_UNKNOWN		999

typedef struct nvmlDevice_st *nvmlDevice_t;

/* nvmlProcessUtilizationSample_t */
typedef struct nvmlProcessUtilizationSample_st {
	unsigned int pid;
	unsigned long long timeStamp;	/* CPU timestamp, us */
	unsigned int smUtil;		/* % of the sample period */
	unsigned int memUtil;
	unsigned int encUtil;
	unsigned int decUtil;
} nvmlProcessUtilizationSample_t;

#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96

/* The library's functions, looked up by name. */
struct nvml_lib {
	void *dl;
	nvmlReturn_t (*init)(void);				/* nvmlInit_v2 */
	nvmlReturn_t (*shutdown)(void);				/* nvmlShutdown */
	const char *(*error_string)(nvmlReturn_t);		/* nvmlErrorString */
	nvmlReturn_t (*count)(unsigned int *);			/* nvmlDeviceGetCount_v2 */
	nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t *);	/* ..GetHandleByIndex_v2 */
	nvmlReturn_t (*name)(nvmlDevice_t, char *, unsigned int);
	nvmlReturn_t (*energy)(nvmlDevice_t, unsigned long long *);
	nvmlReturn_t (*proc_util)(nvmlDevice_t, nvmlProcessUtilizationSample_t *,
				  unsigned int *, unsigned long long);
};

/* The library NVML's users load by default. */
#define NVML_LIB_DEFAULT "libnvidia-ml.so.1"

/*
 * dlopen path (NULL: NVML_LIB_DEFAULT) and look up every function. 0, or
 * -ENOENT (no such library: err says dlerror's words) or -ENOSYS (a
 * function missing: err names it); nothing is left open on failure.
 */
int nvml__load(struct nvml_lib *l, const char *path, char *err, size_t errlen);
void nvml__unload(struct nvml_lib *l);
/* NVML's own words for ret, or "error N" when the library has none. */
const char *nvml__strerror(const struct nvml_lib *l, nvmlReturn_t ret);

#endif /* RAPL_GPU_NVML_H */
