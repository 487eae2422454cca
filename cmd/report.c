/* mgbench report: a run's tables again from its document; over several, median, min and max. */
#include "config.h"
#include "doc.h"
#include "json_text.h"
#include "mgbench.h"
#include "result.h"
#include "stats.h"
#include "util.h"
#include "workload.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DOCS 256

static void usage(FILE *out)
{
	fprintf(out, "usage: mgbench report FILE.json [MORE.json ...]\n"
		     "\n"
		     "Prints the tables 'mgbench run' printed, from its result document.\n"
		     "Given several documents (or one with repeats), each row is the median\n"
		     "of the matching cells, with their min and max beneath it.\n"
		     "\n"
		     "See mgbench-report(1).\n");
}

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
		char label[32];

		for (const struct mgb_column *c = w ? w->columns : NULL; c && c->header; c++) {
			double v[MAX_DOCS * 4];
			size_t n = 0;

			json_array_foreach(list, i, cell) {
				json_t *x = mgb_json_path(json_object_get(cell, "metrics"), c->path);

				if (json_is_number(x) && n < MGB_ARRAY_SIZE(v))
					v[n++] = json_number_value(x);
			}
			if (n == 0)
				continue;
			set_path(median, c->path, json_real(mgb_median(v, n))); /* sorts v */
			set_path(lo, c->path, json_real(v[0]));
			set_path(hi, c->path, json_real(v[n - 1]));
		}
		snprintf(label, sizeof(label), "min of %zu", json_array_size(list));
		json_object_set_new(row, "metrics", median);
		json_object_set_new(row, "status", json_string("ok"));
		json_object_set_new(row, MGB_REPORT_ROWS,
				    MGB_JSON_PACK("[{s:s, s:o}, {s:s, s:o}]", "label", label, "metrics", lo, "label", "max",
						  "metrics", hi));
		json_array_append_new(cells, row);
	}
	json_decref(groups);
	json_object_set_new(out, "cells", cells);
	return out;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	json_t *docs[MAX_DOCS];
	unsigned ndocs = 0;
	char err[MGB_ERR_LEN];
	int c, rc = MGB_EXIT_OK;
	bool repeats = false;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return MGB_EXIT_OK;
		}
		return mgb_usage_error("report", "unknown option '%s'", argv[optind - 1]);
	}
	if (optind == argc)
		return mgb_usage_error("report", "needs a result document (see 'mgbench report --help')");
	if (argc - optind > MAX_DOCS)
		return mgb_usage_error("report", "at most %d documents", MAX_DOCS);
	for (int i = optind; i < argc; i++) {
		docs[ndocs] = mgb_doc_read(argv[i], err);
		if (!docs[ndocs]) {
			fprintf(stderr, "mgbench report: %s\n", err);
			rc = MGB_EXIT_FAIL;
			goto out;
		}
		ndocs++;
	}
	for (size_t i = 0; i < json_array_size(json_object_get(docs[0], "cells")); i++)
		repeats |= json_integer_value(json_object_get(json_array_get(json_object_get(docs[0], "cells"), i),
							      "repeat")) > 0;
	if (ndocs == 1 && !repeats) {
		mgb_report_print(stdout, docs[0]);
	} else {
		json_t *summary = summarise(docs, ndocs);

		printf("median over %u document%s and their repeats; min and max beneath\n\n", ndocs,
		       ndocs == 1 ? "" : "s");
		mgb_report_print(stdout, summary);
		json_decref(summary);
	}
out:
	for (unsigned i = 0; i < ndocs; i++)
		json_decref(docs[i]);
	return rc;
}
