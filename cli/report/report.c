// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf report, the printing side: the summary table as text (its
 * cells are report_table.c's, the HTML page report_html.c's) and the
 * command line. The model is report_model.c, filled by one of its sources:
 * a recording (report_file.c) or a Prometheus server's history
 * (report_prom*.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/commands.h"
#include "front/errors.h"
#include "cli/report/report.h"
#include "cli/report/prom_client.h"
#include "cli/report/report_prom.h"
#include "rapl/energy.h"

static bool col__left(enum report_col col)
{
	return col <= COL_NAMES;
}

/* --gpu recordings: the GPUs' energy, a line of its own. */
static void report__print_gpus(const struct report *r,
			       const struct report_metrics *sys, FILE *f)
{
	if (r->has_gpu && isfinite(sys->gpu_j))
		fprintf(f, "GPUs (NVML): system %.3f J, %.3f W mean, split by SM time\n",
			sys->gpu_j, sys->gpu_w);
}

/* Scope, duration, intervals, energy source: the lines above the table. */
static void report__print_header(const struct report *r, FILE *f)
{
	const struct report_key *sys = report__system(r);
	struct report_metrics m;

	fprintf(f, "emon-perf report of %s: %s, top %d of %d by %s\n", r->path,
		scope__name(r->scope), r->top, r->nr_sorted,
		report__rank_name(r->rank));
	if (r->window)
		fprintf(f, "%s, %d host%s\n", r->window, r->nr_hosts,
			r->nr_hosts == 1 ? "" : "s");
	fprintf(f, "duration %.3f s, %d interval%s, ", r->duration,
		r->nr_times, r->nr_times == 1 ? "" : "s");
	report__metrics(r, sys, &m);
	if (!r->has_energy) {
		fprintf(f, "%s: counts only\n", r->window ?
			"no energy in this window (its daemons served none: serve without an energy source)" :
			"no energy in this recording (made without an energy source; on a machine without RAPL, stat --energy model:IDLE_W:MAX_W estimates it)");
		report__print_gpus(r, &m, f);
		return;
	}
	fprintf(f, "energy: %s%s", r->energy_source ?: "unknown source",
		r->energy_source && !strcmp(r->energy_source, "model") ?
		" (estimated)" : "");
	if (r->split_by)
		fprintf(f, ", split by %s", r->split_by);
	if (energy_source__scopes_of(r->energy_source))
		fprintf(f, ", scope %s", energy_source__scopes_of(r->energy_source));
	if (sys && isfinite(m.energy_j))
		fprintf(f, "; system %.3f J, %.3f W mean", m.energy_j, m.power_w);
	if (r->rank != RANK_ENERGY)
		fprintf(f, "; no energy on %s rows", scope__name(r->scope));
	fputc('\n', f);
	report__print_gpus(r, &m, f);
}

int report__print_text(const struct report *r, FILE *f)
{
	enum report_col cols[COL_NR];
	int width[COL_NR];
	char cell[256];
	int i, c, n = report__columns(r, cols);

	for (c = 0; c < n; c++)
		width[c] = strlen(report__col_name(r, cols[c]));
	for (i = 0; i < r->top; i++) {
		for (c = 0; c < n; c++) {
			report__cell(r, r->sorted[i], cols[c], cell, sizeof(cell));
			if ((int)strlen(cell) > width[c])
				width[c] = strlen(cell);
		}
	}
	report__print_header(r, f);
	fputc('\n', f);
	for (c = 0; c < n; c++)
		fprintf(f, "%s%*s", c ? "  " : "", col__left(cols[c]) ? -width[c] :
			width[c], report__col_name(r, cols[c]));
	fputc('\n', f);
	for (i = 0; i < r->top; i++) {
		for (c = 0; c < n; c++) {
			report__cell(r, r->sorted[i], cols[c], cell, sizeof(cell));
			fprintf(f, "%s%*s", c ? "  " : "",
				col__left(cols[c]) ? -width[c] : width[c], cell);
		}
		fputc('\n', f);
	}
	if (r->top < r->nr_sorted)
		fprintf(f, "(%d more not shown; --top 0 shows all)\n",
			r->nr_sorted - r->top);
	return ferror(f) ? -EIO : 0;
}

static const char report_usage[] =
"Usage: emon-perf report FILE [--by SCOPE] [--top N] [--html OUT.html]\n"
"       emon-perf report --prometheus URL --range DURATION [--step DURATION]\n"
"                        [--end TIME] [--match LABELS] [--by SCOPE] [--top N]\n"
"                        [--html OUT.html]\n"
"\n"
"Totals per key over a JSON-lines recording (emon-perf stat --json-rows\n"
"-o FILE; stat -j's up to 0.2.0), or over a Prometheus server's history of\n"
"emon-perf serve's metrics, every host it scrapes: energy, mean power,\n"
"share of the package energy, instructions, cycles, IPC, energy per\n"
"instruction and cpu-clock, sorted by energy (by cpu-clock without\n"
"energy); a --sched recording adds run-queue wait, sleep and blocked time.\n"
"perf's JSON (stat -j) is refused: it has no rows to sum.\n"
"\n"
"  --by SCOPE         container, pod, namespace, cgroup, process, cpu, socket,\n"
"                     system or command (default: container, else cgroup,\n"
"                     else process; from Prometheus: container, pod,\n"
"                     namespace, cgroup, process, socket, system)\n"
"  --top N            keys shown (default 10; 0: all)\n"
"  --html OUT         also write a self-contained HTML page with charts\n"
"  --prometheus URL   read the server at URL (http://host:9090) instead of FILE\n"
"  --range DURATION   the window, ending at --end: 1h, 30m, 7d, 90s, 1h30m\n"
"  --step DURATION    time between two points of the charts (default: the\n"
"                     range / 250, whole seconds, at most 5m when possible)\n"
"  --end TIME         the window's end: Unix seconds or 2026-11-25T10:00:00Z\n"
"                     (default: now)\n"
"  --match LABELS     PromQL label matchers every series must match, e.g.\n"
"                     'instance=~\"web.*\",job=\"emon\"'\n"
"  -h, --help         this text\n";

struct report_opts {
	const char *path;
	const char *html;
	int scope;
	int top;
	struct report_prom_query prom;	/* url set: --prometheus */
};

enum {
	OPT_PROMETHEUS = 256,
	OPT_RANGE,
	OPT_STEP,
	OPT_END,
	OPT_MATCH,
};

/* --range, --step, --end, --match, --prometheus; -EINVAL on a bad value. */
static int report_opts__prom(struct report_opts *o, int opt, const char *arg)
{
	const char *name = opt == OPT_RANGE ? "--range" : "--step";

	switch (opt) {
	case OPT_PROMETHEUS:
		o->prom.url = arg;
		return 0;
	case OPT_MATCH:
		o->prom.match = *arg ? arg : NULL;
		return 0;
	case OPT_END:
		if (prom_time__parse(arg, &o->prom.end)) {
			pr_err("report: --end wants Unix seconds or a UTC time such as 2026-11-25T10:00:00Z, not '%s'",
			       arg);
			return -EINVAL;
		}
		return 0;
	}
	if (prom_duration__parse(arg, opt == OPT_RANGE ? &o->prom.range :
				 &o->prom.step)) {
		pr_err("report: %s wants a duration such as 1h, 30m, 90s or 1h30m, not '%s'",
		       name, arg);
		return -EINVAL;
	}
	return 0;
}

/* Positional FILE or --prometheus, and what goes with each: 0 or -EINVAL. */
static int report_opts__check(struct report_opts *o, int argc, char **argv)
{
	bool prom_opts = o->prom.range > 0 || o->prom.step > 0 ||
			 o->prom.end > 0 || o->prom.match;

	if (o->prom.url) {
		if (argc - optind) {
			pr_err("report: a recording ('%s') or --prometheus, not both",
			       argv[optind]);
			return -EINVAL;
		}
		if (!(o->prom.range > 0)) {
			pr_err("report: --prometheus needs --range (e.g. --range 1h)");
			return -EINVAL;
		}
		o->path = o->prom.url;
		return 0;
	}
	if (prom_opts) {
		pr_err("report: --range, --step, --end and --match go with --prometheus URL");
		return -EINVAL;
	}
	if (argc - optind != 1) {
		pr_err("report: %s", argc - optind ? "one recording at a time" :
		       "which recording? (emon-perf report FILE, or --prometheus URL --range D)");
		return -EINVAL;
	}
	o->path = argv[optind];
	return 0;
}

/* 0, 1 after --help, -EINVAL after a one-line error (as opts__parse). */
static int report_opts__parse(struct report_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "by",   required_argument, NULL, 'b' },
		{ "top",  required_argument, NULL, 't' },
		{ "html", required_argument, NULL, 'H' },
		{ "help", no_argument,       NULL, 'h' },
		{ "prometheus", required_argument, NULL, OPT_PROMETHEUS },
		{ "range", required_argument, NULL, OPT_RANGE },
		{ "step",  required_argument, NULL, OPT_STEP },
		{ "end",   required_argument, NULL, OPT_END },
		{ "match", required_argument, NULL, OPT_MATCH },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	long top;
	int opt;

	o->scope = -1;
	o->top = 10;
	optind = 0;	/* glibc: start afresh, main() may have used getopt */
	opterr = 0;	/* our own one-line errors */
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			o->scope = scope__parse(optarg);
			if (o->scope < 0) {
				pr_err("report: unknown scope '%s' for --by", optarg);
				return -EINVAL;
			}
			break;
		case 't':
			errno = 0;
			top = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || top < 0 || top > INT_MAX) {
				pr_err("report: --top wants a count, not '%s'", optarg);
				return -EINVAL;
			}
			o->top = top;
			break;
		case 'H':
			o->html = optarg;
			break;
		case 'h':
			fputs(report_usage, stdout);
			return 1;
		case OPT_PROMETHEUS:
		case OPT_RANGE:
		case OPT_STEP:
		case OPT_END:
		case OPT_MATCH:
			if (report_opts__prom(o, opt, optarg))
				return -EINVAL;
			break;
		case ':':
			pr_err("report: %s needs a value (see 'emon-perf report --help')",
			       argv[optind - 1]);
			return -EINVAL;
		default:
			pr_err("report: unknown option '%s' (see 'emon-perf report --help')",
			       argv[optind - 1]);
			return -EINVAL;
		}
	}
	return report_opts__check(o, argc, argv);
}

/* Exit status: 0, 1 (cannot write), 2 (the recording changed under us). */
static int report__html_file(struct report *r, const char *path)
{
	int err, ret;
	FILE *f;

	err = report__load_series(r);
	if (err) {
		ret = cli__fail(err, "report: %s", r->err);
		goto out;
	}
	/* the page is output, not input: a write that fails is a runtime
	 * failure (-EIO) whatever the errno */
	f = fopen(path, "w");
	if (!f) {
		ret = cli__fail(-EIO, "report: cannot write %s: %s", path, strerror(errno));
		goto out;
	}
	err = report__write_html(r, f);
	if (fclose(f) && !err)
		err = -errno;
	if (err) {
		ret = cli__fail(-EIO, "report: cannot write %s: %s", path, strerror(-err));
		unlink(path);
		goto out;
	}
	/* stdout is the table's: where the page went, on stderr */
	fprintf(stderr, "emon-perf: report: wrote %s\n", path);
	ret = 0;
out:
	return ret;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { 0 };
	char *shown = NULL;
	struct report r;
	int ret, err;

	ret = report_opts__parse(&o, argc, argv);
	if (ret)
		return cli__parse_status(ret);
	/* a URL's password stays out of the report and the messages; a bad
	 * URL is the client's to tell */
	if (o.prom.url && !prom_url__shown(o.prom.url, &shown))
		o.path = shown;
	report__init(&r, o.path, o.prom.url ? &report_prom_source : &report_file_source);
	err = report__load(&r, &o.prom);
	if (!err)
		err = report__select(&r, o.scope, o.top);
	if (err) {
		ret = cli__fail(err, "report: %s", r.err);
		goto out;
	}
	ret = 0;
	if (report__print_text(&r, stdout)) {
		ret = cli__fail(-EIO, "report: cannot write the table: %s", strerror(errno));
		goto out;
	}
	if (o.html)
		ret = report__html_file(&r, o.html);
out:
	report__exit(&r);
	free(shown);
	return ret;
}
