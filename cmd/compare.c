/* mgbench compare: result documents side by side, each metric judged against the first. */
#include "config.h"
#include "compare.h"
#include "doc.h"
#include "mgbench.h"
#include "result.h"
#include "util.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DOCS 16
#define MAX_METRICS 64

static void usage(FILE *out)
{
	fprintf(out,
		"usage: mgbench compare [options] BASE.json NEW.json [MORE.json ...]\n"
		"\n"
		"Matches the cells of result documents by workload, filesystem, backend\n"
		"and parameters, and judges each metric of each document against the\n"
		"first: counts of events out of rounds by Fisher's exact test (one run\n"
		"each is enough), rates and times by Mann-Whitney U over repeats (3 or\n"
		"more on each side, else 'n too small').\n"
		"\n"
		"  --metrics LIST       metrics to compare, by key or column header\n"
		"                       (default: each workload's table columns)\n"
		"  --format FMT         text (72 columns), markdown or json\n"
		"  --alpha P            significance level (default 0.05)\n"
		"  --across-fs          match cells whatever their filesystem\n"
		"  --fail-on-regression LIST\n"
		"                       exit 1 if one of these metrics got worse\n"
		"                       beyond noise\n"
		"\n"
		"See mgbench-compare(1).\n");
}

static char letter(size_t d)
{
	return (char)('A' + d);
}

static void format_change(char *buf, size_t len, json_t *verdict, const char *format)
{
	json_t *rel = json_object_get(verdict, "relative"), *abs = json_object_get(verdict, "change");
	char v[24];

	if (!abs) {
		*buf = '\0';
		return;
	}
	if (json_is_number(rel)) {
		snprintf(buf, len, "%+.1f%%", 100.0 * json_number_value(rel));
		return;
	}
	mgb_format_value(v, sizeof(v), abs, format);
	snprintf(buf, len, "%s%s", json_number_value(abs) > 0 ? "+" : "", v);
}

static void format_p(char *buf, size_t len, json_t *verdict)
{
	json_t *p = json_object_get(verdict, "p");
	const char *test = json_string_value(json_object_get(verdict, "test"));

	if (!json_is_number(p))
		*buf = '\0';
	else if (json_number_value(p) < 1e-300)
		snprintf(buf, len, "<1e-300 %s", test);
	else
		snprintf(buf, len, "%.2g %s", json_number_value(p), test);
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

static void print_text(FILE *out, json_t *cmp)
{
	json_t *docs = json_object_get(cmp, "documents"), *d, *c, *m, *w;
	size_t i, j, k;
	char title[1024], line[600];

	fprintf(out, "compare: each document against A (alpha %.2g)\n", json_real_value(json_object_get(cmp, "alpha")));
	json_array_foreach(docs, i, d) {
		snprintf(line, sizeof(line), "%c = %s (%s)", letter(i), json_string_value(json_object_get(d, "path")),
			 json_string_value(json_object_get(d, "describe")));
		mgb_print_wrapped(out, line, 2);
	}
	json_array_foreach(json_object_get(cmp, "warnings"), i, w) {
		snprintf(line, sizeof(line), "note: %s", json_string_value(w));
		mgb_print_wrapped(out, line, 0);
	}
	json_array_foreach(json_object_get(cmp, "cells"), i, c) {
		cell_title(title, sizeof(title), c);
		fputc('\n', out);
		mgb_print_wrapped(out, title, 0);
		fprintf(out, "%-10s %-3s %10s %9s %-14s %s\n", "metric", "doc", "value", "change", "verdict", "p test");
		json_array_foreach(json_object_get(c, "metrics"), j, m) {
			const char *format = json_string_value(json_object_get(m, "format"));

			json_array_foreach(json_object_get(m, "values"), k, d) {
				json_t *verdict = json_array_get(json_object_get(m, "against_base"), k);
				char value[32], change[32], p[40];

				mgb_format_value(value, sizeof(value), json_object_get(d, "value"), format);
				format_change(change, sizeof(change), verdict, format);
				format_p(p, sizeof(p), verdict);
				snprintf(line, sizeof(line), "%-10.10s %-3c %10s %9s %-14s %s",
					 k == 0 ? json_string_value(json_object_get(m, "header")) : "", letter(k), value,
					 change, json_string_value(json_object_get(verdict, "verdict")) ?: "", p);
				/* the base's row has no verdict: no trailing blanks in a pasted table */
				for (size_t e = strlen(line); e > 0 && line[e - 1] == ' '; e--)
					line[e - 1] = '\0';
				fprintf(out, "%s\n", line);
			}
		}
	}
	if (json_array_size(json_object_get(cmp, "unmatched")))
		fprintf(out, "\nnot in every document (not compared):\n");
	json_array_foreach(json_object_get(cmp, "unmatched"), i, c) {
		json_t *b = json_object_get(c, "backend");

		fprintf(out, "  %c: %s on %s via %s\n", letter((size_t)json_integer_value(json_object_get(c, "document"))),
			json_string_value(json_object_get(c, "workload")), json_string_value(json_object_get(c, "fs")),
			json_is_object(b) ? json_string_value(json_object_get(b, "name")) : json_string_value(b));
	}
	fprintf(out, "\nno change: none beyond noise at alpha; n too small: fewer than 3\n"
		     "repeats on a side (--repeat 3) for a rate or a time\n");
}

static void print_markdown(FILE *out, json_t *cmp)
{
	json_t *d, *c, *m, *w;
	size_t i, j, k;
	char title[1024];

	json_array_foreach(json_object_get(cmp, "documents"), i, d)
		fprintf(out, "- **%c**: `%s` (%s)\n", letter(i), json_string_value(json_object_get(d, "path")),
			json_string_value(json_object_get(d, "describe")));
	json_array_foreach(json_object_get(cmp, "warnings"), i, w)
		fprintf(out, "- note: %s\n", json_string_value(w));
	json_array_foreach(json_object_get(cmp, "cells"), i, c) {
		cell_title(title, sizeof(title), c);
		fprintf(out, "\n**%s**\n\n| metric | doc | value | change | verdict | p | test |\n"
			     "|---|---|--:|--:|---|--:|---|\n", title);
		json_array_foreach(json_object_get(c, "metrics"), j, m) {
			const char *format = json_string_value(json_object_get(m, "format"));

			json_array_foreach(json_object_get(m, "values"), k, d) {
				json_t *verdict = json_array_get(json_object_get(m, "against_base"), k);
				json_t *p = json_object_get(verdict, "p");
				char value[32], change[32], pbuf[32] = "";

				mgb_format_value(value, sizeof(value), json_object_get(d, "value"), format);
				format_change(change, sizeof(change), verdict, format);
				if (json_is_number(p))
					snprintf(pbuf, sizeof(pbuf), "%.2g", json_number_value(p));
				fprintf(out, "| %s | %c | %s | %s | %s | %s | %s |\n",
					k == 0 ? json_string_value(json_object_get(m, "metric")) : "", letter(k), value,
					change, json_string_value(json_object_get(verdict, "verdict")) ?: "", pbuf,
					json_string_value(json_object_get(verdict, "test")) ?: "");
			}
		}
	}
}

/* Exit 1 if a named metric got worse beyond noise in any document. */
static int regressions(json_t *cmp, const char **names, unsigned n)
{
	unsigned found = 0, worse = 0;
	size_t i, j, k;
	json_t *c, *m, *v;

	for (unsigned x = 0; x < n; x++) {
		bool seen = false;

		json_array_foreach(json_object_get(cmp, "cells"), i, c)
			json_array_foreach(json_object_get(c, "metrics"), j, m) {
				if (strcmp(names[x], json_string_value(json_object_get(m, "metric"))) &&
				    strcmp(names[x], json_string_value(json_object_get(m, "header"))))
					continue;
				seen = true;
				json_array_foreach(json_object_get(m, "against_base"), k, v)
					if (!strcmp(json_string_value(json_object_get(v, "verdict")) ?: "", "worse")) {
						fprintf(stderr, "mgbench compare: regression: %s of %s on %s got worse in %c\n",
							names[x], json_string_value(json_object_get(c, "workload")),
							json_string_value(json_array_get(json_object_get(c, "fs"), k)),
							letter(k));
						worse++;
					}
			}
		if (!seen)
			return mgb_usage_error("compare", "--fail-on-regression: no compared metric is named '%s'",
					       names[x]);
		found++;
	}
	return worse ? MGB_EXIT_FAIL : MGB_EXIT_OK;
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

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "metrics", required_argument, NULL, 'm' },
		{ "format", required_argument, NULL, 'f' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "across-fs", no_argument, NULL, 'x' },
		{ "fail-on-regression", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct mgb_compare_opts o = { .alpha = 0.05 };
	const char *format = "text", *metrics[MAX_METRICS], *fail[MAX_METRICS], *paths[MAX_DOCS];
	unsigned nfail = 0, ndocs = 0;
	json_t *docs[MAX_DOCS], *cmp;
	char err[MGB_ERR_LEN], *end;
	int c, rc = MGB_EXIT_OK;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (split_list(optarg, metrics, MAX_METRICS, &o.nmetrics, "--metrics"))
				return MGB_EXIT_USAGE;
			o.metrics = metrics;
			break;
		case 'f':
			format = optarg;
			if (strcmp(format, "text") && strcmp(format, "markdown") && strcmp(format, "json"))
				return mgb_usage_error("compare", "--format '%s': text, markdown or json", optarg);
			break;
		case 'a':
			o.alpha = strtod(optarg, &end);
			if (*end || !(o.alpha > 0 && o.alpha < 1))
				return mgb_usage_error("compare", "--alpha '%s': a probability between 0 and 1", optarg);
			break;
		case 'x': o.across_fs = true; break;
		case 'r':
			if (split_list(optarg, fail, MAX_METRICS, &nfail, "--fail-on-regression"))
				return MGB_EXIT_USAGE;
			break;
		case 'h': usage(stdout); return MGB_EXIT_OK;
		case ':': return mgb_usage_error("compare", "%s needs a value", argv[optind - 1]);
		default: return mgb_usage_error("compare", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind < 2)
		return mgb_usage_error("compare", "needs at least two result documents (see 'mgbench compare --help')");
	if (argc - optind > MAX_DOCS)
		return mgb_usage_error("compare", "at most %d documents", MAX_DOCS);
	for (int i = optind; i < argc; i++) {
		docs[ndocs] = mgb_doc_read(argv[i], err);
		if (!docs[ndocs]) {
			fprintf(stderr, "mgbench compare: %s\n", err);
			rc = MGB_EXIT_FAIL;
			goto out;
		}
		paths[ndocs++] = argv[i];
	}
	cmp = mgb_compare(docs, paths, ndocs, &o);
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
	for (unsigned i = 0; i < ndocs; i++)
		json_decref(docs[i]);
	return rc;
}
