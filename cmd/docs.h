/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The result documents that compare, report and plot are given on their command lines. */
#ifndef MGB_CMD_DOCS_H
#define MGB_CMD_DOCS_H

#include <jansson.h>

/*
 * Read paths[0..n-1] into docs[], each checked by mgb_doc_read.  0 when all were read; else the
 * exit code after printing why as verb's error: a usage error for none or more than max, a
 * failure naming the first document that cannot be read (nothing is then left allocated).
 */
int mgb_docs_load(const char *verb, char *const *paths, unsigned n, unsigned max, json_t **docs);
void mgb_docs_free(json_t **docs, unsigned n);

#endif
