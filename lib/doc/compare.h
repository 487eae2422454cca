/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Comparing result documents: cells matched across documents by what identifies them (workload,
 * filesystem, backend and its options, parameters), and per metric a verdict against the first
 * document (the base).  The comparison is a JSON object (schema "mgbench/1/compare", documented
 * in mgbench-json(5)) that cmd/compare.c prints as text, markdown or JSON.
 */
#ifndef MGB_COMPARE_H
#define MGB_COMPARE_H

#include <jansson.h>
#include <stdbool.h>

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

/* How many filesystems a document's cells are on; *one is one of them. */
unsigned mgb_compare_fs_count(json_t *doc, const char **one);

/* A metric name matches a column by its header, its full key or its JSON leaf key. */
bool mgb_compare_name_matches(const char *name, const char *path, const char *header);

/* A document's short description: kernel release, mg / no mg, guest; for labels and legends. */
char *mgb_doc_describe(json_t *doc);

#endif
