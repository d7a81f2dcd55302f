// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pmu/: events opened per CPU, emon-perf list. The open tests need root
 * (or CAP_PERFMON) and skip with a reason without it; the one that needs
 * a hardware PMU to be absent (cycles not supported) skips where there
 * is one.
 */
#define _GNU_SOURCE	/* setresuid */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "pmu/event.h"
#include "helpers.h"

#define ERRLEN 256
#define MAX_CPUS 4096

#define assert_contains(haystack, needle) do {				\
	if (!strstr((haystack), (needle)))				\
		fail_msg("'%s' does not contain '%s'", (haystack), (needle)); \
} while (0)

/* ---- opening: needs root or CAP_PERFMON ---- */

/* "0-3,5,7-9" -> online[] and the highest CPU + 1 */
static int cpulist__parse(const char *path, bool *cpus, int *nr)
{
	char buf[4096], *p, *end;
	long a, b;
	FILE *f;
	int ret = -EINVAL;

	*nr = 0;
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f))
		goto out;
	for (p = buf; *p && *p != '\n'; p = end + (*end == ',')) {
		a = b = strtol(p, &end, 10);
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (end == p || a < 0 || b >= MAX_CPUS || a > b)
			goto out;
		for (; a <= b; a++)
			cpus[a] = true;
		*nr = b + 1 > *nr ? b + 1 : *nr;
	}
	ret = 0;
out:
	fclose(f);
	return ret;
}

struct cpus {
	bool online[MAX_CPUS];
	int ncpus;	/* possible */
	int nr_online;
};

static void cpus__read(struct cpus *c)
{
	bool possible[MAX_CPUS] = {};
	int nr, cpu;

	memset(c, 0, sizeof(*c));
	assert_int_equal(cpulist__parse("/sys/devices/system/cpu/possible",
					possible, &c->ncpus), 0);
	assert_int_equal(cpulist__parse("/sys/devices/system/cpu/online",
					c->online, &nr), 0);
	assert_true(nr <= c->ncpus);
	for (cpu = 0; cpu < c->ncpus; cpu++)
		c->nr_online += c->online[cpu];
	assert_true(c->nr_online > 0);
}

static bool open_err__is_denied(int ret)
{
	return ret == -EACCES || ret == -EPERM;
}

#define skip_unless_privileged(ret, err) do {				\
	if (open_err__is_denied(ret)) {					\
		print_message("skipped: needs root or CAP_PERFMON: %s\n", err); \
		skip();							\
	}								\
} while (0)

static void spin_cpu_ms(long ms)
{
	struct timespec start, now;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
	do {
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
	} while ((now.tv_sec - start.tv_sec) * 1000 +
		 (now.tv_nsec - start.tv_nsec) / 1000000 < ms);
}

static void test_open_cpu_clock(void **state)
{
	static struct cpus c;
	struct pmu_event e;
	char err[ERRLEN] = "";
	__u64 sum = 0, v[3];
	int ret, cpu, nr_open = 0;

	(void)state;
	cpus__read(&c);
	/* :u: a counter (cpu-clock alone comes from the switch, no fds) */
	assert_int_equal(pmu_event__resolve(&e, "cpu-clock:u", err, sizeof(err)), 0);
	assert_int_equal(e.from, PMU_FROM_COUNTER);
	ret = pmu_event__open(&e, c.ncpus, c.online, err, sizeof(err));
	skip_unless_privileged(ret, err);
	assert_int_equal(ret, 0);
	assert_true(e.supported);
	assert_int_equal(e.open_err, 0);
	assert_int_equal(e.nr_fds, c.ncpus);
	for (cpu = 0; cpu < c.ncpus; cpu++) {
		if (!c.online[cpu]) {
			assert_int_equal(e.fds[cpu], -1);
			continue;
		}
		assert_true(e.fds[cpu] >= 0);
		nr_open++;
	}
	assert_int_equal(nr_open, c.nr_online);

	/* a clock event on every CPU: together they saw at least our spin */
	spin_cpu_ms(20);
	for (cpu = 0; cpu < c.ncpus; cpu++) {
		if (e.fds[cpu] < 0)
			continue;
		assert_int_equal(read(e.fds[cpu], v, sizeof(v)), sizeof(v));
		assert_true(v[1] >= v[2]);	/* enabled >= running */
		sum += v[0];
	}
	assert_true(sum >= 20 * 1000000ULL);

	pmu_event__close(&e);
	assert_null(e.fds);
	assert_int_equal(e.nr_fds, 0);
	assert_false(e.supported);
	pmu_event__close(&e);	/* idempotent */
	assert_null(e.fds);
}

static void test_open_list_software(void **state)
{
	static struct cpus c;
	struct pmu_event_list l = {};
	char err[ERRLEN] = "";
	int i, ret = 0;

	(void)state;
	cpus__read(&c);
	assert_int_equal(pmu_event_list__parse(&l, "cpu-clock,task-clock,cs,"
					       "cpu-migrations,page-faults,minor-faults,"
					       "major-faults,cpu-clock:u",
					       err, sizeof(err)), 0);
	for (i = 0; i < l.nr && !ret; i++) {
		ret = pmu_event__open(&l.ev[i], c.ncpus, c.online, err,
				      sizeof(err));
		print_message("%s: %d %s\n", l.ev[i].name, ret,
			      pmu_event__strerror(l.ev[i].open_err));
	}
	if (!open_err__is_denied(ret)) {
		assert_int_equal(ret, 0);
		for (i = 0; i < l.nr; i++)
			assert_true(l.ev[i].supported);
	}
	for (i = 0; i < l.nr; i++)
		pmu_event__close(&l.ev[i]);
	skip_unless_privileged(ret, err);
}

/*
 * Where each event's counts come from, and what opening it holds: the
 * switch program's own events open no perf_event and are supported
 * anywhere; EMON_SWITCH_EVENTS=counters reads all through the helper.
 */
static void test_event_from(void **state)
{
	static const struct {
		const char *name, *env;
		enum pmu_event_from from;
	} cases[] = {
		{ "cpu-clock", NULL, PMU_FROM_CLOCK },
		{ "task-clock", NULL, PMU_FROM_CLOCK },
		{ "cs", NULL, PMU_FROM_SWITCHES },
		{ "context-switches", NULL, PMU_FROM_SWITCHES },
		{ "cpu-migrations", NULL, PMU_FROM_MIGRATIONS },
		{ "page-faults", NULL, PMU_FROM_IN_PLACE },
		{ "major-faults", NULL, PMU_FROM_IN_PLACE },
		{ "cs:u", NULL, PMU_FROM_IN_PLACE },	/* perf filters it */
		{ "cpu-clock:k", NULL, PMU_FROM_COUNTER },
		{ "cycles", NULL, PMU_FROM_COUNTER },
		{ "cpu-clock", "counters", PMU_FROM_COUNTER },
		{ "cs", "counters", PMU_FROM_COUNTER },
		{ "page-faults", "counters", PMU_FROM_COUNTER },
		{ "cpu-clock", "anything else", PMU_FROM_CLOCK },
	};
	static struct cpus c;
	char err[ERRLEN] = "";
	struct pmu_event e;

	(void)state;
	cpus__read(&c);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		if (cases[i].env)
			setenv("EMON_SWITCH_EVENTS", cases[i].env, 1);
		assert_int_equal(pmu_event__resolve(&e, cases[i].name, err, sizeof(err)), 0);
		unsetenv("EMON_SWITCH_EVENTS");
		print_message("%s (%s): %d\n", cases[i].name, cases[i].env ?: "-", e.from);
		assert_int_equal(e.from, cases[i].from);
		if (pmu_event__has_counter(&e))
			continue;
		/* nothing to open, probe or reopen: supported, every fd -1 */
		assert_int_equal(pmu_event__open(&e, c.ncpus, c.online, err, sizeof(err)), 0);
		assert_true(e.supported);
		assert_int_equal(e.nr_fds, c.ncpus);
		for (int cpu = 0; cpu < c.ncpus; cpu++)
			assert_int_equal(e.fds[cpu], -1);
		assert_int_equal(pmu_event__probe(&e, 0), 0);
		assert_int_equal(pmu_event__reopen_cpu(&e, 0), 0);
		assert_int_equal(e.fds[0], -1);
		pmu_event__close(&e);
	}
}

/* cycles on a machine without a hardware PMU: not supported, not an error */
static void test_open_cycles_unsupported(void **state)
{
	static struct cpus c;
	struct pmu_event e;
	char err[ERRLEN] = "";
	int ret, cpu;

	(void)state;
	cpus__read(&c);
	assert_int_equal(pmu_event__resolve(&e, "cycles", err, sizeof(err)), 0);
	ret = pmu_event__open(&e, c.ncpus, c.online, err, sizeof(err));
	skip_unless_privileged(ret, err);
	assert_int_equal(ret, 0);
	if (e.supported) {
		pmu_event__close(&e);
		print_message("skipped: cycles is supported here (a hardware PMU exists)\n");
		skip();
	}
	print_message("cycles: %d %s\n", e.open_err,
		      pmu_event__strerror(e.open_err));
	assert_true(e.open_err == -ENOENT || e.open_err == -EOPNOTSUPP ||
		    e.open_err == -ENODEV || e.open_err == -EINVAL);
	assert_int_equal(e.nr_fds, c.ncpus);
	for (cpu = 0; cpu < c.ncpus; cpu++)
		assert_int_equal(e.fds[cpu], -1);
	pmu_event__close(&e);
	assert_null(e.fds);
}

/* Out of descriptors on the first CPU is an error with advice, not "unsupported". */
static void test_open_emfile(void **state)
{
	static struct cpus c;
	struct rlimit old, low;
	struct pmu_event e;
	char err[ERRLEN] = "";
	int ret, fd;

	(void)state;
	cpus__read(&c);
	/* page-faults: a counter (cpu-clock would open nothing) */
	assert_int_equal(pmu_event__resolve(&e, "page-faults", err, sizeof(err)), 0);
	fd = dup(0);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = fd;	/* the next descriptor is one too many */
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	ret = pmu_event__open(&e, c.ncpus, c.online, err, sizeof(err));
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_false(e.supported);
	pmu_event__close(&e);
	skip_unless_privileged(ret, err);
	print_message("%d %s\n", ret, err);
	assert_int_equal(ret, -EMFILE);
	assert_contains(err, "cannot open 'page-faults' on CPU");
	assert_contains(err, "ulimit -n");
}

/*
 * Without privileges the error says how to get them. Root drops to nobody
 * in a child (the assertions run in the parent: cmocka's cannot cross a
 * fork); without root this process is the unprivileged one.
 */
static void test_open_denied_advice(void **state)
{
	static struct cpus c;
	struct pmu_event e;
	char err[ERRLEN] = "";
	int ret, pipefd[2], status;
	pid_t pid;

	(void)state;
	cpus__read(&c);
	assert_int_equal(pmu_event__resolve(&e, "cpu-clock", err, sizeof(err)), 0);
	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(pipefd[0]);
		if (geteuid() == 0 &&
		    (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		     setresuid(65534, 65534, 65534)))
			_exit(100);
		ret = pmu_event__open(&e, c.ncpus, c.online, err, sizeof(err));
		pmu_event__close(&e);
		if (write(pipefd[1], err, sizeof(err)) != sizeof(err))
			_exit(101);
		_exit(-ret);
	}
	close(pipefd[1]);
	assert_int_equal(read(pipefd[0], err, sizeof(err)), sizeof(err));
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_true(WEXITSTATUS(status) < 100);	/* dropped root, wrote err */
	ret = -WEXITSTATUS(status);
	if (!open_err__is_denied(ret)) {
		print_message("skipped: unprivileged users may open CPU events here (perf_event_paranoid <= 0): %d\n",
			      ret);
		skip();
	}
	print_message("%d %s\n", ret, err);
	assert_contains(err, "cannot open 'page-faults' on CPU");
	assert_contains(err, "CAP_PERFMON");
	assert_contains(err, "perf_event_paranoid");
}

/* ---- emon-perf list ---- */

static char *list__capture(bool verbose)
{
	char *buf;
	long len;
	FILE *f;

	f = tmpfile();
	assert_non_null(f);
	assert_int_equal(pmu__list(f, verbose), 0);
	len = ftell(f);
	assert_true(len > 0);
	buf = malloc(len + 1);
	assert_non_null(buf);
	rewind(f);
	assert_int_equal(fread(buf, 1, len, f), len);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/* The line naming the event: "  cpu-clock   [Software event]" */
static const char *list__line(const char *out, const char *name,
			      char *line, size_t len)
{
	char key[64];
	const char *p, *end;

	snprintf(key, sizeof(key), "\n  %s ", name);
	p = strstr(out, key);
	if (!p)
		fail_msg("'%s' not listed", name);
	p++;
	end = strchr(p, '\n');
	snprintf(line, len, "%.*s", (int)(end - p), p);
	return line;
}

static void test_list(void **state)
{
	char *out, *again, *verbose, line[256];
	struct pmu_event e;
	char err[ERRLEN];
	const char *sw[] = { "context-switches OR cs", "cpu-clock",
			     "cpu-migrations OR migrations", "major-faults",
			     "minor-faults", "page-faults OR faults",
			     "task-clock" };
	const char *prev = NULL, *p;
	size_t i;
	bool denied;

	(void)state;
	out = list__capture(false);
	again = list__capture(false);
	verbose = list__capture(true);
	assert_string_equal(out, again);	/* stable */
	/* the hint to -v only when libpfm4 knows this CPU's PMUs */
	if (strstr(out, "PMU-specific events") && !strstr(out, "  none found\n"))
		assert_contains(out, "emon-perf list -v");
	else
		print_message("libpfm4 lists no PMU-specific events on this CPU\n");
	assert_null(strstr(verbose, "emon-perf list -v"));
	assert_contains(out, "rNNNN");

	/* sorted within the section, software events never <not supported> */
	assert_int_equal(pmu_event__resolve(&e, "cpu-clock", err, sizeof(err)), 0);
	denied = open_err__is_denied(pmu_event__probe(&e, 0));
	for (i = 0; i < ARRAY_SIZE(sw); i++) {
		list__line(out, sw[i], line, sizeof(line));
		assert_contains(line, "[Software event]");
		assert_null(strstr(line, "<not supported>"));
		p = strstr(out, line);
		assert_true(!prev || p > prev);
		prev = p;
	}

	/* the switch program's own events say so; a counted one does not */
	list__line(out, "cpu-clock", line, sizeof(line));
	assert_contains(line, "(from the switch: no perf_event)");
	list__line(out, "page-faults OR faults", line, sizeof(line));
	assert_null(strstr(line, "from the switch"));

	list__line(out, "cycles OR cpu-cycles", line, sizeof(line));
	assert_contains(line, "[Hardware event]");
	assert_int_equal(pmu_event__resolve(&e, "cycles", err, sizeof(err)), 0);
	if (denied)
		print_message("not checked: <not supported> markers need root\n");
	else if (pmu_event__probe(&e, 0))
		assert_contains(line, "<not supported>");
	else
		assert_null(strstr(line, "<not supported>"));
	list__line(out, "L1-dcache-load-misses", line, sizeof(line));
	assert_contains(line, "[Hardware cache event]");

	free(out);
	free(again);
	free(verbose);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_cpu_clock),
		cmocka_unit_test(test_event_from),
		cmocka_unit_test(test_open_list_software),
		cmocka_unit_test(test_open_cycles_unsupported),
		cmocka_unit_test(test_open_emfile),
		cmocka_unit_test(test_open_denied_advice),
		cmocka_unit_test(test_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
