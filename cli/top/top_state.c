// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf top's keys and the order they give the table (cli/top/top_model.h):
 * sort, filter, the cgroup tree's collapsed subtrees, the selection and
 * scrolling. Pure: the selection is kept by key, so it stays on its row
 * when a refresh reorders the table.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "common/array.h"
#include "cli/top/top_model.h"

void top_state__init(struct top_state *s)
{
	memset(s, 0, sizeof(*s));
	s->view = TOP_VIEW_CGROUPS;
	s->sort_col = TOP_COL_CPU;
}

void top_state__exit(struct top_state *s)
{
	for (int i = 0; i < s->nr_collapsed; i++)
		free(s->collapsed[i]);
	free(s->collapsed);
	free(s->sel_key);
	memset(s, 0, sizeof(*s));
}

bool top_state__is_collapsed(const struct top_state *s, const char *key)
{
	for (int i = 0; i < s->nr_collapsed; i++)
		if (!strcmp(s->collapsed[i], key))
			return true;
	return false;
}

static void set_collapsed(struct top_state *s, const char *key, bool on)
{
	for (int i = 0; i < s->nr_collapsed; i++) {
		if (strcmp(s->collapsed[i], key))
			continue;
		if (!on) {
			free(s->collapsed[i]);
			s->collapsed[i] = s->collapsed[--s->nr_collapsed];
		}
		return;
	}
	if (!on)
		return;
	if (array__grow(&s->collapsed, &s->cap_collapsed, s->nr_collapsed + 1,
			sizeof(*s->collapsed)))
		return;
	if ((s->collapsed[s->nr_collapsed] = strdup(key)))
		s->nr_collapsed++;
}

static void select_pos(struct top_state *s, const struct top_table *t, int pos)
{
	if (pos >= t->nr_shown)
		pos = t->nr_shown - 1;
	if (pos < 0)
		pos = 0;
	s->sel = pos;
	free(s->sel_key);
	s->sel_key = t->nr_shown ? strdup(t->rows[t->shown[pos]].key) : NULL;
}

/* The default direction: names A to Z, numbers biggest first; col
 * wraps around t's columns. */
static void sort_by(struct top_state *s, const struct top_table *t, int col)
{
	int nr = top_table__cols(t);

	col = (col + nr) % nr;
	if (col == (int)s->sort_col) {
		s->sort_asc = !s->sort_asc;
		return;
	}
	s->sort_col = col;
	s->sort_asc = col == TOP_COL_NAME;
}

static enum top_action filter_key(struct top_state *s, int key)
{
	size_t n = strlen(s->filter);

	if (key == TOP_KEY_ENTER) {
		s->editing = false;
	} else if (key == TOP_KEY_ESC) {
		s->editing = false;
		s->filter[0] = '\0';
	} else if (key == TOP_KEY_BACKSPACE) {
		if (n)
			s->filter[n - 1] = '\0';
	} else if (key >= ' ' && key < 0x7f && n + 1 < sizeof(s->filter)) {
		s->filter[n] = key;
		s->filter[n + 1] = '\0';
	} else {
		return TOP_ACT_NONE;
	}
	return TOP_ACT_REDRAW;
}

/* Left, right, enter on a cgroup: fold, unfold, toggle its subtree. */
static enum top_action tree_key(struct top_state *s, const struct top_table *t,
				int key)
{
	const struct top_row *r;
	bool folded;

	if (t->view != TOP_VIEW_CGROUPS || !t->nr_shown)
		return TOP_ACT_NONE;
	r = &t->rows[t->shown[s->sel]];
	folded = top_state__is_collapsed(s, r->key);
	if (key == TOP_KEY_LEFT && (!r->nr_children || folded)) {
		/* on a leaf or a folded row: up to its parent, as in a file tree */
		for (int i = 0; r->parent >= 0 && i < t->nr_shown; i++)
			if (t->shown[i] == r->parent)
				select_pos(s, t, i);
		return TOP_ACT_REDRAW;
	}
	if (!r->nr_children)
		return TOP_ACT_NONE;
	set_collapsed(s, r->key, key == TOP_KEY_LEFT ? true :
		      key == TOP_KEY_RIGHT ? false : !folded);
	return TOP_ACT_REDRAW;
}

/* < > sort by the column left or right of the current one (around the
 * ends), a digit by column N: 1..9, then 0 for the 10th, as on the
 * keyboard's row. */
static enum top_action sort_key(struct top_state *s, const struct top_table *t,
				int key)
{
	int col;

	if (key == '<' || key == '>') {
		sort_by(s, t, s->sort_col + (key == '<' ? -1 : 1));
		return TOP_ACT_REDRAW;
	}
	col = key == '0' ? 9 : key >= '1' && key <= '9' ? key - '1' : -1;
	if (col < 0 || col >= top_table__cols(t))
		return TOP_ACT_NONE;
	sort_by(s, t, col);
	return TOP_ACT_REDRAW;
}

static enum top_action move_key(struct top_state *s, const struct top_table *t,
				int key, int page)
{
	int pos = s->sel;

	switch (key) {
	case TOP_KEY_UP:   pos--; break;
	case TOP_KEY_DOWN: pos++; break;
	case TOP_KEY_PGUP: pos -= page > 1 ? page - 1 : 1; break;
	case TOP_KEY_PGDN: pos += page > 1 ? page - 1 : 1; break;
	case TOP_KEY_HOME: pos = 0; break;
	case TOP_KEY_END:  pos = t->nr_shown - 1; break;
	default:
		return TOP_ACT_NONE;
	}
	select_pos(s, t, pos);
	return TOP_ACT_REDRAW;
}

enum top_action top_state__key(struct top_state *s, const struct top_table *t,
			       int key, int page)
{
	enum top_action a;

	if (s->editing)
		return filter_key(s, key);
	if (s->help) {
		s->help = false;
		return TOP_ACT_REDRAW;
	}
	switch (key) {
	case 'q':
		return TOP_ACT_QUIT;
	case 'c':
	case 'g':
	case 'p':
	case 'P':
	case 'N':
		s->view = key == 'c' ? TOP_VIEW_CONTAINERS :
			  key == 'g' ? TOP_VIEW_CGROUPS :
			  key == 'p' ? TOP_VIEW_PROCESSES :
			  key == 'P' ? TOP_VIEW_PODS : TOP_VIEW_NAMESPACES;
		free(s->sel_key);
		s->sel_key = NULL;
		s->sel = s->first = 0;
		return TOP_ACT_REDRAW;
	case 'r':
		s->sort_asc = !s->sort_asc;
		return TOP_ACT_REDRAW;
	case ' ':
		s->paused = !s->paused;
		return TOP_ACT_PAUSE;
	case 'h':
	case '?':
		s->help = true;
		return TOP_ACT_REDRAW;
	case '/':
		s->editing = true;
		return TOP_ACT_REDRAW;
	case TOP_KEY_ESC:
		s->filter[0] = '\0';
		return TOP_ACT_REDRAW;
	case '+':
	case '-':
		return tree_key(s, t, key == '+' ? TOP_KEY_RIGHT : TOP_KEY_LEFT);
	case TOP_KEY_LEFT:
	case TOP_KEY_RIGHT:
	case TOP_KEY_ENTER:
		return tree_key(s, t, key);
	}
	a = sort_key(s, t, key);
	return a != TOP_ACT_NONE ? a : move_key(s, t, key, page);
}

/* --- order --- */

static int row__cmp(const void *a, const void *b, void *arg)
{
	const struct top_table *t = ((void **)arg)[0];
	const struct top_state *s = ((void **)arg)[1];
	const struct top_row *x = &t->rows[*(const int *)a];
	const struct top_row *y = &t->rows[*(const int *)b];
	double vx = x->v[s->sort_col], vy = y->v[s->sort_col];
	int c = 0;

	if (s->sort_col == TOP_COL_NAME) {
		c = strcmp(x->name, y->name);
		c = s->sort_asc ? c : -c;
	} else if (isnan(vx) != isnan(vy)) {
		return isnan(vx) ? 1 : -1;	/* '-' last either way */
	} else if (!isnan(vx) && vx != vy) {
		c = (vx < vy) == s->sort_asc ? -1 : 1;
	}
	if (c)
		return c;
	/* equal: by name, then key, so rows do not swap between refreshes */
	c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->key, y->key);
}

/*
 * A filter is a substring of the name or key; one that ends in '/' is a
 * namespace (or namespace/pod): names that start with it, or are it, so
 * that "prod/" keeps prod's pods and containers, not preprod's.
 */
static bool row__matches(const struct top_row *r, const char *filter)
{
	size_t n = strlen(filter);

	if (n > 1 && filter[n - 1] == '/')
		return !strncasecmp(r->name, filter, n) ||
		       (strlen(r->name) == n - 1 && !strncasecmp(r->name, filter, n - 1));
	return !filter[0] || strcasestr(r->name, filter) || strcasestr(r->key, filter);
}

struct walk {
	struct top_table *t;
	const struct top_state *s;
	const bool *visible;
	int *first_child, *next_sib;
};

/* Depth first, siblings sorted; folded subtrees left out. */
static void walk__add(struct walk *w, int *kids, int nr)
{
	void *arg[2] = { w->t, (void *)w->s };

	qsort_r(kids, nr, sizeof(*kids), row__cmp, arg);
	for (int i = 0; i < nr; i++) {
		const struct top_row *r = &w->t->rows[kids[i]];
		int n = 0, *sub;

		w->t->shown[w->t->nr_shown++] = kids[i];
		if (!r->nr_children || top_state__is_collapsed(w->s, r->key))
			continue;
		/* the rest of kids[] is this level's; children go after it */
		sub = kids + nr;
		for (int c = w->first_child[kids[i]]; c >= 0; c = w->next_sib[c])
			if (w->visible[c])
				sub[n++] = c;
		walk__add(w, sub, n);
	}
}

static int arrange_tree(struct top_table *t, const struct top_state *s)
{
	bool *visible = calloc(t->nr + 1, sizeof(*visible));
	int *first = malloc((t->nr + 1) * sizeof(int));
	int *next = malloc((t->nr + 1) * sizeof(int));
	/* one level's list per depth at most: nr entries suffice twice over */
	int *kids = malloc((2 * t->nr + 1) * sizeof(int));
	struct walk w = { t, s, visible, first, next };
	int err = -ENOMEM, n = 0;

	if (!visible || !first || !next || !kids)
		goto out;
	for (int i = t->nr - 1; i >= 0; i--) {
		int p = t->rows[i].parent;

		first[i] = -1;
		visible[i] = visible[i] || row__matches(&t->rows[i], s->filter);
		if (p >= 0)
			visible[p] = visible[p] || visible[i];
	}
	/* children after parents: link them from the end, kept in order */
	for (int i = t->nr - 1; i >= 0; i--) {
		int p = t->rows[i].parent;

		next[i] = p >= 0 ? first[p] : -1;
		if (p >= 0)
			first[p] = i;
	}
	for (int i = 0; i < t->nr; i++)
		if (t->rows[i].parent < 0 && visible[i])
			kids[n++] = i;
	walk__add(&w, kids, n);
	err = 0;
out:
	free(visible);
	free(first);
	free(next);
	free(kids);
	return err;
}

int top_table__arrange(struct top_table *t, struct top_state *s, int rows)
{
	void *arg[2] = { t, s };
	int err = 0, pos = -1;

	t->nr_shown = 0;
	if (t->view == TOP_VIEW_CGROUPS) {
		err = arrange_tree(t, s);
	} else {
		for (int i = 0; i < t->nr; i++)
			if (row__matches(&t->rows[i], s->filter))
				t->shown[t->nr_shown++] = i;
		if (t->nr_shown > 1)	/* shown is NULL while a view is empty */
			qsort_r(t->shown, t->nr_shown, sizeof(int), row__cmp, arg);
	}
	for (int i = 0; s->sel_key && i < t->nr_shown && pos < 0; i++)
		if (!strcmp(t->rows[t->shown[i]].key, s->sel_key))
			pos = i;
	/* its row went (filtered, folded, ended): the same place instead */
	select_pos(s, t, pos >= 0 ? pos : s->sel);
	if (rows < 1)
		rows = 1;
	if (s->first > s->sel)
		s->first = s->sel;
	if (s->sel >= s->first + rows)
		s->first = s->sel - rows + 1;
	if (s->first > t->nr_shown - rows)
		s->first = t->nr_shown - rows > 0 ? t->nr_shown - rows : 0;
	return err;
}
