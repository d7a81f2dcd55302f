// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libemon example: a loop of fake requests, each one's cpu-clock and
 * context switches read before and after it from the emon-perf daemon
 * (emon-perf serve --threads N -e cpu-clock,context-switches).
 *
 *	cc -Iinclude examples/selfmon-requests.c libemon.a -lpthread
 *	./a.out [REQUESTS] [SOCKET]
 *
 * A request burns some CPU, and every third one also waits (sleeps), so
 * the switches show. An event the daemon does not count prints as "-".
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "emon/selfmon.h"

static int event_index(const struct emon_self *s, const char *name)
{
	for (int i = 0; i < emon_self_nevents(s); i++)
		if (!strcmp(emon_self_event(s, i), name))
			return i;
	return -1;
}

static void fake_request(int n)
{
	volatile uint64_t x = 0;
	struct timespec nap = { 0, 2000000 };

	for (uint64_t i = 0; i < 200000 + (uint64_t)(n % 5) * 100000; i++)
		x += i * i;
	if (n % 3 == 0)
		nanosleep(&nap, NULL);
}

static void print_count(int idx, const uint64_t *a, const uint64_t *b, double scale)
{
	if (idx < 0)
		printf(" %12s", "-");
	else
		printf(" %12.1f", (b[idx] - a[idx]) / scale);
}

int main(int argc, char **argv)
{
	int requests = argc > 1 ? atoi(argv[1]) : 10;
	uint64_t before[8], after[8];
	struct emon_self *s;
	int clk, cs;

	s = emon_self_open(argc > 2 ? argv[2] : NULL);
	if (!s) {
		fprintf(stderr, "selfmon-requests: cannot register with the emon-perf daemon: %s\n",
			strerror(errno));
		return 1;
	}
	clk = event_index(s, "cpu-clock");
	cs = event_index(s, "context-switches");
	printf("%8s %12s %12s\n", "request", "cpu-clock_us", "switches");
	for (int n = 0; n < requests; n++) {
		int r = emon_self_read(s, before, 8);

		fake_request(n);
		if (r >= 0)
			r = emon_self_read(s, after, 8);
		if (r < 0) {
			fprintf(stderr, "selfmon-requests: read: %s\n", strerror(-r));
			emon_self_close(s);
			return 1;
		}
		printf("%8d", n);
		print_count(clk, before, after, 1e3);
		print_count(cs, before, after, 1);
		printf("\n");
	}
	emon_self_close(s);
	return 0;
}
