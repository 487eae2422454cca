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

/* A document's short description: kernel release, mg / no mg, guest; for labels and legends. */
char *mgb_doc_describe(json_t *doc);

#endif
