// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A fake libnvidia-ml.so.1 for the GPU tests: the NVML functions
 * emon-perf calls (rapl/gpu_nvml.h), over GPUs whose energy is a known
 * ramp from the clock and whose processes have known SM utilization.
 * Configured by the environment when nvmlInit_v2 is called:
 *
 *   FAKE_NVML_GPUS=W0,W1,...  one GPU per figure, drawing W watts: its
 *                 energy counter is 1,000,000 mJ + W x (CLOCK_MONOTONIC
 *                 seconds since init) x 1000, rounded down
 *   FAKE_NVML_PROCS=G:PID:SM,...  process PID uses SM % of GPU G's SMs
 *                 in every sample period; G:@COMM:SM: every process
 *                 named COMM at the time of the call (a command started
 *                 after the init)
 *   FAKE_NVML_PERIOD_MS=P     the driver's sample period (default 100):
 *                 one sample per process of a GPU at each multiple of P
 *                 (CLOCK_REALTIME, us), the last 20 kept
 *   FAKE_NVML_LOST=G:S        GPU G is lost S seconds after its second
 *                 energy read (the first after a caller's baseline, so
 *                 that its set-up time does not count), with
 *                 NVML_ERROR_GPU_IS_LOST from then on
 *   FAKE_NVML_NO_UTIL=G       GPU G has no per-process utilization
 *                 (NVML_ERROR_NOT_SUPPORTED)
 *   FAKE_NVML_INIT=N          nvmlInit_v2 returns N (9: driver not loaded)
 *   FAKE_NVML_LOG=FILE        each energy read appended: "G T_NS MJ"
 *
 * Built by the Makefile as $(OUTPUT)/tests/fake-nvml/libnvidia-ml.so.1.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct {
	unsigned int pid;
	unsigned long long timeStamp;
	unsigned int smUtil, memUtil, encUtil, decUtil;
} nvmlProcessUtilizationSample_t;

#define MAXG 20	/* past emon-perf's 16 */
#define MAXP 64
#define KEEP 20

static struct {
	int ngpu;
	double watts[MAXG];
	double lost_s[MAXG];	/* < 0: never */
	int reads[MAXG];	/* energy reads so far */
	double second[MAXG];	/* the time of the second */
	int no_util[MAXG];
	struct { int g; unsigned int pid, sm; char comm[16]; } proc[MAXP];
	int nproc;
	/* this call's: the named ones found in /proc, the others as they are */
	struct { int g; unsigned int pid, sm; } now[MAXP];
	int nnow;
	unsigned long long period_us;
	double t0;
	int inited;
	FILE *log;
} f;

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned long long real_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000;
}

static int dev_index(nvmlDevice_t d)
{
	long i = (long)d - 1;

	return i >= 0 && i < f.ngpu ? (int)i : -1;
}

nvmlReturn_t nvmlInit_v2(void)
{
	const char *s = getenv("FAKE_NVML_INIT");
	char *end;

	if (s && atoi(s))
		return atoi(s);
	memset(&f, 0, sizeof(f));
	for (int i = 0; i < MAXG; i++)
		f.lost_s[i] = -1;
	s = getenv("FAKE_NVML_GPUS");
	while (s && *s && f.ngpu < MAXG) {
		f.watts[f.ngpu++] = strtod(s, &end);
		s = *end == ',' ? end + 1 : end;
		if (end == s && *s)
			return 2;
	}
	s = getenv("FAKE_NVML_PROCS");
	while (s && *s && f.nproc < MAXP) {
		int g; unsigned int pid, sm, n;

		char comm[16];

		if (sscanf(s, "%d:@%15[^:]:%u%n", &g, comm, &sm, (int *)&n) == 3) {
			f.proc[f.nproc].g = g;
			f.proc[f.nproc].sm = sm;
			strcpy(f.proc[f.nproc++].comm, comm);
			s += n;
			if (*s == ',')
				s++;
			continue;
		}
		if (sscanf(s, "%d:%u:%u%n", &g, &pid, &sm, (int *)&n) != 3)
			return 2;
		f.proc[f.nproc].g = g;
		f.proc[f.nproc].pid = pid;
		f.proc[f.nproc++].sm = sm;
		s += n;
		if (*s == ',')
			s++;
	}
	s = getenv("FAKE_NVML_LOST");
	if (s) {
		int g = atoi(s);
		const char *c = strchr(s, ':');

		if (g >= 0 && g < MAXG && c)
			f.lost_s[g] = strtod(c + 1, NULL);
	}
	s = getenv("FAKE_NVML_NO_UTIL");
	if (s && atoi(s) >= 0 && atoi(s) < MAXG)
		f.no_util[atoi(s)] = 1;
	s = getenv("FAKE_NVML_PERIOD_MS");
	f.period_us = (s ? strtoull(s, NULL, 10) : 100) * 1000;
	if (!f.period_us)
		f.period_us = 100000;
	s = getenv("FAKE_NVML_LOG");
	f.log = s ? fopen(s, "a") : NULL;
	if (f.log)
		setvbuf(f.log, NULL, _IOLBF, 0);
	f.t0 = mono();
	f.inited = 1;
	return 0;
}

nvmlReturn_t nvmlShutdown(void)
{
	if (!f.inited)
		return 1;
	if (f.log)
		fclose(f.log);
	f.inited = 0;
	return 0;
}

const char *nvmlErrorString(nvmlReturn_t r)
{
	switch (r) {
	case 0: return "Success";
	case 1: return "Uninitialized";
	case 2: return "Invalid Argument";
	case 3: return "Not Supported";
	case 7: return "Insufficient Size";
	case 9: return "Driver Not Loaded";
	case 15: return "GPU is lost";
	default: return "Unknown Error";
	}
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n)
{
	if (!f.inited)
		return 1;
	*n = f.ngpu;
	return 0;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d)
{
	if (!f.inited)
		return 1;
	if (i >= (unsigned int)f.ngpu)
		return 2;
	*d = (nvmlDevice_t)(long)(i + 1);
	return 0;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int len)
{
	int i = dev_index(d);

	if (i < 0)
		return 2;
	snprintf(name, len, "Fake GPU %d", i);
	return 0;
}

static int lost(int i, double t)
{
	return f.lost_s[i] >= 0 && f.reads[i] >= 2 && t - f.second[i] >= f.lost_s[i];
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t d, unsigned long long *mj)
{
	int i = dev_index(d);
	double t = mono();

	if (!f.inited)
		return 1;
	if (i < 0)
		return 2;
	if (lost(i, t))
		return 15;
	if (++f.reads[i] == 2)
		f.second[i] = t;
	*mj = 1000000ULL + (unsigned long long)(f.watts[i] * (t - f.t0) * 1000);
	if (f.log)
		fprintf(f.log, "%d %.0f %llu\n", i, t * 1e9, *mj);
	return 0;
}

/* The processes of this call: the named ones as /proc has them now. */
static void procs_now(void)
{
	struct dirent *d;
	DIR *dir = NULL;

	f.nnow = 0;
	for (int p = 0; p < f.nproc && f.nnow < MAXP; p++) {
		if (!f.proc[p].comm[0]) {
			f.now[f.nnow].g = f.proc[p].g;
			f.now[f.nnow].pid = f.proc[p].pid;
			f.now[f.nnow++].sm = f.proc[p].sm;
			continue;
		}
		dir = opendir("/proc");
		while (dir && (d = readdir(dir)) && f.nnow < MAXP) {
			char path[300], comm[32] = "";
			FILE *c;

			if (!isdigit((unsigned char)d->d_name[0]))
				continue;
			snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
			c = fopen(path, "r");
			if (!c)
				continue;
			if (fgets(comm, sizeof(comm), c))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(c);
			if (strcmp(comm, f.proc[p].comm))
				continue;
			f.now[f.nnow].g = f.proc[p].g;
			f.now[f.nnow].pid = atoi(d->d_name);
			f.now[f.nnow++].sm = f.proc[p].sm;
		}
		if (dir)
			closedir(dir);
	}
}

nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t d,
					     nvmlProcessUtilizationSample_t *u,
					     unsigned int *count,
					     unsigned long long last_seen)
{
	int i = dev_index(d);
	unsigned long long now = real_us(), newest, oldest, k;
	unsigned int n = 0, room;

	if (!f.inited)
		return 1;
	if (i < 0 || !count)
		return 2;
	if (lost(i, mono()))
		return 15;
	if (f.no_util[i])
		return 3;
	if (!u)
		procs_now();	/* the count, then the samples: one list */
	newest = now / f.period_us * f.period_us;
	oldest = newest - (KEEP - 1) * f.period_us;
	if (last_seen >= oldest)
		oldest = (last_seen / f.period_us + 1) * f.period_us;
	for (k = oldest; k <= newest; k += f.period_us)
		for (int p = 0; p < f.nnow; p++)
			n += f.now[p].g == i;
	if (!n)
		return 6;	/* NVML_ERROR_NOT_FOUND: nothing since last_seen */
	if (!u) {
		*count = n;
		return 7;
	}
	room = *count;
	if (room < n) {
		*count = n;
		return 7;
	}
	n = 0;
	for (k = oldest; k <= newest; k += f.period_us)
		for (int p = 0; p < f.nnow; p++)
			if (f.now[p].g == i)
				u[n++] = (nvmlProcessUtilizationSample_t){
					.pid = f.now[p].pid, .timeStamp = k,
					.smUtil = f.now[p].sm,
				};
	*count = n;
	return 0;
}
