/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A comparison (mgb_compare) printed for people: a plain-text table that fits a 72-column email,
 * or markdown; every string from a document made safe for a terminal.  compare prints it, and so
 * does anything else that compares documents (ab, the fleet controller through compare).
 */
#include "config.h"
#include "compare.h"
#include "report.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A string from a document, safe for a terminal: control characters (escape sequences,
 * newlines) become '?'.  A ring of buffers, so a printf can take several. */
const char *mgb_compare_safe(const char *text)
{
	static char ring[6][1024];
	static unsigned next;
	return mgb_printable_into(ring[next++ % 6], sizeof(ring[0]), text);
}

char mgb_compare_letter(size_t d)
{
	return (char)('A' + d);
}

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

static const char *test_code(json_t *verdict)
{
	const char *test = json_string_value(json_object_get(verdict, "test"));
	const char *basis = json_string_value(json_object_get(verdict, "basis")) ?: "";
	const char *v = json_string_value(json_object_get(verdict, "verdict")) ?: "";
	bool runs = !strcmp(json_string_value(json_object_get(verdict, "unit")) ?: "", "run");

	if (!strcmp(basis, "identical"))
		return "same";
	if (!test || !strcmp(basis, "gap") || !strcmp(v, "not comparable") || !strcmp(v, "no verdict"))
		return "";
	return !strcmp(test, "fisher") ? (runs ? "Fr" : "F") : !strcmp(test, "quasi-binomial") ? (runs ? "Qr" : "Q")
	       : !strcmp(test, "mw-exact") ? (runs ? "MWr" : "MWx") : !strcmp(test, "mw-normal") ? "MWn" : test;
}

/* The p the verdict rests on (adjusted across the table when it was tested), never rounded
 * across alpha, and never printed as 0; "gap" when the gap rule decided, nothing when no p
 * decided (identical samples, no verdict, not comparable). */
static void format_p(char *buf, size_t len, json_t *verdict, double alpha)
{
	json_t *p = json_object_get(verdict, "p_adjusted") ?: json_object_get(verdict, "p");
	const char *basis = json_string_value(json_object_get(verdict, "basis")) ?: "";
	const char *v = json_string_value(json_object_get(verdict, "verdict")) ?: "";
	double x = json_number_value(p);

	if (!strcmp(basis, "gap"))
		snprintf(buf, len, "gap");
	else if (!json_is_number(p) || !strcmp(basis, "identical") || !strcmp(v, "not comparable") ||
		 !strcmp(v, "no verdict"))
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
		 "for a proportion (a shift of the runs' rates when tested over runs), else the "
		 "Hodges-Lehmann shift relative to A's median; [ ] its %.0f%% "
		 "confidence interval. p: Benjamini-Hochberg adjusted across the %lld tests of this table "
		 "that can decide (false discovery rate %.2g; %lld left out that cannot reach alpha, %lld "
		 "columns that repeat another). Tests: F Fisher exact; Q quasi-binomial, dispersion from the "
		 "repeats; r: over runs (each document one value); MWx Mann-Whitney exact with ties; MWn its "
		 "normal approximation; same: identical samples, nothing to test. gap: every run of one side "
		 "at least 0.5 from every run of the other (0.000 against 1.000), which no spread between runs "
		 "of one kernel bridges; no p. no change: none beyond noise. n too small: these repeats or "
		 "runs cannot reach alpha in this table (4 a side at least; 5 or more recommended). no "
		 "verdict: a time or rate, or a time-driven proportion below the gap, from one run a side: "
		 MGB_ONE_RUN_REASON " (A1.json A2.json ... -- B1.json B2.json ...).",
		 100 * (1 - alpha), json_integer_value(json_object_get(cmp, "tests")), alpha,
		 json_integer_value(json_object_get(cmp, "tests_left_out")),
		 json_integer_value(json_object_get(cmp, "duplicates")));
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
	r->test = test_code(verdict);
}

static void print_line(FILE *out, char *line)
{
	/* no trailing blanks in a pasted table */
	for (size_t e = strlen(line); e > 0 && line[e - 1] == ' '; e--)
		line[e - 1] = '\0';
	fprintf(out, "%s\n", line);
}

void mgb_compare_print_text(FILE *out, json_t *cmp)
{
	json_t *docs = json_object_get(cmp, "documents"), *d, *c, *m, *w;
	double alpha = json_real_value(json_object_get(cmp, "alpha"));
	size_t i, j, k;
	char title[1024], line[1200];

	fprintf(out, "compare: each document against A (alpha %.2g)\n", alpha);
	json_array_foreach(docs, i, d) {
		snprintf(line, sizeof(line), "%c = %s (%s)", mgb_compare_letter(i), mgb_compare_safe(json_string_value(json_object_get(d, "path"))),
			 mgb_compare_safe(json_string_value(json_object_get(d, "describe"))));
		mgb_print_wrapped(out, line, 2);
	}
	json_array_foreach(json_object_get(cmp, "warnings"), i, w) {
		snprintf(line, sizeof(line), "note: %s", mgb_compare_safe(json_string_value(w)));
		mgb_print_wrapped(out, line, 0);
	}
	json_array_foreach(json_object_get(cmp, "cells"), i, c) {
		cell_title(title, sizeof(title), c);
		fputc('\n', out);
		mgb_print_wrapped(out, mgb_compare_safe(title), 0);
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
				snprintf(line, sizeof(line), "%-9.9s %c %9s %-21s %-14s %s%s%s",
					 k == 0 ? json_string_value(json_object_get(m, "header")) : "", mgb_compare_letter(k), r.value,
					 fits ? change : r.change, r.verdict, r.p, *r.p ? " " : "", r.test);
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
			 mgb_compare_letter((size_t)json_integer_value(json_object_get(c, "document"))),
			 mgb_compare_safe(json_string_value(json_object_get(c, "workload"))), mgb_compare_safe(json_string_value(json_object_get(c, "fs"))),
			 mgb_compare_safe(json_is_object(b) ? json_string_value(json_object_get(b, "name")) : json_string_value(b)));
		mgb_print_wrapped(out, line, 2);
	}
	fputc('\n', out);
	legend(line, sizeof(line), cmp);
	mgb_print_wrapped(out, line, 0);
}

void mgb_compare_print_markdown(FILE *out, json_t *cmp)
{
	json_t *d, *c, *m, *w;
	double alpha = json_real_value(json_object_get(cmp, "alpha"));
	size_t i, j, k;
	char title[1024], text[1200];

	fprintf(out, "compare: each document against A (alpha %.2g)\n\n", alpha);
	json_array_foreach(json_object_get(cmp, "documents"), i, d)
		fprintf(out, "- **%c**: `%s` (%s)\n", mgb_compare_letter(i), mgb_compare_safe(json_string_value(json_object_get(d, "path"))),
			mgb_compare_safe(json_string_value(json_object_get(d, "describe"))));
	json_array_foreach(json_object_get(cmp, "warnings"), i, w)
		fprintf(out, "- note: %s\n", mgb_compare_safe(json_string_value(w)));
	json_array_foreach(json_object_get(cmp, "cells"), i, c) {
		cell_title(title, sizeof(title), c);
		fprintf(out, "\n**%s**\n\n", mgb_compare_safe(title));
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
					k == 0 ? json_string_value(json_object_get(m, "metric")) : "", mgb_compare_letter(k), r.value,
					r.change, r.ci, r.verdict, r.p, r.test);
			}
		}
	}
	if (json_array_size(json_object_get(cmp, "unmatched")))
		fprintf(out, "\nNot in every document (not compared):\n\n");
	json_array_foreach(json_object_get(cmp, "unmatched"), i, c) {
		json_t *b = json_object_get(c, "backend");

		fprintf(out, "- %c: %s on %s via %s\n", mgb_compare_letter((size_t)json_integer_value(json_object_get(c, "document"))),
			mgb_compare_safe(json_string_value(json_object_get(c, "workload"))), mgb_compare_safe(json_string_value(json_object_get(c, "fs"))),
			mgb_compare_safe(json_is_object(b) ? json_string_value(json_object_get(b, "name")) : json_string_value(b)));
	}
	legend(text, sizeof(text), cmp);
	fprintf(out, "\n%s\n", text);
}
