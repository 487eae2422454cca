/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mgbench compare: result documents side by side, each metric judged against the first. */
#include "config.h"
#include "report.h"
#include "compare.h"
#include "doc.h"
#include "mgbench.h"
#include "cmdline.h"
#include "docs.h"
#include "result.h"
#include "util.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIDES 16 /* A, B, ... */

/* What "--" between documents becomes while getopt runs: a word it leaves in place, in order
 * among the documents, where it would otherwise drop a "--" it met. */
static char side_sep[] = "\x1f--";
#define MAX_METRICS 64

enum { OPT_METRICS = 256, OPT_FORMAT, OPT_ALPHA, OPT_ACROSS_FS, OPT_FAIL_ON_REGRESSION };

static const struct mgb_cmd_option options[] = {
	{ "metrics", 0, "LIST", "metrics to compare, by key or column header\n(default: each workload's table columns)",
	  OPT_METRICS },
	{ "format", 0, "FMT", "text (72 columns), markdown or json", OPT_FORMAT },
	{ "alpha", 0, "P", "significance level (default 0.05)", OPT_ALPHA },
	{ "across-fs", 0, NULL, "match cells whatever their filesystem", OPT_ACROSS_FS },
	{ "fail-on-regression", 0, "LIST",
	  "exit 1 if one of these metrics (header, key or\nleaf key) got worse beyond noise; exit 3 if\n"
	  "none did but one could not be judged",
	  OPT_FAIL_ON_REGRESSION },
	{ 0 },
};

static const struct mgb_cmdline cmdline = { .verb = "compare", .opts = options };

static void usage(FILE *out)
{
	fprintf(out,
		"usage: mgbench compare [options] BASE.json NEW.json [MORE.json ...]\n"
		"       mgbench compare [options] A1.json ... -- B1.json ...\n"
		"\n"
		"Matches the cells of result documents by workload, filesystem, backend\n"
		"and parameters, and judges each metric of each side against the first:\n"
		"proportions over runs (Fisher widened by their dispersion, or exact\n"
		"Mann-Whitney over the runs' rates where time drives them), or on a gap\n"
		"of 0.5; rates and times by Mann-Whitney U over runs, so give several\n"
		"runs (one document each) a side, separated by --; 5 or more\n"
		"recommended. p-values are Benjamini-Hochberg adjusted across the tests\n"
		"of the table that can decide.\n"
		"\n");
	mgb_cmd_options_print(out, options);
	fprintf(out, "\nSee mgbench-compare(1).\n");
}

/* --across-fs pairs one filesystem against another; a document of several would be pooled. */
static int check_across_fs(json_t **docs, const char **paths, unsigned ndocs)
{
	for (unsigned d = 0; d < ndocs; d++) {
		const char *one;
		unsigned n = mgb_compare_fs_count(docs[d], &one);

		if (n > 1)
			return mgb_usage_error("compare", "--across-fs: %s holds %u filesystems; give one a document",
					       paths[d], n);
	}
	return MGB_EXIT_OK;
}

/* Which side each document is on: "--" between documents starts the next side; without one
 * each document is a side of its own. */
static int assign_sides(char **args, int n, unsigned *side_of, unsigned *ndocs, unsigned *nsides)
{
	unsigned side = 0, in_side = 0, k = 0;
	bool grouped = false;

	for (int i = 0; i < n; i++) {
		if (args[i] == side_sep) {
			/* before any document, -- is the usual end of the options and groups nothing */
			grouped |= k > 0;
			side += in_side > 0; /* a doubled -- starts nothing */
			in_side = 0;
			continue;
		}
		if (k == MGB_DOCS_MAX)
			return mgb_usage_error("compare", "at most %d documents", MGB_DOCS_MAX);
		side_of[k++] = side;
		in_side++;
	}
	*ndocs = k;
	*nsides = grouped ? side + (in_side > 0) : k;
	if (!grouped)
		for (unsigned d = 0; d < k; d++)
			side_of[d] = d;
	if (*nsides < 2)
		return mgb_usage_error("compare", grouped ? "needs documents on both sides of --"
							  : "needs at least two result documents (see 'mgbench compare --help')");
	if (*nsides > MAX_SIDES)
		return mgb_usage_error("compare", "at most %d sides", MAX_SIDES);
	return MGB_EXIT_OK;
}

int cmd_compare(int argc, char **argv)
{
	struct mgb_compare_opts o = { .alpha = 0.05 };
	const char *format = "text", *metrics[MAX_METRICS], *fail[MAX_METRICS], *paths[MGB_DOCS_MAX];
	unsigned nfail = 0, ndocs = 0, nsides = 0, side_of[MGB_DOCS_MAX];
	json_t *docs[MGB_DOCS_MAX], *cmp, *sides[MAX_SIDES] = { 0 };
	char *side_paths[MAX_SIDES] = { 0 };
	const char *unknown;
	char *end, err[MGB_ERR_LEN];
	int c, rc = MGB_EXIT_OK;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--"))
			argv[i] = side_sep;
	optind = 1;
	while ((c = mgb_getopt(&cmdline, argc, argv)) != MGB_GETOPT_END) {
		switch (c) {
		case OPT_METRICS:
			if (mgb_split_names("compare", "--metrics", optarg, metrics, MAX_METRICS, &o.nmetrics))
				return MGB_EXIT_USAGE;
			o.metrics = metrics;
			break;
		case OPT_FORMAT:
			format = optarg;
			if (strcmp(format, "text") && strcmp(format, "markdown") && strcmp(format, "json"))
				return mgb_usage_error("compare", "--format '%s': text, markdown or json", optarg);
			break;
		case OPT_ALPHA:
			o.alpha = strtod(optarg, &end);
			if (*end || !(o.alpha > 0 && o.alpha < 1))
				return mgb_usage_error("compare", "--alpha '%s': a probability between 0 and 1", optarg);
			break;
		case OPT_ACROSS_FS: o.across_fs = true; break;
		case OPT_FAIL_ON_REGRESSION:
			if (mgb_split_names("compare", "--fail-on-regression", optarg, fail, MAX_METRICS, &nfail))
				return MGB_EXIT_USAGE;
			break;
		case MGB_GETOPT_HELP: usage(stdout); return MGB_EXIT_OK;
		default: return MGB_EXIT_USAGE;
		}
	}
	if ((rc = assign_sides(argv + optind, argc - optind, side_of, &ndocs, &nsides)))
		return rc;
	for (int i = optind, k = 0; i < argc; i++)
		if (argv[i] != side_sep)
			paths[k++] = argv[i];
	if ((rc = mgb_docs_load("compare", (char *const *)paths, ndocs, MGB_DOCS_MAX, docs)))
		return rc;
	if (o.across_fs && (rc = check_across_fs(docs, paths, ndocs)))
		goto out;
	if (mgb_compare_sides(docs, paths, ndocs, side_of, nsides, sides, side_paths, err)) {
		fprintf(stderr, "mgbench compare: %s\n", err);
		rc = MGB_EXIT_FAIL;
		goto out;
	}
	cmp = mgb_compare(sides, (const char *const *)side_paths, nsides, &o);
	if (!json_array_size(json_object_get(cmp, "cells"))) {
		if (nsides == 2)
			fprintf(stderr, "mgbench compare: no cell of B (%s) matches a cell of A (%s)\n", side_paths[1],
				side_paths[0]);
		else
			fprintf(stderr, "mgbench compare: no cell is in every document\n");
		json_decref(cmp);
		rc = MGB_EXIT_FAIL;
		goto out;
	}
	if (o.nmetrics && (unknown = mgb_compare_unknown_metric(cmp, o.metrics, o.nmetrics))) {
		rc = mgb_usage_error("compare", "--metrics: no column of the matched cells is named '%s'", unknown);
		json_decref(cmp);
		goto out;
	}
	if (!mgb_compare_any_known(cmp)) {
		/* nothing this mgbench can judge: an empty table would read as "no change" */
		fprintf(stderr, "mgbench compare: no matched cell is of a workload this mgbench knows (%s)\n",
			mgb_compare_safe(json_string_value(json_object_get(json_array_get(json_object_get(cmp, "cells"), 0),
									   "workload"))));
		json_decref(cmp);
		rc = MGB_EXIT_FAIL;
		goto out;
	}
	if (!strcmp(format, "json")) {
		json_dumpf(cmp, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	} else if (!strcmp(format, "markdown")) {
		mgb_compare_print_markdown(stdout, cmp);
	} else {
		mgb_compare_print_text(stdout, cmp);
	}
	if (nfail) {
		rc = mgb_compare_gate(cmp, fail, nfail, stderr, err);
		if (rc < 0)
			rc = mgb_usage_error("compare", "--fail-on-regression: %s", err);
	}
	json_decref(cmp);
out:
	for (unsigned i = 0; i < nsides; i++) {
		json_decref(sides[i]);
		free(side_paths[i]);
	}
	mgb_docs_free(docs, ndocs);
	return rc;
}
