/* gnuplot scripts for result documents (see plot.h). */
#include "config.h"
#include "plot.h"
#include "result.h"
#include "stats.h"
#include "util.h"
#include "workload.h"

#include <math.h>
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

/* Median, min and max of a metric over one document's cells (repeats) of workload on fs. */
static bool summary(json_t *doc, const char *workload, const char *fs, const char *path, double out[3])
{
	double v[MAX_VALUES];
	size_t n = 0, i;
	json_t *cell;

	json_array_foreach(json_object_get(doc, "cells"), i, cell) {
		json_t *x = mgb_json_path(json_object_get(cell, "metrics"), path);

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

/* gnuplot strings are double-quoted: keep labels printable and free of quotes. */
static void put_label(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++)
		fputc(*s == '"' || *s == '\\' || (unsigned char)*s < ' ' ? '_' : *s, out);
	fputc('"', out);
}

static void preamble(FILE *out, const struct mgb_plot *p, const char *title, const char *ylabel)
{
	switch (p->format) {
	case MGB_PLOT_PNG: fprintf(out, "set terminal pngcairo size 960,540 noenhanced\n"); break;
	case MGB_PLOT_SVG: fprintf(out, "set terminal svg size 960,540 noenhanced\n"); break;
	case MGB_PLOT_TXT: fprintf(out, "set terminal dumb size 72,24 noenhanced\n"); break;
	}
	fprintf(out, "set output ");
	put_label(out, p->output);
	fprintf(out, "\nset title ");
	put_label(out, title);
	fprintf(out, "\nset ylabel ");
	put_label(out, ylabel);
	/* a text plot keeps its 72 columns for the picture: the key goes below */
	fprintf(out, "\nset key %s\nset grid ytics\n", p->format == MGB_PLOT_TXT ? "below" : "outside right top");
	if (p->log_y)
		fprintf(out, "set logscale y\n");
}

/* Grouped bars: one cluster per filesystem, one bar per document, whiskers from min to max. */
static int plot_bars(FILE *out, json_t *const *docs, const char *const *labels, unsigned ndocs,
		     const struct mgb_plot *p, const struct mgb_column *c, const char *title, char *err)
{
	const char *fs[MAX_FS];
	unsigned nfs = list_fs(docs, ndocs, p->workload, fs), drawn = 0;

	preamble(out, p, title, c->header);
	fprintf(out, "$data << EOD\nfs");
	for (unsigned d = 0; d < ndocs; d++) {
		fputc(' ', out);
		put_label(out, labels[d]);
		fprintf(out, " min max");
	}
	fputc('\n', out);
	for (unsigned f = 0; f < nfs; f++) {
		put_label(out, fs[f]);
		for (unsigned d = 0; d < ndocs; d++) {
			double s[3];

			if (summary(docs[d], p->workload, fs[f], c->path, s)) {
				/* a log axis cannot show 0: draw it at the axis floor */
				if (p->log_y)
					for (int k = 0; k < 3; k++)
						s[k] = s[k] > 0 ? s[k] : 1e-4;
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
	if (!p->log_y)
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

	preamble(out, p, title, "count");
	fprintf(out, "$data << EOD\nwhere");
	for (const struct mgb_column *c = w->columns; c->header; c++)
		if (c->events && !strcmp(c->format, "int")) {
			fputc(' ', out);
			put_label(out, c->header);
			ncols++;
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

			for (const struct mgb_column *c = w->columns; c->header; c++) {
				double s[3];

				if (!c->events || strcmp(c->format, "int"))
					continue;
				if (summary(docs[d], p->workload, fs[f], c->path, s)) {
					n += (size_t)snprintf(values + n, sizeof(values) - n, " %.9g",
							      p->log_y && s[0] <= 0 ? 0.5 : s[0]);
					any = true;
				} else {
					n += (size_t)snprintf(values + n, sizeof(values) - n, " NaN");
				}
			}
			/* a document without this filesystem gets no empty cluster */
			if (!any)
				continue;
			snprintf(where, sizeof(where), ndocs > 1 ? "%s %s" : "%s", fs[f], labels[d]);
			put_label(out, where);
			fprintf(out, "%s\n", values);
			rows++;
		}
	fprintf(out, "EOD\n");
	if (!rows)
		return mgb_err(err, "no %s cells with counts in these documents", p->workload);
	fprintf(out, "set style data histograms\nset style histogram clustered gap 1\n"
		     "set style fill solid 0.7 border -1\nset xtics rotate by -30\n");
	if (!p->log_y)
		fprintf(out, "set yrange [0:*]\n");
	fprintf(out, "plot for [i=2:%u] $data using i:xtic(1) title columnheader(i)\n", ncols + 1);
	return 0;
}

/* The step histogram of each (fs, document) as a step line on log axes. */
static int plot_steps(FILE *out, json_t *const *docs, const char *const *labels, unsigned ndocs,
		      const struct mgb_plot *p, const char *title, char *err)
{
	const char *fs[MAX_FS];
	unsigned nfs = list_fs(docs, ndocs, p->workload, fs), series = 0;
	char plot[4096];
	size_t n = (size_t)snprintf(plot, sizeof(plot), "plot");

	preamble(out, p, title, "steps");
	for (unsigned f = 0; f < nfs; f++)
		for (unsigned d = 0; d < ndocs; d++) {
			size_t i;
			json_t *cell;

			json_array_foreach(json_object_get(docs[d], "cells"), i, cell) {
				json_t *buckets = mgb_json_path(json_object_get(cell, "metrics"), "ctime.step_ns.buckets"), *b;
				size_t k;
				char name[128];

				if (strcmp(json_string_value(json_object_get(cell, "workload")), p->workload) ||
				    strcmp(json_string_value(json_object_get(cell, "fs")), fs[f]) ||
				    !json_array_size(buckets))
					continue;
				fprintf(out, "$s%u << EOD\n", series);
				json_array_foreach(buckets, k, b) {
					double lo = json_number_value(json_array_get(b, 0));
					double hi = json_number_value(json_array_get(b, 1));

					/* a step of 0 (a repeated stamp) sits at 1 ns on the log axis */
					fprintf(out, "%.9g %.9g\n", lo > 1 ? sqrt(lo * (hi > lo ? hi : lo)) : 1,
						json_number_value(json_array_get(b, 2)));
				}
				fprintf(out, "EOD\n");
				snprintf(name, sizeof(name), ndocs > 1 ? "%s %s" : "%s", fs[f], labels[d]);
				n += (size_t)snprintf(plot + n, n < sizeof(plot) ? sizeof(plot) - n : 0,
						      "%s $s%u using 1:2 with points pointsize 1.2 title \"%s\"", series ? "," : "",
						      series, name);
				series++;
				break; /* the first repeat: the others have the same shape */
			}
		}
	if (!series)
		return mgb_err(err, "no ctime step histogram (ctime.step_ns.buckets) for %s in these documents",
			       p->workload);
	fprintf(out, "set logscale x\nset logscale y\nset xlabel \"ctime step (ns)\"\nset ylabel \"steps\"\n%s\n", plot);
	return 0;
}

static const struct mgb_column *first_column(const struct mgb_workload *w, const char *format)
{
	for (const struct mgb_column *c = w->columns; c->header; c++)
		if (!strcmp(c->format, format))
			return c;
	return NULL;
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
	if (kind == MGB_PLOT_DEFAULT)
		kind = !strcmp(w->name, "statx06") || !strcmp(w->name, "revalidate") ? MGB_PLOT_COUNTS
		       : first_column(w, "ratio")					  ? MGB_PLOT_DISTINCT
											  : MGB_PLOT_RATE;
	switch (kind) {
	case MGB_PLOT_COUNTS:
		snprintf(title, sizeof(title), "%s: counts per filesystem", w->name);
		return plot_counts(out, docs, labels, ndocs, p, w, title, err);
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
