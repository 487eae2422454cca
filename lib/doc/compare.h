/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Comparing result documents: cells matched across documents by what identifies them (workload,
 * filesystem, backend and its options, parameters), and per metric a verdict against the first
 * document (the base).  The comparison is a JSON object (schema "mgbench/1/compare", documented
 * in mgbench-json(5)) that compare_text.c prints as text or markdown, and compare_gate.c gates on.
 */
#ifndef MGB_COMPARE_H
#define MGB_COMPARE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct mgb_compare_opts {
	double alpha;          /* significance level (0.05) */
	bool across_fs;        /* match cells whatever their filesystem */
	const char **metrics;  /* metric paths or column headers to compare; NULL: each workload's columns */
	unsigned nmetrics;
};

/* docs[0] is the base; paths name them.  Returns the comparison (never NULL). */
json_t *mgb_compare(json_t *const *docs, const char *const *paths, unsigned ndocs,
		    const struct mgb_compare_opts *o);

/* Why a timing from one run a side gets no verdict (a verdict's "reason"). */
#define MGB_ONE_RUN_REASON "repeats share one run's load; give several runs per side"

/* Several documents (runs) of one side as one document: their cells, each marked with its
 * run; NULL with err when they come from different machines or kernels. */
json_t *mgb_compare_merge_runs(json_t *const *docs, const char *const *paths, unsigned n, char *err);

/* Each side s as one document (its runs merged as above; one run is that document) in sides[s],
 * named by the paths of its runs in names[s] (malloc'd): side_of[d] is document d's side.  -1
 * with err when a side's runs cannot be merged (sides and names made so far stay to free). */
int mgb_compare_sides(json_t *const *docs, const char *const *paths, unsigned ndocs, const unsigned *side_of,
		      unsigned nsides, json_t **sides, char **names, char *err);

/* How many filesystems a document's cells are on; *one is one of them. */
unsigned mgb_compare_fs_count(json_t *doc, const char **one);

/* A metric name matches a column by its header, its full key or its JSON leaf key. */
bool mgb_compare_name_matches(const char *name, const char *path, const char *header);

/* The comparison as a plain-text table fitting 72 columns, or as markdown (compare_text.c). */
void mgb_compare_print_text(FILE *out, json_t *cmp);
void mgb_compare_print_markdown(FILE *out, json_t *cmp);
/* A string from a document, safe for a terminal (a ring of buffers: several per printf). */
const char *mgb_compare_safe(const char *text);
/* Side d's letter: A, B, ... */
char mgb_compare_letter(size_t d);

/* The gate (compare_gate.c): exit statuses, as compare --fail-on-regression and ab exit. */
enum mgb_gate {
	MGB_GATE_PASS = 0,       /* no named metric got worse, and each was judged */
	MGB_GATE_REGRESSION = 1, /* one got worse beyond noise in some document */
	MGB_GATE_UNJUDGED = 3,   /* none got worse, but one could not be judged: never a silent pass */
};
/* Over the named metrics (names, headers or keys); each regression and unjudged one named on
 * msgs.  -1 with err when a name matches no compared metric (a usage error). */
int mgb_compare_gate(json_t *cmp, const char *const *names, unsigned n, FILE *msgs, char *err);
/* The first of names that matches no compared column, or NULL. */
const char *mgb_compare_unknown_metric(json_t *cmp, const char *const *names, unsigned n);
/*
 * Whether a metric name (as the gate and --metrics match one) is a column of one of the n
 * workloads: checked before anything runs (ab's --fail-on-regression, kernel bisect's --metric).
 * cols, when not NULL, gets the columns' headers for the message (cut to len).
 */
struct mgb_workload;
bool mgb_compare_column_known(const struct mgb_workload *const *w, unsigned n, const char *name, char *cols,
			      size_t len);
/* Whether any matched cell is of a workload this mgbench knows (has columns to judge). */
bool mgb_compare_any_known(json_t *cmp);

/* A document's short description: kernel release, mg / no mg, guest; for labels and legends. */
char *mgb_doc_describe(json_t *doc);

#endif
