/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gnuplot scripts for result documents (see plot.h). */
#include "config.h"
#include "plot.h"
#include "compare.h"
#include "result.h"
#include "stats.h"
#include "util.h"
#include "workload.h"

#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FS 32
#define MAX_VALUES 256

/* Filesystems of a workload's cells over all documents, in order of first appearance. */
static unsigned list_fs(json_t *const *docs, unsigned ndocs, const char *workload, const char **fs)
{
	unsigned n = 0;

	for (unsigned d = 0; d < ndocs; d++) {
		size_t i;
		json_t *cell;

		json_array_foreach(json_object_get(docs[d], "cells"), i, cell) {
			const char *name = json_string_value(json_object_get(cell, "fs"));
			unsigned k = 0;

			if (strcmp(json_string_value(json_object_get(cell, "workload")), workload))
				continue;
			while (k < n && strcmp(fs[k], name))
				k++;
			if (k == n && n < MAX_FS)
				fs[n++] = name;
		}
	}
	return n;
}

/* A count per opportunity (its events over its trials) for a count column, else the metric. */
static json_t *per_opportunity(json_t *metrics, const struct mgb_column *c, double *ratio)
{
	json_t *e = c->events ? mgb_json_path(metrics, c->events) : NULL;
	json_t *t = c->trials ? mgb_json_path(metrics, c->trials) : NULL;

	if (strcmp(c->format, "int") || !json_is_number(e) || !json_is_number(t) || json_number_value(t) <= 0)
		return mgb_json_path(metrics, c->path);
	*ratio = json_number_value(e) / json_number_value(t);
	return NULL;
}

/* "inversions per round" for a count column drawn per opportunity (its events' and trials' last
 * key), else the header. */
static void per_opportunity_name(const struct mgb_column *c, const char *header, char *buf, size_t len)
{
	const char *e, *t;
	size_t tl;

	if (!c || strcmp(c->format, "int") || !c->events || !c->trials) {
		snprintf(buf, len, "%s", header);
		return;
	}
	e = strrchr(c->events, '.') ? strrchr(c->events, '.') + 1 : c->events;
	t = strrchr(c->trials, '.') ? strrchr(c->trials, '.') + 1 : c->trials;
	tl = strlen(t);
	snprintf(buf, len, "%s per %.*s", e, (int)(tl > 1 && t[tl - 1] == 's' ? tl - 1 : tl), t);
}

/* Median, min and max over one document's cells (repeats, or runs) of workload on fs: of the
 * metric at path, or (column given) of the column per opportunity. */
static bool summary_of(json_t *doc, const char *workload, const char *fs, const char *path,
		       const struct mgb_column *col, double out[3])
{
	double v[MAX_VALUES];
	size_t n = 0, i;
	json_t *cell;

	json_array_foreach(json_object_get(doc, "cells"), i, cell) {
		double ratio = NAN;
		json_t *x = col ? per_opportunity(json_object_get(cell, "metrics"), col, &ratio)
				: mgb_json_path(json_object_get(cell, "metrics"), path);

		if (!isnan(ratio) && !strcmp(json_string_value(json_object_get(cell, "workload")), workload) &&
		    !strcmp(json_string_value(json_object_get(cell, "fs")), fs) && n < MAX_VALUES) {
			v[n++] = ratio;
			continue;
		}

		if (!strcmp(json_string_value(json_object_get(cell, "workload")), workload) &&
		    !strcmp(json_string_value(json_object_get(cell, "fs")), fs) && json_is_number(x) && n < MAX_VALUES)
			v[n++] = json_number_value(x);
	}
	if (n == 0)
		return false;
	out[0] = mgb_median(v, n); /* sorts v */
	out[1] = v[0];
	out[2] = v[n - 1];
	return true;
}

static bool summary(json_t *doc, const char *workload, const char *fs, const char *path, double out[3])
{
	return summary_of(doc, workload, fs, path, NULL, out);
}

/* Strings reach gnuplot two ways, each through one function.  Whatever comes from a document
 * or a file name travels as data (put_field: a datablock field or column header), never as
 * script text; gnuplot runs no command and expands no macro in data.  Script text (titles,
 * axis labels, the saved script's -o name) goes through put_string. */

/* A datablock field: double-quoted, and gnuplot's data reader knows no escape, so a double
 * quote becomes a single one; a control character (a newline would end the line, and a line
 * "EOD" the datablock) becomes '?'. */
static void put_field(FILE *out, const char *s)
{
	char *safe = mgb_printable_dup(s);

	fputc('"', out);
	if (!*safe)
		fputc('-', out); /* an empty field would shift the columns */
	for (const char *c = safe; *c; c++)
		fputc(*c == '"' ? '\'' : *c, out);
	fputc('"', out);
	free(safe);
}

/* A string in script text: single quotes, where gnuplot substitutes no `command`, processes
 * no backslash and ends the string only at a quote, which is doubled.  A control character
 * would end the command: it becomes '?' (an -o name with one is refused before, see
 * mgb_plot_path_ok, since '?' would name another file). */
static void put_string(FILE *out, const char *s)
{
	char *safe = mgb_printable_dup(s);

	fputc('\'', out);
	for (const char *c = safe; *c; c++) {
		if (*c == '\'')
			fputc('\'', out);
		fputc(*c, out);
	}
	fputc('\'', out);
	free(safe);
}

bool mgb_plot_path_ok(const char *s)
{
	for (; *s; s++)
		if (mgb_is_control(*s))
			return false;
	return true;
}

static void preamble(FILE *out, const struct mgb_plot *p, const char *title, const char *xlabel, const char *ylabel)
{
	switch (p->format) {
	case MGB_PLOT_PNG: fprintf(out, "set terminal pngcairo size 960,540 noenhanced\n"); break;
	case MGB_PLOT_SVG: fprintf(out, "set terminal svg size 960,540 noenhanced\n"); break;
	case MGB_PLOT_TXT: fprintf(out, "set terminal dumb size 72,24 noenhanced\n"); break;
	}
	/* no name: gnuplot draws on its standard output, which mgbench opened (see cmd/plot.c) */
	fprintf(out, "set output");
	if (p->output) {
		fputc(' ', out);
		put_string(out, p->output);
	}
	fprintf(out, "\nset title ");
	put_string(out, title);
	if (p->format == MGB_PLOT_TXT) {
		/* the dumb terminal draws no rotated y label: the unit goes under the x axis */
		char both[400];

		snprintf(both, sizeof(both), "%s%sy: %s", xlabel ? xlabel : "", xlabel ? "; " : "", ylabel);
		fprintf(out, "\nset xlabel ");
		put_string(out, both);
	} else {
		fprintf(out, "\nset ylabel ");
		put_string(out, ylabel);
		if (xlabel) {
			fprintf(out, "\nset xlabel ");
			put_string(out, xlabel);
		}
	}
	/* a text plot keeps its 72 columns for the picture: the key goes below, one entry a
	 * line, since entries side by side are dropped when they do not fit */
	fprintf(out, "\nset key %s\nset grid ytics\nset format y '%%g'\n",
		p->format == MGB_PLOT_TXT   ? "below maxcols 1"
		: p->kind == MGB_PLOT_HEADLINE ? "below horizontal"
					       : "outside right top");
	if (p->log_y)
		fprintf(out, "set logscale y\n");
}

/* The dumb terminal draws no key sample for a bar: a text plot's key names the character each
 * series is drawn with (its linetypes, in order). */
static void put_series_title(FILE *out, const struct mgb_plot *p, unsigned series, const char *title)
{
	static const char glyphs[] = "*#$%@&=";
	char s[300];

	if (p->format != MGB_PLOT_TXT) {
		put_field(out, title);
		return;
	}
	snprintf(s, sizeof(s), "%c %s", glyphs[series % (sizeof(glyphs) - 1)], title);
	put_field(out, s);
}

/* A log axis cannot show 0: zeros are drawn a decade below the smallest positive value, and
 * the y label says where. */
static double log_floor(json_t *const *docs, unsigned ndocs, const char *workload, const char *const *fs,
			unsigned nfs, const struct mgb_column *const *cols, unsigned ncols, bool *zero)
{
	double low = INFINITY;

	*zero = false;

	for (unsigned f = 0; f < nfs; f++)
		for (unsigned d = 0; d < ndocs; d++)
			for (unsigned c = 0; c < ncols; c++) {
				double s[3];

				if (!summary(docs[d], workload, fs[f], cols[c]->path, s))
					continue;
				for (int k = 0; k < 3; k++) {
					if (s[k] > 0)
						low = fmin(low, s[k]);
					else
						*zero = true;
				}
			}
	return isinf(low) ? 1 : pow(10, floor(log10(low)) - 1);
}

/* Grouped bars: one cluster per filesystem, one bar per document, whiskers from min to max. */
static int plot_bars(FILE *out, json_t *const *docs, const char *const *labels, unsigned ndocs,
		     const struct mgb_plot *p, const struct mgb_column *c, const char *title, char *err)
{
	const struct mgb_column *per = p->kind == MGB_PLOT_HEADLINE ? c : NULL;
	const char *fs[MAX_FS];
	unsigned nfs = list_fs(docs, ndocs, p->workload, fs), drawn = 0;
	bool zero = false;
	double floor_y = p->log_y ? log_floor(docs, ndocs, p->workload, fs, nfs, &c, 1, &zero) : 0;
	char ylabel[200];

	char unit[120];

	per_opportunity_name(per ? c : NULL, c->header, unit, sizeof(unit));
	if (zero)
		snprintf(ylabel, sizeof(ylabel), "%s (0 drawn at %g)", unit, floor_y);
	else
		snprintf(ylabel, sizeof(ylabel), "%s", unit);
	preamble(out, p, title, per ? "bars: the median over each document's cells (an ab: its boots); whiskers: min to max" : NULL,
		 ylabel);
	fprintf(out, "$data << EOD\nfs");
	for (unsigned d = 0; d < ndocs; d++) {
		fputc(' ', out);
		put_series_title(out, p, d, labels[d]);
		fprintf(out, " min max");
	}
	fputc('\n', out);
	for (unsigned f = 0; f < nfs; f++) {
		put_field(out, fs[f]);
		for (unsigned d = 0; d < ndocs; d++) {
			double s[3];

			if (summary_of(docs[d], p->workload, fs[f], c->path, per, s)) {
				if (p->log_y)
					for (int k = 0; k < 3; k++)
						s[k] = s[k] > 0 ? s[k] : floor_y;
				fprintf(out, " %.9g %.9g %.9g", s[0], s[1], s[2]);
				drawn++;
			} else {
				fprintf(out, " NaN NaN NaN");
			}
		}
		fputc('\n', out);
	}
	fprintf(out, "EOD\n");
	if (!drawn)
		return mgb_err(err, "no %s values for %s in these documents", c->path, p->workload);
	fprintf(out, "set style data histograms\nset style histogram errorbars gap 1 lw 1\n"
		     "set style fill solid 0.7 border -1\nset boxwidth 0.9\n");
	if (p->log_y)
		fprintf(out, "set yrange [%g:*]\n", floor_y / 2);
	else
		fprintf(out, "set yrange [0:*]\n");
	fprintf(out, "plot for [d=0:%u] $data using (column(2+3*d)):(column(3+3*d)):(column(4+3*d)):xtic(1) "
		     "title columnheader(2+3*d)\n", ndocs - 1);
	return 0;
}

/* Clustered bars of several count columns: one cluster per (fs, document). */
static int plot_counts(FILE *out, json_t *const *docs, const char *const *labels, unsigned ndocs,
		       const struct mgb_plot *p, const struct mgb_workload *w, const char *title, char *err)
{
	const char *fs[MAX_FS];
	unsigned nfs = list_fs(docs, ndocs, p->workload, fs), ncols = 0, rows = 0;
	const struct mgb_column *cols[32];
	const char *what;
	double floor_y;
	char ylabel[100];
	bool zero = false;

	/* the columns compare tests as proportions: counts (statx06) or ratios per opportunity
	 * (revalidate), not both in one workload */
	for (const struct mgb_column *c = w->columns; c->header; c++)
		if (c->events && (!strcmp(c->format, "int") || !strcmp(c->format, "ratio")) &&
		    ncols < MGB_ARRAY_SIZE(cols))
			cols[ncols++] = c;
	what = ncols && !strcmp(cols[0]->format, "ratio") ? "share of opportunities" : "count";
	floor_y = p->log_y ? log_floor(docs, ndocs, p->workload, fs, nfs, cols, ncols, &zero) : 0;
	if (zero)
		snprintf(ylabel, sizeof(ylabel), "%s (0 drawn at %g)", what, floor_y);
	else
		snprintf(ylabel, sizeof(ylabel), "%s", what);
	preamble(out, p, title, NULL, ylabel);
	fprintf(out, "$data << EOD\nwhere");
	for (unsigned i = 0; i < ncols; i++) {
		fputc(' ', out);
		put_series_title(out, p, i, cols[i]->header);
	}
	fputc('\n', out);
	if (!ncols)
		return mgb_err(err, "%s has no count columns to draw (try --kind rate)", p->workload);
	for (unsigned f = 0; f < nfs; f++)
		for (unsigned d = 0; d < ndocs; d++) {
			char where[128];
			bool any = false;

			char values[1024];
			size_t n = 0;

			for (unsigned i = 0; i < ncols; i++) {
				double s[3];

				if (summary(docs[d], p->workload, fs[f], cols[i]->path, s)) {
					n += (size_t)snprintf(values + n, sizeof(values) - n, " %.9g",
							      p->log_y && s[0] <= 0 ? floor_y : s[0]);
					any = true;
				} else {
					n += (size_t)snprintf(values + n, sizeof(values) - n, " NaN");
				}
			}
			/* a document without this filesystem gets no empty cluster */
			if (!any)
				continue;
			snprintf(where, sizeof(where), ndocs > 1 ? "%s %s" : "%s", fs[f], labels[d]);
			put_field(out, where);
			fprintf(out, "%s\n", values);
			rows++;
		}
	fprintf(out, "EOD\n");
	if (!rows)
		return mgb_err(err, "no %s cells with counts in these documents", p->workload);
	fprintf(out, "set style data histograms\nset style histogram clustered gap 1\n"
		     "set style fill solid 0.7 border -1\n");
	/* the dumb terminal cannot rotate the labels: a text plot's are short (see cmd/plot.c) */
	if (p->format != MGB_PLOT_TXT)
		fprintf(out, "set xtics rotate by -30\n");
	if (p->log_y)
		fprintf(out, "set yrange [%g:*]\n", floor_y / 2);
	else
		fprintf(out, "set yrange [0:*]\n");
	fprintf(out, "plot for [i=2:%u] $data using i:xtic(1) title columnheader(i)\n", ncols + 1);
	return 0;
}

/* The first repeat's step histogram of workload on fs in a document, or NULL. */
static json_t *steps_of(json_t *doc, const char *workload, const char *fs)
{
	size_t i;
	json_t *cell;

	json_array_foreach(json_object_get(doc, "cells"), i, cell) {
		json_t *buckets = mgb_json_path(json_object_get(cell, "metrics"), "ctime.step_ns.buckets");

		if (!strcmp(json_string_value(json_object_get(cell, "workload")), workload) &&
		    !strcmp(json_string_value(json_object_get(cell, "fs")), fs) && json_array_size(buckets))
			return buckets; /* the others have the same shape */
	}
	return NULL;
}

/* A log axis has no 0: a step of 0 (a repeated stamp) is drawn a decade below the smallest
 * positive step drawn, and the x label says where. */
static double steps_floor(json_t *const *docs, unsigned ndocs, const char *workload, const char *const *fs,
			  unsigned nfs)
{
	double low = INFINITY;

	for (unsigned f = 0; f < nfs; f++)
		for (unsigned d = 0; d < ndocs; d++) {
			json_t *buckets = steps_of(docs[d], workload, fs[f]), *b;
			size_t k;

			json_array_foreach(buckets, k, b)
				if (json_number_value(json_array_get(b, 1)) > 0)
					low = fmin(low, fmax(json_number_value(json_array_get(b, 0)), 1));
		}
	return isinf(low) ? 1 : pow(10, floor(log10(low)) - 1);
}

/* One step histogram as a datablock: its title as the column header (data, never script
 * text), then per bucket its geometric middle and its count per ns of bucket width (merged
 * buckets are wide: a raw count would distort the shape); steps of 0 at zero_x, counted in
 * the title. */
static void steps_block(FILE *out, unsigned series, json_t *buckets, const char *name, double zero_x)
{
	double zero = 0;
	size_t k;
	json_t *b;
	char title[256];

	json_array_foreach(buckets, k, b)
		if (json_number_value(json_array_get(b, 1)) <= 0)
			zero += json_number_value(json_array_get(b, 2));
	if (zero > 0)
		snprintf(title, sizeof(title), "%s (%.0f steps of 0)", name, zero);
	else
		snprintf(title, sizeof(title), "%s", name);
	fprintf(out, "$s%u << EOD\n\"step\" ", series);
	put_field(out, title);
	fputc('\n', out);
	json_array_foreach(buckets, k, b) {
		double lo = json_number_value(json_array_get(b, 0)), hi = json_number_value(json_array_get(b, 1));
		double n = json_number_value(json_array_get(b, 2));

		if (n <= 0)
			continue;
		if (hi <= 0)
			fprintf(out, "%.9g %.9g\n", zero_x, n);
		else
			fprintf(out, "%.9g %.9g\n", sqrt(fmax(lo, 1) * hi), n / (hi - fmax(lo, 1) + 1));
	}
	fprintf(out, "EOD\n");
}

/* The step histogram of each (fs, document) as points on log axes. */
static int plot_steps(FILE *out, json_t *const *docs, const char *const *labels, unsigned ndocs,
		      const struct mgb_plot *p, const char *title, char *err)
{
	const char *fs[MAX_FS];
	unsigned nfs = list_fs(docs, ndocs, p->workload, fs), series = 0;
	double zero_x = steps_floor(docs, ndocs, p->workload, fs, nfs);
	char xlabel[100];

	snprintf(xlabel, sizeof(xlabel), "ctime step (ns), 0 drawn at %g", zero_x);
	preamble(out, p, title, xlabel, "steps per ns of bucket width");
	for (unsigned f = 0; f < nfs; f++)
		for (unsigned d = 0; d < ndocs; d++) {
			json_t *buckets = steps_of(docs[d], p->workload, fs[f]);
			char name[200];

			if (!buckets)
				continue;
			snprintf(name, sizeof(name), ndocs > 1 ? "%s %s" : "%s", fs[f], labels[d]);
			steps_block(out, series++, buckets, name, zero_x);
		}
	if (!series)
		return mgb_err(err, "no ctime step histogram (ctime.step_ns.buckets) for %s in these documents",
			       p->workload);
	/* points off the frame, so a series at the edge stays visible */
	fprintf(out, "set logscale x\nset logscale y\nset offsets graph 0.05, graph 0.05, graph 0.05, graph 0.05\nplot");
	for (unsigned s = 0; s < series; s++)
		fprintf(out, "%s $s%u using 1:2 with points pointsize 1.2 title columnheader(2)", s ? "," : "", s);
	fputc('\n', out);
	return 0;
}

/* One point of a sweep: the measured query rate and the two figures drawn against it. */
struct sweep_point {
	double x, journal, ratio;
};

static int by_x(const void *a, const void *b)
{
	double x = ((const struct sweep_point *)a)->x, y = ((const struct sweep_point *)b)->x;

	return (x > y) - (x < y);
}

static double number_or_nan(json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* One document's cells of fs as points, sorted by query rate; how many. */
static size_t sweep_points(json_t *doc, const char *fs, struct sweep_point *pt)
{
	size_t n = 0, i;
	json_t *cell;

	json_array_foreach(json_object_get(doc, "cells"), i, cell) {
		json_t *m = json_object_get(cell, "metrics");
		double x = number_or_nan(mgb_json_path(m, "ctime.polls_per_s"));

		if (strcmp(json_string_value(json_object_get(cell, "workload")), "cost") ||
		    strcmp(json_string_value(json_object_get(cell, "fs")), fs) || isnan(x) || x <= 0 || n >= MAX_VALUES)
			continue;
		pt[n++] = (struct sweep_point){ x, number_or_nan(json_object_get(m, "extra_journal_per_1000")),
						number_or_nan(json_object_get(m, "ctime_size_ratio")) };
	}
	qsort(pt, n, sizeof(*pt), by_x);
	return n;
}

/* A y label: beside the axis, or under the x axis on the dumb terminal (no rotated text). */
static void put_ylabel(FILE *out, const struct mgb_plot *p, const char *xlabel, const char *ylabel)
{
	char both[400];

	if (p->format == MGB_PLOT_TXT) {
		snprintf(both, sizeof(both), "%s; y: %s", xlabel, ylabel);
		fprintf(out, "set xlabel ");
		put_string(out, both);
	} else {
		fprintf(out, "set ylabel ");
		put_string(out, ylabel);
	}
	fputc('\n', out);
}

/*
 * cost over a --poll-rate sweep: the extra journal per 1000 writes and the ctime/size IOPS ratio
 * against the query rate the poller reached, one line per filesystem and document (a datablock
 * each, its title a column header: names from documents travel as data).
 */
static int plot_sweep(FILE *out, json_t *const *docs, const char *const *labels, unsigned ndocs,
		      const struct mgb_plot *p, const char *title, char *err)
{
	static const char xlabel[] = "ctime queries per second (measured)";
	const char *fs[MAX_FS];
	unsigned nfs = list_fs(docs, ndocs, "cost", fs), nseries = 0, njournal = 0, nratio = 0;
	bool journal_positive = true;
	struct sweep_point pt[MAX_VALUES];

	preamble(out, p, title, xlabel, "extra journal per 1000 writes");
	for (unsigned f = 0; f < nfs; f++)
		for (unsigned d = 0; d < ndocs; d++) {
			size_t n = sweep_points(docs[d], fs[f], pt);
			char name[200];

			if (!n)
				continue;
			snprintf(name, sizeof(name), "%s%s%s", fs[f], ndocs > 1 ? " " : "", ndocs > 1 ? labels[d] : "");
			fprintf(out, "$s%u << EOD\nqueries ", nseries);
			put_series_title(out, p, nseries, name);
			fputc(' ', out);
			put_series_title(out, p, nseries, name);
			fputc('\n', out);
			for (size_t i = 0; i < n; i++) {
				fprintf(out, "%.9g %.9g %.9g\n", pt[i].x, pt[i].journal, pt[i].ratio);
				njournal += !isnan(pt[i].journal);
				journal_positive = journal_positive && (isnan(pt[i].journal) || pt[i].journal > 0);
				nratio += !isnan(pt[i].ratio);
			}
			fprintf(out, "EOD\n");
			nseries++;
		}
	if (!nseries)
		return mgb_err(err, "no cost cells with a measured query rate in these documents");
	/* both need a size phase beside the ctime phase; tmpfs has no journal */
	if (!nratio)
		return mgb_err(err, "no cost cell has a ctime/size ratio: sweep with --poll all");
	/* two panels need the height; the key once, under the lower one */
	if (p->format == MGB_PLOT_TXT && njournal)
		fprintf(out, "set terminal dumb size 72,44 noenhanced\n");
	fprintf(out, "set logscale x\nset format x '%%g'\nset multiplot layout %d,1\n", njournal ? 2 : 1);
	if (njournal) {
		/* from a few hundredths to about one per write: a log axis, where nothing is below 0 */
		if (journal_positive)
			fprintf(out, "set logscale y\n");
		fprintf(out, "unset key\n");
		fprintf(out, "plot for [s=0:%u] sprintf('$s%%d', s) using 1:2 with linespoints title columnheader(2)\n",
			nseries - 1);
		fprintf(out, "unset title\nunset logscale y\nset key %s\n",
			p->format == MGB_PLOT_TXT ? "below maxcols 1" : "outside right top");
	}
	put_ylabel(out, p, xlabel, "ctime / size writes per second");
	fprintf(out, "plot for [s=0:%u] sprintf('$s%%d', s) using 1:3 with linespoints title columnheader(3)\n"
		     "unset multiplot\n",
		nseries - 1);
	return 0;
}

/* Does any document hold cost cells at more than one --poll-rate? */
static bool swept(json_t *const *docs, unsigned ndocs)
{
	for (unsigned d = 0; d < ndocs; d++) {
		json_t *first = NULL, *cell;
		size_t i;

		json_array_foreach(json_object_get(docs[d], "cells"), i, cell) {
			json_t *rate = json_object_get(json_object_get(cell, "params"), "poll-rate");

			if (strcmp(json_string_value(json_object_get(cell, "workload")), "cost") || !rate)
				continue;
			if (first && !json_equal(first, rate))
				return true;
			first = first ? first : rate;
		}
	}
	return false;
}

static const struct mgb_column *first_column(const struct mgb_workload *w, const char *format)
{
	for (const struct mgb_column *c = w->columns; c->header; c++)
		if (!strcmp(c->format, format))
			return c;
	return NULL;
}

/* The metric a reader of a post looks at first, per workload (by column header); otherwise the
 * first ratio column, or the first rate. */
static const struct mgb_column *headline_column(const struct mgb_workload *w)
{
	static const char *const headlines[][2] = {
		{ "ordering", "invers" }, { "revalidate", "ann/read" }, { "statx06", "<before" },
	};

	for (size_t i = 0; i < sizeof(headlines) / sizeof(headlines[0]); i++)
		if (!strcmp(w->name, headlines[i][0]))
			for (const struct mgb_column *c = w->columns; c->header; c++)
				if (!strcmp(c->header, headlines[i][1]))
					return c;
	return first_column(w, "ratio") ?: first_column(w, "rate");
}

int mgb_plot_script(FILE *out, json_t *const *docs, const char *const *labels, unsigned ndocs,
		    const struct mgb_plot *p, char *err)
{
	const struct mgb_workload *w = mgb_workload_find(p->workload);
	enum mgb_plot_kind kind = p->kind;
	const struct mgb_column *c;
	char title[256];

	if (!w)
		return mgb_err(err, "unknown workload '%s'", p->workload);
	if (kind == MGB_PLOT_DEFAULT && !strcmp(w->name, "cost") && swept(docs, ndocs))
		kind = MGB_PLOT_SWEEP;
	if (kind == MGB_PLOT_DEFAULT)
		kind = !strcmp(w->name, "statx06") || !strcmp(w->name, "revalidate") ? MGB_PLOT_COUNTS
		       : first_column(w, "ratio")					  ? MGB_PLOT_DISTINCT
											  : MGB_PLOT_RATE;
	switch (kind) {
	case MGB_PLOT_HEADLINE:
		if (!(c = headline_column(w)))
			return mgb_err(err, "%s has no column to draw", w->name);
		{
			char name[120];

			per_opportunity_name(c, c->header, name, sizeof(name));
			snprintf(title, sizeof(title), "%s: %s per filesystem%s%s", w->name, name, p->title ? ", " : "",
				 p->title ? p->title : "");
		}
		return plot_bars(out, docs, labels, ndocs, p, c, title, err);
	case MGB_PLOT_COUNTS:
		snprintf(title, sizeof(title), "%s: %s per filesystem", w->name,
			 !strcmp(w->name, "revalidate") ? "misses per opportunity" : "counts");
		return plot_counts(out, docs, labels, ndocs, p, w, title, err);
	case MGB_PLOT_SWEEP:
		if (strcmp(w->name, "cost"))
			return mgb_err(err, "--kind sweep draws cost's --poll-rate sweeps, not %s", w->name);
		snprintf(title, sizeof(title), "cost: the price of queries, per query rate");
		return plot_sweep(out, docs, labels, ndocs, p, title, err);
	case MGB_PLOT_STEPS:
		snprintf(title, sizeof(title), "%s: distribution of ctime steps", w->name);
		return plot_steps(out, docs, labels, ndocs, p, title, err);
	case MGB_PLOT_RATE:
		c = first_column(w, "rate");
		if (!c)
			return mgb_err(err, "%s has no rate column", w->name);
		snprintf(title, sizeof(title), "%s: %s (median, min-max over repeats)", w->name, c->path);
		return plot_bars(out, docs, labels, ndocs, p, c, title, err);
	default:
		c = first_column(w, "ratio");
		if (!c)
			return mgb_err(err, "%s has no ratio column (try --kind counts or rate)", w->name);
		snprintf(title, sizeof(title), "%s: %s per filesystem", w->name, c->path);
		return plot_bars(out, docs, labels, ndocs, p, c, title, err);
	}
}

/* Each document holds cells of the workload drawn, or plot names the one that does not. */
int mgb_plot_check_workload(json_t *const *docs, char *const *paths, unsigned ndocs, const char *workload,
			    char *err)
{
	for (unsigned d = 0; d < ndocs; d++) {
		size_t i;
		json_t *cell;
		bool found = false;

		json_array_foreach(json_object_get(docs[d], "cells"), i, cell)
			found |= !strcmp(json_string_value(json_object_get(cell, "workload")) ?: "", workload);
		if (!found)
			return mgb_err(err, "%s: no %s cells (choose another with --workload)", paths[d], workload);
	}
	return 0;
}

/* Legends: what tells the documents apart, the kernel (and mg) or else the file name. */
void mgb_plot_labels(json_t *const *docs, char *const *paths, unsigned ndocs, char **labels)
{
	bool distinct = true;

	for (unsigned d = 0; d < ndocs; d++)
		labels[d] = mgb_doc_describe(docs[d]);
	for (unsigned d = 0; d < ndocs; d++)
		for (unsigned e = d + 1; e < ndocs; e++)
			distinct &= strcmp(labels[d], labels[e]) != 0;
	if (distinct && ndocs > 1)
		return;
	for (unsigned d = 0; d < ndocs; d++) {
		char *copy = strdup(paths[d]), *dot;

		free(labels[d]);
		labels[d] = strdup(basename(copy));
		dot = strrchr(labels[d], '.');
		if (dot && !strcmp(dot, ".json"))
			*dot = '\0';
		free(copy);
	}
}
