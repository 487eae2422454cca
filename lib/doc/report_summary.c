/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report over several documents, or one with repeats: one row per cell key holding the median
 * of each column over the matching cells, with their min and max beneath it (report.h).
 */
#include "config.h"
#include "report.h"
#include "doc.h"
#include "json_text.h"
#include "result.h"
#include "stats.h"
#include "util.h"
#include "workload.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Set a number at a dotted path, making the objects on the way. */
static void set_path(json_t *obj, const char *path, json_t *value)
{
	char key[128];
	size_t n = strcspn(path, ".");

	snprintf(key, sizeof(key), "%.*s", (int)n, path);
	if (!path[n]) {
		json_object_set_new(obj, key, value);
		return;
	}
	if (!json_is_object(json_object_get(obj, key)))
		json_object_set_new(obj, key, json_object());
	set_path(json_object_get(obj, key), path + n + 1, value);
}

/* A failed or interrupted repeat holds no numbers to take a median of. */
static bool cell_ok(json_t *cell)
{
	return !strcmp(json_string_value(json_object_get(cell, "status")) ?: "ok", "ok") &&
	       json_is_object(json_object_get(cell, "metrics"));
}

/* Multigrain as every cell of the group says: true, false, or null when they disagree. */
static json_t *group_multigrain(json_t *list)
{
	size_t i;
	json_t *cell, *first = NULL;

	json_array_foreach(list, i, cell) {
		json_t *v = json_object_get(json_object_get(cell, "multigrain"), "in_effect");

		if (!first)
			first = v;
		else if (!json_equal(first, v))
			return json_null();
	}
	return first ? json_incref(first) : json_null();
}

/* "1 of 3 repeats failed: pwrite: No space left on device" for a group, or NULL. */
static char *group_failures(json_t *list)
{
	size_t i, bad = 0;
	json_t *cell;
	const char *error = NULL;
	char *s;

	json_array_foreach(list, i, cell)
		if (!cell_ok(cell)) {
			bad++;
			error = error ?: json_string_value(json_object_get(cell, "error"));
		}
	if (!bad)
		return NULL;
	if (asprintf(&s, "%zu of %zu repeats failed%s%s", bad, json_array_size(list), error ? ": " : "",
		     error ?: "") < 0)
		abort();
	return s;
}

/* One column's median, min and max over the group's usable cells. */
static void summarise_column(const struct mgb_workload *w, json_t *list, const struct mgb_column *c, json_t *median,
			     json_t *lo, json_t *hi)
{
	double *v = malloc((json_array_size(list) + 1) * sizeof(double));
	size_t i, n = 0;
	json_t *cell;

	if (!v)
		abort();
	json_array_foreach(list, i, cell) {
		json_t *x = mgb_metric_path(w, json_object_get(cell, "metrics"), c->path);

		if (cell_ok(cell) && json_is_number(x))
			v[n++] = json_number_value(x);
	}
	if (n > 0) {
		set_path(median, c->path, json_real(mgb_median(v, n))); /* sorts v */
		set_path(lo, c->path, json_real(v[0]));
		set_path(hi, c->path, json_real(v[n - 1]));
	}
	free(v);
}

/* One row per cell key: the median of each column over the cells, min and max beneath. */
static json_t *summarise(json_t *const *docs, unsigned ndocs)
{
	json_t *out = json_deep_copy(docs[0]), *cells = json_array(), *groups = json_object(), *list;
	const char *key;
	size_t i;
	json_t *cell;

	for (unsigned d = 0; d < ndocs; d++)
		json_array_foreach(json_object_get(docs[d], "cells"), i, cell) {
			char *k = mgb_cell_key(cell, false);

			if (!json_object_get(groups, k))
				json_object_set_new(groups, k, json_array());
			json_array_append(json_object_get(groups, k), cell);
			free(k);
		}
	json_object_foreach(groups, key, list) {
		json_t *first = json_array_get(list, 0), *row = json_deep_copy(first);
		json_t *median = json_object(), *lo = json_object(), *hi = json_object();
		const struct mgb_workload *w = mgb_workload_find(json_string_value(json_object_get(first, "workload")));
		char label[32], *failed = group_failures(list);
		size_t n = json_array_size(list);

		for (const struct mgb_column *c = w ? w->columns : NULL; c && c->header; c++)
			summarise_column(w, list, c, median, lo, hi);
		/* the label fits its 10 columns whatever the count */
		snprintf(label, sizeof(label), n < 1000 ? "min of %zu" : "min n=%zu", n);
		json_object_set_new(row, "metrics", median);
		json_object_set_new(row, "status", json_string("ok"));
		json_object_set_new(json_object_get(row, "multigrain") ?: row, "in_effect", group_multigrain(list));
		if (failed) {
			json_object_set_new(row, "failed", json_string(failed));
			free(failed);
		}
		json_object_set_new(row, MGB_REPORT_ROWS,
				    MGB_JSON_PACK("[{s:s, s:o}, {s:s, s:o}]", "label", label, "metrics", lo, "label",
						  "max", "metrics", hi));
		json_array_append_new(cells, row);
	}
	json_decref(groups);
	json_object_set_new(out, "cells", cells);
	return out;
}

/* A median over documents of different kernels or machines mixes them: say so. */
static void note_mixed(FILE *out, json_t *const *docs, unsigned ndocs)
{
	for (unsigned d = 1; d < ndocs; d++) {
		json_t *k0 = json_object_get(json_object_get(docs[0], "kernel"), "release");
		json_t *kd = json_object_get(json_object_get(docs[d], "kernel"), "release");
		json_t *h0 = json_object_get(docs[0], "host"), *hd = json_object_get(docs[d], "host");

		if (!json_equal(k0, kd) || !json_equal(h0, hd)) {
			char text[400];

			snprintf(text, sizeof(text), "note: the documents come from different kernels or machines "
				 "(%s and %s): each median mixes them; compare them with mgbench compare",
				 json_string_value(k0) ?: "?", json_string_value(kd) ?: "?");
			mgb_print_wrapped(out, text, 0);
			fputc('\n', out);
			return;
		}
	}
}

/* Failed repeats, named under the tables (their rows hold the others' median). */
static void note_failures(FILE *out, json_t *summary)
{
	size_t i;
	json_t *cell;

	json_array_foreach(json_object_get(summary, "cells"), i, cell) {
		char text[800];

		if (!json_object_get(cell, "failed"))
			continue;
		snprintf(text, sizeof(text), "note: %s on %s: %s", json_string_value(json_object_get(cell, "workload")),
			 json_string_value(json_object_get(cell, "fs")),
			 json_string_value(json_object_get(cell, "failed")));
		mgb_print_wrapped(out, text, 0);
	}
}

/* Whether any cell of any document is of a workload this mgbench knows. */
bool mgb_report_any_known(json_t *const *docs, unsigned ndocs)
{
	size_t i;
	json_t *cell;

	for (unsigned d = 0; d < ndocs; d++)
		json_array_foreach(json_object_get(docs[d], "cells"), i, cell)
			if (mgb_workload_find(json_string_value(json_object_get(cell, "workload")) ?: ""))
				return true;
	return false;
}

bool mgb_report_has_repeats(json_t *doc)
{
	bool repeats = false;
	size_t i;
	json_t *cell;

	/* a failed repeat goes through the summary, which names it */
	json_array_foreach(json_object_get(doc, "cells"), i, cell)
		repeats |= json_integer_value(json_object_get(cell, "repeat")) > 0 || !cell_ok(cell);
	return repeats;
}

void mgb_report_print_summary(FILE *out, json_t *const *docs, unsigned ndocs)
{
	json_t *summary = summarise(docs, ndocs);

	fprintf(out, "median over %u document%s and their repeats; min and max beneath\n\n", ndocs,
		ndocs == 1 ? "" : "s");
	note_mixed(out, docs, ndocs);
	mgb_report_print(out, summary);
	note_failures(out, summary);
	json_decref(summary);
}
