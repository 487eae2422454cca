/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mgbench plot: a picture of result documents, drawn by gnuplot (png, svg, or text for email). */
#include "config.h"
#include "compare.h"
#include "doc.h"
#include "mgbench.h"
#include "cmdline.h"
#include "docs.h"
#include "plot.h"
#include "result.h"
#include "util.h"
#include "workload.h"

#include <errno.h>
#include <libgen.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* a text plot of several documents names them by the letters A to P */
#define MAX_DOCS 16

enum { OPT_WORKLOAD = 256, OPT_KIND, OPT_LOG, OPT_SCRIPT };

static const struct mgb_cmd_option options[] = {
	{ "output", 'o', "OUT", "the picture; its suffix, .png, .svg or .txt,\npicks the format", 'o' },
	{ "workload", 0, "W", "the workload to draw (default: the first)", OPT_WORKLOAD },
	{ "kind", 0, "K",
	  "distinct (bars of the distinct ratio), steps\n(ctime step distribution), counts (statx06's\n"
	  "brackets, revalidate's misses), rate (with\nmin-max whiskers) or sweep (cost per query\n"
	  "rate, over a --poll-rate list) or headline\n(the metric a reader looks at first, per\n"
	  "opportunity, key below); default: the\nworkload's own",
	  OPT_KIND },
	{ "log", 0, NULL, "logarithmic y axis (0.001 and 1.0 both readable)", OPT_LOG },
	{ "script", 0, "FILE",
	  "also write the gnuplot script, data inline, to\nrestyle and redraw by hand: gnuplot FILE", OPT_SCRIPT },
	{ 0 },
};

static const struct mgb_cmdline cmdline = { .verb = "plot", .opts = options };

static void usage(FILE *out)
{
	fprintf(out,
		"usage: mgbench plot [options] FILE.json [MORE.json ...] -o OUT\n"
		"\n"
		"Draws result documents with gnuplot: .txt is a text plot of at most 72\n"
		"columns for an email.\n"
		"\n");
	mgb_cmd_options_print(out, options);
	fprintf(out, "\nSee mgbench-plot(1).\n");
}

static int format_of(const char *out, enum mgb_plot_format *f)
{
	const char *dot = strrchr(out, '.');

	if (!dot)
		return -1;
	if (!strcmp(dot, ".png"))
		*f = MGB_PLOT_PNG;
	else if (!strcmp(dot, ".svg"))
		*f = MGB_PLOT_SVG;
	else if (!strcmp(dot, ".txt"))
		*f = MGB_PLOT_TXT;
	else
		return -1;
	return 0;
}

static int kind_of(const char *s, enum mgb_plot_kind *k)
{
	static const char *const names[] = { "distinct", "steps", "counts", "rate", "sweep", "headline" };
	static const enum mgb_plot_kind kinds[] = { MGB_PLOT_DISTINCT, MGB_PLOT_STEPS, MGB_PLOT_COUNTS, MGB_PLOT_RATE,
						    MGB_PLOT_SWEEP, MGB_PLOT_HEADLINE };

	for (size_t i = 0; i < MGB_ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i])) {
			*k = kinds[i];
			return 0;
		}
	return -1;
}

/* Reserve an output file: in a directory nobody else can write (root would otherwise write
 * where another user can plant a symlink), as an unnamed file named only when whole. */
static int open_output(struct mgb_output *o, const char *path, char *err)
{
	char *copy = strdup(path);
	int rc;

	if (!copy)
		return mgb_err(err, "out of memory");
	rc = mgb_check_trusted_dir(dirname(copy), true, err);
	free(copy);
	if (rc == 0)
		rc = mgb_output_open(o, path, err);
	return rc < 0 ? -1 : 0;
}

int cmd_plot(int argc, char **argv)
{
	struct mgb_plot p = { 0 };
	const char *out = NULL, *script_path = NULL;
	json_t *docs[MAX_DOCS];
	char *labels[MAX_DOCS], err[MGB_ERR_LEN] = "", *script = NULL;
	struct mgb_output pic, saved;
	char *picture = NULL;
	size_t size = 0;
	bool have_pic = false, have_saved = false, text_letters;
	const char *shown[MAX_DOCS];
	unsigned ndocs = 0;
	size_t len;
	int c, rc = MGB_EXIT_FAIL;

	optind = 1;
	while ((c = mgb_getopt(&cmdline, argc, argv)) != MGB_GETOPT_END) {
		switch (c) {
		case 'o': out = optarg; break;
		case OPT_WORKLOAD: p.workload = optarg; break;
		case OPT_KIND:
			if (kind_of(optarg, &p.kind) < 0)
				return mgb_usage_error("plot", "--kind '%s': distinct, steps, counts, rate, sweep or headline", optarg);
			break;
		case OPT_LOG: p.log_y = true; break;
		case OPT_SCRIPT: script_path = optarg; break;
		case MGB_GETOPT_HELP: usage(stdout); return MGB_EXIT_OK;
		default: return MGB_EXIT_USAGE;
		}
	}
	if (!out)
		return mgb_usage_error("plot", "-o OUT.png|.svg|.txt is required");
	if (format_of(out, &p.format) < 0)
		return mgb_usage_error("plot", "-o %s: the name must end in .png, .svg or .txt", out);
	if (p.workload && !mgb_workload_find(p.workload))
		return mgb_usage_error("plot", "--workload '%s': no such workload (see 'mgbench list')", p.workload);
	if ((c = mgb_docs_load("plot", argv + optind, (unsigned)(argc - optind), MAX_DOCS, docs)))
		return c;
	ndocs = (unsigned)(argc - optind);
	if (!p.workload)
		p.workload = json_string_value(json_object_get(json_array_get(json_object_get(docs[0], "cells"), 0),
							       "workload"));
	if (mgb_plot_check_workload(docs, argv + optind, ndocs, p.workload, err) < 0) {
		fprintf(stderr, "mgbench plot: %s\n", err);
		goto out;
	}
	mgb_plot_labels(docs, argv + optind, ndocs, labels);
	if (script_path && !mgb_plot_path_ok(out)) {
		rc = mgb_usage_error("plot", "--script: a gnuplot script cannot name an -o file with a control character");
		goto out_labels;
	}
	/* Both files are reserved before gnuplot runs, and appear whole or not at all. */
	if (open_output(&pic, out, err) < 0)
		goto fail;
	have_pic = true;
	if (script_path && open_output(&saved, script_path, err) < 0)
		goto fail;
	have_saved = script_path != NULL;
	p.output = NULL; /* no file name in the drawing script: gnuplot draws on its stdout */
	/* a text plot of several documents names them by letter, with a legend below */
	text_letters = p.format == MGB_PLOT_TXT && ndocs > 1;
	for (unsigned d = 0; d < ndocs; d++)
		shown[d] = text_letters ? "A\0B\0C\0D\0E\0F\0G\0H\0I\0J\0K\0L\0M\0N\0O\0P" + 2 * d : labels[d];
	script = mgb_plot_script_text(docs, shown, ndocs, &p, &len, err);
	if (!script || mgb_plot_draw(script, len, &p, &picture, &size, err) < 0)
		goto fail;
	if (text_letters && mgb_plot_add_legend(&picture, &size, labels, ndocs, err) < 0)
		goto fail;
	have_pic = false;
	if (mgb_output_commit_bytes(&pic, picture, size, err) < 0)
		goto fail;
	if (script_path) {
		/* the saved script draws to the real name */
		free(script);
		p.output = out;
		if (!(script = mgb_plot_script_text(docs, (const char *const *)labels, ndocs, &p, &len, err)))
			goto fail;
		have_saved = false;
		if (mgb_output_commit_bytes(&saved, script, len, err) < 0)
			goto fail;
	}
	rc = MGB_EXIT_OK;
	goto out_labels;
fail:
	fprintf(stderr, "mgbench plot: %s\n", err);
out_labels:
	if (have_pic)
		mgb_output_abort(&pic);
	if (have_saved)
		mgb_output_abort(&saved);
	for (unsigned d = 0; d < ndocs; d++)
		free(labels[d]);
out:
	free(picture);
	free(script);
	mgb_docs_free(docs, ndocs);
	return rc;
}
