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

#define MAX_DOCS 64  /* documents in all */
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
		"proportions by Fisher's exact test widened by the repeats' dispersion,\n"
		"rates and times by Mann-Whitney U over runs, so give several runs (one\n"
		"document each) a side, separated by --; 5 or more recommended.\n"
		"p-values are Benjamini-Hochberg adjusted across the table.\n"
		"\n");
	mgb_cmd_options_print(out, options);
	fprintf(out, "\nSee mgbench-compare(1).\n");
}

/* A string from a document, safe for a terminal: control characters (escape sequences,
 * newlines) become '?'.  A ring of buffers, so a printf can take several. */
static const char *safe(const char *text)
{
	static char ring[6][1024];
	static unsigned next;
	char *buf = ring[next++ % 6];

	snprintf(buf, sizeof(ring[0]), "%s", text ?: "");
	return mgb_printable(buf);
}

static char letter(size_t d)
{
	return (char)('A' + d);
}

#define EXIT_UNJUDGED 3 /* --fail-on-regression: a named metric could not be judged */

/* A number for the change column: a percentage, or in the metric's own units. */
static void format_num(char *buf, size_t len, double x, bool pct)
{
	if (pct)
		snprintf(buf, len, fabs(x) < 10 ? "%+.1f%%" : "%+.0f%%", 100.0 * x);
	else if (x != 0 && fabs(x) < 0.01)
		snprintf(buf, len, "%+.2g", x);
	else
		snprintf(buf, len, "%+.3f", x);
}

/* A change of a continuous metric from 0 has no percentage: it is given in the metric's own
 * unit, "+6.2ms", never as a bare "+6164080.000". */
static void format_in_unit(char *buf, size_t len, double x, const char *format)
{
	char v[32];
	json_t *j = json_real(fabs(x));

	mgb_format_value(v, sizeof(v), j, format);
	json_decref(j);
	snprintf(buf, len, "%c%s", x < 0 ? '-' : '+', v);
}

/* One number of the change column: relative, in the metric's unit, or a difference of rates. */
static void format_one(char *buf, size_t len, double x, bool pct, const char *unit)
{
	if (unit)
		format_in_unit(buf, len, x, unit);
	else
		format_num(buf, len, x, pct);
}

/* The change and its interval, "-2.1% [-3.0, -1.2]": relative for a continuous metric (in its
 * unit when A is 0), a difference of rates for a proportion. */
static void format_change(char *change, char *ci, size_t len, json_t *verdict, const char *unit)
{
	json_t *rel = json_object_get(verdict, "relative"), *abs = json_object_get(verdict, "change");
	json_t *interval = json_object_get(verdict, json_is_number(rel) ? "ci_relative" : "ci");
	bool pct = json_is_number(rel);
	char lo[16], hi[16];
	double x;

	*change = *ci = '\0';
	if (!json_is_number(abs))
		return;
	if (pct)
		unit = NULL;
	x = json_number_value(pct ? rel : abs);
	/* a difference of rates is truncated like the values it is of: 0 against 0.9987 reads
	 * 0.000, 0.998 and +0.998, not +0.999 */
	if (!pct && !unit && fabs(x) >= 0.01)
		x = (double)(long long)(x * 1000.0) / 1000.0;
	format_one(change, len, x, pct, unit);
	if (!json_is_array(interval))
		return;
	format_one(lo, sizeof(lo), json_number_value(json_array_get(interval, 0)), pct, unit);
	format_one(hi, sizeof(hi), json_number_value(json_array_get(interval, 1)), pct, unit);
	if (pct) {
		/* the unit once: "-2.1% [-3.0, -1.2]" */
		lo[strlen(lo) - 1] = '\0';
		hi[strlen(hi) - 1] = '\0';
	}
	snprintf(ci, len, "[%s, %s]", lo, hi);
}

static const char *test_code(const char *test)
{
	return !test ? "" : !strcmp(test, "fisher") ? "F" : !strcmp(test, "quasi-binomial") ? "Q"
			  : !strcmp(test, "mw-exact") ? "MWx" : !strcmp(test, "mw-normal") ? "MWn" : test;
}

/* The p the verdict rests on (adjusted across the table when it was tested), never rounded
 * across alpha, and never printed as 0. */
static void format_p(char *buf, size_t len, json_t *verdict, double alpha)
{
	json_t *p = json_object_get(verdict, "p_adjusted") ?: json_object_get(verdict, "p");
	double x = json_number_value(p);

	if (json_is_true(json_object_get(verdict, "one_run")))
		snprintf(buf, len, "1run");
	else if (!json_is_number(p))
		*buf = '\0';
	else if (x < 1e-300)
		snprintf(buf, len, "<1e-300");
	else {
		snprintf(buf, len, "%.2g", x);
		if ((x < alpha) != (strtod(buf, NULL) < alpha))
			snprintf(buf, len, "%.4g", x);
	}
}

static void cell_title(char *buf, size_t len, json_t *c)
{
	json_t *params = json_object_get(c, "params"), *fs = json_object_get(c, "fs"), *v;
	const char *key, *backend = json_is_object(json_object_get(c, "backend"))
					    ? json_string_value(json_object_get(json_object_get(c, "backend"), "name"))
					    : json_string_value(json_object_get(c, "backend"));
	size_t n = (size_t)snprintf(buf, len, "%s on ", json_string_value(json_object_get(c, "workload")));
	size_t i;

	json_array_foreach(fs, i, v) {
		/* one name when every document's cell is on the same filesystem */
		if (i > 0 && !strcmp(json_string_value(v), json_string_value(json_array_get(fs, 0))))
			continue;
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", i ? "|" : "", json_string_value(v));
	}
	n += (size_t)snprintf(buf + n, n < len ? len - n : 0, " via %s:", backend);
	json_object_foreach(params, key, v) {
		char *s = json_is_string(v) ? strdup(json_string_value(v)) : json_dumps(v, JSON_ENCODE_ANY);

		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, " %s=%s", key, s);
		free(s);
	}
}

/* What every output ends with: what the numbers are and how they were tested. */
static void legend(char *buf, size_t len, json_t *cmp)
{
	double alpha = json_real_value(json_object_get(cmp, "alpha"));

	snprintf(buf, len,
		 "value: pooled events/trials for a proportion, else the median of the repeats (of the runs' "
		 "medians for a time or rate from several runs). change: B - A "
		 "for a proportion, else the Hodges-Lehmann shift relative to A's median; [ ] its %.0f%% "
		 "confidence interval. p: Benjamini-Hochberg adjusted across the %lld tests of this table "
		 "(false discovery rate %.2g). Tests: F Fisher exact; Q quasi-binomial, dispersion from the "
		 "repeats; MWx Mann-Whitney exact with ties; MWn its normal approximation. no change: none "
		 "beyond noise. n too small: these repeats or runs cannot reach alpha (4 a side at least; "
		 "5 or more recommended). no verdict: a time or rate from one run a side: " MGB_ONE_RUN_REASON
		 " (A1.json A2.json ... -- B1.json B2.json ...). 1run: one run a side decides a proportion only "
		 "on a gap of 0.5 (0.000 against 1.000), not 0.010 against 0.004.",
		 100 * (1 - alpha), json_integer_value(json_object_get(cmp, "tests")), alpha);
}

struct row {
	char value[32], change[24], ci[48], p[16];
	const char *verdict, *test;
};

/* A yes/no column: yes, no, or mixed over the repeats. */
static void format_flag(char *buf, size_t len, json_t *value)
{
	double lo = json_number_value(json_object_get(value, "min")), hi = json_number_value(json_object_get(value, "max"));

	if (!json_integer_value(json_object_get(value, "n")))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%s", lo == hi ? (hi ? "yes" : "no") : "mixed");
}

static void make_row(struct row *r, json_t *value, json_t *verdict, const char *format, double alpha)
{
	json_t *v = json_object_get(value, "value");
	bool proportion = json_is_number(json_object_get(value, "events"));

	/* a proportion shows its pooled rate, whatever the column's own format */
	if (!strcmp(format, "yesno"))
		format_flag(r->value, sizeof(r->value), value);
	else if (json_is_number(json_object_get(value, "events")) && json_is_number(v) && json_number_value(v) != 0 &&
	    json_number_value(v) < 0.01)
		snprintf(r->value, sizeof(r->value), "%.3g", json_number_value(v));
	else if (json_is_number(json_object_get(value, "events")))
		mgb_format_value(r->value, sizeof(r->value), v, "ratio");
	else
		mgb_format_value(r->value, sizeof(r->value), v, format);
	/* an int count's change stays a plain difference; a time or rate gets its unit */
	format_change(r->change, r->ci, sizeof(r->ci), verdict,
		      proportion || !strcmp(format, "float") || !strcmp(format, "ratio") ? NULL : format);
	format_p(r->p, sizeof(r->p), verdict, alpha);
	r->verdict = json_string_value(json_object_get(verdict, "verdict")) ?: "";
	/* a parameter or a flag is shown, not tested: no word in the verdict column */
	if (!strcmp(r->verdict, "not tested"))
		r->verdict = "";
	r->test = test_code(json_string_value(json_object_get(verdict, "test")));
}

static void print_line(FILE *out, char *line)
{
	/* no trailing blanks in a pasted table */
	for (size_t e = strlen(line); e > 0 && line[e - 1] == ' '; e--)
		line[e - 1] = '\0';
	fprintf(out, "%s\n", line);
}

static void print_text(FILE *out, json_t *cmp)
{
	json_t *docs = json_object_get(cmp, "documents"), *d, *c, *m, *w;
	double alpha = json_real_value(json_object_get(cmp, "alpha"));
	size_t i, j, k;
	char title[1024], line[1200];

	fprintf(out, "compare: each document against A (alpha %.2g)\n", alpha);
	json_array_foreach(docs, i, d) {
		snprintf(line, sizeof(line), "%c = %s (%s)", letter(i), safe(json_string_value(json_object_get(d, "path"))),
			 safe(json_string_value(json_object_get(d, "describe"))));
		mgb_print_wrapped(out, line, 2);
	}
	json_array_foreach(json_object_get(cmp, "warnings"), i, w) {
		snprintf(line, sizeof(line), "note: %s", safe(json_string_value(w)));
		mgb_print_wrapped(out, line, 0);
	}
	json_array_foreach(json_object_get(cmp, "cells"), i, c) {
		cell_title(title, sizeof(title), c);
		fputc('\n', out);
		mgb_print_wrapped(out, safe(title), 0);
		json_array_foreach(json_object_get(c, "notes"), j, w) {
			snprintf(line, sizeof(line), "note: %s", json_string_value(w));
			mgb_print_wrapped(out, line, 2);
		}
		fprintf(out, "%-9s %-1s %9s %-21s %-14s %s\n", "metric", "", "value", "change [CI]", "verdict", "p test");
		json_array_foreach(json_object_get(c, "metrics"), j, m) {
			const char *format = json_string_value(json_object_get(m, "format"));

			json_array_foreach(json_object_get(m, "values"), k, d) {
				struct row r;
				char change[80];
				bool fits;

				make_row(&r, d, json_array_get(json_object_get(m, "against_base"), k), format, alpha);
				snprintf(change, sizeof(change), "%s %s", r.change, r.ci);
				fits = strlen(change) <= 21;
				snprintf(line, sizeof(line), "%-9.9s %c %9s %-21s %-14s %s %s",
					 k == 0 ? json_string_value(json_object_get(m, "header")) : "", letter(k), r.value,
					 fits ? change : r.change, r.verdict, r.p, r.test);
				print_line(out, line);
				if (!fits) {
					/* a wide interval gets its own line under the change */
					snprintf(line, sizeof(line), "%22s%s", "", r.ci);
					print_line(out, line);
				}
			}
		}
	}
	if (json_array_size(json_object_get(cmp, "unmatched")))
		fprintf(out, "\nnot in every document (not compared):\n");
	json_array_foreach(json_object_get(cmp, "unmatched"), i, c) {
		json_t *b = json_object_get(c, "backend");

		snprintf(line, sizeof(line), "%c: %s on %s via %s",
			 letter((size_t)json_integer_value(json_object_get(c, "document"))),
			 safe(json_string_value(json_object_get(c, "workload"))), safe(json_string_value(json_object_get(c, "fs"))),
			 safe(json_is_object(b) ? json_string_value(json_object_get(b, "name")) : json_string_value(b)));
		mgb_print_wrapped(out, line, 2);
	}
	fputc('\n', out);
	legend(line, sizeof(line), cmp);
	mgb_print_wrapped(out, line, 0);
}

static void print_markdown(FILE *out, json_t *cmp)
{
	json_t *d, *c, *m, *w;
	double alpha = json_real_value(json_object_get(cmp, "alpha"));
	size_t i, j, k;
	char title[1024], text[1200];

	fprintf(out, "compare: each document against A (alpha %.2g)\n\n", alpha);
	json_array_foreach(json_object_get(cmp, "documents"), i, d)
		fprintf(out, "- **%c**: `%s` (%s)\n", letter(i), safe(json_string_value(json_object_get(d, "path"))),
			safe(json_string_value(json_object_get(d, "describe"))));
	json_array_foreach(json_object_get(cmp, "warnings"), i, w)
		fprintf(out, "- note: %s\n", safe(json_string_value(w)));
	json_array_foreach(json_object_get(cmp, "cells"), i, c) {
		cell_title(title, sizeof(title), c);
		fprintf(out, "\n**%s**\n\n", safe(title));
		json_array_foreach(json_object_get(c, "notes"), j, w)
			fprintf(out, "- note: %s\n", json_string_value(w));
		fprintf(out, "%s| metric | doc | value | change | CI | verdict | p | test |\n"
			     "|---|---|--:|--:|--:|---|--:|---|\n", json_array_size(json_object_get(c, "notes")) ? "\n" : "");
		json_array_foreach(json_object_get(c, "metrics"), j, m) {
			const char *format = json_string_value(json_object_get(m, "format"));

			json_array_foreach(json_object_get(m, "values"), k, d) {
				struct row r;

				make_row(&r, d, json_array_get(json_object_get(m, "against_base"), k), format, alpha);
				fprintf(out, "| %s | %c | %s | %s | %s | %s | %s | %s |\n",
					k == 0 ? json_string_value(json_object_get(m, "metric")) : "", letter(k), r.value,
					r.change, r.ci, r.verdict, r.p, r.test);
			}
		}
	}
	if (json_array_size(json_object_get(cmp, "unmatched")))
		fprintf(out, "\nNot in every document (not compared):\n\n");
	json_array_foreach(json_object_get(cmp, "unmatched"), i, c) {
		json_t *b = json_object_get(c, "backend");

		fprintf(out, "- %c: %s on %s via %s\n", letter((size_t)json_integer_value(json_object_get(c, "document"))),
			safe(json_string_value(json_object_get(c, "workload"))), safe(json_string_value(json_object_get(c, "fs"))),
			safe(json_is_object(b) ? json_string_value(json_object_get(b, "name")) : json_string_value(b)));
	}
	legend(text, sizeof(text), cmp);
	fprintf(out, "\n%s\n", text);
}

static bool is_verdict(json_t *v, const char *name)
{
	return !strcmp(json_string_value(json_object_get(v, "verdict")) ?: "", name);
}

/* Every compared metric's names, for a message when a name matches none. */
static void list_names(json_t *cmp, char *buf, size_t len)
{
	size_t i, j, n = 0;
	json_t *c, *m;

	*buf = '\0';
	json_array_foreach(json_object_get(cmp, "cells"), i, c)
		json_array_foreach(json_object_get(c, "metrics"), j, m) {
			const char *path = json_string_value(json_object_get(m, "metric"));

			if (i == 0 || !strstr(buf, path))
				n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s'%s' (%s)", n ? ", " : "",
						      json_string_value(json_object_get(m, "header")), path);
		}
}

/* Exit 1 if a named metric got worse beyond noise in any document; EXIT_UNJUDGED if none got
 * worse but one could not be judged: a gate must never pass silently. */
static int regressions(json_t *cmp, const char **names, unsigned n)
{
	unsigned worse = 0, unjudged = 0;
	size_t i, j, k;
	json_t *c, *m, *v;

	for (unsigned x = 0; x < n; x++) {
		bool seen = false;

		json_array_foreach(json_object_get(cmp, "cells"), i, c)
			json_array_foreach(json_object_get(c, "metrics"), j, m) {
				if (!mgb_compare_name_matches(names[x], json_string_value(json_object_get(m, "metric")),
							      json_string_value(json_object_get(m, "header"))))
					continue;
				seen = true;
				json_array_foreach(json_object_get(m, "against_base"), k, v) {
					if (k == 0)
						continue;
					if (is_verdict(v, "worse")) {
						fprintf(stderr, "mgbench compare: regression: %s of %s on %s got worse in %c\n",
							safe(names[x]), safe(json_string_value(json_object_get(c, "workload"))),
							safe(json_string_value(json_array_get(json_object_get(c, "fs"), k))),
							letter(k));
						worse++;
					} else if (!is_verdict(v, "no change") && !is_verdict(v, "better") &&
						   !is_verdict(v, "changed")) {
						fprintf(stderr, "mgbench compare: not judged: %s of %s on %s in %c: %s\n",
							safe(names[x]), safe(json_string_value(json_object_get(c, "workload"))),
							safe(json_string_value(json_array_get(json_object_get(c, "fs"), k))),
							letter(k), safe(json_string_value(json_object_get(v, "verdict"))));
						unjudged++;
					}
				}
			}
		if (!seen) {
			char list[2000];

			list_names(cmp, list, sizeof(list));
			return mgb_usage_error("compare", "--fail-on-regression: no compared metric is named '%s' (%s)",
					       names[x], *list ? list : "nothing was compared");
		}
	}
	return worse ? MGB_EXIT_FAIL : unjudged ? EXIT_UNJUDGED : MGB_EXIT_OK;
}

/* Whether any matched cell is of a workload this mgbench knows (has columns to judge). */
static bool any_known_cell(json_t *cmp)
{
	size_t i;
	json_t *c;

	json_array_foreach(json_object_get(cmp, "cells"), i, c)
		if (json_is_true(json_object_get(c, "known_workload")))
			return true;
	return false;
}

/* A --metrics name that matches no compared column is a typo, not an empty table. */
static int check_metrics(json_t *cmp, const struct mgb_compare_opts *o)
{
	for (unsigned x = 0; x < o->nmetrics; x++) {
		size_t i, j;
		json_t *c, *m;
		bool seen = false;

		json_array_foreach(json_object_get(cmp, "cells"), i, c)
			json_array_foreach(json_object_get(c, "metrics"), j, m)
				seen |= mgb_compare_name_matches(o->metrics[x], json_string_value(json_object_get(m, "metric")),
								 json_string_value(json_object_get(m, "header")));
		if (!seen)
			return mgb_usage_error("compare", "--metrics: no column of the matched cells is named '%s'",
					       o->metrics[x]);
	}
	return MGB_EXIT_OK;
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

static int split_list(char *text, const char **items, unsigned max, unsigned *n, const char *opt)
{
	char *save = NULL;

	*n = 0;
	for (char *tok = strtok_r(text, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n == max)
			return mgb_usage_error("compare", "%s: too many names", opt);
		items[(*n)++] = tok;
	}
	if (*n == 0)
		return mgb_usage_error("compare", "%s: empty list", opt);
	return 0;
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
		if (k == MAX_DOCS)
			return mgb_usage_error("compare", "at most %d documents", MAX_DOCS);
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

/* Each side as one document (its runs merged, see mgb_compare_merge_runs) and its name: the
 * paths of its runs. */
static int make_sides(json_t **docs, const char **paths, unsigned ndocs, const unsigned *side_of, unsigned nsides,
		      json_t **sides, char **names)
{
	char err[MGB_ERR_LEN];

	for (unsigned s = 0; s < nsides; s++) {
		json_t *mine[MAX_DOCS];
		const char *my_paths[MAX_DOCS];
		unsigned n = 0;
		size_t len = 0;
		FILE *f = open_memstream(&names[s], &len);

		if (!f)
			abort();
		for (unsigned d = 0; d < ndocs; d++)
			if (side_of[d] == s) {
				fprintf(f, "%s%s", n ? " " : "", paths[d]);
				my_paths[n] = paths[d];
				mine[n++] = docs[d];
			}
		fclose(f);
		sides[s] = n == 1 ? json_incref(mine[0]) : mgb_compare_merge_runs(mine, my_paths, n, err);
		if (!sides[s]) {
			fprintf(stderr, "mgbench compare: %s\n", err);
			return MGB_EXIT_FAIL;
		}
	}
	return MGB_EXIT_OK;
}

int cmd_compare(int argc, char **argv)
{
	struct mgb_compare_opts o = { .alpha = 0.05 };
	const char *format = "text", *metrics[MAX_METRICS], *fail[MAX_METRICS], *paths[MAX_DOCS];
	unsigned nfail = 0, ndocs = 0, nsides = 0, side_of[MAX_DOCS];
	json_t *docs[MAX_DOCS], *cmp, *sides[MAX_SIDES] = { 0 };
	char *side_paths[MAX_SIDES] = { 0 };
	char *end;
	int c, rc = MGB_EXIT_OK;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--"))
			argv[i] = side_sep;
	optind = 1;
	while ((c = mgb_getopt(&cmdline, argc, argv)) != MGB_GETOPT_END) {
		switch (c) {
		case OPT_METRICS:
			if (split_list(optarg, metrics, MAX_METRICS, &o.nmetrics, "--metrics"))
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
			if (split_list(optarg, fail, MAX_METRICS, &nfail, "--fail-on-regression"))
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
	if ((rc = mgb_docs_load("compare", (char *const *)paths, ndocs, MAX_DOCS, docs)))
		return rc;
	if (o.across_fs && (rc = check_across_fs(docs, paths, ndocs)))
		goto out;
	if ((rc = make_sides(docs, paths, ndocs, side_of, nsides, sides, side_paths)))
		goto out;
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
	if ((rc = check_metrics(cmp, &o))) {
		json_decref(cmp);
		goto out;
	}
	if (!any_known_cell(cmp)) {
		/* nothing this mgbench can judge: an empty table would read as "no change" */
		fprintf(stderr, "mgbench compare: no matched cell is of a workload this mgbench knows (%s)\n",
			safe(json_string_value(json_object_get(json_array_get(json_object_get(cmp, "cells"), 0),
							   "workload"))));
		json_decref(cmp);
		rc = MGB_EXIT_FAIL;
		goto out;
	}
	if (!strcmp(format, "json")) {
		json_dumpf(cmp, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	} else if (!strcmp(format, "markdown")) {
		print_markdown(stdout, cmp);
	} else {
		print_text(stdout, cmp);
	}
	if (nfail)
		rc = regressions(cmp, fail, nfail);
	json_decref(cmp);
out:
	for (unsigned i = 0; i < nsides; i++) {
		json_decref(sides[i]);
		free(side_paths[i]);
	}
	mgb_docs_free(docs, ndocs);
	return rc;
}
