/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One loader for the documents named on a command line (docs.h). */
#include "config.h"
#include "docs.h"
#include "doc.h"
#include "mgbench.h"
#include "util.h"

#include <stdio.h>

int mgb_docs_load(const char *verb, char *const *paths, unsigned n, unsigned max, json_t **docs)
{
	char err[MGB_ERR_LEN];

	if (n == 0)
		return mgb_usage_error(verb, "needs a result document (see 'mgbench %s --help')", verb);
	if (n > max)
		return mgb_usage_error(verb, "at most %u documents", max);
	for (unsigned i = 0; i < n; i++) {
		docs[i] = mgb_doc_read(paths[i], err);
		if (!docs[i]) {
			fprintf(stderr, "mgbench %s: %s\n", verb, err);
			mgb_docs_free(docs, i);
			return MGB_EXIT_FAIL;
		}
	}
	return 0;
}

void mgb_docs_free(json_t **docs, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		json_decref(docs[i]);
}
