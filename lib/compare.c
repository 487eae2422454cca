/* Matching cells across documents and judging each metric against the base (see compare.h). */
#include "config.h"
#include "compare.h"
#include "doc.h"
#include "json_text.h"
#include "result.h"
#include "stats.h"
#include "util.h"
#include "workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Continuous metrics need this many repeats on each side for a verdict. */
#define MIN_REPEATS 3

/* What cells say about multigrain: "mg" if every probed cell had it, "no mg" if none, NULL if
 * mixed or unknown. */
static const char *doc_multigrain(json_t *doc)
{
	bool yes = false, no = false;
	size_t i;
	json_t *cell;

	json_array_foreach(json_object_get(doc, "cells"), i, cell) {
		json_t *v = json_object_get(json_object_get(cell, "multigrain"), "in_effect");

		yes |= json_is_true(v);
		no |= json_is_false(v);
	}
	return yes && !no ? "mg" : no && !yes ? "no mg" : NULL;
}

char *mgb_doc_describe(json_t *doc)
{
	json_t *vm = json_object_get(doc, "vm");
	json_t *manifest = json_object_get(json_object_get(vm, "kernel_source"), "manifest");
	json_t *patches = json_object_get(manifest, "patches");
	const char *release = json_string_value(json_object_get(json_object_get(doc, "kernel"), "release"));
	const char *mg = doc_multigrain(doc), *accel = json_string_value(json_object_get(vm, "accel"));
	char *s, extra[64] = "";

	/* a `mgbench kernel build`: its source version and how many patches went on it */
	if (json_string_value(json_object_get(manifest, "version")))
		release = json_string_value(json_object_get(manifest, "version"));
	if (json_array_size(patches))
		snprintf(extra, sizeof(extra), " + %zu patch%s", json_array_size(patches),
			 json_array_size(patches) == 1 ? "" : "es");
	if (asprintf(&s, "%s%s%s%s%s%s%s", release ? release : "unknown kernel", extra, mg ? ", " : "", mg ? mg : "",
		     vm ? ", qemu " : "", vm ? (accel ? accel : "?") : "", "") < 0)
		abort();
	return s;
}

/* Where a document was measured: rates and times compare only within one place. */
static char *doc_machine(json_t *doc)
{
	json_t *vm = json_object_get(doc, "vm"), *host = json_object_get(doc, "host");
	char *s;

	long long cpus = json_integer_value(json_object_get(vm ? vm : host, "cpus"));
	int n;

	/* A guest's host name is whatever its initramfs set: name it by its accelerator instead. */
	if (vm)
		n = asprintf(&s, "a qemu %s guest with %lld CPU%s", json_string_value(json_object_get(vm, "accel")) ?: "?",
			     cpus, cpus == 1 ? "" : "s");
	else
		n = asprintf(&s, "host %s with %lld CPU%s", json_string_value(json_object_get(host, "name")) ?: "?", cpus,
			     cpus == 1 ? "" : "s");
	if (n < 0)
		abort();
	return s;
}

static const char *better_name(enum mgb_better b)
{
	return b == MGB_BETTER_HIGHER ? "higher" : b == MGB_BETTER_LOWER ? "lower" : NULL;
}

static bool is_timing(const struct mgb_column *c)
{
	size_t n = strlen(c->path);

	return !strcmp(c->format, "rate") || !strcmp(c->format, "ns") ||
	       (n > 3 && !strcmp(c->path + n - 3, "_ns")) || (n > 6 && !strcmp(c->path + n - 6, "_per_s"));
}

/* The columns to compare for a workload: its table's, or those --metrics names (by path or header). */
static bool wanted(const struct mgb_column *c, const struct mgb_compare_opts *o)
{
	if (!o->nmetrics)
		return true;
	for (unsigned i = 0; i < o->nmetrics; i++)
		if (!strcmp(o->metrics[i], c->path) || !strcmp(o->metrics[i], c->header))
			return true;
	return false;
}

/* One document's side of one metric: the values of its repeats and, for a proportion, the
 * pooled events and trials. */
struct side {
	double values[256];
	size_t n;
	double events, trials;
	bool counts; /* events and trials found in every repeat */
};

static void gather(json_t *cells, const struct mgb_column *c, struct side *s)
{
	size_t i;
	json_t *cell;

	memset(s, 0, sizeof(*s));
	s->counts = c->events != NULL;
	json_array_foreach(cells, i, cell) {
		json_t *m = json_object_get(cell, "metrics");
		json_t *v = mgb_json_path(m, c->path);

		if (!json_is_number(v) || s->n == MGB_ARRAY_SIZE(s->values))
			continue;
		s->values[s->n++] = json_number_value(v);
		if (c->events) {
			json_t *e = mgb_json_path(m, c->events), *t = mgb_json_path(m, c->trials);

			if (json_is_number(e) && json_is_number(t) && json_number_value(e) >= 0 &&
			    json_number_value(t) >= json_number_value(e)) {
				s->events += json_number_value(e);
				s->trials += json_number_value(t);
			} else {
				s->counts = false;
			}
		}
	}
	if (s->n == 0)
		s->counts = false;
}

static json_t *side_json(struct side *s)
{
	double v[256], lo = INFINITY, hi = -INFINITY;

	if (s->n == 0)
		return MGB_JSON_PACK("{s:i, s:n}", "n", 0, "value");
	memcpy(v, s->values, s->n * sizeof(double));
	for (size_t i = 0; i < s->n; i++) {
		lo = fmin(lo, v[i]);
		hi = fmax(hi, v[i]);
	}
	return MGB_JSON_PACK("{s:i, s:f, s:f, s:f, s:o, s:o}", "n", (int)s->n, "value", mgb_median(v, s->n), "min", lo,
			     "max", hi, "events", s->counts ? json_real(s->events) : json_null(), "trials",
			     s->counts ? json_real(s->trials) : json_null());
}

static double side_value(const struct side *s)
{
	double v[256];

	memcpy(v, s->values, s->n * sizeof(double));
	return mgb_median(v, s->n);
}

/* The verdict of new against base for one metric. */
static json_t *judge(const struct mgb_column *c, struct side *base, struct side *new, bool comparable,
		     const struct mgb_compare_opts *o)
{
	struct mgb_test t = { NULL, NAN };
	const char *verdict;
	double b, n, diff;
	int dir;

	if (base->n == 0 || new->n == 0)
		return MGB_JSON_PACK("{s:s}", "verdict", "missing");
	b = side_value(base);
	n = side_value(new);
	if (base->counts && new->counts)
		t = mgb_test_proportions((uint64_t)new->events, (uint64_t)new->trials, (uint64_t)base->events,
					 (uint64_t)base->trials);
	else if (base->n >= MIN_REPEATS && new->n >= MIN_REPEATS)
		t = mgb_test_mann_whitney(new->values, new->n, base->values, base->n);
	diff = n - b;
	if (base->counts && new->counts)
		dir = new->events / new->trials > base->events / base->trials ? 1
		      : new->events / new->trials < base->events / base->trials ? -1 : 0;
	else
		dir = diff > 0 ? 1 : diff < 0 ? -1 : 0;
	if (!comparable)
		verdict = "not comparable";
	else if (!t.name)
		verdict = "n too small";
	else if (isnan(t.p) || t.p >= o->alpha || dir == 0)
		verdict = "no change";
	else if (c->better == MGB_BETTER_NONE)
		verdict = "changed";
	else
		verdict = (dir > 0) == (c->better == MGB_BETTER_HIGHER) ? "better" : "worse";
	return MGB_JSON_PACK("{s:f, s:o, s:o, s:o, s:s, s:b}", "change", diff, "relative",
			     b != 0 ? json_real(diff / fabs(b)) : json_null(), "test",
			     t.name ? json_string(t.name) : json_null(), "p", t.name && !isnan(t.p) ? json_real(t.p) : json_null(),
			     "verdict", verdict, "comparable", comparable);
}

/* Cells of one document grouped by key: key -> [cells]. */
static json_t *group_cells(json_t *doc, bool across_fs)
{
	json_t *groups = json_object();
	size_t i;
	json_t *cell;

	json_array_foreach(json_object_get(doc, "cells"), i, cell) {
		char *key = mgb_cell_key(cell, across_fs);
		json_t *list = json_object_get(groups, key);

		if (!list) {
			list = json_array();
			json_object_set_new(groups, key, list);
		}
		json_array_append(list, cell);
		free(key);
	}
	return groups;
}

static unsigned distinct_fs(json_t *doc, const char **one)
{
	*one = NULL;
	json_t *seen = json_object();
	size_t i;
	json_t *cell;
	unsigned n;

	json_array_foreach(json_object_get(doc, "cells"), i, cell) {
		*one = json_string_value(json_object_get(cell, "fs"));
		json_object_set_new(seen, *one, json_true());
	}
	n = (unsigned)json_object_size(seen);
	json_decref(seen);
	return n;
}

static unsigned count_matched(json_t **groups, unsigned ndocs)
{
	const char *key;
	json_t *v;
	unsigned n = 0;

	json_object_foreach(groups[0], key, v) {
		bool all = true;

		for (unsigned d = 1; d < ndocs; d++)
			all &= json_object_get(groups[d], key) != NULL;
		n += all;
	}
	return n;
}

static json_t *compare_cell(json_t **lists, unsigned ndocs, bool *comparable, const struct mgb_compare_opts *o)
{
	json_t *first = json_array_get(lists[0], 0), *fss = json_array(), *metrics = json_array();
	const char *wname = json_string_value(json_object_get(first, "workload"));
	const struct mgb_workload *w = mgb_workload_find(wname);

	for (unsigned d = 0; d < ndocs; d++)
		json_array_append_new(fss, json_string(json_string_value(json_object_get(json_array_get(lists[d], 0), "fs"))));
	for (const struct mgb_column *c = w ? w->columns : NULL; c && c->header; c++) {
		struct side base, side;
		json_t *values = json_array(), *verdicts = json_array();

		if (!wanted(c, o))
			continue;
		gather(lists[0], c, &base);
		json_array_append_new(values, side_json(&base));
		json_array_append_new(verdicts, json_null());
		for (unsigned d = 1; d < ndocs; d++) {
			gather(lists[d], c, &side);
			json_array_append_new(values, side_json(&side));
			json_array_append_new(verdicts, judge(c, &base, &side, comparable[d] || !is_timing(c), o));
		}
		json_array_append_new(metrics, MGB_JSON_PACK("{s:s, s:s, s:s, s:o, s:s, s:b, s:o, s:o}", "metric", c->path,
							     "header", c->header, "format", c->format, "better",
							     better_name(c->better) ? json_string(better_name(c->better))
										    : json_null(),
							     "kind", c->events ? "proportion" : "continuous", "timing",
							     is_timing(c), "values", values, "against_base", verdicts));
	}
	return MGB_JSON_PACK("{s:s, s:o, s:O, s:O, s:o, s:i}", "workload", wname, "fs", fss, "backend",
			     json_object_get(first, "backend"), "params", json_object_get(first, "params"), "metrics",
			     metrics, "known_workload", w != NULL);
}

json_t *mgb_compare(json_t *const *docs, const char *const *paths, unsigned ndocs, const struct mgb_compare_opts *o)
{
	json_t *groups[16], *cells = json_array(), *unmatched = json_array(), *warnings = json_array();
	json_t *documents = json_array();
	bool across_fs = o->across_fs, comparable[16];
	char *base_machine = doc_machine(docs[0]);
	const char *key;
	json_t *v;

	for (unsigned d = 0; d < ndocs; d++) {
		char *desc = mgb_doc_describe(docs[d]), *machine = doc_machine(docs[d]);

		comparable[d] = !strcmp(machine, base_machine);
		json_array_append_new(documents, MGB_JSON_PACK("{s:o, s:o, s:o, s:b}", "path", mgb_json_text(paths[d]),
							       "describe", mgb_json_text(desc), "machine",
							       mgb_json_text(machine), "guest",
							       json_object_get(docs[d], "vm") != NULL));
		if (!comparable[d]) {
			char msg[600];

			snprintf(msg, sizeof(msg), "%s ran on %s, the base on %s: rates and times are not comparable, "
				 "counts are", paths[d], machine, base_machine);
			json_array_append_new(warnings, mgb_json_text(msg));
		}
		free(desc);
		free(machine);
	}
	free(base_machine);
	for (unsigned d = 0; d < ndocs; d++)
		groups[d] = group_cells(docs[d], across_fs);
	/* Documents of one filesystem each (ramfs against tmpfs): nothing matches by fs, so match across. */
	if (!across_fs && count_matched(groups, ndocs) == 0) {
		bool one_each = true;
		const char *fs = NULL;
		char msg[400];
		int n = snprintf(msg, sizeof(msg), "each document holds one filesystem (");

		for (unsigned d = 0; d < ndocs; d++) {
			one_each &= distinct_fs(docs[d], &fs) == 1;
			n += snprintf(msg + n, sizeof(msg) - (size_t)n, "%s%s", d ? ", " : "", one_each && fs ? fs : "?");
		}
		if (one_each) {
			snprintf(msg + n, sizeof(msg) - (size_t)n, "): cells matched across filesystems");
			json_array_append_new(warnings, json_string(msg));
			across_fs = true;
			for (unsigned d = 0; d < ndocs; d++) {
				json_decref(groups[d]);
				groups[d] = group_cells(docs[d], true);
			}
		}
	}
	/* Matched: keys in every document, in the base's order. */
	json_object_foreach(groups[0], key, v) {
		json_t *lists[16];
		bool all = true;

		for (unsigned d = 0; d < ndocs; d++)
			all &= (lists[d] = json_object_get(groups[d], key)) != NULL;
		if (all)
			json_array_append_new(cells, compare_cell(lists, ndocs, comparable, o));
	}
	/* Unmatched: listed, never dropped silently. */
	for (unsigned d = 0; d < ndocs; d++)
		json_object_foreach(groups[d], key, v) {
			bool all = true;
			json_t *cell = json_array_get(v, 0);

			for (unsigned e = 0; e < ndocs; e++)
				all &= json_object_get(groups[e], key) != NULL;
			if (!all)
				json_array_append_new(unmatched, MGB_JSON_PACK("{s:i, s:O, s:O, s:O, s:O}", "document", (int)d,
									       "workload", json_object_get(cell, "workload"),
									       "fs", json_object_get(cell, "fs"), "backend",
									       json_object_get(cell, "backend"), "params",
									       json_object_get(cell, "params")));
		}
	for (unsigned d = 0; d < ndocs; d++)
		json_decref(groups[d]);
	return MGB_JSON_PACK("{s:s, s:f, s:b, s:o, s:o, s:o, s:o}", "schema", MGB_SCHEMA "/compare", "alpha", o->alpha,
			     "across_fs", across_fs, "documents", documents, "warnings", warnings, "cells", cells,
			     "unmatched", unmatched);
}
