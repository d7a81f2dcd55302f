// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf top's screen on ncurses: a header (source, energy and host
 * power per package, CPU, what cannot be counted), the table as
 * top_table__arrange left it, a line of keys or the filter being typed,
 * and the help over it all. ncurses does the terminal: its capabilities,
 * the least output per refresh, keys and resizes, and restoring the
 * terminal's modes at the end.
 */
#define _GNU_SOURCE
#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "cli/top/top_draw.h"
#include "common/utf8.h"
#include "rapl/energy.h"

#define HEADER_LINES 5	/* 4 lines of header, the column titles */

static SCREEN *screen;

/* Widths of the value columns (titles and values fit). */
static const int col_w[TOP_COL_NR] = {
	[TOP_COL_POWER] = 9, [TOP_COL_SHARE] = 7, [TOP_COL_CPU] = 8,
	[TOP_COL_CYCLES] = 10, [TOP_COL_INS] = 10, [TOP_COL_IPC] = 6,
	[TOP_COL_EPI] = 9, [TOP_COL_WAIT] = 8, [TOP_COL_BLK] = 7,
	[TOP_COL_MIGR] = 9,
};

int top_draw__open(void)
{
	/* names are UTF-8 as often as not: the terminal's character set
	 * (LC_CTYPE only: numbers keep their '.') */
	setlocale(LC_CTYPE, "");
	/* newterm, not initscr: an unknown TERM is an error we report, not
	 * an exit inside the library */
	screen = newterm(NULL, stdout, stdin);
	if (!screen)
		return -ENOTTY;
	cbreak();		/* keys at once; Ctrl-C still a signal */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	return 0;
}

void top_draw__close(void)
{
	if (!screen)
		return;
	curs_set(1);
	endwin();
	delscreen(screen);
	screen = NULL;
}

int top_draw__key(void)
{
	int k = getch();

	switch (k) {
	case ERR:		return -1;
	case KEY_RESIZE:	return TOP_KEY_RESIZE;
	case KEY_UP:		return TOP_KEY_UP;
	case KEY_DOWN:		return TOP_KEY_DOWN;
	case KEY_PPAGE:		return TOP_KEY_PGUP;
	case KEY_NPAGE:		return TOP_KEY_PGDN;
	case KEY_HOME:		return TOP_KEY_HOME;
	case KEY_END:		return TOP_KEY_END;
	case KEY_LEFT:		return TOP_KEY_LEFT;
	case KEY_RIGHT:		return TOP_KEY_RIGHT;
	case KEY_ENTER:
	case '\r':
	case '\n':		return TOP_KEY_ENTER;
	case KEY_BACKSPACE:
	case 127:
	case 8:			return TOP_KEY_BACKSPACE;
	case 27:		return TOP_KEY_ESC;
	case KEY_F(1):		return 'h';
	}
	return k >= 0 && k < 0x100 ? k : -1;
}

int top_draw__rows(void)
{
	int n = LINES - HEADER_LINES - 1;

	return n > 0 ? n : 0;
}

/* One header line, cut at the screen's edge. */
static void line(int y, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(int y, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	mvaddnstr(y, 0, buf, COLS);
}

/* --gpu: the GPUs' watts after the CPUs' (or alone), on the energy line. */
static void energy__gpus(const struct top_header *h, char *buf, size_t len)
{
	const struct top_summary *sum = h->sum;
	size_t n = strlen(buf);

	if (!sum || !sum->has_gpu || !h->dt || n >= len)
		return;
	if (isnan(sum->gpu_w))
		snprintf(buf + n, len - n, "%sGPUs: no valid reading", n ? "; " : "");
	else
		snprintf(buf + n, len - n, "%sGPUs %.2f W (idle %.2f W)", n ? "; " : "",
			 sum->gpu_w, sum->gpu_idle_w);
}

static void paint_energy(const struct top_header *h, int y)
{
	const struct top_summary *sum = h->sum;
	char buf[1024];
	size_t n;

	if (!h->energy_source) {
		snprintf(buf, sizeof(buf), "Energy: %s", h->no_energy ? h->no_energy :
			 "no energy source");
		energy__gpus(h, buf, sizeof(buf));
		line(y, "%s", buf);
		return;
	}
	if (h->no_sys) {	/* RAPL is root's (CVE-2020-8694) */
		line(y, "Energy: %s: not shown (as the CPUs, below)", h->energy_source);
		return;
	}
	n = snprintf(buf, sizeof(buf), "Energy: %s%s, split by %s, scope %s;",
		     h->energy_source, h->energy_estimated ? " (estimated)" : "",
		     h->split_by ? h->split_by : "-",
		     energy_source__scopes_of(h->energy_source) ?: "unknown");
	if (!sum || !h->dt) {
		line(y, "%s waiting for the first interval", buf);
		return;
	}
	if (isnan(sum->power_w)) {
		n += snprintf(buf + n, sizeof(buf) - n, " no valid reading in this interval");
	} else {
		n += snprintf(buf + n, sizeof(buf) - n, " host %.2f W", sum->power_w);
		for (int i = 0; i < sum->npkg && n < sizeof(buf); i++)
			n += snprintf(buf + n, sizeof(buf) - n, "%s package %s %.2f W",
				      i ? "," : " =", sum->pkg_key[i], sum->pkg_power_w[i]);
	}
	energy__gpus(h, buf, sizeof(buf));
	line(y, "%s", buf);
}

/*
 * The View line, whole where it fits: each form shorter than the one
 * before (narrower gaps, "desc" for "descending", the events this host
 * cannot count without "not countable here", then as a number, then
 * none), never a word cut at the screen's edge. Only a filter too long
 * for the screen is cut.
 */
static void paint_view(const struct top_table *t, const struct top_state *s,
		       const char *unsup)
{
	static const char tail[] = " not countable here";
	const char *q = s->filter[0] || s->editing ? "\"" : "";
	int nr = 0, list = strlen(unsup);
	char buf[1024];

	if (list >= (int)sizeof(tail) - 1 && !strcmp(unsup + list - sizeof(tail) + 1, tail))
		list -= sizeof(tail) - 1;
	for (int i = 0; i < list; i++)
		nr += unsup[i] == ',' || !i;
	for (int form = 0; form < 5; form++) {
		const char *gap = form ? "  " : "   ";
		char u[300] = "";

		if (nr && form < 2)
			snprintf(u, sizeof(u), "%s'-': %s", gap, unsup);
		else if (nr && form == 2)
			snprintf(u, sizeof(u), "%s'-': %.*s", gap, list, unsup);
		else if (nr && form == 3)
			snprintf(u, sizeof(u), "%s'-': %d event%s", gap, nr, nr > 1 ? "s" : "");
		snprintf(buf, sizeof(buf), "View: %s%ssort: %s %s%sfilter: %s%s%s%s",
			 top_view__name(t->view), gap, top_col__title(s->sort_col),
			 form ? (s->sort_asc ? "asc" : "desc") :
			 (s->sort_asc ? "ascending" : "descending"), gap,
			 q[0] ? q : "(none)", s->filter, q, u);
		if ((int)strlen(buf) <= COLS)
			break;
	}
	line(3, "%s", buf);
}

static void paint_header(const struct top_header *h, const struct top_table *t,
			 const struct top_state *s)
{
	const struct top_summary *sum = h->sum;
	char idle_w[32] = "";

	line(0, "emon-perf top - %s - every %.1f s%s", h->source, h->delay,
	     s->paused ? " - PAUSED (space resumes)" : "");
	paint_energy(h, 1);
	if (h->no_sys) {
		line(2, "CPU: not shown: the host's CPUs and energy are the daemon's "
		     "administrators' to see (serve --admin-group), or anyone's "
		     "where perf_event_paranoid <= 0");
	} else if (sum && h->dt && !isnan(sum->busy_pct)) {
		if (!isnan(sum->idle_power_w))
			snprintf(idle_w, sizeof(idle_w), ", %.2f W", sum->idle_power_w);
		line(2, "CPU: busy %.1f%%, idle %.1f%%%s (%d CPUs; 100%% = one CPU)",
		     sum->busy_pct, sum->idle_pct, idle_w, sum->ncpus);
	} else {
		line(2, "CPU: %s", h->dt ? "no time event (cpu-clock)" :
		     "waiting for the first interval");
	}
	paint_view(t, s, h->unsupported);
}

/*
 * One cell of w columns at x: text to the left (names, cut at the screen's
 * edge) or to the right (numbers: a column that does not fit whole is
 * left out, never cut, and never wraps onto the next line).
 */
static void cell(int y, int x, int w, const char *text, bool left)
{
	char buf[600];

	if (x >= COLS || (!left && x + w > COLS))
		return;
	if (w > (int)sizeof(buf) - 1)
		w = sizeof(buf) - 1;
	snprintf(buf, sizeof(buf), left ? "%-*.*s" : "%*.*s", w, w, text);
	mvaddnstr(y, x, buf, w < COLS - x ? w : COLS - x);
}

/* Column titles, the sorted one underlined (the View line says which
 * and in which order: a letter after the title read as part of it). */
static void paint_titles(const struct top_table *t, const struct top_state *s,
			 const int *wid)
{
	int x = 0;

	attron(A_REVERSE);
	mvhline(HEADER_LINES - 1, 0, ' ', COLS);
	if (t->view == TOP_VIEW_PROCESSES) {
		cell(HEADER_LINES - 1, 0, 8, "PID", false);
		x = 9;
	}
	for (int c = 0; c < top_table__cols(t); c++) {
		int w = wid[c];

		if (c == (int)s->sort_col)
			attron(A_UNDERLINE | A_BOLD);
		cell(HEADER_LINES - 1, x, w, top_col__title(c), c == TOP_COL_NAME);
		if (c == (int)s->sort_col)
			attroff(A_UNDERLINE | A_BOLD);
		x += w;
	}
	attroff(A_REVERSE);
}

/* The name cell: the tree's indent and fold mark, then the name. */
static void name_cell(const struct top_table *t, const struct top_state *s,
		      const struct top_row *r, char *buf, size_t len)
{
	size_t n = 0;

	if (t->view == TOP_VIEW_CGROUPS) {
		for (int d = 0; d < r->depth && n + 2 < len; d++)
			n += snprintf(buf + n, len - n, "  ");
		n += snprintf(buf + n, len - n, "%s", !r->nr_children ? "  " :
			      top_state__is_collapsed(s, r->key) ?
			      "+ " : "- ");
	}
	snprintf(buf + n, len - n, r->note && strcmp(r->note, r->name) ? "%s (%s)" : "%s",
		 r->name, r->note);
	/* names are any bytes: no control characters on the terminal */
	utf8_mask_controls(buf);
}

/*
 * A name longer than its w columns keeps its start and its end, with '~'
 * between: the end tells cgroups, containers and scopes apart
 * ("docker-3f2a...scope"), where a cut at the edge left only what they
 * share. Cuts fall between UTF-8 characters.
 */
static void name__fit(char *buf, int w)
{
	int len = strlen(buf), head, tail;

	if (len <= w || w < 5)
		return;
	head = (w - 1) * 2 / 3;
	tail = len - (w - 1 - head);
	while (head > 0 && (buf[head] & 0xc0) == 0x80)
		head--;
	while (tail < len && (buf[tail] & 0xc0) == 0x80)
		tail++;
	buf[head] = '~';
	memmove(buf + head + 1, buf + tail, len - tail + 1);
}

static void paint_row(const struct top_table *t, const struct top_state *s,
		      int y, int i, const int *wid)
{
	const struct top_row *r = &t->rows[t->shown[i]];
	char buf[512];
	int x = 0;

	if (i == s->sel)
		attron(A_BOLD | A_REVERSE);
	mvhline(y, 0, ' ', COLS);
	if (t->view == TOP_VIEW_PROCESSES) {
		cell(y, 0, 8, r->key, false);
		x = 9;
	}
	name_cell(t, s, r, buf, sizeof(buf));
	name__fit(buf, wid[TOP_COL_NAME] - 1);
	cell(y, x, wid[TOP_COL_NAME] - 1, buf, true);
	x += wid[TOP_COL_NAME];
	for (int c = 1; c < top_table__cols(t); c++) {
		top_cell__format(c, r->v[c], buf, sizeof(buf));
		cell(y, x, wid[c], buf, false);
		x += wid[c];
	}
	if (i == s->sel)
		attroff(A_BOLD | A_REVERSE);
}

static void paint_help(void)
{
	static const char *const text[] = {
		"emon-perf top: keys",
		"",
		"c g p       containers, cgroups (tree), processes",
		"P N         Kubernetes pods, namespaces (sums of their containers)",
		"< >         sort by the column left / right of the current one",
		"1..9 0      sort by column N (0: the 10th; again: reverse)",
		"r           reverse the order",
		"/           filter by name (Enter keeps it, Esc clears it)",
		"Esc         clear the filter",
		"Up Down PgUp PgDn Home End   select a row",
		"Left Right  fold / unfold the selected cgroup's subtree",
		"Enter + -   toggle / unfold / fold it",
		"space       pause (the display; counting goes on)",
		"h ?         this help (any key closes it)",
		"q           quit",
		"",
		"CPU% = 100 for one whole CPU. '-': this host cannot count it.",
		"PKG% = share of the measured package energy; the idle task",
		"is left out of the rows and shown in the header.",
		"--sched: WAIT% run-queue wait, BLK% blocked (D) off CPU, both",
		"with 100 = one task all the time; MIGR/s migrations a second.",
	};
	int n = sizeof(text) / sizeof(text[0]), w = 70;
	int y0 = (LINES - n - 2) / 2, x0 = (COLS - w) / 2;

	if (y0 < 0)
		y0 = 0;
	if (x0 < 0)
		x0 = 0;
	for (int i = 0; i < n + 2; i++) {
		mvhline(y0 + i, x0, ' ', w);
		if (i && i <= n)
			mvaddnstr(y0 + i, x0 + 2, text[i - 1], w - 4);
	}
}

/*
 * The columns' widths on this screen: the name takes what the values
 * leave. Where that is less than a whole comm (15 characters and a gap),
 * a column whose every row shows '-' (what this host cannot count, no
 * energy source) shrinks to its title.
 */
static void col_widths(const struct top_table *t, int *wid)
{
	int name_w = COLS - (t->view == TOP_VIEW_PROCESSES ? 9 : 0);

	for (int c = 1; c < top_table__cols(t); c++) {
		wid[c] = col_w[c];
		name_w -= wid[c];
	}
	for (int c = 1; c < top_table__cols(t) && name_w < 16; c++) {
		int i, title = strlen(top_col__title(c)) + 1;

		for (i = 0; i < t->nr_shown; i++)
			if (!isnan(t->rows[t->shown[i]].v[c]))
				break;
		if (i < t->nr_shown || !t->nr_shown || title >= wid[c])
			continue;
		name_w += wid[c] - title;
		wid[c] = title;
	}
	wid[TOP_COL_NAME] = name_w < 8 ? 8 : name_w;
}

void top_draw__paint(const struct top_header *h, const struct top_table *t,
		     const struct top_state *s)
{
	int rows = top_draw__rows(), wid[TOP_COL_NR];

	col_widths(t, wid);
	erase();
	paint_header(h, t, s);
	paint_titles(t, s, wid);
	for (int i = s->first; i < t->nr_shown && i < s->first + rows; i++)
		paint_row(t, s, HEADER_LINES + i - s->first, i, wid);
	if (s->editing)
		line(LINES - 1, "Filter: %s_", s->filter);
	else
		line(LINES - 1, "%d of %d rows   h help  c g p P N views  < > sort  / filter  space pause  q quit",
		     t->nr_shown, t->nr);
	if (s->help)
		paint_help();
	refresh();
}
