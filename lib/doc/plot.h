/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pictures of result documents, drawn by gnuplot.  mgbench writes a self-contained gnuplot
 * script (data inline as datablocks) and runs gnuplot on it; the same script, saved with
 * --script, redraws the picture by hand (`gnuplot FILE`).
 */
#ifndef MGB_PLOT_H
#define MGB_PLOT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

enum mgb_plot_kind {
	MGB_PLOT_DEFAULT,  /* the workload's own picture */
	MGB_PLOT_DISTINCT, /* its first ratio column, grouped bars per fs and document */
	MGB_PLOT_STEPS,    /* the distribution of ctime steps (ctime.step_ns.buckets), log axes */
	MGB_PLOT_COUNTS,   /* its count columns (statx06's brackets, revalidate's misses) */
	MGB_PLOT_RATE,     /* its first rate column, with min-max whiskers over repeats */
	MGB_PLOT_SWEEP,    /* cost over --poll-rate values: extra journal and IOPS ratio per query rate */
	/* the one metric a reader looks at first (ordering: inversions per round; write: distinct;
	 * revalidate: misses per re-read), one bar per document (a kernel, its runs pooled) per
	 * filesystem, min-max whiskers over its runs, the key under the picture (ab's pictures) */
	MGB_PLOT_HEADLINE,
};

enum mgb_plot_format { MGB_PLOT_PNG, MGB_PLOT_SVG, MGB_PLOT_TXT };

struct mgb_plot {
	const char *workload;
	enum mgb_plot_kind kind;
	enum mgb_plot_format format;
	bool log_y;
	const char *output;      /* the file a saved script draws to; NULL: gnuplot's stdout */
	const char *title;       /* added to the title (ab: the kernels), or NULL */
};

/* Can a script name this file (no control characters)? */
bool mgb_plot_path_ok(const char *path);

/* The gnuplot script for docs (labels name them); -1 with err when there is nothing to draw. */
int mgb_plot_script(FILE *out, json_t *const *docs, const char *const *labels, unsigned ndocs,
		    const struct mgb_plot *p, char *err);

/* The same script as text (malloc'd, *len bytes), or NULL with err. */
char *mgb_plot_script_text(json_t *const *docs, const char *const *labels, unsigned ndocs,
			   const struct mgb_plot *p, size_t *len, char *err);
/* gnuplot run on script, the picture in memory (*pic malloc'd, *size bytes; a text plot without
 * its form feed and trailing blanks), or -1 with err (plot_draw.c). */
int mgb_plot_draw(const char *script, size_t len, const struct mgb_plot *p, char **pic, size_t *size, char *err);
/* A text picture of several documents names them A, B, ...: the legend naming them, appended. */
int mgb_plot_add_legend(char **pic, size_t *size, char *const *labels, unsigned ndocs, char *err);

/* Each document holds cells of the workload drawn; else -1 with err naming the one that does not. */
int mgb_plot_check_workload(json_t *const *docs, char *const *paths, unsigned ndocs, const char *workload,
			    char *err);
/* Legends (labels[d] malloc'd): what tells the documents apart, the kernel (and multigrain), or
 * else each file's name without .json. */
void mgb_plot_labels(json_t *const *docs, char *const *paths, unsigned ndocs, char **labels);

#endif
