// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf report --html: one self-contained page (inline CSS, inline SVG
 * drawn here, no script, nothing fetched) with the summary table and three
 * charts: top keys by energy as bars, energy per instruction as bars, power
 * over time as lines. Without energy the same charts show cpu-clock, CPU
 * share and CPUs used.
 *
 * Every string from the recording (keys, comms, runtimes, the file name)
 * goes through html__puts(): a comm is whatever a process chose to call
 * itself, "<script>" included.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <string.h>
#include "cli/report/report.h"
#include "rapl/energy.h"

#define CHART_W		960	/* SVG user units; the page scales it */
#define BAR_LABEL_W	230
#define BAR_VALUE_W	110
#define BAR_H		22
#define BAR_GAP		8
#define LINE_H		380
#define LINE_LEFT	72
#define LINE_RIGHT	230	/* the legend */
#define LINE_TOP	16
#define LINE_BOTTOM	52
#define LABEL_MAX	30	/* characters of a key shown by a bar */
#define LEGEND_MAX	24	/* and in a legend */
#define AXIS_MAX_TICKS	50	/* nice steps give 5-10; a bound all the same */

/* Tableau 10: distinct, colour-blind friendly enough, readable on white. */
static const char *const palette[] = {
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
	"#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
};
#define PALETTE_NR ((int)(sizeof(palette) / sizeof(*palette)))

static const char page_css[] =
"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
"color:#1f2933;background:#f4f6f8;margin:0;padding:24px 32px}"
"main{max-width:1040px;margin:0 auto}"
"h1{font-size:24px;margin:0 0 4px}"
"h2{font-size:17px;margin:0 0 10px}"
".sub{color:#52606d;margin:0 0 16px}"
".note{background:#fff4d6;border-left:4px solid #f0b429;padding:8px 12px;margin:0 0 16px}"
".cards{display:flex;gap:12px;margin:0 0 16px;flex-wrap:wrap}"
".card{background:#fff;border-radius:8px;padding:10px 16px;min-width:140px;"
"box-shadow:0 1px 3px rgba(0,0,0,.08)}"
".card b{display:block;font-size:20px}"
".card span{color:#52606d;font-size:12px;text-transform:uppercase;letter-spacing:.04em}"
"section{background:#fff;border-radius:8px;padding:16px 20px;margin:0 0 16px;"
"box-shadow:0 1px 3px rgba(0,0,0,.08)}"
"svg{width:100%;height:auto;display:block}"
"svg text{font-family:inherit;font-size:12px;fill:#323f4b}"
"svg .axis{stroke:#7b8794;stroke-width:1}"
"svg .grid{stroke:#e4e7eb;stroke-width:1}"
"svg .muted{fill:#7b8794}"
"table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}"
"th,td{padding:5px 8px;border-bottom:1px solid #e4e7eb;text-align:right;white-space:nowrap}"
"th{background:#f4f6f8;font-weight:600}"
"th.l,td.l{text-align:left}"
"td.key{max-width:320px;overflow:hidden;text-overflow:ellipsis}"
".sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px}"
"tr:last-child td{border-bottom:0}";

/* HTML-escape s; control characters become '?'. */
static void html__puts(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':	fputs("&amp;", f); break;
		case '<':	fputs("&lt;", f); break;
		case '>':	fputs("&gt;", f); break;
		case '"':	fputs("&quot;", f); break;
		case '\'':	fputs("&#39;", f); break;
		default:
			fputc((unsigned char)*s < 0x20 ? '?' : *s, f);
		}
	}
}

/* The tail of a long label (the specific end of a cgroup path), cut on a
 * UTF-8 character boundary. */
static void html__puts_short(FILE *f, const char *s, size_t max)
{
	size_t len = strlen(s);

	if (len <= max) {
		html__puts(f, s);
		return;
	}
	s += len - (max - 1);
	while ((*s & 0xc0) == 0x80)
		s++;
	fputs("&hellip;", f);
	html__puts(f, s);
}

/* Enough digits to tell values apart, not more. */
static void num__format(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (!isfinite(v))
		snprintf(buf, len, "n/a");
	else if (a >= 1000)
		snprintf(buf, len, "%.0f", v);
	else if (a >= 100)
		snprintf(buf, len, "%.1f", v);
	else if (a >= 1 || a == 0)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

static void tick__format(char *buf, size_t len, double v, double step)
{
	int decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);

	snprintf(buf, len, "%.*f", decimals, v);
}

double report__nice_step(double max, int want)
{
	double raw, mag, frac;

	if (!(max > 0) || !isfinite(max) || want < 1)
		return 1;
	raw = max / want;
	if (raw < DBL_MIN)	/* subnormal: log10 and pow give 0 or NaN */
		return 1;
	mag = pow(10, floor(log10(raw)));
	frac = raw / mag;
	if (frac <= 1)
		return mag;
	if (frac <= 2)
		return 2 * mag;
	if (frac <= 5)
		return 5 * mag;
	return 10 * mag;
}

/* The last tick: the first one at or above max, give or take 2% of a step
 * (a point that far past it is drawn a few pixels out), so a 1.0004 s run
 * ends at 1 rather than at 1.2 with a band of empty space. */
static double axis__end(double max, double step)
{
	double top = max > 0 ? ceil(max / step - 0.02) * step : step;

	/* a value near DBL_MAX in the recording, or a rate that overflowed */
	return isfinite(top) ? top : DBL_MAX;
}

/* Ticks 0, step, 2 step... up to top: a count, not a loop on v += step,
 * which never ends once top * (1 + 1e-9) or v overflows to inf. */
static int axis__ticks(double top, double step)
{
	double n = top / step * (1 + 1e-9);

	if (!(n >= 0))
		return 1;
	return n < AXIS_MAX_TICKS ? (int)n + 1 : AXIS_MAX_TICKS + 1;
}

/* One bar chart: a value per top key, NAN drawn as "n/a" with no bar. */
struct bars {
	char title[192];	/* HTML */
	const char *unit;
	double value[64];
};

static void bars__axis(FILE *f, double top, double step, double plot_w,
		       int y0, int y1)
{
	int i, n = axis__ticks(top, step);
	char buf[32];
	double v;

	for (i = 0; i < n; i++) {
		double x;

		v = i * step;
		x = BAR_LABEL_W + v / top * plot_w;

		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n",
			x, y0, x, y1);
		tick__format(buf, sizeof(buf), v, step);
		fprintf(f, "<text class=\"muted\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			x, y1 + 16, buf);
	}
}

static void bars__write(const struct report *r, const struct bars *b, int n,
			FILE *f)
{
	double max = 0, step, top, plot_w = CHART_W - BAR_LABEL_W - BAR_VALUE_W;
	int i, h = n * (BAR_H + BAR_GAP) + 30;
	char label[300], buf[32];

	for (i = 0; i < n; i++)
		if (isfinite(b->value[i]) && b->value[i] > max)
			max = b->value[i];
	step = report__nice_step(max, 5);
	top = axis__end(max, step);
	fprintf(f, "<section><h2>%s</h2>\n", b->title);
	fprintf(f, "<svg viewBox=\"0 0 %d %d\" role=\"img\">\n", CHART_W, h);
	bars__axis(f, top, step, plot_w, 0, n * (BAR_H + BAR_GAP));
	for (i = 0; i < n; i++) {
		double v = b->value[i], y = i * (BAR_H + BAR_GAP) + BAR_GAP / 2;
		double w = isfinite(v) ? fmax(v / top * plot_w, 1) : 0;

		report_key__label(r, r->sorted[i], label, sizeof(label));
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">",
			BAR_LABEL_W - 8, y + BAR_H / 2 + 4);
		html__puts_short(f, label, LABEL_MAX);
		fputs("</text>\n", f);
		num__format(buf, sizeof(buf), v);
		if (isfinite(v)) {
			fprintf(f, "<rect class=\"bar\" x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" rx=\"3\" fill=\"%s\"><title>",
				BAR_LABEL_W, y, w, BAR_H, palette[i % PALETTE_NR]);
			html__puts(f, label);
			fprintf(f, ": %s %s</title></rect>\n", buf, b->unit);
		}
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\"%s>%s %s</text>\n",
			BAR_LABEL_W + w + 6, y + BAR_H / 2 + 4,
			isfinite(v) ? "" : " class=\"muted\"", buf,
			isfinite(v) ? b->unit : "");
	}
	fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"%d\"/>\n",
		BAR_LABEL_W, BAR_LABEL_W, n * (BAR_H + BAR_GAP));
	fputs("</svg></section>\n", f);
}

struct plot {
	double xmax, xstep, ymax, ystep;
	double w, h;		/* plot area */
};

static double plot__x(const struct plot *p, double t)
{
	return LINE_LEFT + t / p->xmax * p->w;
}

static double plot__y(const struct plot *p, double v)
{
	return LINE_TOP + p->h - v / p->ymax * p->h;
}

static void plot__axes(const struct plot *p, const char *ylabel, FILE *f)
{
	int i, n = axis__ticks(p->ymax, p->ystep);
	char buf[32];
	double v;

	for (i = 0; i < n; i++) {
		v = i * p->ystep;
		tick__format(buf, sizeof(buf), v, p->ystep);
		fprintf(f, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"muted\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			LINE_LEFT, plot__y(p, v), LINE_LEFT + p->w, plot__y(p, v),
			LINE_LEFT - 8, plot__y(p, v) + 4, buf);
	}
	n = axis__ticks(p->xmax, p->xstep);
	for (i = 0; i < n; i++) {
		v = i * p->xstep;
		tick__format(buf, sizeof(buf), v, p->xstep);
		fprintf(f, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"muted\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			plot__x(p, v), LINE_TOP + p->h, plot__x(p, v),
			LINE_TOP + p->h + 5, plot__x(p, v), LINE_TOP + p->h + 20, buf);
	}
	fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%.1f\"/>"
		"<line class=\"axis\" x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		LINE_LEFT, LINE_TOP, LINE_LEFT, LINE_TOP + p->h,
		LINE_LEFT, LINE_TOP + p->h, LINE_LEFT + p->w, LINE_TOP + p->h);
	fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">time (s)</text>\n",
		LINE_LEFT + p->w / 2, LINE_H - 8);
	fprintf(f, "<text transform=\"translate(16 %.1f) rotate(-90)\" text-anchor=\"middle\">%s</text>\n",
		LINE_TOP + p->h / 2, ylabel);
}

/* One key's line and its legend entry; points as dots when few. A single
 * interval (no -I) is the mean over the whole run: a flat line from 0. */
static void plot__line(const struct report *r, const struct plot *p,
		       const struct report_key *k, const char *label,
		       const char *colour, int slot, FILE *f)
{
	bool dots = r->nr_times <= 40, system = !colour;
	double ly = LINE_TOP + 10 + slot * 22;
	int i;

	colour = colour ?: "#52606d";
	fprintf(f, "<polyline class=\"line\" fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s stroke-linejoin=\"round\" points=\"",
		colour, system ? "1.5" : "2.2", system ? " stroke-dasharray=\"6 4\"" : "");
	if (r->nr_times == 1)
		fprintf(f, "%.1f,%.1f ", plot__x(p, 0),
			plot__y(p, fmax(report__series_rate(r, k, 0), 0)));
	for (i = 0; i < r->nr_times; i++)
		if (report__interval_drawn(r, i))
			fprintf(f, "%.1f,%.1f ", plot__x(p, r->times[i]),
				plot__y(p, fmax(report__series_rate(r, k, i), 0)));
	fputs("\"/>\n", f);
	for (i = 0; dots && i < r->nr_times; i++)
		if (report__interval_drawn(r, i))
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
				plot__x(p, r->times[i]),
				plot__y(p, fmax(report__series_rate(r, k, i), 0)), colour);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"%s/>"
		"<text x=\"%.1f\" y=\"%.1f\">", CHART_W - LINE_RIGHT + 20.0, ly,
		CHART_W - LINE_RIGHT + 40.0, ly, colour,
		system ? " stroke-dasharray=\"6 4\"" : "",
		CHART_W - LINE_RIGHT + 48.0, ly + 4);
	html__puts_short(f, label, LEGEND_MAX);
	fputs("</text>\n", f);
}

static void plot__write(const struct report *r, int n, FILE *f)
{
	const struct report_key *sys = report__system(r);
	bool energy = r->rank == RANK_ENERGY;
	struct plot p = { .w = CHART_W - LINE_LEFT - LINE_RIGHT,
			  .h = LINE_H - LINE_TOP - LINE_BOTTOM };
	char label[300];
	int i, j;

	for (i = 0; i <= n; i++) {
		const struct report_key *k = i < n ? r->sorted[i] : sys;

		for (j = 0; k && k->series && j < r->nr_times; j++)
			if (report__interval_drawn(r, j))
				p.ymax = fmax(p.ymax, report__series_rate(r, k, j));
	}
	p.ystep = report__nice_step(p.ymax, 5);
	p.ymax = axis__end(p.ymax, p.ystep);
	p.xstep = report__nice_step(r->duration, 8);
	p.xmax = axis__end(r->duration, p.xstep);
	fprintf(f, "<section><h2>%s per %s over time, top %d%s</h2>\n",
		energy ? "Power" : r->rank == RANK_CPU_CLOCK ? "CPU use" :
		report__rank_name(r->rank), scope__name(r->scope), n,
		r->nr_times == 1 ? " (one interval: recorded without -I)" : "");
	fprintf(f, "<svg viewBox=\"0 0 %d %d\" role=\"img\">\n", CHART_W, LINE_H);
	plot__axes(&p, energy ? "power (W)" : r->rank == RANK_CPU_CLOCK ?
		   "CPUs used" : r->rank == RANK_CYCLES ? "cycles per second" :
		   "instructions per second", f);
	for (i = 0; i < n; i++) {
		report_key__label(r, r->sorted[i], label, sizeof(label));
		plot__line(r, &p, r->sorted[i], label, palette[i % PALETTE_NR], i, f);
	}
	if (sys && sys->series && r->scope != SCOPE_SYSTEM)
		plot__line(r, &p, sys, "system (all)", NULL, n, f);
	fputs("</svg></section>\n", f);
}

static void page__card(FILE *f, const char *name, const char *value,
		       const char *unit)
{
	fprintf(f, "<div class=\"card\"><span>%s</span><b>", name);
	html__puts(f, value);
	fprintf(f, "%s%s</b></div>\n", *unit ? " " : "", unit);
}

static void page__head(const struct report *r, FILE *f)
{
	const struct report_key *sys = report__system(r);
	struct report_metrics m;
	char buf[64], name[32];

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n<title>emon-perf report: ", f);
	html__puts(f, r->path);
	fprintf(f, "</title>\n<style>%s</style></head>\n<body><main>\n", page_css);
	fputs("<h1>emon-perf report</h1>\n<p class=\"sub\">", f);
	html__puts(f, r->path);
	fprintf(f, " &middot; by %s &middot; top %d of %d by %s", scope__name(r->scope),
		r->top, r->nr_sorted, report__rank_name(r->rank));
	if (r->window) {
		fputs(" &middot; ", f);
		html__puts(f, r->window);
		fprintf(f, ", %d host%s", r->nr_hosts, r->nr_hosts == 1 ? "" : "s");
	}
	if (r->has_energy) {
		fputs(" &middot; energy: ", f);
		html__puts(f, r->energy_source ?: "unknown source");
		if (r->energy_source && !strcmp(r->energy_source, "model"))
			fputs(" (estimated)", f);
		if (r->split_by) {
			fputs(", split by ", f);
			html__puts(f, r->split_by);
		}
		if (energy_source__scopes_of(r->energy_source)) {
			fputs(", scope ", f);
			html__puts(f, energy_source__scopes_of(r->energy_source));
		}
	}
	fputs("</p>\n", f);
	if (!r->has_energy)
		fprintf(f, "<p class=\"note\">No energy in this recording (it was made without an energy source): the charts show %s instead.</p>\n",
			r->rank == RANK_CPU_CLOCK ? "cpu-clock and CPU share" :
			report__rank_name(r->rank));
	else if (r->rank != RANK_ENERGY)
		fprintf(f, "<p class=\"note\">No energy on the %s rows of this recording: the charts show %s instead.</p>\n",
			scope__name(r->scope), report__rank_name(r->rank));
	report__metrics(r, sys, &m);
	fputs("<div class=\"cards\">\n", f);
	snprintf(buf, sizeof(buf), "%.3f", r->duration);
	page__card(f, "duration", buf, "s");
	snprintf(buf, sizeof(buf), "%d", r->nr_times);
	page__card(f, "intervals", buf, "");
	snprintf(name, sizeof(name), "%ss", r->scope == SCOPE_PROCESS ? "processe" :
		 scope__name(r->scope));
	snprintf(buf, sizeof(buf), "%d", r->nr_sorted);
	page__card(f, name, buf, "");
	if (isfinite(m.energy_j)) {
		num__format(buf, sizeof(buf), m.energy_j);
		page__card(f, "system energy", buf, "J");
		num__format(buf, sizeof(buf), m.power_w);
		page__card(f, "mean power", buf, "W");
	} else if (isfinite(m.cpu_ms)) {
		num__format(buf, sizeof(buf), m.cpu_ms / 1e3 / r->duration);
		page__card(f, "CPUs used (mean)", buf, "");
	}
	fputs("</div>\n", f);
}

static void page__table(const struct report *r, FILE *f)
{
	enum report_col cols[COL_NR];
	int i, c, n = report__columns(r, cols);
	char cell[256];

	fputs("<section><h2>Summary</h2>\n<table><thead><tr>", f);
	for (c = 0; c < n; c++) {
		fprintf(f, "<th%s>", cols[c] <= COL_NAMES ? " class=\"l\"" : "");
		html__puts(f, report__col_name(r, cols[c]));
		fputs("</th>", f);
	}
	fputs("</tr></thead><tbody>\n", f);
	for (i = 0; i < r->top; i++) {
		fputs("<tr>", f);
		for (c = 0; c < n; c++) {
			report__cell(r, r->sorted[i], cols[c], cell, sizeof(cell));
			if (cols[c] == COL_KEY) {
				fputs("<td class=\"l key\" title=\"", f);
				html__puts(f, r->sorted[i]->key);
				fprintf(f, "\"><span class=\"sw\" style=\"background:%s\"></span>",
					palette[i % PALETTE_NR]);
			} else {
				fprintf(f, "<td%s>", cols[c] <= COL_NAMES ? " class=\"l\"" : "");
			}
			html__puts(f, cell);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	if (r->top < r->nr_sorted)
		fprintf(f, "<p class=\"sub\">%d more not shown (--top).</p>\n",
			r->nr_sorted - r->top);
	fputs("</section>\n", f);
}

/* Top keys by what the report ranks them by: J, ms, or counts. */
static void bars__rank(const struct report *r, struct bars *b, int n)
{
	static const char *const titles[] = {
		[RANK_ENERGY]		= "Energy",
		[RANK_CPU_CLOCK]	= "CPU time (cpu-clock)",
		[RANK_CYCLES]		= "Cycles",
		[RANK_INSTRUCTIONS]	= "Instructions",
	};
	static const char *const units[] = {
		[RANK_ENERGY] = "J", [RANK_CPU_CLOCK] = "ms",
		[RANK_CYCLES] = "", [RANK_INSTRUCTIONS] = "",
	};
	struct report_metrics m;
	int i;

	b->unit = units[r->rank];
	snprintf(b->title, sizeof(b->title), "%s per %s%s%s%s", titles[r->rank],
		 scope__name(r->scope), *b->unit ? " (" : "", b->unit,
		 *b->unit ? ")" : "");
	for (i = 0; i < n; i++) {
		report__metrics(r, r->sorted[i], &m);
		b->value[i] = r->rank == RANK_ENERGY ? m.energy_j :
			      r->rank == RANK_CPU_CLOCK ? m.cpu_ms :
			      r->rank == RANK_CYCLES ? m.cycles : m.instructions;
	}
}

/* Energy per instruction; the share of the total when EPI is unknown. */
static void bars__efficiency(const struct report *r, struct bars *b, int n)
{
	struct report_metrics m;
	bool epi = false;
	int i;

	for (i = 0; i < n && r->rank == RANK_ENERGY; i++) {
		report__metrics(r, r->sorted[i], &m);
		epi |= isfinite(m.epi_nj);
	}
	if (epi)
		snprintf(b->title, sizeof(b->title),
			 "Energy per instruction per %s (nJ)", scope__name(r->scope));
	else if (r->rank == RANK_ENERGY)
		snprintf(b->title, sizeof(b->title),
			 "Share of the package energy per %s (%%) &middot; no EPI: instructions were not counted",
			 scope__name(r->scope));
	else
		snprintf(b->title, sizeof(b->title),
			 "CPU share per %s (%% of all cpu-clock)", scope__name(r->scope));
	b->unit = epi ? "nJ" : "%";
	for (i = 0; i < n; i++) {
		report__metrics(r, r->sorted[i], &m);
		b->value[i] = epi ? m.epi_nj : m.share * 100;
	}
}

int report__write_html(const struct report *r, FILE *f)
{
	struct bars b;
	int n = r->top < (int)(sizeof(b.value) / sizeof(*b.value)) ?
		r->top : (int)(sizeof(b.value) / sizeof(*b.value));
	int lines = n < REPORT_MAX_LINES ? n : REPORT_MAX_LINES;

	page__head(r, f);
	bars__rank(r, &b, n);
	bars__write(r, &b, n, f);
	bars__efficiency(r, &b, n);
	bars__write(r, &b, n, f);
	if (r->nr_times)
		plot__write(r, lines, f);
	page__table(r, f);
	fputs("</main></body></html>\n", f);
	return ferror(f) ? -EIO : 0;
}
